"""ISMCTS speed per game: iterations per second, how move time grows with the budget, and p95.

    .venv/bin/python benchmarks/ismcts.py [--games trickarus,...] [--positions 20] [--budgets 100,300,1000]

For each registered game (smallest and largest player count) it samples decision points from
seeded random games, then times level ``ismcts:<budget>`` (the game's own hooks: rollout policy,
cut-off, evaluation, root bias, candidates) at each iteration budget and at the game's default
budget on every point. The peer, measured in the same run, is one playout as that level plays it
from a determinization (what one iteration costs without the tree): the ratio says how much the
tree and its bookkeeping add.
With --openspiel it also races OpenSpiel's IS-MCTS when `meeple.interop.openspiel` exists.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import meeple
from meeple.bots.ismcts import (
    ISMCTSBot,
    _playout,
    default_iterations,
    default_rollout_depth,
    evaluation_for,
    leaf_returns,
    make_ismcts,
    rollout_policy_for,
)
from meeple.core import State


def decision_points(game: str, players: int, count: int, seed: int = 0) -> list[State]:
    """``count`` states with 2+ legal actions, spread over seeded random games."""
    rng = random.Random(seed)
    points: list[State] = []
    g = 0
    while len(points) < count:
        state = meeple.make(game, players=players, seed=seed * 1000 + g)
        g += 1
        while not state.is_over() and len(points) < count:
            if len(state.legal_actions()) > 1 and rng.random() < 0.15:
                points.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    return points


def playouts_per_second(points: list[State], seconds: float = 1.0) -> float:
    rng = random.Random(1)
    info = points[0].info
    policy, evaluate = rollout_policy_for(info), evaluation_for(info)
    depth = default_rollout_depth(info)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = points[n % len(points)]
        world = s.determinize(s.to_move, rng)  # type: ignore[arg-type]
        if depth is None:
            _playout(world, rng, policy)
        else:
            _playout(world, rng, policy, depth)
        leaf_returns(world, evaluate)
        n += 1
    return n / (time.perf_counter() - start)


def time_budget(points: list[State], iterations: int) -> tuple[float, float, float]:
    """(iterations per second, median move seconds, p95 move seconds) at ``iterations``."""
    times = []
    for i, s in enumerate(points):
        bot = make_ismcts(s.info, seed=i, knob=str(iterations))
        t0 = time.perf_counter()
        bot.choose(s)
        times.append(time.perf_counter() - t0)
    times.sort()
    p95 = times[max(0, -(-95 * len(times) // 100) - 1)]
    return iterations * len(times) / sum(times), statistics.median(times), p95


def openspiel_speed(points: list[State], simulations: int) -> tuple[float, float]:
    """(OpenSpiel IS-MCTS simulations per second, ours per second) on the same points."""
    from meeple.interop import openspiel as osi

    game = osi.load(points[0].game_id, points[0].players, **points[0].options)
    t_os = t_us = 0.0
    for i, s in enumerate(points):
        theirs = osi.ismcts_bot(game, simulations=simulations, seed=i)
        os_state = osi.from_meeple(s)
        t0 = time.perf_counter()
        theirs.step(os_state)
        t_os += time.perf_counter() - t0
        ours = ISMCTSBot(seed=i, iterations=simulations, max_seconds=None)
        t0 = time.perf_counter()
        ours.choose(s)
        t_us += time.perf_counter() - t0
    n = simulations * len(points)
    return n / t_os, n / t_us


def openspiel_race(
    game: str, players: int, seconds: float, games: int, sims_per_s: float, seed: int = 1000
) -> None:
    """Ours at ``seconds`` a move against OpenSpiel's IS-MCTS given as many simulations as it
    runs in ``seconds`` (measured above); seats alternate and rotate, deals repeat per rotation."""
    from meeple.bots.arena import GameResult, summarize
    from meeple.interop import openspiel as osi

    os_game = osi.load(game, players)
    sims = max(1, round(seconds * sims_per_s))
    results = []
    ours_iters: list[int] = []
    for index in range(games):
        block, turn = divmod(index, 2)
        lineup = tuple(("meeple", "openspiel")[(s + turn) % 2] for s in range(players))
        state = meeple.make(game, players=players, seed=seed + block)
        ours = ISMCTSBot(seed=index, iterations=None, seconds=seconds, max_seconds=None)
        theirs = osi.ismcts_bot(os_game, simulations=sims, seed=index)
        while not state.is_over():
            legal = state.legal_actions()
            p = state.to_move
            assert p is not None
            if len(legal) == 1:
                action = legal[0]
            elif lineup[p] == "meeple":
                action = ours.choose(state)
                assert ours.last is not None
                ours_iters.append(ours.last.iterations)
            else:
                action = int(theirs.step(osi.from_meeple(state)))
            state.apply(action)
        results.append(
            GameResult(
                index,
                state.seed,
                lineup,
                tuple(state.ranking()),
                tuple(state.scores()),
                len(state.history),
                0.0,
                tuple(() for _ in lineup),
            )
        )
        print(f"    game {index}: seed {state.seed} {lineup} places {state.ranking()}", flush=True)
    for st in summarize(results, ["meeple", "openspiel"]):
        print(
            f"  race {game} {players}p, {seconds} s/move, {games} games: {st.bot:<9} "
            f"mean place {st.mean_place}  win rate {st.win_rate}"
        )
    print(
        f"  iterations per move: meeple {statistics.fmean(ours_iters):.0f} (median "
        f"{statistics.median(ours_iters):.0f}), openspiel {sims}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(g["id"] for g in meeple.games()))
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--budgets", default="30,100,300,1000")
    ap.add_argument("--openspiel", action="store_true", help="also race OpenSpiel's IS-MCTS")
    ap.add_argument("--race-seconds", type=float, default=0.5)
    ap.add_argument("--race-games", type=int, default=10)
    ap.add_argument("--race-seed", type=int, default=1000, help="deals are seeds race-seed + k")
    ap.add_argument(
        "--race-players", type=int, default=None, help="default: the fewest the game takes"
    )
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    print(
        f"{'game':<14}{'P':>2} {'playouts/s':>11} "
        + " ".join(f"{'it/s@' + str(b):>10}" for b in budgets)
        + "  "
        + " ".join(f"{'p95s@' + str(b):>9}" for b in budgets)
        + f"  {'default':>7} {'it/s':>6} {'p95s':>6}  it/s ÷ playouts/s"
    )
    for game in args.games.split(","):
        info = meeple.game_info(game)
        default = default_iterations(info)
        for players in sorted({min(info.player_counts), max(info.player_counts)}):
            points = decision_points(game, players, args.positions)
            peer = playouts_per_second(points)
            rows = [time_budget(points, b) for b in budgets]
            own = time_budget(points, default)
            print(
                f"{game:<14}{players:>2} {peer:>11.0f} "
                + " ".join(f"{r[0]:>10.0f}" for r in rows)
                + "  "
                + " ".join(f"{r[2]:>9.3f}" for r in rows)
                + f"  {default:>7} {own[0]:>6.0f} {own[2]:>6.3f}  {own[0] / peer:.2f}",
                flush=True,
            )
        if args.openspiel:
            players = args.race_players or min(info.player_counts)
            points = decision_points(game, players, max(4, args.positions // 4), seed=7)
            theirs, ours = openspiel_speed(points, simulations=20)
            print(
                f"  openspiel {game} {players}p, 20 iterations/move: OpenSpiel IS-MCTS "
                f"{theirs:.0f}/s, ours {ours:.0f}/s, ours ÷ theirs {ours / theirs:.1f}",
                flush=True,
            )
            openspiel_race(
                game, players, args.race_seconds, args.race_games, theirs, args.race_seed
            )


if __name__ == "__main__":
    main()
