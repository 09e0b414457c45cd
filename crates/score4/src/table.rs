//! The solver's transposition table: proven score bounds per position.
//!
//! One entry is one `u64`, so a table of `n` entries costs `8n` bytes and a
//! read or write can never be torn, even if several threads share the
//! table through relaxed atomics.
//!
//! Keys are scrambled by multiplying with an odd constant, which is a
//! bijection on `u64`. The top `bits` of the product pick the slot and the
//! remaining low bits are stored as the check, so slot plus check give back
//! the whole product and hence the whole key: two different positions can
//! share a slot but never be mistaken for each other, on any board size.
//!
//! The low [`DATA_BITS`] of an entry hold a lower bound, an upper bound and
//! the best move found; the check takes the rest, which is why a table has
//! at least `2^MIN_BITS` slots.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bits of an entry that hold the bounds and the move.
const DATA_BITS: u32 = 20;
/// Fewest index bits: the check (64 minus the index bits) must fit in the
/// 64 - DATA_BITS bits left beside the data.
const MIN_BITS: u32 = DATA_BITS;
/// Most index bits a table may have (2^36 entries = 512 GiB, far beyond any machine).
const MAX_BITS: u32 = 36;
/// Stored bounds are offset so that every stored field is non-zero and an
/// all-zero entry means "empty". Scores never exceed 32 in magnitude
/// because a board has at most 63 cells.
const SCORE_OFFSET: i32 = 64;
/// Fibonacci hashing constant (2^64 / golden ratio, odd).
const SCRAMBLE: u64 = 0x9E37_79B9_7F4A_7C15;

/// What the table knows about one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
    /// The column of the best (or refuting) move found, if any.
    pub best: Option<usize>,
}

/// A fixed-size, always-replace table of [`Bounds`] keyed by position keys.
pub struct Table {
    entries: Box<[AtomicU64]>,
    bits: u32,
}

impl Table {
    /// A table of about `mb` mebibytes: the largest power-of-two number of
    /// entries that fits, and never fewer than `2^20` entries (8 MiB).
    ///
    /// The memory comes zeroed from the allocator, so pages the search
    /// never touches cost nothing.
    pub fn with_mb(mb: usize) -> Self {
        let entries = (mb.max(1) as u64) << 20 >> 3;
        let bits = (63 - entries.leading_zeros()).clamp(MIN_BITS, MAX_BITS);
        Table {
            entries: zeroed(1usize << bits),
            bits,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no entries (never: there are at least 2^20).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<AtomicU64>()
    }

    /// Forgets everything. Handing the old memory back and asking for fresh
    /// zeroed pages is far cheaper than writing zeros over a large table.
    pub fn clear(&mut self) {
        self.entries = zeroed(0);
        self.entries = zeroed(1usize << self.bits);
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(SCRAMBLE);
        let index = (h >> (64 - self.bits)) as usize;
        let check = h & (u64::MAX >> self.bits);
        (index, check)
    }

    /// The bounds stored for `key`, if any.
    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let (index, check) = self.slot(key);
        let e = self.entries[index].load(Ordering::Relaxed);
        (e != 0 && e >> DATA_BITS == check).then(|| unpack(e))
    }

    /// Records that the score of `key` lies in `lower..=upper`, merging with
    /// what is already known about the same position.
    #[inline(always)]
    pub fn put(&self, key: u64, mut lower: i32, mut upper: i32, best: Option<usize>) {
        let (index, check) = self.slot(key);
        let slot = &self.entries[index];
        let old = slot.load(Ordering::Relaxed);
        let mut best = best;
        if old != 0 && old >> DATA_BITS == check {
            let known = unpack(old);
            lower = lower.max(known.lower);
            upper = upper.min(known.upper);
            best = best.or(known.best);
        }
        slot.store(
            check << DATA_BITS | pack(lower, upper, best),
            Ordering::Relaxed,
        );
    }
}

#[inline(always)]
fn pack(lower: i32, upper: i32, best: Option<usize>) -> u64 {
    debug_assert!(lower.abs() < SCORE_OFFSET && upper.abs() < SCORE_OFFSET);
    let mv = best.map_or(0, |c| c as u64 + 1);
    debug_assert!(mv < 64);
    (mv << 14) | (((lower + SCORE_OFFSET) as u64) << 7) | (upper + SCORE_OFFSET) as u64
}

#[inline(always)]
fn unpack(e: u64) -> Bounds {
    let mv = (e >> 14) & 63;
    Bounds {
        lower: ((e >> 7) & 127) as i32 - SCORE_OFFSET,
        upper: (e & 127) as i32 - SCORE_OFFSET,
        best: (mv != 0).then(|| mv as usize - 1),
    }
}

fn zeroed(n: usize) -> Box<[AtomicU64]> {
    let raw = Box::<[AtomicU64]>::new_zeroed_slice(n);
    // SAFETY: an all-zero bit pattern is a valid AtomicU64 (it is a plain u64).
    unsafe { raw.assume_init() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_powers_of_two_with_a_floor() {
        assert_eq!(Table::with_mb(0).len(), 1 << 20);
        assert_eq!(Table::with_mb(16).len(), 1 << 21);
        assert_eq!(Table::with_mb(24).len(), 1 << 21);
        assert_eq!(Table::with_mb(32).bytes(), 32 << 20);
    }

    #[test]
    fn stores_and_merges_bounds() {
        let t = Table::with_mb(8);
        assert_eq!(t.get(12345), None);
        t.put(12345, -3, 5, Some(2));
        assert_eq!(
            t.get(12345),
            Some(Bounds {
                lower: -3,
                upper: 5,
                best: Some(2)
            })
        );
        t.put(12345, 0, 7, None);
        assert_eq!(
            t.get(12345),
            Some(Bounds {
                lower: 0,
                upper: 5,
                best: Some(2)
            })
        );
        // The empty board's key is 0 and must still be storable.
        t.put(0, -21, 21, None);
        assert_eq!(t.get(0).map(|b| (b.lower, b.upper)), Some((-21, 21)));
    }

    #[test]
    fn keys_sharing_a_slot_are_told_apart() {
        let t = Table::with_mb(8);
        // Find two keys that land in the same slot.
        let (i0, _) = t.slot(1);
        let other = (2u64..)
            .find(|&k| t.slot(k).0 == i0)
            .expect("some key shares the slot");
        t.put(1, 1, 1, None);
        assert_eq!(t.get(other), None);
        t.put(other, -2, -2, None);
        assert_eq!(t.get(1), None, "always replace");
        assert_eq!(t.get(other).map(|b| b.lower), Some(-2));
        t.put(1, 1, 1, None);
        let mut t = t;
        t.clear();
        assert_eq!(t.get(1), None);
    }
}
