"""Checks a score4 installed by `pip install crates/score4-py`: it imports,
solves, reports the crate's version, and was compiled by the pinned
toolchain (named by the argument) for x86-64-v3.

Run by scripts/python-test in the environment it installed into, which
has no pytest.
"""

import platform
import re
import sys
from importlib.metadata import version
from pathlib import Path

import score4
import score4._native

V3 = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe"}


def main(channel):
    cargo = (Path(__file__).resolve().parents[3] / "Cargo.toml").read_text()
    crate_version = re.search(r'^version = "(.+)"', cargo, re.M).group(1)
    assert score4.__version__ == version("score4") == crate_version, (
        score4.__version__,
        version("score4"),
        crate_version,
    )
    assert score4.Solver().solve("4453") == -2
    rustc, features = score4._native._build_info()
    assert rustc.startswith(f"rustc {channel} "), f"built by {rustc}, not the pinned {channel}"
    if platform.machine() == "x86_64":
        missing = V3 - set(features)
        assert not missing, f"built without {sorted(missing)}"
    print(f"pip install: score4 {score4.__version__}, {rustc}, {' '.join(sorted(features))}")


if __name__ == "__main__":
    main(sys.argv[1])
