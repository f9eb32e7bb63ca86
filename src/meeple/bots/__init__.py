"""Game-independent bots and the level registry.

A bot is anything with ``choose(state) -> int`` that returns a legal action for
``state.to_move``. It must decide only from what that player may know: `state.view`,
`state.log`, or search over `state.determinize`.

Players meet five named levels, weakest first (`LEVELS`): ``random``; ``easy``, the game's
``medium`` bot with a share of random moves; ``medium``, the game's own heuristic; ``hard``, the
default search (or a better heuristic); ``expert``, a bigger search (or, where no search beat
``hard``, a better heuristic still: Scarvus at 4-7 players). Each is a **work budget**
(iterations), never a wall-clock time, so one seed gives one game on any machine at any load;
a server may still cut a move at a time cap as a safety net (`ISMCTSBot.max_seconds`, counted
in ``bot.last.capped``).

A game defines its levels with ``GameInfo.levels`` (`meeple.core.hooks`): a mapping from
``medium``/``hard``/``expert`` to any level string `make_bot` accepts, e.g.
``{"hard": "ismcts:1000", "expert": "ismcts:3000"}`` or ``{"medium": "heuristic"}``. A value may
also be a mapping from player count to such a string, where what beats its neighbours differs by
count (`PlayerCountBot`). What it leaves out gets `default_level_specs`. A key beyond the five adds a level of that game only,
listed after them (`extra_levels`); it names one of the game's own bots (``GAME.bots``), e.g.
Trickarus' ``{"learned": "learned"}``, a trained policy. The older names keep working: each game's own bots
(``heuristic``, Scarvus' ``probabilistic``), ``ismcts`` (the game's default search, now without a
clock: ``hard`` in every game whose ``hard`` is a search) and the knob levels ``ismcts:<knob>``
and ``rollout:<knob>`` (`meeple.bots.rollout`: a base bot's best moves played out on shared worlds).

Outside agents sit next to the levels: ``py:MODULE:NAME``, ``pz:MODULE:NAME`` and
``learned:PATH`` (`meeple.bots.agents`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Protocol

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


class PlayerCountBot:
    """A named level whose definition depends on the table's player count.

    Why: a search budget that beats its neighbours at 2 players may not at 5 (Trickarus), so a
    game's ``levels`` may map counts to level strings. The bot for a count is made on the
    first decision at that count, with this bot's seed, so a seed still gives one game.
    """

    def __init__(self, name: str, info: GameInfo, seed: int, by_players: Mapping[int, str]) -> None:
        self.name, self.info, self.seed = name, info, seed
        self.by_players = dict(by_players)
        self._bots: dict[int, Bot] = {}
        self._current: Bot | None = None
        self._max_seconds: float | None = None

    def bot_for(self, players: int) -> Bot:
        """The bot this level plays at ``players``; `ValueError` for a count the game lacks."""
        if players not in self._bots:
            if players not in self.by_players:
                raise ValueError(f"{self.info.id}: level {self.name!r} names no bot for {players} players")
            bot = make_bot(self.by_players[players], self.info, self.seed)
            if self._max_seconds is not None and hasattr(bot, "max_seconds"):
                bot.max_seconds = self._max_seconds
            self._bots[players] = bot
        return self._bots[players]

    def choose(self, state: State) -> int:
        self._current = self.bot_for(state.players)
        return self._current.choose(state)

    # The arena and the server read a search's ``last`` and set its ``max_seconds`` cap.
    @property
    def last(self) -> Any:
        return getattr(self._current, "last", None)

    @property
    def max_seconds(self) -> float | None:
        return self._max_seconds

    @max_seconds.setter
    def max_seconds(self, value: float | None) -> None:
        self._max_seconds = value
        for bot in self._bots.values():
            if hasattr(bot, "max_seconds"):
                bot.max_seconds = value


def _describe(spec: str | Mapping[int, str]) -> str:
    """A level's definition as one line: a per-count mapping as ``2-3p: a; 4-5p: b``."""
    if isinstance(spec, str):
        return spec
    runs: list[tuple[int, int, str]] = []
    for n in sorted(spec):
        if runs and runs[-1][2] == spec[n] and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n, spec[n])
        else:
            runs.append((n, n, spec[n]))
    return "; ".join(f"{a}p: {s}" if a == b else f"{a}-{b}p: {s}" for a, b, s in runs)


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


def _own_specs(info: GameInfo) -> dict[str, str | Mapping[int, str]]:
    """The game's ``levels`` entries for ``medium``/``hard``/``expert``, as written."""
    return {name: spec for name, spec in info.levels.items() if name in ("medium", "hard", "expert")}


def level_specs(info: GameInfo, players: int | None = None) -> dict[str, str]:
    """Each named level's definition for ``info``: the game's ``levels`` over the defaults.

    A level defined per player count gives its string at ``players``, or, without ``players``,
    one line naming every count (``2-3p: ismcts:200; 4-5p: ismcts:1000``).
    """
    specs = default_level_specs(info)
    for name, spec in _own_specs(info).items():
        if isinstance(spec, str):
            specs[name] = spec
        elif players is not None and players in spec:
            specs[name] = spec[players]
        else:
            specs[name] = _describe(spec)
    specs["easy"] = f"easy({specs['medium']}, {EASY_EPSILON:g} random)"
    specs["random"] = "random"
    return {name: specs.get(name, name) for name in levels(info)}


def extra_levels(info: GameInfo) -> list[str]:
    """The levels a game adds after the five: its ``levels`` keys beyond them, each naming one of
    its own bots (Trickarus' ``learned``; registration refuses any other extra key)."""
    return [name for name in info.levels if name not in LEVELS]


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
        own = _own_specs(info).get(level)
        if own is not None and not isinstance(own, str):
            return PlayerCountBot(level, info, seed, own)
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
    from .agents import AGENT_KINDS, make_agent

    if sep and base in AGENT_KINDS:
        return make_agent(level, info, seed)
    raise ValueError(
        f"no bot level {level!r} for {info.id}; levels: {', '.join(levels(info))} "
        f"(also {', '.join(aliases(info))}, ismcts:<knob>; your own agent: py:MODULE:NAME, "
        "pz:MODULE:NAME or learned:PATH)"
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
