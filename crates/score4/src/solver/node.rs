//! What the search asks of a position and of a table, whatever the board.
//!
//! The search is written once, over these two traits, and compiled for
//! each board it runs on: for a size compiled in (a
//! [`Position<W, H>`](crate::Position) in a `u64`, a [`Table`]) every
//! method below is a constant or one instruction, and the search is the
//! code it would be written for that size alone; for a size given as data
//! (a [`wide::Position`](crate::wide::Position) beside its
//! [`Shape`](crate::wide::Shape), a [`wide::Table`](crate::wide::table::Table))
//! the same search reads the masks from the shape.

use std::fmt::Debug;

use super::table::{Bounds, Table};
use crate::bitboard::{Bitboard, Geometry};
use crate::layout::{Discs, Layout};
use crate::position::Position;

/// A position's table key.
pub(crate) trait Key: Copy + Eq + Default + Debug + Send + Sync {
    /// A word standing for the key where threads mark the positions they
    /// are in: two keys may share one (a thread then puts off a move it
    /// need not have), never the other way round.
    fn mark(self) -> u64;
    /// The key as the journal keeps it, if the journal can (its keys are
    /// 64 bits).
    fn in_journal(self) -> Option<u64>;
}

impl Key for u64 {
    #[inline(always)]
    fn mark(self) -> u64 {
        self
    }

    #[inline(always)]
    fn in_journal(self) -> Option<u64> {
        Some(self)
    }
}

impl Key for u128 {
    #[inline(always)]
    fn mark(self) -> u64 {
        (self >> 64) as u64 ^ self as u64
    }

    #[inline(always)]
    fn in_journal(self) -> Option<u64> {
        None
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
}
