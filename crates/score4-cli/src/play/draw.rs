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
use score4::play::{range_words, told, Opponent, Told};
use score4::solver::{Player, ScoreRange};
use score4::Position;

use super::app::App;

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
fn name<const W: usize, const H: usize>(app: &App<W, H>, who: Player) -> String {
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
fn short_range<const W: usize, const H: usize>(p: &Position<W, H>, range: ScoreRange) -> String {
    if let Some(t) = range.exact().and_then(|s| told(p, s)) {
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
const fn middle_rows<const W: usize, const H: usize>() -> u16 {
    let board = H + 5;
    let side = W + 7;
    (if board > side { board } else { side }) as u16
}

/// The smallest window the game is drawn in, in cells across and down.
pub const fn needs<const W: usize, const H: usize>() -> (u16, u16) {
    ((W * CELL + 3) as u16 + 24, middle_rows::<W, H>() + 4)
}

/// Whether a window of `width` x `height` is too small to draw the game.
pub fn too_small<const W: usize, const H: usize>(width: u16, height: u16) -> bool {
    let (need_w, need_h) = needs::<W, H>();
    width < need_w || height < need_h
}

pub fn frame<const W: usize, const H: usize>(f: &mut Frame, app: &App<W, H>) {
    let look = Look { ascii: app.ascii };
    let middle_rows = middle_rows::<W, H>();
    let (need_w, need_h) = needs::<W, H>();
    let area = f.area();
    if too_small::<W, H>(area.width, area.height) {
        f.render_widget(
            Paragraph::new(format!(
                "The terminal is {}x{}; a {W}x{H} board needs {need_w}x{need_h}. \
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
    let board_width = (W * CELL + 3) as u16;
    let [board, side] =
        Layout::horizontal([Constraint::Length(board_width), Constraint::Min(20)]).areas(middle);

    let size = format!("{W}x{H}");
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
            "1-{W} or {} Enter: drop  u: undo  r: redo  h: scores  n: new  q: quit",
            if app.ascii { "<- ->" } else { "← →" }
        ))
        .style(Style::default().add_modifier(Modifier::DIM)),
        help,
    );
}

fn draw_board<const W: usize, const H: usize>(
    f: &mut Frame,
    app: &App<W, H>,
    look: &Look,
    area: Rect,
) {
    let game = &app.game;
    let four = game.winning_four();
    let last = game.last_move();
    let mut lines = Vec::with_capacity(H + 3);
    let marker = if app.ascii { "v" } else { "▼" };
    lines.push(Line::from(
        (0..W)
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
        (0..W).map(|c| format!(" {}  ", c + 1)).collect::<String>(),
    ));
    for row in (0..H).rev() {
        let mut spans = Vec::with_capacity(W * 2);
        for col in 0..W {
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
        let spans: Vec<Span> = (0..W)
            .map(|col| match app.analysis.as_ref().map(|a| a.columns[col]) {
                None => Span::raw(" ..."),
                Some(None) => Span::raw(" -  "),
                Some(Some(range)) => Span::styled(
                    format!("{:<4}", short_range(game.position(), range)),
                    look.range(range),
                ),
            })
            .collect();
        lines.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(lines).block(look.panel(" board ")), area);
}

fn draw_side<const W: usize, const H: usize>(
    f: &mut Frame,
    app: &App<W, H>,
    look: &Look,
    area: Rect,
) {
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
                let p = app.game.position();
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
                                format!("{}{star}", range_words(p, *range)),
                                look.range(*range),
                            )
                        }
                    };
                    lines.push(Line::from(vec![
                        Span::raw(format!("{}  ", col + 1)),
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

fn status_line<'a, const W: usize, const H: usize>(app: &App<W, H>, look: &Look) -> Line<'a> {
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
    use score4::play::Opponent;
    use score4::solver::Analysis;
    use score4::{Position, Solver};
    use std::time::Duration;

    use score4::play::words;

    use super::*;
    use crate::play::app::Config;

    fn app<const W: usize, const H: usize>(
        moves: &str,
        opponent: Opponent,
        ascii: bool,
    ) -> App<W, H> {
        let mut app = App::<W, H>::new(&Config {
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

    fn render<const W: usize, const H: usize>(app: &App<W, H>, w: u16, h: u16) -> Buffer {
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
    fn check_scores<const W: usize, const H: usize>(moves: &str) {
        let mut a = app::<W, H>(moves, Opponent::Human, false);
        a.key(KeyEvent::from(KeyCode::Char('h')));
        a.settle();
        let screen = text(&render(&a, 80, 24));
        let p: Position<W, H> = moves.parse().unwrap();
        let scores = Solver::<W, H>::new().analyze(&p);
        for (col, s) in scores.iter().enumerate() {
            let expected = match s {
                None => format!("{}  -", col + 1),
                Some(s) => format!("{}  {}", col + 1, words(&p, *s).unwrap()),
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
        check_scores::<7, 6>("4453");
        check_scores::<7, 6>("4444443");
    }

    #[test]
    fn five_by_four_with_scores() {
        check_scores::<5, 4>("3322");
    }

    #[test]
    fn a_won_game_brackets_its_four() {
        let a = app::<7, 6>("4455667", Opponent::Human, true);
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
        let a = app::<7, 6>("445566", Opponent::Perfect, false);
        // The perfect opponent (second) does not win here: it is "you" to move.
        assert!(text(&render(&a, 80, 24)).contains("your move"));
    }

    #[test]
    fn ranges_are_told_in_words_as_they_are_proven() {
        let mut a = app::<7, 6>("4453", Opponent::Human, true);
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
            columns,
            nodes: 1_234_567,
            elapsed: Duration::from_millis(2500),
            done: false,
        };
        a.analysis = Some(analysis);
        let screen = text(&render(&a, 80, 24));
        let p: Position<7, 6> = "4453".parse().unwrap();
        for (col, range) in columns.iter().enumerate() {
            let words = range.map_or("-".to_string(), |r| range_words(&p, r));
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
        analysis.columns = [
            r(-5, -5),
            r(-9, -3),
            r(-2, -2),
            r(-9, -3),
            None,
            r(-9, -4),
            r(-2, -2),
        ];
        a.analysis = Some(analysis);
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
            let mut a = app::<7, 6>(moves, Opponent::Human, true);
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
        let a = app::<7, 6>("", Opponent::Human, false);
        assert!(!text(&render(&a, 80, 24)).is_ascii());
    }

    #[test]
    fn a_terminal_too_small_says_what_it_needs() {
        let a = app::<7, 6>("44", Opponent::Human, false);
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
        fn fits<const W: usize, const H: usize>(moves: &str) {
            let mut a = app::<W, H>(moves, Opponent::Human, false);
            a.hints = true;
            let screen = text(&render(&a, 80, 24));
            let rows: Vec<&str> = screen.lines().collect();
            assert_eq!(rows.len(), 24);
            // Every row of the board is drawn, the bottom one included,
            // and the help line below it.
            let board_rows = rows
                .iter()
                .filter(|r| r.contains(" ·  ") || r.contains("● "))
                .count();
            assert!(board_rows >= H, "{board_rows} of {H} rows\n{screen}");
            assert!(rows.iter().any(|r| r.contains("q: quit")), "{screen}");
            assert!(
                rows[1..].iter().any(|r| r.contains(&format!(" {W}  "))),
                "{screen}"
            );
        }
        fits::<4, 15>("1");
        fits::<9, 6>("5");
        fits::<7, 6>("");
    }
}
