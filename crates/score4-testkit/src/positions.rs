//! Positions to test on: every position of a small board, or random games.

use score4::Position;

use crate::Rng;

/// The library's walk over every position of a board.
pub use score4::position::for_each_position;

/// A random game of `len` moves in which nobody has won yet, drawn again
/// from the start whenever a move would win.
pub fn random_position<const W: usize, const H: usize>(rng: &mut Rng, len: u32) -> Position<W, H> {
    random_moves(rng, len).1
}

/// As [`random_position`], with the game's moves in the notation (columns
/// from 1, `a` for 10 and on): what a test of the binary feeds it.
pub fn random_moves<const W: usize, const H: usize>(
    rng: &mut Rng,
    len: u32,
) -> (String, Position<W, H>) {
    'retry: loop {
        let mut p = Position::<W, H>::new();
        let mut moves = String::new();
        while p.moves_played() < len {
            let open: Vec<usize> = p.playable_columns().collect();
            let col = open[rng.below(open.len() as u64) as usize];
            if p.is_winning_move(col) {
                continue 'retry;
            }
            p.play(col);
            moves.push(score4::wide::notation::character(col + 1).expect("at most 16 columns"));
        }
        return (moves, p);
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
