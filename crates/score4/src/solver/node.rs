//! What the search asks of a position and of a table, whatever the board.
//!
//! The search is written once, over these two traits, and compiled for
//! each board it runs on: for a size compiled in (a
//! [`Position<W, H>`](crate::Position) in a `u64`, a [`Table`]) every
//! method below is a constant or one instruction, and the search is the
//! code it would be written for that size alone; for a size held as a
//! [`Shape`](crate::wide::Shape) (a position beside its shape, `wide::node`,
//! and a [`wide::Table`](crate::wide::table::Table) past 64 bits) the same
//! search reads the masks from the shape, or from constants on the few
//! sizes past 64 bits compiled (`wide::compiled`).

use std::fmt::Debug;

use super::table::{Bounds, Table};
use crate::bitboard::{Bitboard, Geometry};
use crate::book::Book;
use crate::layout::{CellSet, Discs, Layout};
use crate::mem::TableError;
use crate::position::{Ending, Position};

/// A position's table key.
pub(crate) trait Key: Copy + Eq + Default + Debug + Send + Sync {
    /// A word standing for the key where threads mark the positions they
    /// are in: two keys may share one (a thread then puts off a move it
    /// need not have), never the other way round.
    fn mark(self) -> u64;
    /// The key as the journal keeps it, the same number on every board.
    fn in_journal(self) -> u128;
    /// The key of a journal's line, which the journal has checked fits
    /// the board's key bits.
    fn from_journal(key: u128) -> Self;
}

impl Key for u64 {
    #[inline(always)]
    fn mark(self) -> u64 {
        self
    }

    #[inline(always)]
    fn in_journal(self) -> u128 {
        self.into()
    }

    fn from_journal(key: u128) -> Self {
        key as u64
    }
}

impl Key for u128 {
    #[inline(always)]
    fn mark(self) -> u64 {
        (self >> 64) as u64 ^ self as u64
    }

    #[inline(always)]
    fn in_journal(self) -> u128 {
        self
    }

    fn from_journal(key: u128) -> Self {
        key
    }
}

/// A position as the search sees it: its discs, its layout, its keys.
pub(crate) trait Node: Copy + Send + Sync {
    /// The board's layout: its masks, constants for a compiled size, a
    /// reference to the [`Shape`](crate::wide::Shape) for the others.
    type Layout: Layout + Copy;
    /// The table key.
    type Key: Key;
    fn layout(&self) -> Self::Layout;
    fn moves_played(&self) -> u32;
    fn discs(&self) -> Discs<Cells<Self>>;
    /// Empty cells that would complete four for the side to move.
    fn winning_cells(&self) -> Cells<Self>;
    /// Empty cells that would complete four for the opponent.
    fn opponent_winning_cells(&self) -> Cells<Self>;
    /// The playable cells that do not lose at once, given the opponent's
    /// winning cells.
    fn non_losing_moves_against(&self, threats: Cells<Self>) -> Cells<Self>;
    /// Plays the playable `cell`.
    fn play_cell(&mut self, cell: Cells<Self>);
    /// A key unique to the position.
    fn key(&self) -> Self::Key;
    /// The key shared with the mirror image: the smaller of the two.
    fn canonical_key(&self) -> Self::Key;
    fn can_win_next(&self) -> bool;
    fn is_game_over(&self) -> bool;

    // What the engine around the search asks besides, once a call: not
    // on the search's path.

    /// How the game ended, if it did.
    fn ending(&self) -> Option<Ending>;
    /// The position's exact score in `book`, if the book holds it.
    fn book_score(&self, book: &Book) -> Option<i32>;

    /// Whether column `col` has room.
    fn can_play(&self, col: usize) -> bool {
        let layout = self.layout();
        col < layout.width() && self.landing(col).any()
    }

    /// The position after a disc in the open column `col`.
    fn after(&self, col: usize) -> Self {
        let mut next = *self;
        next.play_cell(self.landing(col));
        next
    }

    /// Whether a disc in column `col` makes four for the side to move.
    fn is_winning_move(&self, col: usize) -> bool {
        (self.winning_cells() & self.landing(col)).any()
    }

    /// The cell a disc in column `col` would land in (none if full).
    fn landing(&self, col: usize) -> Cells<Self> {
        let layout = self.layout();
        layout.playable(self.discs().mask) & layout.column(col)
    }
}

/// The set of cells of a node's layout.
pub(crate) type Cells<N> = <<N as Node>::Layout as Layout>::Cells;

/// A transposition table of proven bounds, shared by threads.
pub(crate) trait Store: Sync {
    type Key: Key;
    /// Starts loading the entry of `key` into the cache.
    fn prefetch(&self, key: Self::Key);
    /// What is known of `key`'s position.
    fn get(&self, key: Self::Key) -> Option<Bounds>;
    /// Keeps that the score of `key`'s position lies in `lower..=upper`,
    /// `best` its best or refuting move, found by searching `work`
    /// positions.
    fn put(&self, key: Self::Key, work: u64, lower: i32, upper: i32, best: Option<usize>);

    // What the engine asks of the tables it keeps.

    /// A table of about `mb` mebibytes for keys of `key_bits` bits.
    fn try_with_mb(mb: usize, key_bits: u32) -> Result<Self, TableError>
    where
        Self: Sized;
    /// The smallest table, in MiB, for keys of `key_bits` bits.
    fn min_mb(key_bits: u32) -> usize
    where
        Self: Sized;
    /// Has the system supply all of the table's memory now.
    fn touch(&mut self);
    /// Forgets every entry.
    fn clear(&mut self);
    /// The memory the table takes.
    fn bytes(&self) -> usize;
}

impl<const W: usize, const H: usize> Node for Position<W, H> {
    type Layout = Geometry<W, H>;
    type Key = u64;

    #[inline(always)]
    fn layout(&self) -> Geometry<W, H> {
        Geometry
    }

    #[inline(always)]
    fn moves_played(&self) -> u32 {
        Position::moves_played(self)
    }

    #[inline(always)]
    fn discs(&self) -> Discs<Bitboard> {
        Position::discs(self)
    }

    #[inline(always)]
    fn winning_cells(&self) -> Bitboard {
        Position::winning_cells(self)
    }

    #[inline(always)]
    fn opponent_winning_cells(&self) -> Bitboard {
        Position::opponent_winning_cells(self)
    }

    #[inline(always)]
    fn non_losing_moves_against(&self, threats: Bitboard) -> Bitboard {
        Position::non_losing_moves_against(self, threats)
    }

    #[inline(always)]
    fn play_cell(&mut self, cell: Bitboard) {
        Position::play_cell(self, cell)
    }

    #[inline(always)]
    fn key(&self) -> u64 {
        Position::key(self)
    }

    #[inline(always)]
    fn canonical_key(&self) -> u64 {
        Position::canonical_key(self)
    }

    fn can_win_next(&self) -> bool {
        Position::can_win_next(self)
    }

    fn is_game_over(&self) -> bool {
        Position::is_game_over(self)
    }

    fn ending(&self) -> Option<Ending> {
        Position::ending(self)
    }

    fn book_score(&self, book: &Book) -> Option<i32> {
        book.score(self)
    }

    fn can_play(&self, col: usize) -> bool {
        Position::can_play(self, col)
    }

    fn after(&self, col: usize) -> Self {
        Position::after(self, col)
    }

    fn is_winning_move(&self, col: usize) -> bool {
        Position::is_winning_move(self, col)
    }
}

impl Store for Table {
    type Key = u64;

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        Table::prefetch(self, key)
    }

    #[inline(always)]
    fn get(&self, key: u64) -> Option<Bounds> {
        Table::get(self, key)
    }

    #[inline(always)]
    fn put(&self, key: u64, work: u64, lower: i32, upper: i32, best: Option<usize>) {
        Table::put(self, key, work, lower, upper, best)
    }

    fn try_with_mb(mb: usize, key_bits: u32) -> Result<Self, TableError> {
        Table::try_with_mb(mb, key_bits)
    }

    fn min_mb(key_bits: u32) -> usize {
        Table::min_mb(key_bits)
    }

    fn touch(&mut self) {
        Table::touch(self)
    }

    fn clear(&mut self) {
        Table::clear(self)
    }

    fn bytes(&self) -> usize {
        Table::bytes(self)
    }
}
