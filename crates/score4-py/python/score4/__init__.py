"""score4: exact scores and perfect play for Connect Four on every board
from 4x4 to 9x6, an opening book, and the classic Score4 engine.

Integer columns are 0-based (list indices); move strings are 1-based
digits, as on the command line: ``Position("4453")``.

>>> import score4
>>> score4.Solver().analyze("4453")
[-5, -5, -2, -3, -4, -2, -2]
"""

from ._cpu import require_cpu as _require_cpu

_require_cpu()

from ._native import Book, Position, Solver, __version__, board_sizes, engine_move  # noqa: E402

__all__ = ["Book", "Position", "Solver", "__version__", "board_sizes", "engine_move"]
