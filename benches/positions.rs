//! The boards both engine benchmarks search, as protocol cell tokens.

use score4::Board;

/// Orange's reply to yellow's first disc on orange's own centre disc.
pub const OPENING: &[&str] = &["o53", "y43"];

/// Twelve discs into a recorded game.
pub const MIDDLE_GAME: &[&str] = &[
    "o54", "y50", "o44", "y52", "o55", "y45", "o51", "y53", "o35", "y41", "o43", "y31",
];

/// Twenty-eight discs into a recorded game: few columns left open.
pub const NEAR_END: &[&str] = &[
    "o53", "y43", "o55", "y45", "o52", "y42", "o32", "y22", "o33", "y50", "o40", "y51", "o56",
    "y54", "o12", "y23", "o35", "y30", "o25", "y20", "o44", "y15", "o02", "y34", "o05", "y24",
    "o13", "y03",
];

/// The named boards, parsed.
pub fn boards() -> [(&'static str, Board); 3] {
    let board = |cells: &[&str]| Board::from_cells(cells).expect("benchmark boards are valid");
    [
        ("opening", board(OPENING)),
        ("middle_game", board(MIDDLE_GAME)),
        ("near_end", board(NEAR_END)),
    ]
}
