"""The game registry: every sub-package of `meeple.games` that exports ``GAME`` is a game.

Adding a game is adding a folder; nothing here needs editing (docs/api.md, "Adding a game").
A package that defines a hook the old way, as an upper-case module attribute instead of a
`GameInfo` field, is refused with a message naming the field (`meeple.core.hooks.check_package`).

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
from meeple.core.hooks import check_package


@cache
def registry() -> dict[str, GameInfo]:
    found: dict[str, GameInfo] = {}
    for mod in pkgutil.iter_modules(__path__):
        if not mod.ispkg:
            continue
        info = package_game(importlib.import_module(f"{__name__}.{mod.name}"))
        if info is not None:
            found[info.id] = info
    return dict(sorted(found.items()))


def package_game(module: types.ModuleType) -> GameInfo | None:
    """The game a package registers (its ``GAME``), its hooks checked; None for a package
    that is no game. Raises `meeple.core.HookError` for a hook given the old way."""
    info = vars(module).get("GAME")
    if not isinstance(info, GameInfo):
        return None
    check_package(module, info)
    return info


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
