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
use score4::solver::ScoreRange;
use score4::{Board, Position, Solver};
use score4_testkit::naive::{late_game, Naive};
use score4_testkit::positions::random_moves;
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

/// `count` games still on, each of fewer than `max` random moves.
fn random_games<const W: usize, const H: usize>(
    count: usize,
    max: usize,
    seed: u64,
) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let len = rng.index(max) as u32;
            random_moves::<W, H>(&mut rng, len).0
        })
        .collect()
}

/// Checks an analysis's ranges as the wire tells them: each column's (and
/// the position's) bounds in order, its words the library's for them, its
/// score and sign given exactly when the range proves them.
fn check_ranges<const W: usize, const H: usize>(p: &Position<W, H>, v: &Value) {
    let mut ranges = Vec::new();
    for (c, col) in v["columns"].as_array().unwrap().iter().enumerate() {
        if col.is_null() {
            assert!(!p.can_play(c) || p.is_game_over(), "column {c}");
            continue;
        }
        let range = ScoreRange {
            lower: col["lower"].as_i64().unwrap() as i32,
            upper: col["upper"].as_i64().unwrap() as i32,
        };
        assert!(range.lower <= range.upper, "{col}");
        assert_eq!(col["col"], c + 1);
        assert_eq!(col["words"], play::range_words(p, range), "{col}");
        assert_eq!(col["exact"].as_i64(), range.exact().map(i64::from), "{col}");
        assert_eq!(col["score"], col["exact"], "{col}");
        assert_eq!(col["weak"].as_i64(), range.weak().map(i64::from), "{col}");
        ranges.push(range);
    }
    let position = ranges.iter().copied().reduce(|a, b| ScoreRange {
        lower: a.lower.max(b.lower),
        upper: a.upper.max(b.upper),
    });
    assert_eq!(v["lower"].as_i64(), position.map(|r| i64::from(r.lower)));
    assert_eq!(v["upper"].as_i64(), position.map(|r| i64::from(r.upper)));
    assert_eq!(
        v["score"].as_i64(),
        position.and_then(ScoreRange::exact).map(i64::from)
    );
    assert_eq!(
        v["complete"],
        p.is_game_over() || ranges.iter().all(|r| r.exact().is_some())
    );
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
        check_ranges(&p, &v);
        // The best move is proven, and it is the one the solver plays.
        let best_move = solver.best_move(&p).map(|c| c as u64 + 1);
        assert_eq!(v["best"]["col"].as_u64(), best_move, "{moves}");
        assert_eq!(v["best"]["proven"], true, "{moves}");
    }
}

#[test]
fn boards_past_64_bits_are_answered_as_the_unpruned_negamax_says() {
    let s = server(Config {
        budget: Duration::from_secs(120),
        ..Config::default()
    });
    let addr = s.addr();
    let mut rng = score4_testkit::Rng::new(1016);
    // 16x7: 128 bits, whose small table takes entries of three words.
    for (w, h) in [(10, 6), (11, 4), (16, 4), (16, 7)] {
        let shape = score4::wide::Shape::new(w, h).unwrap();
        let mut checked = 0;
        while checked < 3 {
            let empty = 7 + rng.index(4);
            let Some((moves, g)) = late_game(w, h, empty, &mut rng) else {
                continue;
            };
            let n = (w * h - empty) as u32;
            let scores = Naive::new().move_scores(&g);
            let (status, v) = get(addr, &format!("/api/analyze?board={w}x{h}&moves={moves}"));
            assert_eq!(status, 200, "{v}");
            assert_eq!(v["complete"], true, "{moves}");
            assert_eq!(v["columns"].as_array().map(Vec::len), Some(w));
            for (c, s) in scores.iter().enumerate() {
                let col = &v["columns"][c];
                match s {
                    None => assert!(col.is_null(), "{moves} col {c}"),
                    Some(s) => {
                        assert_eq!(col["score"].as_i64(), Some(i64::from(*s)), "{moves}");
                        assert_eq!(col["col"], c + 1);
                        let words = play::words_after(w * h, n, *s);
                        assert_eq!(col["words"].as_str(), words.as_deref());
                    }
                }
            }
            // Perfect play: the best score, the centre-most among equals.
            let best = scores.iter().flatten().max().copied();
            let expected = shape
                .centre_first()
                .iter()
                .find(|&&c| scores[c].is_some() && scores[c] == best)
                .map(|c| c + 1);
            let target = format!("/api/move?board={w}x{h}&moves={moves}&opponent=perfect");
            let (status, m) = get(addr, &target);
            assert_eq!(status, 200, "{m}");
            assert_eq!(m["column"].as_u64(), expected.map(|c| c as u64), "{moves}");
            assert_eq!(m["complete"], true);
            checked += 1;
        }
    }
    // Columns past 9 are letters, in either case: three of the first
    // player's in column 10, a win at once with its 4th disc.
    let (status, v) = get(addr, "/api/solve?board=12x4&moves=AbAbAb");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["score"], 21);
    assert_eq!(v["moves"], "AbAbAb");
    let (status, v) = get(addr, "/api/move?board=10x4&level=3");
    assert_eq!(status, 400);
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("only on 7x6, not on 10x4"));
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
        (400, "is not supported", "/api/analyze?board=17x4".into()),
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
                    Duration::from_secs(60),
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
            closed.is_some_and(|d| d < Duration::from_secs(30)),
            "{closed:?}"
        );
    }
    // A connection idle after its answer is closed at the same limit, and
    // so is one that trickles bytes after it.
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.write_all(b"GET /api/health HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut idle).0, 200);
    idle.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let start = Instant::now();
    assert_eq!(idle.read(&mut [0u8; 16]).unwrap_or(0), 0);
    assert!(start.elapsed() < Duration::from_secs(30));
    let after_answer = trickle(
        addr,
        b"GET /api/health HTTP/1.1\r\n\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        Duration::from_millis(20),
        Duration::from_secs(60),
    );
    assert!(after_answer.is_some_and(|d| d < Duration::from_secs(30)));
    s.stop();
}

/// Asks for `/api/health` until it is refused, at most for `limit`; the
/// last answer.
fn refused_within(addr: SocketAddr, limit: Duration) -> (u16, String, String) {
    let start = Instant::now();
    loop {
        let answer = send(
            addr,
            b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        if answer.0 != 200 || start.elapsed() > limit {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn past_the_connection_limit_a_new_one_is_answered_503_at_once() {
    let s = with_read_time(Duration::from_secs(30), 3);
    let addr = s.addr();
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
    // Once the server has taken the three (at once on an idle machine).
    let (status, head, body) = refused_within(addr, Duration::from_secs(30));
    assert_eq!(status, 503, "{head}");
    assert_eq!(header(&head, "retry-after").as_deref(), Some("1"));
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("too many connections"));
    // The refusal is not lost to a reset: the server reads the request it
    // refuses, so the client reads the whole answer and then the end, even
    // when it reads only once its request has long been sent.
    for _ in 0..5 {
        let mut c = TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        c.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Pad: ")
            .unwrap();
        c.write_all(&[b'a'; 4000]).unwrap();
        c.write_all(b"\r\n\r\n").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let mut all = Vec::new();
        let end = c.read_to_end(&mut all);
        let text = String::from_utf8_lossy(&all);
        assert!(end.is_ok(), "{end:?} after {text:?}");
        assert!(text.starts_with("HTTP/1.1 503"), "{text}");
        assert!(text.contains("too many connections"), "{text}");
    }
    // Once they close, connections are taken again.
    drop(held);
    let start = Instant::now();
    loop {
        let (status, _) = get(addr, "/api/health");
        if status == 200 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{status}");
        std::thread::sleep(Duration::from_millis(50));
    }
    s.stop();
}

/// Asks for `/api/health` until it is answered 200, at most for `limit`;
/// how long that took.
fn answered_within(addr: SocketAddr, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        let (status, _, _) = send(
            addr,
            b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        if status == 200 {
            return Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn a_client_that_reads_no_answer_is_dropped_after_the_write_time() {
    let mut config = Config {
        connections: 1,
        ..Config::default()
    };
    config.limits.write_time = Duration::from_millis(500);
    config.limits.read_time = Duration::from_secs(600);
    let s = server(config);
    let addr = s.addr();
    // Pipelined requests for the page (about 32 KB each), whose answers
    // fill every buffer between the server and a client that reads none
    // (13 MB, past what the kernel buffers for a connection).
    let mut hog = TcpStream::connect(addr).unwrap();
    hog.set_write_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let _ = hog.write_all(&b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(400));
    // The one connection the server takes is held until the writes to the
    // hog give up: then it is taken again. Held for ever, it never is.
    let freed = answered_within(addr, Duration::from_secs(60));
    assert!(
        freed.is_some(),
        "the connection that reads nothing is never dropped"
    );
    drop(hog);
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
    // A stream too, refused as a plain request is, whether the budget ran
    // out before a worker took it or as one did.
    for _ in 0..20 {
        let (status, head, body) = send(
            addr,
            b"GET /api/analyze/stream?moves=44 HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(status, 503, "{head}\n{body}");
        assert_eq!(header(&head, "retry-after").as_deref(), Some("1"));
        let v: Value = serde_json::from_str(&body).unwrap();
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
fn the_budget_stops_a_search_and_unsettled_columns_keep_their_bounds() {
    let s = server(Config {
        budget: Duration::from_millis(300),
        ..Config::default()
    });
    let start = Instant::now();
    let (status, v) = get(s.addr(), "/api/analyze?board=8x7");
    let took = start.elapsed();
    assert_eq!(status, 200);
    assert_eq!(v["complete"], false);
    // A solve of 8x7 takes hours: nothing like the best move is proven.
    assert_eq!(v["best"]["proven"], false, "{v}");
    check_ranges(&Position::<8, 7>::new(), &v);
    // The budget, not the search, decides.
    assert!(took < Duration::from_secs(30), "{took:?}");
    // Out of time, a move all the same, marked unproven.
    let (_, v) = get(s.addr(), "/api/move?board=8x7&opponent=perfect");
    assert_eq!(v["complete"], false);
    assert!((1..=8).contains(&v["column"].as_u64().unwrap()), "{v}");
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
        assert!(start.elapsed() < Duration::from_secs(30));
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

/// A slow request under way on a server that takes one at a time, and the
/// answer to a quick one sent beside it. The slow one is sent again while
/// it was refused itself: on a busy machine it can arrive while one of the
/// quick requests that look for it holds the one place.
fn held_and_refused(addr: SocketAddr) -> (TcpStream, (u16, String, String)) {
    let start = Instant::now();
    let mut held = slow_request(addr, "");
    loop {
        assert!(start.elapsed() < Duration::from_secs(30), "never refused");
        let answer = send(
            addr,
            b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        if answer.0 != 200 {
            return (held, answer);
        }
        // An answer already on the slow request's connection is its refusal.
        held.set_nonblocking(true).unwrap();
        let answered = held.peek(&mut [0u8; 1]).is_ok();
        held.set_nonblocking(false).unwrap();
        if answered {
            held = slow_request(addr, "");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How long after `left` the one worker answered a quick request; it must
/// be well under any search's budget.
fn worker_free_since(addr: SocketAddr, left: Instant) -> Duration {
    loop {
        let (status, v) = get(addr, "/api/analyze?moves=4453");
        let freed = left.elapsed();
        assert!(freed < Duration::from_secs(30), "{freed:?}");
        // With one request allowed under way, a 503 only says the server
        // has not yet seen the last client leave: ask again.
        if status == 503 {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        assert_eq!((status, v["complete"].clone()), (200, true.into()));
        return freed;
    }
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

#[test]
fn a_client_that_shuts_its_sending_side_counts_as_gone() {
    let s = one_patient_worker();
    let leaving = slow_request(s.addr(), "");
    std::thread::sleep(Duration::from_millis(300));
    let left = Instant::now();
    leaving.shutdown(std::net::Shutdown::Write).unwrap();
    worker_free_since(s.addr(), left);
    drop(leaving);
    s.stop();
}

#[test]
fn past_the_requests_under_way_a_new_one_is_refused_503_at_once() {
    let s = server(Config {
        requests: 1,
        workers: 1,
        budget: Duration::from_secs(120),
        ..Config::default()
    });
    let (held, (status, head, body)) = held_and_refused(s.addr());
    assert_eq!(status, 503, "{head}");
    assert_eq!(header(&head, "retry-after").as_deref(), Some("1"));
    assert!(body.contains("the server is busy"), "{body}");
    drop(held);
    worker_free_since(s.addr(), Instant::now());
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
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        assert_eq!(c.read(&mut [0u8; 16]).unwrap_or(0), 0);
    }
    // The idle connections did not hold the stop for their read time.
    assert!(stopped < Duration::from_secs(30), "{stopped:?}");
    assert!(TcpStream::connect(addr).is_err());
}

/// Opens `/api/analyze/stream?{query}` and returns the connection, past
/// the response head (which must be a 200 of server-sent events).
fn open_stream(addr: SocketAddr, query: &str) -> std::io::BufReader<TcpStream> {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    c.write_all(format!("GET /api/analyze/stream?{query} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .unwrap();
    let mut r = std::io::BufReader::new(c);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut r, &mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        head.push_str(&line);
    }
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        header(&head, "content-type").as_deref(),
        Some("text/event-stream")
    );
    assert_eq!(
        header(&head, "transfer-encoding").as_deref(),
        Some("chunked")
    );
    r
}

/// The next event on a stream (its name and its data), `None` at its end.
/// The body is chunked: chunks are read until an event's blank line.
fn next_event(
    r: &mut std::io::BufReader<TcpStream>,
    pending: &mut String,
) -> Option<(String, Value)> {
    use std::io::BufRead;
    loop {
        if let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            let mut name = "message".to_string();
            let mut data = String::new();
            for line in event.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                }
            }
            return Some((name, serde_json::from_str(&data).unwrap()));
        }
        let mut size = String::new();
        r.read_line(&mut size).ok()?;
        let size = usize::from_str_radix(size.trim(), 16).ok()?;
        if size == 0 {
            return None;
        }
        let mut chunk = vec![0u8; size + 2];
        r.read_exact(&mut chunk).ok()?;
        pending.push_str(std::str::from_utf8(&chunk[..size]).unwrap());
    }
}

#[test]
fn a_stream_narrows_to_the_exact_analysis_and_ends_with_done() {
    let s = server(Config {
        budget: Duration::from_secs(120),
        ..Config::default()
    });
    let mut solver = Solver::<7, 6>::new();
    // Positions of 9 to 14 discs, past the book: searches of some length.
    let positions = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/solver/ply9-14.txt"
    ))
    .unwrap();
    let mut narrowed = 0;
    for moves in positions
        .lines()
        .take(6)
        .filter_map(|l| l.split_whitespace().next())
    {
        let p = Position::<7, 6>::parse(moves).unwrap();
        let exact = solver.analyze(&p);
        let mut r = open_stream(s.addr(), &format!("moves={moves}&budget=120000"));
        let mut pending = String::new();
        let mut states = Vec::new();
        let last = loop {
            let (name, v) = next_event(&mut r, &mut pending).expect("a done event");
            check_ranges(&p, &v);
            assert_eq!(
                (v["board"].clone(), v["moves"].clone()),
                ("7x6".into(), moves.into())
            );
            for (c, e) in exact.iter().enumerate() {
                // Every range holds the exact score, from the first state on.
                let col = &v["columns"][c];
                match e {
                    None => assert!(col.is_null()),
                    Some(e) => assert!(
                        col["lower"].as_i64().unwrap() <= i64::from(*e)
                            && i64::from(*e) <= col["upper"].as_i64().unwrap(),
                        "{moves}: {col}"
                    ),
                }
            }
            match name.as_str() {
                "analysis" => states.push(v),
                "done" => break v,
                other => panic!("{other}: {v}"),
            }
        };
        assert_eq!(last["complete"], true, "{moves}");
        let best = solver.best_move(&p).map(|c| c as u64 + 1);
        assert_eq!(last["best"]["col"].as_u64(), best);
        assert_eq!(last["best"]["proven"], true);
        // Ranges only narrow, and the count of positions only grows.
        let all: Vec<&Value> = states.iter().chain([&last]).collect();
        for pair in all.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!(a["nodes"].as_u64() <= b["nodes"].as_u64());
            for c in 0..7 {
                let (x, y) = (&a["columns"][c], &b["columns"][c]);
                if !x.is_null() {
                    assert!(x["lower"].as_i64() <= y["lower"].as_i64(), "{x} {y}");
                    assert!(x["upper"].as_i64() >= y["upper"].as_i64(), "{x} {y}");
                }
            }
        }
        // The stream ends after its last event.
        assert!(next_event(&mut r, &mut pending).is_none());
        narrowed += states.len();
    }
    // States came before the last, to be checked.
    assert!(narrowed >= 6, "{narrowed}");
    s.stop();
}

#[test]
fn a_stream_past_the_cap_is_cut_to_it_and_a_bad_budget_is_refused() {
    let s = server(Config {
        max_budget: Duration::from_millis(500),
        ..Config::default()
    });
    let (_, health) = get(s.addr(), "/api/health");
    assert_eq!(health["max_budget_ms"], 500);
    let start = Instant::now();
    // Ten minutes asked for on a board that takes hours.
    let mut r = open_stream(s.addr(), "board=8x7&budget=600000");
    let mut pending = String::new();
    let last = loop {
        let (name, v) = next_event(&mut r, &mut pending).expect("a done event");
        if name == "done" {
            break v;
        }
    };
    assert_eq!(last["complete"], false);
    assert!(start.elapsed() < Duration::from_secs(30));
    check_ranges(&Position::<8, 7>::new(), &last);
    for (budget, words) in [
        ("0", "bad budget"),
        ("-5", "bad budget"),
        ("1.5", "bad budget"),
    ] {
        let (status, v) = get(s.addr(), &format!("/api/analyze/stream?budget={budget}"));
        assert_eq!(status, 400);
        assert!(v["error"].as_str().unwrap().contains(words), "{v}");
    }
    let (status, v) = get(s.addr(), "/api/analyze/stream?moves=448");
    assert_eq!(
        (status, v["error"].clone()),
        (400, "move 3: column 8 is out of range 1..7".into())
    );
    s.stop();
}

#[test]
fn a_stream_whose_client_leaves_frees_its_worker() {
    let s = one_patient_worker();
    let mut r = open_stream(s.addr(), "board=8x7&budget=100000");
    let mut pending = String::new();
    // It is under way.
    let (name, _) = next_event(&mut r, &mut pending).unwrap();
    assert_eq!(name, "analysis");
    let left = Instant::now();
    drop(r);
    let freed = worker_free_since(s.addr(), left);
    eprintln!("a stream whose client left freed its worker in {freed:?}");
    s.stop();
}

#[test]
fn stopping_ends_a_stream_under_way_with_its_last_event() {
    let s = server(Config {
        max_budget: Duration::from_secs(120),
        ..Config::default()
    });
    let mut r = open_stream(s.addr(), "board=8x7&budget=120000");
    let mut pending = String::new();
    assert_eq!(next_event(&mut r, &mut pending).unwrap().0, "analysis");
    let start = Instant::now();
    let stopper = std::thread::spawn(move || s.stop());
    let last = loop {
        let (name, v) = next_event(&mut r, &mut pending).expect("a done event");
        if name == "done" {
            break v;
        }
    };
    assert_eq!(last["complete"], false);
    stopper.join().unwrap();
    // Well before the stream's two minutes.
    assert!(start.elapsed() < Duration::from_secs(30));
}
