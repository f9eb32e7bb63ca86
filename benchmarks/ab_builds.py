"""Two builds of meeple, one game: decisions/s of each, the same seeded random games, alternated.

For a change to the rules' speed, A/B against the build before it: each side is a folder holding a
``meeple`` package (a checkout's ``src``, or a compiled copy made with ``python -m mypyc``),
imported through ``PYTHONPATH`` in a fresh process per round, so both run the very same loop on
the very same games. The machine is shared: rounds alternate, and a difference smaller than the
spread between a side's own rounds is noise.

    python benchmarks/ab_builds.py --a /tmp/before/src --b src --game zarcana --players 3 --games 40
    python benchmarks/ab_builds.py --a /tmp/before/src --b src --clones 2000   # clone() instead
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

# One round in a fresh process: warm up, then the best of 5 passes over the same games.
ROUND = r"""
import random, sys, time
import meeple

game, players, games, clones = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


def play() -> int:
    decisions = 0
    for seed in range(games):
        s = meeple.make(game, players=players, seed=seed)
        over, legal, apply, choice = s.is_over, s.legal_actions, s.apply, random.Random(seed).choice
        while not over():
            apply(choice(legal()))
            decisions += 1
    return decisions


def mid_games() -> list:
    states = []
    for seed in range(20):
        s = meeple.make(game, players=players, seed=seed)
        rng = random.Random(seed)
        for _ in range(20):
            if s.is_over():
                break
            s.apply(rng.choice(s.legal_actions()))
        states.append(s)
    return states


def copy() -> int:
    for s in states:
        clone = s.clone
        for _ in range(clones):
            clone()
    return 20 * clones


work = copy if clones else play
states = mid_games() if clones else []
work()
best = float("inf")
for _ in range(5):
    start = time.perf_counter()
    done = work()
    best = min(best, time.perf_counter() - start)
print(f"{done / best:.0f}")
"""


def one_round(path: str, args: argparse.Namespace) -> int:
    env = {**os.environ, "PYTHONPATH": path}
    out = subprocess.run(
        [sys.executable, "-c", ROUND, args.game, str(args.players), str(args.games), str(args.clones)],
        env=env, check=True, capture_output=True, text=True,
    )
    return int(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="folder holding the 'before' meeple package")
    parser.add_argument("--b", required=True, help="folder holding the 'after' meeple package")
    parser.add_argument("--game", default="scarvus")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=200, help="seeded random games per pass")
    parser.add_argument("--clones", type=int, default=0,
                        help="time clone() this many times per mid-game state instead of playing")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    unit = "clones/s" if args.clones else "decisions/s"
    rates: dict[str, list[int]] = {"a": [], "b": []}
    for _ in range(args.rounds):
        for side in ("a", "b"):
            rate = one_round(getattr(args, side), args)
            rates[side].append(rate)
            print(f"{side} {getattr(args, side)}: {rate} {unit}", flush=True)
    a, b = max(rates["a"]), max(rates["b"])
    print(f"best b / best a: {b / a:.3f} ({args.game} {args.players}p, {unit})")


if __name__ == "__main__":
    main()
