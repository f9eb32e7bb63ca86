"""Log lines and choice labels in words.

Every event `State.log(p)` returns carries a ``text`` sentence made by the game, for each seat
and for spectators; no sentence and no `describe` label shows an internal identifier (snake_case
words, JSON, braces, card codes, coordinates). Random games of every game and player count.
"""

from __future__ import annotations

import random
import re

import pytest

import meeple

# What a player of the physical game never reads: snake_case words, JSON and brackets, codes
# such as "sun2" or "move-8", programmers' constants, "P0"-style seat names, "16,17" coordinates.
IDENT = re.compile(
    r"[{}\[\]\"\\]|\b[A-Za-z]+_\w+|\b[a-z]+\d|\b[a-z]+-\d|\b(None|True|False|null|true|false)\b"
    r"|\bP\d\b|\d,\d|\bSeat \d"
)
# Games per player count: enough to meet every kind of event, and a few seconds in all.
GAMES = {"trickarus": 20, "savage_bowl": 10, "scarvus": 10, "zarcana": 10, "karvi": 6}
# Options whose rules log events of their own, played once per player count they allow.
VARIANTS = {
    "trickarus": [{"mode": "cooperative"}, {"lightning_variant": True}],
    "savage_bowl": [{"chameleons": False}],
    "scarvus": [{"fancy_flying": True, "talons": True}, {"daedalus": True, "lives": 3}],
    "zarcana": [{"unreducible": "unharmed", "harvest_own": True, "tiebreak": True}],
    "karvi": [{"draw_two": True, "draft_start": True}, {"less_luck": True, "variety": True, "chaos": True}],
}


def play(game: str, players: int, seed: int, labels: set[str], **options: object) -> meeple.State:
    state = meeple.make(game, players=players, seed=seed, **options)
    rng = random.Random(seed)
    while not state.is_over():
        legal = state.legal_actions()
        for a in legal if len(legal) <= 40 else rng.sample(legal, 40):
            labels.add(state.describe(a))
        state.apply(rng.choice(legal))
    return state


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_event_has_a_sentence_and_no_identifier(game: str) -> None:
    info = meeple.game_info(game)
    labels: set[str] = set()
    sentences: dict[str, str] = {}
    runs = [(players, seed, {}) for players in info.player_counts for seed in range(GAMES[game])]
    runs += [(players, 99, opts) for players in info.player_counts for opts in VARIANTS[game]]
    for players, seed, options in runs:
        try:
            state = play(game, players, seed, labels, **options)
        except (meeple.BadPlayerCount, meeple.BadOption):
            continue  # an option this player count does not take
        for viewer in [None, *range(players)]:
            for event in state.log(viewer):
                text = event.get("text")
                assert isinstance(text, str) and text.strip(), event
                assert not IDENT.search(text), (viewer, text, event)
                assert not text.startswith("Their"), text  # a sentence names who acts
                sentences.setdefault(event.get("type", str(sorted(event))), text)
    for label in labels:
        assert label.strip() and not IDENT.search(label), label
    assert sentences  # (printed on failure: one sentence per kind of event)


def test_text_speaks_to_the_reading_seat() -> None:
    state = meeple.make("trickarus", players=3, seed=1)
    state.apply(state.legal_actions()[0])
    mine = next(e["text"] for e in state.log(0) if e["type"] == "play")
    theirs = next(e["text"] for e in state.log(1) if e["type"] == "play")
    assert mine.startswith("You play") and theirs.startswith("Player 1 plays")
    assert next(e["text"] for e in state.log(None) if e["type"] == "play") == theirs
    assert all("text" not in e for e in state.log(0, text=False))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_sentence_says_nothing_its_seat_may_not_know(game: str) -> None:
    """The sentence comes from the event and the seat alone: a world in which everything the
    seat cannot know is resampled (`determinize`) words every event of its log the same way."""
    info = meeple.game_info(game)
    for players in info.player_counts:
        state = play(game, players, 5, set())
        for seat in range(players):
            other = state.determinize(seat, random.Random(seat))
            for event in state.log(seat, text=False):
                assert other._event_text(event, seat) == state._event_text(event, seat), event


def test_the_end_of_a_game_names_its_winners_from_the_readers_seat() -> None:
    from meeple.core.text import winners

    assert winners([1], 1) == "Game over: you win"
    assert winners([1], 0) == "Game over: Player 2 wins"
    assert winners([0, 2], None) == "Game over: Player 1 and Player 3 win"
    assert winners([0, 1, 3], 1) == "Game over: Player 1, you and Player 4 win"
