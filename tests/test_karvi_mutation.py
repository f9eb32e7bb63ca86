"""Karvi rules that a mutation sample found without a test (tools/mutate.py, docs/mutation.md).

Section names refer to the English Hans im Glück rulebook.
"""

from __future__ import annotations

import json
import random

import pytest

import meeple
from edit import put
from meeple.games.karvi import components as C
from meeple.games.karvi import effects, tasks
from meeple.games.karvi import map as sea
from meeple.games.karvi import words as W
from meeple.games.karvi.rules import _RUNE_BACK_RANK, BASE, END, KarviState, warrior_class
from test_karvi_printed import A, _ut, play_card, set_warriors, spot_with, started


def test_heal_2_heals_two_warriors():
    """Heal warriors: "Turn as many of your warriors as shown from the red (injured) side to the
    blue (healthy) side"; card 8: "you can flip 2 injured warriors to their healthy side"."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.warriors_by_class = (0,) * 12
    put(pl, "warriors_by_class", warrior_class(2, True), 2)
    put(pl, "warriors_by_class", warrior_class(3, True), 1)
    s.tasks.append(("heal", 2))
    s.apply(A("WARRIOR", warrior_class(2, True)))
    assert s.tasks and s.tasks[-1] == ("heal", 1)  # a second warrior may still be healed
    s.apply(A("WARRIOR", warrior_class(3, True)))
    assert pl.warriors_by_class[warrior_class(2, False)] == 1 and pl.warriors_by_class[warrior_class(3, False)] == 1
    assert pl.warriors_by_class[warrior_class(2, True)] == 1  # only 2 were healed
    assert not (s.tasks and s.tasks[-1][0] == "heal")


def test_heal_stops_when_no_warrior_is_injured():
    """Heal warriors: only injured warriors can be turned; with none left the heal ends
    (ruling 18: no decision without a choice)."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.warriors_by_class = (0,) * 12
    put(pl, "warriors_by_class", warrior_class(2, True), 1)
    s.tasks.append(("heal", 2))
    s.apply(A("WARRIOR", warrior_class(2, True)))
    assert pl.warriors_by_class[warrior_class(2, False)] == 1
    assert not (s.tasks and s.tasks[-1][0] == "heal")


def _rune(count: str) -> int:
    return next(i for i, r in enumerate(C.RUNES) if r["count"] == count and r["easy"][0] < r["hard"][0])


def test_a_rune_stone_scores_its_easy_goal_points():
    """Final scoring: "Each rune stone has an easy and a difficult requirement. You may only
    fulfill one of them": meeting only the easy one adds its points; the difficult one adds its
    own instead; neither adds nothing."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    r = _rune("posts")
    rune = C.RUNES[r]
    pl.rune_spots = ((r,), (), (), ())
    pl.built = ((1, "post"),) * rune["easy"][0]
    assert s.final_lines(q)["rune stones"] == rune["easy"][1] > 0
    pl.built = ((1, "post"),) * rune["hard"][0]
    assert s.final_lines(q)["rune stones"] == rune["hard"][1]
    pl.built = ()
    assert s.final_lines(q)["rune stones"] == 0
    pl.built = ((1, "post"),) * rune["easy"][0]
    pl.rune_spots = ((r,), (r,), (), ())
    assert s.final_lines(q)["rune stones"] == 2 * rune["easy"][1]


def _use_up_supply(s: KarviState, values: range, q: int) -> None:
    """Every warrior of these values goes to another player's tableau (sparing ``q``)."""
    other = s.tableaus[(q + 1) % s.players]
    for v in values:
        put(other, "warriors_by_class", warrior_class(v, False), other.warriors_by_class[warrior_class(v, False)] + effects.supply(s, v))


def test_no_warrior_left_of_any_weaker_value_gives_none():
    """Warriors: "If you are allowed to take a warrior ... but there are no warriors of that
    strength left in the supply, you may take a weaker warrior instead": with none of any value up
    to hers left, no warrior is taken."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    before = pl.warriors_by_class
    _use_up_supply(s, range(1, 4), q)
    effects.gain_warrior(s, pl, 3)
    assert pl.warriors_by_class == before
    assert all(effects.supply(s, v) == 0 for v in (1, 2, 3))


def test_determinize_shuffles_the_face_down_stop_area_tiles():
    """Ruling 11: the stop-area tiles under the top one are unknown to all, so a determinization
    deals them in a random order (4 players: three tiles, two face down), never sorted."""
    s = started(4)

    def key(stack) -> str:
        return json.dumps(stack, sort_keys=True)

    worlds = [s.determinize(s.to_move, random.Random(seed)) for seed in range(12)]
    assert len({key(w.stop_stack[1:]) for w in worlds}) == 2
    assert {key(w.stop_stack[0]) for w in worlds} == {key(s.stop_stack[0])}


def test_the_last_warrior_of_her_value_is_taken():
    """Warriors: a weaker warrior only when "there are no warriors of that strength left": with
    one left, she is taken."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    other = s.tableaus[(q + 1) % s.players]
    c3 = warrior_class(3, False)
    put(other, "warriors_by_class", c3, other.warriors_by_class[c3] + effects.supply(s, 3) - 1)
    assert effects.supply(s, 3) == 1
    n3 = pl.warriors_by_class[c3]
    effects.gain_warrior(s, pl, 3)
    assert pl.warriors_by_class[c3] == n3 + 1 and effects.supply(s, 3) == 0


@pytest.mark.parametrize(("gone", "taken"), [((2, 3), 1), ((3,), 2)])
def test_the_weaker_warrior_is_the_strongest_left(gone: tuple[int, ...], taken: int):
    """Warriors: "there are no warriors of that strength left in the supply, you may take a
    weaker warrior instead": the strongest one left below her."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    _use_up_supply(s, range(min(gone), max(gone) + 1), q)
    n = pl.warriors_by_class[warrior_class(taken, False)]
    effects.gain_warrior(s, pl, 3)
    assert pl.warriors_by_class[warrior_class(taken, False)] == n + 1


def test_a_special_rune_stone_scores_per_symbol():
    """Final scoring: "Each special rune stone gives you points for each of the symbols shown"."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    k, sp = next((k, sp) for k, sp in enumerate(C.SPECIALS) if sp["per"] == ["towers"])
    pl.rune_spots = ((100 + k,), (), (), ())
    pl.built = ((1, "tower"), (2, "tower"), (3, "post"))
    assert s.final_lines(q)["rune stones"] == 2 * sp["points"] > 0
    pl.built = ()
    assert s.final_lines(q)["rune stones"] == 0


def test_determinize_never_hides_a_rune_stone_lying_face_up():
    """Ruling 11: a rune stone on a tableau is public; another face-down stone with the same back
    may be resampled, but never into the one everyone sees."""
    s = started(3)
    backs: dict[int, list[int]] = {}
    for r in range(len(C.RUNES)):
        backs.setdefault(_RUNE_BACK_RANK[r], []).append(r)
    a, b = next(pair for pair in backs.values() if len(pair) == 2)
    p0, p1 = s.tableaus[0], s.tableaus[1]
    for pl in s.tableaus:  # a and b leave every hand; a lies face up with player 1, b face down with 2
        pl.hidden_runes = tuple(x for x in pl.hidden_runes if x not in (a, b))
        pl.rune_spots = tuple(tuple(x for x in st if x not in (a, b)) for st in pl.rune_spots)
    p0.rune_spots = ((a,), *p0.rune_spots[1:])
    p1.hidden_runes = (*p1.hidden_runes, b)
    for seed in range(16):
        world = s.determinize(2, random.Random(seed))
        assert a not in world.tableaus[1].hidden_runes


def test_discarding_for_gold_needs_two_cards():
    """Gold (free actions): "You discard 2 upgrade cards from your hand and gain 1 gold"; with one
    card in hand it is not offered."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.hand = (0,)
    assert not any(BASE["DISCARD"] <= a < BASE["DISCARD"] + 45 for a in s.legal_actions())
    pl.hand = (0, 1)
    assert A("DISCARD", 0) in s.legal_actions() and A("DISCARD", 1) in s.legal_actions()


def test_less_luck_piles_go_out_as_printed():
    """Variants, Less luck: "3 players: One player gets all the rune stones and stern tiles. 2
    players: One player gets all the rune stones and stern tiles, and the other gets all the sails
    and heads"; with 4 players each holds one pile."""
    holders = {n: meeple.make("karvi", players=n, seed=1, less_luck=True).pile_holder for n in (2, 3, 4)}
    assert holders[2] == {"runes": 0, "stern": 0, "sail": 1, "head": 1}
    assert holders[3]["runes"] == holders[3]["stern"] and len(set(holders[3].values())) == 3
    assert sorted(holders[4].values()) == [0, 1, 2, 3]


def test_draw_two_start_cards_are_drawn_in_seat_order():
    """Variants, "You always lose…" (ruling 17): the start card's upgrade card is drawn two-keep-one
    during setup, seat by seat from seat 0 (the first player chooses first)."""
    several = 0
    for seed in range(12):
        s = meeple.make("karvi", players=4, seed=seed, draw_two=True)
        keepers = []
        while s.tasks and s.tasks[-1][0] in ("keep", "free_rune"):
            if s.tasks[-1][0] == "keep":
                keepers.append(s.to_move)
            s.apply(s.legal_actions()[0])
        assert keepers == sorted(keepers), (seed, keepers)
        several += len(set(keepers)) >= 2
    assert several


def test_card_38_pays_at_most_three_provisions():
    """Card 38: "Pay up to 3 provisions to get 4 points for each, without moving your ship (max. 12
    points)": with 5 provisions, the fourth is not asked for."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.provisions = 5
    points = pl.points
    s.tasks.append(("prov_pts", 4, 3))
    for _ in range(3):
        assert A("PART") in s.legal_actions()
        s.apply(A("PART"))
    assert pl.provisions == 2 and pl.points == points + 12
    assert not (s.tasks and s.tasks[-1][0] == "prov_pts" and A("PART") in s.legal_actions())


def test_a_warrior_is_raised_only_to_a_value_left_in_the_supply():
    """Increase combat strength (and Warriors, (In)finite components): a warrior of strength v can
    be raised while a warrior of v + 1 is left; a 5 becomes a 6, a 6 cannot grow."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.warriors_by_class = (0,) * 12
    for v in (2, 5, 6):
        put(pl, "warriors_by_class", warrior_class(v, False), 1)
    raisable = {a - BASE["WARRIOR"] for a in tasks.raisable(s, pl)}
    assert raisable == {warrior_class(2, False), warrior_class(5, False)}
    _use_up_supply(s, range(3, 4), q)
    raisable = {a - BASE["WARRIOR"] for a in tasks.raisable(s, pl)}
    assert raisable == {warrior_class(5, False)}


def test_the_stop_area_tile_goes_once_every_waiting_die_has_left():
    """End of round (ruling 1): "from round 2, once all dice have left the stop area" the top
    stop-area tile is removed; not before, and the tile that comes to light ends what may be
    undone (the step that revealed it is final)."""
    removals = 0
    for seed in range(4):
        s = meeple.make("karvi", players=3, seed=seed)
        rng = random.Random(seed)
        while s.round < 2 and not s.is_over():
            s.apply(rng.choice(s.legal_actions()))
        tiles = len(s.stop_stack)
        while s.round == 2 and not s.is_over():
            before = len(s.stop_stack)
            s.apply(rng.choice(s.legal_actions()))
            if len(s.stop_stack) < before:
                removals += 1
                assert not any(not s.die_done[e] and s.die_pos[e] >= s.track_size for e in range(len(s.die_pos)))
                assert s.undo_floor == len(s.history)  # the revealing step cannot be taken back
        assert len(s.stop_stack) == tiles - 1
    assert removals == 4


def test_a_gain_of_two_trade_cards_takes_two():
    """Trade: "You gain 1 or 2 trade cards"; Trade cards: "choose 1 of the faceup trade cards ...
    Then you immediately get the bonus": a gain of 2 takes 2 from the display of 3, no more."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    assert len(s.display) >= 3
    s.tasks.append(("trade_card", 2))
    depth = len(s.tasks) - 1
    while len(s.tasks) > depth:
        legal = s.legal_actions()
        takes = [a for a in legal if BASE["TRADE_CARD"] <= a < BASE["TRADE_CARD"] + 36]
        if s.tasks[-1][0] == "trade_card" and takes:
            s.apply(takes[0])
        else:
            s.apply(END if END in legal else legal[0])
    assert len(pl.trade_cards) == 2


def test_draw_two_with_one_or_two_cards_left():
    """Variants, "You always lose…": draw 2 and keep 1 (ruling 17); a stack with only 1 card left
    gives that card, with no choice; with 2 left both are drawn and one kept."""
    s = started(3, draw_two=True)
    q = s.to_move
    pl = s.tableaus[q]
    full = s.decks[0]
    for left, kept_choice in ((1, False), (2, True)):
        s.tasks = [t for t in s.tasks if t[0] != "keep"]
        s.decks = (full[:left], *s.decks[1:])
        hand = len(pl.hand)
        effects.draw(s, q, 0)
        assert len(pl.hand) == hand + left and len(s.decks[0]) == 0
        assert bool(s.tasks and s.tasks[-1] == ("keep",)) == kept_choice


@pytest.mark.parametrize(("number", "displaces"), [(44, False), (45, True)])
def test_cards_44_and_45_join_a_ship(number: int, displaces: bool):
    """Card 44: "Place your ship next to another ship, without displacing the other ship"; card 45:
    "However, you must displace other ships on that space"."""
    s = started(3)
    q = s.to_move
    other = (q + 1) % s.players
    node = next(n for n in range(1, len(s.nodes)) if not s.obstructed[n] and n != s.tableaus[q].ship)
    s.tableaus[other].ship = node
    s.tableaus[q].hand = (number - 1,)
    s.tableaus[q].res = (5, 5, 5)
    s.apply(A("PLAY_CARD", number - 1))
    s.apply(A("SHIP_TO", node))
    assert s.tableaus[q].ship == node
    assert (s.tableaus[other].ship != node or any(t[0] == "displace" for t in s.tasks)) == displaces


def test_the_trade_display_is_refilled_after_the_turn():
    """Trade cards: "After your turn, replenish the display to 3 cards" from the trade deck."""
    s = started(3)
    taken = s.display[0]
    s.display = s.display[1:]
    deck = s.trade_deck
    s._end_turn()
    assert len(s.display) == 3 and taken not in s.display
    assert s.display[-1] == deck[0] and s.trade_deck == deck[1:]


def test_determinize_never_deals_a_face_up_special_rune_stone():
    """Ruling 11: a special rune stone on a tableau is public, so a determinization never deals it
    into a stack of special rune stones nobody has looked at."""
    s = started(3)
    unseen = [n for n, st in s.special_stacks.items() if st and not s.special_known[n] >> 2 & 1]
    assert unseen
    shown = s.special_stacks[unseen[0]][0]
    s.special_stacks = {**s.special_stacks, unseen[0]: s.special_stacks[unseen[0]][1:]}
    s.tableaus[0].rune_spots = ((100 + shown,), *s.tableaus[0].rune_spots[1:])
    for seed in range(16):
        world = s.determinize(2, random.Random(seed))
        assert all(shown not in st for n, st in world.special_stacks.items() if n in unseen)


def test_the_view_names_a_stone_being_placed_and_refuses_a_bad_seat():
    """Ruling 11: a rune stone being placed face up is public, so every seat's view of the pending
    decision names it; a view for a seat that is not at the table is refused, naming the seats."""
    s = started(3)
    s.tasks.append(("rune_spot", 5))
    assert all(s.view(p)["decision"] == {"kind": "rune_spot", "stone": 5} for p in (None, 0, 1, 2))
    with pytest.raises(ValueError, match=r"players are 0\.\.2"):
        s.view(3)


def test_the_view_shows_card_backs_keep_choices_and_looked_at_specials():
    """Ruling 11: hands show their backs (type and level) to everyone; the owner of a draw-two
    sees the pair to keep from; a stack of special rune stones a player looked at stays known to
    them, and to them only."""
    s = started(3, draw_two=True)
    q = s.to_move
    other = (q + 1) % 3
    s.tableaus[q].hand = (0, 15, 16)  # helmet 1, beer 16, beer 17 (all level 1)
    backs = s.view(other)["players"][q]["hand_backs"]
    assert backs == {"beer1": 2, "helmet1": 1}
    s.tasks.append(("keep",))
    assert s.view(q)["players"][q]["keep_from"] == [15, 16]
    node = next(n for n, st in s.special_stacks.items() if st)
    s.special_known = {**s.special_known, node: 1 << q}
    name = s.nodes[node]
    assert s.view(q)["special_stacks"][name]["tiles"] == list(s.special_stacks[node])
    assert "tiles" not in s.view(other)["special_stacks"][name]


def test_determinize_keeps_a_special_stack_its_player_looked_at():
    """Ruling 11: a stack of special rune stones a player looked at stays known to them, so their
    determinization keeps it as it is (and another's resamples it)."""
    s = started(3)
    node = next(n for n, st in s.special_stacks.items() if st)
    for looker in range(3):
        s.special_known = {**s.special_known, node: 1 << looker}
        for seed in range(8):
            assert s.determinize(looker, random.Random(seed)).special_stacks[node] == s.special_stacks[node]


def test_raid_and_rune_stone_sentences():
    """Log (docs/games/karvi.md, Play): a raid names the tile and the damage; placing a rune stone
    names the stone (a special one by its symbols) and the spot, from the reader's seat."""
    s = started(3)
    tile = C.NUM_TR
    words = f"the {W.tr_tile_words(tile)}"
    assert s._event_text({"type": "raid", "player": 0, "raid": tile, "damage": 2}, 0) == f"You raid {words} and take 2 damage."
    assert s._event_text({"type": "raid", "player": 0, "raid": None, "damage": 3}, 1) == "Player 1 raids the raid and takes 3 damage."
    assert s._event_text({"type": "rune", "player": 1, "rune": 2, "spot": 1}, None) == (
        f"Player 2 places the {W.rune_words(2)} on rune spot 2.")
    assert s._event_text({"type": "rune", "player": 1, "rune": 101, "spot": 0}, 1) == (
        f"You place the {W.special_words(1)} on rune spot 1.")


def test_the_view_shows_the_decision_on_top():
    """The view's pending decision is the one being made now: the last task pushed."""
    s = started(3)
    s.tasks += [("heal", 2), ("rune_spot", 5)]
    assert s.view(0)["decision"] == {"kind": "rune_spot", "stone": 5}


def test_sail_tile_two_spots_is_offered_with_one_provision():
    """Upgrade tiles, sail: "Once per turn (in addition to your free actions) you may pay 1
    provision to move your ship up to 2 spots": a single provision is enough."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    put(pl, "slots", "sail", (_ut({"ability": "sail_two"}),))
    pl.provisions = 1
    assert A("ABILITY", 1) in s.legal_actions()
    s.apply(A("ABILITY", 1))
    assert pl.provisions == 0


def test_card_21_offers_a_spot_once_when_both_dice_stand_on_it():
    """Card 21: "Use any action spot that your die occupies again"; card 30 lets a die stand on
    another die, so both of a player's dice may occupy one spot: that spot is one choice, listed
    once."""
    s = started(3)
    q = s.to_move
    spot = spot_with(s, "provisions")
    for k, d in enumerate((2 * q, 2 * q + 1)):
        put(s, "die_pos", d, spot)
        put(s, "die_height", d, k)
    play_card(s, 21)
    legal = s.legal_actions()
    assert s.tasks[-1] == ("reuse",)
    assert legal.count(A("SPOT", spot)) == 1 and len(legal) == len(set(legal))


def test_a_step_that_reveals_nothing_may_be_taken_back():
    """Undo within a turn (docs/games/karvi.md): sailing brings nothing to light, so the player
    may take it back, to the state as it stood before."""
    s = meeple.make("karvi", players=3, seed=0)
    while s.tasks and s.tasks[-1][0] in ("free_rune", "keep"):
        s.apply(s.legal_actions()[0])
    n = len(s.history)
    before = s.view(s.to_move)
    ship = next(a for a in s.legal_actions() if BASE["SHIP_TO"] <= a < BASE["DISPLACE_TO"])
    s.apply(ship)
    assert s.undo_start() == n
    assert s.undone(n).view(s.to_move) == before


def test_card_26_offers_a_spot_a_die_can_just_pay_for():
    """Card 26: "You have to pay the beer cost with any of your dice, but you cannot split the cost
    between them": a spot costing exactly a die's beer is offered; one beer short, it is not."""
    s = started(3)
    q = s.to_move
    spot = next(
        i
        for i in range(s.track_size)
        if s._cost(q, i) >= 2 and not s._occupied(i) and not s.blocked[i] and not s.locked_only[i]
    )
    cost = s._cost(q, spot)
    for beer, offered in ((cost, True), (cost - 1, False)):
        t = started(3)
        for d in (2 * q, 2 * q + 1):
            put(t, "die_beer", d, beer)
        play_card(t, 26)
        assert t.tasks[-1][0] == "any_spot"
        assert (A("SPOT", spot) in t.legal_actions()) is offered, beer


def test_card_30_on_a_stack_of_two_stands_on_top():
    """Card 30: "place it on another die": on a spot where two dice already stand one upon the
    other, the die goes on top of both (the top die of a stack moves first)."""
    s = started(3)
    q = s.to_move
    d = s.cur_die
    spot = 10
    others = [e for e in range(6) if e // 2 != q][:2]
    for k, e in enumerate(others):
        put(s, "die_pos", e, spot)
        put(s, "die_height", e, k)
        put(s, "die_done", e, False)
    play_card(s, 30)
    s.apply(A("MOVE_DIE", spot))
    assert s.die_pos[d] == spot and s.die_height[d] == 2


def test_sail_tile_move_displaces_a_ship_it_ends_on():
    """Upgrade tiles, sail: "pay 1 provision to move your ship up to 2 spots. All other rules for
    ship movement still apply (e.g. obstructed locations, displacing)": ending on another ship's
    spot displaces it."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    other = (q + 1) % 3
    target = next(x for x in s.adj[pl.ship] if x != 0 and not s.obstructed[x])
    s.tableaus[other].ship = target
    put(pl, "slots", "sail", (_ut({"ability": "sail_two"}),))
    pl.provisions = 5
    s.apply(A("ABILITY", 1))
    s.apply(A("SHIP_TO", target))
    assert s.tasks[-1] == ("displace", other, target)


def test_end_panel_explains_a_rune_stone_short_of_its_easy_requirement():
    """End of the game and Final Scoring: a rune stone whose easy requirement is not met scores
    nothing, and its line names that requirement; the beer line says "dice" for two dice and
    "die" for one."""
    r = next(i for i, x in enumerate(C.RUNES) if x["easy"][0] != x["easy"][1])
    rune = C.RUNES[r]
    for players, dice in ((3, "dice"), (4, "die")):
        s = started(players)
        q = s.to_move
        pl = s.tableaus[q]
        pl.rune_spots = ((r,), (), (), ())
        s.over = True
        have = pl.count(rune["count"])
        assert have < rune["easy"][0]
        lines = s.scoring_lines(q)
        what = W.count_of(have, rune["count"])
        why = f"Rune stone: {what}, short of its easy requirement ({rune['easy'][0]})"
        assert (why, 0.0) in lines
        assert any(text.startswith(f"Beer left on the {dice} (") for text, _ in lines), lines


def test_view_shows_special_stacks_by_size_and_only_the_looker_their_stones():
    """Ruling 11 (special rune stones): a special stack shows its size to all and its stones only
    to a player who looked at it; the location stacks beside it are not changed by that."""
    s = started(3)
    q = s.to_move
    node = next(n for n, st in s.special_stacks.items() if st)
    s.special_known = {**s.special_known, node: 1 << q}
    view = s.view(q)
    for n, st in s.special_stacks.items():
        entry = {"size": len(st), **({"tiles": list(st)} if n == node else {})}
        assert view["special_stacks"][s.nodes[n]] == entry
    for n in s.stacks:
        if not s.stack_known[n] >> q & 1:
            assert view["stacks"][s.nodes[n]].get("tiles") is None


def test_action_json_of_a_single_action_has_no_index():
    """Actions as JSON (docs/games/karvi.md): an action that is one choice is its name alone; one
    of a family names its index."""
    s = started(3)
    assert s.action_to_json(END) == {"a": "end"}
    assert s.action_to_json(A("SHIP_TO", 3)) == {"a": "ship_to", "x": 3}


def test_card_44_label_says_join():
    """Card 44: "place your ship next to another ship without displacing it": the choice reads
    as joining that ship."""
    s = started(3)
    q = s.to_move
    other = (q + 1) % 3
    target = next(x for x in range(1, len(s.nodes)) if not s.obstructed[x] and x != s.tableaus[q].ship)
    s.tableaus[other].ship = target
    s.tableaus[q].provisions = 0
    play_card(s, 44)
    assert s.tasks[-1][0] == "join"
    assert s.describe(A("SHIP_TO", target)) == f"join the ship in {s.nodes[target]}"


def test_placing_a_rune_stone_on_an_empty_spot_scores_the_spot():
    """Place a rune stone: the points printed on a rune spot are scored by the first stone put
    there; a stone placed on top of another scores the spot no more."""
    k = next(i for i, sp in enumerate(C.RUNE_SPOTS) if sp["points"] > 0)
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.res = (5, 5, 5)
    points = pl.points
    s.tasks.append(("rune_spot", 0))
    s.apply(A("RUNE_SPOT", k))
    assert pl.points == points + C.RUNE_SPOTS[k]["points"]
    pl.res = (5, 5, 5)
    s.tasks.append(("rune_spot", 1))
    s.apply(A("RUNE_SPOT", k))
    assert pl.points == points + C.RUNE_SPOTS[k]["points"]


def test_no_warrior_is_taken_when_none_that_weak_is_left():
    """(In)finite components: a warrior of a value none of which is left is taken one value
    weaker; with none left of any weaker value either, nothing is taken."""
    s = started(3)
    pl, other = s.tableaus[0], s.tableaus[1]
    put(other, "warriors_by_class", warrior_class(1, False), C.WARRIOR_SUPPLY)
    before = pl.warriors_by_class
    effects.gain_warrior(s, pl, 1)
    assert pl.warriors_by_class == before


def test_view_decision_shows_its_count_and_printed_options():
    """The pending decision (docs/games/karvi.md, Views): how many are left to take, and the
    options printed on the spot or card, are public."""
    s = started(3)
    q = s.to_move
    s.tasks.append(("res", 2))
    assert s.view(q)["decision"] == {"kind": "res", "n": 2}
    parts = [[["action", "trade"]], [["action", "raid"]]]
    s.tasks.append(("parts", parts, "/", 0))
    assert s.view(q)["decision"] == {"kind": "parts", "options": parts}


def test_determinize_keeps_a_held_pile_out_of_the_others_hidden_runes():
    """Variants, Less luck: the player holding the rune stone pile knows its stones, so in their
    determinization no other player's hidden rune stone is one of them (a stone another player
    took from the pile earlier stays the one it was, even where another shares its back)."""
    s = meeple.make("karvi", players=3, seed=1, less_luck=True)
    holder = s.pile_holder["runes"]
    other = (holder + 1) % 3
    pile = s.piles["runes"]
    backs = [_RUNE_BACK_RANK[x] for x in pile]
    taken = next(x for x in pile if backs.count(_RUNE_BACK_RANK[x]) > 1)
    left = tuple(x for x in pile if x != taken)
    s.piles = {**s.piles, "runes": left}
    s.tableaus[other].hidden_runes = (taken,)
    for seed in range(20):
        world = s.determinize(holder, random.Random(seed))
        assert world.tableaus[other].hidden_runes == (taken,)
        assert world.piles["runes"] == left


def _data_steps() -> list[list]:
    """Every effect step the data files hold: in action spots' and stop places' parts, cards'
    boxes and tiles' bonuses (docs/games/karvi.md, "Effect language")."""
    steps: list[list] = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if k in ("parts", "boxes"):
                    steps.extend(st for part in v for st in part)
                elif k == "bonus":
                    steps.extend(v)
                else:
                    walk(v)
        elif isinstance(x, list):
            for y in x:
                walk(y)

    for data in (C.BOARD, C.ACTION_BOARDS, C.CARDS, C.TILES, C.TRACKS, C.SCORING):
        walk(data)
    return steps


def test_a_step_the_words_do_not_know_is_named_by_its_key():
    """Log and labels (docs/games/karvi.md, "Effect language"): a step without its own phrase is
    still shown, by its key and arguments with spaces for underscores, never as nothing."""
    assert W.step_words(["new_step", 2, "two_words"]) == "new step 2 two words"
    assert W.steps_words([["points", 2], ["new_step", 1]]) == "+2 points, then new step 1"


def test_data_steps_are_what_the_words_equivalents_assume():
    """tools/equivalent/karvi.txt: the steps without arguments never say a number, and an action
    step's words, stripped of "the"/"a" and "action", are its own key (so spot_name may read
    either); every step the data holds has its own phrase, not the fallback."""
    steps = _data_steps()
    assert len(steps) > 300
    no_args = {"free_move", "stack_move", "reuse", "copy_die", "map_jump"}
    assert {st[0] for st in steps if len(st) == 1} <= no_args
    for st in steps:
        if st[0] == "action":
            words = W.ACTION_WORDS[st[1]]
            assert words.removeprefix("the ").removeprefix("a ").removesuffix(" action") == st[1]
        assert W.step_words(st) != " ".join(str(a) for a in st).replace("_", " "), st


def test_card_12_doubles_to_the_strongest_value_left_in_the_supply():
    """Card 12 and (In)finite components: a doubled warrior takes the doubled value; with none of
    it left in the supply, the strongest weaker value that is left (a 2 becomes a 3 with the 4s
    gone)."""
    s = started(3)
    pl, other = s.tableaus[s.to_move], s.tableaus[(s.to_move + 1) % 3]
    set_warriors(pl, (2, False))
    put(other, "warriors_by_class", warrior_class(4, False), C.WARRIOR_SUPPLY)
    assert effects.supply(s, 4) == 0 < effects.supply(s, 3)
    play_card(s, 12, 0)
    s.apply(A("WARRIOR", warrior_class(2, False)))
    assert pl.warriors_by_class[warrior_class(3, False)] == 1
    assert pl.warriors_by_class[warrior_class(2, False)] == 0


def test_a_trade_bonus_taken_first_commits_to_a_trade():
    """Upgrade tiles (ruling 16): a trade action whose tile bonus was taken before it must
    activate a tile; without that bonus taken first, ending the action is allowed."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    tile = next(t for t in range(C.NUM_TR) if C.TR_TILES[t]["cost"] == {"silver": 3})
    pl.beside = (tile,)
    pl.res = (0, 3, 0)
    s.tasks.append(("trade_action", [], True))
    assert s.legal_actions() == [A("ACTIVATE", tile)]
    s.tasks[-1] = ("trade_action", [])
    assert s.legal_actions() == [END, A("ACTIVATE", tile)]


def test_card_43_with_the_map_makes_no_exception():
    """Card 43 and Obstructed spots, special case: the exception (inside the obstructed area
    without the map) is only for a player without the map; one who has it jumps there as anyone
    may sail there."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.map = True
    play_card(s, 43, 0)
    west = next(i for i, sp in enumerate(s.side["spots"]) if sp["name"] == "Western map")
    assert s.obstructed[west]
    s.apply(A("SHIP_TO", west))
    assert pl.ship == west and not pl.exception and not s.view(None)["players"][q]["exception"]


def test_discarding_two_cards_is_logged_as_two():
    """Basic system: two upgrade cards discarded give 1 gold; the log's event says two cards."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.hand = (0, 1)
    s.apply(A("DISCARD", 0))
    s.apply(A("DISCARD", 1))
    event = s.log(None, text=False)[-1]
    assert event == {"type": "discard", "player": q, "discards": 2}


def test_francia_asks_for_no_more_than_its_price():
    """Trade in Francia: "pay 4 fur and/or silver" (Basic system, a combination of your choice):
    with both piles left after the 4th, the payment is over; no 5th unit is asked."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.trade_track = tuple(range(6))
    pl.res = (3, 3, 0)
    put(s, "die_beer", s.cur_die, 5)
    s.apply(A("MOVE_DIE", spot_with(s, "trade")))
    s.apply(A("FRANCIA"))
    for good in ("RES_FUR", "RES_SILVER", "RES_FUR", "RES_SILVER"):
        s.apply(A(good))
    assert pl.res == (1, 1, 0) and not s.tasks


def test_a_displaced_ship_that_sails_on_is_no_longer_displaced():
    """Move your ship, End movement (ruling 6): the zero-spot move is for a ship displaced onto
    its place by someone else; once it has sailed away, it is no longer that ship."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.displaced = True
    pl.provisions = 6
    dest = next(n for n, k in sea.distances(s, q, pl.ship, 2).items() if k == 1)
    s.apply(A("SHIP_TO", dest))
    assert pl.ship == dest and not pl.displaced and not s.view(None)["players"][q]["displaced"]


def test_before_the_draft_no_player_has_a_start_card():
    """Variants, Draft start cards: until a player has taken a start card, they have none (the
    view shows 0, no card's value)."""
    s = meeple.make("karvi", players=3, seed=0, draft_start=True)
    assert [p["start_card"] for p in s.view(None)["players"]] == [0, 0, 0]
    s.apply(A("START_CARD", 2))
    assert [p["start_card"] for p in s.view(None)["players"]] == [3, 0, 0]


def test_a_box_out_of_its_decision_is_named_by_its_number():
    """Labels (docs/games/karvi.md, Play): a card's box is labelled by what it gives in the
    decision that offers it; asked elsewhere, by its number counted from 1."""
    s = started(3)
    assert not s.tasks and s.describe(A("BOX", 1)) == "box 2"


def test_card_12_doubles_no_more_than_two_warriors():
    """Card 12: "double up to 2 healthy warriors": after the second, no third is offered."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    set_warriors(pl, (1, False), (1, False), (1, False))
    play_card(s, 12, 0)
    s.apply(A("WARRIOR", warrior_class(1, False)))
    s.apply(A("WARRIOR", warrior_class(1, False)))
    assert not s.tasks or s.tasks[-1][0] != "double"
    assert pl.warriors_by_class[warrior_class(1, False)] == 1
    assert pl.warriors_by_class[warrior_class(2, False)] == 2


def test_labels_of_the_bonus_order_the_provisions_for_points_and_a_special_rune_stone():
    """Labels (docs/games/karvi.md, Play): the upgrade tile's bonus first or after (ruling 16),
    card 38's provision for points, and a special rune stone by what it shows."""
    s = started(3)
    s.tasks.append(("hook_order", "income", [["trade_card", 1]]))
    assert s.describe(A("PART", 0)) == "take the tile's bonus first"
    assert s.describe(A("PART", 1)) == "take the tile's bonus after the action"
    s.tasks[-1] = ("prov_pts", 2, 3)
    assert s.describe(A("PART", 0)) == "pay 1 provision for 2 points"
    s.tasks[-1] = ("special_choose", 0)
    assert s.describe(A("SPECIAL", 1)) == f"take the {W.special_words(1)}"


def test_special_rune_and_francia_sentences():
    """Log (docs/games/karvi.md, Play): the first special rune stone (number 100 in the log) is
    named by its symbols like the others; taking a special stone and trading in Francia have
    sentences of their own, from the reader's seat."""
    s = started(3)
    assert s._event_text({"type": "rune", "player": 0, "rune": 100, "spot": 2}, 0) == (
        f"You place the {W.special_words(0)} on rune spot 3.")
    last = len(C.RUNES) - 1  # the last ordinary stone, below the special ones' 100
    assert s._event_text({"type": "rune", "player": 0, "rune": last, "spot": 2}, 1) == (
        f"Player 1 places the {W.rune_words(last)} on rune spot 3.")
    assert s._event_text({"type": "special_rune", "player": 2, "special_rune": 3}, 2) == (
        f"You take the {W.special_words(3)}.")
    assert s._event_text({"type": "francia", "player": 1}, None) == "Player 2 trades in Francia."
