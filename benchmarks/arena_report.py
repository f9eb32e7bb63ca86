"""Turn saved arena runs (JSON from `meeple arena --out X.json`) into docs/arena.md.

    .venv/bin/python benchmarks/arena_report.py docs/arena/*.json > docs/arena.md
    .venv/bin/python benchmarks/arena_report.py --summary docs/arena/*.json   # one row per run
    .venv/bin/python benchmarks/arena_report.py --pool A.json B.json   # runs of one pairing, pooled

Each run's table comes with its exact command and, for every pair of levels the issue names
(ismcts > heuristic > random), whether their mean-place 95% intervals are apart.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

PAIRS = [("ismcts", "heuristic"), ("heuristic", "random"), ("ismcts", "random"),
         ("ismcts", "probabilistic"), ("probabilistic", "random"), ("heuristic", "probabilistic")]

TARGETS = {("ismcts", "heuristic"), ("heuristic", "random"), ("ismcts", "random")}


def _iv(d: dict[str, float], fmt: str = ".2f") -> str:
    return f"{d['mean']:{fmt}} [{d['lo']:{fmt}}, {d['hi']:{fmt}}]"


def verdict(stats: dict[str, dict[str, Any]], a: str, b: str) -> str | None:
    if a not in stats or b not in stats:
        return None
    pa, pb = stats[a]["mean_place"], stats[b]["mean_place"]
    against = " (against the issue's target)" if (a, b) in TARGETS else ""
    a, b = stats[a]["bot"], stats[b]["bot"]
    if pa["hi"] < pb["lo"]:
        return f"**{a} beats {b}**: mean place {pa['mean']:.2f} vs {pb['mean']:.2f}, 95% intervals apart"
    if pb["hi"] < pa["lo"]:
        return f"**{b} beats {a}**{against}: {pb['mean']:.2f} vs {pa['mean']:.2f}, intervals apart"
    return f"{a} vs {b}: not significant ({pa['mean']:.2f} vs {pb['mean']:.2f}, intervals overlap)"


def section(run: dict[str, Any]) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in run["options"].items())
    lines = [f"## {run['game']}, {run['players']} players, {len(run['games'])} games",
             "", f"`{run['command']}`" if run.get("command") else "", "",
             f"Options: {opts}. Wall time {run['seconds'] / 60:.1f} min.", "",
             "| bot | mean place (95% CI) | win rate (95% CI) | mean score (95% CI) | openskill mu-3σ | p95 move s | iterations/move |",
             "|---|---|---|---|---|---|---|"]
    for s in sorted(run["stats"], key=lambda s: s["mean_place"]["mean"]):
        lines.append(
            f"| {s['bot']} | {_iv(s['mean_place'])} | {_iv(s['win_rate'])} | "
            f"{_iv(s['mean_score'], '.1f')} | {s['rating']:.1f} | {s['p95_move_seconds']:.3f} | "
            f"{'' if s.get('mean_iterations') is None else round(s['mean_iterations'])} |"
        )
    searchers = [s["bot"] for s in run["stats"] if s["bot"].startswith("ismcts")]
    alias = {searchers[0]: "ismcts"} if len(searchers) == 1 else {}  # one ISMCTS setting: judge it
    stats = {alias.get(s["bot"], s["bot"]): s for s in run["stats"]}
    found = [v for a, b in PAIRS if (v := verdict(stats, a, b))]
    if found:
        lines += [""] + [f"- {v}" for v in found]
    return "\n".join(lines)


def summary(runs: list[dict[str, Any]]) -> str:
    """One row per two-bot run: the pair, both mean places and whether the first one wins."""
    lines = ["| game | P | seed | games | first bot | mean place | second bot | mean place | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for run in runs:
        a, b = (next(s for s in run["stats"] if s["bot"] == n) for n in run["bots"][:2])
        pa, pb = a["mean_place"], b["mean_place"]
        if pa["hi"] < pb["lo"]:
            verdict = f"**{a['bot']} beats {b['bot']}**"
        elif pb["hi"] < pa["lo"]:
            verdict = f"**{b['bot']} beats {a['bot']}**"
        else:
            verdict = "not separated"
        lines.append(f"| {run['game']} | {run['players']} | {run['seed']} | {len(run['games'])} | {a['bot']} | "
                     f"{_iv(pa)} | {b['bot']} | {_iv(pb)} | {verdict} |")  # fmt: skip
    return "\n".join(lines)


def pool(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs of the same game, player count, options and bots (different seeds) as one run: more
    independent games of the same pairing. The statistics are recomputed from every game."""
    from meeple.bots.arena import GameResult, summarize

    first = runs[0]
    key = ("game", "players", "options", "bots")
    if any(r[k] != first[k] for r in runs for k in key):
        raise SystemExit("--pool: the runs differ in game, players, options or bots")
    if len({r["seed"] for r in runs}) < len(runs):
        raise SystemExit("--pool: two runs share a seed, so they share games")
    games = [GameResult(**{**g, "lineup": tuple(g["lineup"]), "places": tuple(g["places"]),
                           "scores": tuple(g["scores"]), "iterations": tuple(g["iterations"]),
                           "move_times": tuple(() for _ in g["lineup"])})
             for r in runs for g in r["games"]]  # fmt: skip
    stats = [asdict(s) for s in summarize(games, first["bots"])]
    seeds = " + ".join(str(r["seed"]) for r in runs)
    return {**first, "stats": stats, "games": games, "seed": seeds, "command": f"pooled {seeds}"}


def main() -> None:
    args = sys.argv[1:]
    flags = {"--summary", "--pool"}
    runs = [json.loads(Path(p).read_text()) for p in args if p not in flags]
    if "--pool" in args:
        print(summary([pool(runs)]))
        return
    print(summary(runs) if "--summary" in args else "\n\n".join(section(r) for r in runs))


if __name__ == "__main__":
    main()
