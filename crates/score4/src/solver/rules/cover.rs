//! The search for applications that can be played together and solve
//! every group: Allis searched a graph of conflicts for such a cover; here
//! a depth-first search branches on the unsolved group the fewest
//! applications still admitted solve, and gives up after a fixed number
//! of positions (a proof not found, never a wrong one).

use super::apps::{Application, Taken};
use super::{Groups, MAX_GROUPS, WORDS};
use crate::layout::CellSet;

/// The most nodes one search visits.
const MAX_NODES: u32 = 2_000;

/// Whether applications of `apps` that admit each other and `taken`
/// solve every group of `unsolved`.
pub(super) fn covers<C: CellSet>(
    apps: &[Application<C>],
    taken: Taken<C>,
    unsolved: Groups,
) -> bool {
    let mut budget = MAX_NODES;
    search(apps, taken, unsolved, &mut budget)
}

fn search<C: CellSet>(
    apps: &[Application<C>],
    taken: Taken<C>,
    unsolved: Groups,
    budget: &mut u32,
) -> bool {
    if unsolved.iter().all(|&w| w == 0) {
        return true;
    }
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let mut counts = [0u16; MAX_GROUPS];
    for a in apps.iter().filter(|a| taken.admits(a)) {
        for w in 0..WORDS {
            let mut bits = a.solves[w] & unsolved[w];
            while bits != 0 {
                counts[w * 64 + bits.trailing_zeros() as usize] += 1;
                bits &= bits - 1;
            }
        }
    }
    let mut pick = (u16::MAX, 0);
    for (w, &word) in unsolved.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let g = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            pick = pick.min((counts[g], g));
        }
    }
    let (count, g) = pick;
    if count == 0 {
        return false;
    }
    let (word, bit) = (g / 64, 1u64 << (g % 64));
    for a in apps.iter().filter(|a| a.solves[word] & bit != 0) {
        if !taken.admits(a) {
            continue;
        }
        let left = std::array::from_fn(|i| unsolved[i] & !a.solves[i]);
        if search(apps, taken.with(a), left, budget) {
            return true;
        }
        if *budget == 0 {
            return false;
        }
    }
    false
}
