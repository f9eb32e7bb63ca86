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
from .hooks import AnalysisHooks, HookError, SearchHooks, TensorHooks, soft_place
from .rng import derive, new_salt

__all__ = [
    "RECORD_FORMAT",
    "AnalysisHooks",
    "BadOption",
    "BadPlayerCount",
    "BadRecord",
    "GameInfo",
    "HookError",
    "IllegalAction",
    "MeepleError",
    "Option",
    "SearchHooks",
    "State",
    "TensorHooks",
    "soft_place",
    "UnknownGame",
    "derive",
    "new_salt",
    "replaced",
]
