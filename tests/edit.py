"""Setting up a position by hand in a game whose state holds tuples and read-only dicts (Karvi:
copies share them, so play replaces them and never changes them in place)."""

from __future__ import annotations

from typing import Any


def put(obj: Any, attr: str, key: Any, value: Any) -> None:
    """``obj.attr[key] = value`` for a tuple or a dict: the attribute is replaced."""
    assert not isinstance(value, (list, set, dict)), "a tuple, as the rules hold it"
    old = getattr(obj, attr)
    if isinstance(old, tuple):
        new: Any = list(old)
        new[key] = value
        setattr(obj, attr, tuple(new))
    else:
        setattr(obj, attr, {**old, key: value})


def add(obj: Any, attr: str, key: Any, n: Any) -> None:
    """``obj.attr[key] += n`` for a tuple or a dict."""
    put(obj, attr, key, getattr(obj, attr)[key] + n)
