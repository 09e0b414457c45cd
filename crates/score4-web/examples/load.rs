//! A bounded load on a running `score4 serve` on loopback: well-formed
//! analyze requests from many clients, abusive clients beside them, and
//! the figures.
//!
//! ```text
//! cargo run --release -p score4-web --example load -- ADDR \
//!     [--clients 64] [--requests 10000] [--positions fixtures/solver/ply15-22.txt] \
//!     [--abusers 8] [--pid PID]
//! cargo run --release -p score4-web --example load -- ADDR \
//!     --slow 1000 [--seconds 20] [--budget-ms 3000] [--pid PID]
//! ```
//!
//! With `--slow N`, the other load instead: N connections held open for
//! `--seconds`, each sending one more byte of a request head every second
//! (and opened again whenever the server closes it), while 4 clients time
//! `/api/analyze?moves=4453` requests one after another, each on a new
//! connection. Every one must be answered 200 within `--budget-ms` (the
//! server's budget) and half a second; the exit status is 1 otherwise.
//! Each connection is a file descriptor here and in the server: raise
//! `ulimit -n` above N for both.
//!
//! `--clients` threads send `--requests` analyze requests in all, one per
//! connection, for the positions of the file (`MOVES SCORE` lines) in
//! turn. Meanwhile `--abusers` threads cycle through the abuses below
//! until the well-formed requests are done. With `--pid` (the server's), the
//! server's peak resident memory and thread count are read from `/proc`.
//! Prints throughput, p50/p99 latency and the statuses of the well-formed
//! requests (every one should be 200) and the statuses of each abuse.
//! Every loop is bounded by a count or by the well-formed requests' end.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use score4::rng::Rng;

/// What abusive clients do.
const ABUSES: [&str; 6] = [
    "slow-headers",
    "huge-query",
    "garbage-bytes",
    "dropped-mid-request",
    "dropped-while-solving",
    "huge-body",
];

/// Reads the status of the response on `s`, 0 if there is none.
fn status(s: &mut TcpStream) -> u16 {
    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn connect(addr: SocketAddr) -> Option<TcpStream> {
    TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()
}

/// One abusive exchange of kind `k`; the status the server gave, 0 when the
/// client did not wait for one.
fn abuse(addr: SocketAddr, k: usize, rng: &mut Rng) -> u16 {
    let Some(mut s) = connect(addr) else { return 1 };
    match ABUSES[k] {
        "slow-headers" => {
            // One byte every 100 ms: the server's head time limit cuts it off.
            for b in b"GET /api/analyze?moves=4453 HTTP/1.1\r\nHost: x\r\nX-Slow: ".iter() {
                if s.write_all(&[*b]).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            status(&mut s)
        }
        "huge-query" => {
            let q = format!(
                "GET /api/analyze?moves={} HTTP/1.1\r\nConnection: close\r\n\r\n",
                "4".repeat(100_000)
            );
            let _ = s.write_all(q.as_bytes());
            status(&mut s)
        }
        "garbage-bytes" => {
            let n = 1 + rng.index(4096);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            let _ = s.write_all(&bytes);
            let _ = s.write_all(b"\r\n\r\n");
            status(&mut s)
        }
        "dropped-mid-request" => {
            let _ = s.write_all(b"GET /api/analyze?board=7x6&moves=44");
            0
        }
        "dropped-while-solving" => {
            // A search the server must stop when it sees the client gone.
            let _ = s.write_all(b"GET /api/analyze?board=8x7 HTTP/1.1\r\n\r\n");
            std::thread::sleep(Duration::from_millis(50));
            0
        }
        _ => {
            let _ = s.write_all(b"GET /api/analyze HTTP/1.1\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\n");
            let _ = s.write_all(&[b'x'; 65536]);
            status(&mut s)
        }
    }
}

/// Peak resident memory (KiB) and thread count of a process.
fn memory(pid: &str) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    Some((field("VmHWM:")?, field("Threads:")?))
}

/// One slow connection: open, and how many bytes of its head it has sent.
struct Slow {
    stream: TcpStream,
    sent: usize,
}

/// What the slow connections met.
#[derive(Debug, Default)]
struct SlowCounts {
    opened: usize,
    closed_by_server: usize,
    refused_503: usize,
    connect_failed: usize,
}

/// The head the slow connections send a byte at a time (never ending).
const SLOW_HEAD: &[u8] = b"GET /api/analyze?moves=4453 HTTP/1.1\r\nHost: x\r\nX-Slow: ";

fn open_slow(addr: SocketAddr, counts: &mut SlowCounts) -> Option<Slow> {
    match connect(addr) {
        Some(stream) => {
            let _ = stream.set_nonblocking(true);
            counts.opened += 1;
            Some(Slow { stream, sent: 0 })
        }
        None => {
            counts.connect_failed += 1;
            None
        }
    }
}

/// Holds `n` slow connections until `until`, one byte each a second; every
/// connection the server closes is opened again.
fn hold_slow(addr: SocketAddr, n: usize, until: Instant) -> (SlowCounts, usize) {
    let mut counts = SlowCounts::default();
    let mut held: Vec<Option<Slow>> = (0..n).map(|_| open_slow(addr, &mut counts)).collect();
    let mut fewest = n;
    while Instant::now() < until {
        let tick = Instant::now();
        for slot in held.iter_mut() {
            let alive = slot.as_mut().is_some_and(|c| {
                let mut buf = [0u8; 512];
                match c.stream.read(&mut buf) {
                    Ok(0) => false,
                    Ok(k) => {
                        if buf[..k].starts_with(b"HTTP/1.1 503") {
                            counts.refused_503 += 1;
                        }
                        false
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        let byte = if c.sent < SLOW_HEAD.len() {
                            SLOW_HEAD[c.sent]
                        } else {
                            b'a'
                        };
                        c.sent += 1;
                        c.stream.write_all(&[byte]).is_ok()
                    }
                    Err(_) => false,
                }
            });
            if !alive {
                if slot.is_some() {
                    counts.closed_by_server += 1;
                }
                *slot = open_slow(addr, &mut counts);
            }
        }
        fewest = fewest.min(held.iter().filter(|s| s.is_some()).count());
        std::thread::sleep(Duration::from_secs(1).saturating_sub(tick.elapsed()));
    }
    (counts, fewest)
}

/// The slow-connection load (see the module's doc); the exit status.
fn slow_load(addr: SocketAddr, n: usize, seconds: u64, budget: Duration, pid: Option<&str>) -> i32 {
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    let holder = std::thread::spawn(move || hold_slow(addr, n, until));
    // Let the slow connections open before timing anything.
    std::thread::sleep(Duration::from_secs(2));
    let timers: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                let mut out = Vec::new();
                // Bounded by the holding time.
                while Instant::now() + budget < until {
                    let t = Instant::now();
                    let code = match connect(addr) {
                        Some(mut s) => match s.write_all(
                            b"GET /api/analyze?moves=4453 HTTP/1.1\r\nHost: x\r\n\
                              Connection: close\r\n\r\n",
                        ) {
                            Ok(()) => status(&mut s),
                            Err(_) => 1,
                        },
                        None => 1,
                    };
                    out.push((code, t.elapsed()));
                    std::thread::sleep(Duration::from_millis(100));
                }
                out
            })
        })
        .collect();
    let mut all: Vec<(u16, Duration)> = timers
        .into_iter()
        .flat_map(|t| t.join().expect("timing thread"))
        .collect();
    let (counts, fewest) = holder.join().expect("slow thread");
    let server = pid.and_then(memory);
    if all.is_empty() {
        eprintln!("load: no request timed: --seconds must exceed the budget and 2 s");
        return 2;
    }
    all.sort_by_key(|&(_, d)| d);
    let pct = |p: f64| all[((all.len() as f64 - 1.0) * p) as usize].1;
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    for &(s, _) in &all {
        *statuses.entry(s).or_default() += 1;
    }
    let bound = budget + Duration::from_millis(500);
    let late = all.iter().filter(|&&(_, d)| d > bound).count();
    println!(
        "slow: {n} connections held for {seconds} s (at least {fewest} open at each tick), \
         a byte a second: {counts:?}"
    );
    println!(
        "timed: {} analyze requests of 4453: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, \
         statuses {statuses:?}, {late} past {} ms",
        all.len(),
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        pct(1.0).as_secs_f64() * 1e3,
        bound.as_millis()
    );
    if let Some((hwm, threads)) = server {
        println!(
            "server: peak resident memory {:.1} MiB, threads {threads}",
            hwm as f64 / 1024.0
        );
    }
    i32::from(late > 0 || statuses.keys().any(|&s| s != 200))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: load ADDR [--clients N] [--requests N] [--positions FILE] \
                 [--abusers N] [--pid PID]\n       load ADDR --slow N [--seconds S] \
                 [--budget-ms MS] [--pid PID]";
    let fail = |why: &str| -> ! {
        eprintln!("load: {why}\n{usage}");
        std::process::exit(2)
    };
    let Some(addr) = args.first().and_then(|a| a.parse::<SocketAddr>().ok()) else {
        fail("the first argument must be the server's HOST:PORT")
    };
    let mut opt: BTreeMap<&str, &str> = BTreeMap::new();
    for pair in args[1..].chunks(2) {
        match pair {
            [k, v] if k.starts_with("--") => {
                opt.insert(&k[2..], v);
            }
            _ => fail(&format!("unexpected {pair:?}")),
        }
    }
    let number = |k: &str, default: usize| -> usize {
        opt.get(k)
            .map(|v| v.parse().unwrap_or_else(|_| fail(&format!("--{k} {v}"))))
            .unwrap_or(default)
    };
    if opt.contains_key("slow") {
        let budget = Duration::from_millis(number("budget-ms", 3000) as u64);
        let code = slow_load(
            addr,
            number("slow", 1000),
            number("seconds", 20) as u64,
            budget,
            opt.get("pid").copied(),
        );
        std::process::exit(code);
    }
    let clients = number("clients", 64).max(1);
    let requests = number("requests", 10_000);
    let abusers = number("abusers", 8);
    let path = opt
        .get("positions")
        .copied()
        .unwrap_or("fixtures/solver/ply15-22.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let positions: Arc<Vec<String>> = Arc::new(
        text.lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect(),
    );
    if positions.is_empty() {
        fail(&format!("{path}: no positions"));
    }
    let pid = opt.get("pid").map(|p| p.to_string());
    let before = pid.as_deref().and_then(memory);

    let done = Arc::new(AtomicBool::new(false));
    let abusers: Vec<_> = (0..abusers)
        .map(|a| {
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut rng = Rng::new(a as u64 + 1);
                let mut seen: BTreeMap<(&str, u16), usize> = BTreeMap::new();
                let mut k = a % ABUSES.len();
                // Bounded: stops with the well-formed load, and at 100,000.
                for _ in 0..100_000 {
                    if done.load(Ordering::Relaxed) {
                        break;
                    }
                    *seen
                        .entry((ABUSES[k], abuse(addr, k, &mut rng)))
                        .or_default() += 1;
                    k = (k + 1) % ABUSES.len();
                }
                seen
            })
        })
        .collect();

    let start = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let positions = Arc::clone(&positions);
            std::thread::spawn(move || {
                let mut out = Vec::new();
                for i in (c..requests).step_by(clients) {
                    let moves = &positions[i % positions.len()];
                    let raw = format!("GET /api/analyze?moves={moves} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                    let t = Instant::now();
                    let code = match connect(addr) {
                        Some(mut s) => match s.write_all(raw.as_bytes()) {
                            Ok(()) => status(&mut s),
                            Err(_) => 1,
                        },
                        None => 1,
                    };
                    out.push((code, t.elapsed()));
                }
                out
            })
        })
        .collect();
    let mut all: Vec<(u16, Duration)> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("client thread"))
        .collect();
    let took = start.elapsed();
    done.store(true, Ordering::Relaxed);
    let mut abused: BTreeMap<(&str, u16), usize> = BTreeMap::new();
    for a in abusers {
        for (k, n) in a.join().expect("abuser thread") {
            *abused.entry(k).or_default() += n;
        }
    }
    let after = pid.as_deref().and_then(memory);

    all.sort_by_key(|&(_, d)| d);
    let pct = |p: f64| all[((all.len() as f64 - 1.0) * p) as usize].1;
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    for &(s, _) in &all {
        *statuses.entry(s).or_default() += 1;
    }
    if all.is_empty() {
        fail("--requests 0");
    }
    println!(
        "well-formed: {} analyze requests from {clients} clients in {:.2} s: {:.0} per second, \
         p50 {:.1} ms, p99 {:.1} ms, statuses {statuses:?}",
        all.len(),
        took.as_secs_f64(),
        all.len() as f64 / took.as_secs_f64(),
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
    );
    println!("abusive (kind, status 0 = the client left first): {abused:?}");
    if let (Some((hwm0, t0)), Some((hwm1, t1))) = (before, after) {
        println!(
            "server: peak resident memory {:.1} MiB before, {:.1} MiB after; threads {t0} -> {t1}",
            hwm0 as f64 / 1024.0,
            hwm1 as f64 / 1024.0
        );
    }
    // A well-formed request answered with anything but 200 is a failure.
    if statuses.keys().any(|&s| s != 200) {
        std::process::exit(1);
    }
}
