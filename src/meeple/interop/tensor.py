"""Fixed-size observation tensors for every game, derived from its JSON view.

OpenSpiel and Gymnasium need a tensor of one fixed shape per game configuration, but a meeple
game only promises a JSON `view(player)`. The generic encoding learns the *shape* of the views
from random games (fixed seeds, so the layout is the same on every run) and then maps any view
onto it:

- a number (or bool) is one slot, divided by twice the largest magnitude seen there in the
  sampled games and clipped to [-1, 1];
- a string, ``null`` or a number/``null`` mix is a one-hot over the values seen there, plus an
  ``other`` slot for values never seen;
- a dict is its keys in sorted order (a key a view leaves out encodes as zeros);
- a list of scalars that always had the same length is one entry per position;
- a list of scalars of varying length is a bag: a count per value seen (plus ``other``) and
  its length;
- a list of dicts or lists is one entry per position up to the longest seen (longer lists are
  cut), each with a ``present`` flag.

The view's top-level ``legal`` list (the mover's legal actions, by project convention) is left
out: the action mask carries it.

A game may bring its own encoding instead: its `meeple.core.TensorHooks` (``TENSORS`` in the
module its ``GameInfo.tensors`` names) give
``observation_tensor_shape(players, options) -> tuple[int, ...]`` and
``observation_tensor(state, player) -> Sequence[float]`` (flattened). `layout()` documents the
generic layout of any game (``python -m meeple.interop.tensor <game> --players N``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

import meeple
from meeple.core import GameInfo, State, TensorHooks
from meeple.core.hooks import NO_TENSORS, load_tensors

SAMPLE_GAMES = 10  # random games whose views define the layout
SAMPLE_VIEWS = 500  # views sampled from them in all
SAMPLE_SEED = 20_240_601
MAX_STEPS = 20_000
SKIPPED_KEY = "legal"  # the mover's legal actions: the action mask (or OpenSpiel) carries them
MAX_BAG = 512  # distinct numbers a bag keys on; rarer ones count as ``other``


# ----- the optional hooks a game may give ---------------------------------------------------
def tensor_hooks(info: GameInfo) -> TensorHooks:
    """The game's `TensorHooks` (its ``GameInfo.tensors`` module imported on the first call), or
    hooks that are all None."""
    return NO_TENSORS if info.tensors is None else _tensor_hooks(info.tensors)


@cache
def _tensor_hooks(module: str) -> TensorHooks:
    return load_tensors(module)


# ----- learning the layout from sampled views -----------------------------------------------
class _Stat:
    """What was seen at one place in the view tree."""

    __slots__ = (
        "nums",
        "maxabs",
        "tokens",
        "null",
        "keys",
        "lens",
        "items",
        "pos",
        "compound",
        "listnums",
        "maxmult",
    )

    def __init__(self) -> None:
        self.nums = False
        self.maxabs = 0.0
        self.tokens: set[str] = set()
        self.null = False
        self.keys: dict[str, _Stat] | None = None
        self.lens: set[int] = set()
        self.items: _Stat | None = None
        self.compound = False  # a list holding dicts or lists
        self.pos: list[_Stat] = []  # per position (positional lists)
        self.listnums: set[Any] = set()  # numbers seen inside this list (a bag keys on them)
        self.maxmult = 1  # the most times one value appeared in this list

    def add(self, value: Any) -> None:
        t = type(value)
        if t is dict:
            keys = self.keys
            if keys is None:
                keys = self.keys = {}
            for k, v in value.items():
                child = keys.get(k)
                if child is None:
                    child = keys[k] = _Stat()
                child.add(v)
        elif t is list or t is tuple:
            self._add_list(value)
        elif t is str:
            self.tokens.add(value)
        elif value is None:
            self.null = True
        elif t is int or t is float or t is bool:
            self.nums = True
            if abs(value) > self.maxabs:
                self.maxabs = abs(float(value))
        else:
            self.tokens.add(str(value))

    def _add_list(self, value: list[Any]) -> None:
        self.lens.add(len(value))
        items = self.items
        if items is None:
            items = self.items = _Stat()
        scalars: dict[Any, int] = {}
        pos = self.pos
        for i, v in enumerate(value):
            items.add(v)
            t = type(v)
            if t is dict or t is list or t is tuple:
                self.compound = True  # items share one layout: no per-position stats
                continue
            if len(pos) <= i:
                pos.append(_Stat())
            pos[i].add(v)
            scalars[v] = scalars.get(v, 0) + 1
            if t is not str and v is not None and len(self.listnums) < MAX_BAG:
                self.listnums.add(v)
        if scalars:
            self.maxmult = max(self.maxmult, *scalars.values())


def _token(value: Any) -> str:
    """The vocabulary key of a scalar (numbers and strings must not collide)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    return "#" + json.dumps(value)


@dataclass
class Segment:
    """One part of the layout, for the docs: where, how many slots, what they mean."""

    offset: int
    size: int
    path: str
    kind: str
    labels: list[str]


class _Gen:
    """Compiles the sampled layout into straight-line Python (one function per layout).

    The encoder is on the hot path of every environment step, so instead of walking a schema
    tree at run time it is generated once as code: each view key is a local lookup, each slot
    a ``O(offset)`` (a one) or an ``I(offset); V(value)`` pair, scattered into the tensor at
    the end.
    Lists of dicts repeat one element layout with a stride, so their code is a loop.
    """

    def __init__(self, cache: bool = True) -> None:
        self.cache = cache
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self.segments: list[Segment] = []
        self._n = 0
        self._depth = 0  # loops around the code being generated
        self._cache_names: list[tuple[str, str]] = []

    def _cache_open(self, v: str, ind: str, slot: str = "0", size: int = 1) -> str:
        """Start a cached block for ``v``: if ``v`` equals the value last encoded here, its slots
        are copied; else the block runs and is remembered. Views are fresh JSON each call, so an
        equal value encodes the same (a value that *is* the remembered object is not trusted).

        A site that rarely hits (a hand that changes every turn) costs more than it saves, so
        each site counts: after `CACHE_TRIAL` misses with fewer hits than half of them it turns
        itself off (its slots then hold a value nothing equals). Returns the block's indent."""
        cache = self.const([_NEVER] * size)
        stats = self.const([0, 0, True])  # hits, misses, on
        c = self.var("c")
        self._cache_names.append((cache, stats, c, size))
        self.lines += [
            f"{ind}{c} = {cache}[{slot}]",
            f"{ind}if {v} is not {c}[0] and {v} == {c}[0]:",
            f"{ind}    ones.extend({c}[1]); idx.extend({c}[2]); val.extend({c}[3]); {stats}[0] += 1",
            f"{ind}else:",
            f"{ind}    {c} = (len(ones), len(idx))",
        ]
        return ind + "    "

    def _cache_close(self, v: str, ind: str, slot: str = "0") -> None:
        cache, stats, c, size = self._cache_names.pop()
        self.lines += [
            f"{ind}if {stats}[2]:",
            f"{ind}    {cache}[{slot}] = ({v}, ones[{c}[0]:], idx[{c}[1]:], val[{c}[1]:])",
            f"{ind}    {stats}[1] += 1",
            f"{ind}    if {stats}[1] >= {CACHE_TRIAL} and 2 * {stats}[0] < {stats}[1]:",
            f"{ind}        {stats}[2] = False; {cache}[:] = [NEVER] * {size}",
        ]

    @staticmethod
    def _at(base: str, offset: object) -> str:
        """``base + offset`` as code; outside loops the base is 0 and left out."""
        return f"{offset}" if base == "0" else f"{base} + {offset}"

    def var(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def const(self, value: Any) -> str:
        name = self.var("C")
        self.consts[name] = value
        return name

    def seg(self, rel: int, size: int, path: str, kind: str, labels: list[str]) -> None:
        self.segments.append(Segment(rel, size, path or "(view)", kind, labels))

    def node(self, stat: _Stat, v: str, base: str, rel: int, path: str, ind: str) -> int:
        """Emit code encoding variable ``v`` at ``base + rel``; return the slots used."""
        start = rel
        if stat.nums:
            scale = 2.0 * stat.maxabs if stat.maxabs > 0 else 1.0
            self.seg(rel, 1, path, f"number / {scale:g}, clipped to [-1, 1]", [])
            x = self.var("x")
            self.lines += [
                f"{ind}if type({v}) is int or type({v}) is float or type({v}) is bool:",
                f"{ind}    {x} = {v} * {1.0 / scale!r}",
                f"{ind}    I({self._at(base, rel)}); V({x} if -1.0 <= {x} <= 1.0 else (1.0 if {x} > 0 else -1.0))",
            ]
            rel += 1
        leafy = stat.keys is None and stat.items is None
        if stat.tokens or (stat.null and not stat.nums and leafy):
            vocab: list[Any] = sorted(stat.tokens) + ([None] if stat.null else [])
            labels = ["null" if t is None else t for t in vocab] + ["other"]
            self.seg(rel, len(labels), path, "one-hot", labels)
            table = self.const({t: rel + i for i, t in enumerate(vocab)})
            other = rel + len(vocab)
            self.lines += [
                f"{ind}if {v} is None or type({v}) is str:",
                f"{ind}    O({self._at(base, f'{table}.get({v}, {other})')})",
            ]
            rel += len(labels)
        elif stat.null:
            self.seg(rel, 1, path, "is null", ["null"])
            self.lines.append(f"{ind}if {v} is None: O({self._at(base, rel)})")
            rel += 1
        if stat.keys is not None:
            self.lines.append(f"{ind}if type({v}) is dict:")
            self.lines.append(f"{ind}    pass")
            for k in sorted(stat.keys):
                child = self.var("v")
                sub = stat.keys[k]
                self.lines.append(f"{ind}    {child} = {v}.get({k!r}, M)")
                self.lines.append(f"{ind}    if {child} is not M:")
                inner = ind + "        "
                cached = (
                    self.cache
                    and not path
                    and self._depth == 0
                    and (sub.keys is not None or sub.items is not None)
                )
                if cached:  # a top-level part of the view: reuse its slots while it is unchanged
                    inner = self._cache_open(child, ind + "        ")
                body = len(self.lines)
                rel += self.node(sub, child, base, rel, f"{path}.{k}" if path else k, inner)
                if len(self.lines) == body:
                    self.lines.append(f"{inner}pass")
                if cached:
                    self._cache_close(child, inner)
        if stat.items is not None:
            rel += self._list(stat, v, base, rel, path, ind)
        return rel - start

    def _list(self, stat: _Stat, v: str, base: str, rel: int, path: str, ind: str) -> int:
        items = stat.items
        assert items is not None
        longest = max(stat.lens)
        if stat.compound:
            # A list of dicts/lists: one element layout (a `present` flag, then the element),
            # repeated `longest` times; the code loops with a moving base.
            e, i, b = self.var("e"), self.var("i"), self.var("b")
            self.lines.append(f"{ind}if type({v}) is list:")
            self.lines.append(f"{ind}    for {i}, {e} in enumerate({v}[:{longest}]):")
            body = ind + "        "
            outer = self.cache and self._depth == 0  # outside loops the base is fixed: cacheable
            if outer:
                body = self._cache_open(e, body, slot=i, size=longest)
            stride_at = len(self.lines)
            self.lines.append("")  # the base line, once the stride is known
            self.lines.append(f"{body}O({b})")
            first = len(self.segments)
            self.seg(rel, 1, f"{path}[i]", "present", [])
            self._depth += 1
            stride = 1 + self.node(items, e, b, 1, f"{path}[i]", body)
            self._depth -= 1
            self.lines[stride_at] = f"{body}{b} = {base} + {rel} + {i} * {stride}"
            if outer:
                self._cache_close(e, body, slot=i)
            for seg in self.segments[first:]:
                seg.offset = rel + (seg.offset if seg is not self.segments[first] else 0)
                seg.kind += f" (x{longest}, stride {stride})" if seg is self.segments[first] else ""
            return stride * longest
        if len(stat.lens) == 1 and longest > 0:
            # A fixed-length list of scalars (a pair, a per-player row): one entry per position.
            # (A list that turns out shorter or longer than in every sample is cut or padded.)
            used = 0
            n = self.var("n")
            self.lines.append(f"{ind}if type({v}) is list:")
            self.lines.append(f"{ind}    {n} = len({v})")
            for k in range(longest):
                x = self.var("v")
                self.lines.append(f"{ind}    if {n} > {k}:")
                self.lines.append(f"{ind}        {x} = {v}[{k}]")
                body = len(self.lines)
                used += self.node(
                    stat.pos[k], x, base, rel + used, f"{path}[{k}]", ind + "        "
                )
                if len(self.lines) == body:
                    self.lines.append(f"{ind}        pass")
            return used
        # A list of scalars of varying length: a bag of counts, `other`, and the length.
        vocab: list[Any] = (
            sorted(items.tokens) + sorted(stat.listnums) + ([None] if items.null else [])
        )
        labels = [_token(t) if not isinstance(t, str) else t for t in vocab] + ["other", "length"]
        size = len(labels)
        mult = stat.maxmult
        self.seg(rel, size, path, f"bag: count / {mult}, other, length / {2 * longest}", labels)
        table = self.const({t: rel + k for k, t in enumerate(vocab)})
        other, length_at = rel + len(vocab), rel + len(vocab) + 1
        e = self.var("e")
        self.lines.append(f"{ind}if type({v}) is list:")
        if mult == 1:
            self.lines.append(
                f"{ind}    for {e} in {v}: O({self._at(base, f'{table}.get({e}, {other})')})"
            )
        else:
            cnt = self.var("n")
            self.lines += [
                f"{ind}    {cnt} = {{}}",
                f"{ind}    for {e} in {v}:",
                f"{ind}        {e} = {table}.get({e}, {other}); {cnt}[{e}] = {cnt}.get({e}, 0) + 1",
                f"{ind}    for {e}, {cnt} in {cnt}.items(): I({self._at(base, e)}); V(min(1.0, {cnt} / {mult}))",
            ]
        scale = 1.0 / (2 * longest) if longest else 1.0
        self.lines.append(
            f"{ind}    I({self._at(base, length_at)}); V(min(1.0, len({v}) * {scale!r}))"
        )
        return size

    def compile(self, stat: _Stat) -> tuple[Callable[..., None], int]:
        size = self.node(stat, "view", "0", 0, "", "    ")
        src = (
            "def emit(view, ones, idx, val):\n    O = ones.append; I = idx.append; V = val.append\n"
            + "\n".join(self.lines)
        )
        namespace: dict[str, Any] = {"M": _MISSING, "NEVER": _NEVER, **self.consts}
        exec(compile(src, "<meeple.interop.tensor>", "exec"), namespace)  # noqa: S102
        self.source = src
        return namespace["emit"], size


_MISSING = object()
_NEVER = (object(), (), (), ())  # a cache entry no view value equals
CACHE_TRIAL = 64  # misses before a cache site judges whether it pays


@dataclass
class Encoding:
    """The observation tensor layout of one game configuration, and its encoder."""

    game: str
    players: int
    options: dict[str, Any]
    shape: tuple[int, ...]
    segments: list[Segment]
    source: str  # "generic" or "game"
    _encode: Callable[[State, int | None], np.ndarray]

    @property
    def size(self) -> int:
        size = self.__dict__.get("_size")
        if size is None:
            size = self.__dict__["_size"] = int(np.prod(self.shape))
        return size

    def encode(self, state: State, player: int | None) -> np.ndarray:
        """The tensor of ``state`` as ``player`` sees it (float32, flat, of length `size`)."""
        return self._encode(state, player)

    def __reduce__(self) -> tuple[Any, ...]:
        # The encoder is generated code; another process rebuilds it (same seeds, same layout).
        return (encoding, (self.game, self.players, self.options))


def _sample_views(info: GameInfo, players: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Views from random games: each step one player's view (in turn), every view at the end.

    Games are spread over the budget so long games do not crowd out the endings of others.
    """
    views: list[dict[str, Any]] = []
    rng = random.Random(SAMPLE_SEED)
    per_game = SAMPLE_VIEWS // SAMPLE_GAMES
    for g in range(SAMPLE_GAMES):
        state = meeple.make(info.id, players=players, seed=SAMPLE_SEED + g, **options)
        for _ in range(MAX_STEPS):  # first play the game, then replay it, taking views
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        actions = state.history
        stride = max(1, len(actions) // per_game)
        again = meeple.make(info.id, players=players, seed=SAMPLE_SEED + g, **options)
        for i, action in enumerate(actions):
            if i % stride == 0:
                views.append(again.view((g + i) % players))
            again.apply(action)
        views.extend(again.view(p) for p in range(players))
    return views


def _generic(info: GameInfo, players: int, options: dict[str, Any], cache: bool = True) -> Encoding:
    root = _Stat()
    for view in _sample_views(info, players, options):
        root.add(view)
    if root.keys is not None:
        root.keys.pop(SKIPPED_KEY, None)
    gen = _Gen(cache)
    emit, size = gen.compile(root)

    def encode(state: State, player: int | None) -> np.ndarray:
        ones: list[int] = []
        idx: list[int] = []
        val: list[float] = []
        emit(state.view(player), ones, idx, val)
        out = np.zeros(size, np.float32)
        out.put(ones, 1.0)
        out.put(idx, val)
        return out

    return Encoding(info.id, players, dict(options), (size,), gen.segments, "generic", encode)


def _from_hook(info: GameInfo, players: int, options: dict[str, Any]) -> Encoding | None:
    hooks = tensor_hooks(info)
    shape_fn, tensor_fn = hooks.observation_tensor_shape, hooks.observation_tensor
    if shape_fn is None or tensor_fn is None:
        return None
    shape = tuple(int(n) for n in shape_fn(players, dict(options)))
    size = int(np.prod(shape))

    def encode(state: State, player: int | None) -> np.ndarray:
        out: Any = tensor_fn(state, player)  # an ndarray, usually
        if type(out) is np.ndarray and out.dtype == np.float32 and out.shape == (size,):
            return out  # already flat float32 (the usual case: no copy, no checks)
        out = np.asarray(out, dtype=np.float32).reshape(-1)
        if out.shape != (size,):
            raise ValueError(f"{info.id}.observation_tensor gave {out.shape}, expected ({size},)")
        return out

    seg = Segment(0, size, "(game-defined)", "see the game's rulings page", [])
    return Encoding(info.id, players, dict(options), shape, [seg], "game", encode)


def encoding(game: str, players: int, options: dict[str, Any] | None = None) -> Encoding:
    """The observation tensor encoding of ``game`` with ``players`` and ``options`` (cached)."""
    info = meeple.game_info(game)
    resolved = info.resolve_options(players, dict(options or {}))
    return _encoding(game, players, json.dumps(resolved, sort_keys=True))


@cache
def _encoding(game: str, players: int, options_json: str) -> Encoding:
    info = meeple.game_info(game)
    options = json.loads(options_json)
    return _from_hook(info, players, options) or _generic(info, players, options)


def layout(game: str, players: int, options: dict[str, Any] | None = None) -> str:
    """The layout as a Markdown table (for docs/interop.md)."""
    enc = encoding(game, players, options)
    lines = [
        f"`{game}`, {players} players, {enc.source} encoding, {enc.size} floats:",
        "",
        "| offset | size | view path | encoding | slots |",
        "|---:|---:|---|---|---|",
    ]
    for s in enc.segments:
        labels = ", ".join(s.labels)
        if len(labels) > 80:
            labels = labels[:77] + "..."
        lines.append(f"| {s.offset} | {s.size} | `{s.path}` | {s.kind} | {labels} |")
    return "\n".join(lines)


def docs_section() -> str:
    """Every game's layout (fewest players) and its size at every player count, as Markdown."""
    parts = []
    for g in meeple.games():
        info = meeple.game_info(g["id"])
        sizes = ", ".join(f"{p} players: {encoding(info.id, p).size}" for p in info.player_counts)
        parts += [f"### {info.title} (`{info.id}`)", "", f"Sizes (default options): {sizes}.", ""]
        parts += [layout(info.id, min(info.player_counts)), ""]
    return "\n".join(parts)


def _main(argv: Sequence[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Print observation tensor layouts (Markdown).")
    parser.add_argument("game", nargs="?", help="one game (default: every game, for the docs)")
    parser.add_argument("--players", type=int, default=None)
    args = parser.parse_args(argv)
    if args.game is None:
        print(docs_section())
        return
    info = meeple.game_info(args.game)
    print(layout(args.game, args.players or min(info.player_counts)))


if __name__ == "__main__":
    _main()
