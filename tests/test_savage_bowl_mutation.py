"""Savage Bowl rules and sentences that a mutation sample found without a test (tools/mutate.py,
docs/mutation.md).

Section names refer to the English rule translation (shared/rules/001); rulings to
docs/games/savage_bowl.md.
"""

from __future__ import annotations

import random

import pytest

from meeple.core import IllegalAction
from meeple.games.savage_bowl.rules import CARD_ID, CODE, COLOUR_MASK, COLOURS, DISCARD_BASE
from test_savage_bowl import at_trick, first_trick, give, make, play


def test_a_player_who_does_not_follow_is_known_void_in_the_led_colour():
    """The Flow of a Round, step 2: a card "must be the same color as the card that the first
    player played if there is any in their hand", so a player who plays another colour (without a
    Chameleon) has none left: determinize never deals them that colour; one who follows is not
    marked void."""
    # (red 13 and blue 4 are next to a card of the other colour in card-id order: the test
    # is of colours, not of neighbouring ids.)
    s = give(
        make(5, chameleons=False),
        {0: "red5 blue2", 1: "red13 blue3", 2: "blue4 green6", 3: "red3 trump1", 4: "blue1 green2"},
    )
    play(s, "red5", "red13", "blue4")
    red = COLOUR_MASK[COLOURS.index("red")]
    assert s.voids == [0, 0, red, 0, 0]
    play(s, "red3", "blue1")
    assert s.voids == [0, 0, red, 0, red]
    for k in range(5):
        d = s.determinize(3, random.Random(k))
        assert not d.hands[2] & red and not d.hands[4] & red


@pytest.mark.parametrize("first", ["original", "clone"])
def test_a_play_on_a_clone_leaves_the_other_log_alone(first):
    """A clone shares its original's event log until either logs again: a card played on one
    never appears in the other's log, every seat's and the spectator's."""
    s = make(4, seed=3)
    rng = random.Random(3)
    for _ in range(2):
        s.apply(rng.choice(s.legal_actions()))
    c = s.clone()
    mover, other = (s, c) if first == "original" else (c, s)
    logs = [other.log(p, text=False) for p in (None, 0, 1, 2, 3)]
    size = other.log_size()
    mover.apply(mover.legal_actions()[0])
    assert other.log_size() == size
    assert [other.log(p, text=False) for p in (None, 0, 1, 2, 3)] == logs
    assert mover.log_size() > size


def test_the_table_is_clear_while_the_yellow_card_holder_discards():
    """The first half, step 3a: the trick is decided and taken before the Yellow Card holder
    discards: nothing is in play during the discard, in the view and in the observation tensor
    (learned bots), for every seat."""
    from meeple.games.savage_bowl.tensor import observation_tensor

    s = first_trick(make(4))
    assert s.view(None)["phase"] == "discard"
    for p in (None, 0, 1, 2, 3):
        v = s.view(p)
        assert v["trick"] == [] and v["lead_colour"] is None
        assert v["last_trick"]["winner"] == 2
        assert observation_tensor(s, p).any()
    play(s, "discard:blue7")
    assert s.view(None)["trick"] == [] and s.to_move == 2


def test_view_shows_the_playing_order_the_seat_sitting_out_and_the_colours_played_as():
    """The first half, step 5: "The player who received the Yellow Card will not be playing the
    next trick" - seat 0 included; the view lists the seats playing the trick, leader first, and
    no order during the discard. What Is Chameleon Card: a card played with the Chameleon counts
    in the colour it copied."""
    s = give(
        make(4),
        {0: "blue9 red11 green2", 1: "red5 blue3", 2: "red9 green4", 3: "red3 green5 blue7"},
    )
    assert s.view(None)["order"] == [0, 1, 2, 3] and s.view(None)["sitting_out"] is None
    play(s, "red11", "red5", "red9", "red3")  # P0 strongest: the Yellow Card; P2 second: wins
    assert s.yellow == 0 and s.view(None)["phase"] == "discard"
    assert s.view(None)["order"] == [] and s.view(None)["sitting_out"] is None
    play(s, "discard:green2")
    v = s.view(1)
    assert v["order"] == [2, 3, 1] and v["sitting_out"] == 0 and v["yellow_card"] == 0
    play(s, "green4", "cham:blue7")  # the Chameleon frees P3 from following green
    trick = s.view(None)["trick"]
    assert [(t["player"], t["code"], t["as"], t["chameleon"]) for t in trick] == [
        (2, "green4", "green", False),
        (3, "blue7", "green", True),
    ]


def test_only_an_eliminated_players_own_view_marks_the_hand_set_aside():
    """The Flow of a Round, step 4: a player eliminated by one trick too many has their hand set
    aside (ruling R9: its owner still sees it, marked set aside); nobody else's is."""
    s = give(
        make(4, chameleons=False),
        {0: "red5 blue1", 1: "red11 blue2", 2: "red3 blue3", 3: "red2 blue4"},
    )
    at_trick(s, 7, [0, 1, 2, 3], [0, 3, 2, 2])
    assert [s.view(p)["set_aside"] for p in range(4)] == [False] * 4
    play(s, "red5", "red11", "red3", "red2")  # P1 wins a 4th trick
    assert [s.view(p)["set_aside"] for p in range(4)] == [False, True, False, False]
    assert [c["code"] for c in s.view(1)["hand"]] == ["blue2"]


def test_the_trick_just_taken_shows_a_chameleon_copy_of_red():
    """Ruling R8: the trick just taken stays face up until the next trick's first card; a card
    played with the Chameleon shows as such and in the colour it copied (What Is Chameleon Card),
    red (the first colour) included."""
    s = give(make(4), {0: "red5 green1", 1: "blue6 blue2", 2: "red9 green3", 3: "red3 green4"})
    play(s, "red5", "cham:blue6", "red9", "red3")
    cards = s.view(None)["last_trick"]["cards"]
    assert [(c["player"], c["code"], c["as"], c["chameleon"]) for c in cards] == [
        (0, "red5", "red", False),
        (1, "blue6", "red", True),
        (2, "red9", "red", False),
        (3, "red3", "red", False),
    ]


def test_only_the_player_to_move_sees_legal_actions_and_places_come_at_the_end():
    """The Flow of a Round: the player to move chooses among their legal plays (their view lists
    them, nobody else's); End of a Game: the places are given once the game is over."""
    s = make(4, seed=2)
    rng = random.Random(2)
    while not s.is_over():
        for p in (None, 0, 1, 2, 3):
            v = s.view(p)
            assert "ranking" not in v
            assert ("legal" in v) == (p == s.to_move)
        assert s.view(s.to_move)["legal"] == s.legal_actions()
        s.apply(rng.choice(s.legal_actions()))
    for p in (None, 0, 3):
        v = s.view(p)
        assert v["ranking"] == s.ranking() and "legal" not in v


def test_determinize_keeps_the_real_deal_when_no_constrained_deal_is_found(monkeypatch):
    """The cards you cannot see (others' hands, the face-down discards) are re-dealt by
    determinize, never against a shown void; should no such deal be found, the real hands and
    discards (which satisfy it) are kept."""
    from meeple.games.savage_bowl import rules

    s = first_trick(make(4))
    play(s, "discard:blue7")
    monkeypatch.setattr(rules, "deal_avoiding", lambda *args: None)
    d = s.determinize(0, random.Random(1))
    assert d.hands == s.hands and d.discards == s.discards and d.sheet == s.sheet


def test_the_discard_action_json():
    """The first half, step 3a: the Yellow Card holder "discards a card from their hand onto the
    Game Progress Sheet": {"discard": code} is that action, refused in words when not legal."""
    s = first_trick(make(4))
    a = s.action_from_json({"discard": "blue7"})
    assert a == DISCARD_BASE + CARD_ID["blue7"] and s.action_to_json(a) == {"discard": "blue7"}
    assert s.describe(a) == "discard Blue 7"
    with pytest.raises(IllegalAction, match=r"^discard Red 9 is not legal now$"):
        s.action_from_json({"discard": "red9"})  # not in P1's hand
    with pytest.raises(IllegalAction, match=r"^play Blue 7 is not legal now$"):
        s.action_from_json({"play": "blue7"})  # a discard is due, not a play


def test_a_determinized_copy_keeps_each_discard_on_the_sheet_face_down_with_its_discarder():
    """The Game Progress Sheet: each discard lies face down there with its discarder; in a
    determinized copy (search) the resampled discard on the sheet is the very card in that
    player's face-down pile, as the discarder's own view of the copy shows."""
    s = first_trick(make(4))
    play(s, "discard:blue7")
    for k in range(8):
        d = s.determinize(2, random.Random(k))
        ((_, q, c),) = d.sheet
        assert q == 1 and d.discards[1] == 1 << c
        assert d.view(1)["progress_sheet"][0]["card"] == CODE[c]


def test_a_view_for_a_seat_that_does_not_exist_says_which_seats_do():
    """Views exist for seats 0..players-1 and for spectators (None); the refusal says so."""
    for players in (4, 5):
        s = make(players)
        with pytest.raises(
            ValueError,
            match=rf"^no player {players}: players are 0\.\.{players - 1}, or None for a spectator$",
        ):
            s.view(players)
