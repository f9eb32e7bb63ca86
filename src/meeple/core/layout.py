"""Flat tensor layouts shared by the games' tensor hooks: named blocks laid end to end."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def offsets(blocks: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Each block's first index, blocks in the order given, plus ``"size"``, the total length.

    One definition so that every game's layout is read the same way (docs/interop.md)."""
    out: dict[str, int] = {}
    at = 0
    for name, size in blocks:
        out[name] = at
        at += size
    out["size"] = at
    return out


class PerPosition:
    """The part of a tensor every observer shares, built once per position: each observer asks
    in turn at the same position, so the last one built is kept, keyed by the state object and
    its history length (a state changes only by `apply`, which lengthens it; a clone that moves
    apart is another object, and holding the reference keeps its id from being reused)."""

    __slots__ = ("state", "moves", "value")

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.state: object = None
        self.moves = -1
        self.value: Any = None

    def get(self, state: Any, build: Callable[[Any], Any]) -> Any:
        """``build(state)``, or the value built for this very position."""
        moves = len(state.history)
        if self.state is not state or self.moves != moves:
            self.state, self.moves, self.value = state, moves, build(state)
        return self.value
