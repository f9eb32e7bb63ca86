"""Game-independent bots and the level registry.

A bot is anything with ``choose(state) -> int`` that returns a legal action for
``state.to_move``. It must decide only from what that player may know: `state.view`,
`state.log`, or search over `state.determinize`.

Levels have stable names: ``random``, each game's ``heuristic`` (from `GameInfo.bots`) and the
game-independent search levels added here as they land.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from meeple.core import GameInfo, State


class Bot(Protocol):
    name: str

    def choose(self, state: State) -> int: ...


class RandomBot:
    """Uniformly random legal actions, from its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        return self.rng.choice(state.legal_actions())


# Game-independent levels: name -> factory(info, seed). Search levels register here.
GENERIC_LEVELS: dict[str, Callable[[GameInfo, int], Bot]] = {
    "random": lambda info, seed: RandomBot(seed),
}

# Levels that also take a knob, written "level:knob": name -> factory(info, seed, knob).
KNOB_LEVELS: dict[str, Callable[[GameInfo, int, str], Bot]] = {}


def levels(info: GameInfo) -> list[str]:
    """The bot levels available for a game, weakest first by convention."""
    return ["random", *info.bots, *(k for k in GENERIC_LEVELS if k != "random")]


def make_bot(level: str, info: GameInfo, seed: int = 0) -> Bot:
    """A bot of ``level`` for the game ``info``. Raises `ValueError` naming the levels.

    A level with a knob is written ``level:knob`` (e.g. ``ismcts:2000``, ``ismcts:0.5s``).
    """
    if level in info.bots:
        return info.bots[level](seed)
    if level in GENERIC_LEVELS:
        return GENERIC_LEVELS[level](info, seed)
    base, sep, knob = level.partition(":")
    if sep and base in KNOB_LEVELS:
        return KNOB_LEVELS[base](info, seed, knob)
    raise ValueError(f"no bot level {level!r} for {info.id}; levels: {', '.join(levels(info))}")


def _register_search_levels() -> None:
    from .ismcts import make_ismcts

    GENERIC_LEVELS["ismcts"] = lambda info, seed: make_ismcts(info, seed)
    KNOB_LEVELS["ismcts"] = make_ismcts


_register_search_levels()
