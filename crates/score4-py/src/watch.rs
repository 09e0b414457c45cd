//! The one thread that stops searches when they are due: at a timeout, and
//! now and then so that their callers can let Python see a pending signal.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::PyRuntimeError;
use pyo3::PyResult;
use score4::StopHandle;

/// Searches in flight, each with the moment its stop handle is to be
/// pulled, watched by one thread for the whole module: the search runs in
/// the calling thread without the GIL (no thread is started per call, which
/// would cost more than a whole end-game solve), and is stopped now and
/// then so that its caller can take the GIL back and let Python see a
/// pending signal (Ctrl-C) before it goes on from where the table left it.
struct Watches {
    next_id: u64,
    due: Vec<(u64, StopHandle, Instant)>,
}

static WATCHES: Mutex<Watches> = Mutex::new(Watches {
    next_id: 0,
    due: Vec::new(),
});
/// The process whose watcher runs: a child made by `fork` inherits the
/// statics but not the thread, so it starts its own.
static WATCHER_PID: AtomicU32 = AtomicU32::new(0);
/// Wakes the watcher when a search is added.
static WAKE: Condvar = Condvar::new();

/// The first look at the signals comes this soon into a search, the later
/// ones ever further apart, up to [`MAX_CHECK`]: a short search is never
/// stopped, a long one restarts from its table a few times a second.
pub const FIRST_CHECK: Duration = Duration::from_millis(50);
pub const MAX_CHECK: Duration = Duration::from_millis(200);

fn watches() -> std::sync::MutexGuard<'static, Watches> {
    WATCHES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The watcher: stops each search when it is due, and sleeps until the
/// next one is (or until a search is added), never polling.
fn watcher() {
    let mut w = watches();
    loop {
        let now = Instant::now();
        for (_, handle, at) in &w.due {
            if now >= *at {
                handle.stop();
            }
        }
        // A search already stopped stays listed until its caller takes it off.
        let next = w
            .due
            .iter()
            .map(|(_, _, at)| *at)
            .filter(|at| *at > now)
            .min();
        w = match next {
            None => WAKE
                .wait(w)
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            Some(at) => {
                WAKE.wait_timeout(w, at - now)
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0
            }
        };
    }
}

/// Has `handle` stopped at `at`; an error if the watcher cannot be
/// started, as the search would then ignore its timeout and Ctrl-C.
pub fn watch(handle: &StopHandle, at: Instant) -> PyResult<u64> {
    let pid = std::process::id();
    if WATCHER_PID.swap(pid, Ordering::SeqCst) != pid {
        let started = std::thread::Builder::new()
            .name("score4-watch".into())
            .spawn(watcher);
        if started.is_err() {
            // The next search tries again.
            WATCHER_PID.store(0, Ordering::SeqCst);
            return Err(PyRuntimeError::new_err(
                "cannot start the thread that stops searches at their timeout",
            ));
        }
    }
    let mut w = watches();
    w.next_id += 1;
    let id = w.next_id;
    w.due.push((id, handle.clone(), at));
    WAKE.notify_one();
    Ok(id)
}

pub fn unwatch(id: u64) {
    watches().due.retain(|(i, _, _)| *i != id);
}
