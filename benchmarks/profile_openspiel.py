"""Profile OpenSpiel's Python IS-MCTS on meeple games through our adapter (cProfile).

    nice python benchmarks/profile_openspiel.py --game karvi --players 2 --moves 6 --sims 100

Plays ``--moves`` IS-MCTS moves (``--sims`` simulations each) from decision points of a seeded
random game and prints where the time went: total, the adapter's information-state strings,
its ``_apply_action``, the engine's own ``apply``, cloning and resampling. The shares are what
to compare across adapter versions (the machine is shared, so absolute times drift).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random

import meeple
from meeple.interop import openspiel as osi


def run(game: str, players: int, moves: int, sims: int, seed: int) -> None:
    os_game = osi.load(game, players)
    rng = random.Random(seed)
    state = meeple.make(game, players=players, seed=seed)
    points = []
    while not state.is_over() and len(points) < moves:
        if len(state.legal_actions()) > 1 and rng.random() < 0.2:
            points.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
    for i, s in enumerate(points):
        bot = osi.ismcts_bot(os_game, simulations=sims, seed=i)
        bot.step(osi.from_meeple(s))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="karvi")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--moves", type=int, default=6)
    ap.add_argument("--sims", type=int, default=100)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--top", type=int, default=0, help="also print the top N functions")
    args = ap.parse_args()
    # Learn the layouts (tensor, information state) outside the profile.
    warm = osi.from_meeple(meeple.make(args.game, players=args.players, seed=0))
    warm.information_state_string(0)
    warm.information_state_tensor(0)
    prof = cProfile.Profile()
    prof.enable()
    run(args.game, args.players, args.moves, args.sims, args.seed)
    prof.disable()
    st = pstats.Stats(prof)
    total = max(v[3] for v in st.stats.values())  # type: ignore[attr-defined]

    def cum(name: str, file_part: str = "") -> float:
        return sum(
            v[3]
            for (f, _, fn), v in st.stats.items()  # type: ignore[attr-defined]
            if (fn == name or fn == f"<built-in method pyspiel.{name}>") and file_part in f
        )

    def engine_apply() -> float:
        return sum(
            v[3]
            for (f, _, fn), v in st.stats.items()  # type: ignore[attr-defined]
            if fn == "apply" and ("/games/" in f or "/core/" in f)
        )

    rows = [
        ("information_state_string", cum("information_state_string")),
        ("adapter _apply_action", cum("_apply_action", "interop")),
        ("  engine State.apply", engine_apply()),
        ("adapter clone (__deepcopy__)", cum("__deepcopy__", "interop")),
        ("resample_from_infostate", cum("resample_from_infostate", "interop")),
        ("legal_actions (adapter)", cum("_legal_actions", "interop")),
        ("returns", cum("returns", "interop")),
    ]
    print(
        f"{args.game} {args.players}p, {args.moves} moves x {args.sims} simulations: {total:.2f} s"
    )
    for label, t in rows:
        print(f"  {label:<30} {t:7.2f} s  {100 * t / total:5.1f}%")
    if args.top:
        st.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
