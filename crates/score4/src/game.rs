//! A game being played: its moves with undo and redo, whose turn it is,
//! how it ended, and the four that won it. Every face that lets people
//! play (a terminal, a page, a notebook) keeps its game here, so that they
//! all agree on what undo takes back and which discs made four. A game is
//! played on a board of any [`Shape`], up to 128 bits and 16 columns.
//!
//! ```
//! use score4::game::Game;
//! use score4::solver::Player;
//! use score4::wide::Shape;
//! let mut game = Game::from_moves(Shape::standard(), "445566").unwrap();
//! game.play(6).unwrap(); // 0-based: column 7 in the notation
//! assert_eq!(game.winner(), Some(Player::First));
//! assert_eq!(game.winning_four(), Some([(3, 0), (4, 0), (5, 0), (6, 0)]));
//! assert!(game.undo());
//! assert_eq!(game.notation(), "445566");
//! assert!(game.redo());
//! assert!(game.is_over());
//! ```

use crate::error::ParseError;
use crate::solver::Player;
use crate::wide::{notation, Position, Shape};

/// A game from the empty board: the moves made, and those undone that
/// [`redo`](Game::redo) can make again (until another move is made).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    shape: Shape,
    /// Every move made, 0-based columns; those from `played` on are undone.
    moves: Vec<u8>,
    played: usize,
    position: Position,
}

impl Game {
    /// The empty board of `shape`.
    pub fn new(shape: Shape) -> Self {
        Game {
            shape,
            moves: Vec::with_capacity(shape.cells()),
            played: 0,
            position: Position::new(),
        }
    }

    /// The game after `moves` (in the [notation]: 1-based columns), or the
    /// library's error naming the first bad move.
    pub fn from_moves(shape: Shape, moves: &str) -> Result<Self, ParseError> {
        Position::parse(&shape, moves)?;
        let mut game = Self::new(shape);
        for ch in moves.chars() {
            // Checked by the parse: a character naming a column with room.
            let col = notation::column(ch).map_or(0, |c| c - 1);
            game.play(col)?;
        }
        Ok(game)
    }

    /// The board.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves made (0-based columns), undone ones left out.
    pub fn moves(&self) -> &[u8] {
        &self.moves[..self.played]
    }

    /// The moves made in the [notation]: 1-based columns, `1`-`9` then
    /// `a`-`g`.
    pub fn notation(&self) -> String {
        self.moves()
            .iter()
            .filter_map(|&c| notation::character(usize::from(c) + 1))
            .collect()
    }

    /// Drops a disc of the side to move in `col` (0-based), forgetting the
    /// moves undone. The error is the one a move string with this move
    /// would give.
    pub fn play(&mut self, col: usize) -> Result<(), ParseError> {
        let index = self.played + 1;
        if let Some(won_at) = self.won_at() {
            return Err(ParseError::AfterGameOver { index, won_at });
        }
        let width = self.shape.width();
        if col >= width {
            return Err(ParseError::ColumnOutOfRange {
                index,
                column: col + 1,
                width,
            });
        }
        if !self.position.can_play(&self.shape, col) {
            return Err(ParseError::ColumnFull {
                index,
                column: col + 1,
            });
        }
        self.moves.truncate(self.played);
        self.moves.push(col as u8);
        self.played += 1;
        self.position.play(&self.shape, col);
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
        self.position
            .play(&self.shape, usize::from(self.moves[self.played]));
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
            self.position.play(&self.shape, usize::from(c));
        }
    }

    /// Who plays next (in a finished game, who would have).
    pub fn to_move(&self) -> Player {
        Player::after_moves(self.position.moves_played())
    }

    /// Who owns the disc at `(col, row)`, row 0 at the bottom.
    pub fn disc(&self, col: usize, row: usize) -> Option<Player> {
        let cell = self.shape.cell(col, row);
        if self.position.occupied() & cell == 0 {
            None
        } else if self.position.first_player() & cell != 0 {
            Some(Player::First)
        } else {
            Some(Player::Second)
        }
    }

    /// The cell of the last move, `(col, row)` with row 0 at the bottom.
    pub fn last_move(&self) -> Option<(usize, usize)> {
        let col = usize::from(*self.moves().last()?);
        let row = (0..self.shape.height())
            .rev()
            .find(|&r| self.disc(col, r).is_some())?;
        Some((col, row))
    }

    /// Whether the game has ended: four in a row, or a full board.
    pub fn is_over(&self) -> bool {
        self.position.ending(&self.shape).is_some()
    }

    /// Who made four in a row; `None` while the game goes on and for a draw.
    pub fn winner(&self) -> Option<Player> {
        self.position
            .opponent_has_won(&self.shape)
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
        let (width, height) = (self.shape.width(), self.shape.height());
        let mine = |c: isize, r: isize| {
            c >= 0
                && r >= 0
                && (c as usize) < width
                && (r as usize) < height
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
    fn random_games(shape: Shape, seed: u64) {
        let mut rng = Rng::new(seed);
        let mut wins = 0;
        for _ in 0..500 {
            let mut game = Game::new(shape);
            let mut history = vec![game.clone()];
            while !game.is_over() {
                let open: Vec<usize> = (0..shape.width())
                    .filter(|&c| game.position().can_play(&shape, c))
                    .collect();
                game.play(open[rng.index(open.len())]).unwrap();
                history.push(game.clone());
            }
            let text = game.notation();
            assert_eq!(Game::from_moves(shape, &text).as_ref(), Ok(&game));
            match game.winner() {
                None => assert!(game.position().is_full(&shape) && game.winning_four().is_none()),
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
    fn random_games_on_five_sizes() {
        random_games(Shape::standard(), 1);
        random_games(Shape::any(4, 4), 2);
        random_games(Shape::any(9, 5), 3);
        random_games(Shape::any(11, 4), 4);
        random_games(Shape::any(16, 7), 5);
    }

    #[test]
    fn a_move_after_undo_forgets_the_redo() {
        let mut game = Game::from_moves(Shape::standard(), "4455").unwrap();
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
        let mut game = Game::from_moves(Shape::standard(), "444444").unwrap();
        assert_eq!(
            game.play(3).unwrap_err().to_string(),
            "move 7: column 4 is full"
        );
        assert_eq!(
            game.play(7).unwrap_err().to_string(),
            "move 7: column 8 is out of range 1..7"
        );
        assert_eq!(
            Game::from_moves(Shape::standard(), "1212121").map(|_| ()),
            Ok(())
        );
        assert_eq!(
            Game::from_moves(Shape::standard(), "12121213")
                .unwrap_err()
                .to_string(),
            "move 8: the game was already won by move 7"
        );
    }
}
