//! `score4 serve` as a process: it stops on Ctrl-C (SIGINT) or SIGTERM once
//! the requests under way are answered, and at once on a second signal.
//! (The API itself is tested in the web crate.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_score4");

/// Starts a server on an ephemeral port and reads the address it prints.
fn serve(args: &[&str]) -> (Child, SocketAddr) {
    let mut child = Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("reads the address");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    (child, addr)
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// Sends one request on its own connection and returns the whole response.
fn get(addr: SocketAddr, target: &str) -> std::thread::JoinHandle<String> {
    let mut s = TcpStream::connect(addr).expect("connects");
    s.write_all(
        format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .expect("sends");
    std::thread::spawn(move || {
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    })
}

/// Waits for the process to end, at most `limit`; kills it past that.
fn wait(child: &mut Child, limit: Duration) -> (Option<i32>, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            let mut err = String::new();
            let _ = child
                .stderr
                .take()
                .expect("stderr")
                .read_to_string(&mut err);
            return (status.code(), err);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the server was still running {limit:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn ctrl_c_answers_the_requests_under_way_then_exits_cleanly() {
    for name in ["-INT", "-TERM"] {
        // A budget of 1 s rather than the default 3 s: the test waits it out.
        let (mut child, addr) = serve(&["--budget-ms", "1000"]);
        let health = get(addr, "/api/health").join().expect("client");
        assert!(health.contains("\"budget_ms\":1000"), "{health}");
        // The empty 8x7 board takes far longer than the request budget:
        // the request is still being searched when the signal comes.
        let pending = get(addr, "/api/analyze?board=8x7");
        std::thread::sleep(Duration::from_millis(300));
        signal(&child, name);
        let answer = pending.join().expect("client");
        assert!(answer.starts_with("HTTP/1.1 200 "), "{name}: {answer}");
        assert!(answer.contains("\"complete\":false"), "{name}: {answer}");
        // The process ends soon after the answer.
        let (code, err) = wait(&mut child, Duration::from_secs(10));
        assert_eq!(code, Some(0), "{name}: {err}");
        assert_eq!(
            err.trim_end(),
            "score4: serve: stopped; every request under way was answered",
            "{name}"
        );
        assert!(TcpStream::connect(addr).is_err(), "{name}: still listening");
    }
}

#[test]
fn a_budget_out_of_range_is_one_line_and_status_2() {
    for bad in ["0", "600001", "-5", "3s", ""] {
        let o = Command::new(BIN)
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                &format!("--budget-ms={bad}"),
            ])
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert!(o.stdout.is_empty(), "{bad:?}: it served");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.contains("--budget-ms"), "{bad:?}: {err}");
    }
}

#[test]
fn a_second_ctrl_c_ends_the_process_at_once() {
    let (mut child, addr) = serve(&[]);
    let pending = get(addr, "/api/analyze?board=8x7");
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "-INT");
    std::thread::sleep(Duration::from_millis(100));
    let second = Instant::now();
    signal(&child, "-INT");
    let (code, _) = wait(&mut child, Duration::from_secs(10));
    let took = second.elapsed();
    assert_eq!(code, Some(130));
    // Well before the 3 s budget of the request under way.
    assert!(took < Duration::from_secs(2), "took {took:?}");
    let answer = pending.join().expect("client");
    assert!(!answer.contains("\"complete\""), "answered: {answer}");
}
