"""CPU seconds per decision of each named level, in every game at its smallest and largest
player count: the "fast enough" figures of docs/arena.md (hard within 1 s, expert within 3 s
at p95 on one core).

    nice python benchmarks/level_times.py --positions 20 [--levels hard,expert] [--only karvi] [--every 2]

Why CPU time: the machine is shared, and a level is a work budget, so its CPU time per move is
what one free core would take (wall-clock time on a busy machine only measures the load).
Positions come from games the ``medium`` level plays against itself, every third decision
(``--every``), from a seed drawn at random when the run starts (printed). A game whose turn is
three decisions long (Scarvus: Card Step, bid, answer) needs another step, or every position is
the same kind of decision.
"""

from __future__ import annotations

import argparse
import math
import secrets
import statistics
import time

import meeple
from meeple.bots import make_bot
from meeple.core import State


def positions(game: str, players: int, seed: int, count: int, every: int = 3) -> list[State]:
    """Decision points (2+ legal actions) from medium-vs-medium games, every ``every``-th one."""
    info = meeple.game_info(game)
    found: list[State] = []
    deal = 0
    while len(found) < count:
        state = meeple.make(game, players=players, seed=seed + deal)
        bots = [make_bot("medium", info, seed + deal * 10 + p) for p in range(players)]
        decision = 0
        while not state.is_over() and len(found) < count:
            p = state.to_move
            assert p is not None
            if len(state.legal_actions()) > 1:
                if decision % every == 0:
                    found.append(state.clone())
                decision += 1
            state.apply(bots[p].choose(state))
        deal += 1
    return found


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[max(0, math.ceil(0.95 * len(xs)) - 1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--levels", default="hard,expert")
    ap.add_argument("--only", help="comma-separated game ids")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--every", type=int, default=3, help="take every N-th decision (default 3)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else secrets.randbits(30)
    print(f"seed {seed}; {args.positions} positions per game and player count; CPU seconds")
    print(f"{'game':12} {'P':>2} {'level':7} {'mean':>6} {'p95':>6} {'max':>6}")
    only = set(args.only.split(",")) if args.only else None
    for g in meeple.games():
        if only and g["id"] not in only:
            continue
        info = meeple.game_info(g["id"])
        for players in sorted({min(g["players"]), max(g["players"])}):
            states = positions(g["id"], players, seed, args.positions, args.every)
            for level in args.levels.split(","):
                used = []
                for i, state in enumerate(states):
                    bot = make_bot(level, info, seed + i)
                    c0 = time.process_time()
                    bot.choose(state)
                    used.append(time.process_time() - c0)
                print(f"{g['id']:12} {players:>2} {level:7} {statistics.fmean(used):6.3f} "
                      f"{p95(used):6.3f} {max(used):6.3f}", flush=True)


if __name__ == "__main__":
    main()
