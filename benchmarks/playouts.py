"""Random full games: decisions per second, and clone()/determinize() per second, for every game.

Beside them runs OpenSpiel's C++ Hearts (needs the `bench` extra), and every figure is printed as
a ratio to Hearts' in the same run, on the same machine. **Both sides run the very same loop
code**: `drive()` and `repeat()` below take the state's methods as arguments, bound the same way
on both sides (`--check` prints the loop and what each side passes in):

- a step asks ``terminal()``, draws ``choice(legal())``, asks ``chance()`` and calls
  ``apply(action)``; Hearts' deal is drawn through its ``legal_actions()`` at chance nodes, like a
  decision (meeple's games draw chance inside ``apply``; its ``chance`` is a Python function that
  always says no: one more Python call a step on our side, never on Hearts');
- decisions/s counts the non-chance steps on both sides.

    python benchmarks/playouts.py                 # every game, every player count, 3 s each
    python benchmarks/playouts.py --game trickarus --players 4 --seconds 10
    python benchmarks/playouts.py --check         # print the loops and each side's arguments
"""

from __future__ import annotations

import argparse
import inspect
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import meeple

HEARTS = "openspiel hearts 4p (C++ via Python)"
MID_GAME = 20  # random decisions played before clone()/determinize() are timed


def drive(terminal: Callable[[], bool], chance: Callable[[], bool],
          legal: Callable[[], list[int]], apply: Callable[[int], Any],
          choice: Callable[[list[int]], int]) -> int:
    """The one playout loop both sides run: random actions to the end; returns the decisions."""
    decisions = 0
    while not terminal():
        action = choice(legal())
        if not chance():
            decisions += 1
        apply(action)
    return decisions


def repeat(operation: Callable[[], Any], times: int) -> int:
    """The one loop both sides' clone()/determinize() figures run."""
    for _ in range(times):
        operation()
    return times


def never() -> bool:
    """meeple's ``chance``: its games draw chance inside `apply`, so no step is a chance node."""
    return False


def measure(play_one: Callable[[int], int], seconds: float) -> tuple[float, float, int]:
    """Run ``play_one(seed) -> count`` until ``seconds`` pass: calls/s, counted/s, calls."""
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


def print_rows(rows: list[Row], peer_name: str | None, peer_label: str,
               unit: str = "actions/s", calls: str = "games/s") -> None:
    """The table, each row's rate as a ratio to the peer's (measured in the same run)."""
    peer = next((r[2] for r in rows if r[0] == peer_name), None)
    print(f"{'what':<48} {calls:>10} {unit:>12} {'calls':>7}  vs {peer_label}")
    for name, gps, aps, n in rows:
        ratio = f"{aps / peer:.2f}x" if peer else "n/a"
        print(f"{name:<48} {gps:>10.1f} {aps:>12.0f} {n:>7}  {ratio}")


# ----- the two sides: what each passes to the shared loops -----------------------------------
def meeple_new(game: str, players: int, options: dict) -> Callable[[int], Any]:
    return lambda seed: meeple.make(game, players=players, seed=seed, **options)


def meeple_args(state: Any) -> tuple[Callable[..., Any], ...]:
    return state.is_over, never, state.legal_actions, state.apply


def hearts_new() -> Callable[[int], Any] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    return lambda seed: game.new_initial_state()


def hearts_args(state: Any) -> tuple[Callable[..., Any], ...]:
    return state.is_terminal, state.is_chance_node, state.legal_actions, state.apply_action


def player(new: Callable[[int], Any], args: Callable[[Any], tuple]) -> Callable[[int], int]:
    """``play_one(seed)``: a new game driven to the end by `drive`, from a seeded RNG."""

    def play_one(seed: int) -> int:
        state = new(seed)
        return drive(*args(state), random.Random(seed).choice)

    return play_one


def meeple_player(game: str, players: int, options: dict) -> Callable[[int], int]:
    return player(meeple_new(game, players, options), meeple_args)


def hearts_player() -> Callable[[int], int] | None:
    new = hearts_new()
    return None if new is None else player(new, hearts_args)


def mid_game(new: Callable[[int], Any], args: Callable[[Any], tuple], seed: int) -> Any:
    """A state ``MID_GAME`` decisions in (or the last one before the end), by the shared loop."""
    state = new(seed)
    terminal, chance, legal, apply = args(state)
    rng = random.Random(seed)
    decisions = 0
    while decisions < MID_GAME:
        action = rng.choice(legal())
        decisions += not chance()
        probe = state.clone()
        apply(action)
        if terminal():
            return probe
    return state


def copier(operation: Callable[[], Any]) -> Callable[[int], int]:
    """``play_one``-shaped: 100 copies by `repeat` a call, so `best_of` can interleave them."""
    return lambda _seed: repeat(operation, 100)


def copy_subjects(game: str | None, players: int | None) -> list[tuple[str, Callable[[int], int]]]:
    out: list[tuple[str, Callable[[int], int]]] = []
    new = hearts_new()
    if new is not None:
        state = mid_game(new, hearts_args, 1)
        out.append((f"{HEARTS} clone", copier(state.clone)))
    for g in meeple.games():
        for n in g["players"]:
            if (game and g["id"] != game) or (players and n != players):
                continue
            state = mid_game(meeple_new(g["id"], n, {}), meeple_args, 1)
            p = state.to_move if state.to_move is not None else 0
            out.append((f"meeple {g['id']} {n}p clone", copier(state.clone)))
            out.append((f"meeple {g['id']} {n}p determinize",
                        copier(partial(state.determinize, p, random.Random(1)))))
    return out


def machine() -> str:
    """The CPU, its cores and the load: ratios to Hearts differ from one CPU to another (the C++
    loop and our compiled Python gain differently from a core), so every run names its machine."""
    import os
    import platform

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info
                          if line.startswith("model name")), model)
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return f"machine: {model}, {os.cpu_count()} cores, load average {load}"


def check() -> None:
    """Print the loops and, for each side, what it passes to them."""
    print(inspect.getsource(drive))
    print(inspect.getsource(repeat))
    print(inspect.getsource(player))
    print(inspect.getsource(copier))
    print("meeple passes:", inspect.getsource(meeple_args).splitlines()[-1].strip(),
          "  # never():", inspect.getsource(never).splitlines()[-1].strip())
    print("Hearts passes:", inspect.getsource(hearts_args).splitlines()[-1].strip())
    print("copies: meeple state.clone and partial(state.determinize, player, rng); Hearts state.clone,"
          f" each on a state {MID_GAME} random decisions in")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", help="only this game")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row, in all")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; best is kept")
    parser.add_argument("--check", action="store_true", help="print the loops each side runs")
    parser.add_argument("--no-copies", action="store_true", help="skip clone()/determinize()")
    args = parser.parse_args()
    if args.check:
        check()
        return

    host = machine()
    subjects: list[tuple[str, Callable[[int], int]]] = []
    hearts = hearts_player()
    if hearts is not None:
        subjects.append((HEARTS, hearts))
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

    from meeple._pure import compiled

    print(host, "(at the start)")
    print("compiled modules (setup.py, MEEPLE_COMPILE=1):", ", ".join(compiled()) or "none, pure Python")
    print_rows(rows, HEARTS if hearts is not None else None, "Hearts", "decisions/s")
    if not args.no_copies:
        print()
        copies = best_of(copy_subjects(args.game, args.players), args.seconds, args.rounds)
        print_rows(copies, f"{HEARTS} clone" if hearts is not None else None, "Hearts clone",
                   "copies/s", "batches/s")
    if hearts is None:
        print("(install the bench extra for the OpenSpiel Hearts peer: pip install -e '.[bench]')")


if __name__ == "__main__":
    main()
