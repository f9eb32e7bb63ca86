"""Perfect-recall information-state tensors for every game, derived from its event log.

A player's information state (`meeple.interop.openspiel`) is three things: the event log as the
player saw it (``State.log(player)``: their deals and draws, public plays, reveals...), the actions
they took, and their current view. The tensor here encodes all three, so that two information
states differ exactly when their tensors do:

- **view**: the game's observation tensor (`meeple.interop.tensor`);
- **own actions**: one slot per own decision, in order, up to `Layout.own_cap`: a present flag
  and the action (one-hot when the game has at most `ONE_HOT_MAX` actions, else the binary code
  of its id + 1);
- **log**: one block per event *kind* (the event's ``type``, or its set of keys when it has
  none), each with room for `Kind.cap` events in the order they were logged. An event's slot
  holds a present flag, its position in the player's log (so the order across kinds is kept),
  then the event (`Node`): each dict key and list position has its own place (a container a
  present flag; a list room for its longest length, `MARGIN` times that if lengths varied), a
  text, bool or null is the binary code of its index in the game's vocabulary, a number a flag
  and its value divided by the largest magnitude seen there (not clipped: exact), and a dict
  that is the JSON form of an action (`State.action_to_json`) the binary code of the action id;
- one **overflow** slot and a **digest** block (`DIGEST_BITS` slots): whatever could not be
  placed (an own action past the room, an event past its kind's room, or an event holding a
  kind, key or text never seen while learning the layout, or a list longer than its room) is
  kept as a 64-bit digest (BLAKE2b) of those items with their positions, and the flag is set.
  So the tensor never forgets and never needs the game cut short: two different records give
  different tensors (exactly in the placed part, with probability 1 - 2**-64 beyond it). Games
  are never ended for want of room (see docs/interop.md).

The layout (kinds, keys, vocabulary, room) is learnt from `SAMPLE_GAMES` random games with
fixed seeds, so it is the same on every run, plus the game's ``information_state_examples``
hook if it has one; room is `MARGIN` times the most seen, plus `SLACK`.
`python -m meeple.interop.recall <game> --players N` prints it.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

import meeple
from meeple.core import State

from .tensor import Encoding, encoding, hook

SAMPLE_GAMES = 30
SAMPLE_SEED = 20_241_127
MAX_STEPS = 20_000
VIEW_STRIDE = 8  # views sampled for the vocabulary: every 8th step, and every view at the end
MARGIN = 2
SLACK = 4
EXAMPLE_ROOM = 16  # room for an event kind the game lists as an example but sampling never met
ONE_HOT_MAX = 16  # games with more actions than this code own actions in binary
CACHE_MAX = 200_000  # encoded events remembered (by identity) before the cache starts afresh

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


def _is_num(value: Any) -> bool:
    t = type(value)
    return t is int or t is float


def _bits(n: int) -> int:
    return max(1, int(n).bit_length())


# ----- the shape of events, learnt from samples ------------------------------------------------
def action_key(value: Any) -> str:
    """The canonical text of an action's JSON form (`State.action_to_json`)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class _Stat:
    """What was seen at one place of an event kind (every position of a list shares one).

    ``actions`` stays True while every dict seen here is the JSON form of an action: such a
    place is coded by the action's id (``actions`` maps their texts to ids)."""

    __slots__ = ("tokens", "num", "maxabs", "keys", "item", "lens", "actions", "table")

    def __init__(self, table: dict[str, int]) -> None:
        self.tokens = False
        self.num = False
        self.maxabs = 0.0
        self.keys: dict[str, _Stat] | None = None
        self.item: _Stat | None = None
        self.lens: set[int] = set()
        self.actions = True
        self.table = table

    def add(self, value: Any) -> None:
        t = type(value)
        if t is dict:
            if self.keys is None:
                self.keys = {}
            if self.actions and action_key(value) not in self.table:
                self.actions = False
            for k, v in value.items():
                child = self.keys.get(k)
                if child is None:
                    child = self.keys[k] = _Stat(self.table)
                child.add(v)
        elif t is list or t is tuple:
            self.lens.add(len(value))
            if self.item is None:
                self.item = _Stat(self.table)
            for v in value:
                self.item.add(v)
        elif t is int or t is float:
            self.num = True
            self.maxabs = max(self.maxabs, abs(float(value)))
        else:
            self.tokens = True


def _strings(value: Any, out: set[tuple[Any, ...]]) -> None:
    """Every non-numeric scalar in ``value`` (for the game's vocabulary)."""
    t = type(value)
    if t is dict:
        for v in value.values():
            _strings(v, out)
    elif t is list or t is tuple:
        for v in value:
            _strings(v, out)
    elif t is not int and t is not float:
        out.add(_token(value))


@dataclass
class Node:
    """Where one place of an event goes, relative to its base: ``tok`` (the value's code in
    `Layout.bits` binary slots), ``num`` (a flag, then the value / ``scale``), ``act`` (the id
    + 1 of the action whose JSON form the value is, in `Layout.action_bits` binary slots),
    ``dict_at`` and ``list_at`` (a present flag; a list's `room` items of `stride` slots follow
    it). A kind's root has no present flag of its own (the slot has one) and leaves out
    ``type`` (the kind says it)."""

    tok: int = -1
    num: int = -1
    scale: float = 1.0
    act: int = -1
    dict_at: int = -1
    keys: dict[str, Node] = field(default_factory=dict)
    list_at: int = -1
    item: Node | None = None
    stride: int = 0
    room: int = 0


def _compile(
    stat: _Stat, bits: int, action_bits: int, rel: int, root: bool = False
) -> tuple[Node, int]:
    """Lay out ``stat`` from ``rel``; returns the node and the slots it uses."""
    node = Node()
    start = rel
    if stat.tokens:
        node.tok = rel
        rel += bits
    if stat.num:
        node.num, node.scale = rel, stat.maxabs or 1.0
        rel += 2
    if stat.keys is not None and stat.actions and not root:
        node.act = rel
        rel += action_bits
    elif stat.keys is not None:
        if not root:
            node.dict_at = rel
            rel += 1
        for k in sorted(stat.keys):
            if root and k == "type":
                continue
            node.keys[k], used = _compile(stat.keys[k], bits, action_bits, rel)
            rel += used
    if stat.item is not None:
        longest = max(stat.lens)
        node.list_at = rel
        node.room = longest if len(stat.lens) == 1 else MARGIN * longest
        node.item, node.stride = _compile(stat.item, bits, action_bits, 0)
        rel += 1 + node.room * node.stride
    return node, rel - start


@dataclass
class Kind:
    """One event kind's block: `cap` slots of `slot` floats at `offset` (a present flag, the
    event's position in the log / `Layout.log_cap`, then the event from `root`)."""

    name: str
    offset: int
    cap: int
    burst: int  # the most events of this kind one move gave one player in sampling
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
    vocab: dict[tuple[Any, ...], int]  # token -> code (1..); `other` is len(vocab) + 1
    bits: int
    actions: dict[str, int]  # an action's JSON text -> its id
    action_bits: int
    overflow: int  # the overflow slot's offset; the digest's `DIGEST_BITS` slots follow it
    size: int
    _cache: dict[int, tuple[Any, Kind | None, list[int], list[float], bool]] = field(
        default_factory=dict, repr=False
    )
    _codes: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False)

    # ----- encoding ----------------------------------------------------------------------------
    def encode(self, state: State, own: Sequence[int], player: int | None) -> np.ndarray:
        """The tensor of ``player``'s information state (None: the public one): the view of
        ``state``, the player's own actions ``own`` in order, and their log."""
        out = np.zeros(self.size, np.float32)
        out[: self.obs.size] = self.obs.encode(state, player)
        idx: list[int] = []
        val: list[float] = []
        rest: list[bytes] = []  # what did not fit, for the digest
        if player is not None:
            self._own(idx, val, own, rest)
        self._log(idx, val, state, player, rest)
        out.put(idx, val)
        if rest:
            out[self.overflow] = 1.0
            h = hashlib.blake2b(digest_size=DIGEST_BITS // 8)
            for item in rest:
                h.update(b"%d:" % len(item))
                h.update(item)
            code = int.from_bytes(h.digest(), "big")
            out[[self.overflow + 1 + k for k in self._code(code)]] = 1.0
        return out

    def _code(self, code: int) -> tuple[int, ...]:
        """The set bits of ``code``."""
        bits = self._codes.get(code)
        if bits is None:
            bits = self._codes[code] = tuple(k for k in range(code.bit_length()) if code >> k & 1)
        return bits

    def _own(self, idx: list[int], val: list[float], own: Sequence[int], rest: list[bytes]) -> None:
        slot, base = self.own_slot, self.own_offset
        binary = self.num_actions > ONE_HOT_MAX
        for i, a in enumerate(own[: self.own_cap]):
            b = base + i * slot
            idx.append(b)
            if binary:
                idx.extend(b + 1 + k for k in self._code(a + 1))
            else:
                idx.append(b + 1 + a)
        val.extend([1.0] * (len(idx) - len(val)))
        rest.extend(b"o%d:%d" % (i, a) for i, a in enumerate(own) if i >= self.own_cap)

    def _log(
        self,
        idx: list[int],
        val: list[float],
        state: State,
        player: int | None,
        rest: list[bytes],
    ) -> None:
        events = state._events
        if events is None:
            raise ValueError("this state keeps no log (it is a search copy)")
        fmt = state._format_event
        cache = self._cache
        if len(cache) > CACHE_MAX:
            cache.clear()
        counts: dict[str, int] = {}
        inv = 1.0 / self.log_cap  # positions past the room stay exact (above 1)
        pos = 0
        for to, raw in events:
            if to is not None and to != player:
                continue
            hit = cache.get(id(raw))
            if hit is None or hit[0] is not raw:
                hit = cache[id(raw)] = (raw, *self._event(raw if type(raw) is dict else fmt(raw)))
            _, kind, e_idx, e_val, e_over = hit
            placed = False
            if kind is not None:
                i = counts.get(kind.name, 0)
                counts[kind.name] = i + 1
                if i < kind.cap:
                    b = kind.offset + i * kind.slot
                    idx += (b, b + 1)
                    val += (1.0, pos * inv)
                    idx.extend([b + k for k in e_idx])
                    val.extend(e_val)
                    placed = not e_over
            if not placed:
                rest.append(b"e%d:" % pos + event_bytes(raw, fmt))
            pos += 1

    def _event(self, event: dict[str, Any]) -> tuple[Kind | None, list[int], list[float], bool]:
        """One event, relative to its slot: (kind, slots, values, whether anything was left out)."""
        name = kind_of(event)
        kind = self.kinds.get(name)
        if kind is None:
            return None, [], [], True
        idx: list[int] = []
        val: list[float] = []
        over = False
        keys = kind.root.keys
        for k, v in event.items():
            child = keys.get(k)
            if child is not None:
                over |= self._put(v, child, 0, idx, val)
            elif k != "type" or v != name:
                over = True
        return kind, idx, val, over

    def _put(self, value: Any, node: Node, base: int, idx: list[int], val: list[float]) -> bool:
        t = type(value)
        if t is dict and node.act >= 0:
            a = self.actions.get(action_key(value))
            if a is None:
                return True
            for k in self._code(a + 1):
                idx.append(base + node.act + k)
                val.append(1.0)
            return False
        if t is dict:
            if node.dict_at < 0:
                return True
            idx.append(base + node.dict_at)
            val.append(1.0)
            over = False
            keys = node.keys
            for k, v in value.items():
                child = keys.get(k)
                if child is None:
                    over = True
                else:
                    over |= self._put(v, child, base, idx, val)
            return over
        if t is list or t is tuple:
            if node.list_at < 0 or node.item is None:
                return True
            at = base + node.list_at
            idx.append(at)
            val.append(1.0)
            over = len(value) > node.room
            for i, v in enumerate(value[: node.room]):
                over |= self._put(v, node.item, at + 1 + i * node.stride, idx, val)
            return over
        if t is int or t is float:
            if node.num < 0:
                return True
            idx += (base + node.num, base + node.num + 1)
            val += (1.0, value / node.scale)
            return False
        if node.tok < 0:
            return True
        code = self.vocab.get(_token(value))
        over = code is None
        for k in self._code(len(self.vocab) + 1 if code is None else code):
            idx.append(base + node.tok + k)
            val.append(1.0)
        return over

    @property
    def max_burst(self) -> int:
        """The most events one move gave one player in sampling, all kinds together (bound)."""
        return sum(k.burst for k in self.kinds.values())

    def describe(self) -> str:
        """The layout as Markdown (for docs/interop.md)."""
        log = sum(k.size for k in self.kinds.values())
        lines = [
            f"`{self.game}`, {self.players} players: {self.size} floats (view {self.obs.size}, "
            f"own actions {self.own_cap} x {self.own_slot}, log {log}, overflow 1 + digest "
            f"{DIGEST_BITS}; "
            f"{len(self.vocab)} tokens, {self.bits}-bit codes)",
            "",
            "| block | offset | room | floats per slot |",
            "|---|---:|---:|---:|",
            f"| view | 0 | 1 | {self.obs.size} |",
            f"| own actions | {self.own_offset} | {self.own_cap} | {self.own_slot} |",
        ]
        lines += [
            f"| log `{k.name}` | {k.offset} | {k.cap} | {k.slot} |" for k in self.kinds.values()
        ]
        lines.append(f"| overflow, digest | {self.overflow} | 1 | {1 + DIGEST_BITS} |")
        return "\n".join(lines)


# ----- learning the layout ---------------------------------------------------------------------
def _sample(game: str, players: int, options: dict[str, Any], table: dict[str, int]):  # type: ignore[no-untyped-def]
    """Random games: per kind, what its events held, the most one player's log had and the most
    one move gave one player; the most own actions and log events of a player; the vocabulary."""
    info = meeple.game_info(game)
    stats: dict[str, _Stat] = {}
    most: dict[str, int] = {}
    burst: dict[str, int] = {}
    vocab: set[tuple[Any, ...]] = set()
    most_own = most_log = 0
    rng = random.Random(SAMPLE_SEED)
    for g in range(SAMPLE_GAMES):
        state = meeple.make(game, players=players, seed=SAMPLE_SEED + g, **options)
        if g == 0:
            for a in range(info.num_actions):
                _strings(state.action_to_json(a), vocab)
        actors: list[int] = []
        events = state._events or []
        for step_no in range(MAX_STEPS):
            if state.is_over():
                break
            if step_no % VIEW_STRIDE == 0:
                _strings(state.view(state.to_move), vocab)
            before = len(events)
            actors.append(state.to_move)  # type: ignore[arg-type]
            state.apply(rng.choice(state.legal_actions()))
            step: dict[tuple[int | None, str], int] = {}
            for to, e in events[before:]:
                k = kind_of(e if type(e) is dict else state._format_event(e))
                step[to, k] = step.get((to, k), 0) + 1
            for (to, k), c in step.items():
                pub = step.get((None, k), 0) if to is not None else 0
                burst[k] = max(burst.get(k, 0), c + pub)
        for p in [None, *range(players)]:
            _strings(state.view(p), vocab)
            log = state.log(p, text=False)
            most_log = max(most_log, len(log))
            counts: dict[str, int] = {}
            for event in log:
                k = kind_of(event)
                counts[k] = counts.get(k, 0) + 1
                stats.setdefault(k, _Stat(table)).add(event)
                _strings(event, vocab)
            for k, c in counts.items():
                most[k] = max(most.get(k, 0), c)
        for p in range(players):
            most_own = max(most_own, actors.count(p))
    return stats, most, burst, most_own, most_log, vocab


def _room(seen: int) -> int:
    return MARGIN * seen + SLACK


def build(game: str, players: int, options: dict[str, Any]) -> Layout:
    info = meeple.game_info(game)
    obs = encoding(game, players, options)
    state = meeple.make(game, players=players, seed=SAMPLE_SEED, **options)
    keys = [action_key(state.action_to_json(a)) for a in range(info.num_actions)]
    # Action JSONs inside events are coded by id only if the JSON names the action alone.
    table = {k: a for a, k in enumerate(keys)} if len(set(keys)) == len(keys) else {}
    stats, most, burst, most_own, most_log, tokens = _sample(game, players, options, table)
    # A game may list example events: every kind its log can hold, with every value of each
    # string field and lists at their longest, which sampling might miss (`hook` docs).
    examples = hook(info, "information_state_examples")
    for event in examples(players, dict(options)) if examples else ():
        k = kind_of(event)
        stats.setdefault(k, _Stat(table)).add(event)
        _strings(event, tokens)
        if k not in most:
            most[k] = (EXAMPLE_ROOM - SLACK) // MARGIN
    vocab = {t: i + 1 for i, t in enumerate(sorted(tokens, key=repr))}
    bits = _bits(len(vocab) + 1)
    action_bits = _bits(info.num_actions)
    offset = obs.size
    num_actions = info.num_actions
    own_slot = 1 + (_bits(num_actions) if num_actions > ONE_HOT_MAX else num_actions)
    own_cap = _room(most_own)
    own_offset = offset
    offset += own_cap * own_slot
    kinds: dict[str, Kind] = {}
    for name in sorted(stats):
        root, used = _compile(stats[name], bits, action_bits, 2, root=True)
        kind = Kind(name, offset, _room(most[name]), max(1, burst.get(name, 1)), 2 + used, root)
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
        vocab,
        bits,
        table,
        action_bits,
        offset,
        offset + 1 + DIGEST_BITS,
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
