"""Savage Bowl rules, each test naming the rulebook section it checks (shared/rules/001).

Scenarios are built by dealing chosen hands (and, for late-round situations, setting the trick
number and tricks won) and then playing real actions through `State.apply`.
"""

from __future__ import annotations

import json
import os
import random
import re

import pytest

import meeple
from contract import play_random
from meeple.bots import make_bot
from meeple.games.savage_bowl.rules import (
    ALL_CARDS,
    CARD_ID,
    CHAM_BASE,
    CODE,
    DISCARD_BASE,
    NUM_CARDS,
    NUMBER,
    SavageBowlState,
    mask_to_list,
)


# ----- helpers ---------------------------------------------------------------------------------
def make(players: int = 4, seed: int = 0, **options) -> SavageBowlState:
    state = meeple.make("savage_bowl", players=players, seed=seed, **options)
    assert isinstance(state, SavageBowlState)
    return state


def mask(codes: str) -> int:
    return sum(1 << CARD_ID[c] for c in codes.split())


def give(state: SavageBowlState, hands: dict[int, str]) -> SavageBowlState:
    """Replace the dealt hands of the named seats (short hands are fine for a few tricks)."""
    for p, codes in hands.items():
        state.hands[p] = mask(codes)
    return state


def action(move: str) -> int:
    """'red5' plays, 'cham:red5' plays with the Chameleon, 'discard:red5' discards."""
    if move.startswith("cham:"):
        return CHAM_BASE + CARD_ID[move[5:]]
    if move.startswith("discard:"):
        return DISCARD_BASE + CARD_ID[move[8:]]
    return CARD_ID[move]


def play(state: SavageBowlState, *moves: str, by: list[int] | None = None) -> None:
    for i, move in enumerate(moves):
        if by is not None:
            assert state.to_move == by[i], f"expected P{by[i]} to move, not P{state.to_move}"
        state.apply(action(move))


def at_trick(state: SavageBowlState, trick: int, order: list[int], won: list[int],
             out: int = 0, champ: list[int] | None = None) -> SavageBowlState:
    """Jump to the start of ``trick`` with ``order`` taking part (used for late-round rules)."""
    state.trick_no = trick
    state.order = order
    state.to_move = order[0]
    state.won = list(won)
    state.out = out
    state.champ = list(champ or [])
    state.trick, state.tcol = [], []
    state.phase = 0
    return state


def quoted_codes(obj) -> set[str]:
    """Every card code appearing as a JSON string in ``obj``."""
    return set(re.findall(r'"([a-z]+\d+)"', json.dumps(obj))) & set(CODE)


def cards(m: int) -> set[str]:
    return {CODE[c] for c in mask_to_list(m)}


# ----- Setup -----------------------------------------------------------------------------------
def test_setup_4_players():
    """Setup 5b-8 and Overview (For 4 players): no 12s/13s, 13 each, one 2-point Champ, 4 rounds, target 3."""
    s = make(4)
    dealt = 0
    for p in range(4):
        assert s.hands[p].bit_count() == 13
        assert not dealt & s.hands[p]
        dealt |= s.hands[p]
    assert dealt.bit_count() == 52
    assert {NUMBER[c] for c in mask_to_list(dealt) if not CODE[c].startswith("trump")} == set(range(1, 12))
    assert cards(dealt) >= {f"trump{n}" for n in range(1, 9)}
    assert (s.target, s.num_tricks, s.num_rounds, s.champ_values) == (3, 13, 4, (2,))
    assert s.view(0)["chameleon_unused"] == [True] * 4  # Setup 8: one Chameleon each, the 5th unused
    assert s.to_move == 0 and s.view(None)["half"] == "first"


def test_setup_5_players():
    """Setup 5a-8 and Overview (For 5 players): all 60 cards, 12 each, Champs worth 2 and 1, 5 rounds, target 2."""
    s = make(5)
    dealt = 0
    for p in range(5):
        assert s.hands[p].bit_count() == 12
        dealt |= s.hands[p]
    assert dealt == ALL_CARDS and NUM_CARDS == 60
    assert (s.target, s.num_tricks, s.num_rounds, s.champ_values) == (2, 12, 5, (2, 1))
    assert [c["value"] for c in s.view(None)["runaway_champ"]] == [2, 1]


def test_player_counts_are_4_and_5():
    """Front matter: 4-5 players."""
    for bad in (3, 6):
        with pytest.raises(meeple.BadPlayerCount):
            meeple.make("savage_bowl", players=bad)


def test_one_chameleon_per_player_needs_enough_chameleon_cards(monkeypatch):
    """Components (5 Chameleon Cards) and Setup 8: one Chameleon Card is dealt to each player, so
    a table larger than the Chameleon cards in the data is refused unless they are left out."""
    from meeple.games.savage_bowl import rules

    monkeypatch.setattr(rules, "CHAMELEONS", 4)
    with pytest.raises(meeple.BadPlayerCount, match="only 4 Chameleon"):
        rules.check(5, {"chameleons": True})
    rules.check(4, {"chameleons": True})
    rules.check(5, {"chameleons": False})
    with pytest.raises(meeple.BadPlayerCount):
        make(3)


def test_chameleons_off_for_a_first_game():
    """Components note: a first game returns the Chameleon cards to the box (option chameleons=False)."""
    s = give(make(4, chameleons=False), {0: "red5", 1: "red7 blue3"})
    play(s, "red5")
    assert s.legal_actions() == [CARD_ID["red7"]]
    assert not any(s.view(None)["chameleon_unused"])


# ----- Playing a trick -------------------------------------------------------------------------
def test_must_follow_the_led_colour():
    """The Flow of a Round, step 2: follow the led colour if you can, else play anything."""
    s = give(make(4, chameleons=False), {0: "red5 blue2", 1: "red7 red9 blue3 trump8", 2: "blue4 trump1"})
    play(s, "red5")
    assert s.legal_actions() == sorted(CARD_ID[c] for c in ("red7", "red9"))
    with pytest.raises(meeple.IllegalAction):
        s.apply(CARD_ID["trump8"])
    play(s, "red9")
    assert s.legal_actions() == sorted(CARD_ID[c] for c in ("blue4", "trump1"))  # void: anything


def test_is_legal_agrees_with_legal_actions_and_refuses_other_ids():
    """The Flow of a Round (must follow; the Chameleon; the Yellow Card holder's discard):
    `is_legal` and `apply` accept exactly the actions `legal_actions` lists, at every decision of
    whole games, refuse ids outside 0..179 and non-ints, and everything once the game is over."""
    for players, chameleons in ((4, True), (5, True), (4, False)):
        s = make(players, seed=30 + players, chameleons=chameleons)
        rng = random.Random(players)
        kinds = set()
        while not s.is_over():
            legal = s.legal_actions()
            assert [a for a in range(-2, 3 * NUM_CARDS + 2) if s.is_legal(a)] == legal
            assert not s.is_legal(1.0) and not s.is_legal(True)  # type: ignore[arg-type]
            kinds |= {a // NUM_CARDS for a in legal}
            for bad in (-1, 3 * NUM_CARDS):
                with pytest.raises(meeple.IllegalAction):
                    s.apply(bad)
            s.apply(rng.choice(legal))
        assert kinds == ({0, 1, 2} if chameleons else {0, 2})
        assert s.legal_actions() == [] and not any(s.is_legal(a) for a in range(3 * NUM_CARDS))


def test_trump_beats_colours_and_trumps_compare_by_number():
    """The Flow of a Round, step 2a: a Trump Card beats the four colours; among trumps, the number."""
    s = give(make(4, chameleons=False), {0: "red11", 1: "trump1", 2: "trump3", 3: "red2"})
    at_trick(s, 6, [0, 1, 2, 3], [0, 0, 0, 0])
    play(s, "red11", "trump1", "trump3", "red2")
    assert s.won == [0, 0, 1, 0]  # second half: trump 3 strongest
    assert s.to_move == 2  # step 5: the winner leads


def test_second_half_strongest_wins_and_leads():
    """The second half, step 3: from the sixth trick on the strongest card wins; no Yellow Card."""
    s = give(make(4, chameleons=False), {0: "red5 blue1", 1: "red9", 2: "red3", 3: "blue11"})
    at_trick(s, 7, [0, 1, 2, 3], [0, 0, 0, 0])
    play(s, "red5", "red9", "red3", "blue11")
    assert s.won == [0, 1, 0, 0] and s.yellow == -1 and s.phase == 0
    assert s.order == [1, 2, 3, 0]


# ----- First half ------------------------------------------------------------------------------
def first_trick(state: SavageBowlState) -> SavageBowlState:
    """Trick 1: P1's red 11 strongest, P2's red 9 second strongest."""
    give(state, {0: "red5 green1 green2", 1: "red11 blue6 blue7", 2: "red9 blue4 trump2", 3: "red3 blue5 green3"})
    play(state, "red5", "red11", "red9", "red3", by=[0, 1, 2, 3])
    return state


def test_first_half_second_strongest_wins_strongest_takes_yellow_card():
    """The first half, step 3/3a: second strongest wins; the strongest takes the Yellow Card and discards."""
    s = first_trick(make(4))
    assert s.won == [0, 0, 1, 0]
    assert s.yellow == 1 and s.to_move == 1 and s.view(None)["phase"] == "discard"
    assert s.legal_actions() == sorted(DISCARD_BASE + CARD_ID[c] for c in ("blue6", "blue7"))
    play(s, "discard:blue7")
    assert cards(s.discards[1]) == {"blue7"} and cards(s.hands[1]) == {"blue6"}
    assert s.sheet == [(1, 1, CARD_ID["blue7"])]


def test_first_half_yellow_card_holder_sits_out_next_trick_winner_leads():
    """The first half, step 5: the winner leads; the Yellow Card holder does not play the next trick."""
    s = first_trick(make(4))
    play(s, "discard:blue7")
    assert s.order == [2, 3, 0] and s.to_move == 2
    assert s.view(None)["sitting_out"] == 1
    play(s, "blue4", "blue5", "green1", by=[2, 3, 0])  # P1 skipped
    # trick 2: blue 5 strongest (P3, yellow), blue 4 second (P2 wins again)
    assert s.won == [0, 0, 2, 0] and s.yellow == 3
    play(s, "discard:green3")
    assert s.order == [2, 0, 1]  # P1 back in, P3 out


def test_trick_5_yellow_card_holder_sits_out_trick_6_and_rejoins_at_7():
    """Switching from the first half and the second half: the trick-5 holder plays the Yellow Card
    as a null card in trick 6 and rejoins in trick 7; trick 6 has no Yellow Card."""
    s = give(make(4, chameleons=False), {0: "red5 blue1 green1", 1: "red11 blue2 blue3 green4",
                                         2: "red9 blue9 green2", 3: "red3 blue4 green3"})
    at_trick(s, 5, [0, 1, 2, 3], [1, 1, 1, 1])
    play(s, "red5", "red11", "red9", "red3")
    assert s.won == [1, 1, 2, 1] and s.yellow == 1
    play(s, "discard:blue3")
    assert s.trick_no == 6 and s.order == [2, 3, 0]
    v = s.view(None)
    assert v["half"] == "second" and v["sitting_out"] == 1 and v["yellow_card"] == 1
    play(s, "blue9", "blue4", "blue1")
    assert s.won == [1, 1, 3, 1]  # trick 6: the strongest wins
    assert s.phase == 0 and s.yellow == -1  # no discard, the Yellow Card goes back
    assert s.trick_no == 7 and s.order == [2, 3, 0, 1]  # P1 rejoins


def test_first_half_needs_a_second_player_and_always_has_one():
    """The first half with one player eliminated and one sitting out: a 2-player trick still has a
    strongest (Yellow Card) and a second strongest (winner)."""
    s = give(make(4, chameleons=False), {2: "red9 blue1", 3: "red3 blue2"})
    at_trick(s, 5, [2, 3], [4, 0, 0, 0], out=0b0001)
    play(s, "red9", "red3")
    assert s.won[3] == 1 and s.yellow == 2


# ----- Elimination -----------------------------------------------------------------------------
def test_elimination_at_once_for_one_trick_too_many():
    """The Flow of a Round, step 4: winning the (target+1)th trick eliminates at once; the hand is set aside."""
    s = give(make(4, chameleons=False), {0: "red5 blue1", 1: "red11 blue2", 2: "red3 blue3", 3: "red2 blue4"})
    at_trick(s, 7, [0, 1, 2, 3], [0, 3, 2, 2])
    play(s, "red5", "red11", "red3", "red2")
    assert s.out == 0b0010 and s.view(None)["eliminated"] == [False, True, False, False]
    # Ruling: the eliminated winner's lead passes to the next player to the left.
    assert s.order == [2, 3, 0] and s.to_move == 2
    assert s.hands[1].bit_count() == 1  # set aside, never played again


def test_eliminated_player_loses_the_unused_chameleon_with_the_hand():
    """The Flow of a Round, step 4: an eliminated player's hand is set aside, the unused
    Chameleon Card with it; the other players keep theirs."""
    s = give(make(4), {0: "red5 blue1", 1: "red11 blue2", 2: "red3 blue3", 3: "red2 blue4"})
    at_trick(s, 7, [0, 1, 2, 3], [0, 3, 2, 2])
    play(s, "red5", "red11", "red3", "red2")
    assert s.out == 0b0010
    assert s.view(None)["chameleon_unused"] == [True, False, True, True]
    assert {"type": "eliminated", "player": 1} in s.log(None, text=False)


def test_eliminated_winner_in_first_half_passes_lead_past_the_sitting_player():
    """Ruling (lead): the winner eliminated in trick 4 and the next seat yellow-carded: the lead goes
    to the next player to the left who takes part."""
    s = give(make(4, chameleons=False), {0: "red5 blue1", 1: "red9 blue2", 2: "red11 blue3 blue4", 3: "red2 blue5"})
    at_trick(s, 4, [0, 1, 2, 3], [0, 3, 0, 0])
    play(s, "red5", "red9", "red11", "red2")
    assert s.out == 0b0010 and s.yellow == 2
    play(s, "discard:blue4")
    assert s.order == [3, 0]


def test_eliminated_player_scores_zero():
    """End-of-Round Scoring: an eliminated player scores nothing, even with a Runaway Champ card."""
    s = give(make(4, chameleons=False), {0: "red5", 1: "red11", 3: "red2"})
    at_trick(s, 13, [0, 1, 3], [3, 3, 4, 3], out=0b0100, champ=[1])
    play(s, "red5", "red11", "red2")  # P1 wins its 4th: out
    assert s.results[-1]["eliminated"] == [False, True, True, False]
    assert s.results[-1]["gained"] == [1, 0, 0, 1]  # round 1: 1 point; P1's Champ bonus lost


def test_round_ends_early_when_one_player_remains():
    """End of a Round: in a 4-player game, one player left after the 12th trick skips the 13th."""
    s = give(make(4, chameleons=False), {2: "red5 blue5", 3: "red2 blue2"})
    at_trick(s, 12, [2, 3], [4, 4, 3, 0], out=0b0011, champ=[0])
    play(s, "red5", "red2")
    r = s.results[-1]
    assert r["tricks_played"] == 12 and r["tricks"] == [4, 4, 4, 0]
    assert r["gained"] == [0, 0, 0, 0]  # nobody scores for the skipped trick
    assert s.round == 2
    # Get Ready for the Next Round: the 2-point Champ holder starts, eliminated or not.
    assert s.to_move == 0 and s.order[0] == 0


# ----- Runaway Champ and scoring ---------------------------------------------------------------
def test_runaway_champ_cards_in_order_of_reaching_the_target():
    """Runaway Champ Cards (For 5 players): first to 2 tricks gets the 2, second the 1, the third none."""
    s = give(make(5, chameleons=False), {0: "red5 blue5 green5", 1: "red9 blue9 green9", 2: "red3 blue3",
                                         3: "red2 blue2", 4: "red4 blue4"})
    at_trick(s, 7, [0, 1, 2, 3, 4], [1, 1, 1, 0, 0])
    play(s, "red5", "red9", "red3", "red2", "red4")
    assert s.champ == [1]
    play(s, "blue9", "blue3", "blue2", "blue4", "blue5")  # P1 leads again and wins its third
    assert s.champ == [1] and s.out == 0b00010  # eliminated, but the card stays with P1
    give(s, {2: "green2 purple2", 3: "green1 purple1", 4: "green4 purple9", 0: "green5 purple3"})
    play(s, "green2", "green1", "green4", "green5", by=[2, 3, 4, 0])
    assert s.won[0] == 2 and s.champ == [1, 0]  # the second to reach 2 gets the 1-point card
    s.won[4] = 1
    play(s, "purple3", "purple2", "purple1", "purple9", by=[0, 2, 3, 4])
    assert s.won[4] == 2 and s.champ == [1, 0]  # the third gets none
    assert [c["player"] for c in s.view(None)["runaway_champ"]] == [1, 0]
    champs = [e for e in s.log(None, text=False) if e["type"] == "champ"]
    assert champs == [{"type": "champ", "player": 1, "value": 2}, {"type": "champ", "player": 0, "value": 1}]


def test_4_player_single_champ_card():
    """Runaway Champ Cards (For 4 players): only the first to 3 tricks gets a card (worth 2)."""
    s = give(make(4, chameleons=False), {0: "red5 blue5", 1: "red9 blue9", 2: "red3 blue3", 3: "red2 blue2"})
    at_trick(s, 7, [0, 1, 2, 3], [2, 2, 0, 0], champ=[])
    play(s, "red5", "red9", "red3", "red2")
    assert s.champ == [1]
    s.won[0] = 2
    give(s, {0: "blue11"})
    play(s, "blue9", "blue3", "blue2", "blue11")
    assert s.won[0] == 3 and s.champ == [1]


def test_base_points_by_round_and_surviving_champ_bonus():
    """End-of-Round Scoring: base = round number for exactly the target; Champ bonus only if not eliminated."""
    s = give(make(5, chameleons=False), {0: "red5", 1: "red3", 2: "red9"})
    s.round = 3
    at_trick(s, 12, [0, 1, 2], [2, 2, 1, 3, 3], out=0b11000, champ=[3, 0])
    play(s, "red5", "red3", "red9")
    r = s.results[-1]
    assert r["tricks"] == [2, 2, 2, 3, 3]
    assert r["gained"] == [3 + 1, 3, 3, 0, 0]
    assert s.points == [4, 3, 3, 0, 0] and s.scores() == [4.0, 3.0, 3.0, 0.0, 0.0]


@pytest.mark.parametrize("rnd", [1, 2, 3, 4])
def test_base_points_table_4_players(rnd):
    """End-of-Round Scoring, Base Points table: round n gives n points for exactly 3 tricks (4 players)."""
    s = give(make(4, chameleons=False), {0: "red5", 1: "red3", 2: "red9"})
    s.round = rnd
    at_trick(s, 13, [0, 1, 2], [3, 3, 2, 4], out=0b1000, champ=[3])
    play(s, "red5", "red3", "red9")
    assert s.results[-1]["gained"] == [rnd, rnd, rnd, 0]


# ----- Game end ----------------------------------------------------------------------------------
def finish_round(s: SavageBowlState, won: list[int], champ: list[int], rnd: int, points: list[int]) -> None:
    """Play trick 13 of a 4-player round in which P3 wins (it holds the only trump)."""
    s.round = rnd
    s.points = list(points)
    give(s, {0: "red5", 1: "red3", 2: "red9", 3: "trump1"})
    out = sum(1 << p for p in range(4) if won[p] > s.target)
    order = [p for p in range(4) if not out >> p & 1]
    at_trick(s, 13, order, won, out=out, champ=champ)
    play(s, *("red5 red3 red9 trump1".split()[p] for p in order))


def test_game_ends_at_10_points():
    """End of a Game: at least one player with 10 points after a round's scoring ends the game."""
    s = make(4, chameleons=False)
    finish_round(s, [3, 4, 4, 2], [0], 2, [6, 0, 0, 0])  # P0 gains 2 + 2 = 4 -> 10
    assert s.is_over() and s.points[0] == 10 and s.legal_actions() == []
    assert s.ranking()[0] == 1


def test_game_continues_below_10_points_and_ends_after_all_rounds():
    """End of a Game: otherwise after 4 rounds (4 players)."""
    s = make(4, chameleons=False)
    finish_round(s, [3, 4, 4, 2], [0], 2, [0, 0, 0, 0])
    assert not s.is_over() and s.round == 3
    s = make(4, chameleons=False)
    finish_round(s, [3, 4, 4, 2], [0], 4, [0, 0, 0, 0])
    assert s.is_over() and s.points == [4 + 2, 0, 0, 4]


def test_tie_broken_by_2_point_champ_even_if_eliminated():
    """End of a Game: tied leaders, the 2-point Champ holder wins, eliminated in the last round or not."""
    s = make(4, chameleons=False)
    finish_round(s, [3, 4, 2, 2], [1], 4, [5, 9, 0, 0])  # P1 got the card, then a 4th trick
    assert s.is_over() and s.points == [9, 9, 0, 4]
    assert s.ranking() == [2, 1, 4, 3]  # P1 (the 2-point card, eliminated) wins the tie


def test_tie_broken_by_1_point_champ_then_shared():
    """End of a Game (5 players): no tied leader with the 2-point card -> the 1-point card; none -> shared."""
    s = make(5, chameleons=False)
    s.points = [6, 6, 6, 2, 0]
    s.last_champ = [3, 2]
    assert s.ranking() == [2, 2, 1, 4, 5]
    s.last_champ = [3, 4]
    assert s.ranking() == [1, 1, 1, 4, 5]
    s.last_champ = [1, 2]
    assert s.ranking() == [3, 1, 2, 4, 5]


def test_next_round_starts_with_the_2_point_champ_holder():
    """Get Ready for the Next Round: the 2-point Champ holder leads; everyone is back; Chameleons return."""
    s = make(4)
    s.cham = 0
    finish_round(s, [3, 4, 2, 2], [1], 1, [0, 0, 0, 0])
    assert s.round == 2 and s.to_move == 1 and s.out == 0
    end = next(e for e in s.log(None) if e["type"] == "round_end")  # End-of-Round Scoring, told
    assert end["round"] == 1 and end["tricks"] == [3, 4, 2, 3] and end["eliminated"] == [False, True, False, False]
    assert end["gained"] == [1, 0, 0, 1] and end["points"] == [1, 0, 0, 1] and end["champ"] == [1]
    assert all(h.bit_count() == 13 for h in s.hands)
    assert s.view(None)["chameleon_unused"] == [True] * 4


# ----- Chameleon cards -------------------------------------------------------------------------
def chameleon_trick(**options) -> SavageBowlState:
    """Trick 1 makes P1 yellow and P3 the winner, so trick 2 is played P3, P0, (P1 out), P2."""
    s = give(make(4, **options), {0: "red5 trump2 green5", 1: "red11 blue6 blue7", 2: "red3 blue8 green1 green2",
                                  3: "red9 blue4 green3"})
    play(s, "red5", "red11", "red3", "red9", by=[0, 1, 2, 3])
    play(s, "discard:blue7")
    assert s.order == [3, 0, 2]
    return s


def test_chameleon_cannot_lead():
    """What Is Chameleon Card: the first player of a trick cannot play a Chameleon Card."""
    s = make(4)
    assert all(a < CHAM_BASE for a in s.legal_actions())
    with pytest.raises(meeple.IllegalAction):
        s.apply(CHAM_BASE + mask_to_list(s.hands[0])[0])


def test_chameleon_copies_last_card_across_a_skipped_player_and_frees_from_following():
    """Additional Tips: the Chameleon copies the last card played even when the seat to the right sat
    out; Timing: it frees the player from following; it copies trump too."""
    s = chameleon_trick()
    play(s, "blue4", "trump2", by=[3, 0])
    assert s.to_move == 2
    legal = s.legal_actions()
    assert [a for a in legal if a < CHAM_BASE] == [CARD_ID["blue8"]]  # must follow blue plainly
    assert CHAM_BASE + CARD_ID["green1"] in legal  # with the Chameleon, any card
    play(s, "cham:green1")
    t = s.view(None)
    assert t["yellow_card"] == 0  # trump 2 strongest (P0)
    assert s.won[2] == 1  # 'trump 1' (green 1 copying trump) is second strongest: P2 wins
    assert t["chameleon_unused"] == [True, True, False, True]


def test_chameleon_frees_every_card_of_the_hand_whatever_its_id():
    """Timing to play the Chameleon Card: "you can play the Chameleon Card with any card from your
    hand": with a Chameleon, every card held (all 60 ids, in every block of ten) is a legal
    Chameleon play, beside the plain cards that follow the led colour; the leader may play any
    card; the Yellow Card holder may discard any card."""
    every = ALL_CARDS & ~mask("red5")
    s = give(make(4), {0: "red5", 1: " ".join(CODE[c] for c in mask_to_list(every))})
    assert s.legal_actions() == [CARD_ID["red5"]]
    play(s, "red5")
    held = [c for c in range(NUM_CARDS) if every >> c & 1]
    reds = [c for c in held if CODE[c].startswith("red")]
    assert s.legal_actions() == reds + [CHAM_BASE + c for c in held]
    assert [a for a in range(DISCARD_BASE + NUM_CARDS) if s.is_legal(a)] == s.legal_actions()
    s = give(make(4), {0: " ".join(CODE[c] for c in held)})
    assert s.legal_actions() == held  # the leader: any card, never the Chameleon
    s = first_trick(make(4))
    assert s.phase == 1 and s.to_move == 1  # P1 strongest: the Yellow Card, then a discard
    s.hands[1] = every
    assert s.legal_actions() == [DISCARD_BASE + c for c in held]


def test_chameleon_copies_colour_not_number_of_the_last_card():
    """What Is Chameleon Card: the colour of the last card played (not the led one) is copied, never
    the number."""
    s = chameleon_trick()
    play(s, "blue4", "green5", "cham:green2", by=[3, 0, 2])  # green 2 counts as green (last card)
    # blue 4 (led) strongest -> P3 yellow; green 5 beats 'green 2': P0 second, wins
    assert s.yellow == 3 and s.won[0] == 1


def test_chameleon_once_per_round_then_back_next_round():
    """What Is Chameleon Card: once in a round, then face down; Get Ready: added back each round."""
    s = chameleon_trick()
    play(s, "blue4", "trump2", "cham:green1", by=[3, 0, 2])
    play(s, "discard:green5")
    give(s, {0: "red1 red2", 1: "blue6 blue2", 2: "green2 blue11", 3: "green3 blue10"})
    at_trick(s, 7, [3, 2, 1, 0], s.won)
    play(s, "blue10", by=[3])
    assert s.legal_actions() == [CARD_ID["blue11"]]  # P2's Chameleon is spent
    with pytest.raises(meeple.IllegalAction):
        s.apply(CHAM_BASE + CARD_ID["green2"])
    play(s, "blue11")
    assert CHAM_BASE + CARD_ID["blue6"] in s.legal_actions()  # P1 still has its own
    give(s, {0: "red1", 1: "blue6", 2: "green2", 3: "green3"})
    at_trick(s, 13, [3, 2, 1, 0], [3, 2, 3, 3], champ=[3])
    play(s, "green3", "green2", "blue6", "red1")
    assert s.round == 2 and s.view(None)["chameleon_unused"] == [True] * 4


def test_log_tells_the_table_plays_chameleon_colours_tricks_and_discards():
    """The public log: each play with its effective colour and whether a Chameleon was used
    (What Is Chameleon Card: it copies the last card's colour), the trick's winner and Yellow Card
    holder (first half), and that a discard was made (never which card, except to its owner)."""
    s = chameleon_trick()
    play(s, "blue4", "trump2", "cham:green1", by=[3, 0, 2])
    log = s.log(None, text=False)
    plays = [e for e in log if e["type"] == "play"]
    assert plays[:4] == [
        {"type": "play", "player": 0, "card": "red5", "chameleon": False, "colour": "red"},
        {"type": "play", "player": 1, "card": "red11", "chameleon": False, "colour": "red"},
        {"type": "play", "player": 2, "card": "red3", "chameleon": False, "colour": "red"},
        {"type": "play", "player": 3, "card": "red9", "chameleon": False, "colour": "red"},
    ]
    assert plays[-1] == {"type": "play", "player": 2, "card": "green1", "chameleon": True,
                         "colour": "trump"}
    tricks = [e for e in log if e["type"] == "trick"]
    assert tricks == [{"type": "trick", "trick": 1, "winner": 3, "yellow": 1},
                      {"type": "trick", "trick": 2, "winner": 2, "yellow": 0}]
    assert {"type": "discard", "player": 1, "trick": 1} in log
    assert not any(e.get("card") == "blue7" for e in log)
    assert {"type": "discard_own", "card": "blue7"} in s.log(1, text=False)


def test_chameleon_action_json_and_describe():
    """What Is Chameleon Card: the compound play is one action: {'play': code, 'chameleon': true}."""
    s = chameleon_trick()
    play(s, "blue4", "trump2", by=[3, 0])
    a = s.action_from_json({"play": "green1", "chameleon": True})
    assert a == CHAM_BASE + CARD_ID["green1"]
    assert s.action_to_json(a) == {"play": "green1", "chameleon": True}
    assert "Chameleon" in s.describe(a)
    with pytest.raises(meeple.IllegalAction):
        s.action_from_json({"play": "green1"})  # plain, it must follow blue
    with pytest.raises(meeple.IllegalAction):
        s.action_from_json({"play": "green1", "chameleon": "yes"})


# ----- Rulings: ties and off-colour ranking ----------------------------------------------------
def ranking_trick(**options) -> SavageBowlState:
    s = give(make(4, chameleons=False, **options), {0: "red5 blue1", 1: "green3 blue2", 2: "blue9 blue3",
                                                    3: "purple9 blue4"})
    play(s, "red5", "green3", "blue9", "purple9")
    return s


def test_ruling_offcolour_by_number_ties_first_played():
    """Ruling R1 option offcolour=by_number: off-colour cards rank by number below the led colour;
    equal: first played."""
    s = ranking_trick(offcolour="by_number")
    assert s.yellow == 0 and s.won == [0, 0, 1, 0]  # red 5, then blue 9 (before purple 9)


def test_ruling_offcolour_by_number_ties_last_played():
    """Ruling R1 option offcolour=by_number with ties=last_played: of the two 9s, the later ranks higher."""
    s = ranking_trick(offcolour="by_number", ties="last_played")
    assert s.yellow == 0 and s.won == [0, 0, 0, 1]


def test_ruling_offcolour_equal_is_the_default():
    """Ruling R1 (The first half, step 2a: "The larger the number, the stronger the card is for the
    cards of the same color. However, a Trump Card always wins over the other 4 colors"): numbers
    compare only within a colour, so off-colour cards are all alike and play order decides."""
    assert make(4).options["offcolour"] == "equal"
    s = ranking_trick()
    assert s.yellow == 0 and s.won == [0, 1, 0, 0]  # red 5 led; green 3 played first of the rest
    assert ranking_trick(offcolour="equal").won == [0, 1, 0, 0]
    assert ranking_trick(ties="last_played").won == [0, 0, 0, 1]


def test_ruling_tie_from_a_chameleon_copy():
    """Ruling (ties): a Chameleon can make two equal cards (red 7 and 'red 7'); the first played is stronger."""
    for ties, strongest in (("first_played", 0), ("last_played", 1)):
        s = give(make(4, ties=ties), {0: "red7 blue1", 1: "blue7 blue2", 2: "red2", 3: "red1"})
        play(s, "red7", "cham:blue7", "red2", "red1")
        assert s.yellow == strongest and s.won[1 - strongest] == 1


def test_clone_shares_nothing_mutable_with_its_original():
    """clone (search copies states constantly): playing whole rounds on a clone - tricks won,
    discards, eliminations, Champ cards, points - leaves the original exactly as it was."""
    s = make(4, seed=8)
    rng = random.Random(8)
    for _ in range(6):
        s.apply(rng.choice(s.legal_actions()))
    fields = ("points", "results", "last_champ", "hands", "won", "won_cards", "discards", "sheet",
              "voids", "sheet_voids", "champ", "order", "trick", "tcol")

    def snapshot(st: SavageBowlState):
        return [json.dumps(getattr(st, f)) for f in fields] + [st.view(None), st.view(0)]

    before = snapshot(s)
    c = s.clone()
    changed = set()
    while c.round < 3 and not c.is_over():
        c.apply(rng.choice(c.legal_actions()))
        changed |= {f for f in fields if getattr(c, f) != getattr(s, f)}
    assert changed == set(fields)  # every list was changed on the clone...
    assert snapshot(s) == before  # ...and none on the original


# ----- Hidden information ----------------------------------------------------------------------
def test_hidden_discards_won_tricks_and_eliminated_hands():
    """The cards you cannot see: discards, won tricks and eliminated hands, in every other view."""
    saw_out = False
    for players in (4, 5):
        for seed in range(3):
            s = make(players, seed=seed)
            rng = random.Random(seed)
            saw_discard = False
            while not s.is_over():
                playing = set(s.trick)
                for viewer in [None, *range(players)]:
                    shown = quoted_codes(s.view(viewer))
                    won = cards(sum(s.won_cards))
                    # ruling R8: the trick just taken stays face up until the next one's first card
                    taken = {CODE[c] for c in s.last_trick[2]} if s.last_trick and not s.trick else set()
                    assert not (shown & won) - taken, f"won tricks visible to {viewer}"
                    for q in range(players):
                        if q == viewer:
                            continue
                        assert not shown & cards(s.discards[q]), f"P{q}'s discard visible to {viewer}"
                        if s.out >> q & 1:
                            assert not shown & cards(s.hands[q]), f"P{q}'s set-aside hand visible to {viewer}"
                            saw_out = True
                    if viewer is not None:
                        assert cards(s.discards[viewer]) <= shown  # your own discard you know
                        assert cards(s.hands[viewer]) <= shown
                    assert {CODE[c] for c in playing} <= shown  # the open trick is public
                    assert taken <= shown
                saw_discard |= any(s.discards)
                s.apply(rng.choice(s.legal_actions()))
            assert saw_discard
        assert saw_out


def test_hidden_cards_never_in_other_logs():
    """The cards you cannot see: no other player's or spectator's log of the round names a discard
    or a set-aside hand."""
    s = make(5, seed=3)
    rng = random.Random(3)
    checked = 0
    while not s.is_over():
        secret = {q: cards(s.discards[q]) | (cards(s.hands[q]) if s.out >> q & 1 else set())
                  for q in range(5)}
        for viewer in [None, *range(5)]:
            log = s.log(viewer)
            start = max(i for i, e in enumerate(log) if e["type"] == "round")
            seen = quoted_codes(log[start:])
            for q in range(5):
                if q != viewer:
                    assert not seen & secret[q]
                    checked += bool(secret[q])
        s.apply(rng.choice(s.legal_actions()))
    assert checked


def test_determinize_resamples_other_discards_and_keeps_own():
    """Determinize: others' face-down discards and hands are resampled, the viewer's own are kept."""
    s = first_trick(make(4))
    play(s, "discard:blue7")
    rng = random.Random(1)
    changed = False
    for _ in range(10):
        d = s.determinize(2, rng)
        assert d.view(2) == s.view(2) and d.hands[2] == s.hands[2]
        assert d.discards[1].bit_count() == 1 and d.sheet[0][:2] == (1, 1)
        changed |= d.discards[1] != s.discards[1]
    assert changed
    d = s.determinize(1, rng)
    assert d.discards[1] == s.discards[1]


def test_determinize_keeps_shown_voids():
    """Determinize: a player who failed to follow (without a Chameleon) never gets that colour back."""
    s = make(4, seed=5)
    rng = random.Random(5)
    seen_void = False
    while not s.is_over() and s.round == 1:
        if any(s.voids):
            seen_void = True
            for p in range(4):
                d = s.determinize(p, rng)
                for q in range(4):
                    if q != p:
                        assert not d.hands[q] & s.voids[q]
        s.apply(rng.choice(s.legal_actions()))
    assert seen_void


# ----- Random games with invariants --------------------------------------------------------------
def check_invariants(s: SavageBowlState) -> None:
    """Card conservation, trick counts and hand sizes at every step; scores match the table."""
    pools = [*s.hands, *s.won_cards, *s.discards, sum(1 << c for c in s.trick), s.removed]
    total = 0
    for m in pools:
        assert not total & m, "a card is in two places"
        total |= m
    assert total == ALL_CARDS
    if len(s.trick) >= 2:  # the fast top-two pass agrees with the full strength order
        ranked = s.strength_order()
        assert s._top_two() == (s.order[ranked[0]], s.order[ranked[1]])
    done = s.trick_no - (1 if s.phase == 0 else 0)
    if not s.is_over():
        assert sum(s.won) == done
        for p in range(s.players):
            assert (s.out >> p & 1) == (s.won[p] > s.target)
        if s.phase == 0 and not s.trick:
            for p in s.order:
                assert s.hands[p].bit_count() == s.num_tricks - s.trick_no + 1
            if s.sitting >= 0:
                assert s.hands[s.sitting].bit_count() == s.num_tricks - s.trick_no
    total_points = [0] * s.players
    for r in s.results:
        for p in range(s.players):
            exact = not r["eliminated"][p] and r["tricks"][p] == s.target
            expect = r["round"] if exact else 0
            if exact and p in r["champ"]:
                expect += s.champ_values[r["champ"].index(p)]
            assert r["gained"][p] == expect
            total_points[p] += expect
        assert sum(r["tricks"]) == r["tricks_played"]
    assert total_points == s.points


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("chameleons", [True, False])
def test_random_games_keep_invariants(players, chameleons):
    """Card conservation, trick counts and scores matching the table over whole random games."""
    for seed in range(4):
        s = make(players, seed=seed, chameleons=chameleons)
        play_random(s, random.Random(seed), check_invariants)
        assert s.is_over()
        last = s.results[-1]
        assert max(s.points) >= 10 or last["round"] == s.num_rounds
        assert len(s.results) == s.round


# ----- Bot ----------------------------------------------------------------------------------------
def test_heuristic_bot_plays_legal_games_and_beats_random():
    """The heuristic bot finishes games legally and places first far more often than chance."""
    info = meeple.game_info("savage_bowl")
    firsts = 0
    games = 40
    for g in range(games):
        players = 4 + g % 2
        s = make(players, seed=g)
        seat = g % players
        bots = [make_bot("heuristic" if p == seat else "random", info, g * 10 + p) for p in range(players)]
        while not s.is_over():
            a = bots[s.to_move].choose(s)
            assert s.is_legal(a)
            s.apply(a)
        firsts += s.ranking()[seat] == 1
    assert firsts / games > 0.35  # chance is 0.2-0.25


def test_heuristic_bot_sheds_its_highest_card_when_yellow_carded():
    """The Yellow Card phase as a tool: with no trick needed the bot discards its most dangerous card."""
    s = first_trick(make(4))
    s.won[1] = 3
    s.hands[1] = mask("blue6 trump7 green2")
    bot = make_bot("heuristic", meeple.game_info("savage_bowl"))
    assert bot.choose(s) == DISCARD_BASE + CARD_ID["trump7"]


def test_text_renderer_shows_table():
    s = first_trick(make(4))
    text = meeple.game_info("savage_bowl").text_renderer(s.view(1))
    assert "discard" in text and "Your hand" in text and "Red 11" not in text


# ----- Browser (end to end) ----------------------------------------------------------------------
@pytest.mark.browser
@pytest.mark.skipif(os.environ.get("MEEPLE_TEST_BROWSER") != "1", reason="set MEEPLE_TEST_BROWSER=1")
def test_browser_renderer_plays_a_game_and_hides_cards_from_the_spectator(tmp_path):
    """The browser renderer: a seat plays whole Savage Bowl game by clicking its legal cards
    (Chameleon toggle and Yellow Card discards included); the spectator page shows no hand."""
    import socket
    import threading
    import time

    import httpx
    import uvicorn
    from playwright.sync_api import sync_playwright

    from meeple.server import Settings, create_app

    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'web.db'}"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(500):
            if server.started:
                break
            time.sleep(0.02)
        r = httpx.post(f"{base}/api/tables", json={
            "game": "savage_bowl", "players": 4, "name": "Ann",
            "seats": [{"kind": "me"}] + [{"kind": "bot", "level": "heuristic"}] * 3})
        assert r.status_code == 200, r.text
        table = r.json()
        tid, seat, secret = table["id"], table["seat"], table["secret"]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(bypass_csp=True)  # wait_for_function evaluates strings
            page.goto(f"{base}/")
            page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                          [f"meeple:table:{tid}", json.dumps({"seat": seat, "secret": secret})])
            page.goto(f"{base}/table/{tid}")
            page.wait_for_selector(".sb-board .sb-hand")
            spectator = browser.new_page(bypass_csp=True)
            spectator.goto(f"{base}/table/{tid}")
            spectator.wait_for_selector(".sb-board")
            assert spectator.locator(".sb-hand").count() == 0
            assert "Watching" in spectator.inner_text(".sb-board")
            clicks = toggled = discarded = 0
            for _ in range(400):
                if page.locator("#end:not([hidden])").count():
                    break
                legal = page.locator("#board .sb-hand [data-action]")
                try:
                    legal.first.wait_for(timeout=5000)
                except Exception:  # noqa: BLE001 - the game may have ended meanwhile
                    continue
                title = page.inner_text(".sb-hand-box h4")
                cham = page.locator("#board .sb-hand .sb-cham[data-action]")  # the C on a card
                if not toggled and clicks > 3 and cham.count():
                    legal = cham
                    toggled = int(cham.first.get_attribute("data-action") or 0) >= 60
                discarded += "discard" in title
                before = page.locator("#log li").count()
                legal.first.click()
                clicks += 1
                page.wait_for_function(f"document.querySelectorAll('#log li').length > {before}")
            page.wait_for_selector("#end:not([hidden])", timeout=20000)
            assert clicks > 10
            lines = page.locator("#log li").all_inner_texts()
            assert toggled  # a card's Chameleon button played it with the Chameleon
            mine = [t for t in lines if t.startswith("You play")]  # the log speaks to the seat
            assert any("with the Chameleon" in t for t in mine), mine
            if discarded:
                assert any(t.startswith("You discard") for t in lines)
            assert "place" in page.inner_text(".sb-players")
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_view_refuses_a_seat_that_does_not_exist():
    """A view is for a seat or the spectator (None); -1 must not wrap round to the last hand."""
    s = make(4)
    for bad in (-1, 4, True):
        with pytest.raises(ValueError):
            s.view(bad)


def test_ismcts_hooks_play_legal_rollouts_to_the_round_end():
    """The ISMCTS hooks: heuristic playouts are legal, and the cut-off depth always reaches the
    scoring of the current round (13 tricks x 4 or 12 x 5, plus the five discards)."""
    from meeple.games import savage_bowl

    assert savage_bowl.GAME.search.depth == max(13 * 4, 12 * 5) + 5
    rng = random.Random(2)
    for players in (4, 5):
        s = make(players, seed=players)
        s._events = None
        start_round = s.round
        for _ in range(savage_bowl.GAME.search.depth):
            a = savage_bowl.GAME.search.rollout_policy(s, rng)
            assert s.is_legal(a)
            s.apply(a)
        assert s.round == start_round + 1 and len(s.results) == 1


def test_rollout_hooks_stop_at_the_round_end_and_value_place_at_4p_points_at_5p():
    """The rollout hooks (meeple.bots.rollout): a playout by `shedder` from mid-round stops once
    this round is scored, and each seat's value is then its expected place at 4 players, its own
    points (Champ bonus included) at 5."""
    from meeple.bots.rollout import RolloutBot
    from meeple.games import savage_bowl
    from meeple.games.savage_bowl.bot import rollout_place_value

    rng = random.Random(5)
    for players in (4, 5):
        s = make(players, seed=players)
        s._events = None
        for _ in range(20):  # into the first round
            s.apply(rng.choice(s.legal_actions()))
        key = savage_bowl.GAME.search.horizon(s)
        assert key == s.round == 1
        bot = make_bot("shedder", meeple.game_info("savage_bowl"), 0)
        while savage_bowl.GAME.search.horizon(s) == key:
            s.apply(bot.choose(s))
        assert len(s.results) == 1 and s.round == 2
        values = [savage_bowl.GAME.search.value(s, p) for p in range(players)]
        if players == 4:
            assert values == [rollout_place_value(s, p) for p in range(players)] != s.points
        else:
            assert values == s.points

    rb = RolloutBot(meeple.game_info("savage_bowl"), 1, base="shedder", keep=3, worlds=2)
    assert rb.horizon is savage_bowl.GAME.search.horizon and rb.value is savage_bowl.GAME.search.value
    s = make(4, seed=9)
    while not s.is_over():
        a = rb.choose(s) if s.to_move == 0 else rng.choice(s.legal_actions())
        assert s.is_legal(a)
        s.apply(a)


def test_rollout_place_value_is_the_expected_place():
    """`rollout_place_value`: minus the exact final place once the game is over (plus a little
    for own points); mid-game a point more is worth more while it can still change a place, and
    a rival's point costs more the closer the rival is."""
    from meeple.games.savage_bowl.bot import OWN_POINTS, rollout_place_value

    s = make(4, seed=3)
    s.round = 2  # rounds 2-4 still to play
    s.points = [3, 3, 0, 0]
    level = rollout_place_value(s, 0)
    s.points = [4, 3, 0, 0]
    assert rollout_place_value(s, 0) > level  # my point
    s.points = [3, 4, 0, 0]
    close = rollout_place_value(s, 0)
    s.points = [3, 3, 1, 0]
    far = rollout_place_value(s, 0)
    assert close < far < level  # a close rival's point costs more than a far one's
    s.points = [3, 20, 20, 20]
    s.round = 4  # the last round: a place far out of reach
    assert rollout_place_value(s, 0) == pytest.approx(-4 + 3 * OWN_POINTS, abs=0.01)
    while not s.is_over():
        s.apply(s.legal_actions()[0])
    for p in range(4):
        assert rollout_place_value(s, p) == -s.ranking()[p] + OWN_POINTS * s.points[p]
