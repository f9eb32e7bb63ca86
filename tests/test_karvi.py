"""Karvi: the reconstructed components, the rules by rulebook section, and every worked example.

Section names refer to the rulebook text /work/shared/rules/002 (the English Hans im Glück rules).
"""

from __future__ import annotations

from meeple.games.karvi import components as C

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
