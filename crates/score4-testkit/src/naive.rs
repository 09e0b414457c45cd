//! A board of any size as a plain grid of cells, and the exact score by
//! trying every continuation on it: no bitboards, no pruning, nothing but
//! the rules and the score convention. The model of boards past 64 bits,
//! where the bitboard [`Reference`](crate::reference::Reference) cannot go.

use score4::score;

/// A grid `width` x `height`, cell `(col, row)` at `col * height + row`:
/// 0 empty, 1 the first player's disc, 2 the second's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    width: usize,
    height: usize,
    cells: Vec<u8>,
    moves: u32,
}

impl Grid {
    /// The empty board.
    pub fn new(width: usize, height: usize) -> Grid {
        Grid {
            width,
            height,
            cells: vec![0; width * height],
            moves: 0,
        }
    }

    /// The board after `moves`, columns from 0; `None` if one is full or
    /// follows a four.
    pub fn after(width: usize, height: usize, moves: &[usize]) -> Option<Grid> {
        let mut g = Grid::new(width, height);
        for &col in moves {
            if !g.can_play(col) || g.someone_won() {
                return None;
            }
            g.play(col);
        }
        Some(g)
    }

    /// Discs played.
    pub fn moves_played(&self) -> u32 {
        self.moves
    }

    fn at(&self, col: usize, row: usize) -> u8 {
        self.cells[col * self.height + row]
    }

    /// The lowest empty row of `col`, if any.
    fn free_row(&self, col: usize) -> Option<usize> {
        (0..self.height).find(|&row| self.at(col, row) == 0)
    }

    /// Whether `col` has room.
    pub fn can_play(&self, col: usize) -> bool {
        col < self.width && self.free_row(col).is_some()
    }

    /// The colour of the side to move: 1 or 2.
    fn mover(&self) -> u8 {
        1 + (self.moves % 2) as u8
    }

    /// Drops the mover's disc into `col`, which has room.
    pub fn play(&mut self, col: usize) {
        let row = self.free_row(col).expect("a column with room");
        let who = self.mover();
        self.cells[col * self.height + row] = who;
        self.moves += 1;
    }

    /// Whether `who` has four in a line through `(col, row)`, counted cell
    /// by cell in each of the four directions.
    fn four_through(&self, col: usize, row: usize, who: u8) -> bool {
        let (w, h) = (self.width as i64, self.height as i64);
        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let run = |sign: i64| {
                (1..4)
                    .take_while(|&k| {
                        let (c, r) = (col as i64 + sign * k * dc, row as i64 + sign * k * dr);
                        (0..w).contains(&c)
                            && (0..h).contains(&r)
                            && self.at(c as usize, r as usize) == who
                    })
                    .count()
            };
            1 + run(1) + run(-1) >= 4
        })
    }

    /// Whether anyone has four anywhere.
    pub fn someone_won(&self) -> bool {
        (0..self.width).any(|c| {
            (0..self.height).any(|r| self.at(c, r) != 0 && self.four_through(c, r, self.at(c, r)))
        })
    }

    /// Whether a disc of the mover in `col`, which has room, makes four.
    pub fn wins_with(&self, col: usize) -> bool {
        let row = self.free_row(col).expect("a column with room");
        let mut g = self.clone();
        g.cells[col * self.height + row] = self.mover();
        g.four_through(col, row, self.mover())
    }

    /// Whether every cell is taken.
    pub fn is_full(&self) -> bool {
        self.moves as usize == self.width * self.height
    }
}

/// The unpruned negamax on [`Grid`]s, remembering finished answers.
#[derive(Default)]
pub struct Naive {
    memo: ahash::AHashMap<Vec<u8>, i32>,
}

impl Naive {
    /// A model with nothing remembered.
    pub fn new() -> Naive {
        Naive::default()
    }

    /// The score of every move of `g`, `None` for a full column.
    pub fn move_scores(&mut self, g: &Grid) -> Vec<Option<i32>> {
        let cells = g.width * g.height;
        (0..g.width)
            .map(|col| {
                if !g.can_play(col) {
                    return None;
                }
                Some(if g.wins_with(col) {
                    score::win(cells, g.moves)
                } else {
                    let mut child = g.clone();
                    child.play(col);
                    if child.is_full() {
                        0
                    } else {
                        -self.score(&child)
                    }
                })
            })
            .collect()
    }

    /// The exact score of `g`, a position in play, for the side to move.
    pub fn score(&mut self, g: &Grid) -> i32 {
        if let Some(&s) = self.memo.get(&g.cells) {
            return s;
        }
        let best = self
            .move_scores(g)
            .into_iter()
            .flatten()
            .max()
            .expect("a position in play has a move");
        self.memo.insert(g.cells.clone(), best);
        best
    }
}

/// A random game on a `width` x `height` board that avoids winning moves,
/// stopped with `empty` cells left: its moves in the notation, and the
/// grid. `None` when random play ran into a position with only winning
/// moves.
pub fn late_game(
    width: usize,
    height: usize,
    empty: usize,
    rng: &mut crate::Rng,
) -> Option<(String, Grid)> {
    let mut g = Grid::new(width, height);
    let mut moves = String::new();
    while (g.moves_played() as usize) < width * height - empty {
        let open: Vec<usize> = (0..width)
            .filter(|&c| g.can_play(c) && !g.wins_with(c))
            .collect();
        if open.is_empty() {
            return None;
        }
        let col = open[rng.index(open.len())];
        g.play(col);
        moves.push(score4::wide::notation::character(col + 1).expect("at most 16 columns"));
    }
    Some((moves, g))
}
