//! score4's web face: a page to analyse and play Connect Four on any
//! supported board, and the JSON API it uses, served over HTTP/1.1 by a
//! server whose every resource is bounded.
//!
//! - [`http`]: one request read within limits of size and time, one
//!   response, then close.
//! - [`api`]: queries read into tasks, and each task's JSON answer.
//! - Here: the threads and queues that carry a connection from `accept`
//!   to a solver and back.
//!
//! Threads are fixed at start: one accepts, [`Config::connections`] read
//! requests and write responses, [`Config::workers`] solve, each with one
//! solver (one table of [`Config::table_mb`]) kept between requests. Both
//! hand-offs are bounded queues; a full one is answered 503 at once. A
//! search stops at the request's time budget, or as soon as its client
//! goes away, and the columns it did not settle come back as `null`.
//!
//! ```no_run
//! let config = score4_web::Config::default();
//! let server = score4_web::start(&config).unwrap();
//! println!("http://{}/", server.addr());
//! server.join();
//! ```

pub mod api;
pub mod http;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};
use thiserror::Error;

use http::{Limits, Response};
use score4::input::Quoted;
use score4::StopHandle;

/// The page, HTML with its CSS and script inline.
const PAGE: &str = include_str!("page.html");

/// How the server is sized.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen.
    pub addr: String,
    /// Threads that read requests and write responses.
    pub connections: usize,
    /// Accepted connections waiting for such a thread; past it, 503.
    pub pending_connections: usize,
    /// Threads that solve, one solver each.
    pub workers: usize,
    /// Tasks waiting for a worker; past it, 503.
    pub pending_tasks: usize,
    /// Each worker's table, in MiB.
    pub table_mb: usize,
    /// A request's time from its arrival to its answer, searches included.
    pub budget: Duration,
    /// What a request may be.
    pub limits: Limits,
}

/// A request's time budget ([`Config::budget`]) unless the server is told
/// otherwise, in milliseconds.
pub const DEFAULT_BUDGET_MS: u64 = 3000;

impl Default for Config {
    fn default() -> Config {
        Config {
            addr: "127.0.0.1:8080".to_string(),
            connections: 64,
            pending_connections: 256,
            workers: 2,
            pending_tasks: 128,
            table_mb: 16,
            budget: Duration::from_millis(DEFAULT_BUDGET_MS),
            limits: Limits {
                head_bytes: 8 * 1024,
                target_bytes: 2 * 1024,
                body_bytes: 4 * 1024,
                read_time: Duration::from_secs(2),
            },
        }
    }
}

/// Why the server did not start.
#[derive(Debug, Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// A thread could not be started.
    #[error("cannot start the server's threads: {0}")]
    Spawn(std::io::Error),
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Server {
    /// The address it listens on (the port chosen, if 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Waits until the server stops (it runs until [`stop`](Self::stop)).
    pub fn join(mut self) {
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }

    /// Stops accepting, lets the requests under way finish, and waits.
    pub fn stop(self) {
        self.stopper().stop();
        self.join();
    }

    /// A handle that stops the server from another thread (a signal
    /// handler, say) while this one waits in [`join`](Self::join).
    pub fn stopper(&self) -> Stopper {
        Stopper {
            addr: self.addr,
            stopping: Arc::clone(&self.stopping),
        }
    }
}

/// Stops a [`Server`] gracefully: no new connection is taken, every
/// request already taken is answered (within its time budget), then the
/// threads end and [`Server::join`] returns.
#[derive(Clone, Debug)]
pub struct Stopper {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
}

impl Stopper {
    /// Asks the server to stop; returns at once.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        // The accepting thread waits in `accept`: a connection wakes it.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

/// One task on its way to a worker, and the way back.
struct Job {
    query: api::Query,
    deadline: Instant,
    reply: mpsc::Sender<(u16, Value)>,
    /// Shared by the connection thread, which may give up on the task, and
    /// the worker running it.
    state: Arc<Mutex<JobState>>,
}

/// Where a task stands, so that a client gone stops only its own search,
/// and a task given up while it waits in the queue is never started.
#[derive(Default)]
struct JobState {
    /// Its connection thread no longer waits for it.
    given_up: bool,
    /// A worker has taken it.
    started: bool,
    /// The solver's stop handle while the task runs.
    running: Option<StopHandle>,
}

impl JobState {
    /// Gives the task up if no worker has taken it yet; whether it did.
    fn give_up_unstarted(state: &Mutex<JobState>) -> bool {
        let Ok(mut s) = state.lock() else {
            return false;
        };
        if s.started {
            return false;
        }
        s.given_up = true;
        true
    }

    fn give_up(state: &Mutex<JobState>) {
        if let Ok(mut s) = state.lock() {
            s.given_up = true;
            if let Some(h) = &s.running {
                h.stop();
            }
        }
    }
}

/// What the connection threads share.
struct Shared {
    config: Config,
    jobs: SyncSender<Job>,
    seeds: AtomicU64,
}

/// Starts the server; it runs on its own threads until stopped.
pub fn start(config: &Config) -> Result<Server, ServeError> {
    let listener = TcpListener::bind(&config.addr).map_err(|source| ServeError::Bind {
        addr: config.addr.clone(),
        source,
    })?;
    let addr = listener.local_addr().map_err(ServeError::Spawn)?;
    let stopping = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    let spawn = |name: String, f: Box<dyn FnOnce() + Send>| {
        std::thread::Builder::new()
            .name(name)
            .spawn(f)
            .map_err(ServeError::Spawn)
    };

    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(config.pending_tasks);
    let job_rx = Arc::new(Mutex::new(job_rx));
    for i in 0..config.workers.max(1) {
        let rx = Arc::clone(&job_rx);
        let table_mb = config.table_mb;
        threads.push(spawn(
            format!("score4-worker-{i}"),
            Box::new(move || work(&rx, table_mb)),
        )?);
    }

    let seed0 = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let shared = Arc::new(Shared {
        config: config.clone(),
        jobs: job_tx,
        seeds: AtomicU64::new(seed0),
    });
    let (conn_tx, conn_rx) = mpsc::sync_channel::<Accepted>(config.pending_connections);
    let conn_rx = Arc::new(Mutex::new(conn_rx));
    for i in 0..config.connections.max(1) {
        let rx = Arc::clone(&conn_rx);
        let shared = Arc::clone(&shared);
        threads.push(spawn(
            format!("score4-conn-{i}"),
            Box::new(move || connections(&rx, &shared)),
        )?);
    }

    let stop = Arc::clone(&stopping);
    threads.push(spawn(
        "score4-accept".to_string(),
        Box::new(move || accept(&listener, &conn_tx, &stop)),
    )?);
    Ok(Server {
        addr,
        stopping,
        threads,
    })
}

/// A connection and when it was accepted: a request's budget runs from
/// then, time in the queue included.
type Accepted = (TcpStream, Instant);

/// Hands each connection to a connection thread, or answers 503 at once
/// when they are all busy and the queue is full.
fn accept(listener: &TcpListener, conns: &SyncSender<Accepted>, stopping: &AtomicBool) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else {
            // Out of file descriptors and the like: let it pass.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        match conns.try_send((stream, Instant::now())) {
            Ok(()) => {}
            Err(TrySendError::Full((mut stream, _))) => {
                let _ = stream.set_nodelay(true);
                // The reply is small enough for the socket's buffer: no wait.
                let _ = stream.set_nonblocking(true);
                let r = Response::error(503, "the server is busy; try again in a second");
                http::write_response(&mut stream, &r);
            }
            Err(TrySendError::Disconnected(_)) => break,
        }
    }
    // Dropping the sender ends the connection threads once they are idle.
}

fn connections(rx: &Mutex<Receiver<Accepted>>, shared: &Shared) {
    loop {
        let next = rx.lock().map(|rx| rx.recv());
        let Ok(Ok((mut stream, received))) = next else {
            return;
        };
        let _ = stream.set_nodelay(true);
        let response = match http::read_request(&mut stream, &shared.config.limits) {
            Ok(None) => continue,
            Err(e) => Response::error(e.status, &e.message),
            Ok(Some(request)) => route(&request, &stream, received, shared),
        };
        http::write_response(&mut stream, &response);
    }
}

fn route(
    request: &http::Request,
    stream: &TcpStream,
    received: Instant,
    shared: &Shared,
) -> Response {
    let path = request.path.as_str();
    let known = matches!(path, "/" | "/index.html" | "/api/health")
        || path
            .strip_prefix("/api/")
            .is_some_and(|e| matches!(e, "analyze" | "solve" | "move"));
    if !known {
        return Response::error(404, &format!("no such page: {}", Quoted::new(path)));
    }
    if request.method != "GET" {
        return Response::error(
            405,
            &format!(
                "{} is not allowed here: only GET",
                Quoted::new(&request.method)
            ),
        );
    }
    match path {
        "/" | "/index.html" => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            extra: "Content-Security-Policy: default-src 'self'; script-src 'unsafe-inline'; \
                    style-src 'unsafe-inline'\r\n",
            body: PAGE.as_bytes().to_vec(),
        },
        "/api/health" if !request.query.is_empty() => Response::error(
            400,
            &format!(
                "unknown parameter in {}: /api/health takes none",
                Quoted::new(&request.query)
            ),
        ),
        "/api/health" => Response::json(
            200,
            &json!({
                "ok": true,
                "workers": shared.config.workers,
                "budget_ms": shared.config.budget.as_millis() as u64,
                "boards": api::sizes(),
                "opponents": score4::play::Opponent::NAMES,
                "max_classic_level": score4::play::MAX_CLASSIC_LEVEL,
            }),
        ),
        _ => {
            let endpoint = &path["/api/".len()..];
            let seed = shared.seeds.fetch_add(0x9E37_79B9, Ordering::Relaxed);
            match api::read_query(endpoint, &request.query, seed) {
                Err(message) => Response::error(400, &message),
                Ok(query) => run(query, stream, received, shared),
            }
        }
    }
}

/// The answer to a task whose budget ran out before a solver took it
/// (waiting for a solver, or in the queues before it).
const BUSY: &str = "the time budget ran out before a solver could start; try again";

/// Sends `query` to a worker and waits for its answer, stopping the
/// search if the client goes away meanwhile.
fn run(query: api::Query, stream: &TcpStream, received: Instant, shared: &Shared) -> Response {
    let deadline = received + shared.config.budget;
    let (tx, rx) = mpsc::channel();
    let state = Arc::new(Mutex::new(JobState::default()));
    let job = Job {
        query,
        deadline,
        reply: tx,
        state: Arc::clone(&state),
    };
    match shared.jobs.try_send(job) {
        Ok(()) => {}
        Err(TrySendError::Full(_)) => {
            return Response::error(503, "every solver is busy; try again in a second")
        }
        Err(TrySendError::Disconnected(_)) => {
            return Response::error(503, "the solvers have stopped")
        }
    }
    // Past the budget a search stops within milliseconds; the grace covers
    // a task that cannot be stopped (the classic engine at its deepest level).
    let give_up = deadline + Duration::from_secs(5);
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok((status, value)) => return Response::json(status, &value),
            Err(RecvTimeoutError::Disconnected) => {
                return Response::error(500, "the solver failed on this request")
            }
            Err(RecvTimeoutError::Timeout) => {
                let now = Instant::now();
                if now >= deadline && JobState::give_up_unstarted(&state) {
                    return Response::error(503, BUSY);
                }
                if http::client_gone(stream) || now >= give_up {
                    JobState::give_up(&state);
                    if now >= give_up {
                        return Response::error(504, "the solver did not answer in time");
                    }
                    // Nobody to answer.
                    return Response::error(499, "the client went away");
                }
            }
        }
    }
}

/// A worker: takes tasks one at a time and answers each with its solver.
fn work(rx: &Mutex<Receiver<Job>>, table_mb: usize) {
    let mut slot = api::Slot::default();
    loop {
        let next = rx.lock().map(|rx| rx.recv());
        let Ok(Ok(job)) = next else { return };
        let taken = job.state.lock().is_ok_and(|mut s| {
            s.started = !s.given_up;
            s.started
        });
        if !taken {
            // Its client left, or its budget ran out, while it waited.
            continue;
        }
        if Instant::now() >= job.deadline {
            let _ = job.reply.send((503, json!({ "error": BUSY })));
            continue;
        }
        let state = Arc::clone(&job.state);
        let mut on_solver = |handle: StopHandle| {
            handle.resume();
            if let Ok(mut s) = state.lock() {
                if s.given_up {
                    handle.stop();
                }
                s.running = Some(handle);
            }
        };
        let answer = catch_unwind(AssertUnwindSafe(|| {
            api::answer(
                &mut slot,
                table_mb,
                &job.query,
                job.deadline,
                &mut on_solver,
            )
        }));
        if let Ok(mut s) = job.state.lock() {
            s.running = None;
        }
        let answer = answer.unwrap_or_else(|_| {
            // A solver that panicked mid-search may hold anything: drop it.
            slot = api::Slot::default();
            (500, json!({ "error": "internal error while solving" }))
        });
        let _ = job.reply.send(answer);
    }
}
