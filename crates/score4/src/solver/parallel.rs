//! Threads searching one position together.
//!
//! Every thread searches the same position over the shared table ("lazy
//! SMP"); the first to finish answers, the others having filled the table
//! with bounds it could use. To split the work rather than repeat it,
//! helpers put off the move the main search is busy with wherever they
//! meet it, a position's first move too: following the main search into
//! the subtree it is already in mostly repeats it, while the next move is
//! work of its own where every move must be searched, and costs little
//! where the first move cuts off (the helper then finds the first move's
//! bound in the table when it comes back to it). On the large boards the
//! main search puts off the helpers' moves as well, except a position's
//! first move: there the threads otherwise meet in the same subtrees
//! often enough to matter (`tuning::mutual_put_off`). All threads order
//! moves alike, so that they do meet.

use std::sync::atomic::{AtomicU64, Ordering};

use super::node::{Node, Store};
use super::search::{Search, Shared, Tables};
use super::stop::Signals;
use super::tuning;
use crate::layout::Layout;

/// The score of `p` within `alpha..beta` (as [`Search::negamax`] gives
/// it), searched by as many threads together as there are `tables` (the
/// tables of each, the main search's first), and the positions all of
/// them searched. Each thread gives up once `stop` is set, as the first
/// to finish sets it; no score if it was set before any finished (by
/// whoever else holds it: the user, a deadline). Each thread adds its
/// positions to `stop`'s running count as it goes.
pub(super) fn search_together<N: Node, S: Store<Key = N::Key>, const STATS: bool>(
    tables: &[Tables<'_, S>],
    p: &N,
    alpha: i32,
    beta: i32,
    stop: &Signals,
) -> Outcome {
    let threads = tables.len();
    let cells = p.layout().cells();
    let busy: Vec<AtomicU64> = (0..(cells as usize + 1) * threads)
        .map(|_| AtomicU64::new(0))
        .collect();
    let mutual = tuning::mutual_put_off(cells);
    let run = |thread: usize| {
        let mut search = Search::<N, S, STATS>::new(p.layout(), tables[thread], Some(stop));
        search.shared = Some(Shared::new(&busy, thread, threads, mutual));
        let score = search.negamax(p, alpha, beta);
        // The first to finish stops the others; its answer is complete.
        stop.abort.store(true, Ordering::Relaxed);
        (search.finished().then_some(score), search.nodes)
    };
    let (mine, helpers) = run_threads(tables.len(), &run);
    let (mut answer, mut nodes) = mine;
    for (score, helper_nodes) in helpers.into_iter().flatten() {
        answer = answer.or(score);
        nodes += helper_nodes;
    }
    // Only whoever else holds `stop` stops the main search before some
    // thread has answered: without them, some search finishes.
    (answer, nodes)
}

/// What one thread's search found: its score unless it gave up, and the
/// positions it searched.
type Outcome = (Option<i32>, u64);

/// Runs `run(0)` on this thread and `run(1)` to `run(threads - 1)` on
/// helper threads, and what each found (a helper that panicked has no
/// outcome). One function, not one for every board size's search, as the
/// code that starts and joins threads is large and the same for all.
fn run_threads(
    threads: usize,
    run: &(dyn Fn(usize) -> Outcome + Sync),
) -> (Outcome, Vec<std::thread::Result<Outcome>>) {
    std::thread::scope(|scope| {
        // A helper the system will not start is simply missing: the main
        // search alone still answers.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|thread| {
                std::thread::Builder::new()
                    .name(format!("score4-search-{thread}"))
                    .stack_size(super::SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, move || run(thread))
                    .ok()
            })
            .collect();
        let mine = run(0);
        let helpers: Vec<_> = helpers.into_iter().map(|h| h.join()).collect();
        (mine, helpers)
    })
}
