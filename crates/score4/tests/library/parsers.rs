//! Every parser of user input, fed arbitrary bytes: each returns a valid
//! value or an error whose message is one short line of printable text;
//! none panics. The inputs mix random bytes with the characters each
//! grammar reads, so that most reach deep into the parser rather than
//! failing at the first byte.

use std::io::BufReader;

use proptest::prelude::*;
use score4::classic::{Request, MAX_LEVEL};
use score4::fixture;
use score4::input::{LineError, Lines, Quoted, LINE_CAP, SHOWN_CHARS};
use score4::wide::{self, notation, Shape};
use score4::{BoardSize, Position};

/// Bytes drawn mostly from `alphabet`, sometimes from anywhere.
fn bytes_from(alphabet: &'static [u8], len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            6 => prop::sample::select(alphabet),
            1 => any::<u8>(),
        ],
        0..len,
    )
}

/// The text a parser sees once bytes are decoded as the binary decodes
/// them (lossily, where it accepts non-UTF-8 at all).
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What every error message must be: one line, nothing a terminal acts
/// on, and short whatever the input's length.
fn assert_clean(message: &str) {
    assert!(
        !message.chars().any(|c| c.is_control() || c == '\u{202e}'),
        "{message:?}"
    );
    assert!(message.len() < 800, "{message:?}");
}

/// Moves parsed on the `W` x `H` board: a valid position is exactly the
/// game the digits play; anything else is a clean error.
fn check_moves<const W: usize, const H: usize>(text: &str) {
    match Position::<W, H>::parse(text) {
        Ok(p) => {
            let mut replay = Position::<W, H>::new();
            for ch in text.chars() {
                let col = notation::column(ch).expect("only columns parse") - 1;
                assert!(col < W && replay.can_play(col) && !replay.is_game_over());
                replay.play(col);
            }
            assert_eq!(replay, p);
            assert_eq!(p.moves_played() as usize, text.len());
        }
        Err(e) => assert_clean(&e.to_string()),
    }
}

/// Moves parsed on a board whose size is data: a valid position is the
/// game the characters play; anything else is a clean error.
fn check_wide_moves(shape: &Shape, text: &str) {
    match wide::Position::parse(shape, text) {
        Ok(p) => {
            let mut replay = wide::Position::new();
            for ch in text.chars() {
                let col = notation::column(ch).expect("only columns parse") - 1;
                assert!(replay.can_play(shape, col) && replay.ending(shape).is_none());
                replay.play(shape, col);
            }
            assert_eq!(replay, p);
        }
        Err(e) => assert_clean(&e.to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn move_strings(bytes in bytes_from(b"0123456789abcdefghAGH", 60)) {
        let text = lossy(&bytes);
        check_moves::<7, 6>(&text);
        check_moves::<4, 4>(&text);
        check_moves::<9, 5>(&text);
        for shape in ["10x4", "16x7", "12x6", "4x24"] {
            check_wide_moves(&shape.parse().unwrap(), &text);
        }
        match notation::from_base_zero(&text) {
            Ok(moves) => {
                prop_assert_eq!(moves.chars().count(), text.chars().count());
                prop_assert!(moves.chars().all(|c| notation::column(c).is_some_and(|c| c <= 10)));
            }
            Err(e) => assert_clean(&e.to_string()),
        }
    }

    #[test]
    fn run_time_board_sizes(bytes in bytes_from(b"0123456789xX ", 8)) {
        match lossy(&bytes).parse::<Shape>() {
            Ok(shape) => {
                prop_assert_eq!(shape.to_string().parse::<Shape>(), Ok(shape));
                prop_assert!(shape.width() <= 16 && shape.layout_bits() <= 128);
            }
            Err(e) => assert_clean(&e.to_string()),
        }
    }

    #[test]
    fn engine_arguments(tokens in prop::collection::vec(
        prop_oneof![
            4 => bytes_from(b"oy0123456789", 5),
            1 => Just(b"-level".to_vec()),
            1 => Just(b"-debug".to_vec()),
            1 => Just(b"-perfect".to_vec()),
            1 => bytes_from(b"-0123456789 \n", 8),
        ],
        0..30,
    )) {
        let tokens: Vec<String> = tokens.iter().map(|t| lossy(t)).collect();
        match Request::parse(&tokens) {
            Ok(r) => {
                prop_assert!((1..=MAX_LEVEL).contains(&r.level));
                // Every disc on the board is a distinct cell token given.
                let cells = tokens.iter().filter(|t| t.starts_with(['o', 'y'])).count();
                prop_assert_eq!(r.board.occupied().count() as usize, cells);
            }
            Err(e) => assert_clean(&e.to_string()),
        }
    }

    #[test]
    fn fixture_files(bytes in bytes_from(b"1234567 -#\n\r0123456789", 300)) {
        match fixture::read::<7, 6>(&bytes[..]) {
            Ok(set) => {
                for labelled in set {
                    prop_assert_eq!(Position::parse(&labelled.moves), Ok(labelled.position));
                    prop_assert!(!labelled.position.is_game_over());
                    prop_assert!(labelled.position.score_range().contains(&labelled.score));
                }
            }
            Err(e) => assert_clean(&e.to_string()),
        }
    }

    #[test]
    fn board_sizes(bytes in bytes_from(b"0123456789xX ", 8)) {
        match lossy(&bytes).parse::<BoardSize>() {
            Ok(size) => {
                prop_assert_eq!(size.to_string().parse::<BoardSize>(), Ok(size));
                prop_assert!(BoardSize::all().any(|s| s == size));
            }
            Err(e) => assert_clean(&e.to_string()),
        }
    }

    #[test]
    fn lines(bytes in bytes_from(b"ab\r\n", 600), cap in 1usize..40, chunk in 1usize..64) {
        let mut lines = Lines::with_cap(BufReader::with_capacity(chunk, &bytes[..]), cap);
        let mut count = 0;
        while let Some((number, line)) = lines.next_line().expect("reading memory") {
            count += 1;
            prop_assert_eq!(number, count);
            match line {
                Ok(text) => prop_assert!(text.len() <= cap && !text.contains('\n')),
                Err(LineError::TooLong { cap: c }) => prop_assert_eq!(c, cap),
                Err(e) => assert_clean(&e.to_string()),
            }
        }
        // One line per line end, plus an unterminated last line.
        let ends = bytes.iter().filter(|&&b| b == b'\n').count();
        let last = usize::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'));
        prop_assert_eq!(count, ends + last);
    }

    #[test]
    fn quoted_text(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let shown = Quoted::new(&bytes).to_string();
        assert_clean(&shown);
        // Each character shown is at most `\u{10ffff}`, ten bytes.
        prop_assert!(shown.len() <= 10 * SHOWN_CHARS + 30);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            if text.chars().count() <= SHOWN_CHARS && !text.chars().any(|c| c.is_control() || c == '\'' || c == '\\') {
                // Character by character: `str::escape_debug` would leave a
                // combining mark unescaped unless it starts the string.
                let expected: String = text.chars().flat_map(char::escape_debug).collect();
                prop_assert_eq!(shown.trim_matches('\''), expected.replace("\\\"", "\""));
            }
        }
    }
}

#[test]
fn the_line_cap_holds_the_longest_position() {
    let longest = BoardSize::all().map(|s| s.width() * s.height()).max();
    assert!(longest.is_some_and(|cells| cells + " -32".len() < LINE_CAP));
}

#[test]
fn combining_marks_are_escaped_anywhere() {
    // A combining mark (U+0730) after a space: shown literally it would
    // combine with whatever the terminal prints before it.
    assert_eq!(
        Quoted::new(" \u{730}".as_bytes()).to_string(),
        "' \\u{730}'"
    );
    assert_eq!(
        Quoted::new("\u{301}a".as_bytes()).to_string(),
        "'\\u{301}a'"
    );
}
