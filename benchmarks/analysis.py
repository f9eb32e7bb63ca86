"""Post-game analysis, honest strength and cost: per game, a `random` seat's mean reported loss
per decision against a `hard` seat's (random's must be the larger, beyond the noise), and the CPU
time to analyse a whole game at each depth.

    nice -n 10 python benchmarks/analysis.py [--games 8] [--only trickarus,zarcana] [--seed S]
                                             [--decisions N] [--depths quick,deep]

For each game, ``--games`` deals are drawn from the session seed (``--seed``, else drawn at random
now and printed, so no run is tuned on its seeds). Each deal is played twice, with `random` in
seat 0 and then with `hard` in seat 0, the other seats `medium` both times, and seat 0 is
analysed at ``quick``. The reported loss of a decision is what the analysis says it cost: its
loss in places when it was flagged as a place mistake, else 0 (`Analysis.reported_loss` is its
mean over a game's decisions). The figure is the mean over every analysed decision of the
seat, with a 95% interval that counts each game as one sample (decisions of one game are not
independent: a ratio estimator's interval over games). "raw" is the mean chosen-versus-best
difference over every decision, noise included (the best of several noisy means is biased low).
Where the game keeps a score and playouts reach the end (always, or in a cut game's last
stretch, or throughout where the game gives a cut playout an expected score), a second line
gives the points the mistakes judged in points cost, per decision, and whether random's is the
larger (a seat sure of its place loses no place whatever it plays; those mistakes are what the
analysis reports then).

``--decisions N`` analyses N of seat 0's decisions per game drawn at random from the session seed
(all of them where there are fewer): the mean per decision stays unbiased, for games too long to
analyse whole many times. The time of a whole game at each depth is then the CPU time per
decision times the game's decisions, marked ``~`` (``--time-decisions N`` does the same for the
timing at the depths other than quick only). Times are CPU seconds of this process (the
machine may be shared: CPU time is what one free core would take), over the `hard` games.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

import meeple
from meeple.bots import make_bot
from meeple.bots.analysis import Analysis, analyse, analysis_points
from meeple.core.rng import derive

PLAYERS = {"trickarus": 4, "savage_bowl": 4, "scarvus": 3, "zarcana": 3, "karvi": 2}
Z95 = 1.96


def play(game: str, players: int, level: str, seed: int) -> dict:
    info = meeple.game_info(game)
    s = meeple.make(game, players=players, seed=seed)
    bots = [make_bot(level if p == 0 else "medium", info, seed * 10 + p) for p in range(players)]
    while not s.is_over():
        s.apply(bots[s.to_move].choose(s))
    return s.record()


def ratio(losses: list[float], counts: list[int]) -> tuple[float, float]:
    """Mean loss per decision over games (sum of losses / sum of decisions) and the half-width
    of its 95% interval, each game one sample (the ratio estimator's linearised variance)."""
    total = sum(counts)
    r = sum(losses) / total
    g = len(counts)
    if g < 2:
        return r, math.inf
    z = [loss - r * n for loss, n in zip(losses, counts, strict=True)]
    se = math.sqrt(g / (g - 1) * sum(x * x for x in z)) / total
    return r, Z95 * se


def apart(diff: float, half: float) -> str:
    """Which seat's loss is larger, beyond the difference's 95% interval."""
    return "random larger" if diff - half > 0 else ("hard larger" if diff + half < 0 else "not apart")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--games", type=int, default=8, help="deals per game (each played by random and by hard)"
    )
    ap.add_argument("--only", help="comma-separated game ids")
    ap.add_argument("--seed", type=int, help="session seed (default: drawn at random now, printed)")
    ap.add_argument(
        "--decisions", type=int, help="analyse N of seat 0's decisions a game, drawn at random"
    )
    ap.add_argument("--depths", default="quick,deep", help="depths to time a whole game at")
    ap.add_argument(
        "--time-games", type=int, default=1, help="hard games timed at the depths other than quick"
    )
    ap.add_argument(
        "--time-decisions",
        type=int,
        help="time the depths other than quick on N decisions a game drawn at random (scaled, ~)",
    )
    args = ap.parse_args()
    session = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(
        f"session seed {session} ({'given' if args.seed is not None else 'drawn at random now'}); "
        f"{args.games} deals a game; seat 0 analysed at quick"
        + (f", {args.decisions} decisions a game drawn at random" if args.decisions else ""),
        flush=True,
    )
    games = args.only.split(",") if args.only else list(PLAYERS)
    depths = [d for d in args.depths.split(",") if d]
    print(
        f"{'game':12} {'p':>2} {'decisions':>9} {'random':>15} {'hard':>15} {'difference':>15} "
        f"{'raw random':>10} {'raw hard':>8} " + " ".join(f"{d + ' s':>8}" for d in depths),
        flush=True,
    )
    for game in games:
        n = PLAYERS[game]
        rng = derive(session, 0, "analysis-benchmark", game)
        seeds = [rng.randrange(1 << 30) for _ in range(args.games)]
        per_game: dict[str, list[float]] = {"random": [], "hard": []}
        points: dict[str, list[float]] = {"random": [], "hard": []}
        raw: dict[str, list[float]] = {"random": [], "hard": []}
        counts: dict[str, list[int]] = {"random": [], "hard": []}
        cpu: dict[str, list[float]] = {d: [] for d in depths}

        def timed(
            record: dict, depth: str, pick: random.Random, decisions: int | None
        ) -> tuple[float, Analysis]:
            """CPU seconds of a whole game's analysis (or its share, scaled), and the analysis."""
            points = analysis_points(record, 0)
            only = sorted(pick.sample(points, min(decisions, len(points)))) if decisions else None
            start = time.process_time()
            result = analyse(record, 0, depth, only=only)
            took = time.process_time() - start
            return took * len(points) / max(1, len(result.decisions)), result

        for k, seed in enumerate(seeds):
            for level in ("random", "hard"):
                record = play(game, n, level, seed)
                took, result = timed(record, "quick", random.Random(seed), args.decisions)
                per_game[level].append(sum(d.loss for d in result.decisions if d.kind == "place"))
                points[level].append(
                    sum(d.score_loss or 0.0 for d in result.decisions if d.kind == "points")
                )
                raw[level].extend(d.loss for d in result.decisions)
                counts[level].append(len(result.decisions))
                if level == "hard":
                    if "quick" in cpu:
                        cpu["quick"].append(took)
                    if k < args.time_games:
                        for depth in depths:
                            if depth != "quick":
                                decisions = args.time_decisions or args.decisions
                                cpu[depth].append(
                                    timed(record, depth, random.Random(seed), decisions)[0]
                                )
        r, rh = ratio(per_game["random"], counts["random"])
        h, hh = ratio(per_game["hard"], counts["hard"])
        diff, dh = r - h, math.hypot(rh, hh)
        verdict = apart(diff, dh)
        decisions = sum(counts["random"]) + sum(counts["hard"])
        marks = {
            d: "~" if args.decisions or (d != "quick" and args.time_decisions) else " "
            for d in depths
        }
        times = " ".join(
            f"{marks[d]}{statistics.fmean(cpu[d]):>7.1f}" if cpu[d] else f"{'-':>8}" for d in depths
        )
        print(
            f"{game:12} {n:>2} {decisions:>9} {r:>7.3f} ± {rh:.3f} {h:>7.3f} ± {hh:.3f} "
            f"{diff:>+7.3f} ± {dh:.3f} {statistics.fmean(raw['random']):>10.3f} "
            f"{statistics.fmean(raw['hard']):>8.3f} {times}  {verdict}",
            flush=True,
        )
        b = result.budget
        print(
            f"{'':12} quick: {b['worlds']} worlds x {b['rollouts']} rollouts, top {b['top_k']}, "
            f"rollouts by {result.policy}{', cut' if result.cut else ''}",
            flush=True,
        )
        if any(points["random"] + points["hard"]) or not result.cut:
            pr, prh = ratio(points["random"], counts["random"])
            ph, phh = ratio(points["hard"], counts["hard"])
            print(
                f"{'':12} points lost per decision (the mistakes judged in points): "
                f"random {pr:.3f} ± {prh:.3f}, hard {ph:.3f} ± {phh:.3f}, "
                f"difference {pr - ph:+.3f} ± {math.hypot(prh, phh):.3f}  "
                f"{apart(pr - ph, math.hypot(prh, phh))}",
                flush=True,
            )


if __name__ == "__main__":
    main()
