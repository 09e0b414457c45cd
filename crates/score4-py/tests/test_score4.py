"""The score4 module as its users meet it: installed from the wheel.

Answers are checked against the repository's labelled fixtures and
against a plain negamax written here from the rules alone.
"""

import doctest
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import score4
import score4._cpu
import score4._native
from score4 import Book, Position, Solver, engine_move

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "fixtures" / "solver"


def labelled(name, count):
    """The first `count` (moves, score) pairs of a fixture set."""
    out = []
    for line in (FIXTURES / name).read_text().splitlines()[:count]:
        moves, score = line.split()
        out.append((moves, int(score)))
    assert len(out) == count
    return out


SAMPLE = (
    labelled("ply33-40.txt", 20)
    + labelled("ply23-32.txt", 20)
    + labelled("ply15-22.txt", 10)
    + labelled("ply9-14.txt", 5)
    + labelled("ply4-8.txt", 5)
)


@pytest.fixture(scope="module")
def solver():
    return Solver()


@pytest.mark.parametrize("moves,score", SAMPLE)
def test_fixtures_strong_weak_analyze_best(solver, moves, score):
    assert solver.solve(moves) == score
    assert solver.solve_weak(moves) == (score > 0) - (score < 0)
    scores = solver.analyze(Position(moves))
    assert max(s for s in scores if s is not None) == score
    best = solver.best_move(moves)
    assert scores[best] == score
    assert solver.best_moves(moves) == [c for c, s in enumerate(scores) if s == score]
    # Each column's score is minus the score of the position after it.
    p = Position(moves)
    for col, s in enumerate(scores):
        if s is None:
            assert not p.can_play(col)
            continue
        q = p.copy()
        q.play(col)
        if q.winner() is not None:
            assert p.is_winning_move(col) and s > 0
        elif not q.is_game_over():
            assert s == -solver.solve(q)


def negamax(p, memo):
    """The exact score by trying every move: no pruning, the rules only."""
    key = p.moves
    if key in memo:
        return memo[key]
    w, h = p.board
    best = -(w * h)
    for col in p.legal_moves():
        q = p.copy()
        q.play(col)
        if q.winner() is not None:
            score = (w * h - q.moves_played) // 2 + 1
        elif q.is_game_over():
            score = 0
        else:
            score = -negamax(q, memo)
        best = max(best, score)
    memo[key] = best
    return best


# Past 64 bits, nine columns, and 128 bits (16x7, 8x15: entries of three words).
@pytest.mark.parametrize(
    "board", [(5, 4), (4, 5), (6, 4), (10, 4), (11, 4), (4, 25), (16, 4), (16, 7), (8, 15)]
)
def test_other_boards_against_plain_negamax(board):
    import random

    rng = random.Random(hash(board) & 0xFFFF)
    solver = Solver(table_mb=8)
    w, h = board
    checked = 0
    while checked < 25:
        # Random moves that do not end the game, to nine empty cells: on a
        # narrow, tall board nearly every game of random moves ends early.
        p = Position(board=board)
        for _ in range(w * h - 9):
            moves = [c for c in p.legal_moves() if not p.is_winning_move(c)]
            if not moves:
                break
            p.play(rng.choice(moves))
        if p.moves_played < w * h - 9:
            continue
        memo = {}
        expected = negamax(p, memo)
        assert solver.solve(p) == expected, p.moves
        assert solver.solve(p.moves, board=board) == expected
        assert solver.solve(p.mirror()) == expected
        checked += 1


def test_position_model():
    p = Position.from_moves("4453")
    assert (p.board, p.moves, p.moves_played, p.to_move) == ((7, 6), "4453", 4, 1)
    assert p.to_array()[-1] == [0, 0, 2, 1, 1, 0, 0]
    assert p.to_array()[-2] == [0, 0, 0, 2, 0, 0, 0]
    assert p == Position("4453") and p != Position("4454")
    assert len({p, Position("4453"), p.copy()}) == 1
    assert repr(p) == "Position('4453', board=(7, 6))"
    assert "X" in str(p) and "O" in str(p)
    won = Position("445566")
    assert won.can_win_next() and won.is_winning_move(2) and won.is_winning_move(6)
    won.play(6)
    assert won.is_game_over() and won.winner() == 1 and won.legal_moves() == []
    full = Position("444444")
    assert not full.can_play(3) and 3 not in full.legal_moves()
    assert Position("1", board=(4, 4)).mirror().moves == "4"
    # Past nine columns a move is a letter, read in either case.
    q = Position("5a", board=(10, 6))
    assert q.moves == "5a" and q == Position("5A", board=(10, 6))
    assert q.legal_moves() == list(range(10)) and q.mirror().moves == "61"
    assert q.to_array()[-1] == [0, 0, 0, 0, 1, 0, 0, 0, 0, 2]
    assert str(q).splitlines()[-1].split() == list("123456789a")
    q.play(15 - 6)
    assert q.moves == "5aa" and repr(q) == "Position('5aa', board=(10, 6))"
    assert (9, 6) in score4.board_sizes() and (4, 15) in score4.board_sizes()
    assert (10, 6) in score4.board_sizes() and (16, 7) in score4.board_sizes()
    assert (8, 15) in score4.board_sizes() and (4, 31) in score4.board_sizes()
    assert (17, 4) not in score4.board_sizes() and (8, 16) not in score4.board_sizes()


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda: Position("448"), "move 3: column 8 is out of range 1..7"),
        (lambda: Position("4a"), "move 2: column 10 is out of range 1..7"),
        (lambda: Position("4h"), "move 2: 'h' is not a column"),
        (lambda: Position("4444444"), "move 7: column 4 is full"),
        (lambda: Position("12121213"), "move 8: the game was already won by move 7"),
        (lambda: Position("", board=(17, 4)), "17x4 is not supported"),
        (lambda: Position("", board=(8, 16)), "8x16 is not supported"),
        (lambda: Position("ah", board=(16, 4)), "move 2: 'h' is not a column"),
        (lambda: Position("b", board=(10, 4)), "move 1: column 11 is out of range 1..10"),
        (lambda: Book.build("never.book", 2, board=(17, 4)), "17x4 is not supported"),
        (lambda: Position("44").play(7), "column 7 is out of range 0..6"),
        (lambda: Position("44").play(-1), "out of range"),
        (lambda: Solver().solve("1212121"), "the game is already over: move 7 won"),
        (lambda: Solver().solve(Position("44"), board=(6, 5)), "disagrees"),
        (lambda: Solver(table_mb=0), "bad table_mb 0"),
        (lambda: Solver(threads=0), "bad threads 0"),
        (lambda: Solver(book="/no/such.book"), "no/such.book"),
        (lambda: Solver().solve("44", timeout=-1), "bad timeout"),
        (lambda: engine_move(["o53", "o53"]), "cell 'o53' is given twice"),
        (lambda: engine_move(["o99"]), "off the board"),
        (lambda: engine_move(["o53"], level=0), "bad level 0"),
        (lambda: engine_move(["o53"], level=-1), "bad level -1"),
        (lambda: engine_move(["o53", "x43"]), "x43"),
        (lambda: engine_move(["-level", "3"]), "-level"),
        (lambda: Position("", board=(-1, 6)), "cannot be negative"),
        (lambda: Solver(threads=-1), "bad threads -1"),
        (lambda: Solver(table_mb=-1), "bad table_mb -1"),
        (lambda: Book.load("/no/such.book"), "no/such.book"),
        (lambda: Solver().analyze_anytime("44", goal="all"), "bad goal 'all'"),
        (lambda: Solver().analyze_anytime("44", tick=0), "bad tick 0"),
        (lambda: Solver().analyze_anytime("44", tick=float("nan")), "bad tick NaN"),
        (lambda: Solver().analyze_anytime("44", tick=-1), "bad tick -1"),
        (lambda: Solver().analyze_anytime("44", timeout=-1), "bad timeout -1"),
        (lambda: Solver().analyze_anytime("448"), "column 8 is out of range"),
    ],
)
def test_bad_input_is_a_value_error_in_the_library_words(call, words):
    with pytest.raises(ValueError) as e:
        call()
    assert words in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: Solver().solve(42),
        lambda: Solver().solve(None),
        lambda: Solver().solve(b"44"),
        lambda: Solver(book=3.5),
        lambda: Solver(book=0),
        lambda: Solver().analyze_anytime("44", on_update=3),
        lambda: Solver().analyze_anytime("44", tick="1"),
    ],
)
def test_a_wrong_type_is_a_type_error(call):
    with pytest.raises(TypeError):
        call()


def test_a_book_build_checks_its_numbers_before_it_writes(tmp_path):
    out = tmp_path / "never.book"
    for kwargs, words in [
        (dict(depth=-1), "bad depth -1"),
        (dict(depth=2, threads=0), "bad threads 0"),
        (dict(depth=2, table_mb=-5), "bad table_mb -5"),
    ]:
        depth = kwargs.pop("depth")
        with pytest.raises(ValueError) as e:
            Book.build(str(out), depth, board=(4, 4), **kwargs)
        assert words in str(e.value)
    assert list(tmp_path.iterdir()) == []
    # An empty name would put the lock and the checkpoint in the working
    # directory.
    here = sorted(os.listdir("."))
    with pytest.raises(ValueError) as e:
        Book.build("", 2, board=(4, 4))
    assert "the name is empty" in str(e.value)
    assert sorted(os.listdir(".")) == here


HUGE = [10**30, -(10**30), 2**64, 10**5000]


@pytest.mark.parametrize("n", HUGE, ids=["1e30", "-1e30", "2**64", "1e5000"])
@pytest.mark.parametrize(
    "call,name",
    [
        (lambda n: Position("44").play(n), "column"),
        (lambda n: Position("44").can_play(n), "column"),
        (lambda n: Position("44").is_winning_move(n), "column"),
        (lambda n: Position("", board=(n, 6)), "board"),
        (lambda n: Position("", board=(7, n)), "board"),
        (lambda n: Solver(table_mb=n), "bad table_mb"),
        (lambda n: Solver(threads=n), "bad threads"),
        (lambda n: Solver().solve("44", board=(n, 4)), "board"),
        (lambda n: engine_move(["o53"], level=n), "bad level"),
        (lambda n: Book.build("never.book", n, board=(4, 4)), "bad depth"),
        (lambda n: Book.build("never.book", 2, board=(4, 4), threads=n), "bad threads"),
        (lambda n: Book.build("never.book", 2, board=(4, 4), table_mb=n), "bad table_mb"),
    ],
)
def test_a_huge_number_is_a_value_error_naming_the_argument(call, name, n, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as e:
        call(n)
    words = str(e.value)
    assert name in words and "\n" not in words
    if n == 10**5000:
        assert "16610-bit number" in words
    elif abs(n) < 2**127:
        assert str(n) in words
    assert list(tmp_path.iterdir()) == []


def test_a_timeout_of_a_huge_float_is_still_no_timeout_but_a_huge_int_is_refused():
    with pytest.raises(ValueError) as e:
        Solver().solve("4453", timeout=10**400)
    assert "bad timeout (a 1329-bit number)" in str(e.value)
    assert Solver().solve("4453", timeout=float(10**300)) == -2


def test_signatures_show_their_defaults():
    import inspect
    import pydoc

    assert str(inspect.signature(Position)) == "(moves='', board=(7, 6))"
    assert str(inspect.signature(Position.from_moves)) == "(moves, board=(7, 6))"
    assert str(inspect.signature(Solver)) == "(table_mb=64, threads=1, book=True)"
    assert str(inspect.signature(Book.build)) == (
        "(path, depth, board=(7, 6), threads=1, table_mb=64, progress=None)"
    )
    assert str(inspect.signature(engine_move)) == "(cells, level=7)"
    assert "board=(7, 6)" in pydoc.render_doc(Position)
    # Nothing anywhere shows a default it cannot say.
    for cls in (Position, Solver, Book):
        made = [("__init__", cls)] if cls.__text_signature__ else []
        for name, member in made + list(vars(cls).items()):
            if name.startswith("__") and name != "__init__" or not callable(member):
                continue
            for param in inspect.signature(member).parameters.values():
                assert param.default is not Ellipsis, (cls.__name__, name, param)


def test_the_stub_matches_the_module():
    """Each function and method in the stub takes the parameters, with the
    defaults, the module's own signatures name."""
    import ast
    import inspect

    stub = ast.parse((Path(score4._native.__file__).parent / "_native.pyi").read_text())
    seen = 0
    for node in stub.body:
        owner, defs = score4._native, [node]
        if isinstance(node, ast.ClassDef):
            owner, defs = getattr(score4._native, node.name), node.body
        for fn in defs:
            if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("__") and fn.name != "__init__":
                continue
            if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
                assert isinstance(getattr(owner, fn.name), property) or hasattr(owner, fn.name)
                continue
            real = inspect.signature(owner if fn.name == "__init__" else getattr(owner, fn.name))
            args = [a.arg for a in fn.args.args if a.arg != "self"]
            defaults = [ast.literal_eval(d) for d in fn.args.defaults]
            assert args == [p for p in real.parameters if p != "self"], (fn.name, args)
            expected = [p.default for p in real.parameters.values() if p.default is not inspect.Parameter.empty]
            assert defaults == expected, (fn.name, defaults, expected)
            seen += 1
    assert seen >= 25
    solver = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Solver")
    best = next(f for f in solver.body if isinstance(f, ast.FunctionDef) and f.name == "best_move")
    # A finished game raises; a game that goes on has a move.
    assert ast.unparse(best.returns) == "int"
    with pytest.raises(ValueError) as e:
        Solver().best_move("1212121")
    assert "the game is already over" in str(e.value)


def test_one_solver_shared_by_two_threads():
    """The second caller waits for the first, the GIL released; both get
    right answers."""
    solver = Solver(book=False)
    cases = labelled("ply9-14.txt", 4)
    answers, errors = {}, []

    def work(part):
        try:
            for moves, _ in part:
                answers[moves] = solver.solve(moves)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(cases[i::2],)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert answers == dict(cases)
    # Two boards at once: each search gets the solver of its own board.
    small = [(p, negamax(p, {})) for p in random_positions((5, 4), 6, 7, 8)]
    answers.clear()

    def small_work():
        try:
            for p, _ in small:
                answers[p.moves] = solver.solve(p)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(cases[:4],)), threading.Thread(target=small_work)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert answers == dict(cases[:4]) | {p.moves: score for p, score in small}
    # A caller with a timeout gives up waiting for a busy solver.
    long = []

    def search_long():
        try:
            solver.solve("", timeout=1.5)
        except TimeoutError as e:
            long.append(str(e))

    busy = threading.Thread(target=search_long)
    busy.start()
    time.sleep(0.2)
    with pytest.raises(TimeoutError) as e:
        solver.solve("4453", timeout=0.1)
    assert "busy in another thread" in str(e.value)
    busy.join()
    assert long and "did not finish" in long[0]
    assert solver.solve("4453") == -2


def test_engine_move_takes_a_list_or_a_string_of_cells():
    assert engine_move("o53 y43", level=5) == engine_move(["o53", "y43"], level=5)
    assert engine_move(("o53", "y43"), level=5) == engine_move(["o53", "y43"], level=5)
    assert engine_move("o53") == engine_move(["o53"])
    with pytest.raises(ValueError) as e:
        engine_move("o53 o53")
    assert "given twice" in str(e.value)
    with pytest.raises(TypeError) as e:
        engine_move(53)
    assert "list of cell strings" in str(e.value)


def test_a_table_too_large_is_refused_by_the_constructor():
    try:
        solver = Solver(table_mb=65536)
    except MemoryError as e:
        assert "table_mb 65536" in str(e) and "cannot allocate" in str(e)
    else:
        # This system gives 64 GiB (or promises it): then it must work.
        assert solver.solve("4453") == -2


def test_nodes_can_be_reset():
    s = Solver(book=False)
    moves = labelled("ply9-14.txt", 1)[0][0]
    s.solve(moves)
    assert s.nodes > 0
    s.reset_nodes()
    assert s.nodes == 0
    s.reset()
    s.solve(moves)
    first = s.nodes
    s.reset_nodes()
    s.reset()
    s.solve(moves)
    assert s.nodes == first > 0


def test_best_moves_on_other_boards_and_a_finished_game():
    solver = Solver(table_mb=8)
    for board, moves in [((5, 4), "33"), ((4, 5), "2"), ((6, 4), "3344"), ((7, 6), "445566")]:
        scores = solver.analyze(moves, board=board)
        top = max(s for s in scores if s is not None)
        assert solver.best_moves(moves, board=board) == [c for c, s in enumerate(scores) if s == top]
        assert solver.best_move(moves, board=board) in solver.best_moves(moves, board=board)
    with pytest.raises(ValueError):
        solver.best_moves("1212121")


def test_version():
    from importlib.metadata import version

    cargo = (REPO / "Cargo.toml").read_text()
    crate = next(line for line in cargo.splitlines() if line.startswith("version = "))
    assert score4.__version__ == version("score4") == crate.split('"')[1]


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86-64 only")
def test_the_wheel_is_built_for_x86_64_v3():
    """What the import check assumes, even for a wheel built from another
    directory (as scripts/python-test builds it)."""
    rustc, features = score4._native._build_info()
    assert rustc.startswith("rustc ")
    assert {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe"} <= set(features)


def random_positions(board, count, seed, least_moves):
    """`count` random positions of games that go on, with at least
    `least_moves` moves played."""
    import random

    rng = random.Random(seed)
    w, h = board
    out = []
    while len(out) < count:
        p = Position(board=board)
        for _ in range(rng.randrange(least_moves, w * h)):
            if p.is_game_over():
                break
            p.play(rng.choice(p.legal_moves()))
        if not p.is_game_over():
            out.append(p)
    return out


def check_anytime(states, exact, best):
    """Every state holds the exact scores, narrows the state before it, and
    says only what is proven."""
    previous = None
    # Progress reported between narrowings is live, a little ahead of the
    # count of the next narrowing: each state counts at least as much as
    # the narrowing before it.
    floor = None
    top = max(s for s in exact if s is not None)
    for a in states:
        assert len(a.bounds) == len(exact)
        for col, (bounds, score) in enumerate(zip(a.bounds, exact)):
            if score is None:
                assert bounds is None and a.exact[col] is None and a.words[col] is None
                continue
            lower, upper = bounds
            assert lower <= score <= upper, (a.position, col, bounds, score)
            if previous is not None:
                before = previous.bounds[col]
                assert before[0] <= lower and upper <= before[1], (before, bounds)
            assert a.exact[col] == (score if lower == upper else None)
            sign = (score > 0) - (score < 0)
            proven = lower > 0 or upper < 0 or lower == upper == 0
            assert a.weak[col] == (sign if proven else None)
            words = a.words[col]
            if a.weak[col] == 1:
                assert words.startswith("win in"), words
            elif a.weak[col] == -1:
                assert words.startswith("loss in"), words
            elif a.weak[col] == 0:
                assert words == "draw"
            else:
                assert words in ("draw or better", "not a win", "not proven yet") or re.fullmatch(
                    r"no loss in under \d+(, no win in under \d+)?|no win in under \d+", words), words
        lower, upper = a.score
        assert lower <= top <= upper
        assert a.best is not None and a.bounds[a.best] is not None
        if a.proven:
            assert a.best == best
        if a.done:
            assert a.exact == exact and a.proven
        if floor is not None:
            assert a.nodes >= floor.nodes, (a, floor)
        if previous is None or a.bounds != previous.bounds:
            floor = a
        previous = a


BOARDS = [(4, 4), (5, 4), (4, 5), (6, 4), (5, 5), (7, 6)]


@pytest.mark.parametrize("board", BOARDS, ids=[f"{w}x{h}" for w, h in BOARDS])
def test_anytime_bounds_always_hold_the_exact_scores(board):
    """Stopped at every stage (timeouts from nothing to none), on random
    positions: every state reported, and the last, holds the exact score of
    every column."""
    exact_solver = Solver(table_mb=16)
    anytime = Solver(table_mb=16, book=False)
    timeouts = [0, 0.0002, 0.001, 0.005, None]
    least = 24 if board == (7, 6) else 0
    checked = 0
    for i, p in enumerate(random_positions(board, 25, hash(board) & 0xFFFF, least)):
        exact = exact_solver.analyze(p)
        best = exact_solver.best_move(p)
        states = []
        anytime.reset()
        timeout = timeouts[i % len(timeouts)]
        last = anytime.analyze_anytime(p, timeout=timeout, on_update=states.append)
        assert last.position == p
        check_anytime(states + [last], exact, best)
        if timeout is None:
            assert last.done
        checked += len(states) + 1
        # The goal of a move: stops once the best is proven.
        anytime.reset()
        move = anytime.analyze_anytime(p, goal="best_move")
        check_anytime([move], exact, best)
        assert move.proven and move.best == best
    assert checked > 100


def test_anytime_of_the_labelled_positions():
    solver = Solver()
    for moves, score in labelled("ply23-32.txt", 10) + labelled("ply15-22.txt", 5):
        a = solver.analyze_anytime(moves)
        assert a.done and a.score == (score, score)
        assert a.exact == solver.analyze(moves)
        assert a.best == solver.best_move(moves)


def test_anytime_timeout_gives_bounds_with_progress():
    """The empty board without the book cannot be solved in a second: the
    analysis ends at its timeout with what it proved, having reported its
    progress meanwhile."""
    exact = Solver().analyze("")  # from the built-in book
    best = Solver().best_move("")
    states = []
    solver = Solver(book=False)
    last = solver.analyze_anytime("", timeout=1.0, tick=0.05, on_update=states.append)
    assert not last.done
    check_anytime(states + [last], exact, best)
    # Ticks with progress between narrowings.
    ticks = [b for a, b in zip(states, states[1:]) if a.bounds == b.bounds]
    assert len(ticks) >= 3
    assert states[-1].nodes > states[0].nodes
    assert solver.nodes >= last.nodes > 0
    assert f"best {last.best} " in repr(last)
    assert ("(proven)" in repr(last)) == last.proven


def test_anytime_ticks_no_more_often_than_asked():
    """A tick longer than the library's own is kept: between narrowings,
    on_update is called no more often than every `tick`, and with a tick
    past the clock, only when a bound narrows. On the empty 8x8 board,
    whose bounds stop narrowing after a fraction of a second (each
    column's next question takes hours), so that a tick is due in every
    window of `tick` seconds after them, however fast the machine (the
    empty 7x6 board's bounds could narrow more often than every 0.3 s
    throughout a second, and leave no tick to see)."""
    for tick, timeout in [(0.3, 2.0), (1e300, 0.6)]:
        states = []
        Solver(book=False).analyze_anytime(
            "", board=(8, 8), timeout=timeout, tick=tick, on_update=states.append
        )
        ticks = [b for a, b in zip(states, states[1:]) if a.bounds == b.bounds]
        if tick > 1e9:
            assert ticks == []
        else:
            assert 1 <= len(ticks) <= timeout / tick + 1
            for a, b in zip(states, states[1:]):
                if a.bounds == b.bounds:
                    assert b.seconds - a.seconds >= tick * 0.9


def test_anytime_callback_exception_stops_the_analysis_and_is_raised():
    solver = Solver(book=False)
    calls = []

    class Enough(Exception):
        pass

    def stop_third(a):
        calls.append(a.seconds)
        if len(calls) == 3:
            raise Enough("stop here")

    start = time.monotonic()
    with pytest.raises(Enough, match="stop here"):
        solver.analyze_anytime("", timeout=30, on_update=stop_third)
    assert len(calls) == 3
    print(f"stopped {time.monotonic() - start:.3f} s after the start")
    # The solver goes on working after the stop.
    assert solver.solve("4453") == -2
    assert solver.analyze_anytime("445566").done


def test_anytime_callback_cannot_use_its_own_solver():
    solver = Solver(book=False)
    other = Solver()
    seen = []

    def use_it(a):
        seen.append(other.solve("4453"))  # another Solver is fine
        solver.solve("4453")

    with pytest.raises(RuntimeError, match="cannot use the Solver that calls it"):
        solver.analyze_anytime("", on_update=use_it)
    assert seen == [-2]
    assert solver.solve("4453") == -2


def test_anytime_releases_the_gil():
    solver = Solver(book=False)
    results = {}

    def analyse():
        results["a"] = solver.analyze_anytime("", timeout=1.0, on_update=lambda a: None)

    t = threading.Thread(target=analyse)
    t.start()
    time.sleep(0.1)
    counted, start = 0, time.monotonic()
    while time.monotonic() - start < 0.5:
        counted += 1
    assert t.is_alive(), "the analysis ended before the count"
    assert counted > 0
    t.join()
    assert not results["a"].done


def test_a_timeout_beyond_the_clock_never_comes():
    solver = Solver()
    assert solver.solve("4453", timeout=1e300) == solver.solve("4453")
    assert solver.solve("4453", timeout=2.0**70) == -2


def test_positions_copy_and_pickle_as_values():
    import copy
    import pickle

    p = Position("4453", board=(6, 5))
    for q in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert q == p and q.board == (6, 5) and q is not p
        q.play(0)
        assert q != p and p.moves == "4453"


def test_a_book_scores_a_position_of_another_board_by_naming_both(tmp_path):
    book = Book.build(str(tmp_path / "b.book"), 4, board=(5, 4))
    with pytest.raises(ValueError) as e:
        book.score(Position("44"))
    assert "the book is for 5x4, not 7x6" in str(e.value)
    assert book.score("33") == Solver().solve("33", board=(5, 4))


def test_a_build_stopped_by_its_progress_callback_resumes(tmp_path):
    out = tmp_path / "b.book"
    calls = []

    def stop_after_twenty(done, total):
        calls.append(done)
        if len(calls) > 20:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Book.build(str(out), 6, board=(5, 4), progress=stop_after_twenty)
    assert not out.exists()
    assert (tmp_path / "b.book.partial").exists()
    whole = Book.build(str(tmp_path / "whole.book"), 6, board=(5, 4))
    resumed = Book.build(str(out), 6, board=(5, 4))
    assert out.read_bytes() == (tmp_path / "whole.book").read_bytes()
    assert len(resumed) == len(whole)


def _timeout_in_child(queue):
    try:
        Solver(book=False).solve("", timeout=0.3)
        queue.put("finished")
    except TimeoutError:
        queue.put("timeout")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_keeps_timeouts():
    import multiprocessing

    # The parent's watcher thread is running; the child must start its own.
    with pytest.raises(TimeoutError):
        Solver(book=False).solve("", timeout=0.05)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_timeout_in_child, args=(queue,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
    assert queue.get(timeout=1) == "timeout"


def test_engine_move_is_the_protocol_column():
    # The recorded answers of the original engine, from the fixtures.
    import json

    checked = 0
    for line in (REPO / "fixtures" / "score4-protocol-sample.jsonl").read_text().splitlines():
        case = json.loads(line)
        args = case.get("args", [])
        if any(a.startswith("-") and a != "-level" for a in args):
            continue
        cells = [a for a in args if a[:1] in ("o", "y")]
        level = 7
        if "-level" in args:
            i = args.index("-level")
            if i + 1 >= len(args) or not args[i + 1].isdigit():
                continue
            level = int(args[i + 1])
        if not 1 <= level <= 12 or case.get("exit") not in (0, 255):
            continue
        stdout = case.get("stdout", "")
        lines = stdout.split()
        col = engine_move(cells, level=level)
        if col is None:
            assert not lines or not lines[0].isdigit()
        else:
            assert lines and int(lines[0]) == col, (args, stdout)
        checked += 1
        if checked == 40:
            break
    assert checked >= 10


def test_books_built_in_from_a_file_and_from_python(tmp_path):
    with_book, without = Solver(), Solver(book=False)
    for moves, score in labelled("ply4-8.txt", 3):
        assert with_book.solve(moves) == score == without.solve(moves)
    # The built-in book answers an early position without searching.
    fresh = Solver()
    fresh.solve("4453")
    assert fresh.nodes == 0
    assert without.nodes > 0

    seen = []
    path = tmp_path / "5x4.book"
    built = Book.build(str(path), 6, board=(5, 4), progress=lambda d, t: seen.append((d, t)))
    assert path.exists() and seen and seen[-1][0] == seen[-1][1]
    loaded = Book.load(path)
    assert (loaded.board, loaded.depth, len(loaded)) == ((5, 4), 6, len(built))
    plain = Solver(book=False)
    for moves in ["", "3", "33", "3322", "123451"]:
        assert loaded.score(moves) == plain.solve(moves, board=(5, 4))
    assert loaded.score("1234512") is None  # deeper than the book
    for book in (loaded, str(path)):
        s = Solver(book=book)
        assert s.solve("33", board=(5, 4)) == plain.solve("33", board=(5, 4))
        assert s.nodes == 0


def test_reset_forgets_the_table():
    s = Solver(book=False)
    moves = labelled("ply9-14.txt", 1)[0][0]
    s.solve(moves)
    cold = s.nodes
    s.solve(moves)
    warm = s.nodes - cold
    s.reset()
    s.solve(moves)
    again = s.nodes - cold - warm
    assert warm < cold and again == cold


def test_timeout_and_a_second_thread_runs_while_solving():
    solver = Solver(book=False)
    done = {}

    def solve():
        try:
            solver.solve("", timeout=1.5)
        except TimeoutError as e:
            done["timeout"] = str(e)

    t = threading.Thread(target=solve)
    t.start()
    time.sleep(0.1)
    # This thread runs Python code while the other searches: the GIL is free.
    counted, start = 0, time.monotonic()
    while time.monotonic() - start < 0.5:
        counted += 1
    assert t.is_alive(), "the search ended before the count"
    assert counted > 0
    t.join()
    assert "did not finish" in done["timeout"]
    # The solver is sound after a stopped search.
    assert solver.solve("4453") == -2


def test_two_threads_solve_at_once():
    """Both threads get right answers; the time is printed, not asserted (a
    loaded machine drifts): on two idle cores two take about one's time."""
    cases = labelled("ply4-8.txt", 4)

    def work(out):
        s = Solver(book=False)
        start = time.monotonic()
        for moves, score in cases:
            assert s.solve(moves) == score
        out.append(time.monotonic() - start)

    one = []
    work(one)
    two = []
    threads = [threading.Thread(target=work, args=(two,)) for _ in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    both = time.monotonic() - start
    assert len(two) == 2
    print(f"one thread {one[0]:.2f} s; two at once {both:.2f} s ({both / one[0]:.2f}x)")


@pytest.mark.parametrize(
    "call",
    [
        "score4.Solver(book=False).solve('')",
        "score4.Solver(book=False).analyze_anytime('')",
        "score4.Solver(book=False).analyze_anytime('', on_update=lambda a: None)",
        # Waiting for a Solver another thread searches with.
        "s = score4.Solver(book=False); import threading, time; "
        "threading.Thread(target=s.solve, args=('',), daemon=True).start(); "
        "time.sleep(0.2); s.solve('4453')",
        # The classic engine's deep levels take hours.
        "score4.engine_move(['o53'], level=40)",
    ],
)
def test_ctrl_c_interrupts_a_long_search(call):
    script = (
        "import score4, sys\n"
        "print('solving', flush=True)\n"
        f"{call}\n"
        "print('finished', flush=True)\n"
    )
    # Ctrl-C as in a terminal: a shell runs background jobs with SIGINT
    # ignored, and Python then leaves it ignored, so the child gets the
    # default disposition back before it starts.
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout.readline().strip() == "solving"
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    took = time.monotonic() - sent
    print(f"interrupted {took * 1000:.0f} ms after SIGINT")
    assert "KeyboardInterrupt" in err
    assert "finished" not in out
    assert proc.returncode != 0


def test_cpu_check():
    ok = set(score4._cpu.REQUIRED)
    score4._cpu.require_cpu(flags=ok)
    with pytest.raises(ImportError) as e:
        score4._cpu.require_cpu(flags=ok - {"avx2", "bmi2"})
    assert "x86-64-v3" in str(e.value) and "avx2, bmi2" in str(e.value)
    # This machine passes, since the module imported.
    flags = score4._cpu.cpu_flags()
    assert flags is None or score4._cpu.missing(flags) == []


def test_docstrings():
    attempted = 0
    for module in (score4, score4._native, score4._cpu):
        result = doctest.testmod(module, verbose=False)
        assert result.failed == 0, module
        attempted += result.attempted
    for cls in (Position, Solver, Book):
        for name in dir(cls):
            obj = getattr(cls, name)
            doc = getattr(obj, "__doc__", None)
            if name.startswith("__") or not doc or ">>>" not in doc:
                continue
            parser = doctest.DocTestParser()
            test = parser.get_doctest(doc, {"Position": Position}, f"{cls.__name__}.{name}", None, 0)
            runner = doctest.DocTestRunner()
            runner.run(test)
            assert runner.failures == 0, name
            attempted += runner.tries
    assert attempted >= 15


@pytest.mark.parametrize("page,examples", [("docs/python.md", 8), ("README.md", 2)])
def test_the_documented_sessions(page, examples):
    result = doctest.testfile(str(REPO / page), module_relative=False, verbose=False)
    assert result.failed == 0
    assert result.attempted >= examples
