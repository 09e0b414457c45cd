//! The solver's transposition table: proven score bounds per position.
//!
//! One entry is one `u64`, so a table of `n` entries costs `8n` bytes and a
//! read or write can never be torn, even if several threads share the
//! table through relaxed atomics.
//!
//! Keys of a board with `W * (H + 1)` bits per key fit in `key_bits` bits.
//! They are scrambled by multiplying with an odd constant modulo
//! `2^key_bits`, a bijection on those keys. The top `bits` of the product
//! pick the slot and the remaining low bits are stored as the check, so slot
//! plus check give back the whole product and hence the whole key: two
//! different positions can share a slot but are never mistaken for each
//! other, on any board size.
//!
//! An entry, from the top: a generation, the check, and [`DATA_BITS`] of
//! data (lower bound, upper bound, best move). Clearing the table bumps the
//! generation, which makes every older entry unreadable without touching
//! memory; only when the generations run out is the memory replaced.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bits of an entry that hold the bounds and the move.
const DATA_BITS: u32 = 20;
/// Bits left for the check and the generation.
const TAG_BITS: u32 = 64 - DATA_BITS;
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
    /// Index bits: the table has `2^bits` entries.
    bits: u32,
    /// Width of the keys stored.
    key_bits: u32,
    /// Key bits kept in each entry beside the index.
    check_bits: u32,
    /// The largest generation that fits beside the check.
    last_generation: u64,
    /// Tags written now carry this generation.
    generation: u64,
    /// Whether huge pages were already asked for this memory.
    huge: bool,
}

impl Table {
    /// A table of about `mb` mebibytes for keys below `2^key_bits`: the
    /// largest power-of-two number of entries that fits, at least enough
    /// for the check to fit beside the data, and never more than there are
    /// keys.
    ///
    /// The memory comes zeroed from the allocator, so pages the search
    /// never touches cost nothing.
    pub fn with_mb(mb: usize, key_bits: u32) -> Self {
        assert!((1..=64).contains(&key_bits), "keys are 1 to 64 bits wide");
        let entries = (mb.max(1) as u64) << 20 >> 3;
        let bits = (63 - entries.leading_zeros())
            .max(key_bits.saturating_sub(TAG_BITS))
            .min(MAX_BITS)
            .min(key_bits);
        let check_bits = key_bits - bits;
        let generation_bits = TAG_BITS - check_bits;
        Table {
            entries: zeroed(1usize << bits),
            bits,
            key_bits,
            check_bits,
            last_generation: if generation_bits >= 63 {
                u64::MAX >> 1
            } else {
                (1u64 << generation_bits) - 1
            },
            generation: 0,
            huge: false,
        }
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

    /// Forgets everything, in constant time while generations last.
    pub fn clear(&mut self) {
        if self.generation < self.last_generation {
            self.generation += 1;
        } else {
            // Handing the old memory back and asking for fresh zeroed pages
            // is far cheaper than writing zeros over a large table.
            self.entries = zeroed(0);
            self.entries = zeroed(1usize << self.bits);
            self.generation = 0;
            self.huge = false;
        }
    }

    /// Asks the kernel to back the table with huge pages from now on.
    ///
    /// Every probe lands on a random entry, so with 4 KiB pages nearly every
    /// probe of a large table also misses the TLB; 2 MiB pages make the page
    /// walks rare. But a huge page is zeroed whole on first touch, which
    /// does not pay while the search touches few entries: the solver asks
    /// only once it has searched enough to fill much of the table.
    pub fn use_huge_pages(&mut self) {
        if !self.huge {
            self.huge = true;
            ask_for_huge_pages(&self.entries);
        }
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(SCRAMBLE) & (u64::MAX >> (64 - self.key_bits));
        let index = (h >> self.check_bits) as usize;
        let check = h & !(u64::MAX << self.check_bits);
        (index, self.generation << self.check_bits | check)
    }

    /// Starts loading the entry of `key` into the cache, so that a later
    /// [`get`](Self::get) does not wait for memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let (index, _) = self.slot(key);
            let entry: *const AtomicU64 = &self.entries[index];
            // SAFETY: prefetching is only a hint and never faults; SSE is
            // part of every x86_64 target.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(entry.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The bounds stored for `key`, if any.
    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let (index, tag) = self.slot(key);
        let e = self.entries[index].load(Ordering::Relaxed);
        // A zeroed entry can match the tag 0, but stored data is never zero.
        (e != 0 && e >> DATA_BITS == tag).then(|| unpack(e))
    }

    /// Records that the score of `key` lies in `lower..=upper`, merging with
    /// what is already known about the same position.
    #[inline(always)]
    pub fn put(&self, key: u64, mut lower: i32, mut upper: i32, best: Option<usize>) {
        let (index, tag) = self.slot(key);
        let slot = &self.entries[index];
        let old = slot.load(Ordering::Relaxed);
        let mut best = best;
        if old != 0 && old >> DATA_BITS == tag {
            let known = unpack(old);
            lower = lower.max(known.lower);
            upper = upper.min(known.upper);
            best = best.or(known.best);
        }
        slot.store(
            tag << DATA_BITS | pack(lower, upper, best),
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

/// A request only: where the kernel declines, nothing changes.
#[cfg(target_os = "linux")]
fn ask_for_huge_pages(entries: &[AtomicU64]) {
    const HUGE: usize = 2 << 20;
    let start = entries.as_ptr() as usize;
    let end = start + std::mem::size_of_val(entries);
    // madvise wants page-aligned ranges, and only whole huge pages can be huge.
    let first = start.next_multiple_of(HUGE);
    let last = end / HUGE * HUGE;
    if last > first {
        // SAFETY: the range lies inside memory this table owns, and
        // MADV_HUGEPAGE changes how it is backed, never its contents.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn ask_for_huge_pages(_: &[AtomicU64]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_powers_of_two_within_limits() {
        assert_eq!(Table::with_mb(0, 49).len(), 1 << 17);
        assert_eq!(Table::with_mb(16, 49).len(), 1 << 21);
        assert_eq!(Table::with_mb(24, 49).len(), 1 << 21);
        assert_eq!(Table::with_mb(32, 49).bytes(), 32 << 20);
        // The check of 64-bit keys needs at least 20 index bits beside it.
        assert_eq!(Table::with_mb(1, 64).len(), 1 << 20);
        // No more entries than keys.
        assert_eq!(Table::with_mb(64, 3).len(), 8);
    }

    #[test]
    fn stores_and_merges_bounds() {
        let t = Table::with_mb(8, 49);
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
        for key_bits in [24, 49, 64] {
            let t = Table::with_mb(8, key_bits);
            let (i0, _) = t.slot(1);
            let other = (2u64..u64::MAX >> (64 - key_bits))
                .find(|&k| t.slot(k).0 == i0)
                .expect("some key shares the slot");
            t.put(1, 1, 1, None);
            assert_eq!(t.get(other), None);
            t.put(other, -2, -2, None);
            assert_eq!(t.get(1), None, "always replace");
            assert_eq!(t.get(other).map(|b| b.lower), Some(-2));
        }
    }

    #[test]
    fn clearing_forgets_through_every_generation() {
        // 64-bit keys in 2^20 entries leave no generation bits at all;
        // 62-bit keys leave two, so the fourth clear replaces the memory.
        for key_bits in [64, 62, 49] {
            let mut t = Table::with_mb(8, key_bits);
            for round in 0..6 {
                assert_eq!(t.get(77), None, "{key_bits} bits, round {round}");
                t.put(77, round, round, None);
                assert_eq!(t.get(77).map(|b| b.lower), Some(round));
                t.clear();
            }
        }
        let mut t = Table::with_mb(8, 49);
        t.use_huge_pages();
        t.put(5, 0, 0, None);
        assert!(t.get(5).is_some());
    }
}
