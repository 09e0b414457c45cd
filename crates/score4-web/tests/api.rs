//! The API through real HTTP on loopback: answers compared with the
//! solver's own, garbage refused with a JSON error while the server stays
//! up, limits, a full queue, a budget run out, and a client that leaves.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;

use score4::classic::{self, Outcome, Request};
use score4::play;
use score4::rng::Rng;
use score4::{Board, Position, Solver};
use score4_web::{start, Config, Server};

fn server(config: Config) -> Server {
    start(&Config {
        addr: "127.0.0.1:0".to_string(),
        ..config
    })
    .unwrap()
}

/// Sends `raw` bytes on a new connection, returns the status, the head and
/// the body of the first response (status 0 if the server closed without one).
fn send(addr: SocketAddr, raw: &[u8]) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    // A refused request may be answered before all of it is sent.
    let _ = s.write_all(raw);
    read_response(&mut s)
}

/// Reads one response: its head, then as much body as its Content-Length
/// says (the connection may be kept open after it), or to the end.
fn read_response(s: &mut TcpStream) -> (u16, String, String) {
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    while !out.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => out.push(byte[0]),
            _ => break,
        }
    }
    let head = String::from_utf8_lossy(&out).trim_end().to_string();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let length = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    });
    let mut body = Vec::new();
    match length {
        Some(n) => {
            body.resize(n, 0);
            s.read_exact(&mut body).unwrap();
        }
        None => {
            let _ = s.read_to_end(&mut body);
        }
    }
    (status, head, String::from_utf8_lossy(&body).to_string())
}

/// A header's value in a response head, its name in any case.
fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
    })
}

fn get(addr: SocketAddr, target: &str) -> (u16, Value) {
    let raw = format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
    let (status, _, body) = send(addr, raw.as_bytes());
    let value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{target}: {e}: {body:?}"));
    (status, value)
}

fn random_games<const W: usize, const H: usize>(
    count: usize,
    max: usize,
    seed: u64,
) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position::<W, H>::new();
        let mut moves = String::new();
        let target = rng.index(max);
        for _ in 0..target {
            let cols: Vec<usize> = p.playable_columns().collect();
            let c = cols[rng.index(cols.len())];
            if p.is_winning_move(c) || p.after(c).is_game_over() {
                break;
            }
            p.play(c);
            moves.push(char::from_digit(c as u32 + 1, 10).unwrap());
        }
        out.push(moves);
    }
    out
}

fn check_analysis<const W: usize, const H: usize>(addr: SocketAddr, games: &[String]) {
    let mut solver = Solver::<W, H>::new();
    for moves in games {
        let p = Position::<W, H>::parse(moves).unwrap();
        let (status, v) = get(addr, &format!("/api/analyze?board={W}x{H}&moves={moves}"));
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["complete"], true, "{moves}");
        let scores = solver.analyze(&p);
        let best = scores.iter().flatten().max().copied();
        assert_eq!(v["score"].as_i64(), best.map(i64::from), "{moves}");
        assert_eq!(v["to_move"], if moves.len() % 2 == 0 { 1 } else { 2 });
        for (c, s) in scores.iter().enumerate() {
            let col = &v["columns"][c];
            match s {
                None => assert!(col.is_null(), "{moves} col {c}"),
                Some(s) => {
                    assert_eq!(
                        col["score"].as_i64(),
                        Some(i64::from(*s)),
                        "{moves} col {c}"
                    );
                    assert_eq!(col["col"], c + 1);
                    assert_eq!(col["words"].as_str(), play::words(&p, *s).as_deref());
                    assert_eq!(col["best"], Some(*s) == best);
                }
            }
        }
        let listed: Vec<usize> = v["best"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap() as usize - 1)
            .collect();
        let expected: Vec<usize> = (0..W)
            .filter(|&c| scores[c].is_some() && scores[c] == best)
            .collect();
        assert_eq!(listed, expected, "{moves}");
    }
}

#[test]
fn analyze_solve_and_move_agree_with_the_library() {
    // A budget no search here needs, on a machine however busy.
    let s = server(Config {
        budget: Duration::from_secs(120),
        ..Config::default()
    });
    let addr = s.addr();
    check_analysis::<7, 6>(addr, &random_games::<7, 6>(12, 30, 1));
    check_analysis::<5, 4>(addr, &random_games::<5, 4>(12, 14, 2));
    check_analysis::<6, 5>(addr, &random_games::<6, 5>(6, 20, 3));

    let mut solver = Solver::<7, 6>::new();
    for moves in random_games::<7, 6>(10, 30, 4) {
        let p = Position::<7, 6>::parse(&moves).unwrap();
        let (_, v) = get(addr, &format!("/api/solve?moves={moves}"));
        assert_eq!(
            v["score"].as_i64(),
            Some(i64::from(solver.solve(&p))),
            "{moves}"
        );
        let (_, v) = get(addr, &format!("/api/solve?moves={moves}&weak=1"));
        assert_eq!(v["sign"].as_i64(), Some(i64::from(solver.solve_weak(&p))));
        let (_, v) = get(addr, &format!("/api/move?moves={moves}&opponent=perfect"));
        let best = solver.best_move(&p).unwrap();
        assert_eq!(v["column"].as_u64(), Some(best as u64 + 1), "{moves}");
        let request = Request {
            board: Board::from_position(&p),
            level: 5,
            debug: false,
            perfect: false,
        };
        let Outcome::Move { column, .. } = classic::answer(&request).outcome else {
            panic!("{moves}: the engine has no move")
        };
        for target in [
            format!("/api/move?moves={moves}&opponent=classic%3A5"),
            format!("/api/move?moves={moves}&level=5"),
        ] {
            let (_, v) = get(addr, &target);
            assert_eq!(v["column"].as_u64(), Some(column as u64 + 1), "{target}");
        }
        let scores = solver.analyze(&p);
        let (_, v) = get(addr, &format!("/api/move?moves={moves}&opponent=fair"));
        let c = v["column"].as_u64().unwrap() as usize - 1;
        if scores.iter().flatten().any(|&s| s >= 0) {
            assert!(scores[c].unwrap() >= 0, "{moves}: fair played a loss");
        }
        // The same seed, the same move.
        let soft = format!("/api/move?moves={moves}&opponent=soft%3A3&seed=77");
        assert_eq!(get(addr, &soft).1["column"], get(addr, &soft).1["column"]);
    }
    let (status, v) = get(addr, "/api/move?moves=4453&opponent=human");
    assert_eq!((status, v["column"].clone()), (200, Value::Null));
    // A finished game: analysed as over, neither solved nor answered.
    let (status, v) = get(addr, "/api/analyze?moves=4455667");
    assert_eq!(
        (status, v["over"].clone(), v["winner"].clone()),
        (200, true.into(), 1.into())
    );
    for endpoint in ["solve", "move"] {
        let (status, v) = get(addr, &format!("/api/{endpoint}?moves=4455667"));
        assert_eq!(status, 400);
        assert_eq!(v["error"], "the game is already over: move 7 won");
    }
    s.stop();
}

#[test]
fn garbage_gets_a_json_error_and_the_server_stays_up() {
    let s = server(Config::default());
    let addr = s.addr();
    let cases: Vec<(u16, &str, String)> = vec![
        (
            400,
            "is not a board size",
            "/api/analyze?board=seven".into(),
        ),
        (400, "is not supported", "/api/analyze?board=3x3".into()),
        (400, "is not supported", "/api/analyze?board=10x6".into()),
        (
            400,
            "move 3: column 8 is out of range 1..7",
            "/api/analyze?moves=448".into(),
        ),
        (
            400,
            "move 7: column 4 is full",
            "/api/analyze?moves=4444444".into(),
        ),
        (
            400,
            "move 2: 'x' is not a column",
            "/api/analyze?moves=4x".into(),
        ),
        (
            400,
            "move 8: the game was already won by move 7",
            "/api/analyze?moves=44556677".into(),
        ),
        (
            400,
            "unknown parameter",
            "/api/analyze?moves=44&evil=1".into(),
        ),
        (400, "given twice", "/api/analyze?moves=4&moves=5".into()),
        (400, "percent-encoding", "/api/analyze?moves=%4".into()),
        (400, "not UTF-8", "/api/analyze?moves=%ff".into()),
        (400, "unknown opponent", "/api/move?opponent=god".into()),
        (
            400,
            "bad classic level",
            "/api/move?opponent=classic:0".into(),
        ),
        (400, "from 1 to 12", "/api/move?level=40".into()),
        (400, "from 1 to 12", "/api/move?level=0".into()),
        (400, "takes none", "/api/health?foo=bar".into()),
        (400, "only on 7x6", "/api/move?board=6x5&level=3".into()),
        (400, "bad temperature", "/api/move?opponent=soft:nan".into()),
        (400, "bad seed", "/api/move?seed=-1".into()),
        (404, "no such page", "/etc/passwd".into()),
        (404, "no such page", "/api/analyze/extra".into()),
        (
            414,
            "longer than",
            format!("/api/analyze?moves={}", "4".repeat(3000)),
        ),
    ];
    for (status, words, target) in &cases {
        let (got, v) = get(addr, target);
        let error = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{target}: {v}"));
        assert_eq!(got, *status, "{target}: {error}");
        assert!(error.contains(words), "{target}: {error}");
        assert!(!error.contains('\n'));
    }
    // Routed requests are answered in JSON; what hyper refuses before
    // there is a request to route (a malformed head) gets its status with
    // an empty body, and the connection is closed.
    let raw: Vec<(u16, bool, Vec<u8>)> = vec![
        (
            405,
            true,
            b"POST /api/analyze HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
        ),
        (405, true, b"DELETE / HTTP/1.1\r\n\r\n".to_vec()),
        (
            400,
            false,
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n".to_vec(),
        ),
        (400, false, b"hello\r\n\r\n".to_vec()),
        (400, true, b"GET noslash HTTP/1.1\r\n\r\n".to_vec()),
        (400, true, b"GET http://x/ HTTP/1.1\r\n\r\n".to_vec()),
        (400, false, b"GET / HTTP/3.0\r\n\r\n".to_vec()),
        (
            413,
            true,
            b"GET / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n".to_vec(),
        ),
        (
            400,
            false,
            b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n".to_vec(),
        ),
        (
            411,
            true,
            b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec(),
        ),
        (
            400,
            false,
            b"GET / HTTP/1.1\r\nno colon here\r\n\r\n".to_vec(),
        ),
        (
            400,
            false,
            b"GET / HTTP/1.1\r\n: empty name\r\n\r\n".to_vec(),
        ),
        (
            400,
            false,
            b"GET / HTTP/1.1\r\nContent-Length : 5\r\n\r\nhello".to_vec(),
        ),
        (
            400,
            false,
            b"GET / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc".to_vec(),
        ),
        (
            400,
            false,
            b"GET / HTTP/1.1\r\nContent-Length: 5000\r\nContent-Length: 3\r\n\r\nabc".to_vec(),
        ),
        // Bare LF line ends are read as CRLF (RFC 9112 allows it).
        (200, true, b"GET /api/health HTTP/1.1\nHost: x\n\n".to_vec()),
    ];
    for (status, is_json, bytes) in &raw {
        let (got, head, body) = send(addr, bytes);
        let what = String::from_utf8_lossy(bytes);
        assert_eq!(got, *status, "{what:?}: {head}");
        if *is_json {
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["error"].is_string(), got != 200, "{body}");
        } else {
            assert_eq!(body, "", "{what:?}");
        }
    }
    // A head past 8 KiB, cut off by hyper while it reads.
    let long = format!(
        "GET /api/analyze?moves={} HTTP/1.1\r\n\r\n",
        "4".repeat(9000)
    );
    let (got, _, body) = send(addr, long.as_bytes());
    assert_eq!((got, body.as_str()), (431, ""));
    // HTTP/2's preface is not HTTP/1.1: the connection is closed unanswered.
    let (got, _, _) = send(addr, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    assert_eq!(got, 0);
    // The 405 says what is allowed.
    let (_, head, _) = send(addr, b"DELETE /api/health HTTP/1.1\r\n\r\n");
    assert!(
        header(&head, "allow").is_some_and(|a| a.contains("GET")),
        "{head}"
    );
    // A connection that says nothing and one dropped mid-request.
    drop(TcpStream::connect(addr).unwrap());
    let mut half = TcpStream::connect(addr).unwrap();
    half.write_all(b"GET /api/analyze?moves=44").unwrap();
    drop(half);
    let (status, v) = get(addr, "/api/health");
    assert_eq!((status, v["ok"].clone()), (200, true.into()));
    let (status, head, body) = send(addr, b"GET /?moves=4453 HTTP/1.1\r\n\r\n");
    assert_eq!(status, 200);
    assert!(header(&head, "content-type").is_some_and(|t| t.starts_with("text/html")));
    assert!(body.contains("<html"));
    assert_eq!(header(&head, "cache-control").as_deref(), Some("no-store"));
    assert_eq!(
        header(&head, "x-content-type-options").as_deref(),
        Some("nosniff")
    );
    s.stop();
}

/// A server whose request heads must arrive within `read_time`.
fn with_read_time(read_time: Duration, connections: usize) -> Server {
    let mut config = Config {
        connections,
        ..Config::default()
    };
    config.limits.read_time = read_time;
    server(config)
}

#[test]
fn a_connection_carries_request_after_request() {
    let s = server(Config::default());
    let mut c = TcpStream::connect(s.addr()).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    for target in ["/api/health", "/api/analyze?moves=4453", "/nope"] {
        c.write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .unwrap();
        let (status, _, body) = read_response(&mut c);
        let v: Value = serde_json::from_str(&body).unwrap();
        let expected = if target == "/nope" { 404 } else { 200 };
        assert_eq!(status, expected, "{target}: {v}");
    }
    // Asked to close, it closes after the answer.
    c.write_all(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    assert_eq!(read_response(&mut c).0, 200);
    let mut rest = Vec::new();
    assert_eq!(c.read_to_end(&mut rest).unwrap(), 0);
    s.stop();
}

/// Sends `prefix` a byte every `every` until the server closes the
/// connection or `limit` has passed; how long the server took to close it.
fn trickle(addr: SocketAddr, prefix: &[u8], every: Duration, limit: Duration) -> Option<Duration> {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
    let start = Instant::now();
    let mut bytes = prefix.iter().cycle();
    while start.elapsed() < limit {
        let mut buf = [0u8; 256];
        match c.read(&mut buf) {
            // The server's close (any answer it wrote before it included).
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(start.elapsed())
            }
            Err(_) => {}
        }
        if c.write_all(&[*bytes.next().unwrap()]).is_err() {
            return Some(start.elapsed());
        }
        std::thread::sleep(every);
    }
    None
}

#[test]
fn slow_heads_are_cut_off_at_the_read_time_and_hold_up_nobody_else() {
    // Far fewer connections allowed than the thread-per-connection server
    // had threads, yet 30 slow clients cost the others nothing.
    let s = with_read_time(Duration::from_millis(500), 40);
    let addr = s.addr();
    let slow: Vec<_> = (0..30)
        .map(|_| {
            std::thread::spawn(move || {
                trickle(
                    addr,
                    b"GET /api/health HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                    Duration::from_millis(50),
                    Duration::from_secs(10),
                )
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let (status, v) = get(addr, "/api/analyze?moves=4453");
    assert_eq!((status, v["complete"].clone()), (200, true.into()));
    for t in slow {
        let closed = t.join().unwrap();
        // Cut off at the head's time limit, long before the client's own.
        assert!(
            closed.is_some_and(|d| d < Duration::from_secs(5)),
            "{closed:?}"
        );
    }
    // A connection idle after its answer is closed at the same limit, and
    // so is one that trickles bytes after it.
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.write_all(b"GET /api/health HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut idle).0, 200);
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let start = Instant::now();
    assert_eq!(idle.read(&mut [0u8; 16]).unwrap_or(0), 0);
    assert!(start.elapsed() < Duration::from_secs(5));
    let after_answer = trickle(
        addr,
        b"GET /api/health HTTP/1.1\r\n\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        Duration::from_millis(20),
        Duration::from_secs(10),
    );
    assert!(after_answer.is_some_and(|d| d < Duration::from_secs(5)));
    s.stop();
}

#[test]
fn past_the_connection_limit_a_new_one_is_answered_503_at_once() {
    let s = with_read_time(Duration::from_secs(30), 3);
    let addr = s.addr();
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let (status, head, body) = send(addr, b"GET /api/health HTTP/1.1\r\n\r\n");
    assert_eq!(status, 503, "{head}");
    assert_eq!(header(&head, "retry-after").as_deref(), Some("1"));
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("too many connections"));
    // Once they close, connections are taken again.
    drop(held);
    let start = Instant::now();
    loop {
        let (status, _) = get(addr, "/api/health");
        if status == 200 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{status}");
        std::thread::sleep(Duration::from_millis(50));
    }
    s.stop();
}

#[test]
fn a_task_that_waits_out_its_budget_is_answered_503() {
    // With no budget at all every task has waited out its budget by the
    // time a worker takes it: the worker answers "busy" rather than search.
    let s = server(Config {
        budget: Duration::ZERO,
        ..Config::default()
    });
    let addr = s.addr();
    for target in ["/api/analyze?moves=44", "/api/move?moves=44"] {
        let (status, v) = get(addr, target);
        assert_eq!(status, 503, "{target}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains("budget ran out"),
            "{v}"
        );
    }
    let (status, _) = get(addr, "/api/health");
    assert_eq!(status, 200);
    s.stop();
}

#[test]
fn many_clients_at_once_all_get_their_answer() {
    let s = server(Config {
        budget: Duration::from_secs(120),
        pending_tasks: 64,
        ..Config::default()
    });
    let addr = s.addr();
    let games = random_games::<7, 6>(16, 24, 9);
    let mut solver = Solver::<7, 6>::new();
    let expected: Vec<i64> = games
        .iter()
        .map(|m| i64::from(solver.solve(&Position::parse(m).unwrap())))
        .collect();
    let threads: Vec<_> = (0..12)
        .map(|t| {
            let games = games.clone();
            let expected = expected.clone();
            std::thread::spawn(move || {
                for i in 0..16 {
                    let k = (t * 5 + i) % games.len();
                    let (status, v) = get(addr, &format!("/api/analyze?moves={}", games[k]));
                    assert_eq!(status, 200, "{v}");
                    assert_eq!(v["score"].as_i64(), Some(expected[k]), "{}", games[k]);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    s.stop();
}

#[test]
fn the_budget_stops_a_search_and_unsettled_columns_are_null() {
    let s = server(Config {
        budget: Duration::from_millis(300),
        ..Config::default()
    });
    let start = Instant::now();
    let (status, v) = get(s.addr(), "/api/analyze?board=8x7");
    let took = start.elapsed();
    assert_eq!(status, 200);
    assert_eq!(v["complete"], false);
    assert!(v["score"].is_null());
    assert!(v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["words"] == "?"));
    // The budget, not the search, decides (a solve of 8x7 takes hours).
    assert!(took < Duration::from_secs(5), "{took:?}");
    // Out of time, the move found without a search (1-based on the wire).
    let (_, v) = get(s.addr(), "/api/move?board=8x7&opponent=perfect");
    let quick = play::quick_move(&Position::<8, 7>::new()).map(|c| c + 1);
    assert_eq!(
        (v["complete"].clone(), v["column"].clone()),
        (false.into(), quick.into())
    );
    s.stop();
}

#[test]
fn a_full_queue_is_refused_with_503_and_retry_after() {
    let s = server(Config {
        workers: 1,
        pending_tasks: 1,
        budget: Duration::from_millis(800),
        ..Config::default()
    });
    let addr = s.addr();
    let clients: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || send(addr, b"GET /api/analyze?board=8x7 HTTP/1.1\r\n\r\n"))
        })
        .collect();
    let answers: Vec<_> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let busy = answers
        .iter()
        .filter(|(status, _, _)| *status == 503)
        .count();
    assert!(busy >= 1, "{answers:?}");
    assert!(answers
        .iter()
        .all(|(st, head, _)| *st == 200 || header(head, "retry-after").as_deref() == Some("1")));
    // The queue frees as the worker takes what waits in it (a task given
    // up there too), and the server answers again.
    let start = Instant::now();
    loop {
        let (status, v) = get(addr, "/api/analyze?moves=4453");
        if status == 200 {
            break;
        }
        assert_eq!(status, 503, "{v}");
        assert!(start.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
    }
    s.stop();
}

/// A server with one worker and a budget long enough that only a client
/// going away can end a search early.
fn one_patient_worker() -> Server {
    server(Config {
        workers: 1,
        budget: Duration::from_secs(120),
        ..Config::default()
    })
}

/// Asks for an 8x7 analysis (minutes of search) and leaves the connection open.
fn slow_request(addr: SocketAddr, moves: &str) -> TcpStream {
    let mut c = TcpStream::connect(addr).unwrap();
    c.write_all(format!("GET /api/analyze?board=8x7&moves={moves} HTTP/1.1\r\n\r\n").as_bytes())
        .unwrap();
    c
}

/// How long after `left` the one worker answered a quick request; it must
/// be well under any search's budget.
fn worker_free_since(addr: SocketAddr, left: Instant) -> Duration {
    let (status, v) = get(addr, "/api/analyze?moves=4453");
    let freed = left.elapsed();
    assert_eq!((status, v["complete"].clone()), (200, true.into()));
    assert!(freed < Duration::from_secs(3), "{freed:?}");
    freed
}

#[test]
fn a_client_that_leaves_frees_its_worker() {
    let s = one_patient_worker();
    let leaving = slow_request(s.addr(), "");
    std::thread::sleep(Duration::from_millis(300));
    let left = Instant::now();
    drop(leaving);
    // The one worker is busy with the search until it sees its client gone.
    let freed = worker_free_since(s.addr(), left);
    eprintln!("a cancelled request freed its worker in {freed:?}");
    s.stop();
}

/// A task whose client leaves while it still waits for a worker is never
/// started: the next client does not wait for a search nobody will read.
#[test]
fn a_task_given_up_in_the_queue_is_never_started() {
    let s = one_patient_worker();
    // The first holds the one worker; the second waits behind it.
    let running = slow_request(s.addr(), "");
    std::thread::sleep(Duration::from_millis(300));
    let queued = slow_request(s.addr(), "4");
    std::thread::sleep(Duration::from_millis(300));
    drop(queued);
    // The connection thread sees the queued task's client gone.
    std::thread::sleep(Duration::from_millis(300));
    let left = Instant::now();
    drop(running);
    // Had the queued task run, it would hold the worker for its budget.
    let freed = worker_free_since(s.addr(), left);
    eprintln!("the worker was free {freed:?} after its last client left");
    s.stop();
}

#[test]
fn stopping_answers_the_request_under_way_and_closes_idle_connections() {
    let mut config = Config {
        budget: Duration::from_millis(1000),
        ..Config::default()
    };
    // Idle connections would otherwise stay open this long.
    config.limits.read_time = Duration::from_secs(60);
    let s = server(config);
    let addr = s.addr();
    let mut idle = TcpStream::connect(addr).unwrap();
    let mut kept = TcpStream::connect(addr).unwrap();
    kept.write_all(b"GET /api/health HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut kept).0, 200);
    let pending =
        std::thread::spawn(move || send(addr, b"GET /api/analyze?board=8x7 HTTP/1.1\r\n\r\n"));
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    s.stop();
    let stopped = start.elapsed();
    let (status, _, body) = pending.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"complete\":false"), "{body}");
    for c in [&mut idle, &mut kept] {
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        assert_eq!(c.read(&mut [0u8; 16]).unwrap_or(0), 0);
    }
    // The idle connections did not hold the stop for their read time.
    assert!(stopped < Duration::from_secs(30), "{stopped:?}");
    assert!(TcpStream::connect(addr).is_err());
}
