//! score4 in the browser: what `score4 serve`'s JSON API answers, answered
//! by WebAssembly in the page's Web Worker, so that the page works from a
//! folder of static files with no server behind it.
//!
//! [`Backend`] takes the API's paths and queries as the server does and
//! gives the same JSON (through `score4_web::api`, which the server uses
//! too): one page, one set of scripts, two back ends. It holds the solvers
//! between questions, so *keep thinking* starts from what was proven.
//!
//! The module's interface (`abi`, built for WebAssembly only) is a few
//! exports on UTF-8 strings in its memory, which `web/worker.js` calls; it
//! imports `score4.now_ms` (the clock, see `score4::clock`) and
//! `score4.emit` (a stream's states). A search runs to its budget (the
//! search reads the clock), and the page stops one at once by ending the
//! worker.
//!
//! The module is built twice. For `wasm32-unknown-unknown` it has one
//! thread. For `wasm32-wasip1-threads` its memory is shared and its
//! threads are the library's own (`std::thread`): the search's threads
//! share one table as they do natively, each thread a worker that the
//! page's worker starts (`web/threads.js`). That needs a page that is
//! cross-origin isolated, so the page's worker picks the module that the
//! page can run.

use std::time::Duration;

use score4::clock::Instant;
use score4_web::api;
use serde_json::{json, Value};

/// Each solver's table in the browser, in MiB: four times the server's
/// (one worker there serves many clients), two at most (7x6's and the last
/// other board's), well within the module's memory (its largest size is
/// in `.cargo/config.toml`): a table this small of a 128-bit board takes
/// entries of three words.
pub const TABLE_MB: usize = 64;

/// What a question to the API answers: its HTTP status and its JSON.
#[derive(Clone, Debug)]
pub struct Reply {
    /// 200, or the status the server would give (400 for a bad query).
    pub status: u16,
    /// The answer, or `{"error": ...}`.
    pub body: Value,
}

fn error(status: u16, message: &str) -> Reply {
    Reply {
        status,
        body: json!({ "error": message }),
    }
}

/// The API in the browser: the server's answers, one question at a time.
pub struct Backend {
    slot: api::Slot,
    table_mb: usize,
    budget: Duration,
    max_budget: Duration,
    seed: u64,
    threads: usize,
}

impl Backend {
    /// A back end whose solvers take `table_mb` MiB each (two at most:
    /// 7x6's and the last other board's), answering within `budget` (a
    /// stream may ask for up to `max_budget`); `seed` starts the random
    /// choices of the opponents that make them. Each search takes
    /// `threads` threads (at least one), sharing the solver's table.
    pub fn new(
        table_mb: usize,
        budget: Duration,
        max_budget: Duration,
        seed: u64,
        threads: usize,
    ) -> Backend {
        let threads = threads.clamp(1, score4::solver::MAX_THREADS);
        Backend {
            slot: api::Slot::with_threads(threads),
            table_mb: table_mb.max(1),
            budget: budget.max(Duration::from_millis(1)),
            max_budget: max_budget.max(budget),
            seed,
            threads,
        }
    }

    /// `/api/health`: the budgets, the boards, the opponents, and the
    /// threads each search takes.
    pub fn health(&self) -> Reply {
        let mut body = api::health(1, self.budget, self.max_budget);
        body["threads"] = self.threads.into();
        Reply { status: 200, body }
    }

    /// `/api/ENDPOINT?QUERY` for `analyze`, `solve` and `move`.
    pub fn get(&mut self, endpoint: &str, query: &str) -> Reply {
        let deadline = Instant::now() + self.budget;
        self.seed = self.seed.wrapping_add(0x9E37_79B9);
        let query = match api::read_query(endpoint, query, self.seed) {
            Ok(q) => q,
            Err(message) => return error(400, &message),
        };
        let (status, body) =
            api::answer(&mut self.slot, self.table_mb, &query, deadline, &mut |_| {});
        Reply { status, body }
    }

    /// `/api/analyze/stream?QUERY`: each state of the analysis as it
    /// narrows goes to `emit` (which returns false to stop); the final
    /// one is the reply. The budget is the one asked for, up to the most a
    /// stream may ask for.
    pub fn stream(&mut self, query: &str, emit: &mut dyn FnMut(&Value) -> bool) -> Reply {
        let start = Instant::now();
        let (query, asked) = match api::read_stream_query(query) {
            Ok(q) => q,
            Err(message) => return error(400, &message),
        };
        let deadline = start + asked.unwrap_or(self.budget).min(self.max_budget);
        let (status, body) = api::stream(
            &mut self.slot,
            self.table_mb,
            &query,
            deadline,
            &mut |_| {},
            &mut |state| emit(&state),
        );
        Reply { status, body }
    }
}

/// The module's exports and imports (see the crate's documentation and
/// `web/worker.js`, their one caller).
#[cfg(target_family = "wasm")]
mod abi {
    use std::cell::RefCell;
    use std::time::Duration;

    use super::{Backend, Reply};

    #[link(wasm_import_module = "score4")]
    extern "C" {
        /// One state of a stream, as JSON text at `ptr`, `len` bytes.
        fn emit(ptr: *const u8, len: usize);
    }

    // What a WASI module's `_initialize` does (wasi-libc's start-up of a
    // library), which one built for `wasm32-wasip1-threads` does not get
    // by itself: the main thread's own record (the threads' come from
    // `wasi_thread_start`), without which its first lock waits forever,
    // and the static constructors.
    #[cfg(target_os = "wasi")]
    extern "C" {
        fn __wasi_init_tp();
        fn __wasm_call_ctors();
    }

    /// The threaded module's start-up, called once on the page's worker,
    /// before any other export (threads.js; a thread's instance does not).
    #[cfg(target_os = "wasi")]
    #[no_mangle]
    pub extern "C" fn _initialize() {
        // SAFETY: called once, on the main thread, before anything else.
        unsafe {
            __wasi_init_tp();
            __wasm_call_ctors();
        }
    }

    thread_local! {
        static BACKEND: RefCell<Option<Backend>> = const { RefCell::new(None) };
        /// The last reply's JSON text, read by the page through
        /// `reply_ptr` and `reply_len`.
        static REPLY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    /// `len` bytes for the page to write a question into.
    #[no_mangle]
    pub extern "C" fn alloc(len: usize) -> *mut u8 {
        let mut bytes = Vec::<u8>::with_capacity(len.max(1));
        let ptr = bytes.as_mut_ptr();
        std::mem::forget(bytes);
        ptr
    }

    /// Gives back what [`alloc`] gave.
    ///
    /// # Safety
    /// `ptr` and `len` as [`alloc`] returned and was given them.
    #[no_mangle]
    pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
        drop(Vec::from_raw_parts(ptr, 0, len.max(1)));
    }

    /// # Safety
    /// `ptr` and `len` name bytes the page wrote, in the module's memory.
    unsafe fn text<'a>(ptr: *const u8, len: usize) -> &'a str {
        // The page writes UTF-8 (TextEncoder); anything else reads as
        // nothing, which the API refuses as it refuses any bad query.
        std::str::from_utf8(std::slice::from_raw_parts(ptr, len)).unwrap_or("\u{fffd}")
    }

    fn answer(reply: Reply) -> u32 {
        REPLY.with(|r| *r.borrow_mut() = reply.body.to_string().into_bytes());
        reply.status.into()
    }

    fn with_backend(f: impl FnOnce(&mut Backend) -> Reply) -> u32 {
        let reply = BACKEND.with(|b| match b.borrow_mut().as_mut() {
            Some(backend) => f(backend),
            None => super::error(503, "the back end is not started"),
        });
        answer(reply)
    }

    /// Starts the back end with the server's default budgets and
    /// [`TABLE_MB`](super::TABLE_MB); `seed` starts the opponents' random
    /// choices, and each search takes `threads` threads (one where the
    /// module has no threads to start).
    #[no_mangle]
    pub extern "C" fn start(seed: f64, threads: u32) {
        let backend = Backend::new(
            super::TABLE_MB,
            Duration::from_millis(score4_web::DEFAULT_BUDGET_MS),
            Duration::from_millis(score4_web::DEFAULT_MAX_BUDGET_MS),
            seed as u64,
            threads as usize,
        );
        BACKEND.with(|b| *b.borrow_mut() = Some(backend));
    }

    /// `/api/health`; its status, the JSON at `reply_ptr`.
    #[no_mangle]
    pub extern "C" fn health() -> u32 {
        with_backend(|b| b.health())
    }

    /// `/api/ENDPOINT?QUERY`; its status, the JSON at `reply_ptr`.
    ///
    /// # Safety
    /// Both strings are in the module's memory, as [`alloc`] gave it.
    #[no_mangle]
    pub unsafe extern "C" fn get(
        endpoint: *const u8,
        endpoint_len: usize,
        query: *const u8,
        query_len: usize,
    ) -> u32 {
        let (endpoint, query) = (text(endpoint, endpoint_len), text(query, query_len));
        with_backend(|b| b.get(endpoint, query))
    }

    /// `/api/analyze/stream?QUERY`: each state to the `emit` import, the
    /// status returned, the final state at `reply_ptr`.
    ///
    /// # Safety
    /// The query is in the module's memory, as [`alloc`] gave it.
    #[no_mangle]
    pub unsafe extern "C" fn stream(query: *const u8, query_len: usize) -> u32 {
        let query = text(query, query_len);
        with_backend(|b| {
            b.stream(query, &mut |state| {
                let json = state.to_string();
                // SAFETY: the import reads the bytes before it returns.
                unsafe { emit(json.as_ptr(), json.len()) };
                true
            })
        })
    }

    /// Where the last reply's JSON text is.
    #[no_mangle]
    pub extern "C" fn reply_ptr() -> *const u8 {
        REPLY.with(|r| r.borrow().as_ptr())
    }

    /// How long the last reply's JSON text is, in bytes.
    #[no_mangle]
    pub extern "C" fn reply_len() -> usize {
        REPLY.with(|r| r.borrow().len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use score4_testkit::naive::{late_game, Naive};
    use score4_testkit::Rng;

    fn backend() -> Backend {
        let minute = Duration::from_secs(60);
        Backend::new(16, minute, minute, 7, 1)
    }

    fn json(reply: &Reply) -> Value {
        reply.body.clone()
    }

    #[test]
    fn every_columns_score_is_the_unpruned_negamaxs_on_late_positions() {
        let mut b = backend();
        let mut rng = Rng::new(0x3EB_5EED);
        let mut checked = 0;
        for (w, h, empty) in [(5, 4, 12), (7, 6, 12), (11, 4, 12), (10, 6, 10), (16, 7, 8)] {
            for _ in 0..4 {
                let Some((moves, g)) = late_game(w, h, empty, &mut rng) else {
                    continue;
                };
                let r = b.get("analyze", &format!("board={w}x{h}&moves={moves}"));
                assert_eq!(r.status, 200, "{}", r.body);
                let answer = json(&r);
                let shown: Vec<Option<i64>> = answer["columns"]
                    .as_array()
                    .expect("columns")
                    .iter()
                    .map(|c| c["score"].as_i64())
                    .collect();
                let expected: Vec<Option<i64>> = Naive::new()
                    .move_scores(&g)
                    .into_iter()
                    .map(|s| s.map(i64::from))
                    .collect();
                assert_eq!(shown, expected, "{w}x{h} {moves}");
                assert_eq!(answer["complete"], true, "{w}x{h} {moves}");
                checked += 1;
            }
        }
        assert!(checked >= 15, "only {checked} positions checked");
    }

    #[test]
    fn two_threads_analyse_as_one_does() {
        let minute = Duration::from_secs(60);
        let mut one = backend();
        let mut two = Backend::new(16, minute, minute, 7, 2);
        assert_eq!(two.health().body["threads"], 2);
        assert_eq!(one.health().body["threads"], 1);
        let mut rng = Rng::new(0x3EB_7770);
        // Early enough that the threads search together (the first half).
        for _ in 0..6 {
            let (moves, _) = score4_testkit::positions::random_moves::<6, 5>(&mut rng, 6);
            let query = format!("board=6x5&moves={moves}");
            let (a, b) = (one.get("analyze", &query), two.get("analyze", &query));
            assert_eq!(b.status, 200, "{}", b.body);
            assert_eq!(a.body["columns"], b.body["columns"], "6x5 {moves}");
            assert_eq!(b.body["complete"], true, "6x5 {moves}");
        }
    }

    #[test]
    fn the_perfect_opponent_plays_a_best_move() {
        let mut b = backend();
        let mut rng = Rng::new(0x3EB_0991);
        for _ in 0..8 {
            let Some((moves, g)) = late_game(6, 5, 12, &mut rng) else {
                continue;
            };
            let r = b.get("move", &format!("board=6x5&moves={moves}&opponent=perfect"));
            assert_eq!(r.status, 200, "{}", r.body);
            let column = json(&r)["column"].as_u64().expect("a column") as usize;
            let scores = Naive::new().move_scores(&g);
            let best = scores.iter().flatten().max().copied();
            assert_eq!(scores[column - 1], best, "6x5 {moves}: played {column}");
        }
    }

    #[test]
    fn bad_questions_are_refused_in_the_servers_words() {
        let mut b = backend();
        let r = b.get("analyze", "board=7x6&moves=448");
        assert_eq!(r.status, 400);
        assert_eq!(json(&r)["error"], "move 3: column 8 is out of range 1..7");
        let r = b.get("move", "opponent=god");
        assert_eq!(r.status, 400);
        assert!(json(&r)["error"]
            .as_str()
            .unwrap()
            .starts_with("unknown opponent"));
        let r = b.get("nothing", "");
        assert_eq!(r.status, 400);
        let health = b.health().body;
        assert_eq!(health["budget_ms"], 60_000);
        assert!(health["boards"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "16x7"));
    }
}
