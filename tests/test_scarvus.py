"""Scarvus (Knizia's Icarus): each rule and variant, named by its rulebook section, and the
probabilistic bot's maths against hand-computed and brute-force results."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

import meeple
from contract import check_finished, check_no_leak, check_replay
from meeple.core import BadOption, IllegalAction
from meeple.games.scarvus import GAME
from meeple.games.scarvus import rules as R
from meeple.games.scarvus.bot import (
    HeuristicBot,
    ProbabilisticBot,
    best_colour_weights,
    challenge_outcomes,
    colour_beliefs,
    expected_losses,
    expected_place,
    rounds_left,
    tilted_distribution,
    total_distribution,
)
from meeple.games.scarvus.render import render_text

RED, ORANGE, YELLOW, GREEN, BLUE, INDIGO, VIOLET = range(7)


def new(players: int = 4, seed: int = 1, **options) -> R.ScarvusState:
    return meeple.make("scarvus", players=players, seed=seed, **options)


def set_colour(s: R.ScarvusState, c: int, values: list[int]) -> None:
    """Test set-up: give each player the card ``values[p]`` of colour ``c``."""
    for p, v in enumerate(values):
        s.hand[p * R.NC + c] = v


def do(s: R.ScarvusState, *moves) -> None:
    for m in moves:
        s.apply_json(m)


def bid(n: int, colour: str) -> dict:
    return {"bid": n, "colour": colour}


PASS = {"card_step": "pass"}
ACCEPT = {"respond": "accept"}
CHALLENGE = {"respond": "challenge"}


def give_flight(s: R.ScarvusState, p: int, effect: str) -> None:
    """Test set-up: move a card of ``effect`` from the Flight deck to ``p``'s hand."""
    t = R.EFFECTS.index(effect)
    s.flight_deck.remove(t)
    s.flight_hand[p][t] += 1


# ----- components and set up -----------------------------------------------------------------
def test_game_components_seven_decks_of_fifteen():
    """Game Components: 7 colour decks of 0,0,0,1,1,2,2,3,3,4,4,5,5,6,7 and 21 Flight cards."""
    assert len(R.COLOURS) == 7
    assert sorted(R.DECK) == [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7]
    assert len(R.FLIGHT_CARDS) == 21 == len(R.FLIGHT_DECK)


def test_flight_cards_data_has_provenance_and_when_and_how():
    """Flight Cards: each card says when and how to play it; each value carries its provenance."""
    for card in R.FLIGHT_CARDS:
        assert card["when"] and card["text"] and card["effect"] in R.EFFECTS
        prov = card["provenance"]
        assert prov["source"] == "reconstructed" and prov["why"]
    assert Counter(c["effect"] for c in R.FLIGHT_CARDS) == {e: 3 for e in R.EFFECTS}
    # Flight Cards: "Cards that are not possible to play (e.g. because a draw pile is exhausted)"
    assert any("exhausted" in c["text"] for c in R.FLIGHT_CARDS)


@pytest.mark.parametrize("players", range(3, 8))
def test_set_up_one_card_per_colour_and_the_daedalus_hand(players):
    """Set Up: each player draws one card of each deck; one more hand goes back unseen."""
    s = new(players)
    for c in range(7):
        cards = [s.hand[p * 7 + c] for p in range(players)] + [s.daedalus[c]] + s.decks[c]
        assert sorted(cards) == sorted(R.DECK)
        assert len(s.decks[c]) == 15 - players - 1
    for p in range(players):
        assert len(s.view(p)["hand"]) == 7
    views = [s.view(p) for p in [None, *range(players)]]
    s.daedalus = [(v + 1) % 8 for v in s.daedalus]  # the Daedalus Hand is never seen by anyone
    assert views == [s.view(p) for p in [None, *range(players)]]


def test_set_up_first_player_and_standard_game_has_no_flight_cards():
    """Set Up: seat 0 starts; in the Standard Game the Flight cards go back in the box."""
    s = new()
    assert s.to_move == 0 and s.view(None)["phase"] == "card"
    assert s.view(None)["flight"]["deck"] == 0


# ----- the Card Step --------------------------------------------------------------------------
def test_card_step_swap_discards_face_up_and_draws_same_colour():
    """Card Step: discard one card face up and draw the top card of the same colour deck."""
    s = new()
    old, top = s.hand[BLUE], s.decks[BLUE][-1]
    do(s, {"swap": "blue"})
    assert s.hand[BLUE] == top and s.view(None)["discards"]["blue"] == [old]
    assert s.view(None)["decks"]["blue"] == 15 - 4 - 1 - 1
    assert s.view(None)["phase"] == "bid"  # one swap only, then the Bid Step


def test_card_step_swap_is_optional():
    """Card Step: 'you may first swap one card'."""
    s = new()
    assert R.PASS in s.legal_actions()
    do(s, PASS)
    assert s.view(None)["phase"] == "bid"


def test_card_step_exhausted_deck_is_not_reshuffled():
    """Card Step: when a deck is exhausted, do not reshuffle; no more draws from it."""
    s = new(7)
    for _ in range(len(s.decks[RED])):
        p = s.to_move
        do(s, {"swap": "red"}, bid(s.bid[0] + 1 if s.bid else 1, "blue"), ACCEPT)
        assert s.to_move == (p + 1) % 7
    assert s.decks[RED] == [] and len(s.discards[RED]) == 7
    assert R.SWAP + RED not in s.legal_actions() and R.SWAP + BLUE in s.legal_actions()


# ----- the Bid Step ---------------------------------------------------------------------------
def test_bid_step_first_turn_any_number_any_colour_worked_example():
    """Bid Step: the first turn of a Round may bid any sum of any one colour (e.g. '11 Blue')."""
    s = new()
    do(s, PASS)
    legal = set(s.legal_actions())
    assert {R.bid_action(n, c) for n in range(1, R.CAP + 1) for c in range(7)} == legal
    do(s, bid(11, "blue"))
    assert s.view(None)["bid"] == {"number": 11, "colour": "blue", "bidder": 0}


def test_bid_step_after_accepting_bid_higher_in_any_colour_in_play():
    """Bid Step: after accepting, bid higher (not necessarily by 1) in any colour still in play."""
    s = new()
    do(s, PASS, bid(13, "orange"), ACCEPT, PASS)
    legal = set(s.legal_actions())
    assert R.bid_action(13, R.COLOUR_ID["blue"]) not in legal  # equal is not higher
    assert R.bid_action(12, R.COLOUR_ID["orange"]) not in legal
    assert R.bid_action(15, R.COLOUR_ID["blue"]) in legal  # '13 orange then 15 blue'
    with pytest.raises(IllegalAction):
        do(s, bid(13, "blue"))
    do(s, bid(15, "blue"))


def test_bid_step_removed_colour_cannot_be_bid():
    """Bid Step / Removal: a colour out of play cannot be bid, even to open a Round."""
    s = new()
    do(s, PASS, bid(40, "red"), CHALLENGE)
    do(s, PASS)
    assert all(R.bid_of(a)[1] != RED for a in s.legal_actions())
    with pytest.raises(IllegalAction):
        do(s, bid(3, "red"))


def test_bid_cap_is_at_least_the_largest_reachable_total_and_fixes_the_action_space():
    """Bid Step, with the Bid Value marker's '+20' side: bids are bounded by a documented cap."""
    assert R.max_total(7) == 7 + 6 + 5 + 5 + 4 + 4 + 3 == 34
    assert R.CAP >= R.max_total(7)
    assert GAME.num_actions == R.NUM_ACTIONS == R.BID + 7 * R.CAP
    assert R.bid_of(GAME.num_actions - 1) == (R.CAP, 6)


def test_a_bid_at_the_cap_must_be_challenged():
    """Bid Step: a bid must be higher, so a bid at the cap leaves the next player no acceptance."""
    s = new()
    do(s, PASS, bid(R.CAP, "green"))
    assert s.legal_actions() == [R.CHALLENGE]


# ----- the Challenge Step ---------------------------------------------------------------------
def challenged(values: list[int], number: int, colour: int = BLUE, **opts) -> R.ScarvusState:
    s = new(len(values), **opts)
    set_colour(s, colour, values)
    do(s, PASS, bid(number, R.COLOURS[colour]), CHALLENGE)
    return s


def test_challenge_safe_when_total_equals_bid():
    """Challenge Step: safe if the total is equal to or greater than the bid; the challenger
    takes a feather, singed (-2) as the difference is two or less."""
    s = challenged([3, 4, 0, 5], 12)
    assert s.last_challenge["safe"] and s.last_challenge["loser"] == 1
    assert s.singed == [0, 1, 0, 0] and s.burnt == [0] * 4
    assert s.scores() == [0, -2, 0, 0]


def test_challenge_safe_by_three_burns_the_challenger():
    """Challenge Step, Feather tokens: a difference of three or more is burnt (-5)."""
    s = challenged([3, 4, 0, 5], 9)
    assert s.burnt == [0, 1, 0, 0] and s.scores()[1] == -5


@pytest.mark.parametrize(("number", "side"), [(13, "singed"), (14, "singed"), (15, "burnt"), (40, "burnt")])
def test_challenge_unsafe_bidder_feather_by_difference(number, side):
    """Challenge Step: unsafe if the total is less than the bid; the bidder takes the feather,
    singed if the difference is two or less, burnt if three or more."""
    s = challenged([3, 4, 0, 5], number)
    assert not s.last_challenge["safe"] and s.last_challenge["loser"] == 0
    assert (s.singed[0], s.burnt[0]) == ((1, 0) if side == "singed" else (0, 1))


def test_challenge_reveals_the_challenged_colour_only():
    """Challenge Step: all players reveal their card in the challenged colour (only)."""
    s = challenged([3, 4, 0, 5], 10)
    events = [e for e in s.log(None) if e["type"] == "challenge"]
    assert events[0]["cards"] == [3, 4, 0, 5] and events[0]["colour"] == "blue"
    assert s.view(None)["revealed"] == [{}, {}, {}, {}]  # nothing else was shown


def test_removal_after_a_challenge_and_the_challenger_opens_the_next_round():
    """Removal: the colour's cards go back in the box; Next Turn: the challenger, safe or not."""
    for number in (3, 30):
        s = challenged([3, 4, 0, 5], number)
        v = s.view(2)
        assert "blue" not in v["in_play"] and "blue" not in v["hand"] and len(v["hand"]) == 6
        assert s.to_move == 1 and v["phase"] == "card" and v["bid"] is None


def first_in_play(s: R.ScarvusState) -> str:
    return R.COLOURS[next(c for c in range(7) if s.in_play >> c & 1)]


def test_a_match_is_seven_rounds_then_set_up_again():
    """Sequence of Play: a Match is seven Rounds, one colour removed each; then repeat Set Up."""
    s = new(4)
    for r in range(7):
        assert s.match == 1 and s.round == r + 1
        c = first_in_play(s)
        do(s, PASS, bid(4, c))
        set_colour(s, R.COLOUR_ID[c], [1, 1, 1, 1])
        do(s, CHALLENGE)  # safe: the challenger singes, and opens the next Round
    assert s.singed == [1, 2, 2, 2]  # challengers P1, P2, P3, P0, P1, P2, P3
    assert s.match == 2 and s.view(0)["in_play"] == R.COLOURS and len(s.view(0)["hand"]) == 7
    assert s.to_move == 3  # the last challenger begins the new Match


def test_game_ends_at_once_on_the_fourth_feather():
    """How to Win: the game ends immediately when a player acquires four feathers."""
    s = new(3)
    challenges = 0
    while not s.is_over():
        assert max(a + b for a, b in zip(s.singed, s.burnt, strict=True)) < 4
        do(s, PASS, bid(40, first_in_play(s)), CHALLENGE)  # always unsafe: the bidder burns
        challenges += 1
    assert challenges == 10 and s.burnt == [4, 3, 3]  # bidders rotate P0, P1, P2, P0...
    assert s.scores() == [-20, -15, -15] and s.ranking() == [3, 1, 1]  # joint winners
    assert s.view(None)["phase"] == "over" and s.view(None)["ranking"] == [3, 1, 1]
    with pytest.raises(IllegalAction):
        s.apply(R.PASS)


def test_joint_winners_share_first_place():
    """How to Win: 'Tied scores are joint winners.'"""
    s = new(3)
    s.singed = [1, 1, 0]
    s.burnt = [0, 0, 1]
    assert s.ranking() == [1, 1, 3]


# ----- Longer Flights -------------------------------------------------------------------------
def test_longer_flights_more_feathers_end_the_game():
    """Longer Flights: more Feather tokens are needed to end the game."""
    s = new(3, feathers=6)
    while not s.is_over():
        do(s, PASS, bid(40, first_in_play(s)), CHALLENGE)
    counts = [a + b for a, b in zip(s.singed, s.burnt, strict=True)]
    assert max(counts) == 6


def test_longer_flights_bounded_by_the_feather_supply():
    """Longer Flights / Game Components: 30 Feather tokens; four players up to a fifth, three up
    to a seventh. A game that could need more tokens than exist is refused."""
    meeple.make("scarvus", players=3, feathers=7)
    meeple.make("scarvus", players=4, feathers=5)
    with pytest.raises(BadOption, match="30"):
        meeple.make("scarvus", players=7, feathers=6)


# ----- The Daedalus Challenge -----------------------------------------------------------------
def test_daedalus_challenge_only_the_top_discard_is_visible():
    """The Daedalus Challenge: discards in a neat pile; only the top card's value is visible,
    in the view and in the log (the memory test)."""
    s = new(4, daedalus=True)
    first = s.hand[BLUE]
    do(s, {"swap": "blue"}, bid(1, "red"), ACCEPT)
    second = s.hand[R.NC + BLUE]
    do(s, {"swap": "blue"})
    for p in [None, 0, 1, 2, 3]:
        assert s.view(p)["discards"]["blue"] == {"top": second, "count": 2}
        for e in s.log(p):
            if e["type"] == "discard":
                assert "value" not in e
    assert s.discards[BLUE] == [first, second]


def test_daedalus_challenge_leak_buried_discards_are_resampled_not_shown():
    """The Daedalus Challenge, leak test: a view never reveals buried discards; determinize
    resamples them and keeps the view."""
    s = new(4, daedalus=True, seed=3)
    for _ in range(3):
        do(s, {"swap": "green"}, bid(s.bid[0] + 1 if s.bid else 1, "red"), ACCEPT)
    rng = random.Random(0)
    buried_changed = False
    for _ in range(20):
        det = s.determinize(0, rng)
        assert det.view(0) == s.view(0)
        assert det.discards[GREEN][-1] == s.discards[GREEN][-1]
        buried_changed |= det.discards[GREEN][:-1] != s.discards[GREEN][:-1]
    assert buried_changed


def test_standard_game_all_discards_visible():
    """Card Step: as beginners, discards stay in a row with every value visible."""
    s = new(4)
    a = s.hand[BLUE]
    do(s, {"swap": "blue"}, bid(1, "red"), ACCEPT)
    b = s.hand[R.NC + BLUE]
    do(s, {"swap": "blue"})
    assert s.view(None)["discards"]["blue"] == [a, b]


# ----- Flight Cards, Fancy Flying, Talons ------------------------------------------------------
def test_fancy_flying_reveal_instead_of_swap_and_draw_a_flight_card():
    """Fancy Flying: reveal a card face up for all instead of swapping; draw a Flight card."""
    s = new(4, fancy_flying=True)
    value = s.hand[YELLOW]
    do(s, {"reveal": "yellow"})
    for p in [None, 1, 2]:
        assert s.view(p)["revealed"][0] == {"yellow": value}
    assert sum(s.flight_hand[0]) == 1 and s.view(None)["flight"]["deck"] == 20
    assert s.view(None)["flight"]["hand_sizes"] == [1, 0, 0, 0]
    assert s.view(None)["phase"] == "bid"  # instead of swapping: the Card Step is over


def test_fancy_flying_swapped_revealed_card_stays_revealed_until_its_challenge():
    """Fancy Flying: a revealed card may be swapped; its replacement also remains revealed;
    after its colour's challenge all revealed cards are removed."""
    s = new(4, fancy_flying=True)
    do(s, {"reveal": "yellow"}, bid(1, "red"), ACCEPT, PASS, bid(2, "red"), ACCEPT, PASS)
    do(s, bid(3, "red"), ACCEPT, PASS, bid(4, "red"), ACCEPT)  # back to P0
    assert s.to_move == 0
    do(s, {"swap": "yellow"})
    assert s.view(2)["revealed"][0] == {"yellow": s.hand[YELLOW]}
    do(s, bid(40, "yellow"), CHALLENGE)
    assert s.view(2)["revealed"][0] == {}


def test_fancy_flying_cannot_reveal_when_the_flight_deck_is_exhausted():
    """Flight Cards: an exhausted Flight deck is not reshuffled (and revealing draws from it)."""
    s = new(4, fancy_flying=True)
    s.flight_deck = []
    assert not any(R.REVEAL <= a < R.ACCEPT for a in s.legal_actions())


def test_flight_hand_limit_between_matches():
    """Flight Cards: at the end of a Match each player keeps at most one Flight card."""
    s = new(3, fancy_flying=True)
    give_flight(s, 1, "updraft")
    give_flight(s, 1, "tailwind")
    give_flight(s, 1, "sun_flare")
    give_flight(s, 2, "scout")
    for r in range(7):
        c = R.COLOURS[6 - r]
        do(s, PASS, bid(1, c))
        set_colour(s, 6 - r, [0, 0, 0])
        do(s, CHALLENGE)  # unsafe bid of 1 on zeros: the bidder singes
        if s.is_over():
            pytest.fail("game ended early")
    assert s.view(None)["phase"] == "hand_limit" and s.to_move == 1
    do(s, {"discard_flight": "updraft"})
    assert s.to_move == 1
    do(s, {"discard_flight": "sun_flare"})
    assert sum(s.flight_hand[1]) == 1 and sum(s.flight_hand[2]) == 1
    assert s.match == 2 and s.view(None)["phase"] == "card"
    assert s.view(None)["flight"]["discard"][-2:] == ["updraft", "sun_flare"]


def test_talons_challenge_every_other_player_in_turn_may_challenge():
    """Talons Challenge: after the next player accepts, each other player (not the bidder) may
    challenge in turn; if all accept, the next player's turn goes on."""
    s = new(5, talons=True)
    do(s, PASS, bid(3, "red"), ACCEPT)
    assert s.to_move == 2 and s.legal_actions() == [R.ACCEPT, R.CHALLENGE]
    do(s, ACCEPT, ACCEPT, ACCEPT)
    assert s.to_move == 1 and s.view(None)["phase"] == "card"


def test_talons_unsafe_challenge_draws_a_flight_card_for_the_talon():
    """Talons Challenge: if the bidder is unsafe, the challenger draws a Flight card and takes
    the turn."""
    s = new(4, talons=True)
    set_colour(s, RED, [0, 0, 0, 0])
    do(s, PASS, bid(5, "red"), ACCEPT, CHALLENGE)
    assert s.last_challenge["loser"] == 0 and sum(s.flight_hand[2]) == 1
    assert s.to_move == 2
    s = new(4, talons=True)
    set_colour(s, RED, [7, 6, 5, 5])
    do(s, PASS, bid(5, "red"), ACCEPT, CHALLENGE)  # safe: no card
    assert sum(s.flight_hand[2]) == 0


def test_talons_next_players_own_challenge_draws_nothing():
    """Talons Challenge: the card rewards a talon (a player after the accepting one)."""
    s = new(4, talons=True)
    set_colour(s, RED, [0, 0, 0, 0])
    do(s, PASS, bid(5, "red"), CHALLENGE)
    assert sum(map(sum, s.flight_hand)) == 0


# ----- the reconstructed Flight card effects ----------------------------------------------------
def test_flight_updraft_two_swaps_and_not_with_exhausted_decks():
    """Flight card Updraft: swap up to two cards this Card Step; unplayable with no deck."""
    s = new(4, fancy_flying=True)
    give_flight(s, 0, "updraft")
    assert R.UPDRAFT in s.legal_actions()
    do(s, {"flight": "updraft"}, {"swap": "red"})
    assert s.view(None)["phase"] == "card"
    do(s, {"swap": "blue"})
    assert s.view(None)["phase"] == "bid"
    s = new(4, fancy_flying=True)
    give_flight(s, 0, "updraft")
    s.decks = [[] for _ in range(7)]
    assert R.UPDRAFT not in s.legal_actions()


def test_flight_scout_keep_or_discard():
    """Flight card Scouting Flight: draw one card, keep it (yours goes face up) or discard it."""
    s = new(4, talons=True)
    give_flight(s, 0, "scout")
    mine, top = s.hand[GREEN], s.decks[GREEN][-1]
    do(s, {"flight": "scout", "colour": "green"})
    assert s.view(0)["scouted"] == {"colour": "green", "value": top}
    assert "scouted" not in s.view(1) and "scouted" not in s.view(None)
    do(s, {"scouted": "keep"})
    assert s.hand[GREEN] == top and s.view(None)["discards"]["green"] == [mine]
    assert s.view(None)["phase"] == "bid"
    s = new(4, talons=True)
    give_flight(s, 0, "scout")
    mine, top = s.hand[GREEN], s.decks[GREEN][-1]
    do(s, {"flight": "scout", "colour": "green"}, {"scouted": "discard"})
    assert s.hand[GREEN] == mine and s.view(None)["discards"]["green"] == [top]


def test_scouted_card_is_hidden_from_others_and_resampled_for_them():
    """Flight card Scouting Flight: the scouted card is seen by its player only."""
    s = new(4, talons=True, seed=5)
    give_flight(s, 0, "scout")
    do(s, {"flight": "scout", "colour": "green"})
    rng = random.Random(2)
    assert all(s.determinize(0, rng).pending == s.pending for _ in range(10))
    assert any(s.determinize(1, rng).pending != s.pending for _ in range(30))


def test_flight_sun_flare_discards_a_deck_top_face_up():
    """Flight card Sun Flare: the top card of a deck goes face up; unplayable on an empty deck."""
    s = new(4, talons=True)
    give_flight(s, 0, "sun_flare")
    top = s.decks[INDIGO][-1]
    do(s, {"flight": "sun_flare", "colour": "indigo"})
    assert s.view(None)["discards"]["indigo"] == [top] and s.view(None)["phase"] == "card"
    s = new(4, talons=True)
    give_flight(s, 0, "sun_flare")
    s.decks[INDIGO] = []
    assert R.FLARE + INDIGO not in s.legal_actions()


def test_flight_counsel_peeks_at_the_daedalus_card_privately_and_determinize_keeps_it():
    """Flight card Daedalus' Counsel: see one Daedalus card; only you; search keeps it fixed."""
    s = new(4, fancy_flying=True)
    give_flight(s, 0, "counsel")
    do(s, {"flight": "counsel", "colour": "violet"})
    seen = {"owner": "daedalus", "colour": "violet", "value": s.daedalus[VIOLET]}
    assert s.view(0)["seen"] == [seen] and s.view(1)["seen"] == []
    assert R.COUNSEL + VIOLET not in s.legal_actions()
    rng = random.Random(1)
    for _ in range(10):
        assert s.determinize(0, rng).daedalus[VIOLET] == s.daedalus[VIOLET]


def test_flight_sharp_eyes_sees_a_card_in_the_challenge_step_and_forgets_it_on_a_swap():
    """Flight card Sharp Eyes: before accepting or challenging, see one player's card of the bid
    colour; a swap of that card makes the knowledge stale."""
    s = new(4, talons=True)
    give_flight(s, 1, "sharp_eyes")
    do(s, PASS, bid(9, "orange"))
    assert R.EYES + 0 in s.legal_actions() and R.EYES + 1 not in s.legal_actions()
    do(s, {"flight": "sharp_eyes", "player": 3})
    assert s.view(1)["seen"] == [{"owner": 3, "colour": "orange", "value": s.hand[3 * 7 + ORANGE]}]
    assert s.to_move == 1 and s.view(1)["phase"] == "respond"
    do(s, ACCEPT, ACCEPT, ACCEPT, PASS, bid(10, "red"), ACCEPT, ACCEPT, ACCEPT, PASS, bid(11, "red"))
    do(s, ACCEPT, ACCEPT, ACCEPT, {"swap": "orange"})
    assert s.view(1)["seen"] == []


def test_flight_tailwind_allows_an_equal_bid_in_another_colour():
    """Flight card Tailwind: after accepting, bid the same number in a different colour."""
    s = new(4, talons=True)
    give_flight(s, 1, "tailwind")
    do(s, PASS, bid(12, "red"), ACCEPT, ACCEPT, ACCEPT, PASS)
    legal = s.legal_actions()
    assert R.bid_action(12, BLUE) in legal and R.bid_action(12, RED) not in legal
    do(s, bid(12, "blue"))
    assert sum(s.flight_hand[1]) == 0 and s.view(None)["flight"]["discard"] == ["tailwind"]


def test_tailwind_lets_a_player_accept_a_bid_at_the_cap():
    """Flight card Tailwind with the bid cap: accepting is legal only if a bid can follow."""
    s = new(4, talons=True)
    give_flight(s, 1, "tailwind")
    do(s, PASS, bid(R.CAP, "red"))
    assert R.ACCEPT in s.legal_actions()


@pytest.mark.parametrize("play", [True, False])
def test_flight_wax_repair_turns_a_burnt_feather_singed(play):
    """Flight card Wax Repair: when you lose by three or more, take a singed feather instead."""
    s = new(4, talons=True)
    give_flight(s, 0, "wax_repair")
    set_colour(s, RED, [0, 0, 0, 0])
    do(s, PASS, bid(9, "red"), CHALLENGE)
    assert s.view(None)["phase"] == "loss" and s.to_move == 0
    do(s, {"flight": "wax_repair"} if play else {"flight": "decline"})
    assert (s.singed[0], s.burnt[0]) == ((1, 0) if play else (0, 1))
    assert s.to_move == 1


def test_wax_repair_not_offered_for_a_singed_feather():
    """Flight card Wax Repair: only a burnt feather (a difference of three or more) triggers it."""
    s = new(4, talons=True)
    give_flight(s, 0, "wax_repair")
    set_colour(s, RED, [0, 0, 0, 0])
    do(s, PASS, bid(2, "red"), CHALLENGE)
    assert s.singed[0] == 1 and s.view(None)["phase"] == "card"


# ----- Fight in the Skies ---------------------------------------------------------------------
def test_fight_in_the_skies_incorrect_player_loses_a_life_correct_nothing():
    """Fight In The Skies: the player who is incorrect loses one Life; nothing for the other."""
    s = challenged([3, 4, 0, 5], 30, lives=3)
    assert s.lives == [2, 3, 3, 3] and s.singed == [0] * 4 and s.burnt == [0] * 4


def test_fight_in_the_skies_elimination_and_last_flyer_wins():
    """Fight In The Skies: at no Lives you are out, your cards go in the box, play passes on;
    the last player with Lives wins."""
    s = new(3, lives=1)
    set_colour(s, RED, [1, 1, 1])
    do(s, PASS, bid(2, "red"), CHALLENGE)  # safe: P1 (the challenger) is out
    assert not s.alive[1] and s.view(None)["alive"] == [True, False, True]
    assert all(v == -1 for v in s.hand[7:14])
    assert s.to_move == 2  # the challenger was out, so play passed to the next player
    do(s, PASS, bid(40, "blue"))
    assert s.to_move == 0  # P1 is skipped
    do(s, CHALLENGE)
    assert s.is_over() and s.ranking() == [1, 3, 2]  # P1 fell first


def test_fight_in_the_skies_totals_leave_out_the_fallen():
    """Fight In The Skies: a player out of the game places their cards in the box."""
    s = new(3, lives=1)
    set_colour(s, RED, [1, 1, 1])
    set_colour(s, BLUE, [2, 7, 2])
    do(s, PASS, bid(2, "red"), CHALLENGE)
    assert s.colour_total(BLUE) == 4


def test_fight_in_the_skies_lives_bounded_and_not_with_longer_flights():
    """Fight In The Skies: three recommended, more only with five or fewer players; Longer
    Flights (feathers) has no meaning with Lives."""
    meeple.make("scarvus", players=5, lives=6)
    meeple.make("scarvus", players=7, lives=3)
    with pytest.raises(BadOption):
        meeple.make("scarvus", players=6, lives=4)
    with pytest.raises(BadOption):
        meeple.make("scarvus", players=4, lives=3, feathers=5)


def test_fight_wax_repair_keeps_the_life():
    """Flight card Wax Repair in Fight In The Skies: keep the Life a big miss would cost."""
    s = new(3, lives=2, fancy_flying=True)
    give_flight(s, 0, "wax_repair")
    set_colour(s, RED, [0, 0, 0])
    do(s, PASS, bid(9, "red"), CHALLENGE, {"flight": "wax_repair"})
    assert s.lives == [2, 2, 2]


# ----- every option combination, random play with invariants ---------------------------------
def _invariants(s: R.ScarvusState) -> None:
    n = s.players
    for c in range(7):
        if s.in_play >> c & 1:
            cards = [s.hand[p * 7 + c] for p in range(n) if s.alive[p]] + [s.daedalus[c]]
            cards += s.decks[c] + s.discards[c] + ([s.pending] if s.pending_colour == c else [])
            if all(s.alive):
                assert sorted(cards) == sorted(R.DECK), "a colour's 15 cards are all somewhere"
            else:  # Fight In The Skies: the fallen put their cards in the box
                assert not Counter(cards) - Counter(R.DECK) and len(cards) >= 15 - n
        else:  # Removal: every card of that colour is back in the box
            assert all(s.hand[p * 7 + c] == -1 for p in range(n))
            assert not s.decks[c] and not s.discards[c] and s.daedalus[c] == -1
    flight = sum(map(sum, s.flight_hand)) + len(s.flight_deck) + len(s.flight_discard)
    assert flight == (21 if s.flight_on else 0) or s.fight  # the fallen box their Flight cards
    assert sum(s.singed) + sum(s.burnt) <= R.TOKENS
    if s.to_move is not None:
        assert s.alive[s.to_move]
    for k in s.peeks:  # a seen card is still where it was seen
        for i in range(8 * 7):
            if k >> i & 1:
                owner, c = divmod(i, 7)
                assert (s.daedalus[c] if owner == 7 else s.hand[owner * 7 + c]) >= 0, (owner, c)


CARD_EVENTS = {"deal", "drew", "reveal", "saw", "scouted", "discard"}


def _no_values_in_daedalus_logs(s: R.ScarvusState) -> None:
    """The Daedalus Challenge: no log keeps a card's value (the Daedalus Hand's excepted)."""
    for p in [None, *range(s.players)]:
        for e in s.log(p):
            if e["type"] in CARD_EVENTS and e.get("owner") != "daedalus":
                assert "value" not in e and "hand" not in e, (p, e)


COMBOS = [
    dict(zip(("daedalus", "fancy_flying", "talons", "lives"), combo, strict=True))
    for combo in itertools.product([False, True], [False, True], [False, True], [None, 2])
]


@pytest.mark.parametrize("options", COMBOS, ids=lambda o: ",".join(k for k, v in o.items() if v))
def test_random_games_every_option_combination(options):
    """Play Variations: 'any of these variations in whatever combination': random games at 3-7
    players finish, replay and keep every card accounted for."""
    for players in range(3, 8):
        feathers = 5 if options["lives"] is None and players <= 5 else 4
        s = new(players, seed=players, feathers=feathers, **options)
        rng = random.Random(players)
        step = 0
        while not s.is_over():
            s.apply(rng.choice(s.legal_actions()))
            _invariants(s)
            step += 1
            if step % 25 == 0:
                check_no_leak(s, rng, tries=1)
        check_finished(s)
        check_replay(s)
        assert render_text(s.view(0))
        if options["daedalus"]:
            _no_values_in_daedalus_logs(s)


# ----- the probabilistic bot's maths -----------------------------------------------------------
def brute_force(known: int, unseen: list[int], k: int) -> dict[int, Fraction]:
    cards = [v for v, m in enumerate(unseen) for _ in range(m)]
    combos = list(itertools.combinations(range(len(cards)), k))
    out: Counter = Counter(known + sum(cards[i] for i in combo) for combo in combos)
    return {t: Fraction(w, len(combos)) for t, w in out.items()}


def test_distribution_hand_computed_case():
    """One hidden card from {0, 5}, known 2: totals 2 and 7, half each."""
    dist = total_distribution(2, [1, 0, 0, 0, 0, 1], 1)
    assert dist == [0, 0, 0.5, 0, 0, 0, 0, 0.5]
    # two hidden cards from {0,0,3}: sums 0 (1 way of 3) and 3 (2 ways of 3)
    dist = total_distribution(1, [2, 0, 0, 1], 2)
    assert dist[1] == pytest.approx(1 / 3) and dist[4] == pytest.approx(2 / 3)


@pytest.mark.parametrize("case", [
    (0, list(R.VALUE_COUNTS), 2),
    (5, [3, 2, 2, 0, 1, 2, 1, 1], 3),
    (0, [1, 1, 1, 1, 1, 1, 1, 1], 4),
    (3, [3, 0, 0, 0, 0, 0, 0, 2], 2),
    (0, [0, 2, 2, 2], 0),
])
def test_distribution_matches_brute_force_enumeration(case):
    """The convolution equals enumerating every k-subset of the unseen cards."""
    known, unseen, k = case
    dist = total_distribution(known, unseen, k)
    exact = brute_force(known, unseen, k)
    assert sum(dist) == pytest.approx(1.0)
    for t, p in enumerate(dist):
        assert p == pytest.approx(float(exact.get(t, 0)), abs=1e-12)


def test_tilted_distribution_equal_weights_is_the_plain_one_and_hand_computed():
    """The bidder's-signal model: equal weights change nothing; weights 1:3 on {0, 5} make the
    bidder's hidden card a 5 three times in four."""
    for known, unseen, k in [(5, [3, 2, 2, 0, 1, 2, 1, 1], 3), (0, list(R.VALUE_COUNTS), 2)]:
        plain = total_distribution(known, unseen, k)
        tilted = tilted_distribution(known, unseen, k, [1.0] * len(unseen))
        size = max(len(plain), len(tilted))
        assert tilted + [0.0] * (size - len(tilted)) == pytest.approx(plain + [0.0] * (size - len(plain)))
    dist = tilted_distribution(0, [1, 0, 0, 0, 0, 1], 1, [1, 1, 1, 1, 1, 3])
    assert dist[0] == pytest.approx(0.25) and dist[5] == pytest.approx(0.75)


def test_best_colour_weights_match_brute_force_enumeration():
    """What a bid says about the bidder's card: the chance that a card of value v beats each of
    the bidder's other cards (ties half), enumerated over every pair of other cards (3 colours)."""
    cards = [v for v, m in enumerate(R.VALUE_COUNTS) for _ in range(m)]
    weights = best_colour_weights(3)
    for v in range(len(R.VALUE_COUNTS)):
        exact = Fraction(0)
        for a, b in itertools.product(cards, repeat=2):
            exact += Fraction(2 * (a < v) + (a == v), 2) * Fraction(2 * (b < v) + (b == v), 2)
        assert weights[v] == pytest.approx(float(exact / len(cards) ** 2))
    assert best_colour_weights(1) == [1.0] * 8  # one colour left: the bid says nothing
    assert best_colour_weights(7, floor=0.5)[0] == pytest.approx(0.5 + (1.5 / 15) ** 6)
    assert best_colour_weights(7) == sorted(best_colour_weights(7))  # higher cards, likelier


def test_challenge_outcomes_agree_with_expected_losses():
    """Challenge Step: the outcomes' probabilities sum to 1 and their penalties average to
    `expected_losses` (bidder's and challenger's)."""
    dist = total_distribution(4, [3, 2, 2, 2, 2, 2, 1, 1], 2)
    for number in (3, 8, 12):
        outcomes = challenge_outcomes(dist, number, bidder=1, challenger=2)
        assert sum(p for p, _ in outcomes) == pytest.approx(1.0)
        bidder = -sum(p * d.get(1, 0) for p, d in outcomes)
        challenger = -sum(p * d.get(2, 0) for p, d in outcomes)
        assert (bidder, challenger) == pytest.approx(expected_losses(dist, number))


def test_expected_place_hand_computed():
    """How to Win: ties are joint places. Scores [0, -2, -18]: if I (0) take a singed feather
    half the time I tie player 1, so my place stays 1; a burnt one makes it 2. With a spread,
    a rival level with me beats me with chance Phi(-0.5 / spread)."""
    scores = [0.0, -2.0, -18.0]
    assert expected_place(scores, 0, [(0.5, {0: -2}), (0.5, {})]) == 1.0
    assert expected_place(scores, 0, [(0.5, {0: -5}), (0.5, {1: -2})]) == 1.5
    assert expected_place(scores, 2, [(1.0, {})]) == 3.0
    level = expected_place([0.0, 0.0], 0, [(1.0, {})], spread=1.0)
    assert level == pytest.approx(1 + 0.5 * math.erfc(0.5 / math.sqrt(2)))


def test_rounds_left_counts_the_nearest_player_to_the_end():
    """How to Win / Longer Flights: 0 when one more feather to someone ends the game."""
    s = new(3)
    assert rounds_left(s.view(0)) == 3
    s.singed[1], s.burnt[1] = 1, 2
    assert rounds_left(s.view(0)) == 0
    assert rounds_left(new(3, feathers=6).view(0)) == 5


def test_expected_losses_hand_computed():
    """Challenge Step penalties: totals 2 or 7 at 1/2 each; bid 5 -> the bidder pays 5 (short by
    3) half the time, the challenger 2 (over by 2) half the time."""
    dist = [0, 0, 0.5, 0, 0, 0, 0, 0.5]
    assert expected_losses(dist, 5) == (2.5, 1.0)
    assert expected_losses(dist, 2) == (0.0, 0.5 * 2 + 0.5 * 5)
    assert expected_losses(dist, 5, fight=True) == (0.5, 0.5)


def test_beliefs_count_every_seen_card():
    """From a seat's view: own card, revealed cards, visible discards and seen cards are known;
    the rest of the colour is the unseen multiset, other hidden hands are draws from it."""
    s = new(4, fancy_flying=True)
    do(s, {"reveal": "red"}, bid(1, "blue"), ACCEPT, {"swap": "red"})
    v = s.view(2)
    known, unseen, hidden = colour_beliefs(v)[RED]
    assert known == s.hand[2 * 7 + RED] + s.hand[RED]  # own + P0's revealed
    assert hidden == 2  # P1 and P3
    assert sum(unseen) == 15 - 1 - 1 - 1  # own, revealed, one discard
    assert sum(unseen) == hidden + 1 + len(s.decks[RED])  # + Daedalus + deck


def test_beliefs_daedalus_mode_forget_buried_discards():
    """The Daedalus Challenge: the bot counts only the top discard as seen."""
    s = new(4, daedalus=True)
    do(s, {"swap": "red"}, bid(1, "blue"), ACCEPT, {"swap": "red"})
    _, unseen, _ = colour_beliefs(s.view(2))[RED]
    assert sum(unseen) == 15 - 1 - 1


def test_probabilistic_bot_challenges_an_impossible_bid_and_accepts_a_sure_one():
    """The bot's expected-loss rule on clear cases."""
    bot = ProbabilisticBot(0)
    s = new(4)
    do(s, PASS, bid(35, "red"))
    assert bot.choose(s) == R.CHALLENGE
    s = new(4)
    do(s, PASS, bid(1, "red"))
    set_colour(s, RED, [0, 7, 0, 0])
    assert bot.choose(s) == R.ACCEPT


def test_bots_play_legal_moves_in_every_variant():
    """Both bots finish games with every variant on."""
    for options in (COMBOS[-1], COMBOS[-2]):
        for players in (3, 7):
            s = new(players, seed=players, **options)
            bots = [ProbabilisticBot(p) if p % 2 else HeuristicBot(p) for p in range(players)]
            while not s.is_over():
                s.apply(bots[s.to_move].choose(s))
            check_finished(s)


def _lowball(s: R.ScarvusState, rng: random.Random) -> int:
    """A random player that bids low and accepts often, so Rounds run long and Flight cards,
    exhausted decks and hand limits all come up."""
    legal = s.legal_actions()
    bids = [a for a in legal if a >= R.BID]
    if bids and rng.random() < 0.9:
        return rng.choice(bids[:3])
    if R.ACCEPT in legal and rng.random() < 0.8:
        return R.ACCEPT
    return rng.choice(legal)


def test_long_random_games_reach_every_kind_of_decision():
    """Play Variations: with every variant on, long random games use every action kind (each
    Flight card, every phase) and keep the invariants."""
    kinds: set[str] = set()
    for players in range(3, 8):
        for lives in (None, 2):
            s = new(players, seed=players, daedalus=True, fancy_flying=True, talons=True, lives=lives)
            rng = random.Random(players)
            while not s.is_over():
                a = _lowball(s, rng)
                kinds.add(next(iter(s.action_to_json(a))) + ":" + str(s.action_to_json(a).get("flight", "")))
                kinds.add("phase:" + s.view(None)["phase"])
                if a >= R.BID and s.bid is not None and R.bid_of(a)[0] == s.bid[0]:
                    kinds.add("flight:tailwind")  # Tailwind is played by bidding equal
                s.apply(a)
                _invariants(s)
            check_replay(s)
            _no_values_in_daedalus_logs(s)
    expected = {f"flight:{e}" for e in R.EFFECTS} | {f"phase:{p}" for p in R.PHASE_NAMES}
    expected |= {"swap:", "reveal:", "bid:", "respond:", "scouted:", "discard_flight:", "card_step:"}
    assert expected <= kinds, expected - kinds


def test_determinize_depends_only_on_what_the_player_knows():
    """Two worlds equal for a player, resampled with one rng, become the same world: search
    cannot tell which real deal it came from."""
    s = new(5, seed=8, daedalus=True, fancy_flying=True, talons=True)
    rng = random.Random(4)
    for _ in range(60):
        s.apply(_lowball(s, rng))
    me = s.to_move
    a, b = s.determinize(me, random.Random(1)), s.determinize(me, random.Random(2))
    assert a.view(me) == b.view(me) and any(a.view(p) != b.view(p) for p in range(5) if p != me)
    x, y = a.determinize(me, random.Random(9)), b.determinize(me, random.Random(9))
    assert all(x.view(p) == y.view(p) for p in [None, *range(5)])


# ----- rules exactly as printed ------------------------------------------------------
def _play(actions: list[int], players: int, seed: int, **options) -> R.ScarvusState:
    s = new(players, seed=seed, **options)
    for a in actions:
        s.apply(a)
    return s


def test_fight_in_the_skies_a_fallen_players_cards_leave_what_others_saw():
    """Fight In The Skies: 'place your remaining cards in the box; you are out of the game'.
    A card someone saw (Sharp Eyes) is gone with it: nobody's view still lists it (it used to
    stay in `seen` with value -1), and determinize keeps the view."""
    s = _play([14, 57, 15, 0, 64, 15, 0, 71, 40, 15, 0, 79, 16], 3, 3, lives=1, fancy_flying=True)
    assert s.alive == [True, False, True]
    for p in (0, 2):
        assert all(e["owner"] != 1 for e in s.view(p)["seen"]), s.view(p)["seen"]
        assert all(e["value"] >= 0 for e in s.view(p)["seen"])
        det = s.determinize(p, random.Random(5))
        assert det.view(p) == s.view(p)


def test_fight_in_the_skies_seen_after_counsel_and_sharp_eyes_lists_only_cards_still_held():
    """Fight In The Skies with Daedalus' Counsel and Sharp Eyes (7 players): a seen entry lasts
    only while the card is where it was seen; the Daedalus card seen stays."""
    moves = [12, 203, 16, 5, 177, 16, 6, 179, 15, 0, 206, 16, 4, 195, 15, 12, 202, 15, 1, 221, 41,
             15, 0, 235, 15, 11, 239, 15, 0, 257, 16, 1, 167, 16, 35]
    s = _play(moves, 7, 130052, lives=2, fancy_flying=True)
    for p in range(7):
        v = s.view(p)
        for e in v["seen"]:
            assert e["value"] >= 0, (p, e)
            if e["owner"] != "daedalus":
                assert v["alive"][e["owner"]] and e["colour"] in v["in_play"]
        assert s.determinize(p, random.Random(p)).view(p) == v
    assert s.view(5)["seen"] == [{"owner": "daedalus", "colour": "green", "value": s.daedalus[GREEN]}]
    assert s.view(0)["seen"] == []


def test_removal_forgets_seen_cards_of_the_challenged_colour():
    """Removal: 'place all of the cards of that color back in the box': what a player saw of
    that colour (Sharp Eyes, Daedalus' Counsel) is no longer a card anywhere in play."""
    s = new(4, fancy_flying=True, talons=True)
    give_flight(s, 1, "sharp_eyes")
    give_flight(s, 0, "counsel")
    do(s, {"flight": "counsel", "colour": "orange"}, PASS, bid(9, "orange"),
       {"flight": "sharp_eyes", "player": 3}, CHALLENGE)
    assert all(p == 0 for p in s.peeks)


def test_daedalus_challenge_no_log_or_screen_shows_a_covered_discard():
    """The Daedalus Challenge: 'Only the value of the top card in the discard pile should be
    visible. This will test players' memories!' No seat's log, the spectator's log, any view or
    the text renderer keeps a covered discard's value: the log records card movements without
    values (the view shows cards while they are in a hand or on top)."""
    s = _play([8, 63, 15, 1, 70, 15, 0, 77, 15, 1, 84, 15, 1], 3, 5, daedalus=True, fancy_flying=True)
    assert len(s.discards[RED]) == 3  # two covered
    card_events = {"deal", "drew", "reveal", "saw", "scouted", "discard"}
    for p in [None, 0, 1, 2]:
        for e in s.log(p):
            if e["type"] in card_events and e.get("owner") != "daedalus":
                assert "value" not in e and "hand" not in e, (p, e)
        v = s.view(p)
        assert v["discards"]["red"] == {"top": s.discards[RED][-1], "count": 3}
        assert "(+2 under)" in render_text(v)


def test_daedalus_challenge_log_keeps_no_value_of_any_kind_of_card_movement():
    """The Daedalus Challenge, every way a card reaches a discard pile (swap, Scouting Flight kept
    or dropped, Sun Flare, Sharp Eyes seen then swapped away): no log carries the value."""
    s = new(4, daedalus=True, fancy_flying=True, talons=True)
    for effect in ("scout", "sun_flare", "updraft"):
        give_flight(s, 0, effect)
    give_flight(s, 1, "sharp_eyes")
    do(s, {"flight": "sun_flare", "colour": "green"}, {"flight": "updraft"},
       {"flight": "scout", "colour": "green"}, {"scouted": "discard"}, {"swap": "blue"},
       bid(5, "blue"), {"flight": "sharp_eyes", "player": 0}, ACCEPT, ACCEPT, ACCEPT)
    do(s, {"reveal": "red"}, bid(6, "blue"), ACCEPT, ACCEPT, ACCEPT, {"swap": "red"})
    types = set()
    for p in [None, 0, 1, 2, 3]:
        for e in s.log(p):
            types.add(e["type"])
            if e["type"] in {"deal", "drew", "reveal", "saw", "scouted", "discard"}:
                assert "value" not in e and "hand" not in e, (p, e)
    assert {"deal", "drew", "reveal", "saw", "scouted", "discard"} <= types


def test_standard_game_log_keeps_values():
    """Card Step (standard game): discards stay visible, so the log keeps every value."""
    s = _play([8, 63, 15, 1, 70, 15, 0, 77, 15, 1, 84, 15, 1], 3, 5, fancy_flying=True)
    discards = [e for e in s.log(None) if e["type"] == "discard"]
    assert [e["value"] for e in discards] == s.discards[RED]
    assert any("hand" in e for e in s.log(0) if e["type"] == "deal")


def test_how_to_win_a_finished_game_has_no_responders():
    """How to Win: the game ends immediately; nobody is left to respond to the last bid."""
    s = new(3, lives=1)
    set_colour(s, RED, [1, 1, 1])
    do(s, PASS, bid(2, "red"), CHALLENGE, PASS, bid(40, "blue"), CHALLENGE)
    assert s.is_over()
    for p in [None, 0, 1, 2]:
        assert s.view(p)["responders"] == [] and s.view(p)["accepted_by"] == []
    s = new(3, feathers=4)
    s.burnt = [3, 0, 0]
    set_colour(s, RED, [0, 0, 0])
    do(s, PASS, bid(9, "red"), CHALLENGE)
    assert s.is_over() and s.view(None)["responders"] == []


def test_flight_cards_are_named_as_printed_in_labels():
    """Flight Cards: each action that plays one is labelled with the card's printed name."""
    s = new(4, fancy_flying=True)
    assert s.describe(R.UPDRAFT) == "play Updraft"
    assert s.describe(R.COUNSEL + VIOLET) == "play Daedalus' Counsel on violet"
    assert s.describe(R.EYES + 2) == "play Sharp Eyes on Player 3"
    assert s.describe(R.DISCARD_FLIGHT + R.WAX_T) == "discard Wax Repair (hand limit)"


# ----- rules the mutation review (tools/mutate.py) found untested --------------------------------
def test_bid_step_only_bids_up_to_the_cap_are_legal():
    """Bid Step: in the Bid Step only a bid is an answer, and bids stop at the cap (the fixed
    action range ends there)."""
    s = new(4)
    do(s, PASS)
    assert s.view(None)["phase"] == "bid"
    for a in (R.PASS, R.ACCEPT, R.SWAP + RED, R.BID - 1, R.NUM_ACTIONS, -1):
        assert not s.is_legal(a), a
        with pytest.raises(IllegalAction):
            s.apply(a)
    assert s.is_legal(R.NUM_ACTIONS - 1) and R.bid_of(R.NUM_ACTIONS - 1) == (R.CAP, VIOLET)


def test_fancy_flying_reveal_any_unrevealed_card_in_play_and_the_log_shows_it():
    """Fancy Flying: 'reveal one of your cards' - any colour in play not yet revealed; everyone
    sees its value (standard discards, so the log keeps it)."""
    s = new(3, fancy_flying=True)
    reveals = [a - R.REVEAL for a in s.legal_actions() if R.REVEAL <= a < R.ACCEPT]
    assert reveals == list(range(7))
    value = s.hand[INDIGO]
    do(s, {"reveal": "indigo"})
    assert {"type": "reveal", "player": 0, "colour": "indigo", "value": value} in s.log(None, text=False)
    do(s, bid(1, "red"), CHALLENGE)  # red leaves play; P1 opens the next round
    do(s, PASS, bid(1, "blue"), ACCEPT, PASS, bid(2, "blue"), ACCEPT)
    assert s.to_move == 0
    reveals = [a - R.REVEAL for a in s.legal_actions() if R.REVEAL <= a < R.ACCEPT]
    assert reveals == [ORANGE, YELLOW, GREEN, BLUE, VIOLET]  # not red (removed), not indigo


def test_flight_counsel_a_second_counsel_looks_at_another_daedalus_card():
    """Flight card Daedalus' Counsel: with a second Counsel, the Daedalus card already seen is
    not offered again, every other colour in play is."""
    s = new(4, fancy_flying=True)
    give_flight(s, 0, "counsel")
    give_flight(s, 0, "counsel")
    do(s, {"flight": "counsel", "colour": "orange"})
    counsel = [a - R.COUNSEL for a in s.legal_actions() if R.COUNSEL <= a < R.EYES]
    assert counsel == [RED, YELLOW, GREEN, BLUE, INDIGO, VIOLET]


def test_flight_sharp_eyes_a_second_sharp_eyes_sees_another_players_card():
    """Flight card Sharp Eyes: a card already seen is no target; the other unseen cards of the
    bid colour are."""
    s = new(4, fancy_flying=True)
    give_flight(s, 1, "sharp_eyes")
    give_flight(s, 1, "sharp_eyes")
    do(s, PASS, bid(9, "orange"))
    assert [a - R.EYES for a in s.legal_actions() if R.EYES <= a < R.KEEP] == [0, 2, 3]
    do(s, {"flight": "sharp_eyes", "player": 3})
    assert [a - R.EYES for a in s.legal_actions() if R.EYES <= a < R.KEEP] == [0, 2]


def test_flight_updraft_after_a_swap_no_reveal():
    """Flight card Updraft with Fancy Flying: the reveal is 'instead of swapping', so after the
    first of two swaps the Card Step offers swaps and pass, never a reveal."""
    s = new(4, fancy_flying=True)
    give_flight(s, 0, "updraft")
    do(s, {"flight": "updraft"})
    assert R.REVEAL + RED in s.legal_actions()
    do(s, {"swap": "red"})
    assert s.view(None)["phase"] == "card"
    assert not any(R.REVEAL <= a < R.ACCEPT for a in s.legal_actions())
    assert R.SWAP + BLUE in s.legal_actions()


def test_fight_in_the_skies_the_fallen_box_their_flight_cards_and_the_log_says_so():
    """Fight In The Skies: 'place your remaining cards in the box; you are out of the game' -
    Flight cards included (they do not go to the Flight discard pile); the log tells everyone,
    and the game's end with its scores."""
    s = new(3, lives=1, fancy_flying=True)
    give_flight(s, 1, "updraft")
    give_flight(s, 1, "tailwind")
    set_colour(s, RED, [1, 1, 1])
    do(s, PASS, bid(2, "red"), CHALLENGE)  # safe: P1 (the challenger) is out
    assert s.flight_hand[1] == [0] * R.NE and s.flight_discard == []
    assert s.view(None)["flight"]["hand_sizes"][1] == 0
    assert {"type": "out", "player": 1} in s.log(None, text=False)
    do(s, PASS, bid(40, "blue"), CHALLENGE)
    assert s.log(None, text=False)[-1] == {"type": "game_end", "scores": s.scores()}


def test_flight_hand_limit_in_seat_order_from_the_next_starter():
    """Flight Cards hand limit, ruling 13: players over the limit discard in seat order from the
    player who starts the next Match."""
    s = new(3, fancy_flying=True)
    for p, effect in ((0, "updraft"), (0, "tailwind"), (2, "scout"), (2, "sun_flare")):
        give_flight(s, p, effect)
    for r in range(7):
        do(s, PASS, bid(1, R.COLOURS[6 - r]))
        set_colour(s, 6 - r, [0, 0, 0])
        do(s, CHALLENGE)
    assert s.next_starter == 1 and s.view(None)["phase"] == "hand_limit"
    assert s.to_move == 2
    do(s, {"discard_flight": "scout"})
    assert s.to_move == 0


def test_log_tells_who_accepted_and_what_was_seen_and_revealed():
    """Challenge Step and Flight cards, standard discards: the log records each acceptance, the
    value a Sharp Eyes showed (to its player only) and a swapped revealed card's replacement."""
    s = new(4, fancy_flying=True)
    give_flight(s, 1, "sharp_eyes")
    do(s, {"reveal": "green"}, bid(9, "orange"), {"flight": "sharp_eyes", "player": 3})
    seen = {"type": "saw", "owner": 3, "colour": "orange", "value": s.hand[3 * 7 + ORANGE]}
    assert seen in s.log(1, text=False) and seen not in s.log(None, text=False) and seen not in s.log(3, text=False)
    do(s, ACCEPT)
    assert {"type": "accept", "player": 1} in s.log(None, text=False)
    do(s, PASS, bid(10, "orange"), ACCEPT, PASS, bid(11, "orange"), ACCEPT, PASS, bid(12, "orange"), ACCEPT)
    assert s.to_move == 0
    do(s, {"swap": "green"})
    assert s.log(None, text=False)[-1] == {"type": "reveal", "player": 0, "colour": "green", "value": s.hand[GREEN]}


def test_clone_shares_nothing_with_the_original():
    """Engine contract: a clone (and so a search copy) shares no mutable state: playing a
    Flight card on the clone leaves the original as it was."""
    s = new(4, fancy_flying=True)
    give_flight(s, 0, "sun_flare")
    before = s.view(0)
    c = s.clone()
    c.apply(R.FLARE + RED)
    assert s.view(0) == before and s.flight_discard == [] and c.flight_discard == [R.FLARE_T]


def test_fancy_flying_any_players_reveal_is_logged_with_its_value():
    """Fancy Flying: a reveal by any player shows everyone that card (standard discards)."""
    s = new(3, fancy_flying=True)
    do(s, PASS, bid(1, "red"), ACCEPT)
    assert s.to_move == 1
    do(s, {"reveal": "indigo"})
    assert {"type": "reveal", "player": 1, "colour": "indigo", "value": s.hand[7 + INDIGO]} in s.log(None, text=False)
