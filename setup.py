"""The compiled engine: the hot rules modules built with mypyc, the deals' Mersenne Twister with Cython.

Everything else is in pyproject.toml; this file only adds the extensions. Every install builds them
when a C compiler is there (mypy, which brings mypyc, and Cython are build requirements that pip
fetches into its isolated build environment), so `pip install -e .` and the README's commands give
the compiled engine with no extra step:

    pip install -e .                 # compiled where a C compiler is, pure Python where not
    MEEPLE_PURE=1 pip install -e .   # pure Python on purpose (also honoured at run time)
    pip install -v -e .              # shows the build's progress lines ("meeple build: ...")

Without a compiler, or if compiling fails, the install goes on pure Python and records why in
``meeple/_build_note.txt`` (`meeple list` prints it): all the modules or none, since they share
one library. The build records a hash of each source it compiled in ``meeple/_compiled.json``;
`meeple` loads the pure modules instead when a source has changed since (an edited rules file is
never shadowed by a stale build) or when ``MEEPLE_PURE=1``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError, LinkError

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
    "meeple/games/karvi/actions.py",
    "meeple/games/karvi/board.py",
    "meeple/games/karvi/effects.py",
    "meeple/games/karvi/map.py",
    "meeple/games/karvi/tasks.py",
]
# Compiled with Cython (optional: without it, `meeple.core.rng` deals from random.Random).
CYTHONIZED = ["meeple/core/_twister.pyx"]
RECORD = HERE / "src" / "meeple" / "_compiled.json"
NOTE = HERE / "src" / "meeple" / "_build_note.txt"  # why an install is pure Python
BUILT: list[str] = []  # the sources of the extensions `extensions()` gave


def say(text: str) -> None:
    print(f"meeple build: {text}", file=sys.stderr)


BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def building() -> bool:
    """Whether this run of setup.py builds (pip also runs it for metadata, where mypy is wasted)."""
    return bool(BUILDS & set(sys.argv[1:]))


def pure(reason: str) -> None:
    """Install pure Python, saying why here and (for `meeple list`) in the package; a compiled
    build left beside the sources by an earlier install would shadow them, so it goes."""
    say(f"{reason}: installing pure Python")
    src = HERE / "src"
    for path in [*src.glob("*__mypyc*"), *(
            p for f in COMPILED + CYTHONIZED
            for p in (src / f).parent.glob(Path(f).name.split(".")[0] + ".*")
            if p.suffix in (".so", ".pyd"))]:
        path.unlink(missing_ok=True)
    RECORD.unlink(missing_ok=True)
    NOTE.write_text(reason + "\n")


def have_compiler() -> bool:
    """Whether the C compiler Python was built with (or ``$CC``) runs at all (checked before
    mypy spends half a minute on C that nothing could compile)."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    if not cc or shutil.which(cc[0]) is None:
        return False
    try:
        return subprocess.run([cc[0], "--version"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def compile_in_parallel(compiler, jobs: int) -> None:
    """Let ``compiler`` build an extension's C files ``jobs`` at a time (the mypyc library is
    several files), saying how far it is. setuptools' own ``--parallel`` only spreads whole
    extensions over the cores."""
    def compile_all(sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                    extra_preargs=None, extra_postargs=None, depends=None):
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)
        done = []

        def one(obj: str) -> None:
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)
            done.append(obj)
            say(f"compiled {Path(src).name} ({len(done)}/{len(objects)} C files of this extension)")

        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(one, objects))
        return objects

    compiler.compile = compile_all


class AllOrNothing(build_ext):
    """Build the extensions on every core; on any failure remove what was built, stay pure."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1  # extensions side by side

    def build_extensions(self) -> None:
        compile_in_parallel(self.compiler, os.cpu_count() or 1)
        super().build_extensions()

    def run(self) -> None:
        if not self.extensions:  # pure Python; `pure()` said why
            return
        RECORD.unlink(missing_ok=True)
        NOTE.unlink(missing_ok=True)
        start = time.monotonic()
        try:
            super().run()
        except Exception as exc:  # no compiler, a compile error: the pure modules serve
            for ext in self.extensions:
                for path in {self.get_ext_fullpath(ext.name),
                             str(HERE / "src" / self.get_ext_filename(ext.name))}:
                    Path(path).unlink(missing_ok=True)
            failed = "the C compiler failed" if isinstance(exc, (CompileError, LinkError)) else str(exc)
            say(f"{exc}")
            pure(f"compiling failed: {failed[:160]}")
            return
        record = json.dumps({
            f: hashlib.sha256((HERE / "src" / f).read_bytes()).hexdigest() for f in BUILT
        }, indent=1) + "\n"
        RECORD.write_text(record)
        if not self.inplace:  # a wheel: the record travels with the modules
            built = Path(self.build_lib) / "meeple" / "_compiled.json"
            built.parent.mkdir(parents=True, exist_ok=True)
            built.write_text(record)
        say(f"compiled {', '.join(BUILT)} in {time.monotonic() - start:.0f} s")


def already_built() -> bool:
    """An editable install over a checkout whose compiled modules match their sources (a second
    venv on one clone, a reinstall): the modules beside the sources serve as they are."""
    if "editable_wheel" not in sys.argv[1:] and "develop" not in sys.argv[1:]:
        return False
    try:
        record = json.loads(RECORD.read_text())
    except (OSError, ValueError):
        return False
    src = HERE / "src"
    if set(record) != set(COMPILED + CYTHONIZED) or not list(src.glob("*__mypyc*")):
        return False
    for f, digest in record.items():
        if hashlib.sha256((src / f).read_bytes()).hexdigest() != digest:
            return False
        if not [p for p in (src / f).parent.glob(Path(f).name.split(".")[0] + ".*")
                if p.suffix in (".so", ".pyd")]:
            return False
    return True


def extensions() -> list:
    if not building():
        return []
    if os.environ.get("MEEPLE_PURE") != "1" and already_built():
        say("the compiled modules beside the sources match them: not compiling again")
        return []
    if os.environ.get("MEEPLE_PURE") == "1" or os.environ.get("MEEPLE_COMPILE") == "0":
        pure("MEEPLE_PURE=1 at install")
        return []
    if not have_compiler():
        pure("no C compiler found")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        pure("mypy (mypyc) is not in the build environment "
             "(with --no-build-isolation: pip install -e '.[compile]' first)")
        return []
    say("mypyc: translating the rules modules to C (about half a minute)")
    # mypy names each module from its package folders (src/ has no __init__.py): meeple.core.game.
    # Errors in modules that are only imported (bots, renderers) are not ours to stop the build.
    try:
        # multi_file: a C file per module, so the cores share the compile (one file for all
        # took three times as long on two cores, for the same instructions a decision within 5%).
        built = mypycify(["--follow-imports=silent", *(f"src/{f}" for f in COMPILED)],
                         opt_level="3", multi_file=True)
    except (Exception, SystemExit) as exc:  # mypy reports type errors by exiting
        pure(f"mypyc refused the sources ({exc})")
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
