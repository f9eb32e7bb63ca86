"""The arena runs behind docs/arena.md, one `meeple arena` command each, saved to docs/arena/.

    .venv/bin/python benchmarks/arena_suite.py --list            # the commands, nothing run
    .venv/bin/python benchmarks/arena_suite.py ladder            # heuristic vs random, every count
    .venv/bin/python benchmarks/arena_suite.py search --workers 2  # ismcts vs heuristic (slow)
    .venv/bin/python benchmarks/arena_suite.py search --only karvi

Why head-to-head pairs: the issue's target is a chain (ismcts > heuristic > random), and a
two-bot run separates a pair with far fewer games than a three-bot table, because every game
compares the two directly. `ismcts` plays at its default level, so the runs measure what a
player meets on the platform. Then `python benchmarks/arena_report.py docs/arena/<run>.json`
prints each run's table.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "docs" / "arena"

# (suite, game, players, bots, games, seed)
RUNS: list[tuple[str, str, int, str, int, int]] = [
    *(("ladder", "trickarus", p, "heuristic,random", 400, 7) for p in (2, 3, 4, 5)),
    *(("ladder", "savage_bowl", p, "heuristic,random", 200, 7) for p in (4, 5)),
    *(("ladder", "scarvus", p, "heuristic,random", 200, 7) for p in (3, 4, 5, 6, 7)),
    ("ladder", "scarvus", 4, "probabilistic,heuristic", 200, 7),
    *(("ladder", "karvi", p, "heuristic,random", 100, 7) for p in (2, 3, 4)),
    *(("ladder", "zarcana", p, "heuristic,random", 100, 7) for p in (2, 3, 4)),
    ("search", "trickarus", 3, "ismcts,heuristic", 60, 41),
    ("search", "savage_bowl", 4, "ismcts,heuristic", 40, 41),
    ("search", "savage_bowl", 4, "ismcts,heuristic", 40, 51),  # pooled with seed 41
    ("search", "scarvus", 4, "ismcts,heuristic", 80, 41),
    ("search", "scarvus", 4, "ismcts,probabilistic", 40, 41),
    ("search", "karvi", 2, "ismcts,heuristic", 80, 41),
    ("search", "karvi", 2, "ismcts,heuristic", 60, 51),  # pooled with seed 41 (arena_report --pool)
    ("search", "zarcana", 2, "ismcts,heuristic", 40, 41),
]


def command(game: str, players: int, bots: str, games: int, seed: int, workers: int) -> list[str]:
    name = f"{game}-{players}p-{bots.replace(',', '-').replace(':', '_')}-s{seed}.json"
    cmd = ["meeple", "arena", game, "--bots", bots, "--players", str(players),
           "--games", str(games), "--seed", str(seed), "--max-moves", "3000",
           "--out", str((OUT / name).relative_to(OUT.parent.parent))]  # fmt: skip
    return cmd + (["--workers", str(workers)] if workers > 1 else [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", nargs="?", choices=("ladder", "search", "all"), default="all")
    ap.add_argument("--only", help="comma-separated game ids")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--list", action="store_true", help="print the commands only")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    for suite, game, players, bots, games, seed in RUNS:
        if args.suite not in ("all", suite) or (only and game not in only):
            continue
        cmd = command(game, players, bots, games, seed, args.workers)
        print(shlex.join(cmd), flush=True)
        if not args.list:
            exe = str(Path(sys.executable).with_name("meeple"))
            subprocess.run([exe, *cmd[1:]], check=True, cwd=OUT.parent.parent,
                           stdout=subprocess.DEVNULL)  # fmt: skip


if __name__ == "__main__":
    main()
