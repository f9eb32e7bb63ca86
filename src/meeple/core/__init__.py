"""The engine core: the game contract, seeded randomness, records and errors."""

from .errors import (
    BadOption,
    BadPlayerCount,
    BadRecord,
    IllegalAction,
    MeepleError,
    UnknownGame,
)
from .game import RECORD_FORMAT, GameInfo, Option, State, replaced
from .rng import derive, new_salt

__all__ = [
    "RECORD_FORMAT",
    "BadOption",
    "BadPlayerCount",
    "BadRecord",
    "GameInfo",
    "IllegalAction",
    "MeepleError",
    "Option",
    "State",
    "UnknownGame",
    "derive",
    "new_salt",
    "replaced",
]
