"""OpenSpiel's search bots playing a meeple game, through OpenSpiel's own `evaluate_bots`.

    python examples/openspiel_ismcts.py                          # Trickarus: IS-MCTS v 2 random
    python examples/openspiel_ismcts.py --game scarvus --players 4 --games 10 --simulations 200
    python examples/openspiel_ismcts.py --players 2 --bots ismcts,mcts
    python examples/openspiel_ismcts.py --bots ismcts,meeple:heuristic,random

Bots, one per seat (``--bots``, comma-separated; missing seats play at random):

- ``ismcts``: IS-MCTS (``open_spiel.python.algorithms.ismcts``) with random rollouts. It samples
  worlds with ``state.resample_from_infostate``, which the adapter backs with meeple's
  ``determinize``: the search never sees the other hands or the deck order.
- ``mcts``: OpenSpiel's MCTS (``open_spiel.python.algorithms.mcts``) with random rollouts. It
  searches the real state, hidden cards included, so it is a cheating baseline here.
- ``random``: OpenSpiel's uniform random bot.
- ``meeple:<level>``: a meeple bot (``heuristic``, ``ismcts``, ...) wrapped as a ``pyspiel.Bot``.

The mean return per seat is printed (returns are in [-1, 1], from the final places).
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

from meeple.interop.openspiel import PREFIX, MeepleBot, ismcts_bot, load


def make_bot(name: str, game: pyspiel.Game, seat: int, simulations: int, seed: int) -> pyspiel.Bot:
    if name == "ismcts":
        return ismcts_bot(game, simulations=simulations, seed=seed)
    if name == "mcts":
        rs = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        return mcts.MCTSBot(
            game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rs
        )
    if name == "random":
        return pyspiel.make_uniform_random_bot(seat, seed)
    if name.startswith("meeple:"):
        game_id = game.get_type().short_name.removeprefix(PREFIX)
        return MeepleBot(game_id, name.split(":", 1)[1], seed=seed)
    raise SystemExit(f"unknown bot {name!r}: ismcts, mcts, random or meeple:<level>")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="trickarus")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument(
        "--bots", default="ismcts", help="per seat, comma-separated (default: ismcts)"
    )
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    game = load(args.game, args.players)
    names = args.bots.split(",")
    names += ["random"] * (args.players - len(names))
    print(f"{game}: {', '.join(names[: args.players])} ({args.simulations} simulations for search)")
    rng = np.random.RandomState(args.seed)
    totals = np.zeros(args.players)
    for g in range(args.games):
        bots = [
            make_bot(n, game, p, args.simulations, args.seed + 100 * g + p)
            for p, n in enumerate(names[: args.players])
        ]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        totals += returns
        print(f"game {g + 1}: returns {np.round(returns, 2).tolist()}")
    print("mean return per seat:", np.round(totals / args.games, 2).tolist())


if __name__ == "__main__":
    main()
