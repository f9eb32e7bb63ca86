"""Errors raised by the engine. All are `ValueError`s so callers can catch broadly."""


class MeepleError(ValueError):
    """Base class of every error the engine raises on bad input."""


class UnknownGame(MeepleError):
    """No game has this id."""


class BadPlayerCount(MeepleError):
    """The game does not support this many players (with these options)."""


class BadOption(MeepleError):
    """An unknown option, or a value the option does not allow."""


class IllegalAction(MeepleError):
    """The action is not legal now, or JSON names no legal action. The state is unchanged."""


class BadRecord(MeepleError):
    """A game record is malformed or does not replay."""
