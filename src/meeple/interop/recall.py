"""Perfect-recall information-state tensors for every game, derived from its event log.

A player's information state (`meeple.interop.openspiel`) is three things: the event log as the
player saw it (``State.log(player)``: their deals and draws, public plays, reveals...), the actions
they took, and their current view. The tensor here encodes all three, so that two information
states differ exactly when their tensors do:

- **view**: the game's observation tensor (`meeple.interop.tensor`);
- **own actions**: one slot per own decision, in order, up to `Layout.own_cap`: the binary code
  of the action's id + 1 (0: no action yet), ``num_actions.bit_length()`` floats;
- **log**: one block per event *kind* (the event's ``type``, or its set of keys when it has
  none), each with room for `Kind.cap` events in the order they were logged. An event's slot
  holds its position in the player's log + 1 over `Layout.log_cap` (non-zero: the slot is
  used; the order across kinds is kept), then the event (`Node`): each dict key and list
  position has its own place. A place that always held one sort of value (a key every event
  of the kind had, a list item) has no present flag; others have one per sort they held. A
  text or null is the binary code of its index in the place's code book (the texts of its
  *family*, `_families`: places linked by a value they share, so a card place codes every card
  seen anywhere, a ``side`` place just its few sides); a bool one slot; a number its value
  divided by the largest magnitude seen there (not clipped: exact); a list its length over its
  room if lengths varied; a dict that is the JSON form of an action (`State.action_to_json`)
  the binary code of the action id;
- one **overflow** slot and a **digest** block (`DIGEST_BITS` slots): whatever could not be
  placed (an own action past the room, an event past its kind's room, or an event holding a
  kind, key or text never seen at its place while learning the layout, a required key missing,
  or a list longer than its room) is kept as a 64-bit digest (BLAKE2b) of those items with
  their positions, and the flag is set. So the tensor never forgets and never needs the game
  cut short: two different records give different tensors (exactly in the placed part, with
  probability 1 - 2**-64 beyond it). Games are never ended for want of room.

**Incremental.** The part after the view is a `Record` per player (and the spectator): each
event logged and each own action taken is encoded once, when it comes, into its slot (events
are cached by identity, so clones and resampled worlds share the work); a clone shares the
record's array until one side writes (copy on write). Only the view is encoded per call.

The layout (kinds, keys, code books, room) is learnt from `SAMPLE_GAMES` random games with
fixed seeds, so it is the same on every run, plus the game's ``information_state_examples``
hook if it has one; room for a count is the most seen plus twice its square root plus one
(`_room`), a list's room its longest. `python -m meeple.interop.recall <game> --players N`
prints it.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

import meeple
from meeple.core import State

from .tensor import Encoding, encoding, tensor_hooks

SAMPLE_GAMES = 30
SAMPLE_SEED = 20_241_127
MAX_STEPS = 20_000
VIEW_STRIDE = 8  # views sampled for the vocabulary: every 8th step, and every view at the end
EXAMPLE_ROOM = 4  # room for an event kind the game lists as an example but sampling never met
CACHE_MAX = 16_384  # encoded events remembered (by identity) before the cache starts afresh

DIGEST_BITS = 64  # the digest of what did not fit (see `Layout.encode`)

_NULL = ("z",)
_BYTES: dict[int, tuple[Any, bytes]] = {}


def event_bytes(raw: Any, fmt: Any) -> bytes:
    """The canonical JSON (UTF-8) of a logged event (``raw`` as `State._events` holds it, a dict
    or a compact tuple that ``fmt`` formats), cached by identity: logged events are never
    changed, and clones share them, so each is serialised once."""
    hit = _BYTES.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    if len(_BYTES) > CACHE_MAX:
        _BYTES.clear()
    event = raw if type(raw) is dict else fmt(raw)
    data = json.dumps(event, sort_keys=True, separators=(",", ":")).encode()
    _BYTES[id(raw)] = (raw, data)
    return data


def kind_of(event: dict[str, Any]) -> str:
    """An event's kind: its ``type`` if it has one, else its sorted keys."""
    t = event.get("type")
    return t if type(t) is str else ",".join(sorted(event))


def _token(value: Any) -> tuple[Any, ...]:
    """The vocabulary key of a non-numeric scalar (strings, bools and null never collide)."""
    if value is None:
        return _NULL
    if type(value) is bool:
        return ("b", value)
    return ("s", str(value))


def _places(value: Any, path: tuple[str, ...], out: dict[tuple[str, ...], set[Any]]) -> None:
    """Every non-numeric scalar in ``value``, by its place (dict keys and ``[]`` for list
    items, from ``path``): the raw material of the code books (`_families`)."""
    t = type(value)
    if t is dict:
        for k, v in value.items():
            _places(v, (*path, k), out)
    elif t is list or t is tuple:
        for v in value:
            _places(v, (*path, "[]"), out)
    elif t is not int and t is not float:
        out.setdefault(path, set()).add(_token(value))


def _families(places: dict[tuple[str, ...], set[Any]]) -> dict[tuple[str, ...], list[Any]]:
    """Each place's code book: the texts of its *family*, the places linked by a text they
    share (in events, views or action forms; null and bools link nothing). Card names meet in
    hands, plays and tricks, so every place that held a card codes every card seen anywhere;
    a place with its own few values (a side, a reason) codes just those, in fewer bits."""
    parent = {p: p for p in places}

    def find(p: tuple[str, ...]) -> tuple[str, ...]:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    first: dict[Any, tuple[str, ...]] = {}
    for p, tokens in places.items():
        for t in tokens:
            if t == _NULL or t[0] == "b":
                continue
            q = first.setdefault(t, p)
            if q != p:
                parent[find(p)] = find(q)
    union: dict[tuple[str, ...], set[Any]] = {}
    for p, tokens in places.items():
        union.setdefault(find(p), set()).update(t for t in tokens if t != _NULL and t[0] != "b")
    return {p: sorted(union[find(p)] | tokens, key=repr) for p, tokens in places.items()}


# ----- the shape of events, learnt from samples ------------------------------------------------
def action_key(value: Any) -> str:
    """The canonical text of an action's JSON form (`State.action_to_json`)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class _Stat:
    """What was seen at one place of an event kind (every position of a list shares one).

    ``n`` counts the values seen here, ``dicts`` and ``lists`` how many were dicts and lists (a
    dict key whose place saw fewer values than its parent saw dicts is optional). ``actions``
    stays True while every dict seen here is the JSON form of an action: such a place is coded
    by the action's id (``table`` maps their texts to ids)."""

    __slots__ = (
        "n",
        "tokens",
        "num",
        "maxabs",
        "dicts",
        "keys",
        "lists",
        "item",
        "lens",
        "actions",
        "table",
    )

    def __init__(self, table: dict[str, int]) -> None:
        self.n = 0
        self.tokens: set[tuple[Any, ...]] = set()
        self.num = False
        self.maxabs = 0.0
        self.dicts = 0
        self.keys: dict[str, _Stat] = {}
        self.lists = 0
        self.item: _Stat | None = None
        self.lens: set[int] = set()
        self.actions = True
        self.table = table

    def add(self, value: Any) -> None:
        self.n += 1
        t = type(value)
        if t is dict:
            self.dicts += 1
            if self.actions and action_key(value) not in self.table:
                self.actions = False
            for k, v in value.items():
                child = self.keys.get(k)
                if child is None:
                    child = self.keys[k] = _Stat(self.table)
                child.add(v)
        elif t is list or t is tuple:
            self.lists += 1
            self.lens.add(len(value))
            if self.item is None:
                self.item = _Stat(self.table)
            for v in value:
                self.item.add(v)
        elif t is int or t is float:
            self.num = True
            self.maxabs = max(self.maxabs, abs(float(value)))
        else:
            self.tokens.add(_token(value))


@dataclass
class Node:
    """Where one place of an event goes, relative to its slot. A place that always held one
    sort of value (and always held one: a required key, a list item) is *bare*: it has no
    present flag of its own. Otherwise each sort it held has its own mark.

    ``tok``: the value's code among the texts, bools and nulls seen at this place (`codes`;
    bare: its index, in ``(len - 1).bit_length()`` binary slots, so a place that only ever held
    one value takes none; else index + 1, 0 meaning "not a text here"). ``num``: the value /
    ``scale`` (the largest magnitude seen: exact, not clipped), after a present flag unless bare.
    ``act``: the code of the action whose JSON form the value is (id, or id + 1 unless bare).
    ``dict_at``: a present flag (-1 if bare or never a dict); ``required`` the keys every dict
    here had. ``list_at``: a present flag (-1 if bare); ``len_at`` the length / ``room`` (-1
    when every list here had the same length); ``room`` items of ``stride`` slots from
    ``items_at``. A kind's root has no flag (its slot has a position) and leaves out ``type``.
    """

    tok: int = -1
    codes: dict[tuple[Any, ...], int] = field(default_factory=dict)
    num: int = -1
    num_flag: bool = False
    scale: float = 1.0
    act: int = -1
    act_base: int = 0
    is_dict: bool = False
    dict_at: int = -1
    keys: dict[str, Node] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    is_list: bool = False
    list_at: int = -1
    len_at: int = -1
    items_at: int = -1
    item: Node | None = None
    stride: int = 0
    room: int = 0


def _compile(
    stat: _Stat,
    books: dict[tuple[str, ...], list[Any]],
    path: tuple[str, ...],
    num_actions: int,
    rel: int,
    required: bool,
    root: bool = False,
) -> tuple[Node, int]:
    """Lay out ``stat`` from ``rel``; returns the node and the slots it uses."""
    node = Node()
    start = rel
    is_act = stat.dicts > 0 and stat.actions and not root
    sorts = bool(stat.tokens) + stat.num + (stat.dicts > 0) + (stat.lists > 0)
    bare = root or (required and sorts == 1)
    if stat.tokens:
        # A place's texts are coded among its family's (`_families`); a place that only held
        # bools among the two bools.
        if all(t[0] == "b" for t in stat.tokens):
            order = [("b", False), ("b", True)]
        else:
            order = books.get(path) or sorted(stat.tokens, key=repr)
        node.tok = rel
        if bare:
            node.codes = {t: i for i, t in enumerate(order)}
            rel += (len(order) - 1).bit_length()
        else:
            node.codes = {t: i + 1 for i, t in enumerate(order)}
            rel += len(order).bit_length()
    if stat.num:
        node.num, node.num_flag, node.scale = rel, not bare, stat.maxabs or 1.0
        rel += 1 if bare else 2
    if is_act:
        node.act, node.act_base = rel, 0 if bare else 1
        rel += (num_actions - 1 if bare else num_actions).bit_length()
    elif stat.dicts:
        node.is_dict = True
        if not bare:
            node.dict_at = rel
            rel += 1
        node.required = frozenset(
            k for k, c in stat.keys.items() if c.n == stat.dicts and not (root and k == "type")
        )
        for k in sorted(stat.keys):
            if root and k == "type":
                continue
            node.keys[k], used = _compile(
                stat.keys[k], books, (*path, k), num_actions, rel, k in node.required
            )
            rel += used
    if stat.lists:
        node.is_list = True
        if not bare:
            node.list_at = rel
            rel += 1
        node.room = max(stat.lens)
        if len(stat.lens) > 1:
            node.len_at = rel
            rel += 1
        node.items_at = rel
        if stat.item is not None and node.room:
            node.item, node.stride = _compile(stat.item, books, (*path, "[]"), num_actions, 0, True)
            rel += node.room * node.stride
    return node, rel - start


@dataclass
class Kind:
    """One event kind's block: `cap` slots of `slot` floats at `offset` (the event's position
    in the log + 1, over `Layout.log_cap`, which also says the slot is used; then the event
    from `root`)."""

    name: str
    offset: int
    cap: int
    slot: int
    root: Node

    @property
    def size(self) -> int:
        return self.cap * self.slot


@dataclass
class Layout:
    """The information-state tensor layout of one game configuration."""

    game: str
    players: int
    options: dict[str, Any]
    obs: Encoding
    num_actions: int
    own_cap: int
    own_offset: int
    own_slot: int
    kinds: dict[str, Kind]
    log_cap: int  # room for one player's whole log (positions are divided by it)
    actions: dict[str, int]  # an action's JSON text -> its id
    overflow: int  # the overflow slot's offset; the digest's `DIGEST_BITS` slots follow it
    size: int
    # The game logs every decision with its player and action (hook `actions_logged`): own
    # actions follow from the log, so they take no block (own_cap is 0) and no digest.
    own_logged: bool = False
    _cache: dict[int, tuple[Any, Kind | None, list[int], list[float], bool]] = field(
        default_factory=dict, repr=False
    )

    # ----- encoding ----------------------------------------------------------------------------
    def encode(self, state: State, own: Sequence[int], player: int | None) -> np.ndarray:
        """The tensor of ``player``'s information state (None: the public one), from scratch:
        the view of ``state``, the player's own actions ``own`` in order, and their log. (The
        OpenSpiel adapter keeps a `Record` per player and extends it instead.)"""
        rec = Record(self)
        rec.read_log(state, player)
        if player is not None:
            rec.read_own(own)
        out = np.empty(self.size, np.float32)
        out[: self.obs.size] = self.obs.encode(state, player)
        out[self.obs.size :] = rec.array()
        return out

    def event(self, raw: Any, fmt: Any) -> tuple[Any, Kind | None, list[int], list[float], bool]:
        """A logged event (as `State._events` holds it), encoded relative to its slot and
        cached by identity (logged events are never changed; clones share them)."""
        cache = self._cache
        hit = cache.get(id(raw))
        if hit is None or hit[0] is not raw:
            if len(cache) > CACHE_MAX:
                cache.clear()
            hit = cache[id(raw)] = (raw, *self._event(raw if type(raw) is dict else fmt(raw)))
        return hit

    def _event(self, event: dict[str, Any]) -> tuple[Kind | None, list[int], list[float], bool]:
        """One event, relative to its slot: (kind, slots, values, whether anything was left out)."""
        name = kind_of(event)
        kind = self.kinds.get(name)
        if kind is None:
            return None, [], [], True
        idx: list[int] = []
        val: list[float] = []
        root = kind.root
        over = False
        seen = 0
        for k, v in event.items():
            child = root.keys.get(k)
            if child is not None:
                seen += k in root.required
                over |= self._put(v, child, 0, idx, val)
            elif k != "type" or v != name:
                over = True
        return kind, idx, val, over or seen != len(root.required)

    def _put(self, value: Any, node: Node, base: int, idx: list[int], val: list[float]) -> bool:
        t = type(value)
        if t is dict:
            if node.act >= 0:
                a = self.actions.get(action_key(value))
                if a is None:
                    return True
                for k in _code(a + node.act_base):
                    idx.append(base + node.act + k)
                    val.append(1.0)
                return False
            if not node.is_dict:
                return True
            if node.dict_at >= 0:
                idx.append(base + node.dict_at)
                val.append(1.0)
            over = False
            seen = 0
            keys, required = node.keys, node.required
            for k, v in value.items():
                child = keys.get(k)
                if child is None:
                    over = True
                else:
                    seen += k in required
                    over |= self._put(v, child, base, idx, val)
            return over or seen != len(required)
        if t is list or t is tuple:
            if not node.is_list:
                return True
            if node.list_at >= 0:
                idx.append(base + node.list_at)
                val.append(1.0)
            n, room = len(value), node.room
            over = n > room
            if node.len_at >= 0:
                idx.append(base + node.len_at)
                val.append(n / room)
            elif n != room:
                over = True
            item = node.item
            if item is not None:
                at = base + node.items_at
                for i, v in enumerate(value[:room]):
                    over |= self._put(v, item, at + i * node.stride, idx, val)
            return over
        if t is int or t is float:
            if node.num < 0:
                return True
            if node.num_flag:
                idx += (base + node.num, base + node.num + 1)
                val += (1.0, value / node.scale)
            else:
                idx.append(base + node.num)
                val.append(value / node.scale)
            return False
        code = node.codes.get(_token(value))
        if code is None:
            return True
        for k in _code(code):
            idx.append(base + node.tok + k)
            val.append(1.0)
        return False

    def describe(self) -> str:
        """The layout as Markdown (for docs/interop.md)."""
        log = sum(k.size for k in self.kinds.values())
        lines = [
            f"`{self.game}`, {self.players} players: {self.size} floats (view {self.obs.size}, "
            f"own actions {self.own_cap} x {self.own_slot}, log {log}, overflow 1 + digest "
            f"{DIGEST_BITS})",
            "",
            "| block | offset | room | floats per slot |",
            "|---|---:|---:|---:|",
            f"| view | 0 | 1 | {self.obs.size} |",
            f"| own actions{' (in the log)' if self.own_logged else ''} | {self.own_offset} "
            f"| {self.own_cap} | {self.own_slot} |",
        ]
        lines += [
            f"| log `{k.name}` | {k.offset} | {k.cap} | {k.slot} |" for k in self.kinds.values()
        ]
        lines.append(f"| overflow, digest | {self.overflow} | 1 | {1 + DIGEST_BITS} |")
        return "\n".join(lines)


_CODES: dict[int, tuple[int, ...]] = {}


def _code(code: int) -> tuple[int, ...]:
    """The set bits of ``code``."""
    bits = _CODES.get(code)
    if bits is None:
        if len(_CODES) > CACHE_MAX:
            _CODES.clear()
        bits = _CODES[code] = tuple(k for k in range(code.bit_length()) if code >> k & 1)
    return bits


class Record:
    """One player's (or the spectator's) record so far as the part of the tensor after the
    view, kept up to date incrementally: `read_log` places only the events logged since it last
    ran, `read_own` only the new own actions; nothing is encoded twice. Copies share the array
    until one of them changes (`share`), so cloning a state costs no array copy."""

    __slots__ = (
        "layout",
        "arr",
        "counts",
        "pos",
        "events_read",
        "moves_read",
        "n_own",
        "digest",
        "shared",
        "journal",
    )

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.arr = np.zeros(layout.size - layout.obs.size, np.float32)
        self.counts: dict[str, int] = {}
        self.pos = 0  # events of this player's log placed (or digested) so far
        self.events_read = 0  # events of the whole log read so far
        self.moves_read = 0  # moves of the history read so far (for own actions)
        self.n_own = 0
        self.digest: Any = None  # BLAKE2b of what did not fit, once something did not
        self.shared = False
        # The slots written into ``arr``, one list per write, in order: a reader that saw this
        # ``arr`` with k writes reads only ``journal[k:]`` (`openspiel._Lists`). A new ``arr``
        # (copy on write) starts a new journal, and a reader holding the old ``arr`` sees that.
        self.journal: list[list[int]] = []

    def share(self) -> Record:
        """A copy for a cloned state (the array is copied when either side next writes)."""
        new = Record.__new__(Record)
        for name in Record.__slots__:
            setattr(new, name, getattr(self, name))
        self.shared = new.shared = True
        return new

    def _own_it(self) -> None:
        self.arr = self.arr.copy()
        self.journal = []
        self.counts = self.counts.copy()
        if self.digest is not None:
            self.digest = self.digest.copy()
        self.shared = False

    def read_log(self, state: State, who: int | None) -> None:
        events = state._events
        if events is None:
            raise ValueError("this state keeps no log (it is a search copy)")
        if self.events_read >= len(events):
            return
        if self.shared:
            self._own_it()
        lay = self.layout
        fmt = state._format_event
        shift = lay.obs.size
        inv = 1.0 / lay.log_cap  # positions past the room stay exact (above 1)
        counts = self.counts
        pos = self.pos
        idx: list[int] = []
        val: list[float] = []
        for to, raw in events[self.events_read :]:
            if to is not None and to != who:
                continue
            _, kind, e_idx, e_val, e_over = lay.event(raw, fmt)
            pos += 1
            placed = False
            if kind is not None:
                i = counts.get(kind.name, 0)
                counts[kind.name] = i + 1
                if i < kind.cap:
                    b = kind.offset - shift + i * kind.slot
                    idx.append(b)
                    val.append(pos * inv)
                    idx.extend([b + k for k in e_idx])
                    val.extend(e_val)
                    placed = not e_over
            if not placed:
                self._rest(b"e%d:" % (pos - 1) + event_bytes(raw, fmt))
        self.pos = pos
        self.events_read = len(events)
        if idx:
            self.arr.put(idx, val)
            self.journal.append(idx)

    def read_own(self, actions: Sequence[int]) -> None:
        """Place these own actions after those read before (in order)."""
        if not actions:
            return
        lay = self.layout
        if lay.own_logged:  # the log holds them (`Layout.own_logged`)
            self.n_own += len(actions)
            return
        if self.shared:
            self._own_it()
        base = lay.own_offset - lay.obs.size
        idx: list[int] = []
        for a in actions:
            i = self.n_own
            self.n_own = i + 1
            if i < lay.own_cap:
                b = base + i * lay.own_slot
                idx.extend([b + k for k in _code(a + 1)])
            else:
                self._rest(b"o%d:%d" % (i, a))
        if idx:
            self.arr.put(idx, 1.0)
            self.journal.append(idx)

    def _rest(self, item: bytes) -> None:
        """Something that did not fit: into the digest, whose bits are rewritten."""
        if self.digest is None:
            self.digest = hashlib.blake2b(digest_size=DIGEST_BITS // 8)
        self.digest.update(b"%d:" % len(item))
        self.digest.update(item)
        at = self.layout.overflow - self.layout.obs.size
        self.arr[at : at + 1 + DIGEST_BITS] = 0.0
        self.arr[at] = 1.0
        code = int.from_bytes(self.digest.digest(), "big")
        self.arr[[at + 1 + k for k in _code(code)]] = 1.0
        self.journal.append(list(range(at, at + 1 + DIGEST_BITS)))

    def array(self) -> np.ndarray:
        """The tensor after the view (read only: copy it to keep it)."""
        return self.arr


# ----- learning the layout ---------------------------------------------------------------------
def _sample(game: str, players: int, options: dict[str, Any], table: dict[str, int]):  # type: ignore[no-untyped-def]
    """Random games: per kind, what its events held and the most one player's log had; the most
    own actions and log events of a player."""
    info = meeple.game_info(game)
    stats: dict[str, _Stat] = {}
    most: dict[str, int] = {}
    places: dict[tuple[str, ...], set[Any]] = {}
    most_own = most_log = 0
    rng = random.Random(SAMPLE_SEED)
    for g in range(SAMPLE_GAMES):
        state = meeple.make(game, players=players, seed=SAMPLE_SEED + g, **options)
        if g == 0:
            for a in range(info.num_actions):
                _places(state.action_to_json(a), ("action",), places)
        actors: list[int] = []
        for step_no in range(MAX_STEPS):
            if state.is_over():
                break
            if step_no % VIEW_STRIDE == 0:
                _places(state.view(state.to_move), ("view",), places)
            actors.append(state.to_move)  # type: ignore[arg-type]
            state.apply(rng.choice(state.legal_actions()))
        for p in [None, *range(players)]:
            _places(state.view(p), ("view",), places)
            log = state.log(p, text=False)
            most_log = max(most_log, len(log))
            counts: dict[str, int] = {}
            for event in log:
                k = kind_of(event)
                counts[k] = counts.get(k, 0) + 1
                stats.setdefault(k, _Stat(table)).add(event)
                _places(event, ("event", k), places)
            for k, c in counts.items():
                most[k] = max(most.get(k, 0), c)
        for p in range(players):
            most_own = max(most_own, actors.count(p))
    return stats, most, most_own, most_log, places


def _room(seen: int) -> int:
    """Room for a count: the most seen, plus twice its square root and one (about two standard
    deviations of a count that size: random games' counts vary by that much)."""
    return seen + math.ceil(2 * math.sqrt(seen)) + 1


def build(game: str, players: int, options: dict[str, Any]) -> Layout:
    info = meeple.game_info(game)
    obs = encoding(game, players, options)
    state = meeple.make(game, players=players, seed=SAMPLE_SEED, **options)
    keys = [action_key(state.action_to_json(a)) for a in range(info.num_actions)]
    # Action JSONs inside events are coded by id only if the JSON names the action alone.
    table = {k: a for a, k in enumerate(keys)} if len(set(keys)) == len(keys) else {}
    stats, most, most_own, most_log, places = _sample(game, players, options, table)
    # A game may list example events: every kind its log can hold, with every value of each
    # string field and lists at their longest, which sampling might miss (`TensorHooks` docs).
    hooks = tensor_hooks(info)
    examples = hooks.information_state_examples
    for event in examples(players, dict(options)) if examples else ():
        k = kind_of(event)
        stats.setdefault(k, _Stat(table)).add(event)
        _places(event, ("event", k), places)
        most.setdefault(k, EXAMPLE_ROOM)
    books = _families(places)
    num_actions = info.num_actions
    offset = obs.size
    own_slot = num_actions.bit_length()  # the binary code of id + 1 (0: no action)
    # A game whose log names every decision's player and action (an action's JSON coded by id,
    # so `table` is not empty) needs no own-actions block: the log says them.
    logged = hooks.actions_logged
    own_logged = bool(table) and logged is not None and bool(logged(players, dict(options)))
    own_cap = 0 if own_logged else _room(most_own)
    # Room the game's rules fix for a kind (an event logged once a game: room 1, not `_room`'s
    # headroom for a count that varies); an event past it still goes to the digest.
    rooms_hook = hooks.information_state_room
    rooms = rooms_hook(players, dict(options)) if rooms_hook else {}
    own_offset = offset
    offset += own_cap * own_slot
    kinds: dict[str, Kind] = {}
    for name in sorted(stats):
        root, used = _compile(stats[name], books, ("event", name), num_actions, 1, True, root=True)
        kind = Kind(name, offset, rooms.get(name, _room(most[name])), 1 + used, root)
        kinds[name] = kind
        offset += kind.size
    return Layout(
        game,
        players,
        dict(options),
        obs,
        num_actions,
        own_cap,
        own_offset,
        own_slot,
        kinds,
        _room(most_log),
        table,
        offset,
        offset + 1 + DIGEST_BITS,
        own_logged,
    )


def layout(game: str, players: int, options: dict[str, Any] | None = None) -> Layout:
    """The information-state layout of ``game`` with ``players`` and ``options`` (cached)."""
    info = meeple.game_info(game)
    resolved = info.resolve_options(players, dict(options or {}))
    return _layout(game, players, json.dumps(resolved, sort_keys=True))


@cache
def _layout(game: str, players: int, options_json: str) -> Layout:
    return build(game, players, json.loads(options_json))


def _main(argv: Sequence[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        description="Print information-state tensor layouts (Markdown)."
    )
    parser.add_argument("game", nargs="?")
    parser.add_argument("--players", type=int, default=None)
    args = parser.parse_args(argv)
    for g in meeple.games():
        if args.game and g["id"] != args.game:
            continue
        for p in [args.players] if args.players else g["players"]:
            print(layout(g["id"], p).describe())
            print()


if __name__ == "__main__":
    _main()
