"""OpenSpiel's IS-MCTS playing a meeple game against OpenSpiel's uniform random bots.

    python examples/openspiel_ismcts.py                          # Trickarus, 3 players
    python examples/openspiel_ismcts.py --game scarvus --players 4 --games 10 --simulations 200

IS-MCTS (``open_spiel.python.algorithms.ismcts``) samples worlds with
``state.resample_from_infostate``, which the adapter backs with meeple's ``determinize``: the
search never sees the other hands or the deck order. Seat 0 is IS-MCTS, the rest random bots;
`evaluate_bots` plays the games and the mean return per seat is printed (returns are in [-1, 1],
from the final places).
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots

from meeple.interop.openspiel import ismcts_bot, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="trickarus")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    game = load(args.game, args.players)
    print(f"{game}: IS-MCTS ({args.simulations} simulations) in seat 0, random bots elsewhere")
    rng = np.random.RandomState(args.seed)
    totals = np.zeros(args.players)
    for g in range(args.games):
        bots = [ismcts_bot(game, simulations=args.simulations, seed=args.seed + g)]
        bots += [pyspiel.make_uniform_random_bot(p, args.seed + 100 * g + p) for p in range(1, args.players)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        totals += returns
        print(f"game {g + 1}: returns {np.round(returns, 2).tolist()}")
    print("mean return per seat:", np.round(totals / args.games, 2).tolist())


if __name__ == "__main__":
    main()
