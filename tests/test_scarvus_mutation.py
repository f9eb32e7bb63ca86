"""Scarvus rules that a mutation sample found without a test (tools/mutate.py, docs/mutation.md).

Section names refer to the Victory Point Games rulebook; rulings to docs/games/scarvus.md.
"""

from __future__ import annotations

import pytest

import meeple
from meeple.core import BadOption
from meeple.games.scarvus import rules as R
from test_scarvus import (
    BLUE,
    CHALLENGE,
    GREEN,
    INDIGO,
    PASS,
    RED,
    bid,
    do,
    first_in_play,
    give_flight,
    new,
    set_colour,
)


@pytest.mark.parametrize(("players", "most"), [(3, 10), (4, 7), (5, 6)])
def test_fight_in_the_skies_lives_are_an_equal_share_of_the_30_tokens(players, most):
    """Fight In The Skies: "give each player an equal number of tokens ... when there are five or
    fewer players you can give each player more"; Game Components: 30 Feather tokens (ruling 15:
    at most 30 // players, and 10)."""
    meeple.make("scarvus", players=players, lives=most)
    with pytest.raises(BadOption):
        meeple.make("scarvus", players=players, lives=most + 1)


@pytest.mark.parametrize(
    ("players", "feathers", "fits"), [(7, 5, True), (5, 6, True), (6, 6, False)]
)
def test_longer_flights_the_feather_supply_bound_at_its_edge(players, feathers, fits):
    """Longer Flights with the 30 Feather tokens (ruling 14): a game is refused only when every
    player could hold one token short of the end and one more player reach it, more than 30."""
    assert (players * (feathers - 1) + 1 <= 30) == fits  # the ruling's own count
    if fits:
        meeple.make("scarvus", players=players, feathers=feathers)
    else:
        with pytest.raises(BadOption, match="30"):
            meeple.make("scarvus", players=players, feathers=feathers)


def test_fight_in_the_skies_a_fallen_player_takes_only_their_own_seen_cards_along():
    """Fight In The Skies: "place your remaining cards in the box; you are out of the game". What
    another player saw of the fallen player's cards (Sharp Eyes) goes with them; what they saw of
    a neighbour's card stays seen."""
    s = new(3, lives=1, fancy_flying=True)
    seen_fallen = 1 << (1 * R.NC + GREEN)  # player 0 saw player 1's green card ...
    seen_neighbour = 1 << (2 * R.NC + RED)  # ... and player 2's red card
    s.peeks = [seen_fallen | seen_neighbour, 0, 0]
    assert [e["owner"] for e in s.view(0)["seen"]] == [1, 2]
    set_colour(s, BLUE, [1, 1, 1])
    do(s, PASS, bid(2, "blue"), CHALLENGE)  # safe: player 1, the challenger, loses their Life
    assert s.alive == [True, False, True]
    assert s.view(0)["seen"] == [{"owner": 2, "colour": "red", "value": s.hand[2 * R.NC + RED]}]


def test_fight_in_the_skies_the_fallen_are_ranked_by_when_they_fell_in_words():
    """Fight In The Skies: the last player with Lives wins; ruling 15: the fallen rank by how
    late they fell, and the final scoring says so: the last to fall, 2nd, 3rd from last."""
    s = new(4, lives=1)
    while not s.is_over():
        do(s, PASS, bid(40, first_in_play(s)), CHALLENGE)  # unsafe: the bidder falls
    assert s.out_order == [0, 1, 2]
    assert s.scoring_lines(0) == [("Out of Lives: 3rd from last to fall", -3.0)]
    assert s.scoring_lines(1) == [("Out of Lives: 2nd from last to fall", -2.0)]
    assert s.scoring_lines(2) == [("Out of Lives: the last to fall", -1.0)]
    assert s.scoring_lines(3) == [("1 Life left", 1.0)]


def test_tailwind_cannot_accept_a_bid_at_the_cap_in_the_last_colour_in_play():
    """Flight card Tailwind (an equal bid in a *different* colour) with ruling 4 (accepting
    commits you to a bid): in a Match's last Round one colour is in play, so a bid at the cap
    must be challenged even by a Tailwind holder."""
    s = new(4, fancy_flying=True)
    for _ in range(6):
        do(s, PASS, bid(40, first_in_play(s)), CHALLENGE)
    assert bin(s.in_play).count("1") == 1 and s.to_move == 2
    give_flight(s, 3, "tailwind")
    do(s, PASS, bid(R.CAP, first_in_play(s)))
    assert s.to_move == 3 and not s.can_raise(3)
    assert s.legal_actions() == [R.CHALLENGE]


def test_flight_counsel_is_spent_onto_the_flight_discard_pile():
    """Flight Cards: "After using a Flight card, discard it in a neat pile, face up"; Daedalus'
    Counsel is used up like any other, and everyone is told it was played."""
    s = new(4, fancy_flying=True)
    give_flight(s, 0, "counsel")
    do(s, {"flight": "counsel", "colour": "violet"})
    assert s.flight_hand[0][R.COUNSEL_T] == 0
    assert s.view(None)["flight"]["discard"] == ["counsel"]
    played = {"type": "flight", "player": 0, "card": "counsel", "colour": "violet"}
    assert played in s.log(None, text=False) and played in s.log(1, text=False)


def test_flight_scout_kept_card_replaces_a_card_another_player_had_seen():
    """Flight card Scouting Flight: kept, the scouted card takes the place of yours (which goes
    face up); what another player saw of the old card (Sharp Eyes) no longer says what is there."""
    s = new(4, talons=True)
    s.peeks = [0, 1 << (0 * R.NC + GREEN), 0, 0]  # player 1 saw player 0's green card
    assert [e["owner"] for e in s.view(1)["seen"]] == [0]
    give_flight(s, 0, "scout")
    do(s, {"flight": "scout", "colour": "green"}, {"scouted": "keep"})
    assert s.view(1)["seen"] == [] and s.peeks == [0, 0, 0, 0]


def test_how_to_win_final_scoring_lists_each_feather_and_no_feathers():
    """How to Win: "totals their points using the singed (-2 each) and burnt (-5 each) feathers":
    the final scoring lists each feather a player took, and "No feathers" for none."""
    s = new(3)
    set_colour(s, BLUE, [3, 4, 0])
    do(s, PASS, bid(8, "blue"), CHALLENGE)  # unsafe by one: player 0 singes
    do(s, PASS, bid(40, first_in_play(s)), CHALLENGE)  # unsafe by far: player 1 burns
    do(s, PASS, bid(40, first_in_play(s)), CHALLENGE)  # player 2 burns
    do(s, PASS, bid(40, first_in_play(s)), CHALLENGE)  # player 0 burns
    assert (s.singed, s.burnt) == ([1, 0, 0], [1, 1, 1])
    assert s.scoring_lines(0) == [("Singed feather", -2.0), ("Burnt feather", -5.0)]
    assert s.scoring_lines(1) == [("Burnt feather", -5.0)]
    fresh = new(3)
    assert fresh.scoring_lines(2) == [("No feathers", 0.0)]


@pytest.mark.parametrize("daedalus", [False, True])
def test_flight_sun_flare_log_says_the_discarded_value_unless_the_daedalus_challenge(daedalus):
    """Flight card Sun Flare discards a deck's top card face up: the log says its value; in the
    Daedalus Challenge ("only the value of the top card in the discard pile should be visible",
    ruling 9) it says where the card went and no value."""
    s = new(4, fancy_flying=True, daedalus=daedalus)
    give_flight(s, 0, "sun_flare")
    top = s.decks[INDIGO][-1]
    do(s, {"flight": "sun_flare", "colour": "indigo"})
    said = "The top indigo card of the draw pile is discarded face up"
    lines = [e["text"] for p in (None, 0, 1) for e in s.log(p) if e["type"] == "discard"]
    assert lines == [said + ("." if daedalus else f": a {top}.")] * 3
