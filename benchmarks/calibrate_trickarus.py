"""Calibrate Trickarus' score-track length (the printed track is not public).

For each player count and candidate length, heuristic bots play many games. Competitive: how
many rounds a game lasts and how often the 2-player game's single round sees the sun. Co-op:
how often the team lands everyone within the round limit. The defaults in components.json are
chosen from this table (see docs/games/trickarus.md for the targets and the choice).

    python benchmarks/calibrate_trickarus.py --games 200
    python benchmarks/calibrate_trickarus.py --modes cooperative --players 3,4,5 --lengths 8,12,16
"""

from __future__ import annotations

import argparse
import statistics

from rich.progress import track

import meeple
from meeple.games.trickarus.bot import HeuristicBot


def play(players: int, length: int, mode: str, seed: int) -> meeple.State:
    state = meeple.make("trickarus", players=players, seed=seed, mode=mode, track=length)
    bots = [HeuristicBot(seed * 10 + p) for p in range(players)]
    while not state.is_over():
        state.apply(bots[state.to_move].choose(state))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--lengths", default="6,8,10,12,14,16,18")
    parser.add_argument("--players", default="2,3,4,5", help="player counts, comma-separated")
    parser.add_argument(
        "--modes", default="competitive,cooperative", help="which modes to measure, comma-separated"
    )
    args = parser.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    modes = set(args.modes.split(","))
    nan = float("nan")

    print(
        f"{'players':>7} {'length':>6} {'comp rounds (mean, median)':>28} {'sun reached':>12} {'co-op win':>10} {'co-op landed':>13}"
    )
    for players in (int(x) for x in args.players.split(",")):
        for length in lengths:
            if length < players:
                continue
            mean_rounds = median_rounds = sun = coop_win = coop_landed = nan
            if "competitive" in modes:
                comp = [
                    play(players, length, "competitive", s)
                    for s in track(
                        range(args.games), description=f"{players}p track {length}", transient=True
                    )
                ]
                rounds = [s.round for s in comp]
                mean_rounds, median_rounds = statistics.mean(rounds), statistics.median(rounds)
                sun = sum(s.sun_reached for s in comp) / len(comp)
            if "cooperative" in modes and players >= 3:
                coop = [play(players, length, "cooperative", s) for s in range(args.games)]
                coop_win = sum(s.landed() == players for s in coop) / len(coop)
                coop_landed = statistics.mean(s.landed() for s in coop)
            print(
                f"{players:>7} {length:>6} {mean_rounds:>20.2f}, {median_rounds:>5} "
                f"{sun:>12.0%} {coop_win:>10.0%} {coop_landed:>13.2f}"
            )


if __name__ == "__main__":
    main()
