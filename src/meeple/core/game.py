"""The game contract every meeple game implements.

A game is a `GameInfo` (what it is called, who can play, which options it takes) plus a
`State` subclass (the rules). A state is fully determined by game, player count, options,
seed and the list of actions applied, which is what makes records, replays and search work.

Subclasses implement the small set of abstract methods below; the base class gives validation,
history, records and the event log for free. Hot paths (`legal_actions`, `_apply`) stay in
the subclass, so a game can keep them lean.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from .errors import BadOption, BadPlayerCount, IllegalAction
from .hooks import AnalysisHooks, SearchHooks, check_info
from .text import seat_names

try:  # mypyc's class options, for a compiled build; without mypy installed they do nothing
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - depends on what is installed

    def mypyc_attr(*_args: object, **_kwargs: object) -> Any:  # type: ignore[misc]
        return lambda cls: cls

RECORD_FORMAT = "meeple-record/1"

JSON = Any


# Not hot, and pickled with environments and states: a native (compiled) frozen dataclass
# cannot be unpickled (its __setattr__ refuses the fields), so these two stay Python classes.
@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class Option:
    """One game option: its name, default, the values it allows and a one-line description."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    description: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "default": self.default,
            "choices": list(self.choices),
            "description": self.description,
        }


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class GameInfo:
    """What a game is: id, title, who can play it and with which options.

    ``state_factory(players, seed, options)`` builds the initial state. ``check`` may reject
    combinations (e.g. co-operative mode needs 3+ players) by raising `BadPlayerCount`/`BadOption`.
    ``bots`` maps a level name to a factory ``(seed) -> Bot``; the game-independent levels are
    added by `meeple.bots`.

    The hooks (`meeple.core.hooks`; every one optional, checked here): ``search`` tunes the
    search bots and the analysis, ``analysis`` the analysis' rollouts, ``levels`` maps
    ``medium``/``hard``/``expert`` (or a game's own extra level) to a level string or to a dict of
    them by player count, and ``tensors`` names the module whose ``TENSORS`` gives the interop
    adapters the game's own tensors.
    """

    id: str
    title: str
    description: str
    player_counts: tuple[int, ...]
    options: tuple[Option, ...]
    num_actions: int
    state_factory: Callable[[int, int, dict[str, Any]], State]
    rules_doc: str = ""
    check: Callable[[int, dict[str, Any]], None] | None = None
    bots: dict[str, Callable[[int], Any]] = field(default_factory=dict)
    # players -> the resolved default options (`resolve_options` with none given): a playout
    # loop makes a game per playout, so this is asked thousands of times a second.
    _defaults: dict[int, dict[str, Any]] = field(default_factory=dict, init=False, repr=False, compare=False)
    text_renderer: Callable[[dict[str, Any]], str] | None = None
    hidden_information: bool = True
    search: SearchHooks = SearchHooks()
    analysis: AnalysisHooks = AnalysisHooks()
    levels: dict[str, Any] = field(default_factory=dict)
    tensors: str | None = None

    def __post_init__(self) -> None:
        check_info(self)
        if isinstance(self.state_factory, type):
            self.state_factory.info = self  # type: ignore[attr-defined]  # a state knows its game

    def resolve_options(self, players: int, given: dict[str, Any]) -> dict[str, Any]:
        """Validate ``players`` and ``given`` options; return the full option dict (a new one:
        the state keeps it)."""
        if not given:
            defaults = self._defaults.get(players)
            if defaults is not None:
                return dict(defaults)
        if players not in self.player_counts:
            raise BadPlayerCount(
                f"{self.id} takes {_fmt_counts(self.player_counts)} players, not {players!r}"
            )
        known = {o.name: o for o in self.options}
        for name in given:
            if name not in known:
                raise BadOption(
                    f"{self.id} has no option {name!r}; options are: "
                    + (", ".join(known) or "none")
                )
        resolved: dict[str, Any] = {}
        for opt in self.options:
            value = given.get(opt.name, opt.default)
            if not any(c == value and type(c) is type(value) for c in opt.choices):
                raise BadOption(
                    f"{self.id} option {opt.name}={value!r} is not allowed; "
                    f"allowed: {_fmt_choices(opt.choices)}"
                )
            resolved[opt.name] = value
        if self.check is not None:
            self.check(players, resolved)
        if not given:
            self._defaults[players] = dict(resolved)
        return resolved

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "description": self.description,
            "players": list(self.player_counts),
            "options": [o.to_json() for o in self.options],
            "num_actions": self.num_actions,
            "rules_doc": self.rules_doc,
            "bots": sorted(self.bots),
        }


def _fmt_counts(counts: Sequence[int]) -> str:
    lo, hi = min(counts), max(counts)
    return f"{lo}–{hi}" if list(counts) == list(range(lo, hi + 1)) else ", ".join(map(str, counts))


def _fmt_choices(choices: Sequence[Any]) -> str:
    ints = [c for c in choices if isinstance(c, int) and not isinstance(c, bool)]
    if len(ints) > 6 and ints == list(range(ints[0], ints[-1] + 1)):
        rest = [repr(c) for c in choices if c not in ints]
        return ", ".join(rest + [f"{ints[0]}..{ints[-1]}"])
    return ", ".join(repr(c) for c in choices)


_T = TypeVar("_T")


def replaced(values: list[_T], i: int, value: _T) -> list[_T]:
    """A new list: ``values`` with ``value`` at ``i``. A game changes a list this way, never in
    place, when its `State._copy` shares that list with copies (what play changes rarely or one
    item at a time); `tests/test_copies.py` catches a list changed in place."""
    new = values.copy()
    new[i] = value
    return new


# For a mypyc build: ``serializable`` lets a state be made without `__init__` (`_copy_core`,
# pickle); ``allow_interpreted_subclasses`` lets a game that is not compiled subclass it. A
# compiled game class needs ``@mypyc_attr(allow_interpreted_subclasses=True)`` too: without it,
# mypyc (2.4) never calls the `__init__` of a subclass of a serializable class.
@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class State(ABC):
    """A game in progress. Subclasses implement the rules.

    Attributes every subclass keeps up to date:
      ``to_move``: the player who must decide now, or ``None`` when the game is over.
      ``history``: the actions applied so far (ints).
      ``seed``/``salt``: chance comes from `meeple.core.rng.derive(seed, salt, ...)`. The real game
      has salt 0; `determinize` sets another salt so that future draws are resampled.
    """

    info: ClassVar[GameInfo]

    to_move: int | None

    #: Whether a player may take back steps of a compound turn (`undo_start`). A game that says
    #: so calls `undo_barrier` inside `_apply` wherever a step reveals anything new to anyone
    #: (a draw, a die, a card looked at, the next tile of a stack) and wherever a turn ends; a
    #: change of the player to move always ends the span, so a game marks only what else ends it.
    undo_within_turn: ClassVar[bool] = False
    # history index where the span `undo_start` offers begins; set by `apply`, so a function of
    # the history like everything else (a replay of the same actions gives the same span)
    _undo_floor: int = 0
    _undo_mark: bool = False
    # Set by `clone` on the original and the copy, which then share one event log until either
    # logs again: the first to log takes its own copy (`_own_log`). A clone then copies no event
    # (a mid-game log is dozens). Code that appends to ``_events`` checks it first.
    _log_shared: bool = False
    # The legal actions of the current decision, kept for `is_legal`, which `apply` asks right
    # after a caller's `legal_actions`: a game that keeps them computes them in `_compute_legal`,
    # reads them through `_cached_legal` and sets ``_legal = None`` wherever its state changes.
    _legal: list[int] | None = None

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.salt = 0
        self.options = options
        self.history: list[int] = []
        # Event log: (visible_to, event). visible_to None = public. None disables logging,
        # which search copies do to stay fast.
        # Hot paths log compact tuples (see `emit`), hence ``Any``.
        self._events: list[tuple[int | None, Any]] | None = []

    # ----- what a subclass implements -------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal actions for `to_move`, ascending. Empty when the game is over."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action (already validated) and advance `to_move`."""

    @abstractmethod
    def scores(self) -> list[float]:
        """The game's own score per player (final once `is_over`)."""

    @abstractmethod
    def view(self, player: int | None) -> dict[str, Any]:
        """Everything ``player`` may know, as JSON. ``None`` is the spectator."""

    @abstractmethod
    def _copy(self) -> State:
        """A copy sharing no mutable state with ``self`` (history/log handled by the base)."""

    @abstractmethod
    def _resample_hidden(self, player: int, rng: random.Random) -> None:
        """Resample (in place, on a copy) everything ``player`` cannot know."""

    @abstractmethod
    def action_to_json(self, action: int) -> dict[str, Any]:
        """The JSON form of an action. It depends on the action alone, not on the state."""

    @abstractmethod
    def describe(self, action: int) -> str:
        """A short human label for an action."""

    # ----- provided -------------------------------------------------------------------------
    @property
    def game_id(self) -> str:
        return self.info.id

    def is_over(self) -> bool:
        return self.to_move is None

    # ``action: Any`` on the methods that take input from outside: they check it themselves,
    # and a compiled build (setup.py) would otherwise refuse a non-int with a TypeError first.
    def is_legal(self, action: Any) -> bool:
        """Whether ``action`` is legal now. Games may override with a faster test."""
        return action in self.legal_actions()

    def apply(self, action: Any, legal: Container[int] | None = None) -> None:
        """Apply ``action`` for `to_move`. Raises `IllegalAction` and changes nothing if illegal.

        ``legal`` may be the result of `legal_actions()` on this very state, which the caller
        already has (an environment that built an action mask): validation then uses it instead
        of computing the legal actions again.
        """
        if type(action) is not int:
            raise IllegalAction(f"an action is an int, not {action!r}")
        # `mover`, not `self.to_move`, is what is tested: a type checker (and mypyc, which
        # compiles from the types) would otherwise take `to_move` for an int after `_apply`.
        mover = self.to_move
        if mover is None:
            raise IllegalAction("the game is over")
        if not (action in legal if legal is not None else self.is_legal(action)):
            raise IllegalAction(
                f"action {action} is not legal for player {self.to_move} now; legal: "
                + ", ".join(f"{a} ({self.describe(a)})" for a in self.legal_actions())
            )
        self._undo_mark = False
        self._apply(action)
        self.history.append(action)
        if self._undo_mark or self.to_move != mover:
            self._undo_floor = len(self.history)

    def undo_barrier(self) -> None:
        """Called by a game inside `_apply`: the step being applied can never be taken back
        (it reveals something or ends a turn), nor can anything before it."""
        self._undo_mark = True

    def undo_start(self) -> int | None:
        """How far `to_move` may take their own steps back now: the index in `history` where
        the span that may be undone begins, or None when there is nothing to take back.

        The span holds the steps the player to move took since their turn began (or since the
        last step that revealed anything); replaying ``history[:undo_start()]`` gives the state
        back as it was. A search copy (`determinize`) offers nothing."""
        if not self.undo_within_turn or self.to_move is None or self.salt != 0:
            return None
        floor = self._undo_floor
        return floor if floor < len(self.history) else None

    @property
    def undo_floor(self) -> int:
        """The index in `history` where the current undoable span begins: steps before it are
        final (a reveal, a turn's end). It moves on whenever such a step is applied."""
        return self._undo_floor

    def undone(self, to: int) -> State:
        """A fresh state with this game's first ``to`` actions: the state as it stood before the
        steps from ``to`` on. ``to`` must lie in the span `undo_start` offers."""
        start = self.undo_start()
        if start is None or not start <= to < len(self.history):
            raise IllegalAction(f"move {to} cannot be taken back now"
                                + ("" if start is None else f"; moves from {start} on can"))
        fresh = self.info.state_factory(self.players, self.seed, dict(self.options))
        for a in self.history[:to]:
            fresh.apply(a)
        return fresh

    def apply_json(self, obj: Any) -> int:
        """Apply the action named by JSON ``obj``; return its int."""
        action = self.action_from_json(obj)
        self.apply(action)
        return action

    def action_from_json(self, obj: Any) -> int:
        """The legal action whose JSON form is ``obj``; `IllegalAction` if none."""
        if isinstance(obj, int) and not isinstance(obj, bool):
            if self.is_legal(obj):
                return obj
            raise IllegalAction(f"action {obj} is not legal now")
        for a in self.legal_actions():
            if self.action_to_json(a) == obj:
                return a
        raise IllegalAction(f"{obj!r} names no legal action now")

    def scoring_lines(self, player: int) -> list[tuple[str, float]]:
        """How ``player``'s final score was made, in the game's words: ``(label, points)`` lines
        whose points add up to ``scores()[player]``. Games override it with their rulebook's
        scoring steps; this fallback is one line, the score itself."""
        return [("Score", self.scores()[player])]

    def final_scoring(self) -> list[list[list[Any]]] | None:
        """Every player's `scoring_lines` as JSON (``[[label, points], ...]`` per player) once
        the game is over, None before: what a game's `view` carries as ``final_scoring``, so
        that the end of a game explains its result to every seat alike (a final score is public)."""
        if self.to_move is not None:
            return None
        return [[[label, pts] for label, pts in self.scoring_lines(p)] for p in range(self.players)]

    def ranking(self) -> list[int]:
        """Places per player: 1 is best, ties share a place (higher score is better)."""
        s = self.scores()
        return [1 + sum(1 for other in s if other > mine) for mine in s]

    def returns(self) -> list[float]:
        """Utility per player in [-1, 1] for search and learning: from `ranking`, 0 mid-game."""
        if self.to_move is not None:
            return [0.0] * self.players
        if self.players == 1:
            return [1.0]
        n = self.players
        return [1.0 - 2.0 * (place - 1) / (n - 1) for place in self.ranking()]

    def _copy_core(self) -> Any:
        """A new state of this class (made without `__init__`) holding the core's attributes:
        a game's `_copy` starts from it and assigns its own attributes one by one, in
        `__init__`'s order (a pure class then keeps Python's shared-key instance dict).

        Why written out and not copied by a loop over the attributes (the former `_shallow`): compiled,
        each assignment is a store into the object's struct, where a generated Python function
        pays a descriptor call per attribute. ``history`` and the log are shared here;
        `clone` gives the copy its own history and keeps the log shared until either state logs
        again (``_log_shared``); `determinize` gives it its own of both. `tests/test_copies.py`
        catches an attribute a game's `_copy` leaves out; a subclass that adds attributes extends
        `_copy`."""
        cls = type(self)
        new: State = cls.__new__(cls)
        new.players = self.players
        new.seed = self.seed
        new.salt = self.salt
        new.options = self.options
        new.history = self.history
        new._events = self._events
        return new

    def clone(self) -> State:
        """An independent copy (history and log included; the log is shared until either logs
        again, see `_log_shared`)."""
        new = self._copy()
        new.history = self.history.copy()
        new._events = self._events
        if self._events is not None:
            self._log_shared = new._log_shared = True
        new._undo_mark = self._undo_mark
        new._undo_floor = self._undo_floor
        return new

    def snapshot(self) -> State:
        """A `clone` with a log of its own at once: another thread may read it (its log, view,
        a world sampled from it) while this state goes on."""
        new = self.clone()
        if new._events is not None:
            new._own_log()
        return new

    def determinize(self, player: int, rng: random.Random, keep_log: bool = False) -> State:
        """A copy in which everything ``player`` cannot know is resampled, future draws included.

        ``player``'s view of the copy equals their view of ``self``. The copy keeps no event log
        (search does not need one), or with ``keep_log`` only ``player``'s own log (public events
        and theirs), never the others' private events.
        """
        from .rng import new_salt

        new = self._copy()
        new.history = self.history.copy()
        new._events = (
            [(to, e) for to, e in self._events if to is None or to == player]
            if keep_log and self._events is not None
            else None
        )
        new._undo_mark = self._undo_mark
        new._undo_floor = self._undo_floor
        new.salt = new_salt(rng)
        new._resample_hidden(player, rng)
        return new

    def emit(self, event: dict[str, Any], to: int | None = None) -> None:
        """Log an event: public (``to=None``) or private to player ``to``.

        Hot paths may append ``(to, compact_tuple)`` to `_writable_log` instead and implement
        `_format_event`; `log` then builds the dict only when someone reads it.
        """
        events = self._writable_log()
        if events is not None:
            events.append((to, event))

    def _writable_log(self) -> list[tuple[int | None, Any]] | None:
        """The event log to append ``(to, event)`` to, or None when this state keeps no log (a
        search copy). A log shared with a clone is copied first (``_log_shared``); a hot path
        calls this once and appends compact tuples that `_format_event` makes into dicts."""
        events = self._events
        if events is not None and self._log_shared:
            events = self._own_log()
        return events

    def _compute_legal(self) -> list[int]:
        """The legal actions computed afresh, for a game that keeps them (`_cached_legal`)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no legal-action cache")

    def _cached_legal(self) -> list[int]:
        """The legal actions now, computed at most once per change of the state (see
        ``_legal``). The list is the cache itself: a caller outside the game gets a copy."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _own_log(self) -> list[tuple[int | None, Any]]:
        """The event log, copied first: `clone` left it shared with another state (only called
        when ``_log_shared``, on a state that keeps a log)."""
        events = self._events
        assert events is not None
        own = self._events = events.copy()
        self._log_shared = False
        return own

    def log(self, player: int | None, start: int = 0, text: bool = True,
            names: Sequence[str | None] | None = None) -> list[dict[str, Any]]:
        """The event log as ``player`` saw it (``None``: spectator, public events only).

        ``start`` skips the first ``start`` events of the whole log (see `log_size`), so a caller
        that already has the log up to there formats only what is new. With ``text`` each event
        carries a ``text`` field: its sentence from ``player``'s seat (`_event_text`), which
        browsers, the terminal and replays show as it is. ``names`` are the names on the seats
        (``names[p]`` for seat ``p``): sentences then call others by them ("boardgamer plays"),
        the reader "you"; without them, "Player N". Machines reading events pass ``text=False``.
        """
        if self._events is None:
            raise ValueError("this state keeps no log (it is a search copy)")
        fmt = self._format_event
        events = [
            e if type(e) is dict else fmt(e)
            for to, e in self._events[start:]
            if to is None or to == player
        ]
        if not text:
            return events
        say = self._event_text
        with seat_names(names):
            return [{**e, "text": say(e, player)} for e in events]

    def _event_text(self, event: dict[str, Any], player: int | None) -> str:
        """The sentence for ``event`` as ``player`` (None: a spectator) reads it.

        Built from the event alone (and the game's fixed data), so it can say nothing the event
        does not already show that seat. Games override this; the fallback only spells the
        event's fields out.
        """
        kind = str(event.get("type") or event.get("event") or event.get("kind") or "event")
        rest = ", ".join(f"{k} {v}" for k, v in event.items() if k not in ("type", "event", "kind"))
        return (kind.replace("_", " ").capitalize() + (f": {rest}" if rest else "")).replace("_", " ")

    def log_size(self) -> int:
        """How many events the whole log holds (every player's together)."""
        return 0 if self._events is None else len(self._events)

    def _format_event(self, event: Any) -> dict[str, Any]:
        """Turn a compact event (a tuple a game logged on its hot path) into its JSON form."""
        raise TypeError(f"{type(self).__name__} logged a compact event but cannot format it: {event!r}")

    def record(self, **meta: Any) -> dict[str, Any]:
        """A JSON game record; `meeple.replay` rebuilds this exact state from it."""
        if self.salt != 0:
            raise ValueError("a determinized state has no record")
        return {
            "format": RECORD_FORMAT,
            "game": self.info.id,
            "players": self.players,
            "seed": self.seed,
            "options": dict(self.options),
            "actions": list(self.history),
            "moves": [self.action_to_json(a) for a in self.history],
            "meta": meta,
            "result": {"scores": self.scores(), "ranking": self.ranking()}
            if self.is_over()
            else None,
        }

    def __repr__(self) -> str:
        return (
            f"<{self.info.id} players={self.players} seed={self.seed} "
            f"moves={len(self.history)} to_move={self.to_move}>"
        )
