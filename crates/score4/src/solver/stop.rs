//! Stopping a search: from another thread, or at a deadline.
//!
//! Every search can give up at any position when a flag it is handed is
//! set: threads searching together already stop each other that way when
//! the first one answers. A stoppable search is handed the solver's
//! `Signals`: its abort flag, which the user's [`StopHandle`] sets and a
//! timer thread sets at the deadline, and the running count of positions
//! that a watcher reads during one long search. A search that gives up unwinds without storing
//! anything more in the table: bounds stored before came from subtrees
//! searched to their end, so the table stays sound and the next search
//! reuses them.
//!
//! The deadline is a thread rather than a clock read in the search so
//! that the search's code is the same for every kind of search: the one
//! check per position that threads searching together always made.
//! WebAssembly in a browser has no threads to spare: there the search
//! reads the clock itself, each time it adds a step to the running count
//! (every few milliseconds), out of its hot path.

use crate::clock::Instant;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(not(target_family = "wasm"))]
use std::sync::Condvar;
use std::sync::{Arc, Mutex, PoisonError};

use thiserror::Error;

/// A search gave up before it finished: its handle was stopped or its
/// deadline passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the search was stopped before it finished")]
pub struct Stopped;

/// Why searches must give up.
#[derive(Debug, Default)]
struct Flags {
    /// The user stopped them (until resumed).
    user: AtomicBool,
    /// The deadline of the call under way passed.
    expired: AtomicBool,
    /// What the stoppable searches look at and report to.
    signals: Signals,
}

/// What a search looks at, and reports to, as it goes: one reference,
/// checked at every position, whether a search can be stopped or not.
#[derive(Debug, Default)]
pub(super) struct Signals {
    /// Set when the search must give up: whenever the user or the
    /// deadline says so, and by threads searching together when the
    /// first answers.
    pub(super) abort: AtomicBool,
    /// Positions searched, added in steps of
    /// [`LIVE_COUNT_STEP`](super::tuning::LIVE_COUNT_STEP) as they go:
    /// what another thread reads to show progress during one long search.
    pub(super) live: AtomicU64,
    /// What the stoppable strong solve under way has proven of its
    /// position's score, as [`Proven::pack`] writes it: 0 when none is
    /// under way.
    pub(super) proven: AtomicU64,
    /// The deadline of the call under way, where no timer thread can be
    /// had: the search reads it with the running count.
    #[cfg(target_family = "wasm")]
    pub(super) deadline: Mutex<Option<Instant>>,
}

/// What a strong solve under way has proven of its position's score so
/// far, for another thread to show (see [`StopHandle::proven`]): a solve
/// narrows the range one null window at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proven {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
    /// The question the search is answering now: "is the score above
    /// this?" (`lower <= asking < upper`).
    pub asking: i32,
}

impl Proven {
    /// Set in every packed value, so that 0 means none.
    const SOME: u64 = 1 << 63;

    /// One word, for an atomic: each score in 16 bits (scores are far
    /// smaller).
    pub(super) fn pack(self) -> u64 {
        let field = |score: i32, at: u32| u64::from(score as i16 as u16) << at;
        Self::SOME | field(self.lower, 0) | field(self.upper, 16) | field(self.asking, 32)
    }

    /// What [`pack`](Self::pack) wrote, if anything.
    fn unpack(word: u64) -> Option<Self> {
        let field = |at: u32| i32::from((word >> at) as u16 as i16);
        (word & Self::SOME != 0).then(|| Proven {
            lower: field(0),
            upper: field(16),
            asking: field(32),
        })
    }
}

impl Signals {
    /// Whether the deadline of the call under way has passed, where the
    /// search must read the clock itself; it is then expired.
    #[cfg(target_family = "wasm")]
    pub(super) fn deadline_passed(&self) -> bool {
        let deadline = *self.deadline.lock().unwrap_or_else(PoisonError::into_inner);
        let passed = deadline.is_some_and(|d| Instant::now() >= d);
        if passed {
            self.abort.store(true, Ordering::SeqCst);
        }
        passed
    }
}

/// Stops a solver's searches from another thread (see
/// [`Solver::stop_handle`](super::Solver::stop_handle)).
///
/// Once stopped, every `*_until` search of the solver returns
/// [`Stopped`] until [`resume`](Self::resume) is called; the plain
/// searches (`solve`, `analyze`, ...) ignore it.
#[derive(Clone, Debug, Default)]
pub struct StopHandle(Arc<Flags>);

impl StopHandle {
    /// Stops the search under way, if any, at its next position, and
    /// every later one until [`resume`](Self::resume).
    pub fn stop(&self) {
        self.0.user.store(true, Ordering::SeqCst);
        self.0.signals.abort.store(true, Ordering::SeqCst);
    }

    /// Lets searches run again.
    pub fn resume(&self) {
        self.0.user.store(false, Ordering::SeqCst);
        self.settle();
    }

    /// Whether [`stop`](Self::stop) was called since the last resume.
    pub fn is_stopped(&self) -> bool {
        self.0.user.load(Ordering::SeqCst)
    }

    /// Positions the solver has searched since it was made, counted as
    /// they go in steps of a few thousand a thread
    /// (`tuning::LIVE_COUNT_STEP`) and exactly once each search ends: what
    /// a long `*_until` search shows as progress.
    pub fn positions(&self) -> u64 {
        self.0.signals.live.load(Ordering::Relaxed)
    }

    /// What the stoppable strong solve under way (`solve_until`) has
    /// proven of its position's score so far; none when no such solve is
    /// under way. Read from another thread while the solve runs.
    ///
    /// ```
    /// use score4::{Position, Solver};
    /// let mut solver = Solver::<7, 6>::new();
    /// let handle = solver.stop_handle();
    /// assert_eq!(handle.proven(), None);
    /// let p: Position<7, 6> = "4455".parse().unwrap();
    /// let score = solver.solve_until(&p, None).unwrap();
    /// assert_eq!(score, solver.solve(&p));
    /// // Between calls, none.
    /// assert_eq!(handle.proven(), None);
    /// ```
    pub fn proven(&self) -> Option<Proven> {
        Proven::unpack(self.0.signals.proven.load(Ordering::Relaxed))
    }

    /// Publishes what the strong solve under way has proven (none once it
    /// ends).
    pub(super) fn publish(&self, proven: Option<Proven>) {
        let word = proven.map_or(0, Proven::pack);
        self.0.signals.proven.store(word, Ordering::Relaxed);
    }

    /// Sets the running count ([`positions`](Self::positions)) to
    /// `searched`, the solver's exact count, once a search has ended. The
    /// searches add to it in steps as they go (none once aborted, the
    /// proof-number search none at all); exact between searches, it lets a
    /// tick's estimate (the last report's exact count plus the running
    /// count's growth since) never run ahead of the count the analysis
    /// reports last.
    pub(super) fn settle_count(&self, searched: u64) {
        self.0.signals.live.store(searched, Ordering::Relaxed);
    }

    /// What the stoppable searches look at and report to.
    pub(super) fn signals(&self) -> &Signals {
        &self.0.signals
    }

    /// The abort flag back to what the user and the deadline say, after
    /// threads searching together used it to stop each other. Cleared
    /// before it is read again, so that a concurrent [`stop`](Self::stop)
    /// is never lost.
    pub(super) fn settle(&self) {
        self.0.signals.abort.store(false, Ordering::SeqCst);
        if self.0.user.load(Ordering::SeqCst) || self.0.expired.load(Ordering::SeqCst) {
            self.0.signals.abort.store(true, Ordering::SeqCst);
        }
        // Where the search reads the deadline itself, a deadline that
        // stopped threads searching together would otherwise be forgotten
        // with the flag they stopped each other by.
        #[cfg(target_family = "wasm")]
        self.0.signals.deadline_passed();
    }

    /// Runs `f` with a timer that makes the searches give up at
    /// `deadline`, and forgets the deadline afterwards.
    ///
    /// If the system will not start the timer thread, `f` runs without a
    /// deadline (its answer is late, never wrong), unless the deadline
    /// has already passed.
    pub(super) fn with_deadline<T>(&self, deadline: Option<Instant>, f: impl FnOnce() -> T) -> T {
        let mut f = Some(f);
        let mut result = None;
        self.run_with_deadline(deadline, &mut || result = f.take().map(|f| f()));
        result.expect("run_with_deadline calls its function once")
    }

    /// [`with_deadline`](Self::with_deadline) for a function behind a
    /// reference: one function, not one for every board size's engine, as
    /// the timer thread's code is large and the same for all.
    fn run_with_deadline(&self, deadline: Option<Instant>, f: &mut dyn FnMut()) {
        match deadline {
            None => f(),
            Some(deadline) if Instant::now() >= deadline => {
                self.expire();
                f()
            }
            #[cfg(target_family = "wasm")]
            Some(deadline) => {
                let slot = &self.0.signals.deadline;
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(deadline);
                f();
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = None;
            }
            #[cfg(not(target_family = "wasm"))]
            Some(deadline) => {
                let done = (Mutex::new(false), Condvar::new());
                std::thread::scope(|scope| {
                    let timer = std::thread::Builder::new()
                        .name("score4-deadline".into())
                        .spawn_scoped(scope, || self.expire_at(deadline, &done));
                    f();
                    let (lock, wake) = &done;
                    *lock.lock().unwrap_or_else(PoisonError::into_inner) = true;
                    wake.notify_one();
                    drop(timer);
                })
            }
        }
        self.0.expired.store(false, Ordering::SeqCst);
        self.settle();
    }

    fn expire(&self) {
        self.0.expired.store(true, Ordering::SeqCst);
        self.0.signals.abort.store(true, Ordering::SeqCst);
    }

    /// The timer: waits for `deadline` or for the call to end, whichever
    /// comes first.
    #[cfg(not(target_family = "wasm"))]
    fn expire_at(&self, deadline: Instant, done: &(Mutex<bool>, Condvar)) {
        let (lock, wake) = done;
        let mut finished = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !*finished {
            let now = Instant::now();
            if now >= deadline {
                self.expire();
                return;
            }
            finished = match wake.wait_timeout(finished, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}
