"""Random full games per second and actions per second, for every game and player count.

Also drives OpenSpiel's C++ Hearts from the same Python loop (needs the `bench` extra) and prints
each game's actions/s as a ratio to it, so figures compare within one run on one machine.

    python benchmarks/playouts.py                 # every game, every player count, 3 s each
    python benchmarks/playouts.py --game trickarus --players 4 --seconds 10
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import meeple


def measure(play_one: Callable[[int], int], seconds: float) -> tuple[float, float, int]:
    """Run ``play_one(seed) -> actions`` until ``seconds`` pass: games/s, actions/s, games."""
    games = actions = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds or games == 0:
        actions += play_one(games)
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / elapsed, games


Row = tuple[str, float, float, int]


def best_of(subjects: list[tuple[str, Callable[[int], int]]], seconds: float, rounds: int) -> list[Row]:
    """Interleave short rounds and keep each subject's best: the machine is shared, and the best
    round is the one least disturbed by others (as timeit does)."""
    best: dict[str, tuple[float, float, int]] = {}
    for _ in range(rounds):
        for name, play_one in subjects:
            got = measure(play_one, seconds / rounds)
            if name not in best or got[1] > best[name][1]:
                best[name] = got
    return [(name, *best[name]) for name, _ in subjects]


def print_rows(rows: list[Row], peer_name: str | None, peer_label: str) -> None:
    """The table, each row's actions/s as a ratio to the peer's (measured in the same run)."""
    peer = next((r[2] for r in rows if r[0] == peer_name), None)
    print(f"{'what':<48} {'games/s':>10} {'actions/s':>12} {'games':>7}  vs {peer_label}")
    for name, gps, aps, n in rows:
        ratio = f"{aps / peer:.2f}x" if peer else "n/a"
        print(f"{name:<48} {gps:>10.1f} {aps:>12.0f} {n:>7}  {ratio}")


def meeple_player(game: str, players: int, options: dict) -> Callable[[int], int]:
    def play_one(seed: int) -> int:
        state = meeple.make(game, players=players, seed=seed, **options)
        rng = random.Random(seed)
        choice, legal, apply = rng.choice, state.legal_actions, state.apply
        n = 0
        while state.to_move is not None:
            apply(choice(legal()))
            n += 1
        return n

    return play_one


def hearts_player() -> Callable[[int], int] | None:
    """OpenSpiel's Hearts (C++), driven by the same kind of Python loop, chance included."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")

    def play_one(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                n += 1
        return n

    return play_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", help="only this game")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row, in all")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; best is kept")
    args = parser.parse_args()

    subjects: list[tuple[str, Callable[[int], int]]] = []
    hearts = hearts_player()
    if hearts is not None:
        subjects.append(("openspiel hearts 4p (C++ via Python)", hearts))
    for g in meeple.games():
        if args.game and g["id"] != args.game:
            continue
        for players in g["players"]:
            if args.players and players != args.players:
                continue
            subjects.append((f"meeple {g['id']} {players}p", meeple_player(g["id"], players, {})))
    rows = best_of(subjects, args.seconds, args.rounds)
    try:  # rows from the interop adapters, where that extra is installed
        from interop_rows import rows as interop_rows  # type: ignore[import-not-found]

        rows += interop_rows(args.seconds, game=args.game, players=args.players)
    except ImportError:
        pass

    print_rows(rows, "openspiel hearts 4p (C++ via Python)" if hearts is not None else None, "Hearts")
    if hearts is None:
        print("(install the bench extra for the OpenSpiel Hearts peer: pip install -e '.[bench]')")


if __name__ == "__main__":
    main()
