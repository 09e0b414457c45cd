"""score4: exact scores and perfect play for Connect Four on every board
from 4x4 up to 128 bits and 16 columns (``board_sizes()``), an opening book,
and the classic Score4 engine.

Integer columns are 0-based (list indices); move strings are 1-based, as on
the command line: digits, then ``a`` to ``g`` for columns 10 to 16
(``Position("4453")``, ``Position("5a", board=(10, 6))``).

>>> import score4
>>> score4.Solver().analyze("4453")
[-5, -5, -2, -3, -4, -2, -2]

``Solver.analyze_anytime`` tells what is proven so far, by a timeout and
to a callback as it goes (an ``Analysis`` of each column's bounds):

>>> a = score4.Solver().analyze_anytime("4453", timeout=10)
>>> a.exact, a.best, a.words[2]
([-5, -5, -2, -3, -4, -2, -2], 2, 'loss in 18')
"""

from ._cpu import require_cpu as _require_cpu

_require_cpu()

from ._native import Analysis, Book, Position, Solver, __version__, board_sizes, engine_move  # noqa: E402

__all__ = ["Analysis", "Book", "Position", "Solver", "__version__", "board_sizes", "engine_move"]
