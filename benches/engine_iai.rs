//! Instruction counts of the classic engine under callgrind: the static
//! score and whole searches, each with a fresh table as the command-line
//! engine has. Needs `iai-callgrind-runner` (same version) on the path.

mod positions;

use std::hint::black_box;

use iai_callgrind::{library_benchmark, library_benchmark_group, main};
use score4::classic::{Answer, Search};
use score4::{heuristic, Board};

fn board(index: usize) -> Board {
    positions::boards()[index].1
}

#[library_benchmark]
#[bench::opening(board(0))]
#[bench::middle_game(board(1))]
#[bench::near_end(board(2))]
fn score(board: Board) -> i32 {
    black_box(heuristic::score(board.orange(), board.yellow()))
}

fn search(board: Board, level: u32) -> Answer {
    black_box(Search::for_level(level).answer(&board, level, false))
}

#[library_benchmark]
#[bench::opening(board(0))]
#[bench::middle_game(board(1))]
#[bench::near_end(board(2))]
fn level_7(board: Board) -> Answer {
    search(board, 7)
}

#[library_benchmark]
#[bench::opening(board(0))]
#[bench::middle_game(board(1))]
#[bench::near_end(board(2))]
fn level_9(board: Board) -> Answer {
    search(board, 9)
}

#[library_benchmark]
#[bench::opening(board(0))]
#[bench::middle_game(board(1))]
#[bench::near_end(board(2))]
fn level_12(board: Board) -> Answer {
    search(board, 12)
}

library_benchmark_group!(
    name = engine;
    benchmarks = score, level_7, level_9, level_12
);

main!(library_benchmark_groups = engine);
