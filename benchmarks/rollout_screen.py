"""An exploration screen for a rollout `expert` candidate head to head with `hard`,
with the game's rollout hooks swapped for the run (a value or world that is not yet the
package's). Results of screens go only into docs/arena.md "What was tried", never the table.

    nice python benchmarks/rollout_screen.py savage_bowl 4 rollout:shedder:k30:w16 --value place \\
        --games 64 --seed 201

The seed is given by hand before the run (a screen compares candidates on the same deals), and
the per-game lines let a stopped screen still be read (`arena_suite.partial_run`'s format).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib

import meeple
from meeple.bots.arena import run_arena
from meeple.core.hooks import swapped

VALUES = {  # --value name -> (module, attribute) of a SearchHooks.value
    "savage_bowl": {
        "points": ("meeple.games.savage_bowl.bot", "rollout_value"),
        "place": ("meeple.games.savage_bowl.bot", "rollout_place_value"),
    },
    "scarvus": {"place": ("meeple.games.scarvus.search", "place_value")},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("players", type=int)
    ap.add_argument("level", help="the candidate, e.g. rollout:shedder:k30:w16")
    ap.add_argument("--opponent", default="hard")
    ap.add_argument("--value", help="a SearchHooks.value of the game (VALUES) for this run")
    ap.add_argument("--games", type=int, default=64)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--set", action="append", default=[], metavar="MODULE:NAME=INT",
                    help="set a module constant for the run, e.g. "
                         "meeple.games.scarvus.search:MATCH_TRIES=48")
    args = ap.parse_args()
    for assignment in args.set:  # the run is one process, so the change reaches every bot
        target, _, value = assignment.partition("=")
        module, _, name = target.partition(":")
        mod = importlib.import_module(module)
        if not hasattr(mod, name):
            raise SystemExit(f"{module} has no {name}")
        setattr(mod, name, int(value))
    info = meeple.game_info(args.game)
    search = info.search
    if args.value:
        module, attr = VALUES[args.game][args.value]
        search = dataclasses.replace(search, value=getattr(importlib.import_module(module), attr))
    with swapped(info, search=search):  # one process: the change reaches every bot
        run(args)


def run(args: argparse.Namespace) -> None:
    bots = [args.level, args.opponent]
    print(f"screen {args.game} {args.players}p {bots} value={args.value or 'package'} "
          f"set={args.set} games={args.games} seed={args.seed}", flush=True)

    def line(r) -> None:  # noqa: ANN001
        print(f"game {r.index + 1}/{args.games}: #{r.index} {tuple(r.lineup)} places {tuple(r.places)}",
              flush=True)

    result = run_arena(args.game, bots, args.games, args.players, args.seed, on_result=line)
    for s in result.stats:
        iv = s.mean_place
        print(f"{s.bot}: games {s.games} place {iv.mean:.3f} [{iv.lo:.3f}, {iv.hi:.3f}] "
              f"p95 cpu {getattr(s, 'p95_cpu_seconds', 0.0):.3f}", flush=True)


if __name__ == "__main__":
    main()
