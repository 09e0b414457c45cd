//! Positions to test on: every position of a small board, or random games.

use score4::Position;

use crate::Rng;

/// Calls `f` once on every position reachable on a `W`x`H` board from the
/// empty one (transpositions once), finished games left out.
pub fn for_each_position<const W: usize, const H: usize>(mut f: impl FnMut(&Position<W, H>)) {
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

/// A random game of `len` moves in which nobody has won yet, drawn again
/// from the start whenever a move would win.
pub fn random_position<const W: usize, const H: usize>(rng: &mut Rng, len: u32) -> Position<W, H> {
    'retry: loop {
        let mut p = Position::<W, H>::new();
        while p.moves_played() < len {
            let open: Vec<usize> = p.playable_columns().collect();
            let col = open[rng.below(open.len() as u64) as usize];
            if p.is_winning_move(col) {
                continue 'retry;
            }
            p.play(col);
        }
        return p;
    }
}

/// A random game of `len` moves that avoids winning moves while it can:
/// on large boards, random play rarely goes long without a win.
pub fn random_unfinished<const W: usize, const H: usize>(
    rng: &mut Rng,
    len: u32,
) -> Position<W, H> {
    'retry: loop {
        let mut p = Position::<W, H>::new();
        while p.moves_played() < len {
            let open: Vec<usize> = p
                .playable_columns()
                .filter(|&c| !p.is_winning_move(c))
                .collect();
            if open.is_empty() {
                continue 'retry;
            }
            p.play(open[rng.below(open.len() as u64) as usize]);
        }
        return p;
    }
}
