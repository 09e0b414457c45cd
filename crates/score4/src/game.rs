//! A game being played: its moves with undo and redo, whose turn it is,
//! how it ended, and the four that won it. Every face that lets people
//! play (a terminal, a page, a notebook) keeps its game here, so that they
//! all agree on what undo takes back and which discs made four.
//!
//! ```
//! use score4::game::Game;
//! use score4::solver::Player;
//! let mut game: Game = Game::from_moves("445566").unwrap();
//! game.play(6).unwrap(); // 0-based: column 7 in the notation
//! assert_eq!(game.winner(), Some(Player::First));
//! assert_eq!(game.winning_four(), Some([(3, 0), (4, 0), (5, 0), (6, 0)]));
//! assert!(game.undo());
//! assert_eq!(game.notation(), "445566");
//! assert!(game.redo());
//! assert!(game.is_over());
//! ```

use crate::bitboard::Geometry;
use crate::error::ParseError;
use crate::position::Position;
use crate::solver::Player;

/// A game from the empty board: the moves made, and those undone that
/// [`redo`](Game::redo) can make again (until another move is made).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game<const W: usize = 7, const H: usize = 6> {
    /// Every move made, 0-based columns; those from `played` on are undone.
    moves: Vec<u8>,
    played: usize,
    position: Position<W, H>,
}

impl<const W: usize, const H: usize> Default for Game<W, H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const H: usize> Game<W, H> {
    /// The empty board.
    pub fn new() -> Self {
        Game {
            moves: Vec::with_capacity(W * H),
            played: 0,
            position: Position::new(),
        }
    }

    /// The game after `moves` (1-based column digits, as everywhere in the
    /// notation), or the library's error naming the first bad move.
    pub fn from_moves(moves: &str) -> Result<Self, ParseError> {
        Position::<W, H>::parse(moves)?;
        let mut game = Self::new();
        for b in moves.bytes() {
            // Checked by the parse: a digit naming a column that has room.
            game.play(usize::from(b - b'1'))?;
        }
        Ok(game)
    }

    /// The position now.
    pub fn position(&self) -> &Position<W, H> {
        &self.position
    }

    /// The moves made (0-based columns), undone ones left out.
    pub fn moves(&self) -> &[u8] {
        &self.moves[..self.played]
    }

    /// The moves made in the notation: 1-based column digits.
    pub fn notation(&self) -> String {
        self.moves().iter().map(|&c| char::from(b'1' + c)).collect()
    }

    /// Drops a disc of the side to move in `col` (0-based), forgetting the
    /// moves undone. The error is the one a move string with this move
    /// would give.
    pub fn play(&mut self, col: usize) -> Result<(), ParseError> {
        let index = self.played + 1;
        if let Some(won_at) = self.won_at() {
            return Err(ParseError::AfterGameOver { index, won_at });
        }
        if col >= W {
            return Err(ParseError::ColumnOutOfRange {
                index,
                column: col + 1,
                width: W,
            });
        }
        if !self.position.can_play(col) {
            return Err(ParseError::ColumnFull {
                index,
                column: col + 1,
            });
        }
        self.moves.truncate(self.played);
        self.moves.push(col as u8);
        self.played += 1;
        self.position.play(col);
        Ok(())
    }

    /// Takes back the last move; `false` at the start.
    pub fn undo(&mut self) -> bool {
        if self.played == 0 {
            return false;
        }
        self.played -= 1;
        self.replay();
        true
    }

    /// Makes the last move undone again; `false` if there is none.
    pub fn redo(&mut self) -> bool {
        if self.played == self.moves.len() {
            return false;
        }
        self.position.play(usize::from(self.moves[self.played]));
        self.played += 1;
        true
    }

    /// Whether [`redo`](Self::redo) has a move to make.
    pub fn can_redo(&self) -> bool {
        self.played < self.moves.len()
    }

    /// Positions keep no history, so undo plays the game again.
    fn replay(&mut self) {
        self.position = Position::new();
        for &c in &self.moves[..self.played] {
            self.position.play(usize::from(c));
        }
    }

    /// Who plays next (in a finished game, who would have).
    pub fn to_move(&self) -> Player {
        Player::after_moves(self.position.moves_played())
    }

    /// Who owns the disc at `(col, row)`, row 0 at the bottom.
    pub fn disc(&self, col: usize, row: usize) -> Option<Player> {
        let cell = Geometry::<W, H>::cell(col, row);
        if !self.position.occupied().contains(cell) {
            None
        } else if self.position.first_player().contains(cell) {
            Some(Player::First)
        } else {
            Some(Player::Second)
        }
    }

    /// The cell of the last move, `(col, row)` with row 0 at the bottom.
    pub fn last_move(&self) -> Option<(usize, usize)> {
        let col = usize::from(*self.moves().last()?);
        let row = (0..H).rev().find(|&r| self.disc(col, r).is_some())?;
        Some((col, row))
    }

    /// Whether the game has ended: four in a row, or a full board.
    pub fn is_over(&self) -> bool {
        self.position.is_game_over()
    }

    /// Who made four in a row; `None` while the game goes on and for a draw.
    pub fn winner(&self) -> Option<Player> {
        self.position
            .opponent_has_won()
            .then(|| self.to_move().other())
    }

    /// The 1-based number of the move that won, if one did.
    fn won_at(&self) -> Option<usize> {
        self.winner().map(|_| self.played)
    }

    /// The four cells in a row that won the game, from the lowest or
    /// leftmost: `(col, row)`, row 0 at the bottom. Where the winning move
    /// made more than four, the first four through it found going
    /// horizontally, vertically, then along the diagonals.
    pub fn winning_four(&self) -> Option<[(usize, usize); 4]> {
        let winner = self.winner()?;
        let (col, row) = self.last_move()?;
        let mine = |c: isize, r: isize| {
            c >= 0
                && r >= 0
                && (c as usize) < W
                && (r as usize) < H
                && self.disc(c as usize, r as usize) == Some(winner)
        };
        let (c0, r0) = (col as isize, row as isize);
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            // Walk back to the first disc of the line, then take four.
            let mut back = 0;
            while back < 3 && mine(c0 - (back + 1) * dc, r0 - (back + 1) * dr) {
                back += 1;
            }
            let start = (c0 - back * dc, r0 - back * dr);
            let line: [(isize, isize); 4] = std::array::from_fn(|k| {
                let k = k as isize;
                (start.0 + k * dc, start.1 + k * dr)
            });
            if line.iter().all(|&(c, r)| mine(c, r)) {
                return Some(line.map(|(c, r)| (c as usize, r as usize)));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The four found lies in a straight line, through the last move, on
    /// the winner's discs; checked on many random games of several sizes.
    fn random_games<const W: usize, const H: usize>(seed: u64) {
        let mut rng = Rng::new(seed);
        let mut wins = 0;
        for _ in 0..500 {
            let mut game = Game::<W, H>::new();
            let mut history = vec![game.clone()];
            while !game.is_over() {
                let open: Vec<usize> = game.position().playable_columns().collect();
                game.play(open[rng.index(open.len())]).unwrap();
                history.push(game.clone());
            }
            let text = game.notation();
            assert_eq!(Game::<W, H>::from_moves(&text).as_ref(), Ok(&game));
            match game.winner() {
                None => assert!(game.position().is_full() && game.winning_four().is_none()),
                Some(w) => {
                    wins += 1;
                    let four = game.winning_four().expect("a won game has its four");
                    assert!(four.contains(&game.last_move().unwrap()), "{text}");
                    assert!(four.iter().all(|&(c, r)| game.disc(c, r) == Some(w)));
                    let (dc, dr) = (
                        four[1].0 as isize - four[0].0 as isize,
                        four[1].1 as isize - four[0].1 as isize,
                    );
                    assert!(dc.abs() <= 1 && dr.abs() <= 1 && (dc, dr) != (0, 0));
                    for k in 1..4 {
                        assert_eq!(four[k].0 as isize - four[k - 1].0 as isize, dc);
                        assert_eq!(four[k].1 as isize - four[k - 1].1 as isize, dr);
                    }
                    let after = game.play(0);
                    assert!(matches!(after, Err(ParseError::AfterGameOver { .. })));
                }
            }
            // Undo walks back through every earlier state, redo forward.
            for earlier in history.iter().rev().skip(1) {
                assert!(game.undo());
                assert_eq!(&game, &{
                    let mut e = earlier.clone();
                    e.moves.clone_from(&game.moves);
                    e
                });
            }
            assert!(!game.undo());
            while game.redo() {}
            assert_eq!(game.notation(), text);
        }
        assert!(wins > 100, "{wins}");
    }

    #[test]
    fn random_games_on_three_sizes() {
        random_games::<7, 6>(1);
        random_games::<4, 4>(2);
        random_games::<9, 5>(3);
    }

    #[test]
    fn a_move_after_undo_forgets_the_redo() {
        let mut game = Game::<7, 6>::from_moves("4455").unwrap();
        assert!(game.undo() && game.undo());
        assert!(game.can_redo());
        game.play(0).unwrap();
        assert!(!game.can_redo());
        assert_eq!(game.notation(), "441");
        assert_eq!(game.last_move(), Some((0, 0)));
        assert_eq!(game.to_move(), Player::Second);
    }

    #[test]
    fn bad_moves_get_the_notation_errors() {
        let mut game = Game::<7, 6>::from_moves("444444").unwrap();
        assert_eq!(
            game.play(3).unwrap_err().to_string(),
            "move 7: column 4 is full"
        );
        assert_eq!(
            game.play(7).unwrap_err().to_string(),
            "move 7: column 8 is out of range 1..7"
        );
        assert_eq!(Game::<7, 6>::from_moves("1212121").map(|_| ()), Ok(()));
        assert_eq!(
            Game::<7, 6>::from_moves("12121213")
                .unwrap_err()
                .to_string(),
            "move 8: the game was already won by move 7"
        );
    }
}
