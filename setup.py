"""An optional compiled build of the hot rules modules (issue 15; docs/arena.md, "Engine speed").

Everything is in pyproject.toml; this file only adds mypyc extensions, and only when asked:

    pip install -e '.[compile]'          # mypy, in the series CI builds with
    MEEPLE_COMPILE=1 pip install --no-build-isolation -e .

Without ``MEEPLE_COMPILE=1`` (the README's commands) the install is pure Python, as before. Opt-in
because it needs a C compiler and Python's headers and takes one and a half minutes on a quiet
2-core machine (more on a busy one), and because the pure modules are what the README's test
command tests (`.ci/compiled.py` runs the engine, bot and table tests on a compiled copy). With
Cython too (in ``[compile]``), the Mersenne Twister the deals draw from is compiled as well
(``meeple/core/_twister.pyx``: C arrays of machine words, which mypyc has no type for). If mypy is
missing or compiling fails, the install goes on pure and says so: all the modules or none, since
they share one library. The build records a hash of each source it compiled in
``meeple/_compiled.json``; `meeple` loads the pure modules instead when a source has changed
since (an edited rules file is never shadowed by a stale build) or when ``MEEPLE_PURE=1``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
# Paths under src/; kept in step with the trial (benchmarks/mypyc_trial.py).
COMPILED = [
    "meeple/core/game.py",
    "meeple/core/rng.py",
    "meeple/games/scarvus/rules.py",
    "meeple/games/savage_bowl/rules.py",
    "meeple/games/trickarus/rules.py",
    "meeple/games/zarcana/rules.py",
    "meeple/games/karvi/rules.py",
]
# Compiled with Cython (optional: without it, `meeple.core.rng` deals from random.Random).
CYTHONIZED = ["meeple/core/_twister.pyx"]
RECORD = HERE / "src" / "meeple" / "_compiled.json"
BUILT: list[str] = []  # the sources of the extensions `extensions()` gave


def say(text: str) -> None:
    print(f"meeple build: {text}", file=sys.stderr)


class AllOrNothing(build_ext):
    """Build the extensions; on any failure remove what was built and stay pure Python."""

    def run(self) -> None:
        RECORD.unlink(missing_ok=True)
        try:
            super().run()
        except Exception as exc:  # no compiler, a compile error: the pure modules serve
            say(f"compiling failed ({exc}); installing pure Python")
            for ext in self.extensions:
                for path in {self.get_ext_fullpath(ext.name),
                             str(HERE / "src" / self.get_ext_filename(ext.name))}:
                    Path(path).unlink(missing_ok=True)
            return
        RECORD.write_text(json.dumps({
            f: hashlib.sha256((HERE / "src" / f).read_bytes()).hexdigest() for f in BUILT
        }, indent=1) + "\n")
        say(f"compiled {', '.join(BUILT)}")


def extensions() -> list:
    if os.environ.get("MEEPLE_COMPILE") != "1" or os.environ.get("MEEPLE_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        say("MEEPLE_COMPILE=1 but mypy is not installed in the build environment "
            "(pip install mypy, then pip install --no-build-isolation): installing pure Python")
        return []
    # mypy names each module from its package folders (src/ has no __init__.py): meeple.core.game.
    # Errors in modules that are only imported (bots, renderers) are not ours to stop the build.
    try:
        built = mypycify(["--follow-imports=silent", *(f"src/{f}" for f in COMPILED)], opt_level="3")
    except (Exception, SystemExit) as exc:  # mypy reports type errors by exiting
        say(f"mypyc refused the sources ({exc}); installing pure Python")
        return []
    BUILT.extend(COMPILED)
    try:
        from Cython.Build import cythonize
    except ImportError:
        say("Cython is not installed: deals draw from random.Random (same cards, slower)")
        return built
    try:
        twister = cythonize(
            [Extension(f[: -len(".pyx")].replace("/", "."), [f"src/{f}"]) for f in CYTHONIZED],
            quiet=True, language_level=3)
    except Exception as exc:  # a source tree without the .pyx, a Cython error
        say(f"Cython failed ({exc}): deals draw from random.Random (same cards, slower)")
        return built
    BUILT.extend(CYTHONIZED)
    return built + twister


setup(ext_modules=extensions(), cmdclass={"build_ext": AllOrNothing})
