//! `Solver::touch_table` makes the system supply the table's memory: the
//! process's resident set grows by the table's size. Alone in its own test
//! binary so that no other test allocates or frees memory meanwhile.

#![cfg(target_os = "linux")]

use score4::Solver;

/// The resident set of this process in KiB, from the kernel.
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("a VmRSS line");
    line.split_whitespace()
        .nth(1)
        .and_then(|kib| kib.parse().ok())
        .expect("a number of KiB")
}

#[test]
fn touching_the_table_makes_it_resident() {
    let mut solver = Solver::<7, 6>::with_table_mb(256);
    let table_kib = solver.table_bytes() as u64 / 1024;
    let before = resident_kib();
    // Made but untouched, the table is not resident: its pages come
    // zeroed from the system on first use.
    assert!(
        before < table_kib / 2,
        "{before} KiB resident before touching"
    );
    solver.touch_table();
    let after = resident_kib();
    assert!(
        after - before >= table_kib * 9 / 10,
        "touching {table_kib} KiB made {} KiB resident",
        after - before
    );
}
