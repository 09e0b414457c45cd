//! score4 in the browser: what `score4 serve`'s JSON API answers, answered
//! by WebAssembly in the page's Web Worker, so that the page works from a
//! folder of static files with no server behind it.
//!
//! [`Backend`] takes the API's paths and queries as the server does and
//! gives the same JSON (through `score4_web::api`, which the server uses
//! too): one page, one set of scripts, two back ends. It holds the solvers
//! between questions, so *keep thinking* starts from what was proven.
//!
//! A browser's WebAssembly has one thread here: a search runs to its
//! budget (the search reads the clock, see `score4::solver`), and the page
//! stops one at once by ending the worker.

use std::time::Duration;

use score4::clock::Instant;
use score4_web::api;
use wasm_bindgen::prelude::*;

/// What a question to the API answers: its HTTP status and its JSON.
#[wasm_bindgen(getter_with_clone)]
pub struct Reply {
    /// 200, or the status the server would give (400 for a bad query).
    pub status: u16,
    /// The JSON text of the answer, or `{"error": ...}`.
    pub body: String,
}

fn reply(status: u16, body: serde_json::Value) -> Reply {
    Reply {
        status,
        body: body.to_string(),
    }
}

fn error(status: u16, message: &str) -> Reply {
    reply(status, serde_json::json!({ "error": message }))
}

/// The API in the browser: the server's answers, one question at a time.
#[wasm_bindgen]
pub struct Backend {
    slot: api::Slot,
    table_mb: usize,
    budget: Duration,
    max_budget: Duration,
    seed: u64,
}

#[wasm_bindgen]
impl Backend {
    /// A back end whose solvers take `table_mb` MiB each (two at most:
    /// 7x6's and the last other board's), answering within `budget_ms`
    /// (a stream may ask for up to `max_budget_ms`); `seed` starts the
    /// random choices of the opponents that make them.
    #[wasm_bindgen(constructor)]
    pub fn new(table_mb: u32, budget_ms: u32, max_budget_ms: u32, seed: f64) -> Backend {
        Backend {
            slot: api::Slot::default(),
            table_mb: table_mb.max(1) as usize,
            budget: Duration::from_millis(budget_ms.max(1).into()),
            max_budget: Duration::from_millis(max_budget_ms.max(budget_ms).into()),
            seed: seed as u64,
        }
    }

    /// `/api/health`: the budgets, the boards, the opponents.
    pub fn health(&self) -> String {
        api::health(1, self.budget, self.max_budget).to_string()
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
        reply(status, body)
    }

    /// `/api/analyze/stream?QUERY`: each state of the analysis as it
    /// narrows is given to `emit` (its JSON text); the final one is the
    /// reply. The budget is the one asked for, up to the most a stream may
    /// ask for.
    pub fn stream(&mut self, query: &str, emit: &js_sys::Function) -> Reply {
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
            &mut |state| {
                emit.call1(&JsValue::NULL, &JsValue::from_str(&state.to_string()))
                    .is_ok()
            },
        );
        reply(status, body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use score4_testkit::naive::{late_game, Naive};
    use score4_testkit::Rng;
    use serde_json::Value;

    fn backend() -> Backend {
        Backend::new(16, 60_000, 60_000, 7.0)
    }

    fn json(reply: &Reply) -> Value {
        serde_json::from_str(&reply.body).expect("a reply is JSON")
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
        let health: Value = serde_json::from_str(&b.health()).unwrap();
        assert_eq!(health["budget_ms"], 60_000);
        assert!(health["boards"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "16x7"));
    }
}
