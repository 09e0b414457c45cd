//! A reference model of the classic Score4 engine, written from its
//! description rather than from the fast engine: a 2-D board, the 69
//! windows counted one by one, and plain minimax without pruning or
//! caching. Slow on purpose; the tests compare the fast engine with it.

use crate::Rng;

/// Cells by `[row][col]`, row 0 at the top: +1 orange, -1 yellow, 0 empty.
pub type Grid = [[i8; 7]; 6];

const WIN: i32 = 1_000_000;
const NO_MOVE: i32 = 10_000_000;

/// Every window of four as `(row, col)` cells.
pub fn windows() -> Vec<[(usize, usize); 4]> {
    let mut all = Vec::new();
    for row in 0..6i32 {
        for col in 0..7i32 {
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (-1, 1)] {
                let cells: Vec<(i32, i32)> = (0..4).map(|i| (row + i * dr, col + i * dc)).collect();
                if cells
                    .iter()
                    .all(|&(r, c)| (0..6).contains(&r) && (0..7).contains(&c))
                {
                    let mut w = [(0, 0); 4];
                    for (slot, &(r, c)) in w.iter_mut().zip(&cells) {
                        *slot = (r as usize, c as usize);
                    }
                    all.push(w);
                }
            }
        }
    }
    all
}

/// The reference model with its window list.
pub struct Oracle {
    windows: Vec<[(usize, usize); 4]>,
}

impl Default for Oracle {
    fn default() -> Self {
        Self::new()
    }
}

impl Oracle {
    /// Builds the 69 windows.
    pub fn new() -> Self {
        let windows = windows();
        assert_eq!(windows.len(), 69);
        Oracle { windows }
    }

    /// The original's ScoreBoard: count window sums, yellow's four first.
    pub fn score(&self, g: &Grid) -> i32 {
        let mut counts = [0i32; 9];
        for w in &self.windows {
            let sum: i32 = w.iter().map(|&(r, c)| g[r][c] as i32).sum();
            counts[(sum + 4) as usize] += 1;
        }
        let c = |k: i32| counts[(k + 4) as usize];
        if c(-4) > 0 {
            -WIN
        } else if c(4) > 0 {
            WIN
        } else {
            c(1) + 2 * c(2) + 5 * c(3) - c(-1) - 2 * c(-2) - 5 * c(-3)
        }
    }

    /// The original's minimax; returns (move, value) and records the root
    /// columns' values in `lines` when `depth == max_depth`.
    fn minimax(
        &self,
        g: &mut Grid,
        maximize: bool,
        color: i8,
        depth: i32,
        max_depth: i32,
        lines: &mut Vec<(usize, i32)>,
    ) -> (i32, i32) {
        let mut best = if maximize { -NO_MOVE } else { NO_MOVE };
        let mut best_move = -1;
        for col in 0..7 {
            if g[0][col] != 0 {
                continue;
            }
            let row = (0..6)
                .rev()
                .find(|&r| g[r][col] == 0)
                .expect("column not full");
            g[row][col] = color;
            let s = self.score(g);
            if s == if maximize { WIN } else { -WIN } {
                best_move = col as i32;
                best = s;
                g[row][col] = 0;
                break;
            }
            let mut inner = if depth > 1 {
                self.minimax(g, !maximize, -color, depth - 1, max_depth, lines)
                    .1
            } else {
                s
            };
            g[row][col] = 0;
            if inner == WIN || inner == -WIN {
                inner -= depth * color as i32;
            }
            if depth == max_depth {
                lines.push((col, inner));
            }
            if maximize {
                if inner >= best {
                    best = inner;
                    best_move = col as i32;
                }
            } else if inner <= best {
                best = inner;
                best_move = col as i32;
            }
        }
        (best_move, best)
    }

    /// The original program's stdout and exit status for `g` at `level`.
    pub fn run(&self, g: &Grid, level: u32, debug: bool) -> (String, u8) {
        let [plain, debugged] = self.run_both(g, level);
        if debug {
            debugged
        } else {
            plain
        }
    }

    /// [`run`](Self::run) without and with `-debug`, from one search: the
    /// flag only adds the root columns' lines.
    pub fn run_both(&self, g: &Grid, level: u32) -> [(String, u8); 2] {
        let root = self.score(g);
        let both = |out: &str, status: u8| [(out.to_string(), status), (out.to_string(), status)];
        if root == -WIN {
            return both("You win\n\n", 255);
        }
        if root == WIN {
            return both("I win\n\n", 255);
        }
        let mut g = *g;
        let mut lines = Vec::new();
        let level = level as i32;
        let (mv, _) = self.minimax(&mut g, true, 1, level, level, &mut lines);
        let mut debug = String::new();
        for (col, score) in lines {
            debug += &format!("Depth {level}, placing on {col}, score:{score}\n");
        }
        let (out, status) = if mv == -1 {
            ("No move possible\n".to_string(), 255)
        } else {
            let col = mv as usize;
            let row = (0..6)
                .rev()
                .find(|&r| g[r][col] == 0)
                .expect("move is playable");
            g[row][col] = 1;
            if self.score(&g) == WIN {
                (format!("{col}\nI win\n\n"), 255)
            } else {
                (format!("{col}\n"), 0)
            }
        };
        [(out.clone(), status), (debug + &out, status)]
    }
}

/// The protocol's cell tokens for a grid, in a shuffled order.
pub fn tokens(g: &Grid, rng: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    for (row, line) in g.iter().enumerate() {
        for (col, &v) in line.iter().enumerate() {
            match v {
                1 => out.push(format!("o{row}{col}")),
                -1 => out.push(format!("y{row}{col}")),
                _ => {}
            }
        }
    }
    for i in (1..out.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        out.swap(i, j);
    }
    out
}

/// Whether `color` has four in a row on `g`.
pub fn has_four(oracle: &Oracle, g: &Grid, color: i8) -> bool {
    oracle
        .windows
        .iter()
        .any(|w| w.iter().all(|&(r, c)| g[r][c] == color))
}

/// A random gravity-consistent board with `discs` discs (fewer if the
/// board fills or, for a live board, if the next disc would end the game).
/// Colours alternate from a random first colour, or are drawn at random so
/// the counts differ; a few boards are allowed to hold four in a row.
pub fn random_grid(oracle: &Oracle, rng: &mut Rng, discs: usize) -> Grid {
    let mut g: Grid = [[0; 7]; 6];
    let random_colours = rng.below(4) == 0;
    let allow_won = rng.below(8) == 0;
    let mut color: i8 = if rng.below(2) == 0 { 1 } else { -1 };
    for _ in 0..discs {
        let mut open: Vec<usize> = (0..7).filter(|&c| g[0][c] == 0).collect();
        for i in (1..open.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            open.swap(i, j);
        }
        if random_colours {
            color = if rng.below(2) == 0 { 1 } else { -1 };
        }
        // A live board skips the columns where this disc would make four.
        let placed = open.into_iter().find(|&col| {
            let row = (0..6).rev().find(|&r| g[r][col] == 0).expect("open column");
            g[row][col] = color;
            if allow_won || !has_four(oracle, &g, color) {
                return true;
            }
            g[row][col] = 0;
            false
        });
        if placed.is_none() {
            break;
        }
        color = -color;
    }
    g
}

/// A random full board on which nobody has four in a row: the end of a
/// drawn game, where the engine has no move.
pub fn drawn_grid(oracle: &Oracle, rng: &mut Rng) -> Grid {
    loop {
        let g = random_grid(oracle, rng, 42);
        let full = g[0].iter().all(|&c| c != 0);
        if full && !has_four(oracle, &g, 1) && !has_four(oracle, &g, -1) {
            return g;
        }
    }
}
