"""A short tabular training loop on a meeple game through its PettingZoo AEC environment.

    python examples/pettingzoo_random_train.py                    # Trickarus, 2 players, seconds
    python examples/pettingzoo_random_train.py --game scarvus --players 3 --episodes 2000

The learner (seat 0) keeps one value per action: the mean final reward of the games in which it
took that action (every-visit Monte Carlo, a tabular bandit over the action ids). It plays
epsilon-greedily among the legal actions given by ``observation["action_mask"]``; the other
seats play uniformly at random. Rewards arrive once, at the end, from ``State.returns``. The
loop is the standard AEC one, so any PettingZoo-aware learner slots in the same way.
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from meeple.interop.pettingzoo import env


def play(e, rng: random.Random, q: np.ndarray, epsilon: float, learn: bool, seed: int) -> float:  # type: ignore[no-untyped-def]
    """One game; returns seat 0's final reward and (``learn``) updates the table ``q``."""
    e.reset(seed=seed)
    taken: list[int] = []
    final = 0.0
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        if termination or truncation:
            if agent == "player_0":
                final = reward
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if agent == "player_0" and rng.random() >= epsilon:
            action = int(legal[np.argmax(q[0, legal] / np.maximum(q[1, legal], 1))])
        else:
            action = int(rng.choice(legal.tolist()))
        if agent == "player_0":
            taken.append(action)
        e.step(action)
    if learn:
        for a in taken:  # every-visit Monte Carlo: sum of returns and visit count per action
            q[0, a] += final
            q[1, a] += 1
    return final


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="trickarus")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--eval", type=int, default=200, help="evaluation games, each side")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    e = env(args.game, players=args.players)
    rng = random.Random(args.seed)
    n_actions = e.action_space("player_0").n
    q = np.zeros((2, n_actions))  # [sum of returns, visits] per action
    baseline = np.mean([play(e, rng, q, 1.0, False, 10**6 + i) for i in range(args.eval)])
    for episode in range(args.episodes):
        play(
            e,
            rng,
            q,
            epsilon=max(0.1, 1.0 - episode / (0.8 * args.episodes)),
            learn=True,
            seed=episode,
        )
    trained = np.mean([play(e, rng, q, 0.0, False, 10**6 + i) for i in range(args.eval)])
    print(f"{args.game}, {args.players} players: seat 0 mean reward over {args.eval} games")
    print(f"  random play: {baseline:+.3f}   after {args.episodes} training games: {trained:+.3f}")
    e.close()


if __name__ == "__main__":
    main()
