"""A state as plain JSON and back, for a *sampled world*: what a remote bot may rebuild.

A bot that runs outside the server and needs a `State` (anything but ``random``) gets, with each
of its turns, a world the server sampled with `State.determinize` for its seat. Only such a
world is ever written out: `dump_world` takes a state and a seat, determinizes it with the
caller's RNG, and then removes the two things a determinized copy still holds from the real
game: the ``seed`` (with salt 0 it would give back the real deal) becomes a fresh random one,
and ``history`` (other seats' actions, some of them hidden: a card passed face down) becomes as
many zeros, so that only its length, which games read, is kept. The event log keeps only what
the seat saw (public events and its own), as `State.determinize` gives it: some bots read it.

Why not pickle: a client must never unpickle what a server sends (unpickling runs code). The
format here is data only: JSON with a few tagged forms (``{"$t": [...]}`` a tuple, ``"$s"`` a
set, ``"$f"`` a frozenset, ``"$b"`` bytes (hex), ``"$d"`` a dict whose keys are not all strings, ``"$o"`` an object
of a class defined in the game's own package, rebuilt attribute by attribute without calling
its ``__init__``). Attributes equal to those of a fresh state of the same game, options and
(new) seed are left out: the receiver makes that fresh state and overwrites the rest, so the
game's fixed data (maps, card tables) is not sent and stays shared as the game expects.

Attributes are read the way pickle reads them: ``__mypyc_attrs__`` on a compiled class, else
the instance ``__dict__`` and ``__slots__``; so it works on the compiled engine and on pure
Python alike. `tests/test_worlds.py` round-trips every game and checks that the rebuilt world
offers the same legal actions and views and plays on alike.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from .game import State

FORMAT = 1
_SCALARS = (type(None), bool, int, float, str)


class WorldError(ValueError):
    """A world that cannot be written or read (an attribute of a kind this format lacks)."""


def _attr_names(obj: Any) -> list[str]:
    cls = type(obj)
    names = getattr(cls, "__mypyc_attrs__", None)
    out: list[str] = []
    if names is not None:
        out = [n for n in names if n != "__dict__"]
    else:
        for klass in cls.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            out.extend([slots] if isinstance(slots, str) else slots)
    out.extend(getattr(obj, "__dict__", {}))
    seen: set[str] = set()
    return [n for n in out if not (n in seen or seen.add(n)) and n != "__weakref__"]


def attributes(obj: Any) -> dict[str, Any]:
    """Every attribute set on ``obj`` (unset slots are left out)."""
    out = {}
    missing = object()
    for name in _attr_names(obj):
        value = getattr(obj, name, missing)
        if value is not missing:
            out[name] = value
    return out


def _encoder(package: str) -> Callable[[Any], Any]:
    def enc(v: Any) -> Any:
        t = type(v)
        if t in _SCALARS:
            return v
        if t is list:
            return [enc(x) for x in v]
        if t is tuple:
            return {"$t": [enc(x) for x in v]}
        if t is bytes:
            return {"$b": v.hex()}
        if t is set or t is frozenset:
            return {"$s" if t is set else "$f": [enc(x) for x in sorted(v, key=repr)]}
        if t is dict:
            if all(type(k) is str and not k.startswith("$") for k in v):
                return {k: enc(x) for k, x in v.items()}
            return {"$d": [[enc(k), enc(x)] for k, x in v.items()]}
        if t.__module__.startswith(package):
            return {
                "$o": f"{t.__module__}:{t.__qualname__}",
                "a": {k: enc(x) for k, x in attributes(v).items()},
            }
        raise WorldError(f"cannot write a {t.__module__}.{t.__qualname__} into a world")

    return enc


def _decoder(package: str) -> Callable[[Any], Any]:
    def dec(v: Any) -> Any:
        t = type(v)
        if t in _SCALARS:
            return v
        if t is list:
            return [dec(x) for x in v]
        if t is not dict:
            raise WorldError(f"unexpected {t.__name__} in a world")
        if len(v) == 1:
            ((tag, body),) = v.items()
            if tag == "$t":
                return tuple(dec(x) for x in body)
            if tag == "$s":
                return {dec(x) for x in body}
            if tag == "$f":
                return frozenset(dec(x) for x in body)
            if tag == "$b":
                return bytes.fromhex(body)
            if tag == "$d":
                return {dec(k): dec(x) for k, x in body}
        if "$o" in v:
            return _new_object(str(v["$o"]), package, {k: dec(x) for k, x in v["a"].items()})
        return {k: dec(x) for k, x in v.items()}

    return dec


def _new_object(name: str, package: str, attrs: dict[str, Any]) -> Any:
    """An object of a class of the game's own package (already imported by the game: nothing
    is imported here), made without ``__init__`` and given its attributes."""
    module, _, qualname = name.partition(":")
    if not (module == package or module.startswith(package + ".")) or module not in sys.modules:
        raise WorldError(f"a world may not name {name!r}")
    cls: Any = sys.modules[module]
    for part in qualname.split("."):
        cls = getattr(cls, part, None)
    if not isinstance(cls, type) or cls.__module__ != module:
        raise WorldError(f"no class {name!r}")
    obj = cls.__new__(cls)
    for k, x in attrs.items():
        setattr(obj, k, x)
    return obj


def _package(state: State) -> str:
    module = type(state).__module__
    return module.rsplit(".", 1)[0] if module.count(".") >= 2 else module


def dump_world(
    state: State, seat: int, rng: random.Random, fresh: Callable[[int], State]
) -> dict[str, Any]:
    """A world for ``seat`` sampled from ``state`` (see the module's docstring), as JSON.

    ``fresh(seed)`` makes a new state of the same game, player count and options with that seed
    (``lambda s: meeple.make(game, players, s, **options)``)."""
    world = state.determinize(seat, rng, keep_log=True)
    world.seed = rng.getrandbits(62)
    world.history = [0] * len(world.history)
    return {**write_state(world, fresh), "seat": seat}


def write_state(state: State, fresh: Callable[[int], State]) -> dict[str, Any]:
    """Any state as JSON, exactly (`read_state` gives it back). Only `dump_world` may send one
    to anyone: a real game's state holds its seed and every hidden card."""
    base = attributes(fresh(state.seed))
    enc = _encoder(_package(state))
    attrs: dict[str, Any] = {}
    for name, value in attributes(state).items():
        if (
            name != "seed"
            and name in base
            and type(base[name]) is type(value)
            and _same(base[name], value)
        ):
            continue
        attrs[name] = enc(value)
    return {
        "format": FORMAT,
        "game": state.info.id,
        "players": state.players,
        "options": dict(state.options),
        "seed": state.seed,
        "attrs": attrs,
    }


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a is b or a == b)
    except Exception:  # a value whose == is not a truth value (an array)
        return False


def read_state(data: dict[str, Any], fresh: Callable[[int], State]) -> State:
    """The state `dump_world` (or `write_state`) wrote. ``fresh(seed)`` as there, for ``data``'s game and options."""
    if data.get("format") != FORMAT:
        raise WorldError(f"world format {data.get('format')!r}; this version reads {FORMAT}")
    seed = data.get("seed")
    if type(seed) is not int:
        raise WorldError("a world names its seed")
    state = fresh(seed)
    dec = _decoder(_package(state))
    for name, value in dict(data.get("attrs") or {}).items():
        if not isinstance(name, str) or name.startswith("__"):
            raise WorldError(f"bad attribute name {name!r}")
        try:
            setattr(state, name, dec(value))
        except (TypeError, AttributeError) as exc:
            raise WorldError(f"attribute {name!r}: {exc}") from None
    return state
