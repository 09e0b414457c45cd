//! Stopping a search: from another thread, or at a deadline.
//!
//! A search cannot be interrupted mid-move without losing what it proved,
//! so it polls instead: every [`POLL_INTERVAL`] positions it looks at the
//! stop flag and the clock, and once either says stop it unwinds without
//! storing anything more in the table. Bounds stored before that came from
//! subtrees searched to their end, so the table stays sound and the next
//! search reuses them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;

use super::tuning::POLL_INTERVAL;

/// A search gave up before it finished: its handle was stopped or its
/// deadline passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the search was stopped before it finished")]
pub struct Stopped;

/// Stops a solver's searches from another thread (see
/// [`Solver::stop_handle`](super::Solver::stop_handle)).
///
/// Once stopped, every `*_until` search of the solver returns
/// [`Stopped`] until [`resume`](Self::resume) is called; the plain
/// searches (`solve`, `analyze`, ...) ignore it.
#[derive(Clone, Debug, Default)]
pub struct StopHandle(Arc<AtomicBool>);

impl StopHandle {
    /// Stops the search under way, if any, within a few milliseconds, and
    /// every later one until [`resume`](Self::resume).
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Lets searches run again.
    pub fn resume(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Whether [`stop`](Self::stop) was called since the last resume.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub(super) fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// What may stop one search: threads searching together stop each other
/// when the first finishes (`finished`), a user stops through a handle
/// (`handle`), and a clock stops at `deadline`.
#[derive(Clone, Copy, Default)]
pub(super) struct Limits<'t> {
    pub(super) finished: Option<&'t AtomicBool>,
    pub(super) handle: Option<&'t AtomicBool>,
    pub(super) deadline: Option<Instant>,
}

impl Limits<'_> {
    /// Whether a search under these limits must give up now.
    #[cold]
    #[inline(never)]
    pub(super) fn reached(&self) -> bool {
        let set = |flag: Option<&AtomicBool>| flag.is_some_and(|f| f.load(Ordering::Relaxed));
        set(self.finished) || set(self.handle) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether anything can stop the search at all: a search that cannot
    /// be stopped never polls.
    pub(super) fn any(&self) -> bool {
        self.finished.is_some() || self.handle.is_some() || self.deadline.is_some()
    }

    /// Positions between polls: threads searching together poll often, so
    /// that helpers stop soon after the main search answers.
    pub(super) fn interval(&self) -> u64 {
        if self.finished.is_some() {
            POLL_INTERVAL / 16
        } else {
            POLL_INTERVAL
        }
    }
}
