"""Trickarus rules and sentences that a mutation sample found without a test (tools/mutate.py,
docs/mutation.md).

Section names refer to the BGA rules summary and FAQ (shared/rules/004); rulings to
docs/games/trickarus.md.
"""

from __future__ import annotations

import random

import pytest

import meeple
from meeple.core import IllegalAction
from meeple.games.trickarus.rules import NUM_CARDS, TrickarusState
from test_trickarus import arrange, play


def test_apply_refuses_every_card_that_legal_actions_does_not_list():
    """Gameplay flow: "players must play the lead color if they are able"; a card not in hand, or
    off the lead colour while able to follow, is refused by `apply` (its fused fast path included)
    and the state is left as it was, at every decision of whole games."""
    for players in (2, 4):
        s = meeple.make("trickarus", players=players, seed=40 + players)
        rng = random.Random(players)
        refused = 0
        while not s.is_over():
            legal = s.legal_actions()
            before = (list(s.hands), list(s.trick), s.to_move, len(s.history))
            for bad in sorted(set(range(NUM_CARDS)) - set(legal)):
                with pytest.raises(IllegalAction):
                    s.apply(bad)
                refused += 1
            assert (list(s.hands), list(s.trick), s.to_move, len(s.history)) == before
            s.apply(rng.choice(legal))
        assert refused


@pytest.mark.parametrize("first", ["original", "clone"])
def test_a_play_on_a_clone_leaves_the_other_log_alone(first):
    """A clone shares its original's event log until either logs again: a card played on one
    (and the trick, round end and deal it may bring) never appears in the other's log."""
    s = meeple.make("trickarus", players=3, seed=9)
    rng = random.Random(9)
    for _ in range(7):
        s.apply(rng.choice(s.legal_actions()))
    c = s.clone()
    mover, other = (s, c) if first == "original" else (c, s)
    logs = [other.log(p, text=False) for p in (None, 0, 1, 2)]
    size = other.log_size()
    mover.apply(mover.legal_actions()[0])
    assert other.log_size() == size
    assert [other.log(p, text=False) for p in (None, 0, 1, 2)] == logs
    assert mover.log_size() > size


def test_view_refuses_a_seat_that_does_not_exist():
    """Views exist for seats 0..players-1 and for spectators (None) only."""
    s = meeple.make("trickarus", players=3, seed=0)
    for seat in (3, -1):
        with pytest.raises(ValueError):
            s.view(seat)
    assert s.view(None)["player"] is None and s.view(2)["player"] == 2


def test_view_direction_is_down_only_after_the_sun_in_cooperative_mode():
    """Cooperative Mode: "Once any player has flown into the sun, winners of all following tricks
    will now move downwards"; in the competitive game winners always fly up (Advancing Along the
    Scoring Track)."""
    coop = arrange(3, mode="cooperative")
    assert coop.view(None)["direction"] == "up"
    coop.sun_reached = True
    assert coop.view(None)["direction"] == "down"
    comp = arrange(3)
    assert comp.view(None)["direction"] == "up"
    comp.sun_reached = True
    assert comp.view(0)["direction"] == "up"


def test_view_says_over_and_gives_the_places_only_at_the_end():
    """End of Game: "the player highest on the Scoring Track is the winner of the game": the view
    says the game is over and gives the places only once the last trick is played."""
    s = arrange(3, {0: ["cloud3"], 1: ["cloud9"], 2: ["cloud2"]}, pos=[0, 0, 0])
    for p in (None, 0):
        v = s.view(p)
        assert v["over"] is False and "ranking" not in v
    play(s, "cloud3", "cloud9")
    assert s.view(None)["over"] is False and "ranking" not in s.view(None)
    s.sun_reached = True  # the round ends the game
    play(s, "cloud2")
    assert isinstance(s, TrickarusState) and s.is_over()
    for p in (None, 1):
        v = s.view(p)
        assert v["over"] is True and v["ranking"] == [2, 1, 2]


def test_determinize_keeps_the_real_deal_when_no_constrained_deal_is_found(monkeypatch):
    """Gameplay flow (must follow): determinize deals others no card of a colour they showed to
    be void in; should no such deal be found, the real hands (which satisfy it) are kept."""
    from meeple.games.trickarus import rules

    s = meeple.make("trickarus", players=4, seed=21)
    rng = random.Random(5)
    for _ in range(6):
        s.apply(rng.choice(s.legal_actions()))
    monkeypatch.setattr(rules, "deal_avoiding", lambda *args: None)
    det = s.determinize(0, random.Random(1))
    assert det.hands == s.hands and det.undealt == s.undealt


def test_determinize_keeps_every_card_in_one_place_and_11_undealt_at_2_players():
    """Setup > Dealing cards (2 players: 13 cards each, 4 Sun, 6 Sun and Lightning removed): the
    other hand and the 11 undealt cards are re-dealt together, so a determinized copy still holds
    every card exactly once, with 11 undealt."""
    s = meeple.make("trickarus", players=2, seed=12)
    rng = random.Random(12)
    for _ in range(5):
        s.apply(rng.choice(s.legal_actions()))
    for k in range(5):
        det = s.determinize(k % 2, random.Random(k))
        places = [*det.hands, det.undealt, det.removed, det.played]
        assert sum(m.bit_count() for m in places) == NUM_CARDS
        union = 0
        for m in places:
            union |= m
        assert union == (1 << NUM_CARDS) - 1
        assert det.undealt.bit_count() == 11


def test_action_json_names_a_card_and_refuses_in_words():
    """Gameplay flow (must follow): {"play": code} is the action of playing that card; an illegal
    card is refused with its name, an unknown code as naming no action."""
    s = arrange(3, {0: ["cloud3"], 1: ["cloud7", "sun9"], 2: ["rain2"]})
    assert s.action_from_json({"play": "cloud3"}) == s.legal_actions()[0]
    play(s, "cloud3")
    assert s.action_from_json({"play": "cloud7"}) == s.legal_actions()[0]
    with pytest.raises(IllegalAction, match=r"^Sun 9/1 cannot be played now$"):
        s.action_from_json({"play": "sun9"})
    for bad in ({"play": "sun99"}, {"play": "cloud7", "extra": 1}, {"card": "cloud7"}):
        with pytest.raises(IllegalAction, match="names no legal action"):
            s.action_from_json(bad)


def test_a_led_lightning_card_is_beaten_by_any_card_zero_cards_included():
    """The Lightning Card (standard game): it never wins; led, the next card played sets the lead
    colour (FAQ) and beats it, a zero card included. The strength table ranks it below every
    other card whatever the lead, which its readers rely on: the learned bot counts every unseen
    card as beating a Lightning card it would lead."""
    from meeple.games.trickarus import learned
    from meeple.games.trickarus.rules import LIGHTNING, STRENGTH

    s = arrange(3, {0: ["lightning", "sun1"], 1: ["cloud0-rain0", "sun2"], 2: ["rain1", "sun3"]})
    play(s, "lightning", "cloud0-rain0", "rain1")
    assert s.last_winner == 1
    others = [c for c in range(NUM_CARDS) if c != LIGHTNING]
    for side in (0, 1):
        assert learned._beaten_share(LIGHTNING, others, side, False) == 1.0
        for table in STRENGTH[False][side]:
            assert all(table[c] > table[LIGHTNING] for c in others)
