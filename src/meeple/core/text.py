"""Words for log lines: who did it, seen from the seat that reads the log.

A game's `State._event_text` builds each event's sentence with these, so every game says
"You play" to the seat that played and "Player 2 plays" to everyone else (spectators too).

Inside `seat_names(names)` (which `State.log(..., names=...)` opens) everyone else is called
by the name on their seat instead ("boardgamer plays", "Bot 2 (easy) plays"). Why a context
and not an argument: the names reach every helper below from the one place that knows them
(the table, the terminal, the replay), without threading them through each game's sentence
code; without names, sentences keep "Player N", as records and the API always had them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

_NAMES: ContextVar[Sequence[str | None] | None] = ContextVar("meeple_seat_names", default=None)


@contextmanager
def seat_names(names: Sequence[str | None] | None) -> Iterator[None]:
    """Within this block, sentences call seat ``p`` by ``names[p]`` (a missing or empty name
    stays "Player N")."""
    token = _NAMES.set(list(names) if names is not None else None)
    try:
        yield
    finally:
        _NAMES.reset(token)


def seat(p: int) -> str:
    """Seat ``p`` as sentences call someone else: its name, or "Player N" (1-based)."""
    names = _NAMES.get()
    if names is not None and 0 <= p < len(names):
        given = names[p]
        if given:
            return given
    return f"Player {p + 1}"


def who(p: int, viewer: int | None) -> str:
    """"You" for the reading seat, the seat's name (or "Player N") for anyone else."""
    return "You" if p == viewer else seat(p)


def name(p: int, viewer: int | None) -> str:
    """`who` inside a sentence: "you" or the seat's name."""
    return "you" if p == viewer else seat(p)


def does(p: int, viewer: int | None, you: str, other: str) -> str:
    """The subject and its verb: ``does(1, 1, "play", "plays")`` is "You play"."""
    return f"You {you}" if p == viewer else f"{seat(p)} {other}"


def whose(p: int, viewer: int | None) -> str:
    """"your" for the reading seat, "boardgamer's" (or "Player N's") for anyone else."""
    return "your" if p == viewer else f"{seat(p)}'s"


def capital(text: str) -> str:
    """``text`` opening a sentence: its first letter upper-case ("Your ship"), unless it opens
    with a seat's name, which keeps its own spelling ("boardgamer's ship")."""
    names = _NAMES.get()
    if names is not None and any(n and text.startswith(n) for n in names):
        return text
    return text[:1].upper() + text[1:]


def plural(n: int, word: str, many: str | None = None) -> str:
    """"1 card", "3 cards" (``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def winners(best: list[int], viewer: int | None) -> str:
    """The end of a game: "Game over: you win", "Game over: Player 1 and Player 3 win"."""
    verb = "win" if len(best) > 1 or best[0] == viewer else "wins"
    return f"Game over: {listing(name(p, viewer) for p in best)} {verb}"


def listing(items: Iterable[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    xs = list(items)
    if len(xs) <= 1:
        return "".join(xs)
    return ", ".join(xs[:-1]) + " and " + xs[-1]
