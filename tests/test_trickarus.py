"""Trickarus rules, each test naming its section of the rulebook (shared/rules/004, BGA summary).

Sections: Setup (The cards, Dealing cards), Gameplay flow, The Strongest Color, Changing Between
Day and Night, Advancing Along the Scoring Track, Flying Into the Sun, The Lightning Card,
Playing the Next Trick/Round, End of Game, Cooperative Mode, Lightning Card Variant, FAQ.
"""

from __future__ import annotations

import random

import pytest

import meeple
from contract import play_random
from meeple.core import IllegalAction
from meeple.games.trickarus import rules
from meeple.games.trickarus.bot import HeuristicBot
from meeple.games.trickarus.rules import CARD_ID, LIGHTNING, TrickarusState


def C(code: str) -> int:
    return CARD_ID[code]


def arrange(
    players: int = 3,
    hands: dict[int, list[str]] | None = None,
    *,
    leader: int = 0,
    side: int = 0,
    pos: list[int] | None = None,
    **options,
) -> TrickarusState:
    """A fresh game with chosen hands (others' hands emptied of those cards)."""
    s = meeple.make("trickarus", players=players, seed=0, **options)
    assert isinstance(s, TrickarusState)
    hands = hands or {}
    for p in range(players):
        s.hands[p] = sum(1 << C(code) for code in hands.get(p, []))
    s.leader = s.to_move = leader
    s.side = side
    if pos is not None:
        s.pos = list(pos)
    return s


def play(s: TrickarusState, *codes: str) -> None:
    for code in codes:
        s.apply(C(code))


# ----- Setup ---------------------------------------------------------------------------------
def test_the_cards_deck_of_40_with_three_two_suit_zeros_and_one_lightning():
    """Setup > The cards: 4 suits, day and night halves, three 0s of two suits, one Lightning."""
    assert rules.NUM_CARDS == 40
    zeros = [c for c in range(40) if c != LIGHTNING and rules.VALUE[0][c] == 0]
    pairs = {(rules.SUITS[rules.SUIT[0][c]], rules.SUITS[rules.SUIT[1][c]]) for c in zeros}
    assert pairs == {("cloud", "rain"), ("sun", "cloud"), ("rain", "moon")}
    for c in range(40):
        if c == LIGHTNING or c in zeros:
            continue
        assert rules.SUIT[0][c] == rules.SUIT[1][c]  # reconstructed: one suit, two values
        assert rules.VALUE[0][c] + rules.VALUE[1][c] == 10
    # "4 Sun, 6 Sun" must exist for the 2-player removal.
    assert rules.VALUE[0][C("sun4")] == 4 and rules.VALUE[0][C("sun6")] == 6


@pytest.mark.parametrize(
    "players,hand,removed",
    [(2, 13, {"sun4", "sun6", "lightning"}), (3, 13, {"cloud0-rain0"}), (4, 10, set()), (5, 8, set())],
)
def test_dealing_cards_table(players, hand, removed):
    """Setup > Dealing cards: removed cards and cards per player by player count."""
    s = meeple.make("trickarus", players=players, seed=3)
    assert [h.bit_count() for h in s.hands] == [hand] * players
    assert set(s.view(None)["removed"]) == removed
    for code in removed:
        assert not any(h >> C(code) & 1 for h in s.hands)
    dealt = sum(s.hands)
    assert dealt & s.removed == 0
    if players == 2:
        assert s.undealt.bit_count() == 11  # 40 - 3 removed - 26 dealt, hidden from everyone


def test_two_player_undealt_cards_stay_hidden():
    """Setup > Dealing cards (2 players): the 11 undealt cards are in nobody's view."""
    s = meeple.make("trickarus", players=2, seed=3)
    undealt = {rules.CODE[c] for c in rules.mask_to_list(s.undealt)}
    for p in (None, 0, 1):
        text = repr(s.view(p))
        hand = set() if p is None else {c["code"] for c in s.view(p)["hand"]}
        assert not any(f"'{code}'" in text for code in undealt - hand)


def test_every_card_in_exactly_one_place_and_one_player_per_space_through_random_games():
    """Invariants over whole games: cards are conserved; track spaces above ground hold one."""
    for players in (2, 3, 4, 5):
        for mode in ("competitive", "cooperative") if players >= 3 else ("competitive",):
            s = meeple.make("trickarus", players=players, seed=players, mode=mode)

            def invariants(st: TrickarusState) -> None:
                places = [*st.hands, st.undealt, st.removed, st.played]
                assert sum(m.bit_count() for m in places) == 40
                union = 0
                for m in places:
                    assert union & m == 0
                    union |= m
                assert union == rules.ALL_CARDS
                flying = [q for q in st.pos if q > 0]
                assert len(flying) == len(set(flying))
                assert all(0 <= q <= st.track_length for q in st.pos)

            play_random(s, random.Random(players), invariants)


# ----- Gameplay flow: must follow on the active side ---------------------------------------
def test_must_follow_the_lead_colour_if_able():
    """Gameplay flow: players must play the lead colour if able, with the same active side."""
    s = arrange(3, {0: ["cloud3"], 1: ["cloud7", "sun9", "lightning"], 2: ["rain2"]})
    play(s, "cloud3")
    assert s.legal_actions() == [C("cloud7")]
    with pytest.raises(IllegalAction):
        s.apply(C("sun9"))
    with pytest.raises(IllegalAction):
        s.apply(LIGHTNING)  # The Lightning Card: only when unable to follow (or leading)


def test_must_follow_a_led_sun_1_the_first_card_of_the_deck():
    """Gameplay flow: the Sun 1 (card id 0) sets the lead colour like any card (no 'no lead' mix-up)."""
    assert C("sun1") == 0
    s = arrange(3, {0: ["sun1", "rain5"], 1: ["sun9", "cloud7", "lightning"], 2: ["rain2", "sun3"]})
    play(s, "sun1")
    assert s.legal_actions() == [C("sun9")]
    assert s.is_legal(C("sun9")) and not s.is_legal(C("cloud7")) and not s.is_legal(LIGHTNING)
    with pytest.raises(IllegalAction):
        s.apply(C("cloud7"))
    play(s, "sun9")
    assert s.legal_actions() == [C("sun3")]
    # A player void in Sun does not change the lead colour: the next must still follow Sun.
    s = arrange(3, {0: ["sun1", "rain5"], 1: ["cloud7", "rain6"], 2: ["cloud1", "sun3"]})
    play(s, "sun1", "cloud7")
    assert s.view(2)["lead_suit"] == "sun" and s.legal_actions() == [C("sun3")]
    play(s, "sun3")
    assert s.last_winner == 2  # Sun 3 (trump and lead colour) beats Sun 1 and the off-colour Cloud 7


def test_void_player_may_play_anything_including_lightning():
    """Gameplay flow + The Lightning Card: unable to follow, any card may be played."""
    s = arrange(3, {0: ["cloud3"], 1: ["sun9", "rain1", "lightning"], 2: ["rain2"]})
    play(s, "cloud3")
    assert set(s.legal_actions()) == {C("sun9"), C("rain1"), LIGHTNING}


def test_follow_is_judged_on_the_active_side_for_zero_cards():
    """Gameplay flow: a two-suit zero follows with its active half only."""
    # sun0-cloud0 is Sun by day, Cloud by night.
    s = arrange(3, {0: ["cloud3"], 1: ["sun0-cloud0", "rain1"], 2: ["rain2"]})
    play(s, "cloud3")
    assert set(s.legal_actions()) == {C("sun0-cloud0"), C("rain1")}  # void in Cloud by day
    s = arrange(3, {0: ["cloud3"], 1: ["sun0-cloud0", "rain1"], 2: ["rain2"]}, side=1)
    play(s, "cloud3")
    assert s.legal_actions() == [C("sun0-cloud0")]  # by night it is a Cloud card


def test_is_legal_agrees_with_legal_actions_and_refuses_other_ids():
    """Gameplay flow (must follow; leader plays any card): `is_legal` and `apply` accept exactly
    the cards `legal_actions` lists, at every decision of whole games, and refuse ids outside
    0..39 (and everything once the game is over)."""
    for players in (2, 3, 5):
        s = meeple.make("trickarus", players=players, seed=20 + players)
        rng = random.Random(players)
        leading_with_choice = following = 0
        while not s.is_over():
            legal = s.legal_actions()
            assert [a for a in range(-2, 42) if s.is_legal(a)] == legal
            if s.trick:
                following += 1
            elif len(legal) > 1:
                leading_with_choice += 1
            for bad in (-1, 40):
                with pytest.raises(IllegalAction):
                    s.apply(bad)
            s.apply(rng.choice(legal))
        assert leading_with_choice and following
        assert s.legal_actions() == [] and not any(s.is_legal(a) for a in range(40))
        with pytest.raises(IllegalAction):
            s.apply(0)


# ----- The Strongest Color -----------------------------------------------------------------
def test_day_yellow_trump_beats_higher_lead_colour():
    """The Strongest Color: by Day a low Sun (yellow) card beats higher cards of other colours."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["sun1", "rain2"], 2: ["cloud8", "rain3"]})
    play(s, "cloud9", "sun1", "cloud8")
    assert s.last_winner == 1 and s.pos[1] == 1


def test_night_white_trump_and_highest_lead_colour_wins_without_trump():
    """The Strongest Color: by Night White (moon) is trump; otherwise the highest lead colour."""
    # Night values are 10 - day: cloud1 is Cloud 9 at night, moon9 is Moon 1 at night.
    s = arrange(3, {0: ["cloud2", "rain1"], 1: ["moon9", "rain2"], 2: ["cloud1", "rain3"]}, side=1)
    play(s, "cloud2", "moon9", "cloud1")
    assert s.last_winner == 1
    s = arrange(3, {0: ["cloud2", "rain1"], 1: ["rain9", "rain2"], 2: ["cloud1", "rain3"]}, side=1)
    play(s, "cloud2", "rain9", "cloud1")
    assert s.last_winner == 2  # Cloud 9 (night) beats Cloud 8; Rain is off colour


# ----- Changing Between Day and Night ------------------------------------------------------
def test_a_five_flips_hands_and_table_at_once_and_trump_with_them():
    """Changing Between Day and Night: a 5 flips every card held and on the table immediately."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["cloud5", "rain2"], 2: ["sun1", "rain3"]})
    play(s, "cloud9", "cloud5")
    assert s.side == 1
    view = s.view(2)
    assert view["side"] == "night" and view["trump"] == "moon"
    assert {tuple(c["active"]) for c in view["hand"]} == {("sun", 9), ("rain", 7)}
    assert view["trick"][0]["card"]["active"] == ["cloud", 1]  # the table flipped too
    play(s, "sun1")  # void in Cloud; Sun is no longer trump at night
    # Cloud 5 (night 5) beats Cloud 9-by-day which is now Cloud 1.
    assert s.last_winner == 1


def test_faq_zero_led_then_five_changes_the_lead_colour_for_later_players():
    """FAQ: a zero card led, then a 5 in the same trick: the lead colour changes."""
    # cloud0-rain0: Cloud by day, Rain by night.
    s = arrange(
        4,
        {0: ["cloud0-rain0", "moon1"], 1: ["cloud5", "moon2"], 2: ["cloud7", "rain4"], 3: ["sun2", "moon3"]},
    )
    play(s, "cloud0-rain0")
    assert s.view(1)["lead_suit"] == "cloud"
    play(s, "cloud5")  # flips to night
    assert s.view(2)["lead_suit"] == "rain"
    assert s.legal_actions() == [C("rain4")]  # must now follow Rain, not Cloud


def test_faq_lightning_led_next_card_sets_the_lead_colour():
    """FAQ: if the leader plays the Lightning card, the next card played sets the lead colour."""
    s = arrange(3, {0: ["lightning", "rain1"], 1: ["sun3", "cloud2"], 2: ["sun4", "cloud9"]})
    play(s, "lightning")
    assert set(s.legal_actions()) == {C("sun3"), C("cloud2")}  # anything
    play(s, "cloud2")
    assert s.legal_actions() == [C("cloud9")]


# ----- The score track ---------------------------------------------------------------------
def test_winner_moves_to_next_open_space_leaping_occupied_ones():
    """Advancing Along the Scoring Track: one player per space; leap over occupied spaces."""
    s = arrange(3, {0: ["sun9", "rain1"], 1: ["cloud1", "rain2"], 2: ["cloud2", "rain3"]}, pos=[2, 3, 4])
    play(s, "sun9", "cloud1", "cloud2")
    assert s.pos == [5, 3, 4]


def test_flying_into_the_sun_falls_just_below_the_bottom_most_player():
    """Flying Into the Sun: past the top space, fall to just below the bottom-most player."""
    s = arrange(3, {0: ["sun9", "rain1"], 1: ["cloud1", "rain2"], 2: ["cloud2", "rain3"]}, pos=[10, 4, 6], track=10)
    play(s, "sun9", "cloud1", "cloud2")
    assert s.pos == [3, 4, 6] and s.sun_reached
    trick = next(e for e in s.log(None) if e["type"] == "trick")
    assert trick["sun"] is True and trick["from"] == 10 and trick["to"] == 3


def test_leaping_into_the_sun_over_occupied_top_spaces():
    """Advancing + Flying Into the Sun: leaping over the occupied top space reaches the sun."""
    s = arrange(3, {0: ["sun9", "rain1"], 1: ["cloud1", "rain2"], 2: ["cloud2", "rain3"]}, pos=[9, 10, 1], track=10)
    play(s, "sun9", "cloud1", "cloud2")
    assert s.pos == [0, 10, 1] and s.sun_reached


def test_nobody_goes_below_ground():
    """FAQ: you cannot go below ground level (falling from the sun with someone on the ground)."""
    s = arrange(3, {0: ["sun9", "rain1"], 1: ["cloud1", "rain2"], 2: ["cloud2", "rain3"]}, pos=[10, 0, 5], track=10)
    play(s, "sun9", "cloud1", "cloud2")
    assert s.pos == [0, 0, 5]


def test_lightning_winner_moves_down_to_next_open_space_below():
    """The Lightning Card: the winner of a trick with Lightning moves down to the next open space."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["cloud2", "rain3"]}, pos=[5, 4, 3])
    play(s, "cloud9", "lightning", "cloud2")
    assert s.last_winner == 0 and s.pos == [2, 4, 3]  # leaps down over 4 and 3
    # Only occupied spaces are leapt: the first open one below is taken (3, not 1 or the ground).
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["cloud2", "rain3"]}, pos=[5, 4, 2])
    play(s, "cloud9", "lightning", "cloud2")
    assert s.pos == [3, 4, 2]
    # Every space below occupied: down to the ground, which holds everyone (never a shared space).
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["cloud2", "rain3"]}, pos=[3, 2, 1])
    play(s, "cloud9", "lightning", "cloud2")
    assert s.pos == [0, 2, 1]


def test_lightning_on_the_ground_stays_on_the_ground():
    """FAQ: cannot go below ground, so a grounded Lightning winner stays put."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["cloud2", "rain3"]})
    play(s, "cloud9", "lightning", "cloud2")
    assert s.pos == [0, 0, 0]


def test_lightning_variant_beats_non_trump_loses_to_trump():
    """Lightning Card Variant: Lightning beats non-trump cards but loses to the trump colour."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["cloud2", "rain3"]},
                pos=[0, 5, 0], lightning_variant=True)
    play(s, "cloud9", "lightning", "cloud2")
    assert s.last_winner == 1 and s.pos[1] == 4  # it wins, and its winner still moves down
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["sun2", "rain3"]},
                lightning_variant=True)
    play(s, "cloud9", "lightning", "sun2")
    assert s.last_winner == 2


def test_standard_lightning_never_wins():
    """The Lightning Card (standard): it has no colour, so it never wins the trick."""
    s = arrange(3, {0: ["lightning", "rain1"], 1: ["cloud1", "rain2"], 2: ["cloud2", "rain3"]})
    play(s, "lightning", "cloud1", "cloud2")
    assert s.last_winner == 2


# ----- Rounds and the end ------------------------------------------------------------------
def test_trick_winner_leads_the_next_trick():
    """Playing the Next Trick: the trick winner becomes the next leader."""
    s = arrange(3, {0: ["cloud3", "rain1"], 1: ["cloud9", "rain2"], 2: ["cloud2", "rain3"]})
    play(s, "cloud3", "cloud9", "cloud2")
    assert s.to_move == 1 and s.leader == 1


def test_round_ends_game_after_someone_flew_into_the_sun_and_last_winner_leads_next_round():
    """End of Game: the round in which someone flew into the sun is played out, then the game ends.
    Playing the Next Round: otherwise deal again; the last trick's winner leads."""
    s = arrange(3, {0: ["sun9", "rain1"], 1: ["cloud1", "rain2"], 2: ["cloud2", "rain3"]}, pos=[10, 4, 6], track=10)
    play(s, "sun9", "cloud1", "cloud2")
    assert s.sun_reached and not s.is_over() and s.to_move == 0
    play(s, "rain1", "rain2", "rain3")
    assert s.round == 1 and s.is_over()

    s = arrange(3, {0: ["cloud1"], 1: ["cloud9"], 2: ["cloud2"]})
    play(s, "cloud1", "cloud9", "cloud2")
    assert not s.is_over() and s.round == 2 and s.to_move == 1
    assert [h.bit_count() for h in s.hands] == [13, 13, 13]


def test_two_player_game_is_one_round():
    """Rounds: a 2-player game is always only 1 round."""
    s = meeple.make("trickarus", players=2, seed=1)
    assert s.view(None)["round_limit"] == 1
    assert meeple.make("trickarus", players=3, seed=1).view(None)["round_limit"] is None
    play_random(s, random.Random(1))
    assert s.round == 1 and len(s.history) == 26


def test_winner_is_highest_on_the_track():
    """End of Game: the player highest on the Scoring Track wins; the ground is a shared place."""
    s = arrange(3, {0: ["cloud1"], 1: ["cloud9"], 2: ["cloud2"]}, pos=[10, 0, 0], track=10)
    s.sun_reached = True
    play(s, "cloud1", "cloud9", "cloud2")
    assert s.is_over()
    assert s.pos == [10, 1, 0] and s.ranking() == [1, 2, 3] and s.returns() == [1.0, 0.0, -1.0]


# ----- Cooperative Mode ----------------------------------------------------------------------
@pytest.mark.parametrize("players,limit", [(3, 2), (4, 3), (5, 4)])
def test_cooperative_round_limits(players, limit):
    """Cooperative Mode: 3 players 2 rounds, 4 players 3, 5 players 4."""
    s = meeple.make("trickarus", players=players, seed=2, mode="cooperative", track=30)
    assert s.view(None)["round_limit"] == limit
    play_random(s, random.Random(2))
    assert s.round == limit


def test_cooperative_needs_three_players():
    """Overview: co-operative mode is for 3-5 players."""
    with pytest.raises(meeple.BadPlayerCount, match="co-operative"):
        meeple.make("trickarus", players=2, mode="cooperative")


def test_cooperative_after_the_sun_winners_move_down():
    """Cooperative Mode: once any player has flown into the sun, trick winners move down."""
    s = arrange(3, {0: ["sun9", "cloud9"], 1: ["cloud1", "cloud8"], 2: ["cloud2", "cloud7"]},
                pos=[10, 4, 6], mode="cooperative", track=10)
    play(s, "sun9", "cloud1", "cloud2")
    assert s.sun_reached and s.pos == [3, 4, 6]
    play(s, "cloud9", "cloud8", "cloud7")
    assert s.pos == [2, 4, 6]


def test_cooperative_lightning_moves_down_even_before_the_sun():
    """Cooperative Mode: Lightning moves the winner down whether flying up or heading down."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["cloud2", "rain3"]},
                pos=[5, 4, 3], mode="cooperative")
    play(s, "cloud9", "lightning", "cloud2")
    assert s.pos == [2, 4, 3]


def test_cooperative_team_scores_a_million_per_landed_player():
    """Cooperative Mode: 1 million points for every player landed; everyone down ends the game."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["cloud1", "rain2"], 2: ["cloud2", "rain3"]},
                pos=[1, 0, 0], mode="cooperative")
    s.sun_reached = True
    s.flown = 0b111  # all three have been up and two are back down already
    assert s.returns() == [0.0] * 3  # nothing is decided before the end
    play(s, "cloud9", "cloud1", "cloud2")
    assert s.pos == [0, 0, 0] and s.is_over()
    assert s.scores() == [3_000_000.0] * 3 and s.ranking() == [1, 1, 1] and s.returns() == [1.0] * 3


def coop_last_trick(**options) -> TrickarusState:
    """Co-op, 3 players, the last trick of the last round; P0 at space 1 wins a Lightning trick
    and comes down to the ground, where P1 and P2 already are."""
    s = arrange(3, {0: ["cloud9"], 1: ["lightning"], 2: ["cloud2"]}, pos=[1, 0, 0],
                mode="cooperative", **options)
    s.round = s.round_limit
    return s


def test_cooperative_without_reaching_the_sun_scores_nothing():
    """Cooperative Mode (ruling R5): nobody has landed 'back down' unless the sun was reached,
    even with the whole team on the ground when the last round ends."""
    s = coop_last_trick()
    s.flown = 0b111
    play(s, "cloud9", "lightning", "cloud2")
    assert s.pos == [0, 0, 0] and not s.sun_reached and s.is_over()
    assert s.scores() == [0.0] * 3 and s.returns() == [-1.0] * 3


def test_cooperative_a_player_who_never_left_the_ground_has_not_landed():
    """Cooperative Mode (ruling R5): 1 million "for every player who lands safely back down on
    the ground"; a player who never left the ground has not landed back down (default
    ``coop_landed=came_back``). Option ``coop_landed=on_ground`` counts everyone on the ground."""
    for option, landed in (("came_back", 2), ("on_ground", 3)):
        s = coop_last_trick(coop_landed=option)
        s.sun_reached = True
        s.flown = 0b011  # P2 never left the ground
        play(s, "cloud9", "lightning", "cloud2")
        assert s.pos == [0, 0, 0] and s.is_over()
        assert s.scores() == [landed * 1_000_000.0] * 3
        assert s.returns() == [2.0 * landed / 3 - 1.0] * 3


def test_cooperative_winning_a_trick_upwards_leaves_the_ground():
    """Cooperative Mode (ruling R5): a trick won flying up takes its winner off the ground (so they
    can later land back down); a Lightning trick, moving down, does not."""
    s = arrange(3, {0: ["cloud9", "rain1"], 1: ["lightning", "rain2"], 2: ["cloud2", "rain3"]},
                mode="cooperative")
    play(s, "cloud9", "lightning", "cloud2")
    assert s.pos == [0, 0, 0] and s.flown == 0  # Lightning: P0 stays on the ground
    play(s, "rain1", "rain2", "rain3")
    assert s.pos == [0, 0, 1] and s.flown == 0b100
    assert meeple.make("trickarus", players=3, mode="cooperative").options["coop_landed"] == "came_back"


# ----- Options, chance and information -----------------------------------------------------
def test_track_length_option_and_its_calibrated_defaults():
    """Reconstructed score track: the length is an option; defaults per player count from data."""
    for mode, lengths in rules.TRACK_LENGTH.items():
        for players, length in lengths.items():
            assert meeple.make("trickarus", players=players, mode=mode).track_length == length
    assert meeple.make("trickarus", players=4, track=15).view(None)["track_length"] == 15
    with pytest.raises(meeple.BadOption):
        meeple.make("trickarus", players=4, track=1)
    # One space per player at least ("Only one player can fit on each space"): 4 spaces do for 4.
    assert meeple.make("trickarus", players=4, track=4).track_length == 4
    with pytest.raises(meeple.BadOption, match="at least 4"):
        meeple.make("trickarus", players=4, track=3)


def test_determinize_resamples_hands_and_future_deals_but_keeps_own_hand():
    """determinize: other hands and future rounds' deals are resampled; own hand is kept."""
    s = meeple.make("trickarus", players=4, seed=11)
    rng = random.Random(0)
    det = s.determinize(0, rng)
    assert det.hands[0] == s.hands[0]
    assert det.hands[1:] != s.hands[1:]
    assert sorted(rules.mask_to_list(sum(det.hands[1:]))) == sorted(rules.mask_to_list(sum(s.hands[1:])))
    # Future deals differ: deal the next round from the real and the determinized state.
    real_next, det_next = s.clone(), det.clone()
    real_next._deal()
    det_next._deal()
    assert real_next.hands != det_next.hands


def test_clone_shares_nothing_mutable_with_its_original():
    """clone (search copies states millions of times): playing on a clone - a card, a shown void,
    a trick won and a move on the track - leaves the original exactly as it was."""
    s = arrange(3, {0: ["cloud3", "rain1"], 1: ["sun9", "rain2"], 2: ["cloud2", "rain3"]})
    play(s, "cloud3")
    before = (list(s.hands), list(s.trick), list(s.voids), list(s.pos), s.view(None))
    c = s.clone()
    play(c, "sun9")  # P1 void in Cloud
    assert c.voids[1] and c.trick == [C("cloud3"), C("sun9")]
    play(c, "cloud2")
    assert c.pos == [0, 1, 0]
    assert (list(s.hands), list(s.trick), list(s.voids), list(s.pos), s.view(None)) == before


def test_log_shows_own_deal_only():
    """log(player): public events plus that player's private ones (their own deal)."""
    s = meeple.make("trickarus", players=3, seed=4)
    deals = [e for e in s.log(1) if e["type"] == "deal"]
    assert len(deals) == 1 and set(deals[0]["hand"]) == {c["code"] for c in s.view(1)["hand"]}
    assert not any(e["type"] == "deal" for e in s.log(None))


def test_log_tells_the_table_each_play_on_its_active_side_flips_tricks_and_rounds():
    """log(None): the round and its leader, each play with the card's active side, flips, the trick
    and the move on the track, the round end and the game end."""
    s = arrange(3, {0: ["cloud9"], 1: ["cloud5"], 2: ["cloud2"]}, pos=[10, 4, 6], track=10)
    s.sun_reached = True
    play(s, "cloud9", "cloud5", "cloud2")
    log = s.log(None, text=False)
    assert {"type": "round", "round": 1, "leader": 0} in log
    plays = [e for e in log if e["type"] == "play"]
    assert plays == [
        {"type": "play", "player": 0, "card": "cloud9", "as": "Cloud 9"},
        {"type": "play", "player": 1, "card": "cloud5", "as": "Cloud 5"},
        {"type": "play", "player": 2, "card": "cloud2", "as": "Cloud 8"},  # after the flip: night
    ]
    assert {"type": "flip", "side": "night"} in log
    trick = next(e for e in log if e["type"] == "trick")
    assert trick["winner"] == 2 and trick["from"] == 6 and trick["to"] == 7 and not trick["sun"]
    assert [e["type"] for e in log[-2:]] == ["round_end", "game_end"]
    assert s.view(None)["last_trick"] == {"winner": 2, "cards": ["cloud9", "cloud5", "cloud2"]}


# ----- The heuristic bot (its decisions on constructed positions: tests/test_trickarus_bot.py) --
def test_heuristic_wins_cheaply_when_last():
    """Bot: last to play and wanting the trick, it wins with its cheapest winning card."""
    s = arrange(3, {0: ["cloud3", "rain1"], 1: ["cloud4", "rain2"], 2: ["cloud6", "cloud9", "cloud2"]})
    play(s, "cloud3", "cloud4")
    assert HeuristicBot().choose(s) == C("cloud6")


def test_heuristic_beats_random_over_many_games():
    """Bot: at 4 players the heuristic seat places better on average than a random seat does
    against the same random opponents and deals (fixed seeds, 200 games each)."""
    from meeple.bots import RandomBot

    def mean_place(make_bot) -> float:
        places = []
        for seed in range(200):
            s = meeple.make("trickarus", players=4, seed=seed)
            bot, rng, seat = make_bot(seed), random.Random(seed), seed % 4
            while not s.is_over():
                s.apply(bot.choose(s) if s.to_move == seat else rng.choice(s.legal_actions()))
            places.append(s.ranking()[seat])
        return sum(places) / len(places)

    assert mean_place(HeuristicBot) < mean_place(lambda seed: RandomBot(seed + 99)) - 0.15


def test_determinize_respects_shown_voids():
    """Gameplay flow (must follow): a player who did not follow has no card of that colour, so
    determinize never deals them one."""
    s = meeple.make("trickarus", players=4, seed=21)
    rng = random.Random(5)
    checked = 0
    while not s.is_over() and s.round == 1:
        for p in range(4):
            if s.voids[(p + 1) % 4]:
                det = s.determinize(p, rng)
                for q in range(4):
                    assert det.hands[q] & s.voids[q] == 0
                checked += 1
        s.apply(rng.choice(s.legal_actions()))
    assert checked > 0
