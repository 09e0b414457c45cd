//! score4's web face: a page to analyse and play Connect Four on any
//! supported board, and the JSON API it uses, served over HTTP/1.1 by a
//! server whose every resource is bounded.
//!
//! - [`http`]: connections, accepted up to a bound, each served by hyper
//!   within limits of size and time, and the checks every request passes.
//! - [`api`]: queries read into tasks, and each task's JSON answer.
//! - `pool`: the solvers' threads and the bounded queue in front of them.
//! - `stream`: a streamed analysis's events.
//! - `server`: the configuration, the routes, and starting and stopping.
//!
//! Without the `server` feature (on by default) the crate is the API's
//! answers and the page alone, with no network code: what the page's
//! WebAssembly back end (`score4-wasm`) runs in the browser.
//!
//! The connections live on a small tokio runtime (two threads): an idle or
//! slow connection costs a task and its buffers, not a thread.
//! [`Config::workers`] threads solve, each with one solver (one table of
//! [`Config::table_mb`]) kept between requests, behind a bounded queue; a
//! full one is answered 503 at once. A search stops at the request's time
//! budget, or as soon as its client goes away, and the columns it did not
//! settle come back unsettled.
//!
//! ```no_run
//! # #[cfg(feature = "server")] {
//! let config = score4_web::Config::default();
//! let server = score4_web::start(&config).unwrap();
//! println!("http://{}/", server.addr());
//! server.join();
//! # }
//! ```

pub mod api;
#[cfg(feature = "server")]
pub mod http;
#[cfg(feature = "server")]
mod pool;
#[cfg(feature = "server")]
mod server;
#[cfg(feature = "server")]
mod stream;

#[cfg(feature = "server")]
pub use http::Limits;
#[cfg(feature = "server")]
pub use server::*;

/// A request's time budget ([`Config::budget`]) unless the server is told
/// otherwise, in milliseconds.
pub const DEFAULT_BUDGET_MS: u64 = 3000;

/// The most time a streamed analysis may ask for (*Keep thinking*) unless
/// the server is told otherwise, in milliseconds; the browser's back end
/// takes the same.
pub const DEFAULT_MAX_BUDGET_MS: u64 = 60_000;

/// The page, HTML with its CSS and script inline: served by the server,
/// and the page of the static folder, which solves in the browser.
pub const PAGE: &str = include_str!("page.html");
