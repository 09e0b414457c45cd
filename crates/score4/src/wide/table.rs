//! The transposition table of boards up to 128 bits: proven bounds by
//! exact key, in buckets of two entries.
//!
//! A key of at most `LOW_CHECK_BITS` bits (a board of `W * (H + 1) <=
//! 103`, 7x9, 6x11, 6x12 and 4x19 among them) is its own check: its entry
//! holds the whole key beside the data, and a hash of the key picks the
//! bucket, a few multiplications of `u64`s. A wider key is scrambled, as
//! in the compiled sizes' [table](crate::solver::table), by an odd
//! multiplier modulo `2^layout_bits` (a bijection), the top bits of the
//! product pick the bucket and the rest is stored as the check, which with
//! the bucket gives back the whole key. Either way two positions are never
//! mistaken for each other. (The scramble costs shifts of `u128`s by
//! amounts known only at run time, several instructions each on x86-64:
//! the whole key spares them where it fits.)
//!
//! An entry is two words, from the top bit down:
//!
//! ```text
//!  127           25 24  19 18  14 13     7 6      0
//! +----------------+------+------+--------+--------+
//! | check          | work | move | lower  | upper  |
//! +----------------+------+------+--------+--------+
//! ```
//!
//! That leaves the check `LOW_CHECK_BITS` bits, which a table of at least
//! `2^(layout_bits - LOW_CHECK_BITS)` buckets needs no more of. A smaller
//! table of the widest boards gives each entry a third word, the check's
//! bits above those ([`Table::with_mb`] picks): its buckets are half as
//! large again, but the table keeps to the size its caller asked for, not
//! one raised to a size that a short question barely touches.
//!
//! A bucket's two entries are kept as the compiled table keeps them: the
//! first holds the costliest entry (its work, the bit length of the
//! positions its search took), the second is always replaced, and an entry
//! found again is merged with what it held.
//!
//! Threads share the table, and no atomic store writes 128 bits, so an
//! entry is two atomic words: its low half, and its high half XOR the low
//! half. A read that sees halves of two different writes gets back a high
//! half that is neither's, so neither writer's key reads the other's
//! bounds: the check fails and the entry reads as empty (for a check that
//! fits the low half, the high half must come back zero, and it does only
//! if both writes had the same low half, the same entry). A third word is
//! kept XOR the low half too, and read back the same way. What such a read
//! decodes is a third key, which would read those bounds only if it were
//! the very key being looked up in that bucket at that moment, differing
//! from the writers' in just the bits the two writes' data differ in: a
//! chance this table, as any table of unlocked entries, leaves.

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
/// Bits of the check an entry's two words hold; a third holds the rest.
const LOW_CHECK_BITS: u32 = 128 - DATA_BITS;
const LOW_CHECK_MASK: u128 = (1 << LOW_CHECK_BITS) - 1;
/// Entries of a bucket.
const BUCKET_ENTRIES: usize = 2;
/// Bytes of a cache line, where the buckets start.
const CACHE_LINE: usize = 64;
/// An odd multiplier with well-mixed bits (the 64-bit golden ratio, twice).
const SCRAMBLE: u128 = ((crate::rng::GOLDEN as u128) << 64) | crate::rng::GOLDEN as u128 | 1;
/// Odd multipliers that hash a whole key's two halves: each a bijection of
/// its half whose top bits depend on every bit of it. Any odd constants
/// with well-mixed bits do; two different ones keep a key's halves from
/// cancelling when they are equal (the golden ratio, and an odd constant
/// drawn at random once).
const MIX_LOW: u64 = crate::rng::GOLDEN;
const MIX_HIGH: u64 = 0xD6E8_FEB8_6659_FD93;

// Every score of a board of at most 128 cells fits a field beside its offset.
const _: () = assert!(64 < SCORE_OFFSET + 1 && 2 * SCORE_OFFSET <= 1 << SCORE_BITS);
// A check of a 128-bit layout in a table of one bucket fits three words.
const _: () = assert!(128 - LOW_CHECK_BITS <= u64::BITS);

/// A table of [`Bounds`] in buckets of two entries.
pub struct Table {
    /// The buckets, of two entries; each entry its low word,
    /// then its high word XOR the low, then (in entries of three words)
    /// the check's top bits XOR the low.
    entries: Box<[AtomicU64]>,
    /// The words of `entries` before the first bucket.
    start: usize,
    /// Bits of the layout: keys lie below `2^layout_bits`.
    layout_bits: u32,
    /// log2 of the number of buckets.
    index_bits: u32,
    /// `2^index_bits`, which a whole key's hash is scaled by.
    buckets: u64,
    /// Whether an entry holds its whole key (a layout of at most
    /// [`LOW_CHECK_BITS`] bits) rather than a scrambled key's check.
    whole_key: bool,
    /// Words an entry takes: 2, or 3 where the check is wider than
    /// [`LOW_CHECK_BITS`].
    entry_words: usize,
}

/// An entry as read: check and data in `bits`, the check's bits above
/// [`LOW_CHECK_BITS`] in `top` (always 0 in entries of two words).
#[derive(Clone, Copy)]
struct Entry {
    bits: u128,
    top: u64,
}

/// What a key's entry must carry: its check, split as [`Entry`] keeps it.
#[derive(Clone, Copy)]
struct Check {
    low: u128,
    top: u64,
}

impl Table {
    /// A table of about `mb` mebibytes for keys below `2^layout_bits`, of
    /// at least one bucket and never more buckets than keys: entries of two
    /// words where their check fits them at that size, of three otherwise.
    pub fn with_mb(mb: usize, layout_bits: u32) -> Result<Table, TableError> {
        let buckets_of = |entry_words: usize| {
            let bucket_bytes = BUCKET_ENTRIES * entry_words * std::mem::size_of::<AtomicU64>();
            let wanted = mb.saturating_mul(1 << 20) / bucket_bytes;
            let bits = (usize::BITS - 1).saturating_sub(wanted.max(1).leading_zeros());
            bits.min(layout_bits)
        };
        let whole_key = layout_bits <= LOW_CHECK_BITS;
        let (entry_words, index_bits) = match buckets_of(2) {
            bits if layout_bits - bits <= LOW_CHECK_BITS => (2, bits),
            _ => (3, buckets_of(3)),
        };
        let words = (BUCKET_ENTRIES * entry_words)
            .checked_shl(index_bits)
            .ok_or(TableError::OutOfMemory { bytes: usize::MAX })?;
        // The allocator gives a large block 16 bytes past a cache line's
        // start, where every other bucket of 32 bytes would straddle two
        // lines: the buckets start at the first line's start instead.
        let line = CACHE_LINE / std::mem::size_of::<AtomicU64>();
        let entries = zeroed::<AtomicU64>(words + line - 1)?;
        let start = entries.as_ptr().align_offset(CACHE_LINE).min(line - 1);
        ask_for_huge_pages(&entries);
        Ok(Table {
            entries,
            start,
            layout_bits,
            index_bits,
            // Fewer buckets than bytes of memory: below 2^64.
            buckets: 1 << index_bits,
            whole_key,
            entry_words,
        })
    }

    /// The memory the table takes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.used())
    }

    /// The words of the buckets.
    fn used(&self) -> &[AtomicU64] {
        let words = (BUCKET_ENTRIES * self.entry_words) << self.index_bits;
        &self.entries[self.start..self.start + words]
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
        let bucket = if self.whole_key {
            self.bucket_of_whole(key)
        } else {
            self.slot::<2, false>(key).0
        };
        let words = BUCKET_ENTRIES * self.entry_words;
        let first = self
            .entries
            .as_ptr()
            .wrapping_add(self.start + bucket * words);
        crate::mem::prefetch(first);
        // A bucket of three-word entries (48 bytes) crosses into a second
        // cache line every other time; one of two words never does, and
        // a second prefetch of its line costs less than a branch.
        crate::mem::prefetch(first.wrapping_add(words - 1));
    }

    /// The first word of `bucket`, of entries of `W` words.
    #[inline(always)]
    fn first_word<const W: usize>(bucket: usize) -> usize {
        bucket * BUCKET_ENTRIES * W
    }

    /// What is known about the position of `key`, if anything.
    #[inline(always)]
    pub fn get(&self, key: u128) -> Option<Bounds> {
        // Each form of entry compiled apart: the common one, of two
        // words holding the whole key, costs no more than it did alone.
        if self.whole_key {
            self.get_in::<2, true>(key)
        } else if self.entry_words == 2 {
            self.get_in::<2, false>(key)
        } else {
            self.get_in::<3, false>(key)
        }
    }

    /// Records that the score of the position of `key` lies in
    /// `known.lower..=known.upper`, merging with what is already known
    /// about it; `work` is what finding it out cost (positions searched):
    /// the costliest entry of a bucket keeps its place.
    #[inline(always)]
    pub fn put(&self, key: u128, work: u64, known: Bounds) {
        debug_assert!(known.lower <= known.upper);
        if self.whole_key {
            self.put_in::<2, true>(key, work, known)
        } else if self.entry_words == 2 {
            self.put_in::<2, false>(key, work, known)
        } else {
            self.put_in::<3, false>(key, work, known)
        }
    }

    /// The bucket of a key that is its own check: the top bits of a hash
    /// of its halves, as many as the buckets need (a multiplication's
    /// high word, which takes no branch for a table of one bucket).
    #[inline(always)]
    fn bucket_of_whole(&self, key: u128) -> usize {
        let hash = (key as u64).wrapping_mul(MIX_LOW) ^ ((key >> 64) as u64).wrapping_mul(MIX_HIGH);
        ((hash as u128 * self.buckets as u128) >> 64) as usize
    }

    /// The bucket of `key`, and the check its entry of `W` words carries:
    /// the key itself if `WHOLE`.
    #[inline(always)]
    fn slot<const W: usize, const WHOLE: bool>(&self, key: u128) -> (usize, Check) {
        // A key past its layout would lose bits beside the data.
        debug_assert_eq!(key.checked_shr(self.layout_bits).unwrap_or(0), 0);
        if WHOLE {
            return (self.bucket_of_whole(key), Check { low: key, top: 0 });
        }
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
        let check = if W == 2 {
            Check { low: check, top: 0 }
        } else {
            Check {
                low: check & LOW_CHECK_MASK,
                top: (check >> LOW_CHECK_BITS) as u64,
            }
        };
        (bucket, check)
    }

    /// The entry of `W` words whose first word is `at`.
    #[inline(always)]
    fn load<const W: usize>(&self, at: usize) -> Entry {
        let low = self.entries[at].load(Ordering::Relaxed);
        let high = self.entries[at + 1].load(Ordering::Relaxed) ^ low;
        let top = if W == 3 {
            self.entries[at + 2].load(Ordering::Relaxed) ^ low
        } else {
            0
        };
        Entry {
            bits: (high as u128) << 64 | low as u128,
            top,
        }
    }

    /// Writes `entry`, of `W` words, at `at`.
    #[inline(always)]
    fn store<const W: usize>(&self, at: usize, entry: Entry) {
        let (low, high) = (entry.bits as u64, (entry.bits >> 64) as u64);
        self.entries[at].store(low, Ordering::Relaxed);
        self.entries[at + 1].store(high ^ low, Ordering::Relaxed);
        if W == 3 {
            self.entries[at + 2].store(entry.top ^ low, Ordering::Relaxed);
        }
    }

    #[inline(always)]
    fn get_in<const W: usize, const WHOLE: bool>(&self, key: u128) -> Option<Bounds> {
        let (bucket, check) = self.slot::<W, WHOLE>(key);
        let first = self.start + Self::first_word::<W>(bucket);
        let e = self.load::<W>(first);
        if holds::<W>(e, check) {
            return Some(unpack(e.bits));
        }
        let e = self.load::<W>(first + W);
        holds::<W>(e, check).then(|| unpack(e.bits))
    }

    #[inline(always)]
    fn put_in<const W: usize, const WHOLE: bool>(&self, key: u128, work: u64, known: Bounds) {
        let work = (u64::BITS - work.leading_zeros()).min((1 << WORK_BITS) - 1);
        let (bucket, check) = self.slot::<W, WHOLE>(key);
        let deep = self.start + Self::first_word::<W>(bucket);
        let any = deep + W;
        let entry = |work: u32, bounds: Bounds| Entry {
            bits: check.low << DATA_BITS | pack(work, bounds),
            top: check.top,
        };
        let merged = |old: Entry| {
            let was = unpack(old.bits);
            let bounds = Bounds {
                lower: known.lower.max(was.lower),
                upper: known.upper.min(was.upper),
                best: known.best.or(was.best),
            };
            entry(work.max(work_of(old.bits)), bounds)
        };
        let first = self.load::<W>(deep);
        if holds::<W>(first, check) {
            self.store::<W>(deep, merged(first));
            return;
        }
        let second = self.load::<W>(any);
        if holds::<W>(second, check) {
            self.store::<W>(any, merged(second));
            return;
        }
        let new = entry(work, known);
        if first.bits & DATA_MASK == 0 {
            self.store::<W>(deep, new);
        } else if work >= work_of(first.bits) {
            // The displaced entry still beats whatever the second one holds.
            self.store::<W>(any, first);
            self.store::<W>(deep, new);
        } else {
            self.store::<W>(any, new);
        }
    }
}

/// Whether the entry `e`, of `W` words, is in use and is that of the
/// position whose check is `check`.
#[inline(always)]
fn holds<const W: usize>(e: Entry, check: Check) -> bool {
    e.bits & DATA_MASK != 0 && e.bits >> DATA_BITS == check.low && (W == 2 || e.top == check.top)
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

    /// Any size: a small table of a wide board takes entries of three words.
    fn min_mb(_: u32) -> usize {
        1
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

    /// The inverse of the odd `m` modulo `2^128` (and so, its low half,
    /// of its low half modulo `2^64`), by Newton's iteration: an odd number
    /// is its own inverse to 3 bits, and each step doubles the bits.
    fn inverse_of(m: u128) -> u128 {
        let mut inverse = m;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u128.wrapping_sub(m.wrapping_mul(inverse)));
        }
        assert_eq!(m.wrapping_mul(inverse), 1);
        inverse
    }

    /// The key whose scrambled value is `scrambled`.
    fn unscramble(scrambled: u128) -> u128 {
        scrambled.wrapping_mul(inverse_of(SCRAMBLE))
    }

    /// The key in `bucket` of a table of whole keys that is `near` but for
    /// the top `index_bits` bits of its low half: multiplying by the odd
    /// `MIX_LOW` leaves the bits below those as they are, and moves the
    /// top ones by a bijection, which is inverted. Any key of a table of
    /// one bucket; a key of 65 bits or more otherwise (its top bits free).
    fn whole_key_in(t: &Table, bucket: u128, near: u128) -> u128 {
        if t.index_bits == 0 {
            return near;
        }
        let inverse = inverse_of(MIX_LOW as u128) as u64;
        assert_eq!(MIX_LOW.wrapping_mul(inverse), 1);
        let (high, low) = ((near >> 64) as u64, near as u64);
        let shift = 64 - t.index_bits;
        let want = bucket as u64 ^ high.wrapping_mul(MIX_HIGH) >> shift;
        let have = low.wrapping_mul(MIX_LOW) >> shift;
        let step = want.wrapping_sub(have).wrapping_mul(inverse) & ((1 << t.index_bits) - 1);
        (high as u128) << 64 | low.wrapping_add(step << shift) as u128
    }

    /// The bucket of a key, and the whole check its entry carries.
    fn slot(t: &Table, key: u128) -> (usize, u128) {
        let (bucket, check) = match (t.whole_key, t.entry_words) {
            (true, _) => t.slot::<2, true>(key),
            (false, 2) => t.slot::<2, false>(key),
            _ => t.slot::<3, false>(key),
        };
        (bucket, (check.top as u128) << LOW_CHECK_BITS | check.low)
    }

    #[test]
    fn keys_are_never_confused() {
        // Tables far smaller than the keys, of both entries, and keys
        // crowded into a few buckets (the scramble or the hash inverted), which evict
        // one another: every key reads back only what was stored for it,
        // or nothing. (Crowded, a table of a gibibyte costs the pages of
        // eight buckets, not the whole table's.)
        for (layout_bits, mb, entry_words) in [
            (20, 0, 2),
            (64, 0, 2),
            (70, 0, 2),
            (70, 1, 2),
            (103, 0, 2),
            (103, 1024, 2),
            (104, 0, 3),
            (105, 1, 2),
            (128, 0, 3),
            (128, 1, 3),
            (128, 1024, 2),
        ] {
            let t = Table::with_mb(mb, layout_bits).unwrap();
            assert_eq!(t.entry_words, entry_words, "{layout_bits} bits, {mb} MiB");
            let mut rng = crate::rng::Rng::new(layout_bits as u64);
            let mask = u128::MAX >> (128 - layout_bits);
            assert_eq!(t.whole_key, layout_bits <= LOW_CHECK_BITS);
            // A whole key is all check.
            let check_bits = match t.whole_key {
                true => layout_bits,
                false => layout_bits - t.index_bits,
            };
            let buckets = 1u128 << t.index_bits;
            let mut stored = Vec::new();
            let mut crowded = std::collections::HashSet::new();
            for i in 0..5000 {
                let random = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
                // The first, the last and six buckets between, two keys in
                // turn in each: the second's check the first's with one
                // bit flipped, which only the whole check tells apart: its
                // top bit, or the top bit of its first two words. (A whole
                // key's pair differs from it in its top bit, and in the top
                // bits of its low half that keep it in the same bucket.)
                let bucket = ((i / 2) % 8) as u128 * (buckets - 1) / 7;
                crowded.insert(bucket);
                let flip = match i % 4 {
                    1 => check_bits.saturating_sub(1),
                    _ => check_bits.min(LOW_CHECK_BITS).saturating_sub(1),
                };
                let check = match (check_bits, stored.last()) {
                    (0, _) => 0,
                    (_, Some(&(previous, _))) if i % 2 == 1 => slot(&t, previous).1 ^ 1 << flip,
                    _ => random & (u128::MAX >> (128 - check_bits)),
                };
                // (A table of one bucket: index 0, a check of 128 bits.)
                let key = match t.whole_key {
                    true => whole_key_in(&t, bucket, check),
                    false => unscramble(bucket.checked_shl(check_bits).unwrap_or(0) | check) & mask,
                };
                let check = if t.whole_key { key } else { check };
                assert_eq!(slot(&t, key), (bucket as usize, check));
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

    #[test]
    fn buckets_start_at_a_cache_line() {
        for (layout_bits, mb) in [(20, 0), (100, 1), (100, 64), (128, 1), (128, 64)] {
            let t = Table::with_mb(mb, layout_bits).unwrap();
            assert_eq!(
                t.used().as_ptr() as usize % CACHE_LINE,
                0,
                "{layout_bits} {mb}"
            );
        }
    }

    #[test]
    fn tables_keep_to_the_size_asked_for() {
        // Entries of two words wherever their check fits, of three (a
        // bucket of 48 bytes) otherwise, which a power of two of them
        // fills to three quarters.
        for layout_bits in [49, 70, 100, 103, 104, 112, 126, 128] {
            for mb in [1, 4, 16, 64, 256, 1024] {
                let t = Table::with_mb(mb, layout_bits).unwrap();
                let two = layout_bits - t.index_bits <= LOW_CHECK_BITS;
                assert_eq!(t.entry_words, if two { 2 } else { 3 });
                let asked = mb << 20;
                let least = if two { asked / 2 } else { asked * 3 / 8 };
                assert!(
                    t.bytes() <= asked && t.bytes() > least,
                    "{layout_bits} {mb}"
                );
            }
        }
        // Where two words start to fit: a check of at most
        // `LOW_CHECK_BITS` bits beside the index.
        for (layout_bits, mb, entry_words, index_bits) in [
            (128, 1024, 2, 25),
            (128, 512, 3, 23),
            (124, 64, 2, 21),
            (125, 64, 3, 20),
            (104, 0, 3, 0),
            (104, 1, 2, 15),
        ] {
            let t = Table::with_mb(mb, layout_bits).unwrap();
            assert_eq!((t.entry_words, t.index_bits), (entry_words, index_bits));
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn tables_ask_for_huge_pages() {
        // A kernel without transparent huge pages refuses the request.
        let kernel_has_them = std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists();
        for layout_bits in [100, 128] {
            let t = Table::with_mb(16, layout_bits).unwrap();
            assert_eq!(asked_for_huge_pages(&t.entries), kernel_has_them);
        }
    }

    #[test]
    fn an_entry_torn_between_two_writes_reads_as_none() {
        // What a thread may read while another rewrites the entry: some
        // words of one write, the rest of another. Keys in pairs whose
        // checks differ only in their top bit (in the last word), each key
        // with bounds of its own: every mix must read as no entry, not as
        // one key's check with the other's bounds.
        for (layout_bits, entry_words) in [(100, 2), (128, 3)] {
            let t = Table::with_mb(0, layout_bits).unwrap();
            assert_eq!((t.entry_words, t.index_bits), (entry_words, 0));
            let mut rng = crate::rng::Rng::new(layout_bits as u64);
            let mask = u128::MAX >> (128 - layout_bits);
            let words = |t: &Table| -> Vec<u64> {
                (0..entry_words)
                    .map(|w| t.used()[w].load(Ordering::Relaxed))
                    .collect()
            };
            for pair in 0..20 {
                let check = (((rng.next_u64() as u128) << 64) | rng.next_u64() as u128) & mask;
                let keys = [check, check ^ 1 << (layout_bits - 1)].map(|c| match t.whole_key {
                    true => c,
                    false => unscramble(c) & mask,
                });
                let bounds = |i: i32| Bounds {
                    lower: pair - 20 + i,
                    upper: pair + i,
                    best: None,
                };
                let written: Vec<Vec<u64>> = (0..2)
                    .map(|i| {
                        t.used().iter().for_each(|w| w.store(0, Ordering::Relaxed));
                        t.put(keys[i], 1, bounds(i as i32));
                        words(&t)
                    })
                    .collect();
                // Each mix: bit w of `from_second` takes word w from the second write.
                for from_second in 1..(1 << entry_words) - 1 {
                    for (w, word) in t.used()[..entry_words].iter().enumerate() {
                        word.store(written[from_second >> w & 1][w], Ordering::Relaxed);
                    }
                    assert_eq!(t.get(keys[0]), None, "{layout_bits} {pair} {from_second:b}");
                    assert_eq!(t.get(keys[1]), None, "{layout_bits} {pair} {from_second:b}");
                }
            }
        }
    }

    #[test]
    fn small_layouts_spread_their_keys() {
        // A table of as many buckets as keys: a hash is no bijection, but
        // every key reads back its own bounds or nothing, and buckets of
        // two entries keep most keys (a random spread loses about a tenth).
        let mut t = Table::with_mb(64, 12).unwrap();
        assert_eq!(t.used().len(), 4 << 12);
        let bounds = |key: u128| Bounds {
            lower: (key % 60) as i32 - 40,
            upper: (key % 60) as i32 - 30,
            best: Some((key % 16) as usize),
        };
        for key in 0..1u128 << 12 {
            t.put(key, 1, bounds(key));
        }
        let mut kept = 0;
        for key in 0..1u128 << 12 {
            if let Some(found) = t.get(key) {
                assert_eq!(found, bounds(key), "{key}");
                kept += 1;
            }
        }
        assert!(kept > (1 << 12) * 85 / 100, "{kept}");
        t.clear();
        assert_eq!(t.get(5), None);
    }

    #[test]
    fn whole_keys_spread_by_either_half() {
        // Keys that differ in only one half, 4,096 of them in 32,768
        // buckets: a bucket that ignored either half would crowd them all
        // into one.
        let t = Table::with_mb(1, 80).unwrap();
        assert!(t.whole_key && t.index_bits == 15);
        let base = 0x1234_9ABC_DEF0_1234_5678u128;
        let bounds = Bounds {
            lower: -3,
            upper: 4,
            best: None,
        };
        for half in [0, 64] {
            let keys: Vec<u128> = (0..4096u128).map(|i| base ^ i << half).collect();
            let buckets: std::collections::HashSet<usize> =
                keys.iter().map(|&k| t.bucket_of_whole(k)).collect();
            assert!(buckets.len() > 3700, "{half}: {}", buckets.len());
            for &key in &keys {
                t.put(key, 1, bounds);
            }
            let kept = keys.iter().filter(|&&k| t.get(k) == Some(bounds)).count();
            assert!(kept > 4000, "{half}: {kept}");
        }
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
