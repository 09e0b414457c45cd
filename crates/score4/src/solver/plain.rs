//! The obviously correct model the solver's parts are tested against
//! inside this crate (the test crates share the same model through the
//! test kit, which cannot be used from here: its positions are another
//! build's type).

use crate::position::Position;

/// Scores remembered by position key. ahash rather than SipHash: over
/// every position of a small board, most of the time goes to looking keys
/// up, and nothing here needs resistance to chosen keys.
pub(crate) type Memo = ahash::AHashMap<u64, i32>;

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

/// The compiled `W` x `H` position of the same discs as `p`, which is on
/// that board: for comparing what lists positions as data with this model.
pub(crate) fn compiled<const W: usize, const H: usize>(
    p: &crate::wide::Position,
) -> Position<W, H> {
    Position::from_parts(p.to_parts())
}
