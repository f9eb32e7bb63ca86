"""Karvi: the reconstructed components, the rules by rulebook section, and every worked example.

Section names refer to the English Hans im Glück rulebook.
"""

from __future__ import annotations

import random

import pytest

import meeple
from edit import add, put
from meeple.core import IllegalAction
from meeple.games.karvi import components as C
from meeple.games.karvi import effects
from meeple.games.karvi import map as sea
from meeple.games.karvi.rules import BASE, END, KarviState, warrior_class

# ----- components: counts and provenance ------------------------------------------------------


def test_components_counts_match_the_components_list():
    """Components: 45 upgrade cards (15 per type), 36 trade cards, 5 start cards, 24+24 trade and
    raid tiles (6 kinds x 4: Setup 2), 24 upgrade tiles (8 each), 12 normal + 8 special rune stones."""
    assert len(C.UPGRADE_CARDS) == 45
    assert [c["number"] for c in C.UPGRADE_CARDS] == list(range(1, 46))
    for t in C.CARD_TYPES:
        cards = [c for c in C.UPGRADE_CARDS if c["type"] == t]
        assert len(cards) == 15 and {c["level"] for c in cards} == {1, 2}  # Setup 6: 1s and 2s
    assert len(C.TRADE_CARDS) == 36 and len(C.START_CARDS) == 5
    assert len(C.TRADE_TILES) == 24 and len(C.RAID_TILES) == 24
    for kinds, tiles in ((C.TRADE_GOODS, C.TRADE_TILES), (C.RAID_TARGETS, C.RAID_TILES)):
        assert len(kinds) == 6 and all(sum(t["kind"] == k for t in tiles) == 4 for k in kinds)
    assert [sum(t["slot"] == s for t in C.UPGRADE_TILES) for s in C.SLOTS] == [8, 8, 8]
    assert len(C.RUNES) == 12 and len(C.SPECIALS) == 8


def test_every_component_value_has_a_provenance():
    """Component data policy: each record says rulebook (section), public (url) or reconstructed (why)."""
    for where, rec in C.with_provenance():
        prov = rec.get("prov")
        assert prov, where
        assert prov["source"] in ("rulebook", "public", "reconstructed"), where
        key = {"rulebook": "section", "public": "url", "reconstructed": "why"}[prov["source"]]
        assert prov.get(key), where


def test_board_sides_kaupanger_locations_and_stacks():
    """Setup 1, 2 and 7: two board sides; ships start at Kaupanger; every one of the 12 kinds has a
    location, locations with 2 symbols come in pairs sharing both symbols (one stack each)."""
    for players in (2, 3, 4):
        side = C.side(players)
        names = [s["name"] for s in side["spots"]]
        assert names[0] == "Kaupanger" == C.BOARD["start"]
        symbol_sets = [tuple(sorted(map(str, s["symbols"]))) for s in side["spots"] if "symbols" in s]
        assert len(symbol_sets) == 12
        for ss in symbol_sets:
            assert len(ss) in (1, 2)
            if len(ss) == 2:
                assert symbol_sets.count(ss) == 2
        kinds = {(k, v) for s in side["spots"] for sym in s.get("symbols", []) for k, v in sym.items()}
        assert len(kinds) == 12
        maps = [s for s in side["spots"] if s["kind"] == "map"]
        assert len(maps) == 2 and all(s.get("obstructed") for s in maps)  # Obstructed spots
        for a, b in side["routes"]:
            assert a in names and b in names


def test_torshavn_tower_worth_3_and_waterford_tower_worth_4():
    """Build trading posts or towers, example (Tórshavn tower: 3 points) and Build a trading post at
    Vík í Mýrdal or a tower at Waterford, example (Waterford tower: 4 points)."""
    for players in (2, 4):
        spots = {s["name"]: s for s in C.side(players)["spots"]}
        assert spots["Tórshavn"]["site"] == {"building": "tower", "points": spots["Tórshavn"]["site"]["points"]}
        assert spots["Tórshavn"]["site"]["points"][0] == 3
        assert spots["Waterford"]["site"]["building"] == "tower"
        assert spots["Waterford"]["site"]["points"][0] == 4
        assert spots["Waterford"]["obstructed"] and spots["Vík í Mýrdal"]["obstructed"]
        assert spots["Vík í Mýrdal"]["site"]["building"] == "post"
        assert {spots["Waterford"]["special_runes"], spots["Vík í Mýrdal"]["special_runes"]} == {"left", "right"}
        assert "trade" in spots["Jarlshof"]["symbols"][0]  # Move your ship, example: trade tiles


def test_raid_tile_strength_12_three_damage_8_points_2_gold_1_upgrade_card():
    """Raid, example: requires 12, deals 3 damage, gives 8 points, 2 gold and an upgrade card."""
    assert any(
        t["strength"] == 12 and t["damage"] == 3
        and sorted(map(tuple, t["bonus"])) == [("gold", 2), ("points", 8), ("upgrade_card", 1)]
        for t in C.RAID_TILES
    )


def test_trade_tile_3_silver_for_4_points_and_a_trade_card():
    """Trade, example: pay 3 silver, gain 4 points and 1 trade card."""
    assert any(
        t["cost"] == {"silver": 3} and sorted(map(tuple, t["bonus"])) == [("points", 4), ("trade_card", 1)]
        for t in C.TRADE_TILES
    )


def test_upgrade_tile_two_towers_two_fur_one_silver_five_points_income_trade_card():
    """Upgrade, example: the tile needs 2 towers, its slot costs 2 fur and 1 silver for 5 points, and
    from then on the income-action gives 1 trade card."""
    tile = next(t for t in C.UPGRADE_TILES if t["requirement"] == {"towers": 2})
    assert tile["effect"] == {"on": "income", "do": [["trade_card", 1]]}
    assert C.SLOT_COST[tile["slot"]] == {"fur": 2, "silver": 1} and C.SLOT_POINTS[tile["slot"]] == 5


def test_upgrade_tiles_hold_every_effect_the_rulebook_describes():
    """Upgrade tiles (stern, sail, head): each effect the explanations name is on some tile."""
    effects = [t["effect"] for t in C.UPGRADE_TILES]
    assert all(t["effect"].get("on") == "upgrade" for t in C.UPGRADE_TILES if t["slot"] == "stern")
    for needed in ({"ability": "sail_any"}, {"ability": "sail_two"}, {"ability": "die_minus_two"},
                   {"cap_cost": 1}, {"map": True}, {"on_death": "beer"}, {"trade_card_points": 4},
                   {"raid_double": True}, {"raid_damage": -1, "raid_points": 4}, {"on": "build", "do": []}):
        assert needed in effects, needed


def test_track_bonuses():
    """Trade and raid tracks: beer 2 -> improved (2nd improvement 4), provisions 2 -> (3rd: 5),
    locked actions at the 2nd tile (1 silver + 1 gold / +3 strength), map at the 4th tile,
    buildings at spaces 2 and 4, Francia at the 6th (4 fur/silver for 8; strength 25: 12 points, 3 damage)."""
    assert C.START_BEER == 2 and C.START_PROVISIONS == 2
    beers = [s["beer"] for s in C.TRADE_TRACK if "beer" in s]
    provs = [s["provisions"] for s in C.RAID_TRACK if "provisions" in s]
    assert beers[1] == 4 and provs[2] == 5
    assert C.TRADE_TRACK[1]["locked"] == [["silver", 1], ["gold", 1]]
    assert C.RAID_TRACK[1]["locked"] == [["strength", 3]]
    for track, b in ((C.TRADE_TRACK, "post"), (C.RAID_TRACK, "tower")):
        assert len(track) == 6
        assert track[3]["map"] and [i for i, s in enumerate(track) if s.get("building") == b] == [1, 3]
    assert C.TRADE_TRACK[5]["francia"] == {"pay_res": 4, "points": 8}
    assert C.RAID_TRACK[5]["francia"] == {"strength": 25, "points": 12, "damage": 3}


def test_action_track_has_seven_three_plus_spots_and_stop_tiles():
    """Setup 3: 7 action spots show 3+ (blocked with 2 players); 3 stop-area tiles, 2 for 2-3
    players and one more for 4; 6 stop positions; stop spots cost 0 so an empty die can stop."""
    for face in ("A", "B"):
        spots = C.track_spots({"short_1": face, "long_1": face, "long_2": face, "short_2": face})
        assert sum(bool(s.get("three_plus")) for s in spots) == 7
        assert any(s["cost"] == 0 for s in spots)
    assert len(C.STOP_TILES) == 3 and C.STOP_POSITIONS == 6
    assert sum(2 in t["players"] for t in C.STOP_TILES) == 2
    assert all(sp["cost"] == 0 for t in C.STOP_TILES for f in "AB" for sp in t[f])


def test_start_cards_beer():
    """Start cards: the lowest card sets both dice to 2; the card with value 2 sets left 3, right 2;
    2-3 players 2 or 3 beer per die, 4 players 3 or 4."""
    by_value = {c["value"]: c for c in C.START_CARDS}
    assert by_value[1]["2-3"]["beer"] == [2, 2] and by_value[2]["2-3"]["beer"] == [3, 2]
    assert all(set(c["2-3"]["beer"]) <= {2, 3} and len(c["2-3"]["beer"]) == 2 for c in C.START_CARDS)
    assert all(c["4"]["beer"][0] in (3, 4) and len(c["4"]["beer"]) == 1 for c in C.START_CARDS)


def test_rune_stone_two_trading_posts_give_10_points():
    """Final scoring, example: 'You've built 2 trading posts on the game board. You get 10 points.'"""
    assert any(r["count"] == "posts" and r["hard"] == [2, 10] for r in C.RUNES)
    assert any(s["bonus"] == [["upgrade_card", 2]] for s in C.SPECIALS)  # Waterford example


def test_setup_counts_per_player_count():
    """Setup: 2-3 players two dice each and 3 rounds; 4 players one die and 4 rounds."""
    assert C.DICE == {2: 2, 3: 2, 4: 1} and C.ROUNDS == {2: 3, 3: 3, 4: 4}
    assert C.START_POSITIONS[3] == [[0, 5], [1, 4], [2, 3]] and C.START_POSITIONS[4] == [[0], [1], [2], [3]]


# ----- rules -----------------------------------------------------------------------------------


def A(name: str, x: int = 0) -> int:
    return BASE[name] + x


def started(players: int = 3, seed: int = 0, **options) -> KarviState:
    """A game past the free first rune stones (each player takes their first one)."""
    s = meeple.make("karvi", players=players, seed=seed, **options)
    while s.tasks and s.tasks[-1][0] in ("free_rune", "keep"):  # draw two: start cards' keeps
        s.apply(s.legal_actions()[0])
    return s


def node(s: KarviState, name: str) -> int:
    return s.nodes.index(name)


def spot_with(s: KarviState, action: str, cost: int | None = None) -> int:
    """The first free, unblocked track spot whose single part is the named action."""
    for i, sp in enumerate(s.spots):
        if sp["parts"] == [[["action", action]]] and not s.blocked[i] and i not in s.die_pos:
            if cost is None or sp["cost"] == cost:
                return i
    raise LookupError(action)


def set_warriors(pl, *warriors: tuple[int, bool]) -> None:
    pl.warriors_by_class = (0,) * 12
    for v, injured in warriors:
        add(pl, "warriors_by_class", warrior_class(v, injured), 1)


def test_setup_dice_positions_and_beer_by_start_card():
    """Setup, start cards (2-3 players): lowest card at positions 1 and 6, next at 2 and 5, last at
    3 and 4, dice set to the card's beer; 4 players: one die each at positions 1..4."""
    s = meeple.make("karvi", players=3, seed=4)
    order = sorted(range(3), key=lambda q: s.tableaus[q].start)
    for rank, q in enumerate(order):
        assert [s.die_pos[2 * q] - s.track_size, s.die_pos[2 * q + 1] - s.track_size] == [[0, 5], [1, 4], [2, 3]][rank]
    low = order[0]
    if s.tableaus[low].start == 1:
        assert [s.die_beer[2 * low], s.die_beer[2 * low + 1]] == [2, 2]
    s4 = meeple.make("karvi", players=4, seed=4)
    assert sorted(s4.die_pos[q] - s4.track_size for q in range(4)) == [0, 1, 2, 3]
    assert all(b in (3, 4) for b in s4.die_beer) and s4.rounds == 4 and s.rounds == 3


def test_free_first_rune_stone_in_start_order():
    """Your first rune stone: each player places one of their 3 rune stones for free."""
    s = meeple.make("karvi", players=2, seed=1)
    first = min(range(2), key=lambda q: s.tableaus[q].start)
    assert s.to_move == first and s.tasks[-1][0] == "free_rune"
    before = s.tableaus[first].res
    s.apply(s.legal_actions()[0])
    assert len(s.tableaus[first].rune_spots[0]) == 1 and len(s.tableaus[first].hidden_runes) == 2
    assert s.tableaus[first].res == before and s.tableaus[first].points == 0


def test_two_players_block_the_seven_three_plus_spots():
    """Setup 3, 2 players: blockades on all 7 action spots showing 3+; those spots are unavailable."""
    s = started(2)
    assert sum(s.blocked) == 7
    targets = s._die_targets(s.cur_die)
    assert not any(s.blocked[t] for t in targets if t < s.track_size)


def test_the_die_furthest_back_moves_and_pays_its_beer():
    """Overview / Moving dice / Pay beer: the lowest start card's left die starts; it moves to a free
    spot it can pay for, losing that many pips; the die furthest back moves next."""
    s = started(3)
    first = min(range(3), key=lambda q: s.tableaus[q].start)
    assert s.to_move == first and s.cur_die == 2 * first
    put(s, "die_beer", s.cur_die, 1)
    legal = [a - BASE["MOVE_DIE"] for a in s.legal_actions() if BASE["MOVE_DIE"] <= a < BASE["MOVE_DIE"] + 26]
    assert legal and all(s.spots[t]["cost"] <= 1 for t in legal)  # a die pays its own cost only
    assert all(t < s.track_size for t in legal)  # a die in the stop area must land outside it
    target = max(legal)
    cost = s.spots[target]["cost"]
    s.apply(A("MOVE_DIE", target))
    assert s.die_beer[2 * first] == 1 - cost and s.die_pos[2 * first] == target


def test_several_turns_in_a_row():
    """Moving dice, example: a player whose die is still furthest back takes another turn."""
    s = started(2, seed=3)
    q = s.to_move
    other = 1 - q
    # All dice have left the stop area; q's dice are at spots 2 and 5, the other's at 8 and 9.
    s.die_pos = (0,) * 4
    for d, pos in zip((2 * q, 2 * q + 1, 2 * other, 2 * other + 1), (2, 5, 8, 9), strict=True):
        put(s, "die_pos", d, pos)
    s.tasks = []
    s._begin_turn()
    assert s.to_move == q and s.cur_die == 2 * q
    put(s, "die_beer", 2 * q, 0)
    s.die_move_card = 19
    s.apply(A("MOVE_DIE", 3))
    while s.to_move == q and s.tasks:
        s.apply(END)
    s.apply(END)
    assert s.to_move == q and s.cur_die == 2 * q  # die at 3 is still furthest back


def test_zero_beer_die_may_only_use_zero_cost_spots():
    """Pay beer: a die with no pips may only go to action spots with a 0."""
    s = started(3)
    put(s, "die_beer", s.cur_die, 0)
    for t in s._die_targets(s.cur_die):
        assert s._cost(s.to_move, t) == 0


def test_round_end_stop_tile_removed_and_game_end():
    """End of round: a round ends when all dice are back in the stop area; from round 2 a tile is
    removed once all dice have left it; after the last round the game ends (Final scoring)."""
    s = started(4, seed=2)
    tiles = len(s.stop_stack)
    assert tiles == 3
    rng = random.Random(0)
    rounds_seen = {1}
    while not s.is_over():
        r = s.round
        s.apply(rng.choice(s.legal_actions()))
        if s.round != r:
            rounds_seen.add(s.round)
            assert all(s.die_pos[d] >= s.track_size for d in range(4))  # everyone was back in the stop area
        if s.round >= 2 and not any(not s.die_done[d] and s.die_pos[d] >= s.track_size for d in range(4)):
            assert len(s.stop_stack) == tiles - (s.round - 1)
    assert rounds_seen == {1, 2, 3, 4} and s.stop_stack == ()
    assert s.legal_actions() == [] and s.to_move is None


def test_ship_moves_pay_a_provision_per_step_once_per_turn():
    """Move your ship: once per turn, 1 provision per step; no provisions, no move."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.provisions = 2
    s.apply(A("SHIP_TO", node(s, "Jarlshof")))  # Kaupanger - Jarlshof: 1 step
    assert pl.provisions == 1 and pl.ship == node(s, "Jarlshof")
    while s.tasks:
        s.apply(END)
    assert not any(BASE["SHIP_TO"] <= a < BASE["DISPLACE_TO"] for a in s.legal_actions())


def test_displacing_a_stronger_ship_costs_an_extra_provision():
    """Occupied spot, example: Blue is stronger, so moving 3 spots onto Blue costs 4 provisions;
    you choose where Blue goes, a free adjacent spot."""
    s = started(3)
    q = s.to_move
    blue = (q + 1) % 3
    me, them = s.tableaus[q], s.tableaus[blue]
    set_warriors(me, (2, False))
    set_warriors(them, (5, False))
    me.provisions = 6
    dest = node(s, "Tórshavn")  # Kaupanger - Jarlshof - Tórshavn ... 2 steps on this side
    them.ship = dest
    steps = sea.distances(s, q, 0, 6)[dest]
    s.apply(A("SHIP_TO", dest))
    assert me.provisions == 6 - steps - 1
    assert s.tasks[-1][0] == "displace"
    options = [a - BASE["DISPLACE_TO"] for a in s.legal_actions()]
    assert options and all(x in s.adj[dest] for x in options)
    s.apply(A("DISPLACE_TO", options[0]))
    assert them.ship == options[0] and me.ship == dest
    # Stronger ships displace for free.
    s2 = started(3)
    q2 = s2.to_move
    set_warriors(s2.tableaus[q2], (6, False))
    set_warriors(s2.tableaus[(q2 + 1) % 3], (1, False))
    s2.tableaus[(q2 + 1) % 3].ship = node(s2, "Jarlshof")
    s2.tableaus[q2].provisions = 1
    assert A("SHIP_TO", node(s2, "Jarlshof")) in s2.legal_actions()
    s2.tableaus[q2].warriors_by_class = (0,) * 12
    set_warriors(s2.tableaus[q2], (1, False))
    assert A("SHIP_TO", node(s2, "Jarlshof")) not in s2.legal_actions()  # 1 + 1 > 1 provision


def test_scouting_takes_one_tile_and_one_per_kind():
    """Scouting, example at Jarlshof: take all the tiles, keep 1 face up; only 1 tile of each kind."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.provisions = 6
    jarl = node(s, "Jarlshof")
    stack = list(s.stacks[jarl])
    s.apply(A("SHIP_TO", jarl))
    s.apply(A("SCOUT"))
    assert s.view(q)["stacks"]["Jarlshof"]["tiles"] == stack
    other = (q + 1) % 3
    assert "tiles" not in s.view(other)["stacks"]["Jarlshof"]
    s.apply(A("TAKE_TILE", stack[0]))
    assert pl.beside == (stack[0],) and len(s.stacks[jarl]) == 2
    assert "scout" not in sea.location_options(s, q, jarl)


def test_build_tower_at_torshavn_scores_3():
    """Build trading posts or towers, example: a tower at Tórshavn gives 3 points; only 1 building
    of yours per location."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.provisions = 6
    s.apply(A("SHIP_TO", node(s, "Tórshavn")))
    s.apply(A("BUILD"))
    assert pl.points == 3 and pl.tower_supply == 0 and pl.count("towers") == 1
    assert "build" not in sea.location_options(s, q, node(s, "Tórshavn"))


def test_waterford_needs_the_map_tower_worth_4_and_special_rune_stone():
    """Obstructed spots and Waterford, example: with the 4th trade tile the map is open; a tower at
    Waterford gives 4 points; choose a special rune stone, take its bonus, place it."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.provisions = 6
    wf = node(s, "Waterford")
    assert wf not in sea.distances(s, q, 0, 20)
    pl.map = True
    pl.ship = node(s, "Western map")
    s.apply(A("SHIP_TO", wf))
    s.apply(A("BUILD"))
    assert pl.points == 4 and s.tasks[-1][0] == "special_choose"
    stack = list(s.special_stacks[wf])
    assert s.view(q)["special_stacks"]["Waterford"]["tiles"] == stack
    s.apply(A("SPECIAL", stack[0]))
    while s.tasks and s.tasks[-1][0] != "special_spot":
        s.apply(s.legal_actions()[0])
    s.apply(A("RUNE_SPOT", 1))
    assert pl.rune_spots[1] == (100 + stack[0],)


def test_special_case_map_jump_moves_within_and_out_not_back():
    """Obstructed spots, special case (card 43): a ship placed on a map spot may move within the
    area and out of it, but not back in."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.ship = node(s, "Western map")
    reach = sea.distances(s, q, pl.ship, 3)
    assert node(s, "Waterford") in reach and node(s, "Dublin") in reach
    assert node(s, "Northern map") not in sea.distances(s, q, node(s, "Dublin"), 6)


def test_play_upgrade_card_32_pay_and_move_three_free():
    """Play an upgrade card, example: pay 1 silver and 1 fur, lower box: move 3 spots free."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.hand = (31,)  # card number 32
    pl.res = (1, 1, 0)
    pl.provisions = 0
    s.apply(A("PLAY_CARD", 31))
    assert pl.res == (0, 0, 0) and pl.played == (31,)
    s.apply(A("BOX", 1))
    far = node(s, "Tórshavn")
    assert A("SHIP_TO", far) in s.legal_actions()
    s.apply(A("SHIP_TO", far))
    assert pl.ship == far and pl.provisions == 0


def test_discard_two_cards_for_a_gold_and_trade_gold():
    """Discarding upgrade cards and Trade gold, example: discard 2 for 1 gold, pay it for a provision."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.hand = (0, 20)
    pl.res = (0, 0, 0)
    pl.provisions = 0
    s.apply(A("DISCARD", 0))
    s.apply(A("DISCARD", 20))
    assert pl.hand == () and pl.res[2] == 1 and s.decks[0][-1] == 0 and s.decks[1][-1] == 20
    s.apply(A("GOLD_PROV"))
    assert pl.provisions == 1 and pl.res[2] == 0


def _do_spot(s: KarviState, action: str) -> None:
    put(s, "die_beer", s.cur_die, 5)
    s.apply(A("MOVE_DIE", spot_with(s, action)))


def test_top_up_beer_split_and_the_second_beer_improvement():
    """Top up beer, example: +1 on each die; More beer, example: with the 2nd improvement, +3 on one
    die and +1 on the other (4)."""
    s = started(3)
    q = s.to_move
    s.tableaus[q].trade_track = (0, 1, 2)  # 2nd beer improvement is under space 3
    _do_spot(s, "beer")
    d0, d1 = 2 * q, 2 * q + 1
    put(s, "die_beer", d0, 0)
    put(s, "die_beer", d1, 1)
    for d in (d0, d0, d0, d1):
        s.apply(A("DIE", d))
    assert s.die_beer[d0] == 3 and s.die_beer[d1] == 2 and s.tasks == []


def test_provisions_third_improvement_five_and_at_most_six():
    """More provisions, example: the 3rd improvement gives 5 provisions; a ship holds at most 6."""
    s = started(3)
    q = s.to_move
    s.tableaus[q].raid_track = (24, 30, 36, 42, 28)
    s.tableaus[q].provisions = 0
    _do_spot(s, "provisions")
    assert s.tableaus[q].provisions == 5
    s2 = started(3)
    s2.tableaus[s2.to_move].provisions = 4
    _do_spot(s2, "provisions")
    assert s2.tableaus[s2.to_move].provisions == 6


def test_income_one_resource_and_strength_per_tower_keeping_sides():
    """Gain income, examples: no trading post, so 1 silver; 2 towers give 3 strength, split 1 and 2;
    an injured warrior stays injured when increased."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.res = (0, 0, 0)
    pl.built = ((node(s, "Tórshavn"), "tower"), (node(s, "York"), "tower"))
    set_warriors(pl, (2, False), (3, True))
    _do_spot(s, "income")
    s.apply(A("RES_SILVER"))
    assert pl.res == (0, 1, 0) and s.tasks[-1] == ("strength", 3)
    s.apply(A("WARRIOR", warrior_class(2, False)))
    s.apply(A("WARRIOR", warrior_class(3, True)))
    s.apply(A("WARRIOR", warrior_class(4, True)))
    assert pl.warriors_by_class[warrior_class(3, False)] == 1 and pl.warriors_by_class[warrior_class(5, True)] == 1
    assert pl.strength() == 8


def test_upgrade_tile_two_towers_pay_and_five_points_then_income_trade_card():
    """Upgrade, example: the tile needs 2 towers; pay 2 fur and 1 silver, gain 5 points; from then
    on the income-action also gives 1 trade card."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    tile = next(i for i, t in enumerate(C.UPGRADE_TILES) if t["requirement"] == {"towers": 2})
    pl.hidden_ut = (tile,)
    pl.res = (2, 1, 0)
    _do_spot(s, "upgrade")
    assert A("PLACE_TILE", tile) not in s.legal_actions()  # requirement not met
    pl.built = ((node(s, "Tórshavn"), "tower"), (node(s, "York"), "tower"))
    s.apply(A("PLACE_TILE", tile))
    assert pl.points == 5 and pl.res == (0, 0, 0) and pl.slots["sail"] == (tile,)
    assert s.tasks == []
    s.moved = False
    put(s, "die_beer", s.cur_die, 5)
    s.apply(A("MOVE_DIE", spot_with(s, "income")))
    s.apply(A("PART", 0))  # the bonus before the action (Upgrade tiles: "before or after")
    assert s.tasks[-1][0] == "trade_card"


def test_trade_tile_three_silver_four_points_trade_card_and_trading_post():
    """Trade, example: pay 3 silver, the tile goes on the next space; on space 2 the trading post
    goes to your supply; gain 4 points and 1 trade card (Trade cards: choose one face up)."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    tile = next(i for i, t in enumerate(C.TRADE_TILES) if t["cost"] == {"silver": 3}
                and ["points", 4] in t["bonus"])
    pl.beside = (tile,)
    pl.trade_track = (5,)
    pl.res = (0, 3, 0)
    _do_spot(s, "trade")
    s.apply(A("ACTIVATE", tile))
    assert pl.res == (0, 0, 0) and pl.points == 4
    card = s.display[0]
    s.apply(A("TRADE_CARD", card))  # Trade: the bonus, "Then place the tile" (ruling)
    assert pl.trade_cards == (card,) and card not in s.display
    while s.tasks:  # the trade card's own bonus, if it asks
        s.apply(s.legal_actions()[-1])
    assert pl.trade_track == (5, tile) and pl.post_supply == 2 and pl.post_tab == 1


def test_raid_example_strength_13_three_damage_valhalla_and_bonus():
    """Raid, example: strength 13 against a tile needing 12; 3 damage: the injured 1 dies (1 point),
    the other 1 is injured then dies (1 point); then 8 points, 2 gold and an upgrade card."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    tile = next(i for i, t in enumerate(C.RAID_TILES) if t["strength"] == 12
                and t["damage"] == 3) + C.NUM_TR
    pl.beside = (tile,)
    set_warriors(pl, (1, True), (1, False), (5, False), (6, False))
    assert pl.strength() == 13
    pl.res = (0, 0, 0)
    hand = len(pl.hand)
    _do_spot(s, "raid")
    s.apply(A("ACTIVATE", tile))
    s.apply(A("WARRIOR", warrior_class(1, True)))
    s.apply(A("WARRIOR", warrior_class(1, False)))
    s.apply(A("WARRIOR", warrior_class(1, True)))
    assert pl.strength() == 11 and s.tasks[-1][0] == "upcard"
    s.apply(A("DRAW_STACK", 0))
    assert pl.points == 10 and pl.res[2] == 2 and len(pl.hand) == hand + 1 and pl.raid_track == (tile,)


def test_raid_needs_the_strength():
    """Raid: the number on the shield is the minimum combat strength."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    tile = next(i for i, t in enumerate(C.RAID_TILES) if t["strength"] == 12) + 24
    pl.beside = (tile,)
    set_warriors(pl, (5, False), (6, False))
    _do_spot(s, "raid")
    assert A("ACTIVATE", tile) not in s.legal_actions()


def test_locked_action_second_trade_tile_silver_and_gold():
    """Locked action, example: with the 2nd trade tile, the locked spot gives 1 silver and 1 gold."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.trade_track = (0, 4)
    pl.res = (0, 0, 0)
    _do_spot(s, "locked")
    assert pl.res == (0, 1, 1)


def test_francia_trade_and_raid():
    """Trade or raid in Francia: after the 6th tile, pay 4 fur/silver for 8 points; with strength
    25, 12 points and 3 damage."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.trade_track = (0, 4, 8, 12, 16, 20)
    pl.res = (2, 2, 0)
    _do_spot(s, "trade")
    s.apply(A("FRANCIA"))
    for fam in ("RES_FUR", "RES_SILVER", "RES_FUR"):  # "4 fur and/or silver", the player's mix
        s.apply(A(fam))
    assert pl.res == (0, 0, 0) and pl.points == 8
    s2 = started(3)
    pl2 = s2.tableaus[s2.to_move]
    pl2.raid_track = (24, 28, 32, 36, 40, 44)
    set_warriors(pl2, (6, False), (6, False), (6, False), (6, False), (1, False))
    _do_spot(s2, "raid")
    s2.apply(A("FRANCIA"))
    for cls in (warrior_class(1, False), warrior_class(1, True), warrior_class(6, False)):
        s2.apply(A("WARRIOR", cls))
    assert pl2.points == 12 + 1


def test_final_scoring_lines():
    """Final scoring: rune stones (2 trading posts: 10), strength, trade tiles squared (5: 25), beer
    pips, provisions 2 per point, gold or 2 cards per point, 2 resources per point."""
    s = started(3)
    pl = s.tableaus[0]
    rune = next(i for i, r in enumerate(C.RUNES) if r["count"] == "posts")
    pl.rune_spots = ((rune,), (), (), ())
    pl.built = ((1, "post"), (5, "post"))
    pl.trade_track = (0, 4, 8, 12, 16)
    set_warriors(pl, (3, False), (2, True))
    pl.provisions, pl.res, pl.hand = (5, (3, 2, 1), (0, 1, 2))
    put(s, "die_beer", 0, 2)
    put(s, "die_beer", 1, 1)
    assert s.final_lines(0) == {
        "rune stones": 10, "combat strength": 5, "trade tiles squared": 25, "beer": 3,
        "provisions": 2, "gold and cards": 2, "resources": 2,
    }


def test_tie_break_die_furthest_left_in_the_stop_area():
    """Final scoring: in a tie, the player whose die is furthest left in the stop area wins."""
    s = started(2, seed=5)
    rng = random.Random(5)
    while not s.is_over():
        s.apply(rng.choice(s.legal_actions()))
    s.tableaus[0].points = s.tableaus[1].points = 0
    for pl in s.tableaus:
        pl.warriors_by_class, pl.res, pl.provisions, pl.hand, pl.trade_track, pl.rune_spots = ((0,) * 12, (0, 0, 0), 0, (), (), ((),))
    s.die_beer = (0,) * 4
    s.die_pos = (s.track_size + 3, s.track_size + 4, s.track_size + 1, s.track_size + 5)
    assert s.scores() == [0.0, 0.0] and s.ranking() == [2, 1]


def test_weaker_warrior_when_the_supply_runs_out():
    """(In)finite components, warriors: if none of that strength is left, take a weaker one."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    others = [p for p in s.tableaus if p is not pl]
    for p in others:
        p.warriors_by_class = (0,) * 12
    put(others[0], "warriors_by_class", warrior_class(3, False), 12)
    set_warriors(pl)
    effects.gain_warrior(s, pl, 3)
    assert pl.warriors_by_class[warrior_class(2, False)] == 1


def test_illegal_action_leaves_state_untouched():
    """Illegal input raises IllegalAction and changes nothing (engine contract)."""
    s = started(3)
    before = s.view(None)
    with pytest.raises(IllegalAction):
        s.apply(A("FRANCIA"))
    assert s.view(None) == before


def test_draw_two_keep_one_variant():
    """Variant 'always unlucky': draw 2 upgrade cards and keep 1, the other returns to its stack."""
    s = started(3, draw_two=True)
    pl = s.tableaus[s.to_move]
    hand = len(pl.hand)
    _do_spot(s, "upgrade")
    s.apply(A("DRAW_STACK", 2))
    a, b = pl.hand[-2:]
    assert sorted(s.legal_actions()) == sorted([A("KEEP", a), A("KEEP", b)])
    s.apply(A("KEEP", a))
    assert len(pl.hand) == hand + 1 and s.decks[2][-1] == b


# ----- whole games, invariants, hidden information, bot, rendering ------------------------------
VARIANTS = [{}, {"draft_start": True}, {"variety": True}, {"chaos": True}, {"draw_two": True}, {"less_luck": True}]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_and_keep_the_invariants(players):
    """Random games at every player count and variant end; resources never negative, at most 6
    provisions (Get provisions), dice pips 0-5, warriors within the spaces and the supply of 12 per
    value, buildings conserved (3 towers and 3 trading posts each)."""
    for i, opts in enumerate(VARIANTS):
        s = meeple.make("karvi", players=players, seed=i, **opts)
        rng = random.Random(i)
        while not s.is_over():
            s.apply(rng.choice(s.legal_actions()))
            for pl in s.tableaus:
                assert min(pl.res) >= 0 and 0 <= pl.provisions <= C.MAX_PROVISIONS and min(pl.warriors_by_class) >= 0
                assert pl.warriors() <= C.WARRIOR_SPACES
                for b in ("tower", "post"):
                    supply, tab = (pl.tower_supply, pl.tower_tab) if b == "tower" else (pl.post_supply, pl.post_tab)
                    assert supply + tab + sum(x == b for _, x in pl.built) == 3
            assert all(0 <= b <= 5 for b in s.die_beer)
            assert all(effects.supply(s, v) >= 0 for v in range(1, 7))
        assert s.round == s.rounds and all(s.die_done)


def test_determinize_mid_discard_keeps_the_pending_choice_valid():
    """Hidden information: resampling another player's hand while they are choosing the second card
    to discard keeps their choice playable (the pending card is held by position)."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.hand = (s.decks[0][0], s.decks[1][0])
    s.decks = (s.decks[0][1:], s.decks[1][1:], *s.decks[2:])
    s.apply(A("DISCARD", pl.hand[0]))
    for p in range(3):
        if p == q:
            continue
        det = s.determinize(p, random.Random(p))
        assert det.view(p) == s.view(p)
        det.apply(det.legal_actions()[0])
        assert len(det.tableaus[q].hand) == 0 and det.tableaus[q].res[2] == pl.res[2] + 1


def test_stacks_are_hidden_until_scouted_and_resampled_for_others():
    """Scouting: the stacks are face down; determinize resamples the stacks a player never saw."""
    s = started(4)
    views = {n: s.view(0)["stacks"][n] for n in s.view(0)["stacks"]}
    assert all("tiles" not in v and v["size"] == 4 for v in views.values())
    differ = False
    for k in range(5):
        det = s.determinize(0, random.Random(k))
        assert det.view(0) == s.view(0)
        differ |= det.tableaus[1].hand != s.tableaus[1].hand or det.tableaus[1].hidden_runes != s.tableaus[1].hidden_runes
    assert differ


def test_heuristic_bot_beats_random():
    """The heuristic bot (beer and provisions early, tracks, buildings and rune stones) wins most
    3-player games against two random bots."""
    from meeple.bots import make_bot

    info = meeple.game_info("karvi")
    wins = 0
    for seed in range(6):
        s = meeple.make("karvi", players=3, seed=seed)
        seat = seed % 3
        bots = [make_bot("heuristic" if q == seat else "random", info, seed + q) for q in range(3)]
        while not s.is_over():
            a = bots[s.to_move].choose(s)
            assert a in s.legal_actions()
            s.apply(a)
        wins += s.ranking()[seat] == 1
    assert wins >= 5


def test_text_rendering_shows_track_map_and_tableau():
    """Terminal play: a compact rendering of the track, the map and each tableau (hand to its owner)."""
    s = started(2)
    render = meeple.game_info("karvi").text_renderer
    mine = render(s.view(s.to_move))
    assert "Action track" in mine and "Stop area" in mine and "Map: Kaupanger" in mine and "hand:" in mine
    assert "hand:" not in render(s.view(None))


def test_less_luck_drafts_the_tiles_and_rune_stones():
    """Less luck, 3 players: one player gets the rune stones and the sterns; everyone picks 2 tiles
    per type and 3 rune stones from each pile and passes the rest left; the rest goes to the box."""
    s = meeple.make("karvi", players=3, seed=2, less_luck=True)
    assert s.pile_holder == {"runes": 0, "stern": 0, "sail": 1, "head": 2}
    assert all(not pl.hidden_ut and not pl.hidden_runes for pl in s.tableaus)
    assert isinstance(s.view(0)["piles"]["runes"], list) and s.view(1)["piles"]["runes"] == 12
    seen_holders = []
    while any(t[0] == "pick" for t in s.tasks):
        seen_holders.append(dict(s.pile_holder))
        s.apply(s.legal_actions()[-1])
    assert {h["runes"] for h in seen_holders} == {0, 1, 2}
    for pl in s.tableaus:
        assert len(pl.hidden_runes) == 3
        assert [sum(C.UPGRADE_TILES[u]["slot"] == t for u in pl.hidden_ut) for t in C.SLOTS] == [2, 2, 2]
    assert s.piles == {} and s.tasks[-1][0] == "free_rune"


# ----- more rules and the explained cards -----------------------------------------------------


def test_special_rune_stone_free_spot_else_cover_or_discard():
    """Build at Vík í Mýrdal / Waterford, special case: place the special rune stone on a free spot;
    without space, cover a rune stone or discard the new one."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    s.tasks.append(("special_spot", 0))
    assert set(s.legal_actions()) == {END} | {A("RUNE_SPOT", k) for k in (1, 2, 3)}
    pl.rune_spots = ((0,), (1,), (2,), (3,))
    assert set(s.legal_actions()) == {END} | {A("RUNE_SPOT", k) for k in range(4)}
    s.apply(END)
    assert s.discarded_specials == (0,)


def test_displacement_two_spots_away_and_not_into_the_obstructed_area():
    """Occupied spot, special case: with no free adjacent spot, the displaced ship goes 2 spots away;
    a ship may be displaced onto an obstructed spot only if its owner has the map. Kaupanger has
    room for every ship, so nobody is displaced there."""
    s = started(4)
    q = s.to_move
    victim, a, b = [(q + k) % 4 for k in (1, 2, 3)]
    tors = node(s, "Tórshavn")
    s.tableaus[victim].ship = s.tableaus[q].ship = tors
    s.tableaus[a].ship, s.tableaus[b].ship = node(s, "Jarlshof"), node(s, "Trondheim")
    targets = sea.displace_targets(s, victim, tors)
    assert set(targets) == {node(s, n) for n in ("Kirkwall", "Norwegian Sea", "Kaupanger", "Birka")}
    s.tableaus[victim].map = True
    assert sea.displace_targets(s, victim, tors) == [node(s, "Northern map")]
    assert sea.arrival_cost(s, q, 0, "normal") == 0


def test_locked_action_with_both_tracks_pick_one():
    """Locked action: with the improvement on both tracks, pick one bonus."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    pl.trade_track, pl.raid_track = ((0, 4), (24, 28))
    set_warriors(pl, (2, False))
    _do_spot(s, "locked")
    assert s.legal_actions() == [A("PART", 0), A("PART", 1)]
    s.apply(A("PART", 1))
    s.apply(A("WARRIOR", warrior_class(2, False)))
    assert pl.strength() == 3


def test_map_unlocked_by_the_fourth_tile():
    """Obstructed spots: the 4th trade or raid tile unlocks the map spots and the yellow area."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.beside = (12,)
    pl.res = (9, 9, 9)
    pl.trade_track = (0, 4, 8)
    assert node(s, "Western map") not in sea.distances(s, q, node(s, "Dublin"), 3)
    _do_spot(s, "trade")
    s.apply(A("ACTIVATE", 12))
    while s.tasks:  # the tile's bonus first, then it goes on the track (Trade)
        s.apply(s.legal_actions()[-1])
    assert pl.map and node(s, "Western map") in sea.distances(s, q, node(s, "Dublin"), 3)


def _card(s: KarviState, number: int, box: int | None = None) -> None:
    pl = s.tableaus[s.to_move]
    pl.hand = (number - 1,)
    pl.res = (5, 5, 5)
    s.apply(A("PLAY_CARD", number - 1))
    if box is not None:
        s.apply(A("BOX", box))


def test_card_13_flip_healthy_warriors_for_3_points_each():
    """Card 13: flip any number of healthy warriors, 3 points each (max 15)."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    set_warriors(pl, (1, False), (2, False), (3, True))
    _card(s, 13)
    s.apply(A("WARRIOR", warrior_class(1, False)))
    s.apply(A("WARRIOR", warrior_class(2, False)))
    assert pl.points == 6 and pl.count("injured") == 3 and not s.tasks  # nothing left to flip


def test_card_12_doubles_healthy_warriors_up_to_6():
    """Card 12, example: healthy warriors of 2 and 4 become 4 and 6."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    set_warriors(pl, (2, False), (4, False))
    _card(s, 12, 0)
    s.apply(A("WARRIOR", warrior_class(2, False)))
    s.apply(A("WARRIOR", warrior_class(4, False)))
    assert pl.warriors_by_class[warrior_class(4, False)] == 1 and pl.warriors_by_class[warrior_class(6, False)] == 1


def test_card_23_points_for_beer_once_per_die():
    """Card 23, example: both dice have 3 beer left, so 6 points (max 10)."""
    s = started(3)
    q = s.to_move
    put(s, "die_beer", 2 * q, 3)
    put(s, "die_beer", 2 * q + 1, 3)
    _card(s, 23)
    assert s.tableaus[q].points == 6


def test_card_20_moves_a_die_back_one_free_spot_and_uses_it():
    """Card 20: move one of your dice back 1 spot (blocked spots not counted), pay and use it."""
    s = started(3)
    q = s.to_move
    d = 2 * q
    put(s, "die_beer", d, 5)
    target = spot_with(s, "provisions", 0)
    s.apply(A("MOVE_DIE", target + 1) if target + 1 < s.track_size else A("MOVE_DIE", target))
    while s.tasks:
        s.apply(END)
    pos = s.die_pos[d]
    back = s._back_target(d, 1, True)
    assert back is not None and back < pos and not s._occupied(back)
    _card(s, 20)
    s.apply(A("DIE", d))
    assert s.die_pos[d] == back


def test_card_30_stacks_on_another_die_and_top_moves_first():
    """Card 30: place the die on another die ahead, act for free; the top die of a stack moves
    first, then the lower one."""
    s = started(3)
    q = s.to_move
    d = s.cur_die
    occupied = 10
    other = next(e for e in range(6) if e // 2 != q)
    put(s, "die_pos", other, occupied)
    put(s, "die_done", other, False)
    _card(s, 30)
    beer = s.die_beer[d]
    assert [a - BASE["MOVE_DIE"] for a in s.legal_actions() if BASE["MOVE_DIE"] <= a < BASE["SHIP_TO"]] == [occupied]
    s.apply(A("MOVE_DIE", occupied))
    assert s.die_pos[d] == occupied and s.die_height[d] == 1 and s.die_beer[d] == beer


def test_card_44_joins_another_ship_without_displacing():
    """Card 44: place your ship next to another ship without displacing it, free."""
    s = started(3)
    q = s.to_move
    other = (q + 1) % 3
    s.tableaus[other].ship = node(s, "Iona")
    s.tableaus[q].provisions = 0
    _card(s, 44)
    s.apply(A("SHIP_TO", node(s, "Iona")))
    assert s.tableaus[q].ship == s.tableaus[other].ship == node(s, "Iona")


def _tile(effect: dict) -> int:
    return next(i for i, t in enumerate(C.UPGRADE_TILES) if t["effect"] == effect)


def test_sail_tiles_moves_and_die_minus_two():
    """Upgrade tiles, sail: once per turn pay 2 provisions to move any distance, or 1 to move up
    to 2; once per turn reduce a die by 2 beer for a trade or raid action."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    put(pl, "slots", "sail", (_tile({"ability": "sail_any"}),))
    pl.provisions = 2
    far = node(s, "Iona")
    s.apply(A("ABILITY", 0))
    assert pl.provisions == 0 and A("SHIP_TO", far) in s.legal_actions()
    s.apply(A("SHIP_TO", far))
    while s.tasks:
        s.apply(END)
    assert A("ABILITY", 0) not in s.legal_actions()  # once per turn
    s2 = started(3)
    q2 = s2.to_move
    put(s2.tableaus[q2], "slots", "sail", (_tile({"ability": "die_minus_two"}),))
    put(s2, "die_beer", 2 * q2 + 1, 3)
    easy = min(range(C.NUM_TR, 2 * C.NUM_TR), key=lambda t: C.TR_TILES[t]["strength"])
    s2.tableaus[q2].beside = (easy,)
    set_warriors(s2.tableaus[q2], (6, False), (6, False), (6, False))
    s2.apply(A("ABILITY", 2))
    s2.apply(A("DIE", 2 * q2 + 1))
    assert s2.die_beer[2 * q2 + 1] == 1 and s2.legal_actions() == [A("PART", 0), A("PART", 1)]
    s2.apply(A("PART", 1))
    assert s2.tasks[-1] == ("raid_action",)


def test_sail_tile_caps_dice_action_costs_at_one():
    """Upgrade tiles, sail: dice actions cost at most 1 beer."""
    s = started(3)
    q = s.to_move
    put(s.tableaus[q], "slots", "sail", (_tile({"cap_cost": 1}),))
    put(s, "die_beer", s.cur_die, 1)
    dear = next(i for i, sp in enumerate(s.spots) if sp["cost"] >= 2 and not s.blocked[i] and i not in s.die_pos)
    assert A("MOVE_DIE", dear) in s.legal_actions()
    s.apply(A("MOVE_DIE", dear))
    assert s.die_beer[s.cur_die] == 0


def test_head_tiles_less_damage_more_points_double_and_beer_after_a_death():
    """Upgrade tiles, head: 1 less damage and +4 points; double raid points (not Valhalla points);
    after a warrior dies in a raid, the beer-action."""
    tile = next(i for i, t in enumerate(C.RAID_TILES) if t["strength"] == 12 and t["damage"] == 3) + C.NUM_TR
    s = started(3)
    pl = s.tableaus[s.to_move]
    put(pl, "slots", "head", (_tile({"raid_damage": -1, "raid_points": 4}),))
    pl.beside = (tile,)
    set_warriors(pl, (6, False), (6, False))
    _do_spot(s, "raid")
    s.apply(A("ACTIVATE", tile))
    assert s.tasks[-1] == ("damage", 2)
    s.apply(A("WARRIOR", warrior_class(6, False)))
    s.apply(A("WARRIOR", warrior_class(6, True)))  # she dies: 6 Valhalla points
    s.apply(A("DRAW_STACK", 0))
    assert pl.points == 6 + 8 + 4
    s2 = started(3)
    pl2 = s2.tableaus[s2.to_move]
    put(pl2, "slots", "head", (_tile({"raid_double": True}),))
    pl2.beside = (tile,)
    set_warriors(pl2, (6, False), (6, False))
    _do_spot(s2, "raid")
    s2.apply(A("ACTIVATE", tile))
    for cls in (warrior_class(6, False), warrior_class(6, False), warrior_class(6, True)):
        s2.apply(A("WARRIOR", cls))
    s2.apply(A("DRAW_STACK", 0))
    assert pl2.points == 6 + 16
    s3 = started(3)
    pl3 = s3.tableaus[s3.to_move]
    put(pl3, "slots", "head", (_tile({"on_death": "beer"}),))
    pl3.beside = (tile,)
    set_warriors(pl3, (6, False), (6, True))
    _do_spot(s3, "raid")
    s3.apply(A("ACTIVATE", tile))
    for cls in (warrior_class(6, True), warrior_class(6, False), warrior_class(6, True)):
        s3.apply(A("WARRIOR", cls))
    assert s3.tasks[-1][0] == "beer"


def test_stern_bonus_on_the_upgrade_action_not_for_itself():
    """Upgrade tiles, stern: a bonus with each upgrade-action, but not the one that placed it."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    stern = _tile({"on": "upgrade", "do": [["points", 2]]})
    pl.hidden_ut = (stern,)
    pl.played = (0, 1)
    pl.res = (1, 1, 0)
    _do_spot(s, "upgrade")
    s.apply(A("PLACE_TILE", stern))
    assert pl.points == C.SLOT_POINTS["stern"]
    s.moved = False
    put(s, "die_beer", s.cur_die, 5)
    s.apply(A("MOVE_DIE", spot_with(s, "upgrade")))
    assert pl.points == C.SLOT_POINTS["stern"] + 2


def test_data_uses_only_the_effect_language_the_engine_knows():
    """Component data policy: an owner may edit the JSON; every effect step, action name and
    requirement or scoring count in it must be one the rules implement (docs: Effect language)."""
    from meeple.games.karvi.rules import ACTIONS, COUNTS, STEP_OPS

    def steps_ok(steps, where):
        for st in steps:
            assert st[0] in STEP_OPS and len(st) == 1 + STEP_OPS[st[0]], (where, st)
            if st[0] == "action":
                assert st[1] in ACTIONS, (where, st)
            if st[0] == "pts_per":
                assert st[1] in COUNTS, (where, st)

    for where, rec in C.with_provenance():
        for box in rec.get("boxes", []) + rec.get("parts", []):
            steps_ok(box, where)
        for key in ("bonus", "locked"):
            if key in rec:
                steps_ok(rec[key], where)
        if "effect" in rec and "do" in rec["effect"]:
            steps_ok(rec["effect"]["do"], where)
        for req in (rec.get("requirement") or {}):
            assert req in COUNTS, (where, req)
        if "count" in rec:
            assert rec["count"] in COUNTS, where
        if isinstance(rec.get("per"), list):  # special rune stones (the scoring lines use an int)
            assert all(per in COUNTS for per in rec["per"]), where


def test_turn_ends_only_after_the_die_moved_and_free_actions_follow():
    """Overview: each turn the die must move; free actions may come before and after it."""
    s = started(3)
    q = s.to_move
    assert END not in s.legal_actions()
    put(s.tableaus[q], "res", 2, 1)
    s.apply(A("GOLD_FUR"))  # a free action before the die action
    put(s, "die_beer", s.cur_die, 5)
    s.apply(A("MOVE_DIE", spot_with(s, "provisions")))
    assert s.to_move == q and END in s.legal_actions()
    s.tableaus[q].provisions = 1
    assert any(BASE["SHIP_TO"] <= a < BASE["DISPLACE_TO"] for a in s.legal_actions())  # and after
    s.apply(END)
    assert s.moved is False and s.cur_die != -1


def test_trade_display_refills_after_the_turn_only():
    """Trade cards: replenish the display to 3 only after your turn, so at most 3 per turn."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    s.tasks.append(("trade_card", 3))
    for _ in range(3):
        s.apply(A("TRADE_CARD", s.display[0]))
        while s.tasks and s.tasks[-1][0] != "trade_card":
            s.apply(s.legal_actions()[-1] if s.legal_actions()[-1] != END else s.legal_actions()[0])
    assert s.display == () and len(pl.trade_cards) == 3
    put(s, "die_beer", s.cur_die, 5)
    s.apply(A("MOVE_DIE", spot_with(s, "provisions")))
    s.apply(END)
    assert len(s.display) == 3


def test_empty_upgrade_stack_take_another_type_and_empty_trade_deck():
    """(In)finite components: with a stack empty, draw another type; with no trade cards left,
    you go empty-handed."""
    s = started(3)
    put(s, "decks", 0, ())
    s.tasks.append(("upcard", 1))
    assert A("DRAW_STACK", 0) not in s.legal_actions() and A("DRAW_STACK", 1) in s.legal_actions()
    s.apply(END)
    s.decks = ((), (), ())
    s.display, s.trade_deck = ((), ())
    s.tasks.append(("steps", [["trade_card", 1], ["upgrade_card", 1]], 0))
    s._run()
    assert not s.tasks  # both fizzle: empty-handed


def test_gold_is_universal():
    """Trade gold: 1 gold for 1 silver or 1 fur, or +1 beer on a die, or 1 provision."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    pl.res, pl.provisions = ((0, 0, 4), 0)
    d = s.cur_die
    put(s, "die_beer", d, 0)
    for a in (A("GOLD_FUR"), A("GOLD_SILVER"), A("GOLD_PROV"), A("GOLD_BEER", d)):
        s.apply(a)
    assert pl.res == (1, 1, 0) and pl.provisions == 1 and s.die_beer[d] == 1


def test_rollout_policy_plays_legal_games_to_the_end():
    """The ISMCTS playout hook returns legal actions and finishes games (search relies on it)."""
    from meeple.games import karvi

    for players in (2, 4):
        s = meeple.make("karvi", players=players, seed=players)
        rng = random.Random(0)
        while not s.is_over():
            a = karvi.GAME.search.rollout_policy(s, rng)
            assert a in s.legal_actions()
            s.apply(a)
    assert karvi.GAME.search.iterations > 0


def test_face_down_tiles_show_their_requirement_stripe_to_everyone():
    """Individual setup 2-3 and Upgrade: tiles and rune stones lie face down, blue stripe (the
    requirement) up: everyone sees the requirements; determinize resamples only tiles with the
    same back."""
    s = started(3)
    backs = [s.view(p)["players"][0]["face_down"] for p in (None, 0, 1, 2)]
    assert all(b == backs[0] for b in backs) and len(backs[0]) == 6 + 2
    for k in range(4):
        det = s.determinize(1, random.Random(k))
        assert det.view(None)["players"][0]["face_down"] == backs[0]


# ----- the remaining worked examples, exactly -------------------------------------------------


def test_start_card_example_lowest_card_positions_1_and_6_with_2_beer():
    """Setup, example (3 players): your card is lowest, so your dice go on positions 1 and 6 with
    2 beer each; Blue on 2 and 5; Purple (highest) in the middle. 4 players: lowest on position 1
    with 3 beer."""
    s = meeple.make("karvi", players=3, seed=0, draft_start=True)
    for value in (1, 3, 5):  # seat 0 takes card 1, seat 1 card 3, seat 2 card 5
        s.apply(A("START_CARD", value - 1))
    assert [s.die_pos[d] - s.track_size for d in range(6)] == [0, 5, 1, 4, 2, 3]
    assert s.die_beer[0] == s.die_beer[1] == 2
    s4 = meeple.make("karvi", players=4, seed=0, draft_start=True)
    for value in (1, 2, 3, 4):
        s4.apply(A("START_CARD", value - 1))
    assert [s4.die_pos[d] - s4.track_size for d in range(4)] == [0, 1, 2, 3] and s4.die_beer[0] == 3


def test_beer_action_example_plus_one_on_each_die():
    """Top up beer, example: with the start value 2, +1 on each die: 0 -> 1 and 2 -> 3."""
    s = started(3)
    q = s.to_move
    _do_spot(s, "beer")
    d0, d1 = 2 * q, 2 * q + 1
    put(s, "die_beer", d0, 0)
    put(s, "die_beer", d1, 2)
    s.apply(A("DIE", d0))
    s.apply(A("DIE", d1))
    assert (s.die_beer[d0], s.die_beer[d1]) == (1, 3) and not s.tasks


def test_warrior_spot_example_takes_a_healthy_2():
    """Resources and warriors, example: the spot gives a warrior of strength 2, healthy side up."""
    s = started(3)
    pl = s.tableaus[s.to_move]
    set_warriors(pl, (1, False))
    spot = next(i for i, sp in enumerate(s.spots) if [["warrior", 2]] in sp["parts"] and not s.blocked[i])
    put(s, "die_beer", s.cur_die, 5)
    s.apply(A("MOVE_DIE", spot))
    if s.tasks and s.tasks[-1][0] == "parts":
        s.apply(A("PART", s.spots[spot]["parts"].index([["warrior", 2]])))
    assert pl.warriors_by_class[warrior_class(2, False)] == 1


def test_combat_strength_example_is_the_sum_of_values():
    """Combat strength, example: warriors 2 + 1 + 2 give 5, whatever side is up."""
    s = started(3)
    pl = s.tableaus[0]
    set_warriors(pl, (2, False), (1, True), (2, False))
    assert pl.strength() == 5


def test_trade_card_example_upgrade_card_then_one_beer():
    """Trade cards, example: the card gives an upgrade card from a stack of your choice, then +1
    beer on one of your dice."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    card = next(i for i, c in enumerate(C.TRADE_CARDS) if c["boxes"] == [[["upgrade_card", 1], ["beer", 1]]])
    s.display = (card,)
    hand = len(pl.hand)
    s.tasks.append(("trade_card", 1))
    s.apply(A("TRADE_CARD", card))
    s.apply(A("DRAW_STACK", 1))
    d = 2 * q
    before = s.die_beer[d]
    s.apply(A("DIE", d))
    assert len(pl.hand) == hand + 1 and s.die_beer[d] == before + 1 and pl.trade_cards == (card,)


def test_waterford_example_special_rune_stone_two_upgrade_cards():
    """Waterford, example: the tower gives 4 points; the chosen special rune stone gives 2 upgrade
    cards of your choice at once, then goes onto the tableau."""
    s = started(3)
    q = s.to_move
    pl = s.tableaus[q]
    wf = node(s, "Waterford")
    example = next(i for i, sp in enumerate(C.SPECIALS) if sp["bonus"] == [["upgrade_card", 2]])
    put(s, "special_stacks", wf, tuple(sorted({example, *s.special_stacks[wf]})))
    pl.map, pl.provisions, pl.ship = True, 6, node(s, "Western map")
    hand = len(pl.hand)
    s.apply(A("SHIP_TO", wf))
    s.apply(A("BUILD"))
    s.apply(A("SPECIAL", example))
    s.apply(A("DRAW_STACK", 0))
    s.apply(A("DRAW_STACK", 2))
    s.apply(A("RUNE_SPOT", 1))
    assert pl.points == 4 and len(pl.hand) == hand + 2 and pl.rune_spots[1] == (100 + example,)


def test_ship_example_three_spots_plus_one_to_displace_a_stronger_ship():
    """Occupied spot, example: 3 spots onto a stronger Blue cost 4 provisions in total."""
    s = started(3)
    q = s.to_move
    blue = (q + 1) % 3
    dest = next(n for n, k in sea.distances(s, q, 0, 6).items() if k == 3 and not s.obstructed[n])
    set_warriors(s.tableaus[q], (1, False))
    set_warriors(s.tableaus[blue], (4, False))
    s.tableaus[blue].ship = dest
    s.tableaus[q].provisions = 4
    s.apply(A("SHIP_TO", dest))
    assert s.tableaus[q].provisions == 0


def test_player_copy_sets_every_slot_and_shares_nothing_changeable() -> None:
    """`Player.copy` is written attribute by attribute: one left out is caught here.
    It shares every collection, so each is a tuple or the slots' dict, which play replaces
    (`tests/test_copies.py` plays copies and checks their originals)."""
    from meeple.games.karvi.rules import Player

    state = meeple.make("karvi", players=3, seed=4)
    rng = random.Random(4)
    for _ in range(120):
        if state.is_over():
            break
        state.apply(rng.choice(state.legal_actions()))
    for pl in state.tableaus:
        twin = pl.copy()
        # a compiled Player lists its attributes in __mypyc_attrs__ instead of __slots__
        for k in getattr(Player, "__mypyc_attrs__", None) or Player.__slots__:
            a, b = getattr(pl, k), getattr(twin, k)  # AttributeError: a slot left out
            assert a == b
            assert isinstance(a, (int, tuple)) or k == "slots", k
        assert all(type(st) is tuple for st in (*pl.rune_spots, *pl.slots.values()))


def test_legal_actions_are_ascending_and_distinct_even_when_a_rule_repeats_one():
    """The contract: legal actions ascending, each once. Karvi's rules build them by concatenation
    (cards in hand, gold, abilities, ...) and sort once; a repeat must still go. (A subclass, not
    a patched method: a compiled class takes no new attributes.)"""

    class Repeating(KarviState):
        def _main_actions(self) -> list[int]:
            return [9, 3, 9, 1, 3]

        def _task_actions(self, t: tuple) -> list[int]:
            return [9, 3, 9, 1, 3]

    s = Repeating(2, 4, meeple.game_info("karvi").resolve_options(2, {}))
    assert s.legal_actions() == [1, 3, 9]
