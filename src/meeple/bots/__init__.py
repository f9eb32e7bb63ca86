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


def levels(info: GameInfo) -> list[str]:
    """The bot levels available for a game, weakest first by convention."""
    return ["random", *info.bots, *(k for k in GENERIC_LEVELS if k != "random")]


def make_bot(level: str, info: GameInfo, seed: int = 0) -> Bot:
    """A bot of ``level`` for the game ``info``. Raises `ValueError` naming the levels."""
    if level in info.bots:
        return info.bots[level](seed)
    if level in GENERIC_LEVELS:
        return GENERIC_LEVELS[level](info, seed)
    raise ValueError(f"no bot level {level!r} for {info.id}; levels: {', '.join(levels(info))}")
