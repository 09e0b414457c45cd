use super::*;
use crate::bitboard::{Bitboard, Geometry};
use crate::position::Position;
use crate::solver::bounds::{claimeven_max, claimeven_min};
use crate::solver::plain::{plain_negamax, Memo};
use score4_testkit::naive::late_game;
use score4_testkit::Rng;

/// Random late positions of a `W` x `H` board, `count` of them for each
/// number of empty cells in `empties`, with their exact scores from the
/// unpruned negamax (the crate's own copy of the test kit's model: its
/// keys are the positions' own, which the kit's grids have not).
fn sample<const W: usize, const H: usize>(
    empties: std::ops::RangeInclusive<usize>,
    count: usize,
    seed: u64,
) -> Vec<(Position<W, H>, i32)> {
    let mut rng = Rng::new(seed);
    let mut memo = Memo::default();
    let mut out = Vec::new();
    for empty in empties {
        for _ in 0..count {
            let Some((moves, _)) = late_game(W, H, empty, &mut rng) else {
                continue;
            };
            let p: Position<W, H> = moves.parse().expect("a position in play");
            out.push((p, plain_negamax(&p, &mut memo)));
        }
    }
    out
}

/// What `rules` claim on `p`: that the side to move scores at most 0 (the
/// side that just moved at least draws), and that it scores at least 0.
fn claims<const W: usize, const H: usize>(p: &Position<W, H>, rules: Rules) -> (bool, bool) {
    let l = Geometry::<W, H>;
    (
        controller_draws_with(&l, p.discs(), rules),
        mover_draws_with(&l, p.discs(), rules),
    )
}

/// Whether `rules` prove either bound on `p`.
fn proves<const W: usize, const H: usize>(p: &Position<W, H>, rules: Rules) -> bool {
    let (at_most, at_least) = claims(p, rules);
    at_most || at_least
}

/// Checks every bound `rules` prove on `positions` against the exact
/// score; returns on how many positions they proved one.
fn check<const W: usize, const H: usize>(
    positions: &[(Position<W, H>, i32)],
    rules: Rules,
) -> usize {
    let mut proved = 0;
    for (p, score) in positions {
        let (at_most, at_least) = claims(p, rules);
        if at_most {
            assert!(*score <= 0, "{rules:?}: mover scores {score}\n{p}");
        }
        if at_least {
            assert!(*score >= 0, "{rules:?}: mover scores {score}\n{p}");
        }
        proved += usize::from(at_most || at_least);
    }
    proved
}

/// What the tests ask of one board's sample: how many positions some
/// rules prove (checking each), and [`beyond_claimeven`].
struct Board<'a> {
    name: &'static str,
    check: &'a dyn Fn(Rules) -> usize,
    beyond_claimeven: &'a dyn Fn() -> (usize, usize),
}

/// Runs `f` on each board's sample (drawn once for all the tests: the
/// exact scores are most of their time).
fn each_board(mut f: impl FnMut(Board)) {
    use std::sync::OnceLock;
    macro_rules! board {
        ($w:literal, $h:literal, $empties:expr, $count:expr, $seed:expr) => {{
            static SAMPLE: OnceLock<Vec<(Position<$w, $h>, i32)>> = OnceLock::new();
            let positions = SAMPLE.get_or_init(|| sample::<$w, $h>($empties, $count, $seed));
            f(Board {
                name: concat!($w, "x", $h),
                check: &|rules| check(positions, rules),
                beyond_claimeven: &|| beyond_claimeven(positions),
            });
        }};
    }
    board!(5, 4, 6..=14, 60, 1);
    board!(4, 5, 6..=14, 60, 2);
    board!(6, 4, 8..=14, 50, 3);
    board!(5, 5, 8..=15, 50, 4);
    board!(6, 5, 10..=16, 40, 5);
    board!(7, 4, 10..=15, 40, 6);
    board!(7, 6, 12..=16, 60, 7);
    // Six rows and more: where aftereven can do what before does not (a
    // cell three rows above the claimed one).
    board!(4, 6, 8..=16, 80, 8);
    board!(5, 6, 10..=16, 60, 9);
    board!(4, 7, 8..=16, 80, 10);
}

#[test]
fn the_rules_hold_against_the_unpruned_negamax() {
    let mut total = 0;
    each_board(|b| {
        let proved = (b.check)(Rules::ALL);
        assert!(proved > 20, "{}: {proved}", b.name);
        total += proved;
    });
    assert!(total > 1_000, "{total}");
}

#[test]
fn each_rule_proves_positions_the_others_do_not() {
    let mut all = 0;
    let mut without = [0; Rules::EACH.len()];
    each_board(|b| {
        all += (b.check)(Rules::ALL);
        for (n, (rule, _)) in without.iter_mut().zip(Rules::EACH) {
            *n += (b.check)(Rules::ALL.without(rule));
        }
    });
    for (n, (rule, name)) in without.iter().zip(Rules::EACH) {
        // Highinverse's groups (two middle cells) are rare late in random
        // games: every position of 4x5 tests it instead.
        if rule != Rules::HIGHINVERSE {
            assert!(*n < all, "without {name}: {n} of {all}");
        }
    }
}

/// On `positions`, the positions claimeven's bounds settle the same way
/// (a draw at most or at least) that the rules do not; and how many
/// claimeven settles.
fn beyond_claimeven<const W: usize, const H: usize>(
    positions: &[(Position<W, H>, i32)],
) -> (usize, usize) {
    let l = Geometry::<W, H>;
    let (mut missed, mut settled) = (0, 0);
    for (p, _) in positions {
        let open = Geometry::<W, H>::BOARD & !p.occupied();
        let claimed = if (W * H - p.moves_played() as usize).is_multiple_of(2) {
            claimeven_max(&l, p.discs(), open, 1).is_some()
        } else {
            !p.can_win_next() && claimeven_min(&l, p.discs(), open, -1).is_some()
        };
        if claimed {
            settled += 1;
            let (at_most, at_least) = claims(p, Rules::ALL);
            let even = (W * H - p.moves_played() as usize).is_multiple_of(2);
            missed += usize::from(!(if even { at_most } else { at_least }));
        }
    }
    (missed, settled)
}

#[test]
fn the_rules_prove_what_claimeven_proves() {
    let mut settled = 0;
    each_board(|b| {
        let (missed, n) = (b.beyond_claimeven)();
        assert_eq!(missed, 0, "{} of {n} on {}", missed, b.name);
        settled += n;
    });
    assert!(settled > 500, "{settled}");
}

/// The rows (from 0 at the bottom) of the even cells of column 2.
fn even_rows<const W: usize, const H: usize>() -> Vec<usize> {
    let even = even_cells(&Geometry::<W, H>);
    (0..H)
        .filter(|&r| (even & Geometry::<W, H>::cell(2, r)) != Bitboard::EMPTY)
        .collect()
}

#[test]
fn even_cells_are_the_top_row_and_every_second_below() {
    assert_eq!(even_rows::<7, 6>(), [1, 3, 5]);
    assert_eq!(even_rows::<7, 5>(), [0, 2, 4]);
    assert_eq!(even_rows::<5, 4>(), [1, 3]);
    assert_eq!(even_rows::<6, 7>(), [0, 2, 4, 6]);
}

/// Checks the claims of each of `sets` on every position of a small board
/// against its exact score; returns how many positions each proved.
fn check_every_position<const W: usize, const H: usize, const N: usize>(
    sets: [Rules; N],
) -> [usize; N] {
    let mut memo = Memo::default();
    let mut proved = [0; N];
    crate::position::for_each_position::<W, H>(|p| {
        if p.is_game_over() {
            return;
        }
        let mut score = None;
        for (n, rules) in proved.iter_mut().zip(sets) {
            if proves(p, rules) {
                let s = *score.get_or_insert_with(|| plain_negamax(p, &mut memo));
                *n += check(&[(*p, s)], rules);
            }
        }
    });
    proved
}

#[test]
fn the_rules_hold_on_every_position_of_small_boards() {
    // The first column's bottom cell, bit 0 of the layout, once passed
    // for a cell with an empty one under it: such positions are rare late
    // in random games, and every position has them.
    assert!(check_every_position::<4, 4, 1>([Rules::ALL])[0] > 10_000);
    // Highinverse, which the late samples never need, adds proofs here.
    let [all, without_high] =
        check_every_position::<4, 5, 2>([Rules::ALL, Rules::ALL.without(Rules::HIGHINVERSE)]);
    assert!(all > 100_000);
    assert!(without_high < all, "{without_high} of {all}");
}

/// The rules' answers on a board whose size is data (`u128` sets) against
/// the compiled board's, on every `every`-th position of a small board;
/// returns how many positions were compared.
fn same_with_size_as_data<const W: usize, const H: usize>(every: usize) -> usize {
    let shape = crate::wide::Shape::any(W, H);
    let wide = |b: Bitboard| b.bits() as u128;
    let (mut seen, mut compared) = (0, 0);
    crate::position::for_each_position::<W, H>(|p| {
        seen += 1;
        if p.is_game_over() || seen % every != 0 {
            return;
        }
        let d = p.discs();
        let as_data = Discs {
            current: wide(d.current),
            mask: wide(d.mask),
            moves: d.moves,
        };
        let compiled = Geometry::<W, H>;
        assert_eq!(
            controller_draws(&compiled, d),
            controller_draws(&shape, as_data),
            "\n{p}"
        );
        assert_eq!(
            mover_draws(&compiled, d),
            mover_draws(&shape, as_data),
            "\n{p}"
        );
        compared += 1;
    });
    compared
}

#[test]
fn the_rules_of_sizes_as_data_equal_the_compiled_ones() {
    assert!(same_with_size_as_data::<4, 4>(1) > 100_000);
    assert!(same_with_size_as_data::<4, 5>(10) > 50_000);
}
