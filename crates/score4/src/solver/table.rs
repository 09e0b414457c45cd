//! The solver's transposition table: proven score bounds per position.
//!
//! One entry is one `u64`, so a table of `n` entries costs `8n` bytes and a
//! read or write can never be torn, even if several threads share the
//! table through relaxed atomics.
//!
//! Entries come in buckets of two neighbours (one cache line holds both).
//! The first keeps the entry that cost the most to find, judged by how many
//! positions were searched to find it; the second takes everything else
//! (always replaced). Without the first, the long searches that fill the
//! table keep overwriting the few entries near the root that save the most.
//!
//! Keys of a board with `W * (H + 1)` bits per key fit in `key_bits` bits.
//! They are scrambled by multiplying with an odd constant modulo
//! `2^key_bits`, a bijection on those keys. The top bits of the product
//! pick the bucket and the remaining low bits are stored as the check, so
//! bucket plus check give back the whole product and hence the whole key:
//! two different positions can share a bucket but are never mistaken for
//! each other, on any board size.
//!
//! An entry, from the top bit down:
//!
//! ```text
//!  63                        24 23    18 17  14 13     7 6      0
//! +----------------------------+--------+------+--------+--------+
//! | generation | check         | work   | move | lower  | upper  |
//! +----------------------------+--------+------+--------+--------+
//! ```
//!
//! The check takes as many bits as the key needs beside the bucket index,
//! the generation what is left. Clearing the table bumps the generation,
//! which makes every older entry unreadable without touching memory; only
//! when the generations run out is the memory zeroed.

use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::mem::TableError;
use crate::mem::{ask_for_huge_pages, zeroed};

/// Width of a stored bound: scores lie within +-[`SCORE_OFFSET`].
const SCORE_BITS: u32 = 7;
/// Where the upper bound sits in an entry.
const UPPER_SHIFT: u32 = 0;
/// Where the lower bound sits.
const LOWER_SHIFT: u32 = UPPER_SHIFT + SCORE_BITS;
/// Where the best move sits: its column plus one, 0 meaning none.
const MOVE_SHIFT: u32 = LOWER_SHIFT + SCORE_BITS;
/// Width of the best move.
const MOVE_BITS: u32 = 4;
/// Where the work sits: the bit length of the positions searched.
const WORK_SHIFT: u32 = MOVE_SHIFT + MOVE_BITS;
/// Width of the work (bit lengths of the counts, capped to fit).
const WORK_BITS: u32 = 6;
/// Bits of an entry that hold the bounds, the move and the work.
const DATA_BITS: u32 = WORK_SHIFT + WORK_BITS;
/// Columns a stored best move can name.
pub const MAX_WIDTH: usize = (1 << MOVE_BITS) - 2;
/// Bits left for the check and the generation.
const TAG_BITS: u32 = 64 - DATA_BITS;
/// Most index bits a table may have (2^36 entries = 512 GiB, far beyond any machine).
const MAX_BITS: u32 = 36;
/// Stored bounds are offset so that every stored field is non-zero and an
/// all-zero entry means "empty". Scores never exceed 32 in magnitude,
/// since a board has fewer than 64 cells (its cells and a sentinel above
/// each column fit in 64 bits).
const SCORE_OFFSET: i32 = 64;

// The fields fill the data bits exactly, every field's values fit it, and
// the check of the widest key still fits beside the smallest table's index.
const _: () = {
    assert!(DATA_BITS == 24 && DATA_BITS + TAG_BITS == 64);
    assert!(2 * SCORE_OFFSET <= 1 << SCORE_BITS && 32 < SCORE_OFFSET);
    assert!(MAX_WIDTH < (1 << MOVE_BITS) - 1);
};
/// Mask of a field `bits` wide, at the bottom.
const fn field(bits: u32) -> u64 {
    (1 << bits) - 1
}
/// Fibonacci hashing: a key times this, its top bits the slot.
const SCRAMBLE: u64 = crate::rng::GOLDEN;

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

/// A fixed-size table of [`Bounds`] keyed by position keys, in two-entry
/// buckets: the first keeps the costliest entry, the second is always
/// replaced (see the module documentation).
pub struct Table {
    entries: Box<[AtomicU64]>,
    /// Key bits kept in each entry beside the index.
    check_bits: u32,
    /// The largest generation that fits beside the check.
    last_generation: u64,
    /// Tags written now carry this generation.
    generation: u64,
    /// The same three, ready for `slot`, which every look-up, store and
    /// prefetch runs: the key bits hashed, the check's bits, and the
    /// generation in place in the tag.
    key_mask: u64,
    check_mask: u64,
    generation_tag: u64,
}

impl Table {
    /// A table of about `mb` mebibytes for keys below `2^key_bits`: the
    /// largest power-of-two number of entries that fits, at least enough
    /// for the check to fit beside the data, and never more than there are
    /// keys.
    ///
    /// The memory comes zeroed from the allocator, so pages the search
    /// never touches cost nothing.
    ///
    /// # Panics
    ///
    /// If `key_bits` is not between 1 and 64 (a programming error: the
    /// solver derives it from the board size), or if the memory cannot be
    /// had: see [`try_with_mb`](Self::try_with_mb).
    pub fn with_mb(mb: usize, key_bits: u32) -> Self {
        match Self::try_with_mb(mb, key_bits) {
            Ok(table) => table,
            Err(e) => panic!("{e}"),
        }
    }

    /// The least memory a table for keys below `2^key_bits` takes, in
    /// mebibytes rounded up: the key bits its index does not hold must fit
    /// in an entry's tag.
    pub const fn min_mb(key_bits: u32) -> usize {
        let bytes = (std::mem::size_of::<u64>() as u64) << Self::min_bits(key_bits);
        bytes.div_ceil(1 << 20) as usize
    }

    /// The fewest index bits a table for keys below `2^key_bits` has.
    const fn min_bits(key_bits: u32) -> u32 {
        (key_bits + 1).saturating_sub(TAG_BITS)
    }

    /// Like [`with_mb`](Self::with_mb), but a size the system will not
    /// allocate is an error rather than a panic.
    pub fn try_with_mb(mb: usize, key_bits: u32) -> Result<Self, TableError> {
        assert!((1..=64).contains(&key_bits), "keys are 1 to 64 bits wide");
        let entries = (mb as u64).clamp(1, 1 << 40) << 20 >> 3;
        // A 32-bit address space (WebAssembly) holds at most 2^28 entries.
        let bits = (63 - entries.leading_zeros())
            .max(Self::min_bits(key_bits))
            .clamp(1, MAX_BITS.min(usize::BITS - 4))
            .min(key_bits + 1);
        let check_bits = key_bits + 1 - bits;
        let generation_bits = TAG_BITS - check_bits;
        let entries = zeroed(1usize << bits)?;
        ask_for_huge_pages(&entries);
        Ok(Table {
            entries,
            check_bits,
            last_generation: if generation_bits >= 63 {
                u64::MAX >> 1
            } else {
                (1u64 << generation_bits) - 1
            },
            generation: 0,
            key_mask: u64::MAX >> (64 - key_bits),
            check_mask: !(u64::MAX << check_bits),
            generation_tag: 0,
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no entries (never: it has at least one).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.entries)
    }

    /// Makes the system supply every page of the table now, rather than
    /// on the first probe that lands in each, so that timings taken later
    /// do not include it. Stored bounds are unchanged.
    pub fn touch(&mut self) {
        crate::mem::touch(&mut self.entries);
    }

    /// Forgets everything, in constant time while generations last.
    pub fn clear(&mut self) {
        if self.generation < self.last_generation {
            self.generation += 1;
        } else {
            // Zeroing in place costs a moment here, once in many clears;
            // fresh pages from the system would cost more, and later, in
            // page faults during the next searches.
            for entry in self.entries.iter_mut() {
                *entry.get_mut() = 0;
            }
            self.generation = 0;
        }
        self.generation_tag = self.generation << self.check_bits;
    }

    /// The first entry of the bucket of `key`, and the tag its entry carries.
    #[inline(always)]
    fn slot(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(SCRAMBLE) & self.key_mask;
        let bucket = (h >> self.check_bits) as usize;
        (bucket * 2, self.generation_tag | (h & self.check_mask))
    }

    /// Whether entry `e` belongs to the current generation.
    #[inline(always)]
    fn is_current(&self, e: u64) -> bool {
        e != 0 && (e >> DATA_BITS) >> self.check_bits == self.generation
    }

    /// Starts loading the entry of `key` into the cache, so that a later
    /// [`get`](Self::get) does not wait for memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        let (index, _) = self.slot(key);
        // Only an address: `slot` keeps the index in the table anyway.
        crate::mem::prefetch(self.entries.as_ptr().wrapping_add(index));
    }

    /// The bounds stored for `key`, if any.
    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let (index, tag) = self.slot(key);
        // A zeroed entry can match the tag 0, but stored data is never zero.
        let matches = |e: u64| e != 0 && e >> DATA_BITS == tag;
        let first = self.entries[index].load(Ordering::Relaxed);
        if matches(first) {
            return Some(unpack(first));
        }
        let second = self.entries[index + 1].load(Ordering::Relaxed);
        matches(second).then(|| unpack(second))
    }

    /// Records that the score of `key` lies in `lower..=upper`, merging
    /// with what is already known about it. `work` is what finding this
    /// out cost (positions searched): the entries that cost most keep
    /// their place.
    #[inline(always)]
    pub fn put(&self, key: u64, work: u64, lower: i32, upper: i32, best: Option<usize>) {
        // Only the magnitude is kept: its bit length.
        let work = (u64::BITS - work.leading_zeros()).min(field(WORK_BITS) as u32);
        let (index, tag) = self.slot(key);
        let (deep, any) = (&self.entries[index], &self.entries[index + 1]);
        let matches = |e: u64| e != 0 && e >> DATA_BITS == tag;
        let merged = |old: u64| {
            let known = unpack(old);
            tag << DATA_BITS
                | pack(
                    work.max(work_of(old)),
                    lower.max(known.lower),
                    upper.min(known.upper),
                    best.or(known.best),
                )
        };
        let first = deep.load(Ordering::Relaxed);
        if matches(first) {
            deep.store(merged(first), Ordering::Relaxed);
            return;
        }
        let second = any.load(Ordering::Relaxed);
        if matches(second) {
            any.store(merged(second), Ordering::Relaxed);
            return;
        }
        let new = tag << DATA_BITS | pack(work, lower, upper, best);
        if !self.is_current(first) {
            deep.store(new, Ordering::Relaxed);
        } else if work >= work_of(first) {
            // The displaced entry still beats whatever the second one holds.
            any.store(first, Ordering::Relaxed);
            deep.store(new, Ordering::Relaxed);
        } else {
            any.store(new, Ordering::Relaxed);
        }
    }
}

#[inline(always)]
fn pack(work: u32, lower: i32, upper: i32, best: Option<usize>) -> u64 {
    debug_assert!(lower.abs() < SCORE_OFFSET && upper.abs() < SCORE_OFFSET);
    let mv = best.map_or(0, |c| c as u64 + 1);
    debug_assert!(mv <= MAX_WIDTH as u64 && work < 64);
    (work as u64) << WORK_SHIFT
        | mv << MOVE_SHIFT
        | ((lower + SCORE_OFFSET) as u64) << LOWER_SHIFT
        | ((upper + SCORE_OFFSET) as u64) << UPPER_SHIFT
}

#[inline(always)]
fn work_of(e: u64) -> u32 {
    ((e >> WORK_SHIFT) & field(WORK_BITS)) as u32
}

#[inline(always)]
fn unpack(e: u64) -> Bounds {
    let mv = (e >> MOVE_SHIFT) & field(MOVE_BITS);
    let score = |shift: u32| ((e >> shift) & field(SCORE_BITS)) as i32 - SCORE_OFFSET;
    Bounds {
        lower: score(LOWER_SHIFT),
        upper: score(UPPER_SHIFT),
        best: (mv != 0).then(|| mv as usize - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_powers_of_two_within_limits() {
        assert_eq!(Table::with_mb(0, 49).len(), 1 << 17);
        assert_eq!(Table::with_mb(16, 49).len(), 1 << 21);
        assert_eq!(Table::with_mb(24, 49).len(), 1 << 21);
        assert_eq!(Table::with_mb(32, 49).bytes(), 32 << 20);
        // The check of 64-bit keys needs 24 bucket bits beside it.
        assert_eq!(Table::with_mb(1, 64).len(), 1 << 25);
        // No more buckets than keys.
        assert_eq!(Table::with_mb(64, 3).len(), 16);
    }

    #[test]
    fn the_least_size_is_what_the_smallest_request_gets() {
        for key_bits in [3, 42, 49, 58, 59, 60, 63, 64] {
            let least = Table::with_mb(0, key_bits).bytes().div_ceil(1 << 20);
            assert_eq!(Table::min_mb(key_bits), least, "{key_bits} bits");
        }
        // The widest keys (8x7, 4x15) need far more than a near table's size.
        assert_eq!(Table::min_mb(64), 256);
    }

    #[test]
    fn stores_and_merges_bounds() {
        let t = Table::with_mb(8, 49);
        assert_eq!(t.get(12345), None);
        t.put(12345, 9, -3, 5, Some(2));
        assert_eq!(
            t.get(12345),
            Some(Bounds {
                lower: -3,
                upper: 5,
                best: Some(2)
            })
        );
        t.put(12345, 9, 0, 7, None);
        assert_eq!(
            t.get(12345),
            Some(Bounds {
                lower: 0,
                upper: 5,
                best: Some(2)
            })
        );
        // The empty board's key is 0 and must still be storable.
        t.put(0, 0, -21, 21, None);
        assert_eq!(t.get(0).map(|b| (b.lower, b.upper)), Some((-21, 21)));
    }

    #[test]
    fn keys_sharing_a_bucket_are_told_apart() {
        for key_bits in [24, 49, 64] {
            let t = Table::with_mb(8, key_bits);
            let (b0, _) = t.slot(1);
            let mut same = (2u64..u64::MAX >> (64 - key_bits)).filter(|&k| t.slot(k).0 == b0);
            let (k2, k3) = (same.next().expect("a key"), same.next().expect("a key"));
            t.put(1, 1000, 1, 1, None);
            assert_eq!(t.get(k2), None);
            // Two positions share a bucket; the costlier one keeps its place.
            t.put(k2, 100, -2, -2, None);
            assert_eq!(t.get(1).map(|b| b.lower), Some(1), "{key_bits}");
            assert_eq!(t.get(k2).map(|b| b.lower), Some(-2));
            // A third, cheaper one replaces the second only.
            t.put(k3, 10, 3, 3, None);
            assert_eq!(t.get(1).map(|b| b.lower), Some(1));
            assert_eq!(t.get(k2), None);
            assert_eq!(t.get(k3).map(|b| b.lower), Some(3));
            // A costlier one takes the first place and pushes the first down.
            t.put(k2, 5000, -2, -2, None);
            assert_eq!(t.get(k2).map(|b| b.lower), Some(-2));
            assert_eq!(t.get(1).map(|b| b.lower), Some(1));
            assert_eq!(t.get(k3), None);
        }
    }

    #[test]
    fn clearing_forgets_through_every_generation() {
        // 64-bit keys in 2^24 buckets leave no generation bits at all;
        // 58-bit keys in 2^20 buckets leave two, so the fourth clear replaces
        // the memory.
        for key_bits in [64, 58, 49] {
            let mut t = Table::with_mb(16, key_bits);
            for round in 0..6 {
                assert_eq!(t.get(77), None, "{key_bits} bits, round {round}");
                t.put(77, 5, round, round, None);
                assert_eq!(t.get(77).map(|b| b.lower), Some(round));
                t.clear();
            }
        }
        let mut t = Table::with_mb(8, 49);
        t.put(5, 5, 0, 0, None);
        t.touch();
        assert!(t.get(5).is_some());
    }
}
