//! A bounded load on a running `score4 serve` on loopback: well-formed
//! analyze requests from several clients, or garbage, and the figures.
//!
//! cargo run --release -p score4-web --example load -- ADDR analyze CLIENTS REQUESTS MOVES
//! cargo run --release -p score4-web --example load -- ADDR garbage CLIENTS REQUESTS
//!
//! Prints requests per second, p50 and p99 latency, and the count of each
//! status. Every loop is bounded by its request count.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

fn request(addr: SocketAddr, raw: &[u8]) -> u16 {
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(5)) else {
        return 0;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = s.write_all(raw);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn garbage(i: usize) -> Vec<u8> {
    match i % 6 {
        0 => format!(
            "GET /api/analyze?moves={} HTTP/1.1\r\n\r\n",
            "4".repeat(3000)
        )
        .into_bytes(),
        1 => b"GET /api/analyze?board=99x99 HTTP/1.1\r\n\r\n".to_vec(),
        2 => b"\x16\x03\x01\x00\xff garbage \x00\x01\r\n\r\n".to_vec(),
        3 => format!("GET /{} HTTP/1.1\r\n\r\n", "x".repeat(i % 1500)).into_bytes(),
        4 => b"POST /api/move HTTP/1.1\r\nContent-Length: 999999\r\n\r\n".to_vec(),
        _ => format!("GET /api/analyze?moves=4{}9 HTTP/1.1\r\n\r\n", i % 7).into_bytes(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: load ADDR analyze|garbage CLIENTS REQUESTS [MOVES]";
    let (Some(addr), Some(kind), Some(clients), Some(requests)) =
        (args.get(1), args.get(2), args.get(3), args.get(4))
    else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let addr: SocketAddr = addr.parse().expect(usage);
    let clients: usize = clients.parse().expect(usage);
    let requests: usize = requests.parse().expect(usage);
    let moves = args.get(5).cloned().unwrap_or_else(|| "4453".to_string());
    let analyze = kind == "analyze";
    let start = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let moves = moves.clone();
            std::thread::spawn(move || {
                let mut out = Vec::new();
                for i in (c..requests).step_by(clients) {
                    let raw = if analyze {
                        format!("GET /api/analyze?moves={moves} HTTP/1.1\r\n\r\n").into_bytes()
                    } else {
                        garbage(i)
                    };
                    let t = Instant::now();
                    let status = request(addr, &raw);
                    out.push((status, t.elapsed()));
                }
                out
            })
        })
        .collect();
    let mut all: Vec<(u16, Duration)> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let took = start.elapsed();
    all.sort_by_key(|&(_, d)| d);
    let pct = |p: f64| all[((all.len() as f64 - 1.0) * p) as usize].1;
    let mut statuses: Vec<(u16, usize)> = Vec::new();
    for &(s, _) in &all {
        match statuses.iter_mut().find(|(k, _)| *k == s) {
            Some((_, n)) => *n += 1,
            None => statuses.push((s, 1)),
        }
    }
    statuses.sort();
    println!(
        "{} requests in {:.2} s: {:.0} per second, p50 {:?}, p99 {:?}, statuses {:?}",
        all.len(),
        took.as_secs_f64(),
        all.len() as f64 / took.as_secs_f64(),
        pct(0.5),
        pct(0.99),
        statuses
    );
}
