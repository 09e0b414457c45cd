//! The server: its configuration, the routes, and starting and stopping.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use axum::error_handling::HandleErrorLayer;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue, Uri};
use axum::response::sse::Sse;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use thiserror::Error;
use tokio::sync::watch;
use tower::ServiceBuilder;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;

use score4::input::Quoted;

use crate::http::Limits;
use crate::{api, http, pool, stream, DEFAULT_BUDGET_MS, DEFAULT_MAX_BUDGET_MS, PAGE};

/// How the server is sized.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen.
    pub addr: String,
    /// Connections open at once, idle and slow ones included; past it a
    /// new one is answered 503 and closed. Each takes a file descriptor.
    pub connections: usize,
    /// Requests under way at once (waiting for a solver included); past
    /// it, 503.
    pub requests: usize,
    /// Threads that solve, one solver each.
    pub workers: usize,
    /// Tasks waiting for a worker; past it, 503.
    pub pending_tasks: usize,
    /// Each worker's table, in MiB.
    pub table_mb: usize,
    /// A request's time from its arrival to its answer, searches included.
    pub budget: Duration,
    /// The most time a streamed analysis may ask for (`budget=`); more is
    /// cut to it. A stream holds a worker for its whole time.
    pub max_budget: Duration,
    /// What a request may be.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            addr: "127.0.0.1:8080".to_string(),
            connections: 2048,
            requests: 256,
            workers: 2,
            pending_tasks: 128,
            table_mb: 16,
            budget: Duration::from_millis(DEFAULT_BUDGET_MS),
            max_budget: Duration::from_millis(DEFAULT_MAX_BUDGET_MS),
            limits: Limits {
                head_bytes: 8 * 1024,
                target_bytes: 2 * 1024,
                body_bytes: 4 * 1024,
                read_time: Duration::from_secs(2),
                write_time: Duration::from_secs(5),
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
    stop: Arc<watch::Sender<bool>>,
    thread: JoinHandle<()>,
}

impl Server {
    /// The address it listens on (the port chosen, if 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Waits until the server stops (it runs until [`stop`](Self::stop)).
    pub fn join(self) {
        let _ = self.thread.join();
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
            stop: Arc::clone(&self.stop),
        }
    }
}

/// Stops a [`Server`] gracefully: no new connection is taken, every
/// request already taken is answered (within its time budget), then the
/// threads end and [`Server::join`] returns.
#[derive(Clone, Debug)]
pub struct Stopper {
    stop: Arc<watch::Sender<bool>>,
}

impl Stopper {
    /// Asks the server to stop; returns at once.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }
}

/// What the routes share.
struct Shared {
    config: Config,
    queue: pool::Queue,
    seeds: AtomicU64,
}

/// Starts the server; it runs on its own threads until stopped.
pub fn start(config: &Config) -> Result<Server, ServeError> {
    let listener =
        std::net::TcpListener::bind(&config.addr).map_err(|source| ServeError::Bind {
            addr: config.addr.clone(),
            source,
        })?;
    let addr = listener.local_addr().map_err(ServeError::Spawn)?;
    listener.set_nonblocking(true).map_err(ServeError::Spawn)?;
    // Two threads carry every connection: they only parse, route and wait.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("score4-http")
        .enable_all()
        .build()
        .map_err(ServeError::Spawn)?;
    let (pool, queue) = pool::Pool::start(config.workers, config.pending_tasks, config.table_mb)
        .map_err(ServeError::Spawn)?;
    let seed0 = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let shared = Arc::new(Shared {
        config: config.clone(),
        queue,
        seeds: AtomicU64::new(seed0),
    });
    let (stop, stopped) = watch::channel(false);
    let limits = config.limits;
    let connections = config.connections;
    // A request under way ends within its budget and the grace after it; a
    // stream is stopped when the server stops.
    let drain = config.budget + pool::GRACE + Duration::from_secs(1);
    let stopping = Arc::clone(&shared.queue.stopping);
    let thread = std::thread::Builder::new()
        .name("score4-serve".to_string())
        .spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                let mut flag = stopped.clone();
                tokio::spawn(async move {
                    let _ = flag.wait_for(|s| *s).await;
                    stopping.store(true, Ordering::Relaxed);
                });
                let app = app(shared, limits);
                http::serve(listener, app, limits, connections, stopped, drain).await;
            });
            // What is left past the drain bound (a client that reads no
            // answer) is dropped with the runtime.
            drop(runtime);
            pool.join();
        })
        .map_err(ServeError::Spawn)?;
    Ok(Server {
        addr,
        stop: Arc::new(stop),
        thread,
    })
}

/// The routes, inside the limits every request passes.
fn app(
    shared: Arc<Shared>,
    limits: Limits,
) -> impl tower::Service<
    axum::extract::Request<hyper::body::Incoming>,
    Response = Response,
    Error = std::convert::Infallible,
    Future = impl Send,
> + Clone
       + Send
       + 'static {
    let requests = shared.config.requests.max(1);
    let router = Router::new()
        .route("/", get(page))
        .route("/index.html", get(page))
        .route("/api/health", get(health))
        .route("/api/analyze", get(analyze))
        .route("/api/solve", get(solve))
        .route("/api/move", get(play))
        .route("/api/analyze/stream", get(analyze_stream))
        .fallback(not_found)
        .with_state(shared);
    ServiceBuilder::new()
        .map_request(|r: axum::extract::Request<hyper::body::Incoming>| {
            r.map(axum::body::Body::new)
        })
        .layer(axum::middleware::from_fn(
            move |r: axum::extract::Request, n: axum::middleware::Next| http::guard(limits, r, n),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        // Past the limit a request is refused at once, not queued.
        .layer(HandleErrorLayer::new(|_: tower::BoxError| async {
            http::error(503, "the server is busy; try again in a second")
        }))
        .load_shed()
        .concurrency_limit(requests)
        .layer(RequestBodyLimitLayer::new(limits.body_bytes))
        .service(router)
}

async fn page() -> Response {
    http::html(PAGE)
}

async fn not_found(uri: Uri) -> Response {
    http::error(404, &format!("no such page: {}", Quoted::new(uri.path())))
}

async fn health(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        return http::error(
            400,
            &format!(
                "unknown parameter in {}: /api/health takes none",
                Quoted::new(&q)
            ),
        );
    }
    let c = &shared.config;
    http::json(200, &api::health(c.workers, c.budget, c.max_budget))
}

async fn analyze(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    task(&shared, "analyze", query).await
}

async fn solve(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    task(&shared, "solve", query).await
}

async fn play(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    task(&shared, "move", query).await
}

/// Reads the query of `/api/<endpoint>` and has a worker answer it within
/// the budget, which runs from the request's arrival.
async fn task(shared: &Shared, endpoint: &str, query: Option<String>) -> Response {
    let deadline = Instant::now() + shared.config.budget;
    let seed = shared.seeds.fetch_add(0x9E37_79B9, Ordering::Relaxed);
    match api::read_query(endpoint, query.as_deref().unwrap_or(""), seed) {
        Err(message) => http::error(400, &message),
        Ok(query) => {
            let (status, value) = shared.queue.answer(query, deadline).await;
            http::json(status, &value)
        }
    }
}

/// `/api/analyze/stream`: the analysis as server-sent events, one per
/// state (`analysis`), then the final one (`done`, or `error`). Its budget
/// is the one asked for, capped by [`Config::max_budget`]; it waits for a
/// worker no longer than a plain request would.
async fn analyze_stream(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    let arrival = Instant::now();
    let c = &shared.config;
    let (query, asked) = match api::read_stream_query(query.as_deref().unwrap_or("")) {
        Ok(q) => q,
        Err(message) => return http::error(400, &message),
    };
    let deadline = arrival + asked.unwrap_or(c.budget).min(c.max_budget);
    let (started, mut taken) = tokio::sync::oneshot::channel();
    let (events, states) = tokio::sync::mpsc::channel(STREAM_BACKLOG);
    let (last, final_state) = tokio::sync::oneshot::channel();
    let work = pool::Work::Stream {
        query,
        started,
        events,
        last,
    };
    let mut ticket = match shared.queue.submit(work, deadline) {
        Ok(t) => t,
        Err(message) => return http::error(503, message),
    };
    let wait = tokio::time::Instant::from_std(deadline.min(arrival + c.budget));
    let took = tokio::select! {
        t = &mut taken => Some(t.is_ok()),
        () = tokio::time::sleep_until(wait) => None,
    };
    let took = match took {
        Some(took) => took,
        None if ticket.give_up_unstarted() => false,
        // A worker has just taken it: it says at once whether it runs it.
        None => taken.await.is_ok(),
    };
    if !took {
        // Not started, or taken past its deadline: nothing to stop.
        ticket.finish();
        return http::error(503, pool::BUSY);
    }
    let mut r = Sse::new(stream::States {
        ticket,
        states: Some(states),
        last: Some(final_state),
    })
    .into_response();
    // A proxy must pass each event on as it comes.
    r.headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// States a stream may hold for a client reading slowly; past it a new
/// one is dropped, as the next (every tick at least) tells as much.
const STREAM_BACKLOG: usize = 8;
