"""What a game may tell meeple's game-independent parts beyond its rules: typed fields of `GameInfo`.

The search bots, post-game analysis, the level table and the interop adapters work for any game,
and a game may tune them with hooks. Each hook is a field of one of the frozen dataclasses here,
given to `GameInfo` (``search=SearchHooks(...)``, ``analysis=AnalysisHooks(...)``,
``levels={...}``, ``tensors="<module>"``), so a misspelt hook is an unexpected keyword argument
and a hook of the wrong type is refused when the game is made (`check_info`). The registry
(`meeple.games`) also refuses a game package that still defines a hook the old way, as an
upper-case module attribute (`check_package`). docs/api.md, "Adding a game", lists them all.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import GameInfo

GameState = Any
"""What a hook takes for a state: its game's own `State` subclass (a hook of Zarcana's reads a
``ZarcanaState``), which a ``Callable[[State], ...]`` field would refuse to a type checker."""

ROLLOUTS = ("game", "random", "heuristic", "greedy")
"""How `meeple.bots.ismcts` plays its playouts out (`SearchHooks.rollout`, knob ``ismcts:<N>:<rollout>``)."""

OWN_LEVELS = ("medium", "hard", "expert")
"""The named levels a game may define in `GameInfo.levels` (``random`` and ``easy`` are meeple's)."""

FIXED_LEVELS = ("random", "easy")


class HookError(TypeError):
    """A game gives a hook meeple does not know, or one of the wrong type."""


@dataclass(frozen=True)
class SearchHooks:
    """Hooks of the search bots (`meeple.bots.ismcts`, `meeple.bots.rollout`) and the analysis.

    Every field is optional; the default is what the bots do without it.
    """

    #: ``(state, rng) -> action``: ISMCTS playouts (rollout ``game``); default uniform random.
    rollout_policy: Callable[[GameState, random.Random], int] | None = None
    #: ``(state, rng) -> action``: the playouts of knob ``greedy``; default `rollout_policy`.
    greedy_policy: Callable[[GameState, random.Random], int] | None = None
    #: One of `ROLLOUTS`: the playouts of level ``ismcts`` without a rollout knob.
    rollout: str = "game"
    #: Playouts cut after this many actions, then judged by `evaluate` (else the running
    #: scores); default None: play to the end.
    depth: int | None = None
    #: ``state -> [value in [-1, 1] per player]``: judges a cut playout; default the running scores.
    evaluate: Callable[[GameState], list[float]] | None = None
    #: ``state -> non-empty subset of the legal actions``: the moves the ISMCTS tree (and the
    #: rollout bot's and analysis' candidates) consider; default every legal action.
    candidates: Callable[[GameState], list[int]] | None = None
    #: Weight of the root bias toward `prior_bot`'s move (``weight / (visits + 1)``); 0: none.
    prior: float = 0.0
    #: Which of the game's own bots (`GameInfo.bots`) the root bias follows.
    prior_bot: str = "heuristic"
    #: Iterations of level ``ismcts`` (and of the default ``hard``/``expert``); default None:
    #: `meeple.bots.ismcts.DEFAULT_ITERATIONS`.
    iterations: int | None = None
    #: ``state -> key``: a playout stops as soon as the key changes (e.g. the round ends): the
    #: rollout bot, ISMCTS knob ``h`` and a cut analysis; default None: no horizon.
    horizon: Callable[[GameState], object] | None = None
    #: ``(state, mover) -> value``: the rollout bot's judgement where a playout stopped (larger is
    #: better); default `meeple.bots.ismcts.leaf_returns` (with `evaluate`).
    value: Callable[[GameState, int], float] | None = None
    #: ``(state, mover, rng) -> world``: the rollout bot's worlds, sampled from what the mover
    #: knows; default ``state.determinize(mover, rng)``.
    world: Callable[[GameState, int, random.Random], GameState] | None = None

    def __post_init__(self) -> None:
        _check_fields(self, "SearchHooks")
        if self.rollout not in ROLLOUTS:
            raise HookError(f"SearchHooks.rollout must be one of {ROLLOUTS}, not {self.rollout!r}")
        for name in ("depth", "iterations"):
            n = getattr(self, name)
            if n is not None and n <= 0:
                raise HookError(f"SearchHooks.{name} must be a positive int or None, not {n!r}")
        if self.prior < 0:
            raise HookError(f"SearchHooks.prior must not be negative, not {self.prior!r}")


def soft_place(values: Sequence[float], me: int, spread: float) -> float:
    """An expected final place (1 = first) from each player's position value: 1 plus, for every
    other player, the chance that they finish ahead, read as a normal difference of values whose
    standard deviation is ``spread`` (what the rest of the game may still change). Ties of value
    count half. A game's `AnalysisHooks.place` may build on it, with a spread measured on its own
    games, so that a position far behind is near last and a close one near the middle, not each
    saturated by a fixed scale."""
    import math

    if spread <= 0:
        raise ValueError(f"spread must be positive, not {spread!r}")
    mine = values[me]
    return 1.0 + sum(
        0.5 * math.erfc((mine - v) / (spread * math.sqrt(2.0)))
        for q, v in enumerate(values) if q != me
    )


@dataclass(frozen=True)
class AnalysisHooks:
    """Hooks of post-game analysis (`meeple.bots.analysis`)."""

    #: The level whose bots play the analysis' rollouts; default None: ``hard``, or ``medium``
    #: where ``hard`` is a search.
    policy: str | None = None
    #: Stop each playout at `SearchHooks.horizon` and judge it by `SearchHooks.value` (both
    #: needed); default False: play to the end.
    cut: bool = False
    #: ``(state, player) -> expected final place`` (1 = first) that judges a cut playout; default
    #: `SearchHooks.value`, else `SearchHooks.evaluate`, mapped onto places.
    place: Callable[[GameState, int], float] | None = None
    #: ``(state, player) -> expected final score`` where a cut playout stopped, in the game's
    #: points; default None: a cut playout has no score, and points are compared only where
    #: every playout of a decision reached the end.
    score: Callable[[GameState, int], float] | None = None
    #: Multiplies the depth's worlds, for a game whose cut playouts are cheap and whose outcomes
    #: are noisy; default 1.
    worlds: int = 1

    def __post_init__(self) -> None:
        _check_fields(self, "AnalysisHooks")
        if self.worlds < 1:
            raise HookError(f"AnalysisHooks.worlds must be a positive int, not {self.worlds!r}")


@dataclass(frozen=True)
class TensorHooks:
    """A game's own tensors for the interop adapters (`meeple.interop`; docs/interop.md).

    The game's `GameInfo.tensors` names the module that defines ``TENSORS = TensorHooks(...)``;
    it is imported only when an adapter asks (`meeple.interop.tensor.tensor_hooks`), so playing
    a game never needs numpy. Each pair is given together or not at all.
    """

    #: ``(players, options) -> shape`` and ``(state, player or None) -> flat floats``: the
    #: observation tensor; default the generic encoding of the JSON view.
    observation_tensor_shape: Callable[[int, dict[str, Any]], tuple[int, ...]] | None = None
    observation_tensor: Callable[[GameState, int | None], Sequence[float]] | None = None
    #: The same for OpenSpiel's perfect-recall information-state tensor; default
    #: `meeple.interop.recall`'s generic one.
    information_state_tensor_shape: Callable[[int, dict[str, Any]], tuple[int, ...]] | None = None
    information_state_tensor: Callable[[GameState, int | None], Sequence[float]] | None = None
    #: ``(players, options) -> [event, ...]``: every kind of event the log can hold, for the
    #: generic information-state layout; default: what sampled games show.
    information_state_examples: Callable[[int, dict[str, Any]], list[dict[str, Any]]] | None = None
    #: ``(players, options) -> bool``: every decision is logged to everyone with its player and
    #: action, so the layout needs no own-actions block; default False.
    actions_logged: Callable[[int, dict[str, Any]], bool] | None = None
    #: ``(players, options) -> {event kind: room}``: room the rules fix for a kind; default: learnt.
    information_state_room: Callable[[int, dict[str, Any]], dict[str, int]] | None = None
    #: ``(players, options) -> int``: OpenSpiel's bound on player actions; default
    #: `meeple.interop.openspiel.MAX_GAME_LENGTH`.
    max_game_length: Callable[[int, dict[str, Any]], int] | None = None

    def __post_init__(self) -> None:
        _check_fields(self, "TensorHooks")
        for a, b in (
            ("observation_tensor_shape", "observation_tensor"),
            ("information_state_tensor_shape", "information_state_tensor"),
        ):
            if (getattr(self, a) is None) != (getattr(self, b) is None):
                raise HookError(
                    f"TensorHooks.{a} and TensorHooks.{b} go together: give both or neither"
                )


# Each field's check: what a value must be besides None. Annotations are strings here
# (``from __future__ import annotations``), so the cheap checks are spelled out.
_CALLABLE, _INT, _NUMBER, _STR, _BOOL = "a callable", "an int", "a number", "a str", "a bool"
_KINDS: dict[str, str] = {
    "rollout_policy": _CALLABLE, "greedy_policy": _CALLABLE, "rollout": _STR, "depth": _INT,
    "evaluate": _CALLABLE, "candidates": _CALLABLE, "prior": _NUMBER, "prior_bot": _STR,
    "iterations": _INT, "horizon": _CALLABLE, "value": _CALLABLE, "world": _CALLABLE,
    "policy": _STR, "cut": _BOOL, "place": _CALLABLE, "score": _CALLABLE,
    "worlds": _INT,
}  # fmt: skip


def _fits(value: object, kind: str) -> bool:
    if kind == _CALLABLE:
        return callable(value)
    if kind == _BOOL:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == _INT:
        return isinstance(value, int)
    if kind == _NUMBER:
        return isinstance(value, int | float)
    return isinstance(value, str)


def _check_fields(hooks: object, owner: str) -> None:
    for f in fields(hooks):  # type: ignore[arg-type]
        value = getattr(hooks, f.name)
        kind = _KINDS.get(f.name, _CALLABLE)
        if value is not None and not _fits(value, kind):
            raise HookError(f"{owner}.{f.name} must be {kind} or None, not {value!r}")


NO_TENSORS = TensorHooks()
"""The tensor hooks of a game that gives none."""


def check_info(info: GameInfo) -> None:
    """Refuse a `GameInfo` whose hooks are of the wrong type or do not fit together."""
    where = f"game {info.id!r}"
    for name, cls in (("search", SearchHooks), ("analysis", AnalysisHooks)):
        value = getattr(info, name)
        if not isinstance(value, cls):
            raise HookError(f"{where}: GameInfo.{name} must be a {cls.__name__}, not {value!r}")
    if info.tensors is not None and not (isinstance(info.tensors, str) and info.tensors):
        raise HookError(
            f"{where}: GameInfo.tensors must name a module (a dotted str), not {info.tensors!r}"
        )
    judge = info.analysis.place or info.search.value or info.search.evaluate
    if info.analysis.cut and (info.search.horizon is None or judge is None):
        raise HookError(
            f"{where}: AnalysisHooks(cut=True) needs SearchHooks.horizon and one of"
            " AnalysisHooks.place, SearchHooks.value or SearchHooks.evaluate"
        )
    prior_bot = info.search.prior_bot
    if prior_bot != "heuristic" and prior_bot not in info.bots:
        raise HookError(
            f"{where}: SearchHooks.prior_bot {prior_bot!r} is none of the game's bots {sorted(info.bots)}"
        )
    _check_levels(info, where)


def _check_levels(info: GameInfo, where: str) -> None:
    if not isinstance(info.levels, Mapping):
        raise HookError(f"{where}: GameInfo.levels must be a dict, not {info.levels!r}")
    for name, spec in info.levels.items():
        if name in FIXED_LEVELS:
            raise HookError(
                f"{where}: level {name!r} is meeple's own; a game defines {', '.join(OWN_LEVELS)}"
            )
        if name not in OWN_LEVELS:  # a level of this game only: it names one of its own bots
            if spec != name or name not in info.bots:
                raise HookError(
                    f"{where}: levels[{name!r}]: a level beyond {', '.join(OWN_LEVELS)} names one "
                    f"of the game's own bots as itself ({name!r}: {name!r}, with {name!r} in "
                    f"GameInfo.bots), not {spec!r}"
                )
        elif isinstance(spec, Mapping):
            for players, by_count in spec.items():
                if players not in info.player_counts or not isinstance(by_count, str):
                    raise HookError(
                        f"{where}: levels[{name!r}] maps player counts of the game "
                        f"{list(info.player_counts)} to level strings, not {players!r}: {by_count!r}"
                    )
        elif not isinstance(spec, str):
            raise HookError(
                f"{where}: levels[{name!r}] must be a level string or a dict of them by player count, not {spec!r}"
            )


# A game package's upper-case attributes that were hooks once, and the field that took each over.
RETIRED: dict[str, str] = {
    "ROLLOUT_POLICY": "search=SearchHooks(rollout_policy=...)",
    "GREEDY_ROLLOUT_POLICY": "search=SearchHooks(greedy_policy=...)",
    "ISMCTS_ROLLOUT": "search=SearchHooks(rollout=...)",
    "ISMCTS_ROLLOUT_DEPTH": "search=SearchHooks(depth=...)",
    "ISMCTS_EVAL": "search=SearchHooks(evaluate=...)",
    "ISMCTS_CANDIDATES": "search=SearchHooks(candidates=...)",
    "ISMCTS_PRIOR": "search=SearchHooks(prior=...)",
    "ISMCTS_PRIOR_BOT": "search=SearchHooks(prior_bot=...)",
    "ISMCTS_ITERATIONS": "search=SearchHooks(iterations=...)",
    "ROLLOUT_HORIZON": "search=SearchHooks(horizon=...)",
    "ROLLOUT_VALUE": "search=SearchHooks(value=...)",
    "ROLLOUT_WORLD": "search=SearchHooks(world=...)",
    "ANALYSIS_POLICY": "analysis=AnalysisHooks(policy=...)",
    "ANALYSIS_CUT": "analysis=AnalysisHooks(cut=...)",
    "ANALYSIS_PLACE": "analysis=AnalysisHooks(place=...)",
    "ANALYSIS_WORLDS": "analysis=AnalysisHooks(worlds=...)",
    "BOT_LEVELS": "levels={...}",
    **{
        f.name: "tensors='<module defining TENSORS = TensorHooks(...)>'"
        for f in fields(TensorHooks)
    },
}
# An upper-case name with one of these prefixes in a game package looks like a hook: refused,
# so that a misspelt one cannot sit there unread.
HOOK_PREFIXES = ("ISMCTS_", "ROLLOUT_", "GREEDY_", "ANALYSIS_", "BOT_", "TENSOR_", "SEARCH_")


def check_package(module: ModuleType, info: GameInfo) -> None:
    """Refuse a game package that defines a hook as a module attribute instead of a field."""
    for name in vars(module):
        if name in RETIRED:
            raise HookError(
                f"{module.__name__} defines {name}, a hook meeple no longer looks up: "
                f"give it to GameInfo as {RETIRED[name]} (docs/api.md, 'Adding a game')"
            )
        if name.startswith(HOOK_PREFIXES):
            raise HookError(
                f"{module.__name__} defines {name}, which is no hook: a game's hooks are the "
                "GameInfo fields search, analysis, levels and tensors (docs/api.md, 'Adding a game')"
            )
    if info.tensors is not None and not _module_exists(info.tensors):
        raise HookError(
            f"game {info.id!r}: GameInfo.tensors names {info.tensors!r}, which is no module"
        )


def _module_exists(name: str) -> bool:
    """Whether ``name`` can be imported, without importing it (its parents are imported)."""
    if name in sys.modules:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def load_tensors(name: str) -> TensorHooks:
    """``TENSORS`` of the module ``name`` (what a `GameInfo.tensors` names; imported now). A
    function of that module named like a hook but left out of ``TENSORS`` is refused, so that it
    cannot sit there unused."""
    module = importlib.import_module(name)
    hooks = vars(module).get("TENSORS")
    if not isinstance(hooks, TensorHooks):
        raise HookError(f"{name} must define TENSORS = TensorHooks(...), not {hooks!r}")
    for f in fields(TensorHooks):
        if callable(vars(module).get(f.name)) and getattr(hooks, f.name) is None:
            raise HookError(f"{name} defines {f.name} but TENSORS does not give it")
    return hooks


HOOK_FIELDS = ("search", "analysis", "levels", "tensors")


@contextmanager
def swapped(info: GameInfo, **hooks: Any) -> Iterator[GameInfo]:
    """A registered game with some hook fields changed until the block ends, checked as at
    registration: for tests, and for a benchmark screening a hook that is not yet the game's."""
    unknown = set(hooks) - set(HOOK_FIELDS)
    if unknown:
        raise HookError(
            f"no hook field {', '.join(sorted(unknown))}; they are {', '.join(HOOK_FIELDS)}"
        )
    before = {name: getattr(info, name) for name in hooks}
    try:
        for name, value in hooks.items():
            object.__setattr__(info, name, value)  # a frozen dataclass: as its own __init__ does
        check_info(info)
        yield info
    finally:
        for name, value in before.items():
            object.__setattr__(info, name, value)
