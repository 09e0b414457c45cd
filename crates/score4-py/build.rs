//! How the extension is built: the compiler is recorded for the wheel's
//! tests (`_native._build_info()`), one other than the repository's pinned
//! toolchain is warned of, and an x86-64 build without the x86-64-v3
//! features is refused. The wheel's import check assumes them, so such a
//! build would be refused on the very processors it could run on, and be
//! slower on the others. They come from the repository's Cargo
//! configuration or, where that is not read (a build run from another
//! directory), from `[tool.maturin] config` in pyproject.toml; setting
//! `RUSTFLAGS` replaces both.

use std::path::Path;
use std::process::Command;

/// x86-64-v3 as the compiler names its features.
const V3: [&str; 8] = [
    "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map_or_else(|| "unknown".into(), |v| v.trim().to_owned());
    println!("cargo:rustc-env=SCORE4_RUSTC={version}");

    let pinned = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rust-toolchain.toml");
    println!("cargo:rerun-if-changed={}", pinned.display());
    let toolchain = std::fs::read_to_string(&pinned).unwrap_or_default();
    if let Some(channel) = channel(&toolchain) {
        if !version.starts_with(&format!("rustc {channel} ")) {
            println!(
                "cargo:warning=built with {version}, not the pinned toolchain {channel} \
                 (rust-toolchain.toml is read from the directory the build runs in)"
            );
        }
    }

    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
        let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
        let have: Vec<&str> = features.split(',').collect();
        let missing: Vec<&str> = V3.into_iter().filter(|f| !have.contains(f)).collect();
        if !missing.is_empty() {
            eprintln!(
                "error: score4's Python module is built for x86-64-v3, but this build lacks {}: \
                 build it with maturin or pip (pyproject.toml gives the flag) or from inside \
                 the repository, and where RUSTFLAGS is set, add `-C target-cpu=x86-64-v3` to it",
                missing.join(", ")
            );
            std::process::exit(1);
        }
    }
}

/// The `channel = "..."` of a rust-toolchain.toml.
fn channel(toml: &str) -> Option<&str> {
    toml.lines().find_map(|line| {
        let value = line
            .trim()
            .strip_prefix("channel")?
            .trim()
            .strip_prefix('=')?;
        Some(value.trim().trim_matches('"'))
    })
}
