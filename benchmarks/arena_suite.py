"""The level table behind docs/arena.md: every game x every player count x each pair of
neighbouring levels (random-easy, easy-medium, medium-hard, hard-expert), head to head.

    python benchmarks/arena_suite.py table --list                 # the runs, nothing played
    nice python benchmarks/arena_suite.py table                   # play what is missing
    nice python benchmarks/arena_suite.py table --only karvi --players 2 --pairs hard-medium
    python benchmarks/arena_suite.py report                       # rewrite the table in docs/arena.md
    nice python benchmarks/arena_suite.py table --extra           # a game's own extra levels
                                                                  # (Trickarus' learned) vs random, medium, hard

Why this shape:
- **Head to head, seats rotating over shared deals** (`meeple.bots.arena.schedule`): every game
  compares the pair directly, so far fewer games separate two levels than a mixed table needs.
- **Seeds drawn at random when the run starts** and printed; each run's seed is saved in its
  JSON. No seed is chosen after seeing results, and tuning seeds are never reported. Each run
  derives its own seed from the session seed, game, player count and pair.
- **The server's safety cap** (``--max-seconds``, 5 s like ``MEEPLE_BOT_MAX_SECONDS``) is on, so
  the table counts the moves it would cut; levels themselves are work budgets.
- Runs already saved in ``docs/arena/levels/`` are kept (``--force`` replays them), so a long
  table can be filled over several sessions; ``report`` lists the rows not measured yet.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import secrets
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "arena" / "levels"
DOC = ROOT / "docs" / "arena.md"
BEGIN, END = "<!-- levels table: begin -->", "<!-- levels table: end -->"

PAIRS = [("hard", "medium"), ("expert", "hard"), ("medium", "easy"), ("easy", "random")]
"""Neighbouring levels, stronger first: the pairs the issue's chain is made of."""

GAMES = {  # games per run (rounded up to a balanced multiple): search pairs cost far more
    ("hard", "medium"): 40,
    ("expert", "hard"): 40,
    ("medium", "easy"): 200,
    ("easy", "random"): 200,
}


EXTRA_OPPONENTS = {"random": 400, "medium": 400, "hard": 80}
"""What a game's own extra level (`meeple.bots.extra_levels`, e.g. Trickarus' ``learned``) plays
head to head, and how many games: at the player count it was made for (`extra_runs`)."""

EXTRA_PLAYERS = {"learned": 2}
"""The player count an extra level is measured at (Trickarus' policy was trained at 2)."""

EXTRA_BEGIN, EXTRA_END = "<!-- extra levels table: begin -->", "<!-- extra levels table: end -->"


def extra_runs() -> list[tuple[str, int, str, str]]:
    """(game, players, level, opponent) for every extra level of every game."""
    sys.path.insert(0, str(ROOT / "src"))
    import meeple
    from meeple.bots import extra_levels

    runs = []
    for g in meeple.games():
        for level in extra_levels(meeple.game_info(g["id"])):
            players = EXTRA_PLAYERS.get(level, g["players"][0])
            runs += [(g["id"], players, level, opp) for opp in EXTRA_OPPONENTS]
    return runs


def player_counts() -> dict[str, tuple[int, ...]]:
    sys.path.insert(0, str(ROOT / "src"))
    import meeple

    return {g["id"]: tuple(g["players"]) for g in meeple.games()}


def run_name(game: str, players: int, a: str, b: str) -> str:
    return f"{game}-{players}p-{a}-{b}"


def run_seed(session: int, name: str) -> int:
    digest = hashlib.sha256(f"{session}:{name}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def balanced(games: int, players: int) -> int:
    period = 2 * players
    return math.ceil(games / period) * period


def command(game: str, players: int, a: str, b: str, games: int, seed: int, max_seconds: float,
            workers: int) -> list[str]:
    out = OUT / f"{run_name(game, players, a, b)}.json"
    cmd = ["meeple", "arena", game, "--bots", f"{a},{b}", "--players", str(players),
           "--games", str(games), "--seed", str(seed), "--max-moves", "5000",
           "--max-seconds", f"{max_seconds:g}", "--out", str(out.relative_to(ROOT)), "--no-plot"]
    return cmd + (["--workers", str(workers)] if workers > 1 else [])


def table(args: argparse.Namespace) -> None:
    session = args.seed if args.seed is not None else secrets.randbits(31)
    print(f"session seed {session} ({'given' if args.seed is not None else 'drawn at random now'})",
          flush=True)
    counts = player_counts()
    only = set(args.only.split(",")) if args.only else None
    pairs = [tuple(p.split("-")) for p in args.pairs.split(",")] if args.pairs else PAIRS
    wanted_p = {int(p) for p in args.players.split(",")} if args.players else None
    OUT.mkdir(parents=True, exist_ok=True)
    if args.extra:  # each extra level against the named ones, at its own player count
        counts = {}
        pairs = []
        for game, players, a, b in extra_runs():
            counts.setdefault(game, set()).add(players)
            GAMES.setdefault((a, b), EXTRA_OPPONENTS[b])
            if (a, b) not in pairs:
                pairs.append((a, b))
    for a, b in pairs:
        for game, ps in counts.items():
            if only and game not in only:
                continue
            for players in ps:
                if wanted_p and players not in wanted_p:
                    continue
                name = run_name(game, players, a, b)
                if (OUT / f"{name}.json").exists() and not args.force:
                    continue
                games = balanced(args.games or GAMES[(a, b)], players)
                cmd = command(game, players, a, b, games, run_seed(session, name),
                              args.max_seconds, args.workers)
                print(shlex.join(cmd), flush=True)
                if args.list:
                    continue
                # `python -m meeple.cli`: the meeple this interpreter imports (PYTHONPATH=src
                # in a checkout), not whichever `meeple` script is first on PATH.
                env_cmd = [sys.executable, "-m", "meeple.cli", *cmd[1:]]
                start = time.time()
                log = None
                if args.log_dir:  # a fresh machine has no log folder yet
                    Path(args.log_dir).mkdir(parents=True, exist_ok=True)
                    log = (Path(args.log_dir) / f"{name}.log").open("w")
                try:  # the log has one line per game as it ends: a run cut short still tells
                    subprocess.run(env_cmd, check=True, cwd=ROOT,
                                   stdout=log or subprocess.DEVNULL)  # fmt: skip
                finally:
                    if log is not None:
                        log.close()
                compact(OUT / f"{name}.json")
                print(f"  done in {(time.time() - start) / 60:.1f} min", flush=True)


def compact(path: Path) -> None:
    """Keep a run's summary (command, seeds, options, per-bot statistics) and drop its per-game
    list: the table needs only the summary, and the per-game lists of every run would weigh
    megabytes in the repository. ``meeple arena --out`` elsewhere keeps them whole."""
    run = json.loads(path.read_text())
    if run.pop("games", None) is not None:
        path.write_text(json.dumps(run, indent=1) + "\n")


# ----- report --------------------------------------------------------------------------------------
def _iv(d: dict[str, float]) -> str:
    return f"{d['mean']:.2f} [{d['lo']:.2f}, {d['hi']:.2f}]"


def verdict(sa: dict[str, Any], sb: dict[str, Any]) -> str:
    pa, pb = sa["mean_place"], sb["mean_place"]
    if pa["hi"] < pb["lo"]:
        return f"**{sa['bot']} beats {sb['bot']}**"
    if pb["hi"] < pa["lo"]:
        return f"**{sb['bot']} beats {sa['bot']}** (against the chain)"
    lead = sa["bot"] if pa["mean"] < pb["mean"] else sb["bot"]
    if pa["mean"] == pb["mean"]:
        return "level; intervals overlap"
    return f"{lead} ahead, intervals overlap: not shown"


def partial_run(log: Path, a: str, b: str) -> dict[str, Any] | None:
    """A run stopped before its end (a deadline), from its per-game log: the games that ended,
    ranked as the arena ranks them (no scores or times: the log has none)."""
    import ast
    import re

    from meeple.bots.arena import GameResult, summarize

    # The arena prints at 80 columns, so from 5 players a game's line wraps inside its tuples or
    # between them: match across line ends (a tuple holds no ")" until its own end).
    pattern = re.compile(r"^game (\d+)/(\d+): #(\d+)\s+(\([^)]*\))\s+places\s+(\([^)]*\))", re.M)
    games, planned = [], 0
    for m in pattern.finditer(log.read_text()):
        planned = int(m.group(2))
        lineup, places = ast.literal_eval(m.group(4)), ast.literal_eval(m.group(5))
        games.append(GameResult(int(m.group(3)), 0, lineup, places, (0.0,) * len(places),
                                0, 0.0, ((),) * len(places)))  # fmt: skip
    if not games:
        return None
    stats = {s.bot: {"bot": s.bot, "games": s.games, "mean_place": vars(s.mean_place),
                     "p95_move_seconds": 0.0} for s in summarize(games, [a, b])}  # fmt: skip
    return {"stats": list(stats.values()), "seed": f"partial: {len(games)} of {planned} games",
            "partial": True}


def report_rows(logs: Path | None = None) -> list[str]:
    counts = player_counts()
    rows = ["| game | P | pair | games | stronger: mean place | weaker: mean place | verdict | "
            "p95 move s (CPU) | caps | seed |", "|---|---|---|---|---|---|---|---|---|---|"]
    missing: list[str] = []
    for a, b in PAIRS:
        for game, ps in counts.items():
            for players in ps:
                path = OUT / f"{run_name(game, players, a, b)}.json"
                log = logs / f"{run_name(game, players, a, b)}.log" if logs else None
                if path.exists():
                    run = json.loads(path.read_text())
                elif log is not None and log.exists() and (part := partial_run(log, a, b)):
                    run = part
                else:
                    missing.append(f"{game} {players}p {a}-{b}")
                    continue
                stats = {s["bot"]: s for s in run["stats"]}
                sa, sb = stats[a], stats[b]
                p95 = max(sa["p95_move_seconds"], sb["p95_move_seconds"])
                cpu = max(sa.get("p95_cpu_seconds", 0.0), sb.get("p95_cpu_seconds", 0.0))
                p95_text = f"{p95:.2f} ({cpu:.2f})" if cpu else f"{p95:.2f} (-)"
                caps_text = str(sa.get("cap_hits", 0) + sb.get("cap_hits", 0))
                if run.get("partial"):
                    p95_text = caps_text = "-"
                rows.append(
                    f"| {game} | {players} | {a} vs {b} | {sa['games']} | {_iv(sa['mean_place'])} | "
                    f"{_iv(sb['mean_place'])} | {verdict(sa, sb)} | {p95_text} | {caps_text} | "
                    f"{run['seed']} |"
                )
    rows += ["", f"Not measured ({len(missing)} rows): " + (", ".join(missing) or "none") + "."]
    return rows


def extra_rows() -> list[str]:
    """The extra levels' table: the level first, verdicts as in the main table."""
    rows = ["| game | P | pair | games | level: mean place | opponent: mean place | "
            "level's score share | verdict | p95 move s (CPU) | seed |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    missing = []
    for game, players, a, b in extra_runs():
        path = OUT / f"{run_name(game, players, a, b)}.json"
        if not path.exists():
            missing.append(f"{game} {players}p {a}-{b}")
            continue
        run = json.loads(path.read_text())
        stats = {s["bot"]: s for s in run["stats"]}
        sa, sb = stats[a], stats[b]
        share = (players - sa["mean_place"]["mean"]) / (players - 1)  # 1: always first
        p95 = max(sa["p95_move_seconds"], sb["p95_move_seconds"])
        cpu = max(sa.get("p95_cpu_seconds", 0.0), sb.get("p95_cpu_seconds", 0.0))
        rows.append(f"| {game} | {players} | {a} vs {b} | {sa['games']} | {_iv(sa['mean_place'])} | "
                    f"{_iv(sb['mean_place'])} | {share:.2f} | {verdict(sa, sb).replace(' (against the chain)', '')} | "
                    f"{p95:.2f} ({cpu:.2f}) | {run['seed']} |")
    rows += ["", f"Not measured ({len(missing)} rows): " + (", ".join(missing) or "none") + "."]
    return rows


def _replace(doc: str, begin: str, end: str, text: str) -> str:
    head, found, rest = doc.partition(begin)
    if not found:
        return doc
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{text}\n{end}{tail}"


def report(args: argparse.Namespace) -> None:
    text = "\n".join(report_rows(Path(args.logs) if args.logs else None))
    extra = "\n".join(extra_rows())
    if args.print:
        print(text + "\n\n" + extra)
        return
    doc = _replace(DOC.read_text(), BEGIN, END, text)
    DOC.write_text(_replace(doc, EXTRA_BEGIN, EXTRA_END, extra))
    print(f"rewrote the tables in {DOC.relative_to(ROOT)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    t = sub.add_parser("table", help="play the runs the table still lacks")
    t.add_argument("--only", help="comma-separated game ids")
    t.add_argument("--players", help="comma-separated player counts")
    t.add_argument("--pairs", help="e.g. hard-medium,expert-hard (default: all neighbours)")
    t.add_argument("--games", type=int, help="games per run (default per pair, see GAMES)")
    t.add_argument("--seed", type=int, help="session seed (default: drawn at random, printed)")
    t.add_argument("--max-seconds", type=float, default=5.0, help="the server's safety cap")
    t.add_argument("--workers", type=int, default=1)
    t.add_argument("--force", action="store_true", help="replay runs already saved")
    t.add_argument("--list", action="store_true", help="print the commands only")
    t.add_argument("--log-dir", help="write each run's per-game log here")
    t.add_argument("--extra", action="store_true",
                   help="the games' own extra levels (learned) against random, medium and hard")
    r = sub.add_parser("report", help="rewrite the table in docs/arena.md from the saved runs")
    r.add_argument("--print", action="store_true", help="print it instead")
    r.add_argument("--logs", help="per-game logs (table --log-dir) of runs cut short: "
                   "their finished games fill rows marked partial")
    args = ap.parse_args()
    table(args) if args.mode == "table" else report(args)


if __name__ == "__main__":
    main()
