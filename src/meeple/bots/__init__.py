"""Game-independent bots and the level registry.

A bot is anything with ``choose(state) -> int`` that returns a legal action for
``state.to_move``. It must decide only from what that player may know: `state.view`,
`state.log`, or search over `state.determinize`.

Players meet five named levels, weakest first (`LEVELS`): ``random``; ``easy``, the game's
``medium`` bot with a share of random moves; ``medium``, the game's own heuristic; ``hard``, the
default search; ``expert``, a bigger search. Each is a **work budget** (iterations), never a
wall-clock time, so one seed gives one game on any machine at any load; a server may still cut
a move at a time cap as a safety net (`ISMCTSBot.max_seconds`, counted in ``bot.last.capped``).

A game defines its levels with ``BOT_LEVELS`` next to ``GAME`` in its package: a mapping from
``medium``/``hard``/``expert`` to any level string `make_bot` accepts, e.g.
``{"hard": "ismcts:1000", "expert": "ismcts:3000"}`` or ``{"medium": "heuristic"}``. What it
leaves out gets `default_level_specs`. A key beyond the five adds a level of that game only,
listed after them (`extra_levels`); it names one of the game's own bots (``GAME.bots``), e.g.
Trickarus' ``{"learned": "learned"}``, a trained policy. The older names keep working: each game's own bots
(``heuristic``, Scarvus' ``probabilistic``), ``ismcts`` (the game's default search, now without a
clock: ``hard`` in every game whose ``hard`` is a search) and the knob levels ``ismcts:<knob>``
and ``rollout:<knob>`` (`meeple.bots.rollout`: a base bot's best moves played out on shared worlds).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from meeple.core import GameInfo, State


class Bot(Protocol):
    name: str

    def choose(self, state: State) -> int: ...


LEVELS: tuple[str, ...] = ("random", "easy", "medium", "hard", "expert")
"""The named levels a player picks from, weakest first."""

DEFAULT_LEVEL = "hard"
"""What `meeple play` and the lobby seat unless told otherwise."""

EASY_EPSILON = 0.3
"""Share of uniformly random moves that makes ``medium`` into ``easy``."""


class RandomBot:
    """Uniformly random legal actions, from its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        return self.rng.choice(state.legal_actions())


class EpsilonBot:
    """Another bot, except that an ``epsilon`` share of its decisions are uniformly random.

    Why: a level between random and the heuristic that still plays recognisably, and costs no
    more than the heuristic.
    """

    def __init__(self, inner: Bot, seed: int, epsilon: float = EASY_EPSILON, name: str = "easy") -> None:
        self.inner, self.epsilon, self.name = inner, epsilon, name
        self.rng = random.Random(seed ^ 0x5EA5)

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) > 1 and self.rng.random() < self.epsilon:
            return legal[self.rng.randrange(len(legal))]
        return self.inner.choose(state)


# Game-independent levels besides the named ones: name -> factory(info, seed).
GENERIC_LEVELS: dict[str, Callable[[GameInfo, int], Bot]] = {
    "random": lambda info, seed: RandomBot(seed),
}

# Levels that also take a knob, written "level:knob": name -> factory(info, seed, knob).
KNOB_LEVELS: dict[str, Callable[[GameInfo, int, str], Bot]] = {}


def default_level_specs(info: GameInfo) -> dict[str, str]:
    """What ``medium``, ``hard`` and ``expert`` mean for a game that does not say.

    ``medium`` is the game's ``heuristic``; ``hard`` the search at the game's default iteration
    budget; ``expert`` three times that budget.
    """
    from .ismcts import default_iterations

    n = default_iterations(info)
    medium = "heuristic" if "heuristic" in info.bots else "random"
    return {"medium": medium, "hard": f"ismcts:{n}", "expert": f"ismcts:{3 * n}"}


def level_specs(info: GameInfo) -> dict[str, str]:
    """Each named level's definition for ``info``: the game's ``BOT_LEVELS`` over the defaults."""
    from .ismcts import game_package

    specs = default_level_specs(info)
    own = getattr(game_package(info), "BOT_LEVELS", None) or {}
    for name, spec in own.items():
        if name in ("medium", "hard", "expert") and isinstance(spec, str):
            specs[name] = spec
    specs["easy"] = f"easy({specs['medium']}, {EASY_EPSILON:g} random)"
    specs["random"] = "random"
    return {name: specs.get(name, name) for name in levels(info)}


def extra_levels(info: GameInfo) -> list[str]:
    """The levels a game adds after the five: its ``BOT_LEVELS`` keys beyond them that name one
    of its own bots (Trickarus' ``learned``)."""
    from .ismcts import game_package

    own = getattr(game_package(info), "BOT_LEVELS", None) or {}
    return [name for name, spec in own.items() if name not in LEVELS and spec == name and name in info.bots]


def levels(info: GameInfo) -> list[str]:
    """The named levels of a game, the five weakest first, then the game's own extra levels:
    what the lobby and the terminal offer."""
    return [*LEVELS, *extra_levels(info)]


def aliases(info: GameInfo) -> list[str]:
    """The older level names that still work: the game's own bots and ``ismcts``."""
    named = levels(info)
    return [*(b for b in info.bots if b not in named), "ismcts"]


def make_bot(level: str, info: GameInfo, seed: int = 0) -> Bot:
    """A bot of ``level`` for the game ``info``. Raises `ValueError` naming the levels.

    A level with a knob is written ``level:knob`` (e.g. ``ismcts:2000``, ``ismcts:0.5s``).
    """
    bot: Bot
    if level in ("medium", "hard", "expert"):
        spec = level_specs(info)[level]
        if spec in ("medium", "hard", "expert", "ismcts", "easy"):
            raise ValueError(f"{info.id}: level {level!r} is defined as another named level")
        bot = make_bot(spec, info, seed)
        _rename(bot, level)
        return bot
    if level == "easy":
        return EpsilonBot(make_bot("medium", info, seed), seed)
    if level in info.bots:
        return info.bots[level](seed)
    if level in GENERIC_LEVELS:
        return GENERIC_LEVELS[level](info, seed)
    if level == "ismcts":  # the game's default search at its default budget, no clock
        return KNOB_LEVELS["ismcts"](info, seed, "")
    base, sep, knob = level.partition(":")
    if sep and base in KNOB_LEVELS:
        return KNOB_LEVELS[base](info, seed, knob)
    raise ValueError(
        f"no bot level {level!r} for {info.id}; levels: {', '.join(levels(info))} "
        f"(also {', '.join(aliases(info))}, ismcts:<knob>)"
    )


def _rename(bot: Bot, name: str) -> None:
    try:
        bot.name = name
    except AttributeError:  # a bot with slots or a read-only name keeps its own
        pass


def _register_search_levels() -> None:
    from .ismcts import make_ismcts
    from .rollout import make_rollout

    KNOB_LEVELS["ismcts"] = make_ismcts
    KNOB_LEVELS["rollout"] = make_rollout


_register_search_levels()
