"""Every meeple game as an OpenSpiel game (``pyspiel``), registered on import.

>>> import pyspiel
>>> import meeple.interop.openspiel  # registers meeple_<game> for every game
>>> game = pyspiel.load_game("meeple_trickarus", {"players": 4})

One name per game, ``meeple_<id>``; the player count (``players``) and the game's options are
game parameters. Options whose choices are not a single OpenSpiel type are mapped: ``None``
beside ints is ``-1`` (e.g. ``meeple_trickarus(track=-1)`` is the default track), ``None``
beside strings is ``"none"``; see `param_spec`.

**Chance.** A meeple game draws all its randomness from one seed (`meeple.core.rng`). Here the
game opens with `SEED_BYTES` explicit chance nodes, each drawing one byte of a 32-bit seed
uniformly (256 outcomes); the meeple game starts once the seed is complete, and every later
shuffle or draw is a function of that seed. So the game is ``EXPLICIT_STOCHASTIC`` and a state
is a function of its history: serialization by history works, games pickle, and algorithms that
sample or enumerate chance see the seed as what it is, a uniform hidden draw (the deck order,
dealt in advance). Information states never contain the seed. See docs/interop.md for why this
was preferred to a sampled-stochastic game.

**Information.** Observation strings are the player's `view` as canonical JSON. Information
state strings (perfect recall) are a digest of the player's event `log`, their own actions and
their view, kept incrementally (each event is serialised once, each position's string built
once); `information_state` gives the same record readable. Tensors come from
`meeple.interop.tensor` and `meeple.interop.recall`. `resample_from_infostate` is `State.determinize`: everything the
player cannot know is resampled, future draws included, and the player's log is kept.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable
from typing import Any

import numpy as np
import pyspiel

import meeple
from meeple.core import BadOption, GameInfo, Option, State

from .recall import Layout, Record, event_bytes, layout
from .tensor import Encoding, encoding, tensor_hooks

__all__ = [
    "PREFIX",
    "SEED_BYTES",
    "MeepleBot",
    "from_meeple",
    "game_name",
    "information_state",
    "information_state_digest",
    "ismcts_bot",
    "load",
    "meeple_state",
    "param_spec",
    "register",
    "seed_actions",
]

PREFIX = "meeple_"
SEED_BYTES = 4
MAX_GAME_LENGTH = 20_000  # the contract's bound on a random game, unless the game gives one
_CHANCE = [(b, 1.0 / 256) for b in range(256)]
_TERMINAL = pyspiel.PlayerId.TERMINAL
_CHANCE_PLAYER = pyspiel.PlayerId.CHANCE


def game_name(game_id: str) -> str:
    """The OpenSpiel short name of a meeple game."""
    return PREFIX + game_id


# ----- options as OpenSpiel parameters -----------------------------------------------------
class _Codec:
    """Maps one meeple option to one typed OpenSpiel parameter and back."""

    def __init__(self, option: Option) -> None:
        self.option = option
        choices = option.choices
        nonnull = [c for c in choices if c is not None]
        self.none: Any = _UNSET
        if all(isinstance(c, bool) for c in nonnull):
            kind: type = bool
        elif all(isinstance(c, str) for c in nonnull):
            kind = str
            if None in choices:
                self.none = "none"
        elif all(isinstance(c, int) and not isinstance(c, bool) for c in nonnull):
            kind = int
            if None in choices:
                self.none = -1 if -1 not in nonnull else min(nonnull) - 1
        elif all(isinstance(c, int | float) and not isinstance(c, bool) for c in nonnull):
            kind = float
        else:
            kind = str  # anything else travels as JSON text
            self.none = _JSON
        self.kind = kind
        self.default = self.encode(option.default)

    def encode(self, value: Any) -> Any:
        if self.none is _JSON:
            return json.dumps(value)
        if value is None:
            return self.none
        return self.kind(value)

    def decode(self, value: Any) -> Any:
        if self.none is _JSON:
            return json.loads(value)
        if self.none is not _UNSET and value == self.none:
            return None
        for c in self.option.choices:
            if c is not None and c == value and (self.kind is not bool or isinstance(c, bool)):
                return c
        allowed = ", ".join(repr(self.encode(c)) for c in self.option.choices)
        raise BadOption(f"option {self.option.name}={value!r} is not allowed; allowed: {allowed}")


_UNSET = object()
_JSON = object()


def param_spec(info: GameInfo) -> dict[str, Any]:
    """The OpenSpiel parameter specification (defaults) of a meeple game."""
    spec: dict[str, Any] = {"players": min(info.player_counts)}
    for opt in info.options:
        spec[opt.name] = _Codec(opt).default
    return spec


def _options_from_params(info: GameInfo, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    players = int(params.get("players", min(info.player_counts)))
    options = {}
    for opt in info.options:
        codec = _Codec(opt)
        options[opt.name] = codec.decode(params[opt.name]) if opt.name in params else opt.default
    return players, info.resolve_options(players, options)


def _params_from_options(info: GameInfo, players: int, options: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"players": players}
    for opt in info.options:
        if opt.name in options:
            params[opt.name] = _Codec(opt).encode(options[opt.name])
    return params


# ----- the game ----------------------------------------------------------------------------
def _game_type(info: GameInfo) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=game_name(info.id),
        long_name=f"meeple {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        # Even a game with no hidden cards hides its future draws (the seed), so every game is
        # one of imperfect information from OpenSpiel's point of view.
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,  # returns come from places; ties share
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(info.player_counts),
        min_num_players=min(info.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=param_spec(info),
    )


class MeepleGame(pyspiel.Game):
    """A meeple game as a ``pyspiel.Game``; one subclass per meeple game (see `register`)."""

    info: GameInfo

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        info = self.info
        players, options = _options_from_params(info, dict(params or {}))
        self.players = players
        self.options = options
        length = tensor_hooks(info).max_game_length
        self.max_length = int(length(players, dict(options))) if length else MAX_GAME_LENGTH
        game_info = pyspiel.GameInfo(
            num_distinct_actions=info.num_actions,
            max_chance_outcomes=256,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=self.max_length + SEED_BYTES,
        )
        full = {**param_spec(info), **_params_from_options(info, players, options)}
        super().__init__(_GAME_TYPES[info.id], game_info, full)

    @property
    def recall(self) -> Layout | None:
        """The generic information-state tensor's layout (`meeple.interop.recall`; learnt when
        first asked for), or None for a game with its own ``information_state_tensor``. Its
        room never ends a game: what does not fit is kept as a digest (see its docs)."""
        if tensor_hooks(self.info).information_state_tensor is not None:
            return None
        return layout(self.info.id, self.players, self.options)

    def new_initial_state(self) -> MeepleState:
        return MeepleState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> MeepleObserver:
        return MeepleObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )

    @property
    def encoding(self) -> Encoding:
        return encoding(self.info.id, self.players, self.options)


class _Core:
    """Everything a state holds, behind one attribute so that cloning stays cheap.

    OpenSpiel clones a Python state by deep-copying its ``__dict__``; this object answers that
    with `State.clone` instead of a generic deep copy.

    The rest are caches, so that the adapter adds little to the engine's own work:
    ``legal`` (the move count and the legal actions computed there, handed to `State.apply` so
    it does not compute them again), ``strings`` (information-state strings of this position,
    by player) and ``records`` (per player or spectator: the running digests of their log and
    own actions, and how far into the event log and history they reach; see `_Record`).
    """

    __slots__ = ("seed_bytes", "s", "actors", "legal", "strings", "records", "tensors")

    def __init__(self, seed_bytes: list[int], s: State | None, actors: list[int]) -> None:
        self.seed_bytes = seed_bytes
        self.s = s
        self.actors = actors  # who took each player action, for the information state
        self.legal: tuple[int, list[int]] | None = None
        self.strings: dict[int | None, str] | None = None
        self.records: dict[int | None, _Record] = {}
        self.tensors: dict[int | None, Record] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        new = _Core(
            self.seed_bytes.copy(), None if self.s is None else self.s.clone(), self.actors.copy()
        )
        new.legal = self.legal
        new.strings = self.strings  # never changed in place: replaced when a move is made
        new.records = self.records.copy()  # records are immutable tuples
        new.tensors = {who: rec.share() for who, rec in self.tensors.items()}  # copy on write
        return new

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.seed_bytes, self.s, self.actors)

    def __setstate__(self, st: tuple[Any, ...]) -> None:
        self.seed_bytes, self.s, self.actors = st
        self.legal = self.strings = None
        self.records = {}
        self.tensors = {}


# A player's record so far: (events of the whole log read, events of theirs, their log's
# digest, moves read, own actions, their own actions' digest). Digests chain:
# d' = BLAKE2b-128(d + item), item an event's canonical JSON or an action id as text.
_Record = tuple[int, int, bytes, int, int, bytes]
_EMPTY: _Record = (0, 0, b"", 0, 0, b"")


def _chain(digest: bytes, item: bytes) -> bytes:
    return hashlib.blake2b(digest + item, digest_size=16).digest()


def _record(c: _Core, who: int | None) -> _Record:
    """``who``'s record brought up to date (incrementally: only what is new is read)."""
    s = c.s
    assert s is not None
    events = s._events
    if events is None:
        raise ValueError("this state keeps no log (it is a search copy)")
    pos, n_log, d_log, moves, n_own, d_own = c.records.get(who, _EMPTY)
    if pos < len(events):
        fmt = s._format_event
        for to, raw in events[pos:]:
            if to is None or to == who:
                d_log = _chain(d_log, event_bytes(raw, fmt))
                n_log += 1
        pos = len(events)
    history = s.history
    if moves < len(history) and who is not None:
        for actor, a in zip(c.actors[moves:], history[moves:], strict=True):
            if actor == who:
                d_own = _chain(d_own, b"%d" % a)
                n_own += 1
    rec = (pos, n_log, d_log, len(history), n_own, d_own)
    c.records[who] = rec
    return rec


def _tensor_record(c: _Core, who: int | None, lay: Layout) -> Record:
    """``who``'s tensor record (`meeple.interop.recall.Record`) brought up to date: only the
    events logged and own actions taken since it was last read are placed."""
    s = c.s
    assert s is not None
    rec = c.tensors.get(who)
    if rec is None or rec.layout is not lay:
        rec = c.tensors[who] = Record(lay)
    rec.read_log(s, who)
    history = s.history
    moves = rec.moves_read
    if moves < len(history):
        if who is not None and lay.own_logged:  # the log holds them: only counted
            rec.n_own += c.actors[moves:].count(who)
        elif who is not None:
            rec.read_own(
                [
                    a
                    for actor, a in zip(c.actors[moves:], history[moves:], strict=True)
                    if actor == who
                ]
            )
        rec.moves_read = len(history)
    return rec


def _info_string(c: _Core, who: int | None) -> str:
    """The information-state string of ``who`` (cached for the position)."""
    strings = c.strings
    if strings is None:
        strings = c.strings = {}
    text = strings.get(who)
    if text is None:
        s = c.s
        assert s is not None
        _, n_log, d_log, _, n_own, d_own = _record(c, who)
        view = json.dumps(s.view(who), sort_keys=True, separators=(",", ":")).encode()
        digest = hashlib.blake2b(d_log + d_own + view, digest_size=16).hexdigest()
        name = "spectator" if who is None else f"player {who}"
        text = strings[who] = f"{name}: {n_own} own actions, {n_log} events seen; {digest}"
    return text


def information_state(state: pyspiel.State, player: int | None) -> dict[str, Any]:
    """The information state that `information_state_string` digests, readable: the player's
    event ``log`` (`State.log`), their ``own_actions`` in order and their ``view`` (``player``
    None: the spectator's, with no own actions). Built afresh: for reading, not for search."""
    c: _Core = state._c  # type: ignore[attr-defined]
    s = c.s
    if s is None:
        return {"log": [], "own_actions": [], "view": None}
    own = [a for actor, a in zip(c.actors, s.history, strict=True) if actor == player]
    return {"log": s.log(player, text=False), "own_actions": own, "view": s.view(player)}


def information_state_digest(record: dict[str, Any], player: int | None) -> str:
    """The information-state string of a record from `information_state`, computed from
    scratch (what the adapter keeps incrementally; tests compare the two)."""
    d_log = d_own = b""
    for event in record["log"]:
        d_log = _chain(d_log, json.dumps(event, sort_keys=True, separators=(",", ":")).encode())
    for a in record["own_actions"]:
        d_own = _chain(d_own, b"%d" % a)
    view = json.dumps(record["view"], sort_keys=True, separators=(",", ":")).encode()
    digest = hashlib.blake2b(d_log + d_own + view, digest_size=16).hexdigest()
    name = "spectator" if player is None else f"player {player}"
    return f"{name}: {len(record['own_actions'])} own actions, {len(record['log'])} events seen; {digest}"


class MeepleState(pyspiel.State):
    """A meeple state as a ``pyspiel.State``: `SEED_BYTES` chance nodes, then the game."""

    def __init__(self, game: MeepleGame) -> None:
        super().__init__(game)
        self._c = _Core([], None, [])

    @property
    def meeple(self) -> State | None:
        """The meeple state (None while the seed is being drawn)."""
        return self._c.s

    def current_player(self) -> int:
        s = self._c.s
        if s is None:
            return _CHANCE_PLAYER
        to_move = s.to_move
        return _TERMINAL if to_move is None else to_move

    def _legal_actions(self, player: int) -> list[int]:
        c = self._c
        s = c.s
        if s is None or s.to_move != player:
            return []
        n = len(s.history)
        legal = c.legal
        if legal is None or legal[0] != n:
            legal = c.legal = (n, s.legal_actions())
        return legal[1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(_CHANCE) if self._c.s is None else []

    def _apply_action(self, action: int) -> None:
        c = self._c
        s = c.s
        if s is None:
            c.seed_bytes.append(int(action))
            if len(c.seed_bytes) == SEED_BYTES:
                game: MeepleGame = self.get_game()  # type: ignore[assignment]
                seed = int.from_bytes(bytes(c.seed_bytes), "big")
                c.s = meeple.make(game.info.id, players=game.players, seed=seed, **game.options)
            return
        actor = s.to_move
        legal = c.legal
        # The engine validates; with the legal actions OpenSpiel just asked for, it uses those.
        s.apply(
            action, legal=legal[1] if legal is not None and legal[0] == len(s.history) else None
        )
        c.actors.append(actor)  # type: ignore[arg-type]
        c.strings = None

    def _action_to_string(self, player: int, action: int) -> str:
        """The game's label plus the action id: OpenSpiel needs distinct strings per legal
        action, and a game's labels need not be (two copies of a card read alike)."""
        if player == _CHANCE_PLAYER:
            return f"seed byte {action}"
        s = self._c.s
        return f"{s.describe(action)} [{action}]" if s is not None else str(action)

    def is_terminal(self) -> bool:
        s = self._c.s
        return s is not None and s.to_move is None

    def returns(self) -> list[float]:
        s = self._c.s
        if s is None:
            return [0.0] * self.num_players()
        return [float(r) for r in s.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MeepleState:
        """A state the player cannot tell from this one: `State.determinize`, log kept."""
        rng = random.Random(int(probability_sampler() * 2**53))
        old = self._c
        s = old.s
        if s is None:
            new = self.clone()
            new._c.seed_bytes = [rng.randrange(256) for _ in old.seed_bytes]
            return new
        # The player's own record of the game stays: public events and their private ones, so
        # their record and string carry over; the others' records are rebuilt when asked for.
        text = _info_string(old, player_id)
        rec = _record(old, player_id)
        old.s = None  # clone the rest without cloning the meeple state: it is replaced
        try:
            new = self.clone()
        finally:
            old.s = s
        c = new._c
        c.s = world = s.determinize(player_id, rng, keep_log=True)
        n = world.log_size()
        # The resampled world logs only public events and the player's: every other player's
        # log there is the spectator's, so their records are the public one plus their own
        # actions (the original state keeps all of these up to date across simulations).
        public = _record(old, None)
        c.records = {player_id: (n, *rec[1:]), None: (n, *public[1:])}
        for q in range(world.players):
            if q != player_id:
                mine = _record(old, q)
                c.records[q] = (n, public[1], public[2], *mine[3:])
        c.strings = {player_id: text}
        # Likewise the player's tensor record; the others' are rebuilt from the world's log.
        kept = old.tensors.get(player_id)
        c.tensors = {}
        if kept is not None:
            c.tensors[player_id] = mine_t = _tensor_record(old, player_id, kept.layout).share()
            mine_t.events_read = n
        return new

    # OpenSpiel's own path to a Python game's tensor (C++ ``State::InformationStateTensor``)
    # first learns the tensor's shape by building a new initial state and observing it, then
    # observes this state, copies the tensor out and makes a fresh Python float of every entry.
    # Python callers (rl_environment asks for every player's tensor at every step) take this
    # shorter path instead: same values, same type (a new list of floats), built from the
    # player's previous list by rewriting only the entries that changed (`_Lists`).
    def legal_actions(self, player: int | None = None) -> list[int]:
        """As OpenSpiel's, without the round trip through C++ for a player's moves."""
        s = self._c.s
        if s is None or (player is not None and player < 0):  # chance, pseudo-players: C++'s
            if player is None:
                return pyspiel.State.legal_actions(self)
            return pyspiel.State.legal_actions(self, player)
        to_move = s.to_move
        if player is None:
            player = to_move
        if to_move is None or player != to_move:
            return []
        return list(self._legal_actions(to_move))

    def rewards(self) -> list[float]:
        """Terminal rewards: the returns once the game is over, zeros before."""
        s = self._c.s
        if s is None or s.to_move is not None:
            return [0.0] * self.num_players()
        return [float(r) for r in s.returns()]

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return _lists(self.get_game(), True).get(self, player)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        return _lists(self.get_game(), False).get(self, player)

    def __str__(self) -> str:
        s = self._c.s
        if s is None:
            return f"drawing the seed: {len(self._c.seed_bytes)}/{SEED_BYTES} bytes"
        views = [s.view(p) for p in range(s.players)]
        return f"{s.game_id} seed={s.seed} salt={s.salt} moves={len(s.history)}\n" + json.dumps(
            {"spectator": s.view(None), "players": views}, sort_keys=True
        )


# ----- observations ------------------------------------------------------------------------
class MeepleObserver:
    """Observation (``perfect_recall=False``) or information state (``True``) of a player.

    ``private_info`` NONE gives the spectator's view (public information only); SINGLE_PLAYER
    the player's own view. The information-state tensor is `meeple.interop.recall`'s: the
    observation tensor, the player's own actions in order and their event log, a function of
    the information-state string and different for different strings (a game may export its
    own ``information_state_tensor`` hook instead; see docs/interop.md).
    """

    def __init__(
        self, game: MeepleGame, iig_obs_type: pyspiel.IIGObservationType, params: Any
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("meeple games observe one player or the public, not all players")
        self.game = game
        self.public_only = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.recall = bool(iig_obs_type.perfect_recall)
        self.encoding = game.encoding
        hooks = tensor_hooks(game.info)
        self.hook = hooks.information_state_tensor if self.recall else None
        shape_hook = hooks.information_state_tensor_shape if self.recall else None
        self.layout = None
        if self.hook is not None and shape_hook is not None:
            size = int(np.prod(shape_hook(game.players, dict(game.options))))
            self.tensor = np.zeros(size, np.float32)
            self.dict = {"information_state": self.tensor}
        elif self.recall:
            self.hook = None
            self.layout = lay = layout(game.info.id, game.players, game.options)
            self.tensor = np.zeros(lay.size, np.float32)
            n = self.encoding.size
            self.dict = {
                "observation": self.tensor[:n],
                "own_actions": self.tensor[n : lay.own_offset + lay.own_cap * lay.own_slot],
                "log": self.tensor[lay.own_offset + lay.own_cap * lay.own_slot :],
            }
        else:
            self.hook = None
            self.tensor = np.zeros(self.encoding.size, np.float32)
            self.dict = {"observation": self.tensor}

    def _who(self, player: int) -> int | None:
        return None if self.public_only else player

    def set_from(self, state: MeepleState, player: int) -> None:
        s = state._c.s
        if s is None:
            self.tensor.fill(0.0)
            return
        who = self._who(player)
        if self.hook is not None:
            self.tensor[:] = np.asarray(self.hook(s, who), np.float32).reshape(-1)
            return
        if self.layout is not None:
            rec = _tensor_record(state._c, who, self.layout)
            n = self.encoding.size
            self.tensor[:n] = self.encoding.encode(s, who)
            self.tensor[n:] = rec.arr
            return
        self.tensor[:] = self.encoding.encode(s, who)

    def string_from(self, state: MeepleState, player: int) -> str:
        c = state._c
        s = c.s
        if s is None:
            return "seed"  # nobody sees the seed being drawn
        who = self._who(player)
        if not self.recall:
            return json.dumps(s.view(who), sort_keys=True, separators=(",", ":"))
        return _info_string(c, who)


class _Lists:
    """Tensors as Python lists, for Python callers. A list of N new floats costs N float
    objects; a copy of a list costs N pointers, several times less. So per player the last
    tensor is kept twice (as an array and as a private list), and the next is that list, copied,
    with the entries that differ rewritten (most steps change few entries of a long tensor).
    The private list holds one float object per distinct value (`_interned`), so copying it and
    freeing the copy touch a few objects, not one per entry. The caller gets a new list it may
    keep or change."""

    __slots__ = ("observer", "last", "players", "records", "encode")

    def __init__(self, observer: MeepleObserver, players: int) -> None:
        self.observer = observer
        self.encode = observer.encoding._encode  # the view's tensor (`Encoding.encode`)
        self.players = players
        self.last: dict[int, tuple[np.ndarray, list[float]]] = {}
        # per player, the record part of the last tensor: (its array, the writes to it read so
        # far, `Record.journal`); the same array means the entries to update are exactly the
        # slots of the writes since
        self.records: dict[int, tuple[Any, int]] = {}

    def get(self, state: MeepleState, player: int | None) -> list[float]:
        if player is None:
            player = state.current_player()
        if type(player) is not int:
            player = int(player)
        if not 0 <= player < self.players:
            raise pyspiel.SpielError(f"player {player} is not in [0, {self.players})")
        obs = self.observer
        lay = obs.layout
        c = state._c
        last = self.last.get(player)
        if lay is None or c.s is None or last is None:
            obs.set_from(state, player)
            self.records.pop(player, None)
            return self._update(player, obs.tensor, last)
        # The view part is encoded afresh and compared; the record part is read from its
        # journal (or compared whole when it is another array).
        who = None if obs.public_only else player
        rec = _tensor_record(c, who, lay)
        view = self.encode(c.s, who)
        n = len(view)
        prev, mine = last
        arr = rec.arr
        journal = rec.journal
        seen = self.records.get(player)
        if seen is None or seen[0] is not arr:  # another record: compare it whole
            self.records[player] = (arr, len(journal))
            at = (arr != prev[n:]).nonzero()[0]
            if len(at) * 8 > len(prev):
                return self._update(player, np.concatenate((view, arr)), last)
            new = [at.tolist()] if len(at) else []
        elif seen[1] < len(journal):
            self.records[player] = (arr, len(journal))
            new = journal[seen[1] :]
        else:
            new = []
        keep = _FLOATS.setdefault
        changed = (view != prev[:n]).nonzero()[0]
        if len(changed):
            values = view[changed]
            prev[changed] = values
            for i, v in zip(changed.tolist(), values.tolist(), strict=True):
                mine[i] = keep(v, v)
        if new:  # the record's slots written since (prev's record part mirrors them)
            at = new[0] if len(new) == 1 else [i for w in new for i in w]
            values = arr.take(at)
            prev[n:].put(at, values)
            for i, v in zip(at, values.tolist(), strict=True):
                mine[i + n] = keep(v, v)
        return mine.copy()

    def _update(
        self, player: int, t: np.ndarray, last: tuple[np.ndarray, list[float]] | None
    ) -> list[float]:
        """The list of ``t``, from the player's last one (compared whole)."""
        if last is None:
            self.last[player] = (t.copy(), _interned(t))
            return t.tolist()
        prev, mine = last
        changed = (t != prev).nonzero()[0]
        if len(changed) * 4 > len(t) * 3:  # most of it changed: build afresh
            np.copyto(prev, t)
            mine[:] = _interned(t)
        elif len(changed):
            values = t[changed]
            prev[changed] = values
            keep = _FLOATS.setdefault
            for i, v in zip(changed.tolist(), values.tolist(), strict=True):
                mine[i] = keep(v, v)
        return mine.copy()


# One float object per value that tensors' private lists hold (`_Lists`): copying a list then
# touches few objects (their reference counts), not one per entry. Values are few (0, 1, k / n
# for small n), but a game's positions and scales make more: cleared past a bound.
_FLOATS: dict[float, float] = {}
_FLOATS_MAX = 1 << 16


def _interned(t: np.ndarray) -> list[float]:
    """``t`` as a list of `_FLOATS`' objects."""
    if len(_FLOATS) > _FLOATS_MAX:
        _FLOATS.clear()
    keep = _FLOATS.setdefault
    return [keep(v, v) for v in t.tolist()]


def _lists(game: MeepleGame, recall: bool) -> _Lists:
    """The game's `_Lists` for information-state (``recall``) or observation tensors."""
    found = game.__dict__.get("_lists_recall" if recall else "_lists_obs")
    if found is None:
        observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall))
        found = _Lists(observer, game.players)
        setattr(game, "_lists_recall" if recall else "_lists_obs", found)
    return found


# ----- registration and helpers ------------------------------------------------------------
_GAME_TYPES: dict[str, pyspiel.GameType] = {}
_GAME_CLASSES: dict[str, type[MeepleGame]] = {}


def register(games: Iterable[str] | None = None) -> list[str]:
    """Register meeple games with pyspiel (all by default; idempotent). Returns the names."""
    known = set(pyspiel.registered_names())
    names = []
    for gid in games if games is not None else [g["id"] for g in meeple.games()]:
        info = meeple.game_info(gid)
        name = game_name(gid)
        names.append(name)
        if gid in _GAME_CLASSES or name in known:
            continue
        _GAME_TYPES[gid] = _game_type(info)
        cls_name = f"Meeple{info.id.title().replace('_', '')}Game"
        cls = type(cls_name, (MeepleGame,), {"info": info, "__module__": __name__})
        globals()[cls_name] = cls  # importable by name, so that games pickle
        _GAME_CLASSES[gid] = cls
        pyspiel.register_game(_GAME_TYPES[gid], cls)
    return names


def load(game: str, players: int | None = None, **options: Any) -> pyspiel.Game:
    """The OpenSpiel game of meeple ``game`` with ``players`` and ``options`` (meeple values)."""
    register([game])
    info = meeple.game_info(game)
    n = players if players is not None else min(info.player_counts)
    return pyspiel.load_game(
        game_name(game), _params_from_options(info, n, info.resolve_options(n, options))
    )


def seed_actions(seed: int) -> list[int]:
    """The chance actions that draw ``seed`` (0 <= seed < 2**32)."""
    if not 0 <= seed < 256**SEED_BYTES:
        raise ValueError(f"an OpenSpiel meeple seed is in [0, {256**SEED_BYTES}), not {seed}")
    return list(seed.to_bytes(SEED_BYTES, "big"))


def from_meeple(state: State) -> MeepleState:
    """The OpenSpiel state of a (real, not determinized) meeple state: same seed, same moves."""
    game = load(state.game_id, state.players, **state.options)
    os_state = game.new_initial_state()
    for a in seed_actions(state.seed) + list(state.history):
        os_state.apply_action(a)
    return os_state


def meeple_state(state: pyspiel.State) -> State | None:
    """The meeple state inside an OpenSpiel state of ours (None while the seed is drawn)."""
    return state._c.s  # type: ignore[attr-defined]


class MeepleBot(pyspiel.Bot):
    """A meeple bot (any level of `meeple.bots.make_bot`) as a ``pyspiel.Bot``.

    The bot reads the meeple state, and meeple bots decide only from what their player may know.
    """

    def __init__(self, game: str | pyspiel.Game, level: str, seed: int = 0) -> None:
        """``game``: a meeple game id or an OpenSpiel game of ours (`load`)."""
        from meeple.bots import make_bot

        pyspiel.Bot.__init__(self)
        if isinstance(game, MeepleGame):
            info = game.info
        elif isinstance(game, str):
            info = meeple.game_info(game)
        else:
            raise TypeError(f"MeepleBot takes a meeple game id or a meeple OpenSpiel game, not {game!r}")
        self.bot = make_bot(level, info, seed)

    def step(self, state: pyspiel.State) -> int:
        s = meeple_state(state)
        assert s is not None, "a meeple bot does not play chance nodes"
        return int(self.bot.choose(s))

    def restart_at(self, state: pyspiel.State) -> None:
        return None

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        return None


def ismcts_bot(
    game: pyspiel.Game, simulations: int = 100, uct_c: float = 2.0, seed: int = 0
) -> pyspiel.Bot:
    """OpenSpiel's Python IS-MCTS (random rollouts) on a meeple game, usable by `evaluate_bots`.

    IS-MCTS searches afresh at every move, so restarting and being told of moves are no-ops;
    OpenSpiel's Python bot just does not declare them.
    """
    from open_spiel.python.algorithms import ismcts, mcts

    class _Bot(ismcts.ISMCTSBot):
        def restart_at(self, state: pyspiel.State) -> None:
            return None

        def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
            return None

    rs = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    return _Bot(game, evaluator, uct_c=uct_c, max_simulations=simulations, random_state=rs)


register()
