//! The transposition table of boards up to 128 bits: proven bounds by
//! exact key, one `u128` an entry, in buckets of two.
//!
//! As in the compiled sizes' [table](crate::solver::table), a key below
//! `2^layout_bits` is scrambled by an odd multiplier modulo
//! `2^layout_bits` (a bijection), the top bits of the product pick the
//! bucket and the rest is stored as the check: bucket and check give back
//! the whole key, so two positions are never mistaken for each other. The
//! check takes at most `128 - DATA_BITS` bits, so a table of a board of
//! `layout_bits` bits has at least `2^(layout_bits - 103)` buckets.
//!
//! An entry, from the top bit down:
//!
//! ```text
//!  127           25 24  19 18  14 13     7 6      0
//! +----------------+------+------+--------+--------+
//! | check          | work | move | lower  | upper  |
//! +----------------+------+------+--------+--------+
//! ```
//!
//! A bucket's two entries are kept as the compiled table keeps them: the
//! first holds the costliest entry (its work, the bit length of the
//! positions its search took), the second is always replaced, and an entry
//! found again is merged with what it held.
//!
//! Threads share the table, and no atomic store writes 128 bits, so an
//! entry is two atomic words: its low half, and its high half XOR the low
//! half. A read that sees halves of two different writes gets back a high
//! half that is neither's, so the check fails and the entry reads as empty,
//! rather than one position's check with another's bounds (for a check
//! that fits the low half, the high half must come back zero, and it does
//! only if both writes had the same low half, the same entry).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::mem::{ask_for_huge_pages, zeroed, TableError};
use crate::solver::table::Bounds;

/// Width of a stored bound, offset by [`SCORE_OFFSET`] so that a stored
/// field is never zero and an all-zero entry means "empty".
const SCORE_BITS: u32 = 7;
const SCORE_OFFSET: i32 = 64;
const LOWER_SHIFT: u32 = SCORE_BITS;
const MOVE_SHIFT: u32 = 2 * SCORE_BITS;
/// The best move's column plus one, 0 for none: 16 columns need 5 bits.
const MOVE_BITS: u32 = 5;
const WORK_SHIFT: u32 = MOVE_SHIFT + MOVE_BITS;
/// The bit length of the positions searched: up to 63.
const WORK_BITS: u32 = 6;
/// Bits beside the check.
const DATA_BITS: u32 = WORK_SHIFT + WORK_BITS;
const DATA_MASK: u128 = (1 << DATA_BITS) - 1;
const FIELD: u128 = (1 << SCORE_BITS) - 1;
/// Words of a bucket: two entries of two words.
const BUCKET_WORDS: usize = 4;
/// An odd multiplier with well-mixed bits (the 64-bit golden ratio, twice).
const SCRAMBLE: u128 = ((crate::rng::GOLDEN as u128) << 64) | crate::rng::GOLDEN as u128 | 1;

// Every score of a board of at most 128 cells fits a field beside its offset.
const _: () = assert!(64 < SCORE_OFFSET + 1 && 2 * SCORE_OFFSET <= 1 << SCORE_BITS);

/// A table of [`Bounds`] in buckets of two entries.
pub struct Table {
    /// Four words a bucket; each entry the low half, then the high half
    /// XOR the low.
    entries: Box<[AtomicU64]>,
    /// Bits of the layout: keys lie below `2^layout_bits`.
    layout_bits: u32,
    /// log2 of the number of buckets.
    index_bits: u32,
}

impl Table {
    /// A table of about `mb` mebibytes for keys below `2^layout_bits`, at
    /// least as large as the check needs and never more buckets than keys.
    pub fn with_mb(mb: usize, layout_bits: u32) -> Result<Table, TableError> {
        let wanted = mb.saturating_mul(1 << 20) / (BUCKET_WORDS * std::mem::size_of::<AtomicU64>());
        let bits = (usize::BITS - 1).saturating_sub(wanted.max(1).leading_zeros());
        let index_bits = bits.max(Self::min_index_bits(layout_bits)).min(layout_bits);
        let words = BUCKET_WORDS
            .checked_shl(index_bits)
            .ok_or(TableError::OutOfMemory { bytes: usize::MAX })?;
        let entries = zeroed::<AtomicU64>(words)?;
        // Not where the check's width raised the table (see
        // `ask_for_huge_pages`).
        if index_bits <= bits {
            ask_for_huge_pages(&entries);
        }
        Ok(Table {
            entries,
            layout_bits,
            index_bits,
        })
    }

    /// The fewest index bits for which the check fits beside the data.
    const fn min_index_bits(layout_bits: u32) -> u32 {
        layout_bits.saturating_sub(128 - DATA_BITS)
    }

    /// The memory the table takes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.entries)
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        for word in self.entries.iter_mut() {
            *word.get_mut() = 0;
        }
    }

    /// Starts loading the bucket of `key` into the cache.
    #[inline(always)]
    pub fn prefetch(&self, key: u128) {
        let (first, _) = self.slot(key);
        crate::mem::prefetch(self.entries.as_ptr().wrapping_add(first));
    }

    /// The first word of the bucket of `key`, and the check its entry carries.
    #[inline(always)]
    fn slot(&self, key: u128) -> (usize, u128) {
        let scrambled = if self.layout_bits == 128 {
            key.wrapping_mul(SCRAMBLE)
        } else {
            key.wrapping_mul(SCRAMBLE) & ((1 << self.layout_bits) - 1)
        };
        let check_bits = self.layout_bits - self.index_bits;
        let bucket = if self.index_bits == 0 {
            0
        } else {
            (scrambled >> check_bits) as usize
        };
        let check = if check_bits == 0 {
            0
        } else {
            scrambled & (u128::MAX >> (128 - check_bits))
        };
        (bucket * BUCKET_WORDS, check)
    }

    /// The entry whose first word is `at`.
    #[inline(always)]
    fn load(&self, at: usize) -> u128 {
        let low = self.entries[at].load(Ordering::Relaxed);
        let high = self.entries[at + 1].load(Ordering::Relaxed) ^ low;
        (high as u128) << 64 | low as u128
    }

    /// Writes `entry` at `at`.
    #[inline(always)]
    fn store(&self, at: usize, entry: u128) {
        let (low, high) = (entry as u64, (entry >> 64) as u64);
        self.entries[at].store(low, Ordering::Relaxed);
        self.entries[at + 1].store(high ^ low, Ordering::Relaxed);
    }

    /// What is known about the position of `key`, if anything.
    #[inline(always)]
    pub fn get(&self, key: u128) -> Option<Bounds> {
        let (first, check) = self.slot(key);
        let e = self.load(first);
        if holds(e, check) {
            return Some(unpack(e));
        }
        let e = self.load(first + 2);
        holds(e, check).then(|| unpack(e))
    }

    /// Records that the score of the position of `key` lies in
    /// `known.lower..=known.upper`, merging with what is already known
    /// about it; `work` is what finding it out cost (positions searched):
    /// the costliest entry of a bucket keeps its place.
    #[inline(always)]
    pub fn put(&self, key: u128, work: u64, known: Bounds) {
        debug_assert!(known.lower <= known.upper);
        let work = (u64::BITS - work.leading_zeros()).min((1 << WORK_BITS) - 1);
        let (deep, check) = self.slot(key);
        let any = deep + 2;
        let merged = |old: u128| {
            let was = unpack(old);
            let bounds = Bounds {
                lower: known.lower.max(was.lower),
                upper: known.upper.min(was.upper),
                best: known.best.or(was.best),
            };
            check << DATA_BITS | pack(work.max(work_of(old)), bounds)
        };
        let first = self.load(deep);
        if holds(first, check) {
            self.store(deep, merged(first));
            return;
        }
        let second = self.load(any);
        if holds(second, check) {
            self.store(any, merged(second));
            return;
        }
        let new = check << DATA_BITS | pack(work, known);
        if first & DATA_MASK == 0 {
            self.store(deep, new);
        } else if work >= work_of(first) {
            // The displaced entry still beats whatever the second one holds.
            self.store(any, first);
            self.store(deep, new);
        } else {
            self.store(any, new);
        }
    }
}

/// Whether the entry `e` is in use and is that of the position whose
/// check is `check`.
#[inline(always)]
fn holds(e: u128, check: u128) -> bool {
    e & DATA_MASK != 0 && e >> DATA_BITS == check
}

/// The data of an entry: its work, move and bounds.
#[inline(always)]
fn pack(work: u32, known: Bounds) -> u128 {
    let field = |score: i32| (score + SCORE_OFFSET) as u128;
    let best = known.best.map_or(0, |c| c as u128 + 1);
    (work as u128) << WORK_SHIFT
        | best << MOVE_SHIFT
        | field(known.lower) << LOWER_SHIFT
        | field(known.upper)
}

#[inline(always)]
fn work_of(e: u128) -> u32 {
    ((e >> WORK_SHIFT) & ((1 << WORK_BITS) - 1)) as u32
}

#[inline(always)]
fn unpack(e: u128) -> Bounds {
    let field = |shift: u32| ((e >> shift) & FIELD) as i32 - SCORE_OFFSET;
    let best = ((e >> MOVE_SHIFT) & ((1 << MOVE_BITS) - 1)) as usize;
    Bounds {
        lower: field(LOWER_SHIFT),
        upper: field(0),
        best: best.checked_sub(1),
    }
}

impl crate::solver::Store for Table {
    type Key = u128;

    #[inline(always)]
    fn prefetch(&self, key: u128) {
        Table::prefetch(self, key)
    }

    #[inline(always)]
    fn get(&self, key: u128) -> Option<Bounds> {
        Table::get(self, key)
    }

    #[inline(always)]
    fn put(&self, key: u128, work: u64, lower: i32, upper: i32, best: Option<usize>) {
        Table::put(self, key, work, Bounds { lower, upper, best })
    }

    fn try_with_mb(mb: usize, key_bits: u32) -> Result<Self, TableError> {
        Table::with_mb(mb, key_bits)
    }

    fn min_mb(key_bits: u32) -> usize {
        let bytes = (BUCKET_WORDS as u64 * std::mem::size_of::<AtomicU64>() as u64)
            << Self::min_index_bits(key_bits);
        bytes.div_ceil(1 << 20) as usize
    }

    fn touch(&mut self) {
        crate::mem::touch(&mut self.entries);
    }

    fn clear(&mut self) {
        Table::clear(self)
    }

    fn bytes(&self) -> usize {
        Table::bytes(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key whose scrambled value is `scrambled`: the multiplier's
    /// inverse modulo `2^128`, by Newton's iteration (an odd number is its
    /// own inverse to 3 bits, and each step doubles the bits).
    fn unscramble(scrambled: u128) -> u128 {
        let mut inverse = SCRAMBLE;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u128.wrapping_sub(SCRAMBLE.wrapping_mul(inverse)));
        }
        assert_eq!(SCRAMBLE.wrapping_mul(inverse), 1);
        scrambled.wrapping_mul(inverse)
    }

    #[test]
    fn keys_are_never_confused() {
        // A table far smaller than the keys, and keys crowded into a few
        // buckets (the scramble inverted), which evict one another: every
        // key reads back only what was stored for it, or nothing. (Spread
        // over the whole table, the 128-bit layout's gibibyte was written
        // page by page: seconds of the system's time for nothing more.)
        for layout_bits in [20, 64, 70, 105, 128] {
            let t = Table::with_mb(0, layout_bits).unwrap();
            assert!(t.index_bits >= Table::min_index_bits(layout_bits));
            let mut rng = crate::rng::Rng::new(layout_bits as u64);
            let mask = u128::MAX >> (128 - layout_bits);
            let check_bits = layout_bits - t.index_bits;
            let buckets = 1u128 << t.index_bits;
            let mut stored = Vec::new();
            let mut crowded = std::collections::HashSet::new();
            for i in 0..5000 {
                let random = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
                // The first, the last and six buckets between, two keys in
                // turn in each: the second's check the first's with its
                // top bit flipped, which only the whole check tells apart.
                let bucket = ((i / 2) % 8) as u128 * (buckets - 1) / 7;
                crowded.insert(bucket);
                let check = match (check_bits, stored.last()) {
                    (0, _) => 0,
                    (_, Some(&(previous, _))) if i % 2 == 1 => {
                        t.slot(previous).1 ^ 1 << (check_bits - 1)
                    }
                    _ => random & (u128::MAX >> (128 - check_bits)),
                };
                let key = unscramble(bucket << check_bits | check) & mask;
                assert_eq!(t.slot(key), (bucket as usize * BUCKET_WORDS, check));
                let known = Bounds {
                    lower: (i % 50) - 40,
                    upper: (i % 50) - 30,
                    best: Some((i % 16) as usize),
                };
                t.put(key, 0, known);
                assert_eq!(t.get(key), Some(known));
                assert_eq!(t.get(key ^ 1), None, "{layout_bits} {key:#x}");
                if let Some(&(previous, was)) = stored.last() {
                    let found = t.get(previous);
                    assert!(
                        found.is_none() || found == Some(was),
                        "{layout_bits} {previous:#x}"
                    );
                }
                stored.push((key, known));
            }
            // The latest bounds of each key (a small layout draws some
            // twice), newest first.
            let mut seen = std::collections::HashSet::new();
            let mut kept = 0;
            for (key, known) in stored.iter().rev() {
                if !seen.insert(*key) {
                    continue;
                }
                if let Some(found) = t.get(*key) {
                    assert_eq!(found, *known, "{layout_bits} {key:#x}");
                    kept += 1;
                }
            }
            // Two entries a bucket: the last key of each crowded bucket is there.
            assert!(kept >= crowded.len(), "{layout_bits}: {kept}");
        }
    }

    /// Whether the kernel was asked to back `entries` with huge pages: the
    /// flag `hg` of their mapping in `/proc/self/smaps`.
    #[cfg(target_os = "linux")]
    fn asked_for_huge_pages(entries: &[AtomicU64]) -> bool {
        let at = entries.as_ptr() as usize + std::mem::size_of_val(entries) / 2;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        // A mapping's lines follow its header, `FROM-TO perms ...` in hex.
        let range = |line: &str| {
            let (from, to) = line.split_whitespace().next()?.split_once('-')?;
            Some(usize::from_str_radix(from, 16).ok()?..usize::from_str_radix(to, 16).ok()?)
        };
        let mut inside = false;
        for line in smaps.lines() {
            if let Some(range) = range(line) {
                inside = range.contains(&at);
            } else if inside && line.starts_with("VmFlags:") {
                return line.split_whitespace().any(|f| f == "hg");
            }
        }
        panic!("no mapping holds the table");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_only_at_the_size_asked_for() {
        // 64 MiB asked on a 100-bit layout: that size.
        let asked = Table::with_mb(64, 100).unwrap();
        assert_eq!(asked.bytes(), 64 << 20);
        // A kernel without transparent huge pages refuses the request.
        let kernel_has_them = std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists();
        assert_eq!(asked_for_huge_pages(&asked.entries), kernel_has_them);
        // 16 MiB asked on a 128-bit layout: raised to 1 GiB, not asked.
        let raised = Table::with_mb(16, 128).unwrap();
        assert_eq!(raised.bytes(), 1 << 30);
        assert!(!asked_for_huge_pages(&raised.entries));
    }

    #[test]
    fn small_layouts_hold_every_key() {
        let mut t = Table::with_mb(64, 12).unwrap();
        assert_eq!(t.entries.len(), BUCKET_WORDS << 12);
        for key in 0..1u128 << 12 {
            t.put(
                key,
                1,
                Bounds {
                    lower: 1,
                    upper: 2,
                    best: None,
                },
            );
        }
        assert!((0..1u128 << 12).all(|k| t.get(k).is_some()));
        t.clear();
        assert_eq!(t.get(5), None);
    }

    #[test]
    fn a_bucket_keeps_the_costliest_and_merges_what_it_meets_again() {
        // A table of one bucket: every key shares it.
        let t = Table::with_mb(0, 103).unwrap();
        assert_eq!(t.index_bits, 0);
        let mask = u128::MAX >> (128 - 103);
        let mut rng = crate::rng::Rng::new(9);
        let mut key = || (((rng.next_u64() as u128) << 64) | rng.next_u64() as u128) & mask;
        let (a, b, c) = (key(), key(), key());
        let bounds = |lower, upper| Bounds {
            lower,
            upper,
            best: None,
        };
        t.put(a, 1 << 20, bounds(-5, 5));
        t.put(b, 10, bounds(0, 3));
        assert_eq!(t.get(a), Some(bounds(-5, 5)));
        assert_eq!(t.get(b), Some(bounds(0, 3)));
        // Cheaper than the first entry: it takes the second's place.
        t.put(c, 100, bounds(1, 1));
        assert_eq!(
            (t.get(a).is_some(), t.get(b), t.get(c)),
            (true, None, Some(bounds(1, 1)))
        );
        // Found again: merged, not replaced.
        t.put(a, 1, bounds(2, 9));
        assert_eq!(t.get(a), Some(bounds(2, 5)));
        // Costlier: the first place, the old first moves to the second.
        t.put(b, 1 << 30, bounds(-1, -1));
        assert_eq!(
            (t.get(b), t.get(a), t.get(c)),
            (Some(bounds(-1, -1)), Some(bounds(2, 5)), None)
        );
    }
}
