//! How many positions a book of a depth can hold at most, computed in
//! microseconds: a plan refuses a depth whose positions could not be
//! listed before it starts listing them, which for a mistyped depth (or a
//! book's forged header) took minutes and gigabytes before the listing's
//! own limit stopped it.
//!
//! The count is over a superset of the positions a book lists: every
//! filling of the board by gravity with `n` discs, the first player's
//! `ceil(n / 2)` of them, whether reachable or not and whether a four is
//! on it or not. Mirror images are one position in a book, so the fillings
//! are counted by their classes under the mirror (Burnside's lemma: the
//! fillings plus the symmetric ones, halved), and a subset closed under
//! the mirror, as a book's positions are, has no more classes than that.

/// Binomial coefficients up to the most cells a board has.
struct Binomials {
    rows: Vec<Vec<u128>>,
}

impl Binomials {
    fn new(n: usize) -> Self {
        let mut rows: Vec<Vec<u128>> = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let mut row = vec![1u128; i + 1];
            for k in 1..i {
                row[k] = rows[i - 1][k - 1] + rows[i - 1][k];
            }
            rows.push(row);
        }
        Binomials { rows }
    }

    /// `n` choose `k`, 0 outside 0..=n.
    fn choose(&self, n: usize, k: usize) -> u128 {
        self.rows[n].get(k).copied().unwrap_or(0)
    }
}

/// `ways[s]`: the ways `columns` columns of `height` cells hold `s`
/// discs in all, for `s` up to `cells`.
fn heights(columns: usize, height: usize, cells: usize) -> Vec<u128> {
    let mut ways = vec![0u128; cells + 1];
    ways[0] = 1;
    for _ in 0..columns {
        let mut next = vec![0u128; cells + 1];
        for (s, &w) in ways.iter().enumerate().filter(|(_, &w)| w > 0) {
            for h in 0..=height.min(cells - s) {
                next[s + h] += w;
            }
        }
        ways = next;
    }
    ways
}

/// At least the number of positions, mirror images once, with at most
/// `depth` moves on a board of `width` x `height`.
pub(super) fn positions_at_most(width: usize, height: usize, depth: u32) -> u128 {
    let cells = width * height;
    let depth = (depth as usize).min(cells);
    let choose = Binomials::new(cells);
    let all = heights(width, height, cells);
    // A symmetric filling is its left half (mirrored on the right) and
    // its middle column, if the width is odd.
    let half = heights(width / 2, height, cells);
    let middle = if width % 2 == 1 { height } else { 0 };
    let mut total = 0u128;
    for (n, &placed) in all.iter().enumerate().take(depth + 1) {
        let first = n.div_ceil(2);
        let fillings = placed * choose.choose(n, first);
        let mut symmetric = 0u128;
        for t in (0..=middle.min(n)).filter(|t| (n - t) % 2 == 0) {
            let s = (n - t) / 2;
            // The first player's discs: `x` in each half, `first - 2x` in the middle.
            let colourings: u128 = (0..=s.min(first / 2))
                .map(|x| choose.choose(s, x) * choose.choose(t, first - 2 * x))
                .sum();
            symmetric += half[s] * colourings;
        }
        total += (fillings + symmetric) / 2;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::build::Plan;
    use crate::Position;

    /// Every position with at most `depth` moves, mirror images once,
    /// found by walking every move from the empty board: the positions
    /// a book lists, and those whose game is over too.
    fn walked<const W: usize, const H: usize>(depth: u32) -> Vec<u128> {
        let mut seen = std::collections::HashSet::new();
        let mut per_depth = vec![0u128; depth as usize + 1];
        let mut stack = vec![Position::<W, H>::new()];
        while let Some(p) = stack.pop() {
            if !seen.insert(p.canonical_key()) {
                continue;
            }
            per_depth[p.moves_played() as usize] += 1;
            if p.moves_played() == depth || p.is_game_over() {
                continue;
            }
            for col in 0..W {
                if p.can_play(col) {
                    stack.push(p.after(col));
                }
            }
        }
        per_depth
    }

    #[test]
    fn bounds_every_position_walked() {
        fn check<const W: usize, const H: usize>(depth: u32) {
            let walked = walked::<W, H>(depth);
            let mut total = 0;
            for d in 0..=depth {
                total += walked[d as usize];
                let bound = positions_at_most(W, H, d);
                assert!(total <= bound, "{W}x{H} depth {d}: {total} > {bound}");
                // Close enough to be of use: the unreachable fillings and
                // those of finished games are a minority this shallow.
                assert!(bound <= 2 * total, "{W}x{H} depth {d}: {bound} vs {total}");
            }
            let plan = Plan::new(&crate::wide::Shape::any(W, H), depth);
            let listed: usize = (0..=depth).map(|d| plan.level(d).len()).sum();
            assert!(listed as u128 <= positions_at_most(W, H, depth));
        }
        check::<4, 4>(16);
        check::<5, 4>(12);
        check::<7, 6>(7);
        check::<9, 6>(5);
        check::<4, 15>(9);
    }

    #[test]
    fn counts_the_first_levels_by_hand() {
        // One disc: 7 fillings, the middle one symmetric: (7 + 1) / 2.
        // Two: 28 ways to place them, each coloured 2 ways (a disc of the
        // second player under the first's, unreachable, counted too),
        // and 2 symmetric (both in the middle column): (56 + 2) / 2.
        assert_eq!(positions_at_most(7, 6, 0), 1);
        assert_eq!(positions_at_most(7, 6, 1), 1 + 4);
        assert_eq!(positions_at_most(7, 6, 2), 1 + 4 + 29);
    }

    #[test]
    fn a_full_board_fits_the_arithmetic() {
        // The largest count: 64 cells at most, far from u128's limit.
        for (w, h) in [(4, 15), (9, 6), (8, 7), (5, 11)] {
            let bound = positions_at_most(w, h, 64);
            assert!(bound > positions_at_most(w, h, (w * h - 1) as u32));
        }
    }
}
