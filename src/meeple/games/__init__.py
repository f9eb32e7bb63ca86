"""The game registry: every sub-package of `meeple.games` that exports ``GAME`` is a game.

Adding a game is adding a folder; nothing here needs editing.

The package is also callable: ``meeple.games()`` lists the games (the same as
`meeple.list_games`), so the listing and ``import meeple.games.<id>.rules`` share one name.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import types
from functools import cache
from typing import Any

from meeple.core import GameInfo, UnknownGame


@cache
def registry() -> dict[str, GameInfo]:
    found: dict[str, GameInfo] = {}
    for mod in pkgutil.iter_modules(__path__):
        if not mod.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{mod.name}")
        info = getattr(module, "GAME", None)
        if isinstance(info, GameInfo):
            found[info.id] = info
    return dict(sorted(found.items()))


def get(game_id: str) -> GameInfo:
    games = registry()
    if game_id not in games:
        raise UnknownGame(f"no game {game_id!r}; games are: {', '.join(games)}")
    return games[game_id]


def list_games() -> list[dict[str, Any]]:
    """Every game: id, title, description, player counts, options (default, choices, description)."""
    return [info.to_json() for info in registry().values()]


class _CallablePackage(types.ModuleType):
    """This package, callable as `list_games`: ``meeple.games()`` predates the package being
    reachable as ``meeple.games`` and keeps working."""

    def __call__(self) -> list[dict[str, Any]]:
        return list_games()


sys.modules[__name__].__class__ = _CallablePackage
