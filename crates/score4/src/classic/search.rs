//! The classic Score4 engine's depth-limited search, answer for answer.
//!
//! The original is a plain depth-limited minimax over the heuristic of
//! [`crate::heuristic`]. This module returns the same move and, on request,
//! the same per-column values, but searches far fewer nodes. It rests on a
//! negamax restatement of the original (values from the side to move's
//! point of view, depth `d` remaining):
//!
//! * no playable column: `-NO_MOVE`;
//! * the mover can complete four at once: the original stops there with
//!   exactly `WIN`, and the parent turns an exact `±WIN` into a win `d`
//!   plies away. Here such a node returns the parent's shifted value
//!   `WIN + d + 1` itself, so every node value orders outcomes as the
//!   original's choices do and alpha-beta bounds stay valid (left as
//!   `WIN`, an immediate win would rank below a later one, `WIN + k` with
//!   `k < d`, until the parent shifts it);
//! * `d == 1`: the best static score among the children;
//! * otherwise the best negated child value.
//!
//! A node's value depends only on the two disc sets and the depth, so a
//! transposition table keyed by (position, depth) is exact, and any move
//! order and alpha-beta pruning inside the tree give the same values. The
//! original's tie-break (the rightmost column among equals) only shows at
//! the root, which is searched column by column with windows that encode it.

use super::answer::{game_over, Answer, Outcome};
use crate::bitboard::{Bitboard, Standard};
use crate::board::Board;
use crate::heuristic::{cell_weight, evaluate, material, open_threes, WIN};
use crate::mem::{zeroed, TableError};
use crate::solver::{StopHandle, Stopped};

type G = Standard;

/// The original's value of a node with no playable column, from the point of
/// view of the side that cannot move: a full board looks excellent to the
/// side that filled it.
pub const NO_MOVE: i32 = 10_000_000;

/// Where the depth goes in a table tag: position keys (`current + mask`)
/// stay below it, so depths up to [`MAX_LEVEL`] fit above them.
const DEPTH_SHIFT: u32 = G::LAYOUT_BITS;

/// The deepest `-level` accepted: the largest depth a table tag holds.
/// Beyond the empty cells a deeper level still changes the answer, as the
/// win-distance shift grows with it, so levels are not capped at the board
/// size; this bound keeps every shifted value far from overflow and below
/// the no-move value, as in the original.
pub const MAX_LEVEL: u32 = (1 << (64 - DEPTH_SHIFT)) - 1;
const _: () = assert!(WIN + MAX_LEVEL as i32 + 1 < NO_MOVE);

/// Larger than every value a node can take.
const INF: i32 = 100_000_000;

/// The smallest table: 2^14 slots of 16 bytes, 256 KiB. An allocation this
/// large comes straight from the operating system as zeroed pages, so an
/// untouched slot costs nothing; a smaller one is carved from the heap and
/// `calloc` clears it all up front, which costs a shallow search more than
/// the search itself.
const MIN_TABLE_BITS: u32 = 14;

/// The largest table, 64 MiB: deep searches keep their most recent
/// positions rather than growing without bound.
const MAX_TABLE_BITS: u32 = 22;

/// Columns from the centre out: central discs sit in more windows, so their
/// moves tend to score best and cut the search earliest. Sorting moves by
/// static score or by a history of cut-offs searched more nodes.
const CENTRE_FIRST: [usize; WIDTH] = G::CENTRE_FIRST;

const WIDTH: usize = G::WIDTH;
const BOTTOM: u64 = G::BOTTOM.0;
const BOARD: u64 = G::BOARD.0;

/// A table slot's data: the value in the low 32 bits, the bound above it,
/// then the best column.
const BOUND_SHIFT: u32 = 32;
const COLUMN_SHIFT: u32 = 36;
/// The best column's field; its all-ones value, never a column, means none.
const COLUMN_MASK: u64 = 7;
const NO_COLUMN: usize = COLUMN_MASK as usize;
const _: () = assert!(WIDTH <= NO_COLUMN, "a column must fit a table slot");

/// Whether a stored value is exact or only bounds the node's value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

/// A transposition table: one slot per hashed (position, depth), the newest
/// result replacing the old. Allocated zeroed, so the operating system
/// hands out its pages only as the search touches them.
#[derive(Clone, Debug)]
struct Table {
    /// `[tag, data]`: the tag is the position key with the depth above it
    /// (never zero, as depth >= 1); the data packs value, bound and best
    /// column.
    slots: Box<[[u64; 2]]>,
    shift: u32,
}

impl Table {
    fn try_with_bits(bits: u32) -> Result<Self, TableError> {
        Ok(Table {
            slots: zeroed(1 << bits)?,
            shift: 64 - bits,
        })
    }

    #[inline(always)]
    fn slot(&self, tag: u64) -> usize {
        (tag.wrapping_mul(crate::rng::GOLDEN) >> self.shift) as usize
    }

    #[inline(always)]
    fn get(&self, tag: u64) -> Option<(i32, Bound, usize)> {
        let [stored, data] = self.slots[self.slot(tag)];
        if stored != tag {
            return None;
        }
        let bound = match (data >> BOUND_SHIFT) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        let column = ((data >> COLUMN_SHIFT) & COLUMN_MASK) as usize;
        Some((data as u32 as i32, bound, column))
    }

    #[inline(always)]
    fn put(&mut self, tag: u64, value: i32, bound: Bound, column: usize) {
        let i = self.slot(tag);
        self.slots[i] = [
            tag,
            (value as u32 as u64)
                | ((bound as u64) << BOUND_SHIFT)
                | ((column as u64 & COLUMN_MASK) << COLUMN_SHIFT),
        ];
    }
}

/// How often a stoppable search looks at its handle: every this many
/// nodes (a power of two, tested with a mask), so that the look costs
/// nothing next to the nodes and a stop takes a fraction of a millisecond.
const STOP_CHECK_NODES: u64 = 1 << 12;

/// The search state: a transposition table and a node counter, reusable
/// across requests.
#[derive(Clone, Debug)]
pub struct Search {
    table: Table,
    nodes: u64,
    /// The handle of an [`answer_until`](Self::answer_until) under way.
    stop: Option<StopHandle>,
    /// That search was stopped: every node returns at once, storing nothing.
    halted: bool,
}

impl Search {
    /// A search whose table suits `level`: shallow searches visit few
    /// positions, so a small table keeps process start-up cheap.
    ///
    /// # Panics
    ///
    /// If the system will not allocate the table (at most 64 MiB); see
    /// [`try_for_level`](Self::try_for_level).
    pub fn for_level(level: u32) -> Self {
        match Self::try_for_level(level) {
            Ok(search) => search,
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`for_level`](Self::for_level), but a table the system will
    /// not allocate is an error.
    pub fn try_for_level(level: u32) -> Result<Self, TableError> {
        Ok(Search {
            table: Table::try_with_bits(
                level
                    .saturating_add(6)
                    .clamp(MIN_TABLE_BITS, MAX_TABLE_BITS),
            )?,
            nodes: 0,
            stop: None,
            halted: false,
        })
    }

    /// Nodes visited so far (positions searched with one or more plies left).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Answers for `board` at `level`, with every root column's value when
    /// `debug` is set. The protocol only asks for levels 1..=[`MAX_LEVEL`];
    /// level 0 behaves as the original's (one ply, printed as depth 0), and
    /// deeper levels are searched, and printed, as [`MAX_LEVEL`].
    pub fn answer(&mut self, board: &Board, level: u32, debug: bool) -> Answer {
        self.answer_with::<false>(board, level, debug)
    }

    /// [`answer`](Self::answer), looking at the stop handle when
    /// `STOPPABLE`: the engine's own searches pay nothing for it.
    fn answer_with<const STOPPABLE: bool>(
        &mut self,
        board: &Board,
        level: u32,
        debug: bool,
    ) -> Answer {
        let level = level.min(MAX_LEVEL);
        let (orange, yellow) = (board.orange().0, board.yellow().0);
        let mut answer = Answer {
            level,
            columns: [None; WIDTH],
            outcome: Outcome::NoMove,
        };
        if let Some(outcome) = game_over(board) {
            answer.outcome = outcome;
            return answer;
        }
        let mask = orange | yellow;
        let playable = (mask + BOTTOM) & BOARD;
        let wins = G::winning_cells(Bitboard(orange)).0 & playable;
        // The original stops at the first winning column, so only the
        // columns to its left are fully searched.
        let first_win = (0..WIDTH).find(|&c| wins & G::column(c).0 != 0);
        if let Some(column) = first_win {
            answer.outcome = Outcome::Move { column, wins: true };
        }
        if debug {
            let mut best: Option<(i32, usize)> = None;
            for column in 0..first_win.unwrap_or(WIDTH) {
                let cell = playable & G::column(column).0;
                if cell == 0 {
                    continue;
                }
                let value = self.root_value::<STOPPABLE>(orange, mask, cell, level, -INF, INF);
                answer.columns[column] = Some(value);
                if best.is_none_or(|(b, _)| value >= b) {
                    best = Some((value, column));
                }
            }
            if let (None, Some((_, column))) = (first_win, best) {
                answer.outcome = Outcome::Move {
                    column,
                    wins: false,
                };
            }
        } else if first_win.is_none() {
            let column = self.best_column::<STOPPABLE>(orange, mask, playable, level);
            answer.outcome = Outcome::Move {
                column,
                wins: false,
            };
        }
        answer
    }

    /// [`answer`](Self::answer), given up when `stop` is stopped: the
    /// original's search cannot be, and its deep levels take hours. A
    /// search given up stores nothing more in the table, so the search
    /// stays reusable.
    pub fn answer_until(
        &mut self,
        board: &Board,
        level: u32,
        debug: bool,
        stop: &StopHandle,
    ) -> Result<Answer, Stopped> {
        self.stop = Some(stop.clone());
        self.halted = stop.is_stopped();
        let answer = self.answer_with::<true>(board, level, debug);
        self.stop = None;
        if std::mem::take(&mut self.halted) {
            return Err(Stopped);
        }
        Ok(answer)
    }

    /// The rightmost column of highest value, orange to move with no
    /// immediate win. Columns are tried centre first; each later one is
    /// only tested against the best so far with a window that already
    /// applies the rightmost-wins rule, so most need no exact value.
    fn best_column<const STOPPABLE: bool>(
        &mut self,
        orange: u64,
        mask: u64,
        playable: u64,
        level: u32,
    ) -> usize {
        let mut best: Option<(i32, usize)> = None;
        for column in CENTRE_FIRST {
            let cell = playable & G::column(column).0;
            if cell == 0 {
                continue;
            }
            match best {
                None => {
                    let value = self.root_value::<STOPPABLE>(orange, mask, cell, level, -INF, INF);
                    best = Some((value, column));
                }
                Some((b, m)) => {
                    // Right of the best, a tie takes over; left of it, only
                    // a strictly higher value does.
                    let alpha = if column > m { b - 1 } else { b };
                    let value = self.root_value::<STOPPABLE>(orange, mask, cell, level, alpha, INF);
                    if value > alpha {
                        best = Some((value, column));
                    }
                }
            }
        }
        best.map_or(0, |(_, column)| column)
    }

    /// The value for orange of dropping on `cell` at the root, within
    /// `(alpha, beta)` (fail-soft: exact inside the window).
    fn root_value<const STOPPABLE: bool>(
        &mut self,
        orange: u64,
        mask: u64,
        cell: u64,
        level: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let yellow = orange ^ mask;
        if level <= 1 {
            return evaluate(Bitboard(orange | cell), Bitboard(yellow));
        }
        let yellow_wins = G::winning_cells(Bitboard(yellow)).0;
        -self.negamax::<STOPPABLE>(yellow, yellow_wins, mask | cell, level - 1, -beta, -alpha)
    }

    /// The value of the node with `cur` (the mover's discs) and `mask` (all
    /// discs) at `depth` remaining, fail-soft within `(alpha, beta)`.
    /// `cur_wins` are the cells that would complete four for the mover: the
    /// parent computed them as its opponent's threats, and the mover's discs
    /// have not changed since.
    fn negamax<const STOPPABLE: bool>(
        &mut self,
        cur: u64,
        cur_wins: u64,
        mask: u64,
        depth: u32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if STOPPABLE {
            if self.nodes & (STOP_CHECK_NODES - 1) == 0 {
                self.halted |= self.stop.as_ref().is_some_and(StopHandle::is_stopped);
            }
            if self.halted {
                return 0;
            }
        }
        let playable = (mask + BOTTOM) & BOARD;
        if playable == 0 {
            return -NO_MOVE;
        }
        if cur_wins & playable != 0 {
            return WIN + depth as i32 + 1;
        }
        let opp = cur ^ mask;
        let tag = (cur + mask) | ((depth as u64) << DEPTH_SHIFT);
        if depth == 1 {
            // A leaf's children are scored in full unless one reaches
            // `beta`, so its value is exact or a lower bound.
            if let Some((value, bound, _)) = self.table.get(tag) {
                if bound == Bound::Exact || value >= beta {
                    return value;
                }
            }
            let value = leaf_value(cur, opp, playable, beta);
            let bound = if value >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.table.put(tag, value, bound, 0);
            return value;
        }
        let opp_wins = G::winning_cells(Bitboard(opp)).0;

        let mut hint = NO_COLUMN;
        if let Some((value, bound, column)) = self.table.get(tag) {
            match bound {
                Bound::Exact => return value,
                Bound::Lower if value >= beta => return value,
                Bound::Upper if value <= alpha => return value,
                Bound::Lower => alpha = alpha.max(value),
                Bound::Upper => beta = beta.min(value),
            }
            hint = column;
        }
        let original_alpha = alpha;

        let mut best = -INF;
        let mut best_column = hint;
        let threats = opp_wins & playable;
        let candidates = if threats != 0 {
            // Any move that leaves an opponent's winning cell open lets it
            // win at once: worth exactly the shifted loss, no search needed.
            if playable & !threats != 0 {
                best = -(WIN + depth as i32);
                best_column = G::column_of(Bitboard(playable & !threats));
            }
            threats
        } else {
            playable
        };
        alpha = alpha.max(best);
        if best < beta {
            let mut order = [0usize; WIDTH];
            let mut n = 0;
            if hint < WIDTH && candidates & G::column(hint).0 != 0 {
                order[0] = hint;
                n = 1;
            }
            for column in CENTRE_FIRST {
                if column != hint && candidates & G::column(column).0 != 0 {
                    order[n] = column;
                    n += 1;
                }
            }
            for &column in &order[..n] {
                let cell = candidates & G::column(column).0;
                let value = -self.negamax::<STOPPABLE>(
                    opp,
                    opp_wins,
                    mask | cell,
                    depth - 1,
                    -beta,
                    -alpha,
                );
                if STOPPABLE && self.halted {
                    // The value is no value: nothing of it may be stored.
                    return 0;
                }
                if value > best {
                    best = value;
                    best_column = column;
                    if value > alpha {
                        alpha = value;
                        if value >= beta {
                            break;
                        }
                    }
                }
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.put(tag, best, bound, best_column);
        best
    }
}

/// A node with one ply left and no immediate win: the best static score
/// among its children, stopping at the first that reaches `beta`. The
/// material is shared by all children, so only the moved disc's weight and
/// the open threes are computed per child (most such nodes stop after one
/// or two children, so sharing more work up front does not pay).
#[inline(always)]
fn leaf_value(cur: u64, opp: u64, playable: u64, beta: i32) -> i32 {
    let base = material(Bitboard(cur)) - material(Bitboard(opp));
    let empty = BOARD & !(cur | opp);
    let mut best = -INF;
    for column in CENTRE_FIRST {
        let cell = playable & G::column(column).0;
        if cell == 0 {
            continue;
        }
        let rest = Bitboard(empty & !cell);
        let value = base
            + cell_weight(Bitboard(cell))
            + 2 * (open_threes(Bitboard(cur | cell), rest) as i32
                - open_threes(Bitboard(opp), rest) as i32);
        if value > best {
            best = value;
            if value >= beta {
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_keeps_depths_apart() {
        let mut t = Table::try_with_bits(10).unwrap();
        let key = 0b1011u64;
        t.put(key | (3 << DEPTH_SHIFT), -1_000_005, Bound::Lower, 6);
        assert!(t.get(key | (4 << DEPTH_SHIFT)).is_none());
        let (v, b, c) = t.get(key | (3 << DEPTH_SHIFT)).unwrap();
        assert_eq!((v, b == Bound::Lower, c), (-1_000_005, true, 6));
    }

    /// Boards of random games, orange (the engine) to move.
    fn boards(count: usize, seed: u64) -> Vec<Board> {
        let mut rng = crate::rng::Rng::new(seed);
        (0..count)
            .map(|_| {
                let moves = rng.index(20);
                let (_, p) = crate::position::random_game::<7, 6>(&mut rng, moves);
                Board::from_position(&p)
            })
            .collect()
    }

    #[test]
    fn a_search_never_stopped_answers_as_the_plain_one() {
        let handle = StopHandle::default();
        for (i, board) in boards(60, 3).iter().enumerate() {
            let level = 1 + (i as u32 % 9);
            let debug = i % 2 == 0;
            let plain = Search::for_level(level).answer(board, level, debug);
            let mut search = Search::for_level(level);
            assert_eq!(search.answer_until(board, level, debug, &handle), Ok(plain));
        }
    }

    #[test]
    fn a_stopped_search_gives_up_and_stays_reusable() {
        let board = Board::from_cells(["o53"]).unwrap();
        let mut search = Search::for_level(MAX_LEVEL);
        // Stopped before it starts: not even one look at the table's worth.
        let stopped = StopHandle::default();
        stopped.stop();
        assert_eq!(
            search.answer_until(&board, 40, false, &stopped),
            Err(Stopped)
        );
        // Stopped by another thread in the middle of a search of hours.
        let handle = StopHandle::default();
        let stopper = handle.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stopper.stop();
        });
        assert_eq!(search.answer_until(&board, 40, true, &handle), Err(Stopped));
        t.join().unwrap();
        // What it stored before it gave up is sound: the same search then
        // answers every board as a fresh one does.
        let free = StopHandle::default();
        for (i, board) in boards(30, 5).iter().enumerate() {
            let level = 1 + (i as u32 % 8);
            let fresh = Search::for_level(level).answer(board, level, true);
            assert_eq!(search.answer_until(board, level, true, &free), Ok(fresh));
        }
    }
}
