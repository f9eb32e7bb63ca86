"""Every sentence names people: `State.log(p, names=...)` calls each other seat by the name on it
and the reader "you"; without names a sentence keeps "Player N", so records and the API read
as before. Random games of every game and player count (the engine's side of the log text).
"""

from __future__ import annotations

import random
import re

import pytest

import meeple
from meeple.core.text import seat_names

NAMES = ["boardgamer", "Bot 2 (easy)", "friend3", "Åsa Ö", "Bot 5 (hard)", "Zed", "Bot 7 (medium)"]
GAMES = {"trickarus": 4, "savage_bowl": 2, "scarvus": 3, "zarcana": 3, "karvi": 1}
PLAYER_N = re.compile(r"\bPlayer \d\b")


def random_game(game: str, players: int, seed: int) -> meeple.State:
    state = meeple.make(game, players=players, seed=seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("game", sorted(GAMES))
def test_sentences_call_other_seats_by_name_and_the_reader_you(game: str) -> None:
    """With names, no sentence says "Player N"; putting "Player N" back for each name gives
    exactly the sentence without names (so only the names changed, and every seat's line
    names the same seat it did)."""
    for players in meeple.game_info(game).player_counts:
        for seed in range(GAMES[game]):
            state = random_game(game, players, seed)
            names = NAMES[:players]
            for viewer in [None, *range(players)]:
                plain = state.log(viewer)
                named = state.log(viewer, names=names)
                assert len(plain) == len(named)
                said = set()
                for a, b in zip(plain, named, strict=True):
                    assert not PLAYER_N.search(b["text"]), b["text"]
                    if viewer is not None:
                        assert names[viewer] not in b["text"], b["text"]  # the reader is "you"
                    back = b["text"]
                    for p in sorted(range(players), key=lambda q: -len(names[q])):
                        back = back.replace(names[p], f"Player {p + 1}")
                    assert back == a["text"]
                    said |= {p for p in range(players) if names[p] in b["text"]}
                others = set(range(players)) - {viewer}
                assert said & others, (game, players, viewer)  # people are named at all


def test_without_names_sentences_keep_player_n() -> None:
    state = meeple.make("trickarus", players=3, seed=1)
    state.apply(state.legal_actions()[0])
    assert next(e["text"] for e in state.log(1) if e["type"] == "play").startswith("Player 1 plays")
    named = state.log(1, names=["boardgamer", "Bot 2 (easy)", "Bot 3 (easy)"])
    assert next(e["text"] for e in named if e["type"] == "play").startswith("boardgamer plays")
    mine = state.log(0, names=["boardgamer", "Bot 2 (easy)", "Bot 3 (easy)"])
    assert next(e["text"] for e in mine if e["type"] == "play").startswith("You play")
    # a seat with no name yet (open, invited) stays "Player N"
    unnamed = state.log(1, names=[None, "Bot 2 (easy)", ""])
    assert next(e["text"] for e in unnamed if e["type"] == "play").startswith("Player 1 plays")
    # the names apply only inside the call
    assert next(e["text"] for e in state.log(2) if e["type"] == "play").startswith("Player 1 plays")


def test_winners_and_labels_name_seats_inside_seat_names() -> None:
    from meeple.core.text import whose, winners

    with seat_names(["boardgamer", "Bot 2 (easy)", "friend3"]):
        assert winners([0, 2], 1) == "Game over: boardgamer and friend3 win"
        assert winners([1], 1) == "Game over: you win"
        assert whose(1, 0) == "Bot 2 (easy)'s"
    assert winners([0, 2], 1) == "Game over: Player 1 and Player 3 win"


def test_a_choice_naming_another_seat_uses_its_name() -> None:
    """Scarvus' Flight cards aimed at a player ("play Steal on ...") say whom by name."""
    state = meeple.make("scarvus", players=3, seed=0, fancy_flying=True)
    rng = random.Random(0)
    for _ in range(4000):
        if state.is_over():
            break
        legal = state.legal_actions()
        aimed = [a for a in legal if "player" in state.action_to_json(a)]
        if aimed:
            a = aimed[0]
            plain = state.describe(a)
            with seat_names(["boardgamer", "Bot 2 (easy)", "friend3"]):
                named = state.describe(a)
            target = state.action_to_json(a)["player"]
            assert f"Player {target + 1}" in plain
            assert ["boardgamer", "Bot 2 (easy)", "friend3"][target] in named and "Player" not in named
            return
        state.apply(rng.choice(legal))
    pytest.skip("no Flight card aimed at a player came up")


def test_the_terminal_table_says_1_card_not_1_cards() -> None:
    state = meeple.make("savage_bowl", players=4, seed=1)
    view = state.view(1)
    view["hand_sizes"][0], view["tricks_won"][0], view["points"][0] = 1, 1, 1
    text = meeple.game_info("savage_bowl").text_renderer(view)
    assert "P1: 1 point, 1 trick, 1 card" in text
    assert not re.search(r"\b1 (cards|tricks|points|pts)\b", text)


ONE_MANY = re.compile(r"(?<!Player )\b1 (\w+ )?(cards|tricks|points|tiles|posts|towers|warriors|feathers|provisions|pips)\b")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_sentence_label_or_tile_text_says_1_cards(game: str) -> None:
    """"1 card", never "1 cards": every log line, every choice label and Karvi's tile texts."""
    info = meeple.game_info(game)
    for players in info.player_counts:
        state = meeple.make(game, players=players, seed=3)
        rng = random.Random(3)
        texts: list[str] = []
        while not state.is_over():
            legal = state.legal_actions()
            texts += [state.describe(a) for a in legal[:60]]
            view = state.view(state.to_move)
            for pl in view.get("players", []) if isinstance(view.get("players"), list) else []:
                texts += pl.get("tiles_text", [])
            state.apply(rng.choice(legal))
        texts += [e["text"] for p in [None, *range(players)] for e in state.log(p)]
        texts += [label for lines in state.final_scoring() for label, _ in lines]
        bad = sorted({t for t in texts if ONE_MANY.search(t)})
        assert not bad, bad[:5]
