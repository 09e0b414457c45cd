//! What the integration tests share: a deterministic random generator, and
//! a reference model of the classic Score4 engine, written from its
//! description rather than from the fast engine: a 2-D board, the 69
//! windows counted one by one, and plain minimax without pruning or
//! caching. Slow on purpose; the tests compare the fast engine against it.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// The environment variable naming the folder of c4's published 7x6 sets.
/// They are c4's, under its own licence, so they stay outside the
/// repository and the tests that read them run only when asked.
pub const PUBLISHED_SETS: &str = "SCORE4_C4_SETS";

/// The folder of c4's published sets when [`PUBLISHED_SETS`] names one
/// (absolute, or relative to the repository's root); `None`, said on
/// stderr so the skip shows, when it is unset. A folder that was asked for
/// and holds no set fails the test: asking and testing nothing must not
/// pass.
pub fn published_sets(test: &str) -> Option<PathBuf> {
    let Some(value) = std::env::var_os(PUBLISHED_SETS) else {
        // Straight to the stream: the test harness captures `eprintln!`
        // of passing tests, and a skip nobody sees reads as a pass.
        let _ = writeln!(
            std::io::stderr(),
            "{test}: skipped; set {PUBLISHED_SETS} to the folder of c4's published 7x6 sets to run it"
        );
        return None;
    };
    assert!(
        !value.is_empty(),
        "{PUBLISHED_SETS} is set but empty: name the folder of c4's published sets"
    );
    let dir = repo_root().join(value);
    let sets = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{PUBLISHED_SETS}={}: {e}", dir.display()))
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "txt"))
        .count();
    assert!(
        sets > 0,
        "{PUBLISHED_SETS}={}: no .txt set in it",
        dir.display()
    );
    Some(dir)
}

/// The repository's root, whichever crate's tests ask.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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
        let root = self.score(g);
        if root == -WIN {
            return ("You win\n\n".into(), 255);
        }
        if root == WIN {
            return ("I win\n\n".into(), 255);
        }
        let mut g = *g;
        let mut lines = Vec::new();
        let level = level as i32;
        let (mv, _) = self.minimax(&mut g, true, 1, level, level, &mut lines);
        let mut out = String::new();
        if debug {
            for (col, score) in lines {
                out += &format!("Depth {level}, placing on {col}, score:{score}\n");
            }
        }
        if mv == -1 {
            out += "No move possible\n";
            return (out, 255);
        }
        let col = mv as usize;
        let row = (0..6)
            .rev()
            .find(|&r| g[r][col] == 0)
            .expect("move is playable");
        g[row][col] = 1;
        out += &format!("{col}\n");
        if self.score(&g) == WIN {
            out += "I win\n\n";
            return (out, 255);
        }
        (out, 0)
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

/// A small deterministic generator (xorshift64*), so failures replay.
pub struct Rng(u64);

impl Rng {
    /// Seeds the generator (any seed; zero is remapped).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next raw value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
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
