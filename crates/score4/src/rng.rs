//! A small seeded generator (xorshift64*, Marsaglia's xorshift with
//! Vigna's multiplier): the same seed gives the same choices on every
//! machine, so that a sampled check can be repeated. Not for anything a
//! player could gain from predicting.
//!
//! ```
//! use score4::rng::Rng;
//! let (mut a, mut b) = (Rng::new(7), Rng::new(7));
//! assert_eq!(a.next_u64(), b.next_u64());
//! assert!(a.below(10) < 10);
//! ```

/// 2^64 divided by the golden ratio, made odd: multiplying by it spreads
/// nearby integers over the whole range (Fibonacci hashing), for seeds
/// here and for the tables' slots.
pub(crate) const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The generator's state: never zero (zero would stay zero for ever).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`; every seed, zero too, gives a
    /// usable state, and nearby seeds give unrelated sequences.
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(GOLDEN) | 1)
    }

    /// The next value, uniform over every `u64`.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n` > 0); the bias of the modulo is below
    /// `n / 2^64`, nothing a sample notices.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// An index in `0..n` (`n` > 0), for choosing among `n` things.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number uniform in `[0, 1)`: the top 53 bits fill a double's
    /// mantissa exactly.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_replays_and_seeds_differ() {
        let run = |seed| {
            let mut r = Rng::new(seed);
            (0..64).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
        assert_ne!(run(0), run(1));
        // No value repeats within a short run, zero included as a seed.
        let mut zero = run(0);
        zero.sort_unstable();
        zero.dedup();
        assert_eq!(zero.len(), 64);
    }

    #[test]
    fn below_covers_its_range_evenly() {
        let mut r = Rng::new(42);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[r.below(10) as usize] += 1;
        }
        // Each bucket expects 10,000; five standard deviations is 474.
        assert!(
            counts.iter().all(|&c| (9_500..=10_500).contains(&c)),
            "{counts:?}"
        );
    }
}
