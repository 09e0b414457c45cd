//! The obviously correct model the solver's parts are tested against
//! inside this crate (the test crates share the same model through the
//! test kit, which cannot be used from here: its positions are another
//! build's type).

use crate::position::Position;

/// Scores remembered by position key. ahash rather than SipHash: the
/// walks over every position of a small board spend most of their time
/// hashing keys, and nothing here needs resistance to chosen keys.
pub(crate) type Memo = ahash::AHashMap<u64, i32>;

/// Calls `f` once on every position reachable on a `W`x`H` board from the
/// empty one, finished games left out.
pub(crate) fn for_each_position<const W: usize, const H: usize>(
    mut f: impl FnMut(&Position<W, H>),
) {
    // Level by level, each level sorted and deduplicated by key: a
    // sequential sort is several times faster than a hash set of every
    // position, whose inserts miss the cache once the set outgrows it.
    let mut level = vec![Position::<W, H>::new()];
    while !level.is_empty() {
        let mut next = Vec::with_capacity(level.len() * W);
        for p in &level {
            f(p);
            for col in p.playable_columns() {
                let child = p.after(col);
                if !child.is_game_over() {
                    next.push(child);
                }
            }
        }
        next.sort_unstable_by_key(|p| p.key());
        next.dedup_by_key(|p| p.key());
        level = next;
    }
}

/// The exact score of `p` by trying every continuation, remembered by key:
/// no pruning, no bounds, nothing but the rules and the score convention.
pub(crate) fn plain_negamax<const W: usize, const H: usize>(
    p: &Position<W, H>,
    memo: &mut Memo,
) -> i32 {
    if let Some(&s) = memo.get(&p.key()) {
        return s;
    }
    let n = p.moves_played();
    let mut best = i32::MIN;
    for col in p.playable_columns() {
        let child = p.after(col);
        let score = if child.opponent_has_won() {
            crate::score::win(W * H, n)
        } else if child.is_full() {
            0
        } else {
            -plain_negamax(&child, memo)
        };
        best = best.max(score);
    }
    memo.insert(p.key(), best);
    best
}
