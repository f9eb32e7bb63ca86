"""Flat tensor layouts shared by the games' tensor hooks: named blocks laid end to end."""

from __future__ import annotations

from collections.abc import Iterable


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
