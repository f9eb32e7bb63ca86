"""What compiling the rules with mypyc would buy: a trial, not a build.

Copies ``src/`` to a scratch folder, compiles the chosen modules there with mypyc (needs mypy and
a C compiler in the interpreter running this: ``pip install mypy``), then runs
`benchmarks/playouts.py` alternately on the compiled copy and on the pure ``src/`` (each run has
OpenSpiel Hearts beside it, so compare the ratios), and with ``--test`` the corpus replay
(`tests/test_corpus.py`) on the compiled copy: the compiled rules must give the same games.

What the trial found is in docs/arena.md ("Engine speed: compiling the rules"). Only the games
whose rules are compiled are run (the others run on the compiled `State` too, as interpreted
subclasses, but that is not what is being measured).

    python benchmarks/mypyc_trial.py                      # core + every game's rules
    python benchmarks/mypyc_trial.py --games scarvus --rounds 2 --seconds 2 --test
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORE = ["meeple/core/game.py", "meeple/core/rng.py"]
# A game's compiled modules besides its rules.py (as setup.py's list has them).
MORE = {"karvi": ["actions", "board", "effects", "map", "tasks"]}


def compile_copy(games: list[str], where: Path) -> float:
    """Copy src/ into ``where`` and compile the core and ``games``' rules there; seconds taken."""
    shutil.copytree(ROOT / "src", where / "src", ignore=shutil.ignore_patterns("__pycache__"))
    files = CORE + [f"meeple/games/{g}/{m}.py" for g in games for m in ["rules", *MORE.get(g, [])]]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mypyc", *files], cwd=where / "src", check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def playouts(pythonpath: Path, game: str, seconds: float) -> str:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    out: Any = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "playouts.py"), "--game", game,
         "--seconds", str(seconds), "--rounds", "3"],
        env=env, capture_output=True, text=True)
    if out.returncode:
        return out.stdout + out.stderr[-3000:]
    out = out.stdout
    keep = ("openspiel hearts", f"meeple {game} ")
    return "\n".join(line for line in out.splitlines()
                     if line.startswith(keep) and "AEC" not in line and "adapter" not in line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="trickarus,savage_bowl,scarvus,zarcana,karvi",
                        help="rules modules to compile")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row, per run")
    parser.add_argument("--rounds", type=int, default=2, help="compiled/pure runs, alternated")
    parser.add_argument("--test", action="store_true", help="replay the corpus on the compiled copy")
    args = parser.parse_args()
    games = args.games.split(",")
    with tempfile.TemporaryDirectory(prefix="meeple-mypyc-") as tmp:
        where = Path(tmp)
        took = compile_copy(games, where)
        print(f"mypyc: {', '.join(CORE)} and the rules of {', '.join(games)} in {took:.0f} s")
        compiled = where / "src"
        for game in games:
            for r in range(args.rounds):
                for label, path in (("compiled", compiled), ("pure", ROOT / "src")):
                    print(f"--- {game}, {label}, run {r + 1}")
                    print(playouts(path, game, args.seconds))
        if args.test:
            env = {**os.environ, "PYTHONPATH": str(compiled)}
            k = " or ".join(games)
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                   str(ROOT / "tests" / "test_corpus.py"), "-k", k], env=env)
            print(f"corpus on the compiled copy ({k}): exit {done.returncode}")


if __name__ == "__main__":
    main()
