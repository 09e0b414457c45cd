"""The CPU check made before the native module is loaded.

The wheel is compiled for x86-64-v3 (AVX2, BMI1, BMI2, FMA, LZCNT, MOVBE,
F16C): on an older x86-64 processor its first instruction of those would
kill the interpreter with SIGILL. Reading the processor's flags first turns
that into an ImportError that says what is missing.
"""

import platform

# x86-64-v3 as Linux's /proc/cpuinfo names its features ("abm" is LZCNT).
REQUIRED = ("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe")


def cpu_flags():
    """The flags of the first processor in /proc/cpuinfo, or None where
    they cannot be read (another system or architecture)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        return None
    return None


def missing(flags):
    """The x86-64-v3 features absent from `flags`.

    >>> missing({"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe"})
    []
    >>> missing({"avx", "bmi1"})
    ['avx2', 'bmi2', 'f16c', 'fma', 'abm', 'movbe']
    """
    return [f for f in REQUIRED if f not in flags]


def require_cpu(flags=None):
    """Raises ImportError if the processor lacks what the wheel was built for."""
    if flags is None:
        flags = cpu_flags()
    if flags is None:
        return
    lacking = missing(flags)
    if lacking:
        raise ImportError(
            "score4 needs an x86-64-v3 processor (AVX2, BMI1, BMI2, FMA, LZCNT, "
            "MOVBE, F16C); this one lacks: " + ", ".join(lacking)
        )
