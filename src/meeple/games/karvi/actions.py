"""Karvi's action space (fixed ranges of ints, one range per family), its JSON form and the
labels of the choices in words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from meeple.core.text import plural, whose

from . import components as C
from . import words as Wd
from .map import distances

if TYPE_CHECKING:
    from .rules import KarviState

MAX_SPOTS: Final = 26  # 20 action spots + 6 stop positions
MAX_NODES: Final = 32
MAX_DICE: Final = 8
_sizes = [
    ("END", 1), ("MOVE_DIE", MAX_SPOTS), ("SHIP_TO", MAX_NODES), ("DISPLACE_TO", MAX_NODES),
    ("SCOUT", 1), ("BUILD", 1), ("TAKE_TILE", C.NUM_TR * 2), ("PLAY_CARD", 45), ("DISCARD", 45),
    ("BOX", 4), ("GOLD_FUR", 1), ("GOLD_SILVER", 1), ("GOLD_PROV", 1), ("GOLD_BEER", MAX_DICE),
    ("RES_FUR", 1), ("RES_SILVER", 1), ("DIE", MAX_DICE), ("WARRIOR", 12), ("DRAW_STACK", 3),
    ("PLACE_TILE", C.NUM_PLACEABLE), ("RUNE_SPOT", len(C.RUNE_SPOTS)), ("ACTIVATE", C.NUM_TR * 2),
    ("FRANCIA", 1), ("TRADE_CARD", 36), ("PART", 2), ("ABILITY", 3), ("KEEP", 45),
    ("START_CARD", 5), ("SPECIAL", 8), ("SPOT", MAX_SPOTS), ("PICK", C.NUM_PLACEABLE),
]
BASE: Final[dict[str, int]] = {}
_n = 0
for _name, _size in _sizes:
    BASE[_name] = _n
    _n += _size
NUM_ACTIONS: Final = _n
SIZE: Final = dict(_sizes)
END: Final = BASE["END"]
# Each family's first action id as a constant of its own: a compiled build reads a `Final` int
# natively, where ``BASE[name]`` is a dict look-up by string at every use.
A_ABILITY: Final[int] = BASE["ABILITY"]
A_ACTIVATE: Final[int] = BASE["ACTIVATE"]
A_BOX: Final[int] = BASE["BOX"]
A_BUILD: Final[int] = BASE["BUILD"]
A_DIE: Final[int] = BASE["DIE"]
A_DISCARD: Final[int] = BASE["DISCARD"]
A_DISPLACE_TO: Final[int] = BASE["DISPLACE_TO"]
A_DRAW_STACK: Final[int] = BASE["DRAW_STACK"]
A_FRANCIA: Final[int] = BASE["FRANCIA"]
A_GOLD_BEER: Final[int] = BASE["GOLD_BEER"]
A_GOLD_FUR: Final[int] = BASE["GOLD_FUR"]
A_GOLD_PROV: Final[int] = BASE["GOLD_PROV"]
A_GOLD_SILVER: Final[int] = BASE["GOLD_SILVER"]
A_KEEP: Final[int] = BASE["KEEP"]
A_MOVE_DIE: Final[int] = BASE["MOVE_DIE"]
A_PART: Final[int] = BASE["PART"]
A_PICK: Final[int] = BASE["PICK"]
A_PLACE_TILE: Final[int] = BASE["PLACE_TILE"]
A_PLAY_CARD: Final[int] = BASE["PLAY_CARD"]
A_RES_FUR: Final[int] = BASE["RES_FUR"]
A_RES_SILVER: Final[int] = BASE["RES_SILVER"]
A_RUNE_SPOT: Final[int] = BASE["RUNE_SPOT"]
A_SCOUT: Final[int] = BASE["SCOUT"]
A_SHIP_TO: Final[int] = BASE["SHIP_TO"]
A_SPECIAL: Final[int] = BASE["SPECIAL"]
A_SPOT: Final[int] = BASE["SPOT"]
A_START_CARD: Final[int] = BASE["START_CARD"]
A_TAKE_TILE: Final[int] = BASE["TAKE_TILE"]
A_TRADE_CARD: Final[int] = BASE["TRADE_CARD"]
A_WARRIOR: Final[int] = BASE["WARRIOR"]
NUM_UT: Final[int] = C.NUM_UT  # a rune stone's PLACE_TILE and PICK ids come after the tiles'
ABILITIES: Final = ("sail_any", "sail_two", "die_minus_two")


def _family(action: int) -> tuple[str, int]:
    for name, _size in reversed(_sizes):
        if action >= BASE[name]:
            return name, action - BASE[name]
    raise ValueError(action)


# Each action's family and its number within it.
FAMILY: Final[list[tuple[str, int]]] = [_family(a) for a in range(NUM_ACTIONS)]


def action_to_json(action: int) -> dict[str, Any]:
    fam, x = FAMILY[action]
    if SIZE[fam] == 1:
        return {"a": fam.lower()}
    return {"a": fam.lower(), "x": x}


# END in each decision: what not choosing means.
SKIP: Final[dict[str, str]] = {
    "res": "take no more fur or silver", "beer": "add no more beer", "strength": "strengthen no more",
    "heal": "heal no more", "place_warrior": "take no new warrior", "double": "double no warrior",
    "flip_for": "injure no more warriors", "sacrifice": "sacrifice no warrior",
    "trade_card": "take no trade card", "upcard": "draw no more upgrade cards",
    "upgrade_action": "end the upgrade action", "special_spot": "discard the special rune stone",
    "trade_action": "end the trade action", "raid_action": "end the raid action",
    "parts": "take nothing more from this spot", "move": "stay where you are",
    "paid_move": "stay where you are", "join": "join no ship", "location": "neither scout nor build",
    "die_back": "move no die back", "reuse": "use no spot again", "any_spot": "use no spot",
    "prov_pts": "pay no more provisions",
}
ABILITY_WORDS: Final[dict[str, str]] = {
    "sail_any": "sail to any place for 2 provisions (sail tile)",
    "sail_two": "sail up to 2 spaces for 1 provision (sail tile)",
    "die_minus_two": "take 2 beer from a die for a trade or raid action (sail tile)",
}


def spot_place(s: KarviState, spot: int) -> str:
    """An action spot by what it gives: 'the "2 fur" spot', or the stop area's place."""
    if spot >= s.track_size:
        return f"the stop area ({Wd.spot_words(s._spot(spot))})"
    return Wd.spot_name(s.spots[spot])


def die_words(s: KarviState, d: int, q: int) -> str:
    owner = d // s.dice_each
    where = "in the stop area" if s.die_pos[d] >= s.track_size else "on the track"
    return f"{whose(owner, q)} die with {s.die_beer[d]} beer {where}"


def describe(s: KarviState, action: int) -> str:
    """The choice in words, in the context of the decision being made (`tasks.TASKS`)."""
    fam, x = FAMILY[action]
    kind = s.tasks[-1][0] if s.tasks else "main"
    t = s.tasks[-1] if s.tasks else ("main",)
    q = s.to_move if s.to_move is not None else 0
    if fam == "END":
        if kind == "main":
            return "end your turn" if s.moved else "leave this die in the stop area for the round"
        return SKIP.get(kind, "skip")
    if fam == "MOVE_DIE":
        beer = s.die_beer[s.cur_die]
        cost = s._move_cost(q, x)
        onto = "onto the die on" if s._stacks_onto(x) else "to"
        return f"move your die ({beer} beer) {onto} {spot_place(s, x)}, " + (f"paying {cost} beer" if cost else "free")
    if fam in ("SHIP_TO", "DISPLACE_TO"):
        where = s.nodes[x]
        if fam == "DISPLACE_TO":
            return f"send the displaced ship to {where}"
        pl = s.tableaus[q]
        if kind == "main" and x == pl.ship:
            return f"stay in {where} and use the place"
        if kind == "main":
            return f"sail to {where} ({plural(distances(s, q, pl.ship, pl.provisions).get(x, 0), 'provision')})"
        if kind == "join":
            return f"join the ship in {where}"
        return f"sail to {where}"
    if fam == "SCOUT":
        return f"scout in {s.nodes[t[1]]}: take a tile from its stack" if kind == "location" else "scout"
    if fam == "BUILD":
        if kind == "location":
            site = s.side["spots"][t[1]]["site"]
            b = "trading post" if site["building"] == "post" else site["building"]
            return f"build a {b} in {s.nodes[t[1]]}"
        return "build"
    if fam == "TAKE_TILE":
        return f"take the {Wd.tr_tile_words(x)}"
    if fam == "ACTIVATE":
        return f"use the {Wd.tr_tile_words(x)}"
    if fam == "PLAY_CARD":
        return f"play the {Wd.card_words(x)}"
    if fam == "DISCARD":
        if kind == "discard2":
            return f"discard the {Wd.card_words(x)} as the second card"
        return f"discard the {Wd.card_words(x)} (two cards give 1 gold)"
    if fam == "KEEP":
        return f"keep the {Wd.card_words(x)}"
    if fam == "BOX":
        return Wd.steps_words(t[1][x]) if kind == "boxes" else f"box {x + 1}"
    if fam == "GOLD_FUR":
        return "change 1 gold into 1 fur"
    if fam == "GOLD_SILVER":
        return "change 1 gold into 1 silver"
    if fam == "GOLD_PROV":
        return "change 1 gold into 1 provision"
    if fam == "GOLD_BEER":
        return f"change 1 gold into +1 beer on {die_words(s, x, q)}"
    if fam in ("RES_FUR", "RES_SILVER"):
        good = "fur" if fam == "RES_FUR" else "silver"
        return f"pay 1 {good}" if kind == "pay_res" else f"take 1 {good}"
    if fam == "DIE":
        die = die_words(s, x, q)
        return {
            "beer": f"+1 beer on {die}", "set_die": f"set {die} to {t[1] if len(t) > 1 else ''} beer",
            "copy_die": f"give {die} another die's beer", "copy_from": f"copy the beer of {die}",
            "die_back": f"move {die} back", "pay_die": f"pay with {die}",
            "minus_two": f"take 2 beer from {die}",
        }.get(kind, f"choose {die}")
    if fam == "WARRIOR":
        w = Wd.warrior_words(x)
        return {
            "strength": f"strengthen your {w}", "heal": f"heal your {w}",
            "place_warrior": f"send away your {w} to make room", "damage": f"wound your {w}",
            "double": f"double your {w}", "flip_for": f"injure your {w}", "sacrifice": f"sacrifice your {w}",
        }.get(kind, f"choose your {w}")
    if fam == "DRAW_STACK":
        return f"draw a {C.CARD_TYPES[x]} card"
    if fam == "PLACE_TILE":
        if kind == "free_rune":
            return f"place the {Wd.placeable_words(x)} on your first rune spot, free"
        if x < NUM_UT:
            slot = C.UPGRADE_TILES[x]["slot"]
            return f"place the {Wd.placeable_words(x)} for {Wd.cost_words(C.SLOT_COST[slot])}"
        return f"place the {Wd.placeable_words(x)}"
    if fam == "PICK":
        return f"keep the {Wd.placeable_words(x)}"
    if fam == "RUNE_SPOT":
        spot = C.RUNE_SPOTS[x]
        if kind == "special_spot":
            return f"put it on rune spot {x + 1}"
        return f"put it on rune spot {x + 1} (pay {Wd.cost_words(spot['cost'])}, {plural(spot['points'], 'point')})"
    if fam == "FRANCIA":
        fr = C.TRADE_TRACK[5]["francia"]
        return f"trade in Francia: pay {fr['pay_res']} fur and/or silver for {fr['points']} points"
    if fam == "TRADE_CARD":
        return f"take {Wd.trade_card_words(x)}"
    if fam == "PART":
        if kind == "parts":
            return Wd.steps_words(t[1][x])
        if kind == "locked":
            return Wd.steps_words(t[1][x])
        if kind == "hook_order":
            return "take the tile's bonus first" if x == 0 else "take the tile's bonus after the action"
        if kind == "choice2":
            return "the trade action" if x == 0 else "the raid action"
        if kind == "prov_pts":
            return f"pay 1 provision for {plural(t[1], 'point')}"
        return f"option {x + 1}"
    if fam == "ABILITY":
        return ABILITY_WORDS[ABILITIES[x]]
    if fam == "START_CARD":
        return f"take start card {C.START_CARDS[x]['value']}"
    if fam == "SPECIAL":
        return f"take the {Wd.special_words(x)}"
    if fam == "SPOT":
        verb = "use again" if kind == "reuse" else "use"
        return f"{verb} {spot_place(s, x)}"
    return fam.lower().replace("_", " ")  # (every family is named above)
