"""Zarcana rules that a mutation sample found without a test (tools/mutate.py, docs/mutation.md).

Section names refer to the Zarcana rulebook (John Cooper, documented by Andrew Plotkin); rulings
(R1, R2, ...) and the reconstructed Special cards to docs/games/zarcana.md.
"""

from __future__ import annotations

import pytest

import meeple
from meeple.core import IllegalAction
from meeple.games.zarcana import rules
from meeple.games.zarcana.rules import CARD_ID
from test_zarcana import CARD, C, P, board_use, do, fresh, hand, lay, legal_json, pieces, pyr


def test_wither_destroys_a_small_pyramid_of_a_later_seat():
    """Wither (7): "a small pyramid is destroyed". A small pyramid has no smaller size to become,
    whoever owns it: seat 1's small pyramid dies, and no pyramid of seat 0's stash (the one
    numbered just before seat 1's) takes its place."""
    s = fresh()
    lay(s, {(0, 0): "reduce"})
    a = pyr(s, 0, "S", 0, 0)
    b = pyr(s, 1, "S", 0, 0)
    board_use(s, a, P(b))
    assert pieces(s, 0, 0) == [a]
    assert len(s.on_board(0)) == 1 and not s.on_board(1)


def test_attack_an_unreducible_pyramid_left_unharmed_is_logged():
    """Attack with option unreducible="unharmed" (ruling R3): the target is left as it is, and the
    log says why."""
    s = fresh(unreducible="unharmed")
    lay(s, {(0, 0): "attack-7"})
    a = pyr(s, 0, "S", 0, 0)
    t = pyr(s, 1, "M", 0, 0)
    for _ in range(5):
        pyr(s, 1, "S", 5, 5)
    do(s, P(a), P(t))
    assert pieces(s, 0, 0) == [a, t]
    events = s.log(None)
    assert {"type": "unharmed", "pyramid": t} in s.log(None, text=False)
    assert any("is unharmed" in e["text"] for e in events if e["type"] == "unharmed")


def test_convert_takes_a_small_pyramid_with_the_first_small_one_of_the_stash():
    """Convert (20): a small pyramid is replaced by one of the converter's own small pyramids,
    also when that is the very first pyramid of seat 0's stash (every small one in the stash)."""
    s = fresh()
    lay(s, {(0, 0): "convert"})
    a = pyr(s, 0, "M", 0, 0)
    m = pyr(s, 1, "S", 0, 0)
    do(s, P(a))
    assert legal_json(s) == [P(m)]
    do(s, P(m))
    assert pieces(s, 0, 0) == ["P0 M1", "P0 S1"]


def test_scoring_and_winning_nothing_is_legal_once_the_game_is_over():
    """Scoring and Winning: the game ends after the declarer's last turn; after it no action is
    legal (is_legal agrees with the empty legal_actions)."""
    s = fresh()
    s.reshuffles = 1
    do(s, {"do": "declare"}, {"do": "pass"}, {"do": "pass"})
    assert s.is_over() and s.legal_actions() == []
    assert not any(s.is_legal(a) for a in range(rules.NUM_ACTIONS))


@pytest.mark.parametrize("lo", [1, 2])
def test_window_recentres_a_board_centred_one_way_near_the_other_edge(lo):
    """Window ruling (docs/games/zarcana.md, The window): a board that comes within two spaces
    of the top edge is moved to the middle, also when it is centred from left to right already:
    then it moves only up or down, and ends with its top and bottom margins equal within one."""
    s = fresh()
    left, right = 11, rules.W - 1 - 11  # centred from left to right
    top, bottom = 1, 1 + 8 + lo
    s.stacks = {
        rules.W * top + left: [CARD_ID["move-1"]],
        rules.W * bottom + right: [CARD_ID["move-2"]],
    }
    do(s, {"do": "pass"})
    assert any(e["type"] == "recenter" for e in s.log(None))
    xs = sorted(c % rules.W for c in s.stacks)
    ys = sorted(c // rules.W for c in s.stacks)
    assert xs == [left, right]
    assert abs((rules.H - 1 - ys[-1]) - ys[0]) <= 1 and ys[-1] - ys[0] == bottom - top


def test_scoring_lines_list_the_cards_occupied_alone_and_the_shared_ones_at_zero():
    """Scoring and Winning: "each card the player's pyramids occupy by themselves" scores its
    value; a card shared with another player scores for nobody. The score table lists both, and
    nothing of the cards the player has no pyramid on."""
    s = fresh(players=3)
    lay(s, {(0, 0): "teleport", (1, 0): "leap", (2, 0): "convert", (3, 0): "dig"})
    pyr(s, 0, "S", 0, 0)  # alone
    pyr(s, 0, "S", 1, 0)  # shared with seat 1
    pyr(s, 1, "S", 1, 0)
    pyr(s, 1, "S", 2, 0)  # seat 1 and seat 2, not seat 0
    pyr(s, 2, "S", 2, 0)
    pyr(s, 2, "M", 3, 0)  # seat 2 alone
    name, value = rules.NAME, rules.VALUE
    tp, lp = CARD_ID["teleport"], CARD_ID["leap"]
    assert s.scoring_lines(0) == [
        (f"{name[tp]}, occupied alone", float(value[tp])),
        (f"{name[lp]}, shared with another player: scores for nobody", 0.0),
    ]
    assert [v for _, v in s.scoring_lines(0)] == [s.scores()[0], 0.0]


def test_view_shows_the_declarer_the_turns_left_and_the_final_ranking():
    """Scoring and Winning (ruling R16): the view says who declared the final round and how many
    turns are left; at the end, the ranking. Before a declaration neither is shown."""
    s = fresh()
    s.reshuffles = 1
    v = s.view(0)
    assert v["declared_by"] is None and v["turns_left"] is None and "ranking" not in v
    s.to_move = 1
    do(s, {"do": "declare"})
    v = s.view(0)
    assert v["declared_by"] == 1 and v["turns_left"] == s.turns_left == 2
    do(s, {"do": "pass"}, {"do": "pass"})
    v = s.view(0)
    assert v["over"] and v["ranking"] == s.ranking()


@pytest.mark.parametrize("code", [rules.CODE[0], "move-1"])
def test_playing_the_log_names_the_card_a_small_pyramid_is_placed_on(code):
    """Playing, option 1 ("place a small pyramid on any card"): the log names the card, whichever
    it is (the first card of the list too)."""
    s = fresh()
    lay(s, {(0, 0): code})
    do(s, C(0, 0))
    acts = [e for e in s.log(1) if e["type"] == "act"]
    assert acts[-1]["text"].endswith(
        f"places a small pyramid on the {rules.NAME[CARD_ID[code]]} card."
    )


@pytest.mark.parametrize("word", ["fly", "Pass", ""])
def test_an_unknown_word_is_refused_as_illegal(word):
    """A turn option named by a word the game does not know (the JSON form of an action) is
    refused as illegal, like any action not on offer."""
    s = fresh()
    with pytest.raises(IllegalAction):
        s.action_from_json({"do": word})
    assert s.action_from_json({"do": "pass"}) == rules.PASS


def test_setup_the_grid_starts_in_the_middle_of_the_window():
    """Setup, with the window ruling (docs/games/zarcana.md, The window: the board "starts in its
    middle"): the 3x3 grid's margins to opposite edges of the window differ by at most one."""
    s = meeple.make("zarcana", players=2, seed=1)
    xs = sorted({c % rules.W for c in s.stacks})
    ys = sorted({c // rules.W for c in s.stacks})
    assert abs(xs[0] - (rules.W - 1 - xs[-1])) <= 1
    assert abs(ys[0] - (rules.H - 1 - ys[-1])) <= 1


def test_wither_destroys_a_small_pyramid_also_when_unreducible_ones_are_spared():
    """Wither (7): "a small pyramid is destroyed". The option unreducible="unharmed" (ruling R3)
    spares a pyramid with no smaller size left in its stash, never a small one."""
    s = fresh(unreducible="unharmed")
    lay(s, {(0, 0): "reduce"})
    a = pyr(s, 0, "S", 0, 0)
    b = pyr(s, 1, "S", 0, 0)
    board_use(s, a, P(b))
    assert pieces(s, 0, 0) == [a] and not s.on_board(1)
    assert {"type": "destroyed", "pyramid": b, "why": "reduced"} in s.log(None, text=False)


def test_draw_four_draws_only_the_cards_there_are():
    """Draw Four Cards (12) with ruling R7 (Basics: "If you need to draw cards and there are none
    left, reshuffle the discard pile"): with two cards in the deck and no discards, the draw
    takes those two and stops; it makes up no card."""
    s = fresh()
    s.deck = [CARD_ID["move-1"], CARD_ID["move-2"]]
    hand(s, 0, "draw_four")
    do(s, CARD("draw_four"))
    assert sorted(rules.CODE[c] for c in s.hands[0]) == ["move-1", "move-2"]
    assert s.deck == [] and [rules.CODE[c] for c in s.discard] == ["draw_four"]


def test_a_copy_drawing_after_a_reshuffle_leaves_the_games_epochs_as_they_were():
    """Hidden information (docs/games/zarcana.md): a card drawn after reshuffle e belongs to epoch
    e, which determinization reads. A copy of the game (a search's simulation) that draws marks
    its own card's epoch; the game it was copied from keeps its own."""
    s = fresh()
    s.deck = [CARD_ID["move-1"], CARD_ID["move-2"]]
    s.reshuffles = 1
    c = s.clone()
    do(c, {"draw": 2})
    assert [c.tag[CARD_ID[k]] for k in ("move-1", "move-2")] == [1, 1]
    assert [s.tag[CARD_ID[k]] for k in ("move-1", "move-2")] == [0, 0]


def test_grow_twice_grows_a_medium_pyramid_to_large_and_a_small_one_to_medium_without_a_large():
    """Grow Twice (8): "Replace this pyramid with one two sizes larger (small to large) or, if that
    size is not in the stash or it is medium, one size larger": a medium pyramid becomes large,
    and a small one becomes medium when no large one is left in the stash. (Whether a size is
    in the stash asks about the size grown to, not the size grown from: here the medium is the
    last medium pyramid off the board.)"""
    s = fresh()
    lay(s, {(0, 0): "grow_twice"})
    for _ in range(rules.PER_SIZE - 1):
        pyr(s, 0, "M", 5, 5)
    a = pyr(s, 0, "M", 0, 0)
    board_use(s, a)
    assert pieces(s, 0, 0) == ["P0 L1"]
    s = fresh()
    lay(s, {(0, 0): "grow_twice"})
    for _ in range(rules.PER_SIZE):
        pyr(s, 0, "L", 5, 5)
    b = pyr(s, 0, "S", 0, 0)
    board_use(s, b)
    assert pieces(s, 0, 0) == ["P0 M1"]


def test_view_shows_the_chains_choices_only_until_the_turn_ends():
    """Actions (docs/games/zarcana.md): a turn is a chain of decisions, and the view shows the
    choices made so far in it. Once the chain's last step ends the turn, the next player's view
    shows no choices: none of the last turn's are left over."""
    s = fresh()
    lay(s, {(0, 0): "move-1", (5, 5): "build-10"})
    hand(s, 0, "teleport")
    a = pyr(s, 0, "S", 0, 0)
    do(s, CARD("teleport"), P(a))
    assert s.view(0)["chosen"] == [P(a)]
    do(s, C(5, 5))
    assert pieces(s, 5, 5) == [a] and s.to_move == 1
    assert s.view(1)["chosen"] == [] and s.view(1)["stage"] == "main"


def test_window_recentring_moves_the_board_and_leaves_the_stash_alone():
    """Window ruling (docs/games/zarcana.md, The window): re-centring moves every card and every
    pyramid on the board by the same shift; the pyramids in the stash stay in the stash."""
    s = fresh()
    left, top = 1, 1
    s.stacks = {
        rules.W * top + left: [CARD_ID["move-1"]],
        rules.W * top + left + 1: [CARD_ID["move-2"]],
    }
    q = s.stash(0, 1)
    s._move(q, rules.W * top + left + 1)
    do(s, {"do": "pass"})
    assert any(e["type"] == "recenter" for e in s.log(None))
    assert s.on_board(0) == [q] and s.on_board(1) == []
    assert s.pos[q] in s.stacks and s.top(s.pos[q]) == CARD_ID["move-2"]
    assert s.view(0)["stash"] == [[5, 4, 5], [5, 5, 5]]


def test_view_names_a_stacks_top_card_and_shows_the_hand_and_the_legal_actions():
    """Basics: only the top card of a stack counts (cards are built on top of others). The view
    gives each space's stack and, for its top card, the name, value and text; a player sees their
    own hand's cards with their values and texts, and the player to move the legal actions."""
    s = fresh()
    lay(s, {(0, 0): ["move-1", "teleport"]})
    hand(s, 0, "leap", "attack-2")
    pyr(s, 0, "S", 0, 0)
    tp = CARD_ID["teleport"]
    v = s.view(0)
    (space,) = v["board"]
    assert space["stack"] == ["move-1", "teleport"]
    assert (space["name"], space["value"], space["text"]) == (
        rules.NAME[tp],
        rules.VALUE[tp],
        rules.TEXT[tp],
    )
    assert [(h["code"], h["value"], h["text"]) for h in v["hand_cards"]] == [
        (k, rules.VALUE[CARD_ID[k]], rules.TEXT[CARD_ID[k]]) for k in ("attack-2", "leap")
    ]
    assert v["legal"] == s.legal_actions() and v["legal"]
    assert "legal" not in s.view(1) and "legal" not in s.view(None)


@pytest.mark.parametrize(
    "obj", [{}, {"do": "pass", "card": "move-1"}, {"card": "move-1", "do": "pass"}]
)
def test_a_json_action_not_of_one_key_is_refused_as_illegal(obj):
    """The JSON form of an action is an object of one key (docs/games/zarcana.md, Actions): an
    empty one, or one of two keys that each name an action on their own, names no action and is
    refused as illegal like any action not on offer."""
    s = fresh()
    assert rules.PASS in s.legal_actions()
    with pytest.raises(IllegalAction):
        s.action_from_json(obj)


def test_attack_reduces_a_medium_pyramid_to_the_first_small_one_of_the_stash():
    """Attack (Common ability): a larger pyramid attacked by a smaller one is reduced one size,
    also when the replacing small pyramid is the very first of seat 0's stash (``P0 S1``)."""
    s = fresh()
    s.to_move = 1
    lay(s, {(0, 0): "attack-7"})
    a = pyr(s, 1, "S", 0, 0)
    t = pyr(s, 0, "M", 0, 0)
    do(s, P(a), P(t))
    assert pieces(s, 0, 0) == ["P0 S1", a]


def test_a_copy_drawing_leaves_the_games_deck_as_it_was():
    """Playing (draw up to three): the cards come off the deck. A copy of the game (a search's
    simulation) that draws takes them from a deck of its own: the game it was copied from keeps
    every card and draws the same ones itself."""
    s = fresh()
    s.deck = [CARD_ID[c] for c in ("move-1", "move-2", "move-3")]
    c = s.clone()
    do(c, {"draw": 2})
    assert [rules.CODE[k] for k in s.deck] == ["move-1", "move-2", "move-3"]
    do(s, {"draw": 1})
    assert [rules.CODE[k] for k in s.hands[0]] == ["move-3"]
    assert sorted(rules.CODE[k] for k in c.hands[0]) == ["move-2", "move-3"]
