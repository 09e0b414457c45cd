//! One frame of the game: the board with its columns numbered, the last
//! disc ringed and the winning four bracketed; whose turn it is or who
//! won; the move list; and, when asked for, every column's score in words.
//!
//! Discs differ in shape as well as colour (a round disc for the first
//! player, a diamond for the second, in the Okabe-Ito blue and orange that
//! colour-blind players tell apart), and `--ascii` draws `X`, `O` and
//! plain letters without colour.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::border;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;
use score4::play::{range_words_after, told_after, Opponent, Told};
use score4::solver::{Player, ScoreRange};
use score4::wide::Shape;

use super::app::{column_name, App};

const BLUE: Color = Color::Rgb(0, 114, 178);
const ORANGE: Color = Color::Rgb(230, 159, 0);
const GREEN: Color = Color::Rgb(0, 158, 115);
const VERMILION: Color = Color::Rgb(213, 94, 0);
const GREY: Color = Color::Rgb(150, 150, 150);

/// A panel's frame in `--ascii`: ratatui's are drawn with box-drawing
/// characters.
const ASCII_BORDER: border::Set = border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};

/// Characters per column on the board.
const CELL: usize = 4;

struct Look {
    ascii: bool,
}

impl Look {
    fn disc(&self, who: Player) -> &'static str {
        match (who, self.ascii) {
            (Player::First, false) => "●",
            (Player::Second, false) => "◆",
            (Player::First, true) => "X",
            (Player::Second, true) => "O",
        }
    }

    fn empty(&self) -> &'static str {
        if self.ascii {
            "."
        } else {
            "·"
        }
    }

    /// A panel's frame, titled.
    fn panel<'a>(&self, title: &'a str) -> Block<'a> {
        let block = Block::bordered().title(title);
        if self.ascii {
            block.border_set(ASCII_BORDER)
        } else {
            block
        }
    }

    /// What separates the parts of the title line.
    fn dot(&self) -> &'static str {
        if self.ascii {
            "|"
        } else {
            "·"
        }
    }

    fn colour(&self, colour: Color) -> Style {
        if self.ascii {
            Style::default()
        } else {
            Style::default().fg(colour)
        }
    }

    fn player(&self, who: Player) -> Style {
        self.colour(match who {
            Player::First => BLUE,
            Player::Second => ORANGE,
        })
    }

    /// A range's colour: its outcome's, once that is proven.
    fn range(&self, range: ScoreRange) -> Style {
        match range.weak() {
            Some(1) => self.colour(GREEN),
            Some(0) => self.colour(GREY),
            Some(_) => self.colour(VERMILION),
            None => Style::default(),
        }
    }
}

/// Who plays `who`, as the status line names them.
fn name(app: &App, who: Player) -> String {
    match app.engine {
        None => format!("{who} player"),
        Some(engine) if engine == who => app.opponent.to_string(),
        Some(_) => "you".to_string(),
    }
}

/// "win in 3" as "W3", "draw" as "D", "loss in 12" as "L12".
fn short(told: Told) -> String {
    match told {
        Told::Win(n) => format!("W{n}"),
        Told::Draw => "D".to_string(),
        Told::Loss(n) => format!("L{n}"),
    }
}

/// A range under its column, in four cells: exact as [`short`]; else
/// "W.." or "L.." once a win or a loss is proven, "D+" for a draw or
/// better, "D-" for not a win, and "?" before anything is proven.
fn short_range(app: &App, range: ScoreRange) -> String {
    let (cells, moves) = (app.game.shape().cells(), app.game.position().moves_played());
    if let Some(t) = range.exact().and_then(|s| told_after(cells, moves, s)) {
        return short(t);
    }
    match range.weak() {
        Some(1) => "W..",
        Some(-1) => "L..",
        _ if range.lower == 0 => "D+",
        _ if range.upper == 0 => "D-",
        _ => "?",
    }
    .to_string()
}

/// The keys that drop a disc on a board `width` columns wide: `1-7`, or
/// `1-9 a-c` past nine columns.
fn column_keys(width: usize) -> String {
    if width <= 9 {
        format!("1-{width}")
    } else {
        format!("1-9 a-{}", column_name(width - 1))
    }
}

/// A count of positions, short: 950, 12.3k, 4.5M.
fn positions(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// The rows of the board's panel with its frame, numbers, cursor and
/// scores; or of the side panel's list of every column's score, if longer.
fn middle_rows(shape: &Shape) -> u16 {
    let board = shape.height() + 5;
    let side = shape.width() + 7;
    board.max(side) as u16
}

/// The smallest window the game is drawn in, in cells across and down.
pub fn needs(shape: &Shape) -> (u16, u16) {
    (
        (shape.width() * CELL + 3) as u16 + 24,
        middle_rows(shape) + 4,
    )
}

/// Whether a window of `width` x `height` is too small to draw the game.
pub fn too_small(shape: &Shape, width: u16, height: u16) -> bool {
    let (need_w, need_h) = needs(shape);
    width < need_w || height < need_h
}

pub fn frame(f: &mut Frame, app: &App) {
    let look = Look { ascii: app.ascii };
    let shape = app.game.shape();
    let (w, h) = (shape.width(), shape.height());
    let middle_rows = middle_rows(shape);
    let (need_w, need_h) = needs(shape);
    let area = f.area();
    if too_small(shape, area.width, area.height) {
        f.render_widget(
            Paragraph::new(format!(
                "The terminal is {}x{}; a {w}x{h} board needs {need_w}x{need_h}. \
                 Enlarge it, or press q to quit.",
                area.width, area.height
            ))
            .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let [title, middle, status, message, help, _] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(middle_rows),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(f.area());
    let board_width = (w * CELL + 3) as u16;
    let [board, side] =
        Layout::horizontal([Constraint::Length(board_width), Constraint::Min(20)]).areas(middle);

    let size = format!("{w}x{h}");
    let you_first = app.engine != Some(Player::First);
    let vs = match app.engine {
        None => "two players".to_string(),
        Some(_) => format!(
            "you ({}) vs {} ({})",
            if you_first { "first" } else { "second" },
            app.opponent,
            if you_first { "second" } else { "first" }
        ),
    };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(
                " score4 play ",
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!("{dot} {size} {dot} {vs}", dot = look.dot())),
        ])),
        title,
    );
    draw_board(f, app, &look, board);
    draw_side(f, app, &look, side);
    f.render_widget(Paragraph::new(status_line(app, &look)), status);
    f.render_widget(
        Paragraph::new(Span::styled(
            app.message.clone(),
            Style::default().add_modifier(Modifier::ITALIC),
        )),
        message,
    );
    f.render_widget(
        Paragraph::new(format!(
            "{} or {} Enter: drop  u: undo  r: redo  h: scores  n: new  q: quit",
            column_keys(w),
            if app.ascii { "<- ->" } else { "← →" }
        ))
        .style(Style::default().add_modifier(Modifier::DIM)),
        help,
    );
}

fn draw_board(f: &mut Frame, app: &App, look: &Look, area: Rect) {
    let game = &app.game;
    let (w, h) = (game.shape().width(), game.shape().height());
    let four = game.winning_four();
    let last = game.last_move();
    let mut lines = Vec::with_capacity(h + 3);
    let marker = if app.ascii { "v" } else { "▼" };
    lines.push(Line::from(
        (0..w)
            .map(|c| {
                let m = if c == app.cursor && !game.is_over() {
                    marker
                } else {
                    " "
                };
                format!(" {m}  ")
            })
            .collect::<String>(),
    ));
    lines.push(Line::from(
        (0..w)
            .map(|c| format!(" {}  ", column_name(c)))
            .collect::<String>(),
    ));
    for row in (0..h).rev() {
        let mut spans = Vec::with_capacity(w * 2);
        for col in 0..w {
            let won = four.is_some_and(|f| f.contains(&(col, row)));
            let (open, close) = if won {
                ("[", "]")
            } else if last == Some((col, row)) {
                ("(", ")")
            } else {
                (" ", " ")
            };
            match game.disc(col, row) {
                Some(who) => {
                    let mut style = look.player(who);
                    if won {
                        style = style.add_modifier(Modifier::BOLD | Modifier::REVERSED);
                    }
                    spans.push(Span::raw(open));
                    spans.push(Span::styled(look.disc(who), style));
                    spans.push(Span::raw(format!("{close} ")));
                }
                None => spans.push(Span::styled(
                    format!(" {}  ", look.empty()),
                    Style::default().add_modifier(Modifier::DIM),
                )),
            }
        }
        lines.push(Line::from(spans));
    }
    // Each column's score under it, when shown.
    if app.hints {
        let spans: Vec<Span> = (0..w)
            .map(|col| match app.analysis.as_ref().map(|a| a.columns[col]) {
                None => Span::raw(" ..."),
                Some(None) => Span::raw(" -  "),
                Some(Some(range)) => {
                    Span::styled(format!("{:<4}", short_range(app, range)), look.range(range))
                }
            })
            .collect();
        lines.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(lines).block(look.panel(" board ")), area);
}

fn draw_side(f: &mut Frame, app: &App, look: &Look, area: Rect) {
    let mut lines = Vec::new();
    // The notation, as `solve` and the web page read it back.
    let notation = app.game.notation();
    lines.push(Line::styled(
        format!("moves ({})", notation.len()),
        Style::default().add_modifier(Modifier::BOLD),
    ));
    lines.push(Line::raw(if notation.is_empty() {
        "none yet".to_string()
    } else {
        notation
    }));
    lines.push(Line::raw(""));
    if app.hints && !app.game.is_over() {
        lines.push(Line::styled(
            "scores for the side to move",
            Style::default().add_modifier(Modifier::BOLD),
        ));
        match &app.analysis {
            None => lines.push(Line::raw("thinking...")),
            Some(analysis) => {
                // A best move is starred once proven: its score exact and
                // the position's, which no other column can pass.
                let best = analysis.score().and_then(ScoreRange::exact);
                let cells = app.game.shape().cells();
                let moves = app.game.position().moves_played();
                for (col, range) in analysis.columns.iter().enumerate() {
                    let (text, style) = match range {
                        None => ("-".to_string(), Style::default()),
                        Some(range) => {
                            let star = if best.is_some() && range.exact() == best {
                                " *"
                            } else {
                                ""
                            };
                            (
                                format!("{}{star}", range_words_after(cells, moves, *range)),
                                look.range(*range),
                            )
                        }
                    };
                    lines.push(Line::from(vec![
                        Span::raw(format!("{}  ", column_name(col))),
                        Span::styled(text, style),
                    ]));
                }
                if !analysis.done {
                    lines.push(Line::raw(format!(
                        "proving: {} positions, {:.1} s",
                        positions(analysis.nodes),
                        analysis.elapsed.as_secs_f64()
                    )));
                }
            }
        }
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(look.panel(" game ")),
        area,
    );
}

fn status_line<'a>(app: &App, look: &Look) -> Line<'a> {
    let game = &app.game;
    let who = game.to_move();
    let disc = |p: Player| Span::styled(look.disc(p), look.player(p));
    if game.is_over() {
        return match game.winner() {
            Some(w) => {
                let name = name(app, w);
                let verb = if name == "you" { "win" } else { "wins" };
                Line::from(vec![
                    Span::raw(" "),
                    disc(w),
                    Span::styled(
                        format!(" {name} {verb} with move {}!", game.moves().len()),
                        Style::default().add_modifier(Modifier::BOLD),
                    ),
                ])
            }
            None => Line::raw(" The board is full: a draw."),
        };
    }
    if let Some((took, move_search)) = app.thinking() {
        let text = if move_search {
            // The classic engine's levels are searched whole, with no budget.
            let of = match app.opponent {
                Opponent::Classic { .. } => String::new(),
                _ => format!(" of {} s", app.budget.as_secs_f64()),
            };
            format!(
                " {} is thinking... {:.1} s{of}",
                app.opponent,
                took.as_secs_f64()
            )
        } else {
            format!(" scoring the columns... {:.1} s", took.as_secs_f64())
        };
        return Line::from(vec![Span::raw(" "), disc(who), Span::raw(text)]);
    }
    let to_move = name(app, who);
    let text = if to_move == "you" {
        " your move".to_string()
    } else {
        format!(" {to_move} to move")
    };
    Line::from(vec![Span::raw(" "), disc(who), Span::raw(text)])
}

#[cfg(test)]
mod tests {
    use ratatui::backend::TestBackend;
    use ratatui::buffer::Buffer;
    use ratatui::crossterm::event::{KeyCode, KeyEvent};
    use ratatui::Terminal;
    use score4::play::{range_words_after, words_after, Opponent};
    use score4::wide::{Analysis, Position, Shape, Solver};
    use std::time::Duration;

    use super::*;
    use crate::play::app::Config;

    fn app(board: &str, moves: &str, opponent: Opponent, ascii: bool) -> App {
        let mut app = App::new(&Config {
            shape: board.parse().unwrap(),
            moves: moves.to_string(),
            opponent,
            engine_first: false,
            ascii,
            seed: 1,
            budget: Duration::from_secs(3),
        })
        .unwrap();
        app.settle();
        app
    }

    fn render(app: &App, w: u16, h: u16) -> Buffer {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| frame(f, app)).unwrap();
        t.backend().buffer().clone()
    }

    fn text(b: &Buffer) -> String {
        let mut out = String::new();
        for y in 0..b.area.height {
            for x in 0..b.area.width {
                out.push_str(b[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }

    /// The side panel lists each column's words as the solver scores it.
    fn check_scores(board: &str, moves: &str, window: (u16, u16)) {
        let mut a = app(board, moves, Opponent::Human, false);
        a.key(KeyEvent::from(KeyCode::Char('h')));
        a.settle();
        let screen = text(&render(&a, window.0, window.1));
        let shape: Shape = board.parse().unwrap();
        let p = Position::parse(&shape, moves).unwrap();
        let scores = Solver::new(shape, 16).unwrap().analyze(&p).unwrap();
        for (col, s) in scores.iter().enumerate() {
            let name = column_name(col);
            let expected = match s {
                None => format!("{name}  -"),
                Some(s) => format!(
                    "{name}  {}",
                    words_after(shape.cells(), p.moves_played(), *s).unwrap()
                ),
            };
            assert!(screen.contains(&expected), "{expected:?} in\n{screen}");
        }
        assert!(
            screen.contains("your move") || screen.contains("player to move"),
            "{screen}"
        );
    }

    #[test]
    fn seven_by_six_with_scores() {
        check_scores("7x6", "4453", (80, 24));
        check_scores("7x6", "4444443", (80, 24));
    }

    #[test]
    fn five_by_four_with_scores() {
        check_scores("5x4", "3322", (80, 24));
    }

    #[test]
    fn past_nine_columns_with_scores() {
        // The columns past 9 are named by their letters, on the board, in
        // the list and in the help.
        check_scores("11x4", "233313b94bb974aa4112a49661", (95, 24));
        let a = app("10x4", "a", Opponent::Human, true);
        let screen = text(&render(&a, 95, 24));
        assert!(screen.contains(" 8   9   a "), "{screen}");
        assert!(screen.contains("1-9 a-a or"), "{screen}");
    }

    #[test]
    fn a_won_game_brackets_its_four() {
        let a = app("7x6", "4455667", Opponent::Human, true);
        let screen = text(&render(&a, 80, 24));
        // The bottom row: four X bracketed in columns 4 to 7.
        assert!(screen.contains(" .   .   .  [X] [X] [X] [X] "), "{screen}");
        assert!(
            screen.contains("first player wins with move 7!"),
            "{screen}"
        );
        let b = render(&a, 80, 24);
        let bracketed = (0..b.area.height)
            .flat_map(|y| (0..b.area.width).map(move |x| (x, y)))
            .filter(|&(x, y)| b[(x, y)].symbol() == "[")
            .count();
        assert_eq!(bracketed, 4);
        // Against an opponent the winner is named as who played.
        let a = app("7x6", "445566", Opponent::Perfect, false);
        // The perfect opponent (second) does not win here: it is "you" to move.
        assert!(text(&render(&a, 80, 24)).contains("your move"));
    }

    #[test]
    fn ranges_are_told_in_words_as_they_are_proven() {
        let mut a = app("7x6", "4453", Opponent::Human, true);
        a.hints = true;
        let r = |lower, upper| Some(ScoreRange { lower, upper });
        let columns = [
            r(0, 5),
            r(-9, 0),
            r(-2, -2),
            r(-9, -2),
            None,
            r(1, 9),
            r(-9, 9),
        ];
        let mut analysis = Analysis {
            columns: columns.to_vec(),
            nodes: 1_234_567,
            elapsed: Duration::from_millis(2500),
            done: false,
        };
        a.analysis = Some(analysis.clone());
        let screen = text(&render(&a, 80, 24));
        for (col, range) in columns.iter().enumerate() {
            let words = range.map_or("-".to_string(), |r| range_words_after(42, 4, r));
            let line = format!("{}  {words}", col + 1);
            assert!(screen.contains(&line), "{line:?} in\n{screen}");
        }
        // Under the columns: the same, short.
        assert!(
            screen.contains("|D+  D-  L18 L..  -  W.. ?    |"),
            "{screen}"
        );
        assert!(
            screen.contains("proving: 1.2M positions, 2.5 s"),
            "{screen}"
        );
        // Nothing is starred before the position's score is proven.
        assert!(!screen.contains(" *"), "{screen}");
        // Once it is, the best moves are starred, the others' ranges
        // still narrowing; done, the progress goes.
        analysis.columns = vec![
            r(-5, -5),
            r(-9, -3),
            r(-2, -2),
            r(-9, -3),
            None,
            r(-9, -4),
            r(-2, -2),
        ];
        a.analysis = Some(analysis.clone());
        let screen = text(&render(&a, 80, 24));
        assert!(screen.contains("3  loss in 18 *"), "{screen}");
        assert!(screen.contains("7  loss in 18 *"), "{screen}");
        assert_eq!(screen.matches(" *").count(), 2, "{screen}");
        assert!(screen.contains("proving: "), "{screen}");
        analysis.done = true;
        a.analysis = Some(analysis);
        assert!(!text(&render(&a, 80, 24)).contains("proving"));
    }

    #[test]
    fn ascii_draws_nothing_else() {
        for (moves, hints) in [("", false), ("4453", true), ("4455667", false)] {
            let mut a = app("7x6", moves, Opponent::Human, true);
            if hints {
                a.key(KeyEvent::from(KeyCode::Char('h')));
                a.settle();
            }
            for (w, h) in [(80, 24), (40, 10)] {
                let screen = text(&render(&a, w, h));
                assert!(screen.is_ascii(), "{moves} at {w}x{h}:\n{screen}");
            }
        }
        // Unless asked for, the frames are drawn with ratatui's lines.
        let a = app("7x6", "", Opponent::Human, false);
        assert!(!text(&render(&a, 80, 24)).is_ascii());
    }

    #[test]
    fn a_terminal_too_small_says_what_it_needs() {
        let a = app("7x6", "44", Opponent::Human, false);
        let screen = text(&render(&a, 40, 10));
        let words = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("The terminal is 40x10; a 7x6 board needs 55x18."),
            "{screen}"
        );
        assert!(!text(&render(&a, 55, 18)).contains("The terminal is"));
    }

    #[test]
    fn the_tallest_and_widest_boards_fit_80_by_24() {
        fn fits(board: &str, moves: &str, window: (u16, u16)) {
            let mut a = app(board, moves, Opponent::Human, false);
            a.hints = true;
            let (w, h) = (a.game.shape().width(), a.game.shape().height());
            let screen = text(&render(&a, window.0, window.1));
            let rows: Vec<&str> = screen.lines().collect();
            assert_eq!(rows.len(), usize::from(window.1));
            // Every row of the board is drawn, the bottom one included,
            // and the help line below it.
            let board_rows = rows
                .iter()
                .filter(|r| r.contains(" ·  ") || r.contains("● "))
                .count();
            assert!(board_rows >= h, "{board_rows} of {h} rows\n{screen}");
            assert!(rows.iter().any(|r| r.contains("q: quit")), "{screen}");
            let last = column_name(w - 1);
            assert!(
                rows[1..].iter().any(|r| r.contains(&format!(" {last}  "))),
                "{screen}"
            );
        }
        fits("4x15", "1", (80, 24));
        fits("9x6", "5", (80, 24));
        fits("7x6", "", (80, 24));
        // Past 64 bits and nine columns, in as many rows as the game says
        // it needs (and columns, at least 80 for the whole help line), and
        // not in a window a cell smaller either way.
        for (board, moves) in [("16x7", "8"), ("4x25", "1"), ("10x6", "a")] {
            let shape: Shape = board.parse().unwrap();
            let (w, h) = needs(&shape);
            fits(board, moves, (w.max(80), h));
            let a = app(board, moves, Opponent::Human, false);
            for (w, h) in [(w - 1, h), (w, h - 1)] {
                let screen = text(&render(&a, w, h));
                assert!(screen.contains("The terminal is"), "{board} at {w}x{h}");
            }
        }
    }
}
