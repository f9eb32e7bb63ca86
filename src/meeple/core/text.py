"""Words for log lines: who did it, seen from the seat that reads the log.

A game's `State._event_text` builds each event's sentence with these, so every game says
"You play" to the seat that played and "Player 2 plays" to everyone else (spectators too).
"""

from __future__ import annotations

from collections.abc import Iterable


def who(p: int, viewer: int | None) -> str:
    """"You" for the reading seat, "Player N" (1-based) for anyone else."""
    return "You" if p == viewer else f"Player {p + 1}"


def name(p: int, viewer: int | None) -> str:
    """`who` inside a sentence: "you" or "Player N"."""
    return "you" if p == viewer else f"Player {p + 1}"


def does(p: int, viewer: int | None, you: str, other: str) -> str:
    """The subject and its verb: ``does(1, 1, "play", "plays")`` is "You play"."""
    return f"You {you}" if p == viewer else f"Player {p + 1} {other}"


def whose(p: int, viewer: int | None) -> str:
    """"your" for the reading seat, "Player N's" for anyone else."""
    return "your" if p == viewer else f"Player {p + 1}'s"


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
