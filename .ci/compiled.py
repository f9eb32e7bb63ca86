"""The opt-in compiled build (setup.py, ``MEEPLE_COMPILE=1``; issue 15), checked in CI.

Builds the compiled modules with `setup.py` itself (``MEEPLE_COMPILE=1``: mypyc and Cython) on
a copy of the sources, checks that every one was built and loads compiled, then runs the tests
that drive the rules, the bots and tables with bots on that copy. The default install is pure
Python and the README's test command tests it; this catches what only a compiled build does: a
source mypyc refuses, a compiled method that refuses a duck-typed object, a state that no longer
pickles (each happened once), and a build that fell back to pure Python unnoticed.

    python .ci/compiled.py              # needs mypy and Cython (pip install -e '.[compile]'), gcc
    python .ci/compiled.py -- -k karvi  # extra pytest arguments after --
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Tests that exercise the compiled modules. Left out: server, browser and deployment suites
# that run no more game code than these (the rulings pages are looked up beside a checkout,
# which the copy is not), and tests that spy on rules methods with monkeypatch (a compiled class
# calls its own methods natively; those tests skip themselves when compiled).
TESTS = [
    "test_core.py", "test_contract.py", "test_copies.py", "test_corpus.py", "test_undo.py",
    "test_levels.py", "test_ismcts.py", "test_rollout.py", "test_interop.py",
    "test_trickarus.py", "test_trickarus_bot.py", "test_savage_bowl.py", "test_savage_bowl_bot.py",
    "test_scarvus.py", "test_scarvus_bot.py", "test_zarcana.py", "test_zarcana_bot.py",
    "test_karvi.py", "test_karvi_bot.py", "test_karvi_printed.py", "test_server_ws.py",
    "test_server_undo.py", "test_log_text.py", "test_learned.py", "test_tensor_hooks.py",
    "test_cli.py", "test_arena.py", "test_interop_vector.py", "test_interop_lists.py",
    "test_interop_ends.py", "test_interop_recall.py",
]


def compiled_list(name: str = "COMPILED") -> list[str]:
    """`setup.py`'s ``COMPILED`` (mypyc) or ``CYTHONIZED`` list, read without running setup.py."""
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise SystemExit(f"setup.py has no {name} list")


def main() -> int:
    extra = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    files = compiled_list() + compiled_list("CYTHONIZED")
    with tempfile.TemporaryDirectory(prefix="meeple-compiled-") as tmp:
        root = Path(tmp)
        for name in ("setup.py", "pyproject.toml", "README.md"):
            shutil.copy(REPO / name, root / name)
        src = root / "src"
        shutil.copytree(REPO / "src", src,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "build", "_compiled.json"))
        # setup.py's own build, as `MEEPLE_COMPILE=1 pip install` runs it (extensions beside the
        # sources); it falls back to pure Python on any failure, so the record must list them all.
        start = time.monotonic()
        built = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                               cwd=root, env={**os.environ, "MEEPLE_COMPILE": "1"},
                               capture_output=True, text=True)
        record = src / "meeple" / "_compiled.json"
        listed = set(json.loads(record.read_text())) if record.exists() else set()
        if built.returncode or listed != set(files):
            print(built.stdout[-4000:], built.stderr[-4000:], sep="\n")
            print(f"compiled build: setup.py compiled {sorted(listed)}, not {files}")
            return 1
        print(f"compiled build: {len(files)} modules in {time.monotonic() - start:.0f} s")
        modules = [f.rsplit(".", 1)[0].replace("/", ".") for f in files]
        check = ("import meeple, meeple._pure as p, importlib;"
                 f"[importlib.import_module(m) for m in {modules!r}];"
                 f"missing = set({modules!r}) - set(p.compiled());"
                 "assert not missing, f'not compiled: {missing}'")
        subprocess.run([sys.executable, "-c", check], env=_env(src), check=True)
        tests = [str(REPO / "tests" / t) for t in TESTS]
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *tests,
                               *extra], cwd=REPO, env=_env(src)).returncode


def _env(src: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MEEPLE_PURE"}
    env["PYTHONPATH"] = str(src)
    return env


if __name__ == "__main__":
    sys.exit(main())
