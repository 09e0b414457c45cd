//! The clock deadlines are read from.
//!
//! Native builds use the standard library's `Instant`, which every
//! deadline in the library's API is there. WebAssembly in a browser has no
//! system clock behind `std::time::Instant` (it panics there), so those
//! builds have their own: the page's `performance.now()`, imported as
//! `score4.now_ms` (the page's worker provides it; see `score4-wasm`).

#[cfg(target_family = "wasm")]
pub use browser::Instant;
#[cfg(not(target_family = "wasm"))]
pub use std::time::Instant;

#[cfg(target_family = "wasm")]
mod browser {
    use std::ops::{Add, AddAssign, Sub};
    use std::time::Duration;

    #[link(wasm_import_module = "score4")]
    extern "C" {
        /// Milliseconds since the page (or worker) started, as
        /// `performance.now()` tells them: monotonic.
        fn now_ms() -> f64;
    }

    /// A moment, in nanoseconds of the page's monotonic clock.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub struct Instant(u64);

    impl Instant {
        /// Now.
        pub fn now() -> Instant {
            // SAFETY: an import with no arguments that returns a number.
            let ms = unsafe { now_ms() };
            Instant((ms.max(0.0) * 1e6) as u64)
        }

        /// The time from `earlier` to this moment, zero if it is later.
        pub fn duration_since(&self, earlier: Instant) -> Duration {
            Duration::from_nanos(self.0.saturating_sub(earlier.0))
        }

        /// As [`duration_since`](Self::duration_since).
        pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
            self.duration_since(earlier)
        }

        /// The time since this moment.
        pub fn elapsed(&self) -> Duration {
            Instant::now().duration_since(*self)
        }

        /// This moment plus `d`, unless past what the clock counts.
        pub fn checked_add(&self, d: Duration) -> Option<Instant> {
            u64::try_from(d.as_nanos())
                .ok()
                .and_then(|n| self.0.checked_add(n))
                .map(Instant)
        }
    }

    impl Add<Duration> for Instant {
        type Output = Instant;
        fn add(self, d: Duration) -> Instant {
            let n = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            Instant(self.0.saturating_add(n))
        }
    }

    impl AddAssign<Duration> for Instant {
        fn add_assign(&mut self, d: Duration) {
            *self = *self + d;
        }
    }

    impl Sub<Duration> for Instant {
        type Output = Instant;
        fn sub(self, d: Duration) -> Instant {
            let n = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            Instant(self.0.saturating_sub(n))
        }
    }

    impl Sub<Instant> for Instant {
        type Output = Duration;
        fn sub(self, earlier: Instant) -> Duration {
            self.duration_since(earlier)
        }
    }
}
