//! The bitboard position against a naive 2-D board, move by move, on
//! thousands of random games and on more than one board size.

use std::collections::HashMap;

use proptest::prelude::*;
use score4::{Bitboard, Geometry, Position};

/// The obviously correct model: a grid of cells, `grid[col][row]`, row 0 at
/// the bottom; 0 empty, 1 first player, 2 second player.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
struct Naive<const W: usize, const H: usize> {
    grid: [[u8; H]; W],
    moves: usize,
}

impl<const W: usize, const H: usize> Naive<W, H> {
    fn new() -> Self {
        Naive {
            grid: [[0; H]; W],
            moves: 0,
        }
    }

    fn to_move(&self) -> u8 {
        1 + (self.moves % 2) as u8
    }

    fn height(&self, col: usize) -> usize {
        self.grid[col].iter().take_while(|&&c| c != 0).count()
    }

    fn playable(&self) -> Vec<usize> {
        (0..W).filter(|&c| self.height(c) < H).collect()
    }

    fn play(&mut self, col: usize) {
        let row = self.height(col);
        self.grid[col][row] = self.to_move();
        self.moves += 1;
    }

    /// Whether `grid` has four of `who` in a line, counting only lines
    /// through `through` when given.
    fn four_in(&self, who: u8, grid: &[[u8; H]; W], through: Option<(usize, usize)>) -> bool {
        let at = |c: isize, r: isize| {
            c >= 0
                && r >= 0
                && (c as usize) < W
                && (r as usize) < H
                && grid[c as usize][r as usize] == who
        };
        // A line through `through` starts at most 3 cells from it.
        let (cols, rows) = match through {
            None => (0..W as isize, 0..H as isize),
            Some((tc, tr)) => {
                let (tc, tr) = (tc as isize, tr as isize);
                ((tc - 3).max(0)..tc + 4, (tr - 3).max(0)..tr + 4)
            }
        };
        for c in cols {
            for r in rows.clone() {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let line: [(isize, isize); 4] = std::array::from_fn(|k| {
                        let k = k as isize;
                        (c + k * dc, r + k * dr)
                    });
                    let covers =
                        through.is_none_or(|(tc, tr)| line.contains(&(tc as isize, tr as isize)));
                    if covers && line.iter().all(|&(x, y)| at(x, y)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn has_four(&self, who: u8) -> bool {
        self.four_in(who, &self.grid, None)
    }

    /// Empty cells where a disc of `who` would make four.
    fn winning_cells(&self, who: u8) -> Vec<(usize, usize)> {
        let mut cells = Vec::new();
        for c in 0..W {
            for r in 0..H {
                if self.grid[c][r] == 0 {
                    let mut g = self.grid;
                    g[c][r] = who;
                    if self.four_in(who, &g, Some((c, r))) {
                        cells.push((c, r));
                    }
                }
            }
        }
        cells
    }

    fn mirror(&self) -> Self {
        let mut m = self.clone();
        m.grid.reverse();
        m
    }

    fn cells_of(&self, who: u8) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for c in 0..W {
            for r in 0..H {
                if self.grid[c][r] == who {
                    b |= Geometry::<W, H>::cell(c, r);
                }
            }
        }
        b
    }
}

fn cell_set<const W: usize, const H: usize>(cells: &[(usize, usize)]) -> Bitboard {
    cells.iter().fold(Bitboard::EMPTY, |b, &(c, r)| {
        b | Geometry::<W, H>::cell(c, r)
    })
}

/// Checks every query of `p` against the model `n`.
fn agree<const W: usize, const H: usize>(p: &Position<W, H>, n: &Naive<W, H>) {
    let me = n.to_move();
    let them = 3 - me;
    assert_eq!(p.moves_played() as usize, n.moves);
    assert_eq!(p.current(), n.cells_of(me));
    assert_eq!(p.opponent(), n.cells_of(them));
    assert_eq!(p.playable_columns().collect::<Vec<_>>(), n.playable());
    for col in 0..W {
        assert_eq!(p.can_play(col), n.height(col) < H);
    }
    assert_eq!(p.winning_cells(), cell_set::<W, H>(&n.winning_cells(me)));
    assert_eq!(
        p.opponent_winning_cells(),
        cell_set::<W, H>(&n.winning_cells(them))
    );
    for col in n.playable() {
        let mut m = n.clone();
        m.play(col);
        assert_eq!(p.is_winning_move(col), m.has_four(me), "column {col}");
    }
    assert_eq!(p.opponent_has_won(), n.has_four(them));
    assert_eq!(Geometry::<W, H>::has_four(p.current()), n.has_four(me));
    let m = p.mirror();
    let nm = n.mirror();
    assert_eq!(m.current(), nm.cells_of(me));
    assert_eq!(m.opponent(), nm.cells_of(them));
    assert_eq!(p.mirror_key(), m.key());
}

/// Plays one random game, checking the model after every move, and records
/// every key seen with the board it came from.
fn random_game<const W: usize, const H: usize>(
    choices: &[usize],
    seen: &mut HashMap<u64, Naive<W, H>>,
) {
    let mut p = Position::<W, H>::new();
    let mut n = Naive::<W, H>::new();
    let mut notation = String::new();
    agree(&p, &n);
    for &choice in choices {
        let open = n.playable();
        if open.is_empty() || n.has_four(1) || n.has_four(2) {
            break;
        }
        let col = open[choice % open.len()];
        p.play(col);
        n.play(col);
        if W <= 9 {
            notation.push(char::from(b'1' + col as u8));
        }
        agree(&p, &n);
        // Equal keys exactly when the boards (and so the side to move) are equal.
        match seen.get(&p.key()) {
            Some(other) => assert_eq!(other, &n, "two boards share a key"),
            None => {
                seen.insert(p.key(), n.clone());
            }
        }
    }
    if W <= 9 {
        assert_eq!(notation.parse::<Position<W, H>>(), Ok(p), "{notation}");
    }
}

/// Keys of distinct boards must differ: checked across all games of a run.
fn run_games<const W: usize, const H: usize>(games: &[Vec<usize>]) {
    let mut seen = HashMap::new();
    for g in games {
        random_game::<W, H>(g, &mut seen);
    }
}

fn games(max_len: usize) -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(prop::collection::vec(0usize..64, 0..=max_len), 20)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn standard_board_agrees_with_model(g in games(42)) {
        run_games::<7, 6>(&g);
    }

    #[test]
    fn small_board_agrees_with_model(g in games(20)) {
        run_games::<5, 4>(&g);
    }

    #[test]
    fn full_width_board_agrees_with_model(g in games(56)) {
        run_games::<8, 7>(&g);
    }
}

#[test]
fn display_matches_model_rendering() {
    let mut p = Position::<7, 6>::new();
    let mut n = Naive::<7, 6>::new();
    for col in [3, 3, 2, 4, 4, 1, 0, 6, 6, 6] {
        p.play(col);
        n.play(col);
    }
    let mut expected = String::new();
    for r in (0..6).rev() {
        let row: Vec<String> = (0..7)
            .map(|c| [".", "X", "O"][n.grid[c][r] as usize].to_string())
            .collect();
        expected += &format!("[{}]\n", row.join("  "));
    }
    expected += "--------------------\n 1  2  3  4  5  6  7 \n";
    assert_eq!(p.to_string(), expected);
}
