"""Post-game analysis, honest strength and cost: per game, a `random` seat's mean reported loss
per decision against a `hard` seat's (random's must be the larger), and the CPU time to analyse a
whole game at each depth.

The reported loss is what the mistakes cost in places, per analysed decision
(`Analysis.reported_loss`); the raw mean loss (every decision's chosen-versus-best difference,
noise included: the best of several noisy means is biased low) is shown beside it.

    nice -n 10 python benchmarks/analysis.py [--games 2] [--only trickarus,karvi] [--depths quick,deep]
                                             [--decisions N]

Each game is played with the measured level in seat 0 and the `medium` level in the others, from
seeds 1..games; seat 0 is analysed at ``quick``. The time per depth is that of the first `hard`
game's whole analysis, in CPU seconds (the machine may be shared: CPU time is what one free core
would take). ``--decisions N`` analyses only seat 0's first N decisions of each game (for a
machine too loaded to analyse whole games): the time of a whole game is then the CPU time per
decision times the game's decisions, marked ``~``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import meeple
from meeple.bots import make_bot
from meeple.bots.analysis import DEPTHS, Analysis, analyse, analysis_points

PLAYERS = {"trickarus": 4, "savage_bowl": 4, "scarvus": 3, "zarcana": 3, "karvi": 2}


def play(game: str, players: int, level: str, seed: int) -> dict:
    info = meeple.game_info(game)
    s = meeple.make(game, players=players, seed=seed)
    bots = [make_bot(level if p == 0 else "medium", info, seed * 10 + p) for p in range(players)]
    while not s.is_over():
        s.apply(bots[s.to_move].choose(s))
    return s.record()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--only", help="comma-separated game ids")
    ap.add_argument("--depths", default="quick,deep", help="depths to time a whole game at")
    ap.add_argument("--decisions", type=int, help="analyse only seat 0's first N decisions a game")
    args = ap.parse_args()
    games = args.only.split(",") if args.only else list(PLAYERS)
    depths = [d for d in args.depths.split(",") if d]
    print(f"{'game':12} {'p':>2} {'decisions':>9} {'random':>7} {'hard':>7} {'ratio':>6} "
          f"{'raw random':>10} {'raw hard':>8} "
          + " ".join(f"{d + ' s':>8}" for d in depths), flush=True)
    for game in games:
        n = PLAYERS[game]
        loss: dict[str, list[float]] = {"random": [], "hard": []}
        raw: dict[str, list[float]] = {"random": [], "hard": []}
        decisions = 0
        seconds: dict[str, float] = {}
        mark = "~" if args.decisions else " "

        def timed(record: dict, depth: str) -> tuple[float, Analysis]:
            """CPU seconds of a whole game's analysis (or its share, scaled), and the analysis."""
            points = analysis_points(record, 0)
            only = points[: args.decisions] if args.decisions else None
            start = time.process_time()
            result = analyse(record, 0, depth, only=only)
            took = time.process_time() - start
            return took * len(points) / max(1, len(result.decisions)), result

        for level in ("random", "hard"):
            for seed in range(1, args.games + 1):
                record = play(game, n, level, seed)
                took, result = timed(record, "quick")
                if level == "hard" and seed == 1:
                    seconds["quick"] = took
                loss[level].extend(d.loss if d.kind == "place" else 0.0 for d in result.decisions)
                raw[level].extend(d.loss for d in result.decisions)
                decisions += len(result.decisions)
        first_hard = play(game, n, "hard", 1)
        for depth in depths:
            if depth not in seconds:
                seconds[depth] = timed(first_hard, depth)[0]
        r, h = statistics.fmean(loss["random"]), statistics.fmean(loss["hard"])
        ratio = f"{r / h:6.1f}" if h > 0 else "   inf"
        rr, rh = statistics.fmean(raw["random"]), statistics.fmean(raw["hard"])
        print(f"{game:12} {n:>2} {decisions:>9} {r:>7.3f} {h:>7.3f} {ratio} {rr:>10.3f} {rh:>8.3f} "
              + " ".join(f"{mark}{seconds[d]:>7.1f}" for d in depths), flush=True)
    print("budgets: " + "; ".join(f"{k}: {v.worlds} worlds x {v.rollouts} rollouts, top {v.top_k}"
                                  for k, v in DEPTHS.items()))


if __name__ == "__main__":
    main()
