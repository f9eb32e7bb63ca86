"""The pure-Python engine, checked in CI beside the compiled one every install builds.

The README's test command installs with a C compiler, so the whole suite runs on the compiled
engine (setup.py). This runs the tests that drive the rules, the bots and tables with bots again
with ``MEEPLE_PURE=1`` (every compiled module loaded from its ``.py``), as a user without a C
compiler runs them, after checking that the environment it was given really is compiled (a build
that fell back to pure Python unnoticed would otherwise pass both runs on the same code).

    python .ci/pure.py              # in the venv of the README's test command
    python .ci/pure.py -- -k karvi  # extra pytest arguments after --
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Tests that exercise the rules modules (the compiled ones) and the bots that copy and resample
# states. Left out: server, interop, browser and deployment suites, which call the same rules
# and ran compiled in the suite before.
TESTS = [
    "test_core.py", "test_contract.py", "test_copies.py", "test_corpus.py", "test_undo.py",
    "test_sentences.py", "test_final_scoring.py", "test_log_names.py", "test_log_text.py",
    "test_determinize_parts.py", "test_ismcts.py", "test_rollout.py",
    "test_trickarus.py", "test_trickarus_bot.py", "test_savage_bowl.py", "test_savage_bowl_bot.py",
    "test_scarvus.py", "test_scarvus_bot.py", "test_zarcana.py", "test_zarcana_bot.py",
    "test_zarcana_log_words.py", "test_karvi.py", "test_karvi_bot.py", "test_karvi_printed.py",
    "test_karvi_rulings.py", "test_karvi_mutation.py",
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
    modules = [f.rsplit(".", 1)[0].replace("/", ".")
               for f in compiled_list() + compiled_list("CYTHONIZED")]
    check = ("import meeple, meeple._pure as p, importlib;"
             f"[importlib.import_module(m) for m in {modules!r}];"
             f"missing = set({modules!r}) - set(p.compiled());"
             "assert not missing, f'the test venv is not compiled: {missing} ({p.engine()})'")
    env = {k: v for k, v in os.environ.items() if k != "MEEPLE_PURE"}
    subprocess.run([sys.executable, "-c", check], env=env, check=True)
    print(f"compiled: {len(modules)} modules in the test venv; now the engine tests, pure Python")
    tests = [str(REPO / "tests" / t) for t in TESTS]
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *tests,
                           *extra], cwd=REPO, env={**env, "MEEPLE_PURE": "1"}).returncode


if __name__ == "__main__":
    sys.exit(main())
