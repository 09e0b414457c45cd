//! A Connect Four position: two bitboards and a move count.
//!
//! The position stores the discs of the side to move (`current`) and all
//! discs (`mask`), as Pons' tutorial solver does: playing a move is one
//! addition and one XOR, and `current + mask` is a unique key.

use std::fmt;
use std::str::FromStr;

use crate::bitboard::{Bitboard, Geometry};
use crate::error::{ParseError, SolveError};
use crate::layout::{self, Discs};
use crate::wide::notation;
// Re-exported where the printer used to live, so callers keep their path.
pub use crate::render::render;

/// A position on a `W` x `H` board (7x6 unless named), from the point of
/// view of the side to move.
///
/// ```
/// use score4::Position;
/// let mut p: Position = "4453".parse().unwrap();
/// assert_eq!(p.moves_played(), 4);
/// assert!(p.can_play(3));
/// p.play(3);
/// assert_eq!(p.moves_played(), 5);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position<const W: usize = 7, const H: usize = 6> {
    current: Bitboard,
    mask: Bitboard,
    moves: u32,
}

impl<const W: usize, const H: usize> Default for Position<W, H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const H: usize> Position<W, H> {
    /// Number of columns.
    pub const WIDTH: usize = Geometry::<W, H>::WIDTH;
    /// Number of rows.
    pub const HEIGHT: usize = H;
    /// Number of cells.
    pub const CELLS: u32 = Geometry::<W, H>::CELLS;

    /// The empty board.
    pub const fn new() -> Self {
        Position {
            current: Bitboard::EMPTY,
            mask: Bitboard::EMPTY,
            moves: 0,
        }
    }

    /// The position as plain parts, to cross the solver's boundary between
    /// sizes (see `solver::engine`): the side to move's discs, every disc,
    /// and the moves played, in the layout of every size.
    pub(crate) fn to_parts(self) -> crate::solver::Parts {
        (self.current.0.into(), self.mask.0.into(), self.moves)
    }

    /// The position as the search's layout-generic code takes it.
    #[inline(always)]
    pub(crate) fn discs(&self) -> Discs<Bitboard> {
        Discs {
            current: self.current,
            mask: self.mask,
            moves: self.moves,
        }
    }

    /// The position [`to_parts`](Self::to_parts) gave, on the same board
    /// (whose cells all lie in the low 64 bits).
    pub(crate) fn from_parts((current, mask, moves): crate::solver::Parts) -> Self {
        Position {
            current: Bitboard(current as u64),
            mask: Bitboard(mask as u64),
            moves,
        }
    }

    /// Builds a position from the discs of the side to move and of its
    /// opponent. Checks that no cell is taken twice and that every disc rests
    /// on the bottom row or on another disc; piece counts are not checked,
    /// so [`moves_played`](Self::moves_played) is simply the number of discs.
    pub fn from_sides(current: Bitboard, opponent: Bitboard) -> Option<Self> {
        let mask = current | opponent;
        let well_formed = (current & opponent).is_empty()
            && Geometry::<W, H>::BOARD.contains(mask)
            && Geometry::<W, H>::floating(mask).is_empty();
        well_formed.then_some(Position {
            current,
            mask,
            moves: mask.count(),
        })
    }

    /// Reads a move sequence in the standard notation: one character per
    /// move, columns numbered from 1 at the left (see
    /// [`crate::wide::notation`]).
    pub fn parse(moves: &str) -> Result<Self, ParseError> {
        let mut p = Self::new();
        notation::replay(&mut p, moves)?;
        Ok(p)
    }

    /// Number of discs on the board.
    #[inline(always)]
    pub const fn moves_played(&self) -> u32 {
        self.moves
    }

    /// Discs of the side to move.
    #[inline(always)]
    pub const fn current(&self) -> Bitboard {
        self.current
    }

    /// Discs of the side that moved last.
    #[inline(always)]
    pub fn opponent(&self) -> Bitboard {
        self.current ^ self.mask
    }

    /// All discs.
    #[inline(always)]
    pub const fn occupied(&self) -> Bitboard {
        self.mask
    }

    /// Whether every cell is taken.
    #[inline(always)]
    pub const fn is_full(&self) -> bool {
        self.moves >= Self::CELLS
    }

    /// The cells where a disc can be dropped now, one per open column.
    #[inline(always)]
    pub fn playable(&self) -> Bitboard {
        (self.mask + Geometry::<W, H>::BOTTOM) & Geometry::<W, H>::BOARD
    }

    /// Whether column `col` (0-based) has room for another disc.
    #[inline(always)]
    pub fn can_play(&self, col: usize) -> bool {
        col < W && (self.mask & Geometry::<W, H>::top_cell(col)).is_empty()
    }

    /// The open columns (0-based), left to right.
    pub fn playable_columns(&self) -> impl Iterator<Item = usize> + '_ {
        (0..W).filter(move |&c| self.can_play(c))
    }

    /// The cell a disc dropped in `col` lands on (empty if the column is full).
    #[inline(always)]
    pub fn landing_cell(&self, col: usize) -> Bitboard {
        self.playable() & Geometry::<W, H>::column(col)
    }

    /// Drops the side to move's disc in column `col` (0-based); the other
    /// side is then to move. [`Game::play`](crate::game::Game::play) is the
    /// checked way for moves from outside.
    ///
    /// # Panics
    ///
    /// If `col` is full or off the board: a position that played it
    /// anyway would no longer be one any game reaches.
    #[inline(always)]
    pub fn play(&mut self, col: usize) {
        assert!(self.can_play(col), "column {col} is full or off the board");
        self.play_cell(self.landing_cell(col));
    }

    /// Plays the move that lands on `cell`, a single playable cell: the
    /// search's unchecked move, hence not public.
    #[inline(always)]
    pub(crate) fn play_cell(&mut self, cell: Bitboard) {
        debug_assert!(self.playable().contains(cell) && !cell.has_several() && cell.any());
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    /// The position after playing `col`, leaving `self` as it was.
    #[inline(always)]
    pub fn after(&self, col: usize) -> Self {
        let mut next = *self;
        next.play(col);
        next
    }

    /// Whether playing `col` makes four in a row for the side to move.
    #[inline(always)]
    pub fn is_winning_move(&self, col: usize) -> bool {
        (self.winning_cells() & self.landing_cell(col)).any()
    }

    /// Whether the side to move can win with its next disc.
    #[inline(always)]
    pub fn can_win_next(&self) -> bool {
        (self.winning_cells() & self.playable()).any()
    }

    /// Empty cells that would complete four for the side to move.
    #[inline(always)]
    pub fn winning_cells(&self) -> Bitboard {
        Geometry::<W, H>::winning_cells(self.current) & !self.mask
    }

    /// Empty cells that would complete four for the opponent.
    #[inline(always)]
    pub fn opponent_winning_cells(&self) -> Bitboard {
        Geometry::<W, H>::winning_cells(self.opponent()) & !self.mask
    }

    /// The playable cells after which the opponent cannot win at once.
    ///
    /// If the opponent threatens to win on a playable cell, that cell is the
    /// only candidate (and with two such threats every move loses); a cell
    /// directly below an opponent winning cell is never a candidate, since it
    /// would hand the opponent that cell. Meant for positions where the side
    /// to move cannot win at once: a winning move may be left out.
    #[inline(always)]
    pub fn non_losing_moves(&self) -> Bitboard {
        self.non_losing_moves_against(self.opponent_winning_cells())
    }

    /// [`non_losing_moves`](Self::non_losing_moves) given the opponent's
    /// winning cells (as [`opponent_winning_cells`](Self::opponent_winning_cells)
    /// returns them), for a caller that has them already.
    #[inline(always)]
    pub(crate) fn non_losing_moves_against(&self, threats: Bitboard) -> Bitboard {
        debug_assert_eq!(threats, self.opponent_winning_cells());
        Self::non_losing_among(self.playable(), threats)
    }

    /// The moves among `playable` that do not lose at once to an opponent
    /// whose winning cells are `threats`: none if two of them are playable,
    /// the one if one is, and never the cell right below one. Also for a
    /// position not built yet (ranking a move, from the cells it leaves
    /// playable).
    #[inline(always)]
    pub(crate) fn non_losing_among(playable: Bitboard, threats: Bitboard) -> Bitboard {
        layout::non_losing_among(playable, threats)
    }

    /// Whether the side that moved last has four in a row.
    #[inline(always)]
    pub fn opponent_has_won(&self) -> bool {
        Geometry::<W, H>::has_four(self.opponent())
    }

    /// How the game has ended, or `None` while it goes on. This is the one
    /// place that decides whether a game is over.
    pub fn ending(&self) -> Option<Ending> {
        if self.opponent_has_won() {
            Some(Ending::Lost)
        } else if Geometry::<W, H>::has_four(self.current) {
            Some(Ending::Won)
        } else if self.is_full() {
            Some(Ending::Draw)
        } else {
            None
        }
    }

    /// Every score the side to move can have here, in the solver's scoring
    /// (a win with the next disc is worth one point per disc left after
    /// it, plus one): from losing to the opponent's next disc up to winning
    /// with its own.
    ///
    /// ```
    /// use score4::Position;
    /// assert_eq!(Position::<7, 6>::new().score_range(), -21..=21);
    /// assert_eq!("4444443".parse::<Position>().unwrap().score_range(), -17..=18);
    /// ```
    pub fn score_range(&self) -> std::ops::RangeInclusive<i32> {
        crate::score::range(Self::CELLS as usize, self.moves)
    }

    /// Whether the game is over: someone has four in a row or the board is full.
    pub fn is_game_over(&self) -> bool {
        self.ending().is_some()
    }

    /// A key that differs for every pair of different positions: the discs
    /// of the side to move plus all discs. Adding the bottom row as well
    /// would give the side to move's discs beside, in each column, the one
    /// cell above the top disc (all discs plus the bottom cell carry into
    /// it): two disjoint sets that tell the position. The key is that sum
    /// less a constant, so it is just as unique.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        (self.current + self.mask).bits()
    }

    /// The position reflected left to right; it has the same game value.
    pub fn mirror(&self) -> Self {
        Position {
            current: Geometry::<W, H>::mirror(self.current),
            mask: Geometry::<W, H>::mirror(self.mask),
            moves: self.moves,
        }
    }

    /// The key of the mirror image.
    #[inline]
    pub fn mirror_key(&self) -> u64 {
        // Within a column `current + mask` never carries past the column's
        // sentinel bit, so mirroring the key mirrors both boards at once.
        Geometry::<W, H>::mirror(Bitboard(self.key())).bits()
    }

    /// The key a position shares with its mirror image (the same game
    /// value): the smaller of the two. Books, split records and the table's
    /// early positions are kept by it.
    #[inline(always)]
    pub fn canonical_key(&self) -> u64 {
        self.key().min(self.mirror_key())
    }

    /// Discs of the player who moved first on a board reached by
    /// alternating moves.
    pub fn first_player(&self) -> Bitboard {
        if self.moves.is_multiple_of(2) {
            self.current
        } else {
            self.opponent()
        }
    }
}

/// Calls `f` once on every position reachable on a `W`x`H` board from the
/// empty one (transpositions once), finished games left out: the small
/// boards' whole game, for exhaustive checks.
///
/// ```
/// let mut count = 0;
/// score4::position::for_each_position::<4, 4>(|_| count += 1);
/// assert!(count > 10_000);
/// ```
pub fn for_each_position<const W: usize, const H: usize>(mut f: impl FnMut(&Position<W, H>)) {
    // Level by level, each level sorted and deduplicated by key: a
    // sequential sort stays in the cache, where a hash set of every
    // position misses it on each insert once the set outgrows it.
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

impl<const W: usize, const H: usize> notation::Board for Position<W, H> {
    fn width(&self) -> usize {
        W
    }
    fn can_play(&self, col: usize) -> bool {
        Position::can_play(self, col)
    }
    fn is_winning_move(&self, col: usize) -> bool {
        Position::is_winning_move(self, col)
    }
    fn play(&mut self, col: usize) {
        Position::play(self, col)
    }
}

/// How a finished game ended, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The last move made four in a row: the side to move has lost.
    Lost,
    /// The side to move has four in a row. Play never reaches this (the
    /// game ends on the move that makes four), but a board built with
    /// [`Position::from_sides`] can.
    Won,
    /// Every cell is taken and nobody has four in a row.
    Draw,
}

impl<const W: usize, const H: usize> FromStr for Position<W, H> {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        Self::parse(s)
    }
}

/// Shows the first player's discs as `X`, the second's as `O`, and the
/// columns numbered 1.. as in the move notation.
impl<const W: usize, const H: usize> fmt::Display for Position<W, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.first_player();
        render::<W, H>(f, x, self.mask ^ x, 1)
    }
}

impl SolveError {
    /// `Ok` if the game in `p` goes on, else why it is over.
    pub fn check<const W: usize, const H: usize>(p: &Position<W, H>) -> Result<(), SolveError> {
        match p.ending() {
            None => Ok(()),
            Some(Ending::Draw) => Err(SolveError::BoardFull),
            Some(Ending::Lost | Ending::Won) => Err(SolveError::AlreadyWon(p.moves_played())),
        }
    }
}

/// A game still on, reached from the empty board by up to `moves` random
/// moves, stopping before one that would end it: its moves and position.
/// The library's unit tests draw their positions with it.
#[cfg(test)]
pub(crate) fn random_game<const W: usize, const H: usize>(
    rng: &mut crate::rng::Rng,
    moves: usize,
) -> (String, Position<W, H>) {
    let mut p = Position::<W, H>::new();
    let mut text = String::new();
    for _ in 0..moves {
        let cols: Vec<usize> = p.playable_columns().collect();
        let col = cols[rng.index(cols.len())];
        if p.is_winning_move(col) || p.after(col).is_game_over() {
            break;
        }
        p.play(col);
        text.push(char::from(b'1' + col as u8));
    }
    (text, p)
}

/// `count` games of [`random_game`], each of a length drawn from `moves`.
#[cfg(test)]
pub(crate) fn random_games<const W: usize, const H: usize>(
    count: usize,
    moves: std::ops::Range<usize>,
    seed: u64,
) -> Vec<(String, Position<W, H>)> {
    let mut rng = crate::rng::Rng::new(seed);
    (0..count)
        .map(|_| {
            let target = moves.start + rng.index(moves.end - moves.start);
            random_game::<W, H>(&mut rng, target)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    type P = Position<7, 6>;
    type G = Geometry<7, 6>;

    /// Reads a board drawn top row first with `X` (side to move), `O` and `.`.
    fn drawn(rows: &[&str]) -> P {
        let (mut x, mut o) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for (i, line) in rows.iter().enumerate() {
            let row = rows.len() - 1 - i;
            for (col, ch) in line.chars().filter(|c| !c.is_whitespace()).enumerate() {
                match ch {
                    'X' => x |= G::cell(col, row),
                    'O' => o |= G::cell(col, row),
                    _ => {}
                }
            }
        }
        P::from_sides(x, o).expect("test board obeys gravity")
    }

    #[test]
    fn parse_plays_columns_from_one() {
        let p = P::parse("4453").unwrap();
        assert_eq!(p.moves_played(), 4);
        // Moves 1 and 3 (columns 4 and 5) are the first player's, who is to move.
        assert_eq!(p.current(), G::cell(3, 0) | G::cell(4, 0));
        assert_eq!(p.opponent(), G::cell(3, 1) | G::cell(2, 0));
        assert_eq!(P::parse("").unwrap(), P::new());
    }

    #[test]
    fn parse_names_each_problem() {
        assert_eq!(
            P::parse("44h"),
            Err(ParseError::UnknownCharacter { index: 3, ch: 'h' })
        );
        // Letters name the columns past 9 (on boards that wide).
        assert_eq!(
            P::parse("44a"),
            Err(ParseError::ColumnOutOfRange {
                index: 3,
                column: 10,
                width: 7
            })
        );
        assert_eq!(
            P::parse("48"),
            Err(ParseError::ColumnOutOfRange {
                index: 2,
                column: 8,
                width: 7
            })
        );
        assert_eq!(
            P::parse("0").unwrap_err(),
            ParseError::UnknownCharacter { index: 1, ch: '0' }
        );
        assert_eq!(
            P::parse("1111111"),
            Err(ParseError::ColumnFull {
                index: 7,
                column: 1
            })
        );
        assert_eq!(
            P::parse("1212121"),
            Ok(P::parse("1212121").unwrap()),
            "the winning move itself is fine"
        );
        assert_eq!(
            P::parse("12121213"),
            Err(ParseError::AfterGameOver {
                index: 8,
                won_at: 7
            })
        );
    }

    #[test]
    fn playable_columns_skip_full_ones() {
        let p = P::parse("333333").unwrap();
        assert_eq!(
            p.playable_columns().collect::<Vec<_>>(),
            vec![0, 1, 3, 4, 5, 6]
        );
        assert!(!p.can_play(2));
        assert!(!p.can_play(7));
        assert_eq!(p.playable().count(), 6);
    }

    #[test]
    fn winning_moves_and_cells() {
        let p = drawn(&[
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". O O O . . .",
            ". X X X . . .",
        ]);
        assert_eq!(p.winning_cells(), G::cell(0, 0) | G::cell(4, 0));
        assert_eq!(p.opponent_winning_cells(), G::cell(0, 1) | G::cell(4, 1));
        assert!(p.is_winning_move(0));
        assert!(p.is_winning_move(4));
        assert!(!p.is_winning_move(1));
        assert!(p.can_win_next());
        let mut won = p;
        won.play(4);
        assert!(won.opponent_has_won());
        assert!(won.is_game_over());
    }

    #[test]
    fn non_losing_moves_respect_threats() {
        // O threatens the bottom-left cell: X must block it.
        let p = drawn(&[
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". O O O X X .",
        ]);
        assert_eq!(p.non_losing_moves(), G::cell(0, 0));
        // Two threats at once: nothing saves X.
        let p = drawn(&[
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". X X . . . .",
            ". O O O . . X",
        ]);
        assert_eq!(p.non_losing_moves(), Bitboard::EMPTY);
        // O would win on (2, 1): X must not play below it in column 2.
        let p = drawn(&[
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            "X . . O O O X",
            "X . . X O X O",
        ]);
        assert_eq!(p.opponent_winning_cells(), G::cell(2, 1));
        assert_eq!(p.non_losing_moves(), p.playable() & !G::cell(2, 0));
        // Generic over the size: on 4x4 the same rules hold.
        let q = Position::<4, 4>::parse("121212").unwrap();
        assert!(q.can_win_next());
        let r = Position::<4, 4>::parse("12121").unwrap();
        assert_eq!(
            r.non_losing_moves(),
            Geometry::<4, 4>::cell(0, 3),
            "vertical threat must be blocked"
        );
    }

    #[test]
    fn from_sides_rejects_floating_and_overlapping_discs() {
        assert!(P::from_sides(G::cell(0, 1), Bitboard::EMPTY).is_none());
        assert!(P::from_sides(G::cell(0, 0), G::cell(0, 0)).is_none());
        assert!(P::from_sides(G::cell(0, 0), G::cell(0, 1)).is_some());
        // A sentinel bit is not a cell.
        assert!(P::from_sides(Bitboard(1 << 6), Bitboard::EMPTY).is_none());
    }

    #[test]
    fn keys_and_mirrors() {
        let a = P::parse("1122").unwrap();
        let b = P::parse("2211").unwrap();
        let c = P::parse("1221").unwrap();
        assert_eq!(a.key(), b.key(), "same discs, same key");
        assert_ne!(a.key(), c.key());
        let m = P::parse("7766").unwrap();
        assert_eq!(a.mirror(), m);
        assert_eq!(a.mirror_key(), m.key());
        assert_eq!(a.mirror().mirror(), a);
    }

    #[test]
    fn display_draws_the_driver_board() {
        let p = P::parse("4453").unwrap();
        let expected = "\
[.  .  .  .  .  .  .]
[.  .  .  .  .  .  .]
[.  .  .  .  .  .  .]
[.  .  .  .  .  .  .]
[.  .  .  O  .  .  .]
[.  .  O  X  X  .  .]
--------------------
 1  2  3  4  5  6  7 
";
        assert_eq!(p.to_string(), expected);
    }
}
