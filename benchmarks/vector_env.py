"""Batch stepping: steps per second of `meeple.interop.vector` as the batch grows.

    python benchmarks/vector_env.py                               # Trickarus 4p, N = 1..64
    python benchmarks/vector_env.py --game zarcana --players 2 --tensor information_state

Each row steps a batch of N games with a uniformly random legal action per game (drawn from the
masks, vectorised) and counts game steps (N per batch step); autoreset keeps every game busy.
The first row is the PettingZoo AEC environment of the same game driven one step at a time
(``last()`` then ``step()``), the peer the ratios are taken against. Interleaved rounds, best
kept (the machine is shared).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def vector_rate(game: str, players: int, n: int, tensor: str) -> Callable[[float], float]:
    from meeple.interop.vector import vector_env

    envs = vector_env(game, num_envs=n, players=players, tensor=tensor)
    envs.reset(seed=1)
    rng = np.random.default_rng(1)

    def run(seconds: float) -> float:
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(10):
                envs.step(envs.sample_legal(rng))
            steps += 10 * n
        return steps / (time.perf_counter() - start)

    return run


def aec_rate(game: str, players: int) -> Callable[[float], float]:
    from meeple.interop.pettingzoo import env

    e = env(game, players=players)
    rng = np.random.default_rng(1)

    def run(seconds: float) -> float:
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            e.reset(seed=int(rng.integers(2**31)))
            for _agent in e.agent_iter():
                obs, _r, term, trunc, _i = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
        return steps / (time.perf_counter() - start)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="trickarus")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--sizes", default="1,2,4,8,16,32,64")
    parser.add_argument("--tensor", default="observation")
    parser.add_argument("--seconds", type=float, default=1.0, help="per row and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: list[tuple[str, Callable[[float], float]]] = [
        ("PettingZoo AEC, one game", aec_rate(args.game, args.players))
    ]
    rows += [(f"vector N={n}", vector_rate(args.game, args.players, n, args.tensor)) for n in sizes]
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, run in rows:
            best[name] = max(best.get(name, 0.0), run(args.seconds))
    peer = best[rows[0][0]]
    print(f"{args.game} {args.players}p, {args.tensor} tensors")
    print(f"{'what':<28} {'steps/s':>10}  vs AEC")
    for name, _ in rows:
        print(f"{name:<28} {best[name]:>10.0f}  {best[name] / peer:.2f}x")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
