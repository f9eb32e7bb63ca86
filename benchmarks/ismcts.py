"""ISMCTS speed per game: iterations per second, how move time grows with the budget, and p95.

    .venv/bin/python benchmarks/ismcts.py [--games trickarus,...] [--positions 20] [--budgets 100,300,1000]

For each registered game (smallest and largest player count) it samples decision points from
seeded random games, then times level ``ismcts:<budget>`` (the game's own hooks: rollout policy,
cut-off, evaluation, root bias, candidates) at each iteration budget and at the game's default
budget on every point. The peer, measured in the same run, is one playout as that level plays it
from a determinization (what one iteration costs without the tree): the ratio says how much the
tree and its bookkeeping add.
With --openspiel it also races OpenSpiel's Python IS-MCTS (through `meeple.interop.openspiel`)
at equal wall-clock time per move, both sides timed (`--race-only` skips the speed table):

    nice .venv/bin/python benchmarks/ismcts.py --openspiel --race-only --games karvi \\
        --race-players 2 --race-seconds 0.2 --race-games 10

Deals are seeds ``--race-seed + k``; without ``--race-seed`` one is drawn at random and printed,
so races do not reuse the seeds anything was tuned on.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

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


def timed_openspiel_ismcts(game: Any, seconds: float, seed: int) -> Any:
    """OpenSpiel's Python IS-MCTS (random rollouts, UCT constant 2) with a wall-clock budget.

    OpenSpiel's bot counts simulations only; this runs its own `run_simulation` in a loop until
    ``seconds`` have passed, with the stopping rule our ISMCTS uses (stop when the next
    simulation, at the average so far, would end past the budget), so both sides get the same
    time per move. ``last_simulations`` / ``last_seconds`` report the search just made."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    class TimedISMCTS(ismcts.ISMCTSBot):
        last_simulations = 0
        last_seconds = 0.0

        def restart_at(self, state: Any) -> None:
            return None

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            return None

        def run_search(self, state: Any) -> Any:  # OpenSpiel's, with a time budget
            start = time.perf_counter()
            self.reset()
            legal = state.legal_actions()
            if len(legal) == 1:
                return [(legal[0], 1.0)]
            self._root_node = self.create_new_node(state)
            done = 0
            while True:
                if done >= 2:  # its first simulation only evaluates the root: two at least
                    elapsed = time.perf_counter() - start
                    if elapsed * (done + 1) / done >= seconds:
                        break
                self.run_simulation(self.sample_root_state(state))
                done += 1
            self.last_simulations = done
            self.last_seconds = time.perf_counter() - start
            return self.get_final_policy(state, self._root_node)

    rs = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    return TimedISMCTS(game, evaluator, uct_c=2.0, max_simulations=0, random_state=rs)


def openspiel_race(game: str, players: int, seconds: float, games: int, seed: int) -> None:
    """Ours against OpenSpiel's IS-MCTS, both at ``seconds`` of wall clock a move and both
    timed; seats alternate and rotate, each deal (seed + k) is played twice, seats swapped."""
    from meeple.bots.arena import GameResult, summarize
    from meeple.interop import openspiel as osi

    os_game = osi.load(game, players)
    results = []
    spent = {"meeple": 0.0, "openspiel": 0.0}
    iters = {"meeple": 0, "openspiel": 0}
    for index in range(games):
        block, turn = divmod(index, 2)
        lineup = tuple(("meeple", "openspiel")[(s + turn) % 2] for s in range(players))
        state = meeple.make(game, players=players, seed=seed + block)
        os_state = osi.from_meeple(state)  # kept in step with ``state``
        ours = ISMCTSBot(seed=index, iterations=None, seconds=seconds, max_seconds=None)
        theirs = timed_openspiel_ismcts(os_game, seconds, seed=index)
        times: list[list[float]] = [[] for _ in range(players)]
        seat_iters = [0] * players
        finished = True
        while not state.is_over():
            legal = state.legal_actions()
            p = state.to_move
            assert p is not None
            if os_state.is_terminal():  # an adapter that ends games early (as the adapter once did)
                print(f"    game {index}: the adapter ended it at move {len(state.history)}")
                finished = False
                break
            if len(legal) == 1:
                action = legal[0]
            else:
                t0 = time.perf_counter()
                if lineup[p] == "meeple":
                    action = ours.choose(state)
                    n = ours.last.iterations if ours.last else 0
                else:
                    action = int(theirs.step(os_state))
                    n = theirs.last_simulations
                dt = time.perf_counter() - t0
                times[p].append(dt)
                seat_iters[p] += n
                spent[lineup[p]] += dt
                iters[lineup[p]] += n
            state.apply(action)
            os_state.apply_action(action)
        assert not finished or (os_state.is_terminal() and os_state.returns() == state.returns())
        results.append(
            GameResult(
                index,
                state.seed,
                lineup,
                tuple(state.ranking()),
                tuple(state.scores()),
                len(state.history),
                0.0,
                tuple(tuple(t) for t in times),
                tuple(seat_iters),
                finished,
            )
        )
        print(f"    game {index}: seed {state.seed} {lineup} places {state.ranking()}", flush=True)
    stats = {st.bot: st for st in summarize(results, ["meeple", "openspiel"])}
    a, b = stats["meeple"].mean_place, stats["openspiel"].mean_place
    verdict = (
        "ours ahead (intervals apart)"
        if a.hi < b.lo
        else "OpenSpiel ahead (intervals apart)"
        if b.hi < a.lo
        else "level (intervals overlap)"
    )
    print(
        f"| {game} {players}p | {seconds} s | {games} | {a} | {b} | "
        f"{iters['meeple'] / spent['meeple']:.0f} vs {iters['openspiel'] / spent['openspiel']:.0f} "
        f"| {stats['meeple'].p95_move_seconds:.3f} vs {stats['openspiel'].p95_move_seconds:.3f} "
        f"| {verdict} |",
        flush=True,
    )


RACE_HEADER = (
    "OpenSpiel's side: open_spiel.python.algorithms.ismcts.ISMCTSBot (Python, random rollouts,\n"
    "UCT 2) playing through meeple's Python OpenSpiel adapter (meeple.interop.openspiel), with a\n"
    "wall-clock budget per move; ours: meeple's ISMCTSBot, plain random playouts, same budget.\n"
    "Mean place (1 = best) with 95% intervals; iterations/s = all iterations / all search time.\n"
    "| game | s/move | games | ours: mean place | OpenSpiel: mean place "
    "| iterations/s ours vs OpenSpiel | p95 move s ours vs OpenSpiel | verdict |\n"
    "|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(g["id"] for g in meeple.games()))
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--budgets", default="30,100,300,1000")
    ap.add_argument("--openspiel", action="store_true", help="also race OpenSpiel's IS-MCTS")
    ap.add_argument("--race-seconds", type=float, default=0.5)
    ap.add_argument("--race-games", type=int, default=10)
    ap.add_argument(
        "--race-seed",
        type=int,
        default=None,
        help="deals are seeds race-seed + k (default: drawn at random, and printed)",
    )
    ap.add_argument(
        "--race-only", action="store_true", help="skip the speed table, only race OpenSpiel"
    )
    ap.add_argument(
        "--race-players", type=int, default=None, help="default: the fewest the game takes"
    )
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    race_seed = args.race_seed
    if args.openspiel and race_seed is None:
        race_seed = random.SystemRandom().randrange(10_000, 1_000_000)
    if args.openspiel:
        print(f"race seed {race_seed} (deals are seeds {race_seed} + k)", flush=True)
    if not args.race_only:
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
            if args.race_only:
                break
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
            print(RACE_HEADER, flush=True)
            openspiel_race(game, players, args.race_seconds, args.race_games, race_seed)


if __name__ == "__main__":
    main()
