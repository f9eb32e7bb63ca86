"""Random games through the interop adapters, beside the raw engine and PettingZoo's Leduc Hold'em.

`rows()` is what `benchmarks/playouts.py` adds to its table; run this file alone for the
adapter rows with the raw engine and the ratio to Leduc Hold'em (PettingZoo's RLCard-backed
``leduc_holdem_v4``, the peer named by the target: the AEC environment at 3x its steps/s).

    python benchmarks/interop_rows.py                        # every game and player count
    python benchmarks/interop_rows.py --game trickarus --players 4 --seconds 10
    python benchmarks/interop_rows.py --cpu                  # per second of this process's CPU
    python benchmarks/interop_rows.py --only rl              # rl_environment rows beside Hearts

The second table drives OpenSpiel's ``rl_environment.Environment`` (what DQN, NFSP and the
policy-gradient examples use), with its default observations (information-state tensors, asked
for every player at every step), random agents, and OpenSpiel's C++ Hearts through the very same
loop (`_rl_player`: one function builds both sides' ``play_one``), steps/s as a ratio to Hearts'.

Every row drives the same kind of loop: PettingZoo rows call ``last()`` then ``step()`` with a
uniformly random legal action from the mask; the OpenSpiel row calls ``legal_actions()`` and
``apply_action()`` (chance outcomes drawn the same way). actions/s counts agent decisions only.

``--cpu`` times every row by this process's CPU time instead of the wall clock: on a shared
machine other jobs then slow the rows far less (wall-clock ratios to Leduc move with the load,
since Leduc Hold'em, mostly resets, suffers more from it than long games do).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import playouts
from playouts import best_of, meeple_player, print_rows

import meeple

Row = tuple[str, float, float, int]


def _aec_player(make_env: Callable[[], Any]) -> Callable[[int], int]:
    import numpy as np

    env = make_env()

    def play_one(seed: int) -> int:
        rng = random.Random(seed)
        env.reset(seed=seed)
        n = 0
        for _agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            n += 1
        return n

    return play_one


def _openspiel_player(game_id: str, players: int) -> Callable[[int], int]:
    from meeple.interop.openspiel import load

    game = load(game_id, players)

    def play_one(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                n += 1
        return n

    return play_one


def _rl_player(make_game: Callable[[], Any]) -> Callable[[int], int]:
    """``play_one(seed)`` through ``rl_environment.Environment`` with its default
    (information-state) observations: one random game, counting agent steps. The same code for
    Hearts and for every meeple game."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(make_game())

    def play_one(seed: int) -> int:
        rng = random.Random(seed)
        ts = env.reset()
        n = 0
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([rng.choice(ts.observations["legal_actions"][p])])
            n += 1
        return n

    return play_one


HEARTS_RL = "openspiel hearts 4p (C++) rl_environment"


def rl_subjects(
    game: str | None = None, players: int | None = None
) -> list[tuple[str, Callable[[int], int]]]:
    """Hearts first (the peer), then every game and player count, through `_rl_player`."""
    try:
        import pyspiel
    except ImportError:
        return []
    from meeple.interop.openspiel import load

    out = [(HEARTS_RL, _rl_player(lambda: pyspiel.load_game("hearts")))]
    for g in meeple.games():
        if game and g["id"] != game:
            continue
        for p in g["players"]:
            if players and p != players:
                continue
            out.append(
                (
                    f"meeple {g['id']} {p}p rl_environment",
                    _rl_player(lambda g=g["id"], p=p: load(g, p)),
                )
            )
    return out


def leduc_env() -> Any | None:
    """PettingZoo's Leduc Hold'em (needs rlcard and pygame), or None if it is not installed."""
    try:
        from pettingzoo.classic import leduc_holdem_v4
    except ImportError:
        return None
    return leduc_holdem_v4.env()


LEDUC = "pettingzoo leduc_holdem_v4 (RLCard) AEC"


def subjects(
    game: str | None = None, players: int | None = None, raw: bool = False
) -> list[tuple[str, Callable[[int], int]]]:
    """What to measure: Leduc first (the peer), then per game and player count the AEC env,
    the OpenSpiel adapter and (``raw``) the engine alone."""
    from meeple.interop.pettingzoo import env

    out: list[tuple[str, Callable[[int], int]]] = []
    if leduc_env() is not None:
        out.append((LEDUC, _aec_player(leduc_env)))
    for g in meeple.games():
        if game and g["id"] != game:
            continue
        for p in g["players"]:
            if players and p != players:
                continue
            if raw:
                out.append((f"meeple {g['id']} {p}p raw engine", meeple_player(g["id"], p, {})))
            out.append(
                (
                    f"meeple {g['id']} {p}p PettingZoo AEC",
                    _aec_player(lambda g=g["id"], p=p: env(g, players=p)),
                )
            )
            out.append((f"meeple {g['id']} {p}p OpenSpiel adapter", _openspiel_player(g["id"], p)))
    return out


def rows(
    seconds: float = 3.0,
    game: str | None = None,
    players: int | None = None,
    raw: bool = False,
    rounds: int = 5,
) -> list[Row]:
    """(name, games/s, actions/s, games) per subject; interleaved rounds, best kept (the machine
    is shared, and the best round is the one least disturbed)."""
    return best_of(subjects(game, players, raw), seconds, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game")
    parser.add_argument("--players", type=int)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row, in all")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="time by process CPU time")
    parser.add_argument("--only", choices=["aec", "rl"], help="one table only")
    args = parser.parse_args()
    if args.cpu:  # playouts.measure reads its clock from its `time`: give it the CPU clock
        playouts.time = SimpleNamespace(perf_counter=time.process_time)  # type: ignore[assignment]
    if args.only != "rl":
        table = rows(args.seconds, args.game, args.players, raw=True, rounds=args.rounds)
        print_rows(table, LEDUC, "Leduc")
        if not any(r[0] == LEDUC for r in table):
            print("(Leduc needs pettingzoo[classic]: pip install rlcard pygame)")
    if args.only != "aec":
        if args.only is None:
            print()
        rl = best_of(rl_subjects(args.game, args.players), args.seconds, args.rounds)
        print_rows(rl, HEARTS_RL, "Hearts", "steps/s")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
