"""The game registry: every sub-package of `meeple.games` that exports ``GAME`` is a game.

Adding a game is adding a folder; nothing here needs editing.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

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
