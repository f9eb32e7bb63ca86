"""The spreads of the post-game analysis' expected place (`meeple.core.soft_place`) for the games
whose cut playouts are judged by it from position values (Zarcana, Karvi: each game's
``analysis.SPREAD``).

    nice -n 10 python benchmarks/analysis_calibration.py --game karvi [--games 300] [--seed 1]

Plays ``--games`` games of the heuristic (level ``medium``) at every seat, records each
player's position value (the game's ``analysis.values``) at the points where the analysis
judges a cut playout (Zarcana: the start of every turn; Karvi: the start of every round but
the first), and
for every stage (the game's ``analysis.stage``) finds by maximum likelihood the spread s for
which P(q finishes ahead of p) = Phi((v_q - v_p) / s) best fits the final places (a tie counts
half each way). Prints each stage's pairs and spread, and the log-likelihood per pair at the
fitted spread and at the game's current ``SPREAD``.
"""

from __future__ import annotations

import argparse
import importlib
import math

import meeple
from meeple.bots import make_bot

PLAYERS = {"zarcana": 3, "karvi": 2}
GRID = [0.5 * k for k in range(2, 121)]


def judge_key(game: str, state: meeple.State) -> object:
    """Where a cut playout is judged: the turn (Zarcana), the round (Karvi)."""
    return state.turn if game == "zarcana" else state.round


def loglik(pairs: list[tuple[float, float]], s: float) -> float:
    """Mean log-likelihood of (value difference q - p, outcome 1 if q ahead / 0.5 tie / 0)."""
    total = 0.0
    for d, y in pairs:
        p = min(1 - 1e-9, max(1e-9, 0.5 * math.erfc(-d / (s * math.sqrt(2)))))
        total += y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(pairs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True, choices=sorted(PLAYERS))
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    glue = importlib.import_module(f"meeple.games.{args.game}.analysis")
    info = meeple.game_info(args.game)
    n = PLAYERS[args.game]
    pairs: dict[object, list[tuple[float, float]]] = {}
    for g in range(args.games):
        seed = args.seed * 100_000 + g
        s = meeple.make(args.game, players=n, seed=seed)
        bots = [make_bot("medium", info, seed * 10 + p) for p in range(n)]
        seen: list[tuple[object, list[float]]] = []
        key = None
        while not s.is_over():
            if judge_key(args.game, s) != key:
                key = judge_key(args.game, s)
                if s.history:  # (no cut playout is judged before anyone has moved)
                    seen.append((glue.stage(s), glue.values(s)))
            s.apply(bots[s.to_move].choose(s))
        rank = s.ranking()
        for stage, vals in seen:
            for p in range(n):
                for q in range(n):
                    if q != p:
                        y = 1.0 if rank[q] < rank[p] else (0.5 if rank[q] == rank[p] else 0.0)
                        pairs.setdefault(stage, []).append((vals[q] - vals[p], y))
    print(f"{args.game}: {args.games} games of medium at {n} players, seed {args.seed}")
    for stage in sorted(pairs, key=str):
        ps = pairs[stage]
        best = max(GRID, key=lambda sd: loglik(ps, sd))
        now = glue.SPREAD.get(stage)
        cur = f"{loglik(ps, now):.4f} at SPREAD {now}" if now else "no SPREAD"
        print(f"  stage {stage!s:9} pairs {len(ps):5}  spread {best:5.1f}  "
              f"loglik {loglik(ps, best):.4f} ({cur})")


if __name__ == "__main__":
    main()
