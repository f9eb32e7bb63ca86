"""meeple: five modern tabletop games on one engine.

>>> import meeple
>>> state = meeple.make("trickarus", players=4, seed=7)
>>> state.apply(state.legal_actions()[0])
"""

from __future__ import annotations

from typing import Any

from meeple._pure import use_pure_if_stale

use_pure_if_stale()  # before any compiled module can be imported (setup.py)

import meeple.games as games  # noqa: E402  (the games package, callable: `games()` lists them)
from meeple.core import (  # noqa: E402
    RECORD_FORMAT,
    BadOption,
    BadPlayerCount,
    BadRecord,
    GameInfo,
    IllegalAction,
    MeepleError,
    Option,
    State,
    UnknownGame,
)

__version__ = "0.1.0"


def list_games() -> list[dict[str, Any]]:
    """Every game: id, title, description, player counts, options (default, choices, description).

    ``meeple.games()`` is the same call: `meeple.games` is the games package, made callable."""
    return games.list_games()


def game_info(game_id: str) -> GameInfo:
    """The `GameInfo` of ``game_id``; `UnknownGame` names the games if there is none."""
    return games.get(game_id)


def make(game_id: str, players: int, seed: int = 0, **options: Any) -> State:
    """A new game. Unknown game, player count or option value raise a `ValueError` subclass."""
    info = game_info(game_id)
    if type(seed) is not int:
        raise BadOption(f"seed must be an int, not {seed!r}")
    resolved = info.resolve_options(players, options)
    return info.state_factory(players, seed, resolved)


def analyse(record: dict[str, Any], seat: int, depth: str = "quick", **kwargs: Any) -> Any:
    """Post-game analysis of ``seat``'s decisions in ``record``: `meeple.bots.analysis.analyse`."""
    from meeple.bots.analysis import analyse as _analyse

    return _analyse(record, seat, depth, **kwargs)


def replay(record: dict[str, Any], upto: int | None = None) -> State:
    """Rebuild the state a record describes (optionally only its first ``upto`` actions)."""
    try:
        if record.get("format") != RECORD_FORMAT:
            raise BadRecord(f"not a meeple record (format {record.get('format')!r})")
        state = make(record["game"], record["players"], record["seed"], **record["options"])
        actions = record["actions"]
    except (KeyError, TypeError, AttributeError) as exc:
        raise BadRecord(f"malformed record: {exc!r}") from exc
    for i, action in enumerate(actions[:upto] if upto is not None else actions):
        try:
            state.apply(action)
        except IllegalAction as exc:
            raise BadRecord(f"action #{i} does not replay: {exc}") from exc
    return state


__all__ = [
    "BadOption",
    "BadPlayerCount",
    "BadRecord",
    "GameInfo",
    "IllegalAction",
    "MeepleError",
    "Option",
    "State",
    "UnknownGame",
    "analyse",
    "game_info",
    "games",
    "list_games",
    "make",
    "replay",
]
