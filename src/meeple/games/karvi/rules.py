"""Karvi (Torgeir Tjong, Hans im Glück 2023): dice on an action track, a sea map, trade and raid.

Rulebook: shared/rules/002. Section names in comments refer to it. Rulings and the reconstructed
edition: docs/games/karvi.md. Components: the JSON files read by `components.py`.

A turn is a chain of atomic decisions by one player: free actions, the die move, the choices of
the action, more free actions, then END. The rules keep a stack of pending *tasks*; the task on
top says which decision comes next and `legal_actions` lists exactly its legal options. Effects
(cards, tiles, spots) are short step lists in data; `_run` executes steps until one needs a choice.
All chance is in the setup (deck orders, stacks, deals), drawn from `derive(seed, salt, ...)`.

The state is ints, tuples and read-only dicts of tuples, which play replaces and never changes
in place, so that a copy shares them and copies only its players' fields and the task list
(search copies states all the time). mypy (`Mapping`, `tuple`) holds the rules to it.
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Mapping
from typing import Any, Final, TypeVar

from meeple.core import State
from meeple.core.game import mypyc_attr
from meeple.core.rng import derive, shuffle, shuffler
from meeple.core.text import capital, does, plural, whose, winners
from meeple.core.text import name as name_of

from . import components as C
from . import words as Wd

# ----- the action space: fixed ranges of ints -------------------------------------------------
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
_A_ABILITY: Final[int] = BASE["ABILITY"]
_A_ACTIVATE: Final[int] = BASE["ACTIVATE"]
_A_BOX: Final[int] = BASE["BOX"]
_A_BUILD: Final[int] = BASE["BUILD"]
_A_DIE: Final[int] = BASE["DIE"]
_A_DISCARD: Final[int] = BASE["DISCARD"]
_A_DISPLACE_TO: Final[int] = BASE["DISPLACE_TO"]
_A_DRAW_STACK: Final[int] = BASE["DRAW_STACK"]
_A_FRANCIA: Final[int] = BASE["FRANCIA"]
_A_GOLD_BEER: Final[int] = BASE["GOLD_BEER"]
_A_GOLD_FUR: Final[int] = BASE["GOLD_FUR"]
_A_GOLD_PROV: Final[int] = BASE["GOLD_PROV"]
_A_GOLD_SILVER: Final[int] = BASE["GOLD_SILVER"]
_A_KEEP: Final[int] = BASE["KEEP"]
_A_MOVE_DIE: Final[int] = BASE["MOVE_DIE"]
_A_PART: Final[int] = BASE["PART"]
_A_PICK: Final[int] = BASE["PICK"]
_A_PLACE_TILE: Final[int] = BASE["PLACE_TILE"]
_A_PLAY_CARD: Final[int] = BASE["PLAY_CARD"]
_A_RES_FUR: Final[int] = BASE["RES_FUR"]
_A_RES_SILVER: Final[int] = BASE["RES_SILVER"]
_A_RUNE_SPOT: Final[int] = BASE["RUNE_SPOT"]
_A_SCOUT: Final[int] = BASE["SCOUT"]
_A_SHIP_TO: Final[int] = BASE["SHIP_TO"]
_A_SPECIAL: Final[int] = BASE["SPECIAL"]
_A_SPOT: Final[int] = BASE["SPOT"]
_A_START_CARD: Final[int] = BASE["START_CARD"]
_A_TAKE_TILE: Final[int] = BASE["TAKE_TILE"]
_A_TRADE_CARD: Final[int] = BASE["TRADE_CARD"]
_A_WARRIOR: Final[int] = BASE["WARRIOR"]
_NUM_UT: Final[int] = C.NUM_UT  # the same for three numbers of the components module
_MAX_PROVISIONS: Final[int] = C.MAX_PROVISIONS
_STOP_POSITIONS: Final[int] = C.STOP_POSITIONS
ABILITIES: Final = ("sail_any", "sail_two", "die_minus_two")
_NONE_USED: Final[frozenset[str]] = frozenset()  # no ability used yet this turn
_SLOT_NAMES: Final[tuple[str, ...]] = tuple(C.SLOTS)
_NO_RUNES: Final[tuple[tuple[int, ...], ...]] = ((),) * len(C.RUNE_SPOTS)  # one per rune spot
RES: Final = ("fur", "silver", "gold")
# The effect each ability's upgrade tile gives, as `Player.effects` lists it.
_ABILITY_EFFECT: Final[list[dict[str, Any]]] = [{"ability": ab} for ab in ABILITIES]


# The effect language of the data files (docs/games/karvi.md, "Effect language"): step name -> arity.
STEP_OPS: Final[dict[str, int]] = {
    "points": 1, "fur": 1, "silver": 1, "gold": 1, "res": 1, "provisions": 1, "beer": 1,
    "warrior": 1, "strength": 1, "heal": 1, "trade_card": 1, "upgrade_card": 1, "move": 2,
    "action": 1, "pts_per": 3, "unlock": 1, "boost_each": 2, "best_healthy": 2, "double": 1,
    "flip_for": 3, "sacrifice": 1, "set_die": 1, "free_move": 0, "stack_move": 0, "die_back": 2,
    "reuse": 0, "copy_die": 0, "pts_per_beer": 1, "any_spot": 1, "prov_for_points": 2,
    "map_jump": 0, "join": 1,
}
ACTIONS: Final = ("beer", "provisions", "income", "upgrade", "trade", "raid", "locked")
COUNTS: Final = (
    "towers", "posts", "buildings", "trade_tiles", "raid_tiles", "upgrade_tiles", "played_cards",
    "trade_cards", "healthy", "injured", "warriors", "strength", "provisions",
    "tower", "post", "building", "trade_tile", "raid_tile", "provision",
)


def _family(action: int) -> tuple[str, int]:
    for name, _size in reversed(_sizes):
        if action >= BASE[name]:
            return name, action - BASE[name]
    raise ValueError(action)


_FAMILY: Final[list[tuple[str, int]]] = [_family(a) for a in range(NUM_ACTIONS)]


# The state's collections are tuples that play replaces, never changes in place, so that every
# copy shares them (a copy of a 4-player game was about a hundred lists and dicts).
# These build the replacements.
_V = TypeVar("_V")


def _put(values: tuple[_V, ...], i: int, value: _V) -> tuple[_V, ...]:
    """``values`` with ``value`` at ``i``: `meeple.core.replaced` for a tuple."""
    new = list(values)
    new[i] = value
    return tuple(new)


def _added(values: tuple[int, ...], i: int, n: int) -> tuple[int, ...]:
    """``values`` with ``n`` added at ``i``."""
    return _put(values, i, values[i] + n)


_K = TypeVar("_K")


def _with(mapping: Mapping[_K, _V], key: _K, value: _V) -> Mapping[_K, _V]:
    """A new dict: ``mapping`` with ``value`` at ``key``."""
    new = dict(mapping)
    new[key] = value
    return new


def _without(values: tuple[_V, ...], x: _V) -> tuple[_V, ...]:
    """``values`` less its first ``x``; ValueError if there is none (as `list.remove`)."""
    i = values.index(x)
    return values[:i] + values[i + 1 :]


def warrior_class(value: int, injured: bool) -> int:
    """A warrior's class 0..11: value 1..6, healthy (blue) or injured (red)."""
    return (value - 1) * 2 + int(injured)


_LOCKED: Final = [["action", "locked"]]


def _spaces(lane: list[dict[str, Any]], building: str) -> int:
    return sum(1 << i for i, sp in enumerate(lane) if sp.get("building") == building)


# Individual setup 4: the tableau's towers sit on raid spaces 2 and 4, the posts on trade spaces 2 and 4.
_TOWER_SPACES: Final = _spaces(C.RAID_TRACK, "tower")
_POST_SPACES: Final = _spaces(C.TRADE_TRACK, "post")


def _back(req: dict[str, int]) -> str:
    return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(req.items())) or "no requirement"


# What the back of a face-down tile shows: its slot and its blue requirement stripe (Upgrade).
TILE_BACK: Final[list[str]] = [f"{t['slot']}: {_back(t['requirement'])}" for t in C.UPGRADE_TILES]
RUNE_BACK: Final[list[str]] = [f"rune: {_back(r['requirement'])}" for r in C.RUNES]
# What determinization keeps: an upgrade card's back (type, level), and the location tiles of
# each kind (ascending).
_CARD_BACK: Final[list[tuple[str, int]]] = [(c["type"], c["level"]) for c in C.UPGRADE_CARDS]
_TILES_OF_KIND: Final[dict[int, list[int]]] = {}
for _x in range(C.NUM_TR * 2):
    _TILES_OF_KIND.setdefault(C.TILE_KIND[_x], []).append(_x)
# The same backs as ranks (0 = the first back in sorted order), for `_resample_hidden`'s lists.
_CARD_BACK_RANK: Final[list[int]] = [sorted(set(_CARD_BACK)).index(b) for b in _CARD_BACK]
_NUM_CARD_BACKS: Final[int] = len(set(_CARD_BACK))
_TILE_BACK_RANK: Final[list[int]] = [sorted(set(TILE_BACK)).index(b) for b in TILE_BACK]
_RUNE_BACK_RANK: Final[list[int]] = [sorted(set(RUNE_BACK)).index(b) for b in RUNE_BACK]
_NUM_TILE_BACKS: Final[int] = max(len(set(TILE_BACK)), len(set(RUNE_BACK)))
_UT_SLOT: Final[list[str]] = [t["slot"] for t in C.UPGRADE_TILES]
_RUNE_IDS: Final[list[int]] = list(range(len(C.RUNES)))
_NUM_SPECIALS: Final[int] = len(C.SPECIALS)
_PILE_NAMES: Final[tuple[str, ...]] = (*C.SLOTS, "runes")  # resampled in this order
_SAME_KIND: Final[list[list[int]]] = [_TILES_OF_KIND[C.TILE_KIND[x]] for x in range(C.NUM_TR * 2)]


def _stop_tile_key(tile: Any) -> str:
    """Face-down stop-area tiles are resampled in the order of their contents."""
    return json.dumps(tile, sort_keys=True)


def check(players: int, options: dict[str, Any]) -> None:
    """Every option works at every player count (2-4)."""


_Track = tuple[list[dict[str, Any]], list[int], list[bool], list[bool]]


class _Board:
    """What the setup reads off the board for a player count, worked out once per process (issue
    15: it was a sixth of a random game): never changed, so every game and copy of that count
    shares it, and the map distances found by any of them (`KarviState._distances`)."""

    def __init__(self, n: int) -> None:
        self.players = n
        self.side = C.side(n)
        spots = self.side["spots"]
        self.nodes: list[str] = [s["name"] for s in spots]
        self.adj: list[list[int]] = [[] for _ in self.nodes]
        for a, b in self.side["routes"]:
            ia, ib = self.nodes.index(a), self.nodes.index(b)
            self.adj[ia].append(ib)
            self.adj[ib].append(ia)
        self.obstructed = [bool(s.get("obstructed")) for s in spots]
        # `_distances` by (start, limit, map unlocked) as one int (`_distances`): depends on the
        # map alone.
        self.dist_memo: dict[int, dict[int, int]] = {}
        self.stop_tiles = [i for i, t in enumerate(C.STOP_TILES) if n in t["players"]]
        # Location stacks (Setup 2): the locations that share a pair of symbols, and those kinds.
        pairs: dict[tuple[str, ...], list[int]] = {}
        for i, s in enumerate(spots):
            syms = s.get("symbols")
            if not syms:
                continue
            key = tuple(sorted(f"{k}:{v}" for sym in syms for k, v in sym.items()))
            pairs.setdefault(key, []).append(i)
        self.location_pairs: list[tuple[list[int], list[int]]] = [
            (locs, [C.KINDS.index(tuple(k.split(":"))) for k in key])  # type: ignore[arg-type]
            for key, locs in pairs.items()
        ]
        self.sites = [i for i, s in enumerate(spots) if "site" in s]
        self.special_spots = [i for i, s in enumerate(spots) if "special_runes" in s]
        self.tracks: dict[tuple[str, ...], _Track] = {}

    def track(self, order: list[str], sides: dict[str, str]) -> _Track:
        """The action spots for these boards and sides: their beer costs, which are blocked (2
        players) and which hold locked parts only."""
        key = tuple(order) + tuple(sides[b] for b in order)
        found = self.tracks.get(key)
        if found is None:
            spots = C.track_spots(sides, order)
            found = self.tracks[key] = (
                spots,
                [s["cost"] for s in spots],
                [bool(self.players == 2 and s.get("three_plus")) for s in spots],
                [all(p == _LOCKED for p in s["parts"]) for s in spots],
            )
        return found


_BOARDS: Final[dict[int, _Board]] = {}
# Static lists the setup shuffles copies of (with `_TILES_OF_KIND` above): upgrade cards by type
# and level, upgrade tiles by slot.
_CARDS_OF: Final[dict[tuple[str, int], list[int]]] = {
    (t, level): [i for i, c in enumerate(C.UPGRADE_CARDS) if c["type"] == t and c["level"] == level]
    for t in C.CARD_TYPES for level in (1, 2)
}
_UT_OF_SLOT: Final[dict[str, list[int]]] = {
    s: [i for i, t in enumerate(C.UPGRADE_TILES) if t["slot"] == s] for s in C.SLOTS
}


def _board(n: int) -> _Board:
    board = _BOARDS.get(n)
    if board is None:
        board = _BOARDS[n] = _Board(n)
    return board


# ``serializable``: compiled, `Player.__new__` then makes a bare object; without it, it runs
# `__init__` (every list and the slots dict, at once thrown away by `copy`).
@mypyc_attr(serializable=True)
class Player:
    """One player's tableau and supply."""

    __slots__ = (
        "res", "prov", "war", "points", "hand", "played", "trade_cards", "trade_track", "raid_track",
        "beside", "kinds", "hidden_ut", "hidden_runes", "slots", "rune_spots", "tower_supply",
        "post_supply", "tower_tab", "post_tab", "tower_left", "post_left", "built", "ship", "map",
        "start", "exception", "displaced", "_fx",
    )

    def __init__(self) -> None:
        # Every collection is a tuple (or a dict of tuples) that play replaces, never changes:
        # copies of a state share them all (see `KarviState._copy`).
        self.res: tuple[int, ...] = (0, 0, 0)  # fur, silver, gold
        self.prov = 0
        self.war: tuple[int, ...] = (0,) * 12  # counts per warrior class
        self.points = 0
        self.hand: tuple[int, ...] = ()  # upgrade card indices 0..44
        self.played: tuple[int, ...] = ()
        self.trade_cards: tuple[int, ...] = ()
        self.trade_track: tuple[int, ...] = ()  # tile ids
        self.raid_track: tuple[int, ...] = ()
        self.beside: tuple[int, ...] = ()  # scouted tiles not yet activated
        self.kinds = 0  # bitmask of the kinds of tile taken (Scouting: 1 of each kind)
        self.hidden_ut: tuple[int, ...] = ()  # upgrade tiles above the tableau
        self.hidden_runes: tuple[int, ...] = ()  # rune stones above the tableau (ids 0..11)
        self.slots: Mapping[str, tuple[int, ...]] = {s: () for s in C.SLOTS}  # stacks, top effective
        self.rune_spots: tuple[tuple[int, ...], ...] = _NO_RUNES  # stone ids, specials 100+
        self.tower_supply = 1
        self.post_supply = 1
        self.tower_tab = 2
        self.post_tab = 2
        # Which track spaces still hold their building (bit i = space i + 1): a building leaves
        # its space for good, so a later tile on that space releases nothing (Trade; Raid).
        self.tower_left = _TOWER_SPACES
        self.post_left = _POST_SPACES
        self.built: tuple[tuple[int, str], ...] = ()  # (node, "tower"/"post")
        self.ship = 0
        self.map = False
        self.start = 0  # start card value
        self.exception = False  # in the obstructed area by a special ability without the map
        self.displaced = False  # displaced onto its spot by someone else since it last moved
        # (slots, effects()): the last answer, kept while ``slots`` is the same dict (replaced
        # whenever a tile is placed): the rules ask it several times a decision.
        self._fx: tuple[Any, ...] = ()

    def copy(self) -> Player:
        """Attribute by attribute: 4-5x faster than a loop over ``__slots__`` with
        type tests, and what a compiled class needs. Every collection is shared: play replaces
        them (`tests/test_karvi.py` checks every slot, `tests/test_copies.py` the sharing)."""
        new = Player.__new__(Player)
        new.res = self.res
        new.prov = self.prov
        new.war = self.war
        new.points = self.points
        new.hand = self.hand
        new.played = self.played
        new.trade_cards = self.trade_cards
        new.trade_track = self.trade_track
        new.raid_track = self.raid_track
        new.beside = self.beside
        new.kinds = self.kinds
        new.hidden_ut = self.hidden_ut
        new.hidden_runes = self.hidden_runes
        new.slots = self.slots
        new.rune_spots = self.rune_spots
        new.tower_supply = self.tower_supply
        new.post_supply = self.post_supply
        new.tower_tab = self.tower_tab
        new.post_tab = self.post_tab
        new.tower_left = self.tower_left
        new.post_left = self.post_left
        new.built = self.built
        new.ship = self.ship
        new.map = self.map
        new.start = self.start
        new.exception = self.exception
        new.displaced = self.displaced
        new._fx = self._fx
        return new

    def place_rune(self, spot: int, code: int) -> None:
        """A rune stone (code 100+ for a special) on rune spot ``spot``."""
        self.rune_spots = _put(self.rune_spots, spot, (*self.rune_spots[spot], code))

    def gain(self, i: int, n: int) -> None:
        """``n`` more (or fewer) of resource ``i`` (0 fur, 1 silver, 2 gold)."""
        self.res = _added(self.res, i, n)

    def enlist(self, c: int, n: int) -> None:
        """``n`` more (or fewer) warriors of class ``c``."""
        self.war = _added(self.war, c, n)

    def shift(self, c: int, to: int) -> None:
        """One warrior of class ``c`` becomes one of class ``to`` (healed, injured, raised)."""
        war = list(self.war)
        war[c] -= 1
        war[to] += 1
        self.war = tuple(war)

    # ----- counts used by requirements, rune stones and scoring ---------------------------------
    def strength(self) -> int:
        """Combat strength: the sum of the warriors' values, either side (Raid: combat strength)."""
        w = self.war
        return (w[0] + w[1] + 2 * (w[2] + w[3]) + 3 * (w[4] + w[5]) + 4 * (w[6] + w[7])
                + 5 * (w[8] + w[9]) + 6 * (w[10] + w[11]))

    def warriors(self) -> int:
        return sum(self.war)

    def count(self, what: str) -> int:
        if what == "towers":
            return sum(1 for _, b in self.built if b == "tower")
        if what == "posts":
            return sum(1 for _, b in self.built if b == "post")
        if what == "buildings":
            return len(self.built)
        if what == "trade_tiles":
            return len(self.trade_track)
        if what == "raid_tiles":
            return len(self.raid_track)
        if what == "upgrade_tiles":
            return sum(len(v) for v in self.slots.values())
        if what == "played_cards":
            return len(self.played)
        if what == "trade_cards":
            return len(self.trade_cards)
        if what == "healthy":
            return sum(self.war[0::2])
        if what == "injured":
            return sum(self.war[1::2])
        if what == "warriors":
            return self.warriors()
        if what == "strength":
            return self.strength()
        if what in ("provisions", "provision"):
            return self.prov
        if what in ("tower", "post", "building"):
            return self.count(what + "s")
        if what in ("trade_tile", "raid_tile"):
            return self.count(what + "s")
        raise ValueError(what)

    def meets(self, req: dict[str, int]) -> bool:
        return all(self.count(k) >= v for k, v in req.items())

    def effects(self) -> list[dict[str, Any]]:
        """The effects of the uncovered upgrade tiles (a covered tile loses its effect). The list
        is kept while ``slots`` stays the same dict (see ``_fx``): never change it."""
        slots = self.slots
        known = self._fx
        if known and known[0] is slots:
            kept: list[dict[str, Any]] = known[1]
            return kept
        out = []
        for name in _SLOT_NAMES:  # (compiled, `Mapping.values()` is a generic call)
            st = slots[name]
            if st:
                out.append(C.UPGRADE_TILES[st[-1]]["effect"])
        self._fx = (slots, out)
        return out

    def can_pay(self, cost: dict[str, int]) -> bool:
        return all(self.res[RES.index(k)] >= v for k, v in cost.items())

    def pay(self, cost: dict[str, int]) -> None:
        for k, v in cost.items():
            self.gain(RES.index(k), -v)


@mypyc_attr(allow_interpreted_subclasses=True)  # see State
class KarviState(State):
    """A game of Karvi. See the module docstring for the representation."""

    # A turn's steps may be taken back up to its start, or to the last step that brought
    # something to light: a card drawn, a stack looked at, the next stop-area tile, piles passed.
    undo_within_turn = True

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        n = players
        board = _board(n)
        self.side = board.side
        self.nodes = board.nodes
        self.adj = board.adj
        self.obstructed = board.obstructed
        # `_distances` by (start, limit, map unlocked): the map never changes, so every game of
        # this player count shares it.
        self._dist_memo = board.dist_memo
        # The setup's chance, from one RNG: only shuffles, but in the Chaos variant, which draws
        # sides from it too. Shuffles only come from `shuffler` (the compiled Twister, where there
        # is one: the very orders `shuffle` gives from `derive(seed, 0, "setup")`); the Chaos
        # variant's from that `random.Random` itself (its own shuffle, the same orders).
        rng = derive(seed, 0, "setup") if options["chaos"] else None
        deal: Any = shuffler(seed, 0, "setup") if rng is None else rng
        # Action boards (Setup 3; More action variety and Chaos variants).
        order = list(C.BOARD_ORDER)
        face = "B" if options["variety"] else "A"
        sides = {b: face for b in order}
        if rng is not None:  # Chaos
            if rng.random() < 0.5:
                order[0], order[4] = order[4], order[0]
            if rng.random() < 0.5:
                order[1], order[3] = order[3], order[1]
            sides = {b: rng.choice("AB") for b in order}
        self.board_order = order
        self.board_sides = sides
        self.spots, self.spot_cost, self.blocked, self.locked_only = board.track(order, sides)
        self.T = len(self.spots)
        self.blocked_shut = [b or lo for b, lo in zip(self.blocked, self.locked_only, strict=True)]
        tiles = board.stop_tiles.copy()
        deal.shuffle(tiles)
        faces = ["B" if options["variety"] else "A"] * len(tiles)
        if rng is not None:  # Chaos: a mixture of sides
            faces = [rng.choice("AB") for _ in tiles]
        self.stop_stack = tuple(C.STOP_TILES[i][f] for i, f in zip(tiles, faces, strict=True))
        self.round = 1
        # (typed: compiled, `d // self.D` and the like are then machine arithmetic, not generic)
        self.rounds: int = C.ROUNDS[n]
        self.D: int = C.DICE[n]
        nd = n * self.D
        self.die_pos: tuple[int, ...] = (0,) * nd
        self.die_beer: tuple[int, ...] = (0,) * nd
        self.die_done: tuple[bool, ...] = (False,) * nd
        self.die_height: tuple[int, ...] = (0,) * nd
        self.removed_this_round = False
        self.p = [Player() for _ in range(n)]
        # Location stacks (Setup 2): kind -> node; 1 tile per player of each kind.
        # The dicts are replaced, never changed, like the tuples (`Mapping`: mypy says if one is).
        stacks: dict[int, tuple[int, ...]] = {}
        for locs, pair_kinds in board.location_pairs:
            kinds = pair_kinds.copy()
            deal.shuffle(kinds)
            for loc, kind in zip(locs, kinds, strict=True):
                pool = _TILES_OF_KIND[kind].copy()
                deal.shuffle(pool)
                stacks[loc] = tuple(sorted(pool[:n]))
        self.stacks: Mapping[int, tuple[int, ...]] = stacks
        self.stack_known: Mapping[int, int] = dict.fromkeys(stacks, 0)
        self.sites: Mapping[int, tuple[int, ...]] = {i: () for i in board.sites}
        specials = list(range(len(C.SPECIALS)))
        deal.shuffle(specials)
        special_stacks: dict[int, tuple[int, ...]] = {}
        for i in board.special_spots:
            special_stacks[i] = tuple(sorted(specials[:n]))
            specials = specials[n:]
        self.special_stacks: Mapping[int, tuple[int, ...]] = special_stacks
        self.special_known: Mapping[int, int] = dict.fromkeys(special_stacks, 0)
        self.discarded_specials: tuple[int, ...] = ()
        # Trade cards (Setup 6): 3 face up.
        deck = list(range(len(C.TRADE_CARDS)))
        deal.shuffle(deck)
        self.trade_deck = tuple(deck[3:])
        self.display = tuple(deck[:3])
        # Upgrade cards: one stack per type, the 1s on top of the 2s (top = index 0).
        decks: list[tuple[int, ...]] = []
        for t in C.CARD_TYPES:
            ones = _CARDS_OF[t, 1].copy()
            twos = _CARDS_OF[t, 2].copy()
            deal.shuffle(ones)
            deal.shuffle(twos)
            decks.append(tuple(ones + twos))
        self.decks: tuple[tuple[int, ...], ...] = tuple(decks)
        # Individual setup 2-3: 3 rune stones, 2 upgrade tiles of each type.
        runes = list(range(len(C.RUNES)))
        deal.shuffle(runes)
        by_slot = {s: _UT_OF_SLOT[s].copy() for s in C.SLOTS}
        for s in C.SLOTS:
            deal.shuffle(by_slot[s])
        self.piles: Mapping[str, tuple[int, ...]] = {}
        self.pile_holder: Mapping[str, int] = {}
        if not options["less_luck"]:
            for q, pl in enumerate(self.p):
                pl.hidden_runes = tuple(sorted(runes[3 * q : 3 * q + 3]))
                pl.hidden_ut = tuple(sorted(x for s in C.SLOTS for x in by_slot[s][2 * q : 2 * q + 2]))
        # Turn state.
        self.cur_die = -1
        self.moved = False
        self.ship_moved = False
        self.used: frozenset[str] = _NONE_USED  # abilities used this turn
        self.free_move = False  # card 19
        self.stack_move = False  # card 30
        self.raid_deaths = 0
        self.tasks: list[tuple[Any, ...]] = []
        self.over = False
        self.to_move: int | None = 0
        # The last legal_actions, kept for `is_legal`, which `apply` asks next (the caller gets a
        # copy of its own to change); `_apply` and `_copy` drop it, the state having changed or
        # being another. (Code that edits a state's attributes by hand between the two, so that
        # a listed action becomes illegal, must drop it too.)
        self._legal: list[int] | None = None
        if options["draft_start"]:
            self.start_pool: tuple[int, ...] = tuple(range(len(C.START_CARDS)))
            self.tasks = [("draft", q) for q in reversed(range(n))]
        else:
            cards = list(range(len(C.START_CARDS)))
            deal.shuffle(cards)
            self.start_pool = ()
            for q in range(n):
                self._take_start(q, cards[q])
            self.tasks.sort(key=lambda t: -t[1])  # draw two: seat 0's start draws come first
            self._place_dice()
        if options["less_luck"]:
            self._deal_piles()
        self._run()

    def _deal_piles(self) -> None:
        """Less luck: each player gets a whole pile (all 8 tiles of a type or all 12 rune stones;
        3 players: one gets runes and sterns; 2 players: runes and sterns / sails and heads), picks
        2 tiles (3 rune stones) from each pile they hold and passes the rest to the left."""
        names = ["runes", *C.SLOTS]
        self.piles = {
            "runes": tuple(range(len(C.RUNES))),
            **{s: tuple(i for i, t in enumerate(C.UPGRADE_TILES) if t["slot"] == s) for s in C.SLOTS},
        }
        holders = {2: [0, 0, 1, 1], 3: [0, 0, 1, 2], 4: [0, 1, 2, 3]}[self.players]
        self.pile_holder = dict(zip(names, holders, strict=True))
        picks: list[tuple[Any, ...]] = []
        for r in range(self.players):
            for q in range(self.players):
                for name, h in zip(names, holders, strict=True):
                    if (h + r) % self.players == q:
                        picks += [("pick", q, name)] * (3 if name == "runes" else 2)
            picks.append(("pass_piles",))
        self.tasks += list(reversed(picks))

    # ----- setup ------------------------------------------------------------------------------
    def _take_start(self, q: int, card: int) -> None:
        """Start cards: take the resources, warriors, upgrade cards and provisions shown."""
        sc = C.START_CARDS[card]
        side = sc["4" if self.players == 4 else "2-3"]
        pl = self.p[q]
        pl.start = sc["value"]
        self.undo_barrier()  # upgrade cards are dealt from the decks
        for k, v in side["resources"].items():
            pl.gain(RES.index(k), v)
        for v in side["warriors"]:
            pl.enlist(warrior_class(v, False), 1)
        if self.options["draw_two"]:  # "whenever you get an upgrade card" (ruling: start cards too)
            self.tasks += [("start_draw", q, C.CARD_TYPES.index(t)) for t in reversed(side["upgrade_cards"])]
        else:
            for t in side["upgrade_cards"]:
                if self.decks[C.CARD_TYPES.index(t)]:
                    pl.hand += (self._draw_upgrade(C.CARD_TYPES.index(t)),)
        pl.prov = min(_MAX_PROVISIONS, side["provisions"])
        self.emit({"start_card": sc["value"], "player": q})

    def _place_dice(self) -> None:
        """Start cards: dice on the stop-area tile by card value, set to the beer shown; then the
        free first rune stone, chosen by each player."""
        order = sorted(range(self.players), key=lambda q: self.p[q].start)
        die_pos, die_beer = list(self.die_pos), list(self.die_beer)
        for rank, q in enumerate(order):
            side = C.START_CARDS[[c["value"] for c in C.START_CARDS].index(self.p[q].start)]
            beer = side["4" if self.players == 4 else "2-3"]["beer"]
            for i, pos in enumerate(C.START_POSITIONS[self.players][rank]):
                d = q * self.D + i
                die_pos[d] = self.T + pos
                die_beer[d] = beer[i]
        self.die_pos, self.die_beer = tuple(die_pos), tuple(die_beer)
        self.tasks = [("free_rune", q) for q in reversed(order)] + self.tasks

    def _pass_piles(self) -> None:
        """Less luck: every pile goes to the player on the left; after the last pass the rest of
        each pile goes back to the box."""
        self.undo_barrier()  # each player now sees the pile passed to them
        if not any(t[0] == "pick" for t in self.tasks):
            self.pile_holder = {}
            self.piles = {}
            return
        self.pile_holder = {k: (h + 1) % self.players for k, h in self.pile_holder.items()}

    # ----- the die order ------------------------------------------------------------------------
    def _next_die(self) -> int:
        """The die furthest back (Overview): dice waiting in the stop area leftmost first, then
        the track from the start; a stacked die on top moves before the one below (card 30)."""
        best, key = -1, 0
        for d in range(len(self.die_pos)):
            if self.die_done[d]:
                continue
            pos = self.die_pos[d]
            # (place, -height) ordered as one int (a height is below 1024): no tuple to make
            k = (pos - 100 if pos >= self.T else pos) * 1024 - self.die_height[d]
            if best < 0 or k < key:
                best, key = d, k
        return best

    def _occupied(self, s: int) -> bool:
        return s in self.die_pos

    def _cost(self, q: int, s: int) -> int:
        """A spot's beer cost for player q: the printed cost, at most 1 with the sail tile."""
        cost = self.spot_cost[s] if s < self.T else 0
        if cost > 1 and any(e.get("cap_cost") for e in self.p[q].effects()):
            cost = 1
        return cost

    def _stack_targets(self, d: int) -> list[int]:
        """Card 30: the spots ahead of die ``d`` with a die to stand on, locked spots only once
        unlocked (ruling 3: the card chooses its spot, so it is no fixed back-move)."""
        pos = self.die_pos[d]
        start = 0 if pos >= self.T else pos + 1
        shut = self.blocked if self._locked_open(d // self.D) else self.blocked_shut
        return [s for s in range(start, self.T) if s != pos and not shut[s] and self._occupied(s)]

    def _die_targets(self, d: int, beer: int | None = None) -> list[int]:
        """Moving dice: clockwise, at least one spot, a free spot the die can pay for (with
        ``beer`` instead of the die's own, if given); a die in the stop area must land outside it
        first."""
        q = d // self.D
        pos = self.die_pos[d]
        if beer is None:
            beer = self.die_beer[d]
        out = []
        if self.stack_move:  # card 30; if no die is ahead any more, the card lapses (ruling)
            onto = self._stack_targets(d)
            if onto:
                return onto
        start = 0 if pos >= self.T else pos + 1
        cap: bool | None = None  # the sail tile's cost cap, looked up only when it matters
        taken = 0  # the spots with a die, as bits: no set to build, no list to scan per spot
        for p in self.die_pos:
            taken |= 1 << p
        costs, free = self.spot_cost, self.free_move
        blocked = self.blocked if self._locked_open(q) else self.blocked_shut
        for s in range(start, self.T):
            if not blocked[s] and not taken >> s & 1:
                cost = costs[s]
                if free or cost <= beer:
                    out.append(s)
                elif min(cost, 1) <= beer:  # affordable at the capped cost, if capped
                    if cap is None:
                        cap = any(e.get("cap_cost") for e in self.p[q].effects())
                    if cap:
                        out.append(s)
        if pos < self.T:
            for k in range(_STOP_POSITIONS):
                if not taken >> (self.T + k) & 1:
                    out.append(self.T + k)
        return out

    def _locked_open(self, q: int) -> bool:
        """Locked action: "Once you've unlocked this improvement with your second trade or raid tile,
        you may use a locked action" (ruling: not before, unless the option opens them)."""
        pl = self.p[q]
        return len(pl.trade_track) >= 2 or len(pl.raid_track) >= 2 or self.options.get("locked_spots_open", False)

    def stop_spots(self) -> list[dict[str, Any]]:
        """The stop-area actions in force: the top tile, or the village's once all are gone."""
        return self.stop_stack[0] if self.stop_stack else C.VILLAGE_STOP

    def _spot(self, s: int) -> dict[str, Any]:
        return self.spots[s] if s < self.T else self.stop_spots()[s - self.T]

    # ----- legal actions ------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        acts = self._task_actions(self.tasks[-1]) if self.tasks else self._main_actions()
        acts.sort()
        prev = -1
        for a in acts:  # a duplicate is rare: look for one before paying for a set
            if a == prev:
                acts = sorted(set(acts))
                break
            prev = a
        self._legal = acts
        return acts.copy()

    def is_legal(self, action: Any) -> bool:  # Any: see State.is_legal
        legal = self._legal
        # An action outside the kept list is tested afresh: tests edit a state by hand between
        # legal_actions and apply to make an action legal.
        return (legal is not None and action in legal) or action in self.legal_actions()

    def _gold(self, pl: Player) -> list[int]:
        if pl.res[2] <= 0:
            return []
        out = [_A_GOLD_FUR, _A_GOLD_SILVER]
        if pl.prov < _MAX_PROVISIONS:
            out.append(_A_GOLD_PROV)
        q = self.p.index(pl)
        out += [_A_GOLD_BEER + d for d in self._own_dice(q) if self.die_beer[d] < 5]
        return out

    def _own_dice(self, q: int) -> range:
        return range(q * self.D, q * self.D + self.D)

    def _main_actions(self) -> list[int]:
        q = self.to_move
        assert q is not None
        pl = self.p[q]
        out: list[int] = []
        if not self.moved:
            targets = self._die_targets(self.cur_die)
            out += [_A_MOVE_DIE + s for s in targets]
            if not targets and not (pl.res[2] and self._die_targets(self.cur_die, min(5, self.die_beer[self.cur_die] + pl.res[2]))):
                # ruling 1: a stop-area die that cannot pay for a spot, even after gold -> beer,
                # sits the round out
                out.append(END)
        else:
            out.append(END)
        if not self.ship_moved:
            ship, prov = pl.ship, pl.prov
            dist = self._distances(q, ship, prov)  # every node in it is at most `prov` away
            # Entering a spot costs 1 provision more per ship there at least as strong (node 0,
            # Kaupanger, has room for all): only such spots can be out of reach.
            extra: dict[int, int] = {}
            mine = -1
            for o in range(self.players):
                there = self.p[o].ship
                if o != q and there and there in dist:
                    if mine < 0:
                        mine = pl.strength()
                    if self.p[o].strength() >= mine:
                        extra[there] = extra.get(there, 0) + 1
            for node, k in dist.items():
                if node == ship:  # "move" 0 spots: a ship displaced there (ruling; option: any)
                    if (pl.displaced or self.options.get("zero_move_any", False)) and self._location_options(q, node):
                        out.append(_A_SHIP_TO + node)
                elif not extra or extra.get(node, 0) + k <= prov:
                    out.append(_A_SHIP_TO + node)
        for c in pl.hand:  # a card held twice gives one action (legal_actions drops duplicates)
            if self._card_playable(q, c):
                out.append(_A_PLAY_CARD + c)
        if len(pl.hand) >= 2:
            out += [_A_DISCARD + c for c in pl.hand]
        out += self._gold(pl)
        effects = pl.effects()
        for i in range(len(ABILITIES) if effects else 0):  # (no tile, no ability: most turns)
            ab = ABILITIES[i]
            if ab in self.used or _ABILITY_EFFECT[i] not in effects:
                continue
            if ab == "sail_any" and pl.prov >= 2 or ab == "sail_two" and pl.prov >= 1:
                out.append(_A_ABILITY + i)
            if ab == "die_minus_two" and any(self.die_beer[d] >= 2 for d in self._own_dice(q)):
                out.append(_A_ABILITY + i)
        return out

    def _card_playable(self, q: int, c: int) -> bool:
        card = C.UPGRADE_CARDS[c]
        if not self.p[q].can_pay(card["cost"]):
            return False
        first = card["boxes"][0][0][0]
        if first in ("free_move", "stack_move"):
            if self.moved or self.free_move or self.stack_move:
                return False
            if first == "stack_move":  # needs a die ahead on the track to stand on
                return bool(self._stack_targets(self.cur_die))
        return True

    def _task_actions(self, t: tuple[Any, ...]) -> list[int]:
        kind: str = t[0]  # typed: a compiled build compares it as a str, not generically
        q = self.to_move
        assert q is not None
        pl = self.p[q]
        if kind == "draft":
            return [_A_START_CARD + c for c in self.start_pool]
        if kind == "free_rune":
            return [_A_PLACE_TILE + _NUM_UT + r for r in pl.hidden_runes]
        if kind == "pick":
            off = _NUM_UT if t[2] == "runes" else 0
            return [_A_PICK + off + x for x in self.piles[t[2]]]
        if kind == "res":
            return [_A_RES_FUR, _A_RES_SILVER, END]
        if kind == "pay_res":
            return [_A_RES_FUR, _A_RES_SILVER]
        if kind == "beer":
            dice = [_A_DIE + d for d in self._own_dice(q) if self.die_beer[d] < 5]
            return [*dice, END]
        if kind == "strength":
            return [*self._raisable(pl), END]
        if kind == "heal":
            return [_A_WARRIOR + c for c in range(1, 12, 2) if pl.war[c]] + [END]
        if kind == "place_warrior":
            return [_A_WARRIOR + c for c in range(12) if pl.war[c]] + [END]
        if kind == "damage":
            return [_A_WARRIOR + c for c in range(12) if pl.war[c]]
        if kind in ("double", "flip_for", "sacrifice"):
            return [_A_WARRIOR + c for c in range(0, 12, 2) if pl.war[c]] + [END]
        if kind == "trade_card":  # nothing left: empty-handed, no decision
            return [_A_TRADE_CARD + c for c in self.display] + [END] if self.display else []
        if kind == "upcard":
            draws = [_A_DRAW_STACK + i for i, dk in enumerate(self.decks) if dk]
            return [*draws, END] if draws else []
        if kind == "keep":
            return [_A_KEEP + c for c in pl.hand[-2:]]
        if kind == "upgrade_action":
            out = [_A_DRAW_STACK + i for i, dk in enumerate(self.decks) if dk] + [END]
            for u in pl.hidden_ut:
                tile = C.UPGRADE_TILES[u]
                if pl.meets(tile["requirement"]) and pl.can_pay(C.SLOT_COST[tile["slot"]]):
                    out.append(_A_PLACE_TILE + u)
            for r in pl.hidden_runes:
                if pl.meets(C.RUNES[r]["requirement"]) and any(
                    pl.can_pay(s["cost"]) for s in C.RUNE_SPOTS
                ):
                    out.append(_A_PLACE_TILE + _NUM_UT + r)
            return out + self._gold(pl)
        if kind == "rune_spot":
            return [_A_RUNE_SPOT + k for k, s in enumerate(C.RUNE_SPOTS) if pl.can_pay(s["cost"])]
        if kind == "special_spot":  # a free spot; only when none is free, cover one (or discard)
            free = [k for k, st in enumerate(pl.rune_spots) if not st]
            return [_A_RUNE_SPOT + k for k in (free or range(len(C.RUNE_SPOTS)))] + [END]
        if kind == "special_choose":
            return [_A_SPECIAL + s for s in self.special_stacks[t[1]]]
        if kind == "trade_action":  # t[1]: bonus after an activation; t[2]: bonus taken, must trade
            acts = self._activations(pl, "trade")
            return ([] if len(t) > 2 and t[2] and acts else [END]) + acts + self._gold(pl)
        if kind == "raid_action":
            acts = self._activations(pl, "raid")
            return ([] if len(t) > 2 and t[2] and acts else [END]) + acts
        if kind == "hook_order":
            return [_A_PART, _A_PART + 1]
        if kind == "parts":
            _, parts, join, done = t
            opened = self._locked_open(q)
            return [END] + [_A_PART + k for k in range(len(parts))
                            if not done >> k & 1 and (opened or parts[k] != _LOCKED)]
        if kind == "boxes":
            return [_A_BOX + k for k in range(len(t[1]))]
        if kind == "locked":
            return [_A_PART + k for k in range(len(t[1]))]
        if kind == "choice2":
            return [_A_PART, _A_PART + 1]
        if kind == "move":
            _, steps, mode = t
            mode = "card" if mode == "normal" else mode
            out = [END]
            for node in self._distances(q, pl.ship, steps):
                if node == pl.ship:
                    continue
                if mode == "card" and self._arrival_cost(q, node, mode) > pl.prov:
                    continue
                out.append(_A_SHIP_TO + node)
            return out
        if kind == "paid_move":
            steps = t[1]  # the provisions were paid when the sail ability was used
            return [END] + [
                _A_SHIP_TO + node
                for node in self._distances(q, pl.ship, steps)
                if node != pl.ship and self._arrival_cost(q, node, "normal") <= pl.prov
            ]
        if kind == "map_jump":
            return [_A_SHIP_TO + i for i, s in enumerate(self.side["spots"]) if s["kind"] == "map"]
        if kind == "join":
            others = {self.p[o].ship for o in range(self.players) if o != q}
            return [_A_SHIP_TO + node for node in sorted(others) if node != pl.ship] + [END]
        if kind == "displace":
            return [_A_DISPLACE_TO + node for node in self._displace_targets(t[1], t[2])]
        if kind == "location":
            opts = self._location_options(q, t[1])
            return [_A_SCOUT] * ("scout" in opts) + [_A_BUILD] * ("build" in opts) + [END]
        if kind == "scout":
            return [_A_TAKE_TILE + x for x in self.stacks[t[1]]]
        if kind == "discard2":  # the first card chosen waits at the end of the hand
            return [_A_DISCARD + c for c in pl.hand[:-1]]
        if kind == "set_die":
            return [_A_DIE + d for d in self._own_dice(q)]
        if kind == "copy_die":
            return [_A_DIE + d for d in self._own_dice(q)]
        if kind == "copy_from":
            return [_A_DIE + d for d in range(len(self.die_pos)) if d != t[1]]
        if kind == "die_back":
            return [_A_DIE + d for d in self._own_dice(q) if self._back_target(d, t[1], t[2]) is not None] + [END]
        if kind == "reuse":
            return [_A_SPOT + self.die_pos[d] for d in self._own_dice(q)] + [END]
        if kind == "any_spot":
            pay = t[1]
            best = max(self.die_beer[d] for d in self._own_dice(q))
            opened = self._locked_open(q)
            return [
                _A_SPOT + s
                for s in range(self.T + C.STOP_POSITIONS)
                if not self._occupied(s) and not (s < self.T and (self.blocked[s] or self.locked_only[s] and not opened))
                and (not pay or self._cost(q, s) <= best)
            ] + [END]
        if kind == "pay_die":
            return [_A_DIE + d for d in self._own_dice(q) if self.die_beer[d] >= t[1]]
        if kind == "minus_two":
            return [_A_DIE + d for d in self._own_dice(q) if self.die_beer[d] >= 2]
        if kind == "prov_pts":
            return [_A_PART, END] if pl.prov > 0 and t[2] > 0 else [END]
        raise AssertionError(f"unknown task {t!r}")

    def _activations(self, pl: Player, name: str) -> list[int]:
        """The tiles (and Francia) a trade- or raid-action can activate now."""
        out = []
        if name == "trade":
            for tile in pl.beside:
                if tile < C.NUM_TR and pl.can_pay(C.TR_TILES[tile]["cost"]):
                    out.append(_A_ACTIVATE + tile)
            if len(pl.trade_track) >= 6 and pl.res[0] + pl.res[1] >= C.TRADE_TRACK[5]["francia"]["pay_res"]:
                out.append(_A_FRANCIA)
        else:
            strength = pl.strength()
            for tile in pl.beside:
                if tile >= C.NUM_TR and C.TR_TILES[tile]["strength"] <= strength:
                    out.append(_A_ACTIVATE + tile)
            if len(pl.raid_track) >= 6 and strength >= C.RAID_TRACK[5]["francia"]["strength"]:
                out.append(_A_FRANCIA)
        return out

    def _raisable(self, pl: Player) -> list[int]:
        """Increase combat strength: a warrior below 6 whose next value is still in the supply."""
        out = []
        for c in range(12):
            v = c // 2 + 1
            if pl.war[c] and v < 6 and self._supply(v + 1) > 0:
                out.append(_A_WARRIOR + c)
        return out

    def _supply(self, v: int) -> int:
        used = sum(pl.war[(v - 1) * 2] + pl.war[(v - 1) * 2 + 1] for pl in self.p)
        return C.WARRIOR_SUPPLY - used

    # ----- the map ------------------------------------------------------------------------------
    def _distances(self, q: int, start: int, limit: int) -> dict[int, int]:
        """Nodes reachable in at most ``limit`` steps, with their distance. Without the map, a
        ship may not enter the obstructed spots; one already inside (special ability) may move
        within and out of the area, not back in (Obstructed spots, special case). The dict is
        shared (memoized): callers read it only."""
        unlocked = self._has_map(q)
        if not 0 <= limit < 1 << 20:  # pragma: no cover - no rule moves a ship that far
            return self._search(start, limit, unlocked)
        # (start, limit, unlocked) as one int: no tuple to make and hash each time
        key = start << 21 | limit << 1 | (1 if unlocked else 0)
        dist = self._dist_memo.get(key)
        if dist is None:
            dist = self._dist_memo[key] = self._search(start, limit, unlocked)
        return dist

    def _search(self, start: int, limit: int, unlocked: bool) -> dict[int, int]:
        """`_distances`' breadth-first search."""
        inside = self.obstructed[start]
        dist: dict[int, int] = {start: 0}
        seen = {(start, inside)}
        frontier = deque([(start, inside, 0)])
        while frontier:
            node, ins, k = frontier.popleft()
            if k >= limit:
                continue
            for nb in self.adj[node]:
                if self.obstructed[nb] and not unlocked and not ins:
                    continue
                state = (nb, ins and self.obstructed[nb])
                if state in seen:
                    continue
                seen.add(state)
                if nb not in dist:
                    dist[nb] = k + 1
                frontier.append((nb, state[1], k + 1))
        return dist

    def _has_map(self, q: int) -> bool:
        pl = self.p[q]
        return pl.map or any(e.get("map") for e in pl.effects())

    def _ships_at(self, node: int, but: int) -> list[int]:
        return [o for o in range(self.players) if o != but and self.p[o].ship == node]

    def _arrival_cost(self, q: int, node: int, mode: str) -> int:
        """Occupied spot: displacing costs 1 provision per ship at least as strong (mode normal).
        A ship card's move (mode card) pays "if you displace someone else when you have less combat
        strength than them" only (ruling; the option makes an equal ship cost too)."""
        if node == 0 or mode not in ("normal", "card"):
            return 0
        mine = self.p[q].strength()
        if mode == "card" and not self.options.get("card_move_equal_pays", False):
            mine += 1
        return sum(1 for o in self._ships_at(node, q) if self.p[o].strength() >= mine)

    def _displace_targets(self, victim: int, node: int) -> list[int]:
        """Displacing: a free adjacent spot (obstructed only if that player has the map), else a
        spot 2 away (special case); Kaupanger always has room."""
        ok = self._has_map(victim)

        def free(x: int) -> bool:
            if self.obstructed[x] and not ok:
                return False
            return x == 0 or not any(self.p[o].ship == x for o in range(self.players))

        near = [x for x in self.adj[node] if free(x)]
        if near:
            return sorted(near)
        far = {y for x in self.adj[node] for y in self.adj[x] if y != node and free(y)}
        return sorted(far) or [0]

    def _location_options(self, q: int, node: int) -> list[str]:
        """End movement: scout a stack whose kind you lack, or build the building shown."""
        pl = self.p[q]
        out = []
        stack = self.stacks.get(node)
        if stack and not pl.kinds >> C.TILE_KIND[stack[0]] & 1:
            out.append("scout")
        if node in self.sites:
            site = self.side["spots"][node]["site"]
            supply = pl.tower_supply if site["building"] == "tower" else pl.post_supply
            if supply > 0 and q not in self.sites[node] and len(self.sites[node]) < len(site["points"]):
                out.append("build")
        return out

    def _back_target(self, d: int, k: int, pay: bool) -> int | None:
        """Cards 20, 27-29: a die moves back k free spots (blocked spots not counted), not in or
        into the stop area; a stacked die under another may not move."""
        pos = self.die_pos[d]
        if pos >= self.T or any(
            self.die_pos[e] == pos and self.die_height[e] > self.die_height[d] for e in range(len(self.die_pos))
        ):
            return None
        frees = [s for s in range(pos - 1, -1, -1) if not self.blocked[s] and not self._occupied(s)]
        if len(frees) < k:
            return None
        s = frees[k - 1]
        if pay and self._cost(d // self.D, s) > self.die_beer[d]:
            return None
        return s

    # ----- applying actions ---------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._legal = None
        fam, x = _FAMILY[action]
        q = self.to_move
        assert q is not None
        pl = self.p[q]
        if fam.startswith("GOLD"):
            pl.gain(2, -1)
            if fam == "GOLD_FUR":
                pl.gain(0, 1)
            elif fam == "GOLD_SILVER":
                pl.gain(1, 1)
            elif fam == "GOLD_PROV":
                pl.prov += 1
            else:
                self.die_beer = _added(self.die_beer, x, 1)
            self._run()
            return
        if self.tasks:
            self._apply_task(self.tasks.pop(), fam, x, q, pl)
        else:
            self._apply_main(fam, x, q, pl)
        self._run()

    def _apply_main(self, fam: str, x: int, q: int, pl: Player) -> None:
        if fam == "END":
            if not self.moved:
                self.die_done = _put(self.die_done, self.cur_die, True)  # a stop-area die that cannot move sits out
                self.emit({"player": q, "die": self.cur_die, "sits_out": True})
                self._check_removal()
            self._end_turn()
        elif fam == "MOVE_DIE":
            self._move_die(q, x)
        elif fam == "SHIP_TO":
            self.ship_moved = True
            if x == pl.ship:
                pl.displaced = False
                self.tasks.append(("location", x))  # move 0 spots to use the location
            else:
                pl.prov -= self._distances(q, pl.ship, pl.prov)[x]
                self._sail(q, x, "normal")
        elif fam == "PLAY_CARD":
            card = C.UPGRADE_CARDS[x]
            pl.pay(card["cost"])
            pl.hand = _without(pl.hand, x)
            pl.played += (x,)
            self.emit({"player": q, "plays": card["number"]})
            self._push_boxes(card["boxes"])
        elif fam == "DISCARD":
            # last in hand: by position, so that resampling hidden hands keeps the task valid
            pl.hand = (*_without(pl.hand, x), x)
            self.tasks.append(("discard2",))
        elif fam == "ABILITY":
            ab = ABILITIES[x]
            self.used |= {ab}
            if ab == "sail_any":
                pl.prov -= 2
                self.tasks.append(("paid_move", 99, 2))
            elif ab == "sail_two":
                pl.prov -= 1
                self.tasks.append(("paid_move", 2, 1))
            else:
                self.tasks.append(("minus_two",))

    def _move_cost(self, q: int, s: int) -> int:
        """The beer a die move to ``s`` pays: none with card 19, nor onto a die with card 30
        ("perform the action without paying the beer cost")."""
        if self.free_move or self.stack_move and self._occupied(s):
            return 0
        return self._cost(q, s)

    def _move_die(self, q: int, s: int) -> None:
        d = self.cur_die
        cost = self._move_cost(q, s)
        if self.stack_move and self._occupied(s):
            height = 1 + max(self.die_height[e] for e in range(len(self.die_pos)) if self.die_pos[e] == s)
        else:
            height = 0
        if self.die_height[d] != height:
            self.die_height = _put(self.die_height, d, height)
        if cost:
            self.die_beer = _added(self.die_beer, d, -cost)
        self.die_pos = _put(self.die_pos, d, s)
        self.moved = True
        self.free_move = self.stack_move = False
        if s >= self.T:
            self.die_done = _put(self.die_done, d, True)
        self.emit({"player": q, "die": d, "to": s, "paid": cost})
        self._check_removal()
        self._push_spot(s)

    def _check_removal(self) -> None:
        """End of round: from round 2, once all dice have left the stop area, remove 1 tile."""
        if self.round >= 2 and not self.removed_this_round and not any(
            not self.die_done[e] and self.die_pos[e] >= self.T for e in range(len(self.die_pos))
        ):
            self.removed_this_round = True
            if self.stop_stack:
                self.undo_barrier()  # the tile under it comes to light
                self.stop_stack = self.stop_stack[1:]

    def _push_spot(self, s: int) -> None:
        spot = self._spot(s)
        parts = spot["parts"]
        if len(parts) == 1:
            self._push_steps(parts[0])
        else:
            self.tasks.append(("parts", parts, spot["join"], 0))

    def _push_steps(self, steps: list[Any]) -> None:
        if steps:
            self.tasks.append(("steps", steps, 0))

    def _push_boxes(self, boxes: list[Any]) -> None:
        if len(boxes) == 1:
            self._push_steps(boxes[0])
        else:
            self.tasks.append(("boxes", boxes))

    def _sail(self, q: int, node: int, mode: str) -> None:
        """Ship arrives at ``node``: displace (paying if not stronger), then the location."""
        pl = self.p[q]
        pl.prov -= self._arrival_cost(q, node, mode)
        if pl.exception and not self.obstructed[node]:
            pl.exception = False
        pl.ship = node
        pl.displaced = False
        self.emit({"player": q, "ship": self.nodes[node]})
        self.tasks.append(("location", node))
        if node != 0 and mode in ("normal", "card", "force"):
            for o in reversed(self._ships_at(node, q)):
                self.tasks.append(("displace", o, node))

    def _apply_task(self, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
        kind: str = t[0]  # typed: a compiled build compares it as a str, not generically
        if kind == "draft":
            self.start_pool = _without(self.start_pool, x)
            self._take_start(t[1], x)
            if not any(tt[0] == "draft" for tt in self.tasks):
                self._place_dice()
        elif kind == "pick":
            if x >= _NUM_UT:
                self.piles = _with(self.piles, "runes", _without(self.piles["runes"], x - _NUM_UT))
                pl.hidden_runes = tuple(sorted([*pl.hidden_runes, x - _NUM_UT]))
            else:
                slot = C.UPGRADE_TILES[x]["slot"]
                self.piles = _with(self.piles, slot, _without(self.piles[slot], x))
                pl.hidden_ut = tuple(sorted([*pl.hidden_ut, x]))
        elif kind == "free_rune":
            pl.hidden_runes = _without(pl.hidden_runes, x - _NUM_UT)
            pl.place_rune(0, x - _NUM_UT)
            self.emit({"player": q, "free_rune": x - _NUM_UT})
        elif kind == "res":
            if fam != "END":
                pl.gain(0 if fam == "RES_FUR" else 1, 1)
                if t[1] > 1:
                    self.tasks.append(("res", t[1] - 1))
        elif kind == "beer":
            if fam != "END":
                self.die_beer = _added(self.die_beer, x, 1)
                if t[1] > 1:
                    self.tasks.append(("beer", t[1] - 1))
        elif kind == "strength":
            if fam != "END":
                pl.shift(x, x + 2)  # Increase combat strength: keep the warrior's side
                if t[1] > 1:
                    self.tasks.append(("strength", t[1] - 1))
        elif kind == "heal":
            if fam != "END":
                pl.shift(x, x - 1)
                if t[1] > 1 and any(pl.war[1::2]):
                    self.tasks.append(("heal", t[1] - 1))
        elif kind == "place_warrior":
            if fam != "END":
                pl.enlist(x, -1)
                self._gain_warrior(pl, t[1])
        elif kind == "damage":
            if x % 2 == 0:
                pl.shift(x, x + 1)
            else:
                pl.enlist(x, -1)
                pl.points += x // 2 + 1  # Valhalla: points equal to her strength
                self.raid_deaths += 1
            if t[1] > 1 and pl.warriors():
                self.tasks.append(("damage", t[1] - 1))
        elif kind == "double":
            if fam != "END":
                v = x // 2 + 1
                nv = min(6, 2 * v)
                while nv > v and self._supply(nv) <= 0:
                    nv -= 1
                pl.shift(x, warrior_class(nv, False))
                if t[1] > 1:
                    self.tasks.append(("double", t[1] - 1))
        elif kind == "flip_for":
            if fam != "END":
                _, what, per, cap, got = t
                pl.shift(x, x + 1)
                gain = min(per, cap - got)
                if what == "points":
                    pl.points += gain
                else:
                    pl.gain(2, gain)
                if got + gain < cap:
                    self.tasks.append(("flip_for", what, per, cap, got + gain))
        elif kind == "sacrifice":
            if fam != "END":
                pl.enlist(x, -1)
                pl.points += t[1]
        elif kind == "trade_card":
            if fam != "END":
                self.display = _without(self.display, x)
                pl.trade_cards += (x,)
                bonus = sum(e.get("trade_card_points", 0) for e in pl.effects())
                pl.points += bonus
                self.emit({"player": q, "trade_card": x + 1})
                if t[1] > 1 and self.display:
                    self.tasks.append(("trade_card", t[1] - 1))
                self._push_boxes(C.TRADE_CARDS[x]["boxes"])
        elif kind == "upcard":
            if fam != "END":
                if t[1] > 1:  # the next card waits until this one's draw-two-keep-one is settled
                    self.tasks.append(("upcard", t[1] - 1))
                self._draw(q, x)
        elif kind == "keep":
            a, b = pl.hand[-2:]
            back = b if x == a else a
            pl.hand = _without(pl.hand, back)
            self._put_back(back)
        elif kind == "upgrade_action":
            if fam == "DRAW_STACK":
                self._draw(q, x)
            elif fam == "PLACE_TILE":
                if x < _NUM_UT:
                    tile = C.UPGRADE_TILES[x]
                    slot = tile["slot"]
                    pl.pay(C.SLOT_COST[slot])
                    if not pl.slots[slot]:
                        pl.points += C.SLOT_POINTS[slot]
                    pl.slots = _with(pl.slots, slot, (*pl.slots[slot], x))
                    pl.hidden_ut = _without(pl.hidden_ut, x)
                    self.emit({"player": q, "upgrade_tile": x, "slot": slot})
                else:
                    pl.hidden_runes = _without(pl.hidden_runes, x - _NUM_UT)  # revealed as it is placed
                    self.tasks.append(("rune_spot", x - _NUM_UT))
        elif kind == "rune_spot":
            spot = C.RUNE_SPOTS[x]
            pl.pay(spot["cost"])
            if not pl.rune_spots[x]:
                pl.points += spot["points"]
            pl.place_rune(x, t[1])
            self.emit({"player": q, "rune": t[1], "spot": x})
        elif kind == "special_choose":
            self.special_stacks = _with(self.special_stacks, t[1], _without(self.special_stacks[t[1]], x))
            self.tasks.append(("special_spot", x))
            self._push_steps(C.SPECIALS[x]["bonus"])
            self.emit({"player": q, "special_rune": x})
        elif kind == "special_spot":
            if fam == "END":
                self.discarded_specials += (t[1],)
            else:
                pl.place_rune(x, 100 + t[1])  # specials are coded 100+
        elif kind == "trade_action":
            if fam == "ACTIVATE":
                tile = C.TR_TILES[x]
                pl.pay(tile["cost"])
                pl.beside = _without(pl.beside, x)
                if len(t) > 1:
                    self._push_steps(list(t[1]))  # the upgrade tiles' bonus, after the action
                # Trade: "This gives you the bonus ... Then place the tile ... on the trade track"
                # (ruling; the option follows the example's telling: tile, post, then the bonus).
                if self.options.get("trade_track_first", False):
                    self._push_steps(tile["bonus"])
                    self._track_place(q, "trade", x)
                else:
                    self._push_steps([*tile["bonus"], ["_track", "trade", x]])
            elif fam == "FRANCIA":
                if len(t) > 1:
                    self._push_steps(list(t[1]))  # the upgrade tiles' bonus, after the action
                pl.points += C.TRADE_TRACK[5]["francia"]["points"]
                self.emit({"player": q, "francia": "trade"})
                self._pay_res(pl, C.TRADE_TRACK[5]["francia"]["pay_res"])
        elif kind == "pay_res":
            pl.gain(0 if fam == "RES_FUR" else 1, -1)
            self._pay_res(pl, t[1] - 1)
        elif kind == "raid_action":
            if len(t) > 1 and fam != "END":
                self._push_steps(list(t[1]))  # the upgrade tiles' bonus, after the action
            if fam == "ACTIVATE":
                tile = C.TR_TILES[x]
                pl.beside = _without(pl.beside, x)
                self._raid(q, tile["damage"], tile["bonus"], x)
            elif fam == "FRANCIA":
                f = C.RAID_TRACK[5]["francia"]
                self._raid(q, f["damage"], [["points", f["points"]]], None)
        elif kind == "parts":
            _, parts, join, done = t
            if fam == "PART":
                if join == "+" and (done | 1 << x) != (1 << len(parts)) - 1:
                    self.tasks.append(("parts", parts, join, done | 1 << x))
                self._push_steps(parts[x])
        elif kind == "boxes":
            self._push_steps(t[1][x])
        elif kind == "locked":
            self._push_steps(t[1][x])
        elif kind == "hook_order":
            self._hook_order(q, t[1], t[2], x == 0)
        elif kind == "choice2":
            self._do_action(q, "trade" if x == 0 else "raid")
        elif kind in ("move", "paid_move", "map_jump", "join"):
            if fam == "SHIP_TO":
                if kind in ("map_jump", "join") and self.obstructed[x] and not self._has_map(q):
                    pl.exception = True
                if kind == "move":  # ship cards: pay only with less strength (ruling)
                    mode = "card" if t[2] == "normal" else t[2]
                elif kind == "join":
                    mode = "force" if t[1] else "beside"
                else:  # ruling: a map jump shares a taken map spot; a sail move displaces as usual
                    mode = "beside" if kind == "map_jump" else "normal"
                self._sail(q, x, mode)
        elif kind == "displace":
            self.p[t[1]].ship = x
            self.p[t[1]].displaced = True
            self.emit({"player": t[1], "displaced_to": self.nodes[x]})
        elif kind == "location":
            node = t[1]
            if fam == "SCOUT":
                self.undo_barrier()  # they look at the stack
                self.stack_known = _with(self.stack_known, node, self.stack_known[node] | 1 << q)
                self.tasks.append(("scout", node))
            elif fam == "BUILD":
                self._build(q, node)
        elif kind == "scout":
            self.stacks = _with(self.stacks, t[1], _without(self.stacks[t[1]], x))
            pl.beside += (x,)
            pl.kinds |= 1 << C.TILE_KIND[x]
            self.emit({"player": q, "scouts": x})
        elif kind == "discard2":
            for c in (pl.hand[-1], x):
                pl.hand = _without(pl.hand, c)
                self._put_back(c)
            pl.gain(2, 1)
            self.emit({"player": q, "discards": 2})
        elif kind == "set_die":
            self.die_beer = _put(self.die_beer, x, t[1])
        elif kind == "copy_die":
            self.tasks.append(("copy_from", x))
        elif kind == "copy_from":
            self.die_beer = _put(self.die_beer, t[1], self.die_beer[x])
        elif kind == "die_back":
            if fam == "DIE":
                s = self._back_target(x, t[1], t[2])
                assert s is not None
                if t[2]:
                    self.die_beer = _added(self.die_beer, x, -self._cost(q, s))
                self.die_pos = _put(self.die_pos, x, s)
                self.die_height = _put(self.die_height, x, 0)
                self._push_spot(s)
        elif kind == "reuse":
            if fam == "SPOT":
                self._push_spot(x)
        elif kind == "any_spot":
            if fam == "SPOT":
                if t[1] and self._cost(q, x) > 0:
                    self.tasks.append(("pay_die", self._cost(q, x), x))
                else:
                    self._push_spot(x)
        elif kind == "pay_die":
            self.die_beer = _added(self.die_beer, x, -t[1])
            self._push_spot(t[2])
        elif kind == "minus_two":
            self.die_beer = _added(self.die_beer, x, -2)
            self.tasks.append(("choice2",))
        elif kind == "prov_pts":
            if fam == "PART":
                pl.prov -= 1
                pl.points += t[1]
                self.tasks.append(("prov_pts", t[1], t[2] - 1))
        else:
            raise AssertionError(f"unhandled {t!r}")

    def _pay_res(self, pl: Player, n: int) -> None:
        """Pay n "fur and/or silver" in "a combination of your choice" (Trade in Francia; Basic
        system): one unit at a time while both piles have some, the rest from the only pile left."""
        if n > 0 and pl.res[0] and pl.res[1]:
            self.tasks.append(("pay_res", n))
        elif n > 0:
            pl.gain(0 if pl.res[0] else 1, -n)

    def _gain_warrior(self, pl: Player, v: int) -> None:
        """Take a warrior; (In)finite components: a weaker one if none of that value is left."""
        while v > 0 and self._supply(v) <= 0:
            v -= 1
        if v > 0:
            pl.enlist(warrior_class(v, False), 1)

    def _draw(self, q: int, t: int) -> None:
        """Draw an upgrade card (the draw-two-keep-one variant draws 2 and keeps 1)."""
        pl = self.p[q]
        n = 2 if self.options["draw_two"] and len(self.decks[t]) >= 2 else 1
        self.undo_barrier()  # the card drawn comes to light
        for _ in range(n):
            pl.hand += (self._draw_upgrade(t),)
        self.emit({"player": q, "draws_from": C.CARD_TYPES[t]})
        if n == 2:
            self.tasks.append(("keep",))

    def _draw_upgrade(self, t: int) -> int:
        """The top card of the upgrade deck of type ``t``, taken off it."""
        deck = self.decks[t]
        self.decks = _put(self.decks, t, deck[1:])
        return deck[0]

    def _put_back(self, card: int) -> None:
        """An upgrade card under its deck."""
        t = C.CARD_TYPES.index(C.UPGRADE_CARDS[card]["type"])
        self.decks = _put(self.decks, t, (*self.decks[t], card))

    def _build(self, q: int, node: int) -> None:
        pl = self.p[q]
        site = self.side["spots"][node]["site"]
        b = site["building"]
        pts = site["points"][len(self.sites[node])]
        self.sites = _with(self.sites, node, (*self.sites[node], q))
        if b == "tower":
            pl.tower_supply -= 1
        else:
            pl.post_supply -= 1
        pl.built += ((node, b),)
        pl.points += pts
        self.emit({"player": q, "builds": b, "at": self.nodes[node], "points": pts})
        if node in self.special_stacks and self.special_stacks[node]:
            self.undo_barrier()
            self.special_known = _with(self.special_known, node, self.special_known[node] | 1 << q)  # they look at the whole stack
            self.tasks.append(("special_choose", node))
        if any(e.get("on") == "build" for e in pl.effects()):
            self._push_steps([["strength", 2]] if b == "tower" else [["res", 2]])

    def _track_place(self, q: int, track: str, tile: int) -> None:
        """Trade and raid tracks: the tile goes on the leftmost space; its improvement unlocks."""
        pl = self.p[q]
        if track == "trade":
            pl.trade_track += (tile,)
            i = len(pl.trade_track) - 1
        else:
            pl.raid_track += (tile,)
            i = len(pl.raid_track) - 1
        space = (C.TRADE_TRACK if track == "trade" else C.RAID_TRACK)[i]
        # "If you place the trade tile on a space with a trading post (spaces 2 and 4)": only a
        # building still on that very space is released (card 6/36 may have taken it already).
        if space.get("building") == "post" and pl.post_left >> i & 1:
            self._release(pl, "post", i)
        if space.get("building") == "tower" and pl.tower_left >> i & 1:
            self._release(pl, "tower", i)
        if space.get("map"):
            pl.map = True
        self.emit({"player": q, "track": track, "tile": tile})

    @staticmethod
    def _release(pl: Player, building: str, i: int) -> None:
        """A building leaves track space ``i`` of the tableau for the supply."""
        if building == "tower":
            pl.tower_left &= ~(1 << i)
            pl.tower_tab -= 1
            pl.tower_supply += 1
        else:
            pl.post_left &= ~(1 << i)
            pl.post_tab -= 1
            pl.post_supply += 1

    def _raid(self, q: int, damage: int, bonus: list[Any], tile: int | None) -> None:
        """Raid: suffer the damage, then take the bonus (head tiles: -1 damage, +4 points, double)."""
        pl = self.p[q]
        eff = pl.effects()
        damage = max(0, damage + sum(e.get("raid_damage", 0) for e in eff))
        double = any(e.get("raid_double") for e in eff)
        steps = []
        for step in bonus:
            if step[0] == "points" and double:
                steps.append(["points", step[1] * 2])
            else:
                steps.append(step)
        extra = sum(e.get("raid_points", 0) for e in eff)
        if extra:
            steps.append(["points", extra * (2 if double else 1)])
        if tile is not None:
            steps.append(["_track", "raid", tile])
        if any(e.get("on_death") == "beer" for e in eff):
            steps.insert(0, ["_if_died_beer"])
        self.raid_deaths = 0
        self._push_steps(steps)
        if damage and pl.warriors():
            self.tasks.append(("damage", damage))
        self.emit({"player": q, "raid": tile, "damage": damage})

    def _do_action(self, q: int, name: str) -> None:
        """A dice action by name (Dice actions) with the upgrade tiles' bonuses for it, which "you may
        take before or after performing that action" (Upgrade tiles). Rulings: the player chooses
        the order unless it cannot matter (points only); a trade or raid bonus needs a tile (or
        Francia) activated, so taking it first commits the player to trade or raid."""
        pl = self.p[q]
        hooks = [s for e in pl.effects() if e.get("on") == name for s in e["do"]]
        if not hooks:
            self._push_action(q, name)
            return
        points_only = all(st[0] == "points" for st in hooks)
        if name in ("trade", "raid"):
            if points_only or not self._activations(pl, name):
                self.tasks.append((name + "_action", hooks))  # the bonus after an activation
            else:
                self.tasks.append(("hook_order", name, hooks))
        elif points_only:
            self._push_action(q, name)
            self._push_steps(hooks)
        else:
            self.tasks.append(("hook_order", name, hooks))

    def _hook_order(self, q: int, name: str, hooks: list[Any], first: bool) -> None:
        """Upgrade tiles: the bonus before (``first``) or after the action."""
        if name in ("trade", "raid"):
            if first:
                self.tasks.append((name + "_action", [], True))
                self._push_steps(hooks)
            else:
                self.tasks.append((name + "_action", hooks))
        elif first:
            self._push_action(q, name)
            self._push_steps(hooks)
        else:
            self._push_steps(hooks)
            self._push_action(q, name)

    def _push_action(self, q: int, name: str) -> None:
        pl = self.p[q]
        if name == "beer":
            n = C.START_BEER
            for sp in C.TRADE_TRACK[: len(pl.trade_track)]:
                n = max(n, sp.get("beer", n))
            self.tasks.append(("beer", n))
        elif name == "provisions":
            n = C.START_PROVISIONS
            for sp in C.RAID_TRACK[: len(pl.raid_track)]:
                n = max(n, sp.get("provisions", n))
            self._push_steps([["provisions", n]])
        elif name == "income":
            self._push_steps([["res", 1 + pl.count("posts")], ["strength", 1 + pl.count("towers")]])
        elif name == "upgrade":
            self.tasks.append(("upgrade_action",))
        elif name == "trade":
            self.tasks.append(("trade_action",))
        elif name == "raid":
            self.tasks.append(("raid_action",))
        elif name == "locked":
            opts = [lane[1]["locked"] for lane, mine in ((C.TRADE_TRACK, pl.trade_track), (C.RAID_TRACK, pl.raid_track))
                    if len(mine) >= 2]
            if len(opts) == 1:
                self._push_steps(opts[0])
            elif opts:
                self.tasks.append(("locked", opts))

    # ----- running steps ------------------------------------------------------------------------
    def _run(self) -> None:
        """Execute automatic steps until a decision is needed; then settle whose turn it is."""
        while True:
            while self.tasks and self.tasks[-1][0] == "steps":
                _, steps, i = self.tasks.pop()
                if i + 1 < len(steps):
                    self.tasks.append(("steps", steps, i + 1))
                self._step(steps[i])
            if self.tasks:
                t = self.tasks[-1]
                kind: str = t[0]
                if kind == "pass_piles":
                    self.tasks.pop()
                    self._pass_piles()
                    continue
                if kind == "start_draw":  # draw two, keep one for a start card's upgrade card
                    self.tasks.pop()
                    self.to_move = t[1]
                    deck = self.decks[t[2]]
                    if deck:
                        self._draw(t[1], t[2])
                    continue
                if kind in ("draft", "free_rune", "pick"):
                    self.to_move = t[1]
                acts = self._task_actions(t)
                if not acts or acts == [END]:
                    self.tasks.pop()  # nothing to choose (or only "no"): it passes by itself
                    continue
                return
            if self.cur_die < 0 and not self.over:
                self._begin_turn()
            return

    def _step(self, step: list[Any]) -> None:
        op: str = step[0]  # typed: a compiled build compares it as a str, not generically
        q = self.to_move
        assert q is not None
        pl = self.p[q]
        if op == "points":
            pl.points += step[1]
        elif op in RES:
            pl.gain(RES.index(op), step[1])
        elif op == "res":
            self.tasks.append(("res", step[1]))
        elif op == "provisions":
            pl.prov = min(_MAX_PROVISIONS, pl.prov + step[1])
        elif op == "beer":
            self.tasks.append(("beer", step[1]))
        elif op == "warrior":
            if pl.warriors() < C.WARRIOR_SPACES:
                self._gain_warrior(pl, step[1])
            else:
                self.tasks.append(("place_warrior", step[1]))
        elif op == "strength":
            self.tasks.append(("strength", step[1]))
        elif op == "heal":
            self.tasks.append(("heal", step[1]))
        elif op == "trade_card":
            self.tasks.append(("trade_card", step[1]))
        elif op == "upgrade_card":
            self.tasks.append(("upcard", step[1]))
        elif op == "move":
            self.tasks.append(("move", step[1], step[2]))
        elif op == "action":
            self._do_action(q, step[1])
        elif op == "pts_per":
            _, what, per, cap = step
            pl.points += min(cap, per * pl.count(what))
        elif op == "unlock":  # cards 6 and 36: the building furthest to the left
            left = pl.tower_left if step[1] == "tower" else pl.post_left
            if left:
                self._release(pl, step[1], (left & -left).bit_length() - 1)
        elif op == "boost_each":
            injured = step[1] == "injured"  # cards 10/11: each by up to 2, unsplit; ruling: the most
            todo = [v for v in range(6, 0, -1) for _ in range(pl.war[warrior_class(v, injured)])]
            for v in todo:
                nv = min(6, v + step[2])
                while nv > v and self._supply(nv) <= 0:
                    nv -= 1
                pl.shift(warrior_class(v, injured), warrior_class(nv, injured))
        elif op == "best_healthy":
            vals = sorted((c // 2 + 1 for c in range(0, 12, 2) for _ in range(pl.war[c])), reverse=True)
            pl.points += min(step[2], sum(vals[: step[1]]))
        elif op == "double":
            self.tasks.append(("double", step[1]))
        elif op == "flip_for":
            self.tasks.append(("flip_for", step[1], step[2], step[3], 0))
        elif op == "sacrifice":
            self.tasks.append(("sacrifice", step[1]))
        elif op == "set_die":
            self.tasks.append(("set_die", step[1]))
        elif op == "free_move":
            self.free_move = True
        elif op == "stack_move":
            self.stack_move = True
        elif op == "die_back":
            self.tasks.append(("die_back", step[1], step[2]))
        elif op == "reuse":
            self.tasks.append(("reuse",))
        elif op == "copy_die":
            self.tasks.append(("copy_die",))
        elif op == "pts_per_beer":
            pl.points += min(step[1], sum(self.die_beer[d] for d in self._own_dice(q)))
        elif op == "any_spot":
            self.tasks.append(("any_spot", step[1]))
        elif op == "prov_for_points":
            self.tasks.append(("prov_pts", step[1], step[2]))
        elif op == "map_jump":
            self.tasks.append(("map_jump",))
        elif op == "join":
            self.tasks.append(("join", step[1]))
        elif op == "_track":
            self._track_place(q, step[1], step[2])
        elif op == "_if_died_beer":
            if self.raid_deaths:
                self._do_action(q, "beer")
        else:
            raise AssertionError(f"unknown step {step!r}")

    # ----- turns and rounds ---------------------------------------------------------------------
    def _begin_turn(self) -> None:
        d = self._next_die()
        self.cur_die = d
        self.to_move = d // self.D
        self.moved = self.ship_moved = False
        self.used = _NONE_USED
        self.free_move = self.stack_move = False

    def _end_turn(self) -> None:
        """After the turn: refill the trade display; round end when all dice are in the stop area;
        the game ends after the turn that placed the last die of the last round."""
        self.undo_barrier()  # a turn, once ended, is confirmed (and the display refilled)
        while len(self.display) < 3 and self.trade_deck:
            self.display += self.trade_deck[:1]
            self.trade_deck = self.trade_deck[1:]
        if all(done for done in self.die_done):  # (a generator: compiled, all(list) is generic)
            if self.round >= self.rounds:
                self.over = True
                self.to_move = None
                self.cur_die = -1
                self.emit({"game_over": True, "scores": self.scores()})
                return
            self.round += 1
            self.removed_this_round = False
            self.die_done = (False,) * len(self.die_done)
            self.emit({"round": self.round})
        self._begin_turn()

    # ----- scoring ------------------------------------------------------------------------------
    @staticmethod
    def _rune_stone(pl: Player, top: int) -> tuple[int, str]:
        """The points of the rune stone ``top`` (specials 100+) lying uppermost on a spot, and
        why, in words: a rune stone's difficult or easy requirement (only one of them counts), a
        special rune stone's points for each symbol shown."""
        if top >= 100:
            sp = C.SPECIALS[top - 100]
            have = sum(pl.count(w) for w in sp["per"])
            what = " and ".join(Wd.count_words(w) for w in sp["per"])
            return sp["points"] * have, f"Special rune stone: {plural(sp['points'], 'point')} for each of {have} {what}"
        r = C.RUNES[top]
        have = pl.count(r["count"])
        what = Wd.count_of(have, r["count"])
        if have >= r["hard"][0]:
            return r["hard"][1], f"Rune stone: {what}, the difficult requirement ({r['hard'][0]})"
        if have >= r["easy"][0]:
            return r["easy"][1], f"Rune stone: {what}, the easy requirement ({r['easy'][0]})"
        return 0, f"Rune stone: {what}, short of its easy requirement ({r['easy'][0]})"

    def final_lines(self, q: int) -> dict[str, int]:
        """Final scoring, line by line as on the overview card."""
        pl = self.p[q]
        runes = 0
        for spot in pl.rune_spots:
            if spot:
                runes += self._rune_stone(pl, spot[-1])[0]
        cards = len(pl.hand)
        return {
            "rune stones": runes,
            "combat strength": pl.strength(),
            "trade tiles squared": len(pl.trade_track) ** 2,
            "beer": sum(self.die_beer[d] for d in self._own_dice(q)),
            "provisions": pl.prov // 2,
            "gold and cards": pl.res[2] + cards // 2,
            "resources": (pl.res[0] + pl.res[1]) // 2,
        }

    def scoring_lines(self, player: int) -> list[tuple[str, float]]:
        """The scoring track, then the final scoring steps of the overview card (End of the Game
        and Final Scoring), each rune stone on its own line, so the end explains the difference
        between the track and the final score."""
        pl = self.p[player]
        lines: list[tuple[str, float]] = [("Scoring track: points scored during the game", float(pl.points))]
        if not self.over:
            return lines
        for spot in pl.rune_spots:
            if spot:
                pts, why = self._rune_stone(pl, spot[-1])
                lines.append((why, float(pts)))
        beer = [self.die_beer[d] for d in self._own_dice(player)]
        cards = len(pl.hand)
        lines += [
            (f"Combat strength of the warriors ({pl.strength()})", float(pl.strength())),
            (f"Trade tiles: {len(pl.trade_track)} squared", float(len(pl.trade_track) ** 2)),
            (f"Beer left on the {'die' if len(beer) == 1 else 'dice'} ({plural(sum(beer), 'pip')})", float(sum(beer))),
            (f"Provisions: {pl.prov}, 1 point for every 2", float(pl.prov // 2)),
            (f"Gold: {pl.res[2]}, 1 point each", float(pl.res[2])),
            (f"Upgrade cards left in hand: {cards}, 1 point for every 2", float(cards // 2)),
            (f"Fur and silver: {pl.res[0] + pl.res[1]}, 1 point for every 2", float((pl.res[0] + pl.res[1]) // 2)),
        ]
        return lines

    def scores(self) -> list[float]:
        out = []
        for q, pl in enumerate(self.p):
            s = pl.points
            if self.over:
                s += sum(self.final_lines(q).values())
            out.append(float(s))
        return out

    def ranking(self) -> list[int]:
        """Ties: the player whose die is furthest left in the stop area wins (Final scoring)."""
        s = self.scores()
        if not self.over:
            return super().ranking()

        def left(q: int) -> int:
            return min(self.die_pos[d] for d in self._own_dice(q))

        key = [(s[q], -left(q)) for q in range(self.players)]
        return [1 + sum(1 for o in key if o > k) for k in key]

    # ----- views ------------------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        if player is not None and not (type(player) is int and 0 <= player < self.players):
            raise ValueError(f"no player {player!r}: players are 0..{self.players - 1}, or None for a spectator")
        players = []
        for q, pl in enumerate(self.p):
            hand_backs: dict[str, int] = {}
            for c in pl.hand:
                card = C.UPGRADE_CARDS[c]
                key = f"{card['type']}{card['level']}"
                hand_backs[key] = hand_backs.get(key, 0) + 1
            info: dict[str, Any] = {
                "fur": pl.res[0], "silver": pl.res[1], "gold": pl.res[2], "provisions": pl.prov,
                "warriors": list(pl.war), "strength": pl.strength(), "points": pl.points,
                "ship": self.nodes[pl.ship], "map": self._has_map(q),
                "hand_backs": dict(sorted(hand_backs.items())), "played": list(pl.played),
                "trade_cards": list(pl.trade_cards), "trade_track": list(pl.trade_track),
                "raid_track": list(pl.raid_track), "beside": sorted(pl.beside),
                "face_down": sorted([TILE_BACK[x] for x in pl.hidden_ut] + [RUNE_BACK[r] for r in pl.hidden_runes]),
                "slots": {k: list(v) for k, v in pl.slots.items()},
                "rune_spots": [list(s) for s in pl.rune_spots],
                "towers": {"supply": pl.tower_supply, "tableau": pl.tower_tab},
                "posts": {"supply": pl.post_supply, "tableau": pl.post_tab},
                "built": [[self.nodes[n], b] for n, b in pl.built], "start_card": pl.start,
                "exception": pl.exception, "displaced": pl.displaced,
                # the public tiles in words, for tooltips on the drawing
                "tile_words": {str(x): Wd.tr_tile_words(x) for x in [*pl.beside, *pl.trade_track, *pl.raid_track]},
            }
            if q == player:
                info["hand"] = sorted(pl.hand)
                info["hand_text"] = [Wd.card_words(c) for c in sorted(pl.hand)]
                info["tiles_text"] = [Wd.placeable_words(x) for x in pl.hidden_ut] + [
                    Wd.placeable_words(_NUM_UT + r) for r in pl.hidden_runes]
                info["tile_ids"] = [*pl.hidden_ut, *(_NUM_UT + r for r in pl.hidden_runes)]  # as tiles_text
                info["upgrade_tiles"] = list(pl.hidden_ut)
                info["runes"] = list(pl.hidden_runes)
                if self.tasks and self.tasks[-1][0] == "keep":
                    info["keep_from"] = list(pl.hand[-2:])
            players.append(info)
        stacks = {}
        for node, st in self.stacks.items():
            entry: dict[str, Any] = {"size": len(st)}
            if player is not None and self.stack_known[node] >> player & 1:
                entry["tiles"] = list(st)
            stacks[self.nodes[node]] = entry
        specials = {}
        for node, st in self.special_stacks.items():
            entry = {"size": len(st)}
            if player is not None and self.special_known[node] >> player & 1:
                entry["tiles"] = list(st)
            specials[self.nodes[node]] = entry
        top = self.tasks[-1] if self.tasks else None
        return {
            "round": self.round, "rounds": self.rounds, "players": players,
            "to_move": self.to_move, "die": self.cur_die,
            "dice": [
                {"pos": self.die_pos[d], "beer": self.die_beer[d], "done": self.die_done[d],
                 "height": self.die_height[d], "player": d // self.D}
                for d in range(len(self.die_pos))
            ],
            "track": [{"cost": s["cost"], "parts": s["parts"], "join": s["join"], "blocked": b}
                      for s, b in zip(self.spots, self.blocked, strict=True)],
            "stop_area": self.stop_spots(), "stop_tiles_left": len(self.stop_stack),
            "boards": {b: self.board_sides[b] for b in self.board_order},
            "nodes": list(self.nodes), "stacks": stacks,
            "map": {"routes": [list(r) for r in self.side["routes"]],
                    "kinds": [sp["kind"] for sp in self.side["spots"]],
                    "obstructed": list(self.obstructed)}, "special_stacks": specials,
            "discarded_specials": list(self.discarded_specials),
            "sites": {self.nodes[n]: list(v) for n, v in self.sites.items()},
            "display": list(self.display), "trade_deck": len(self.trade_deck),
            # every face-up trade card in words (the display's and the players'), for the drawing
            "trade_card_words": {str(x): Wd.trade_card_words(x) for x in
                                 [*self.display, *(x for pl in self.p for x in pl.trade_cards)]},
            "upgrade_decks": [
                [f"{C.UPGRADE_CARDS[c]['type']}{C.UPGRADE_CARDS[c]['level']}" for c in dk] for dk in self.decks
            ],
            "start_pool": list(self.start_pool),
            "piles": {
                k: (list(v) if player is not None and self.pile_holder.get(k) == player else len(v))
                for k, v in self.piles.items()
            },
            "pile_holder": dict(self.pile_holder),
            "turn": {"moved": self.moved, "ship_moved": self.ship_moved, "used": sorted(self.used),
                     "free_move": self.free_move, "stack_move": self.stack_move},
            "decision": None if top is None else _public_task(top),
            "over": self.over, "scores": self.scores(),
            "final": [self.final_lines(q) for q in range(self.players)] if self.over else None,
            "final_scoring": self.final_scoring(),
        }

    # ----- copying and determinizing ------------------------------------------------------------
    def _copy(self) -> KarviState:
        # Every attribute, in `__init__`'s order (see `State._copy_core`). Shared: every tuple
        # and dict, which play replaces and never changes (the map and its memo never change at
        # all); copied: the players, whose numbers change, and the list of tasks.
        new: KarviState = self._copy_core()
        new.side = self.side
        new.nodes = self.nodes
        new.adj = self.adj
        new.obstructed = self.obstructed
        new._dist_memo = self._dist_memo
        new.board_order = self.board_order
        new.board_sides = self.board_sides
        new.spots = self.spots
        new.spot_cost = self.spot_cost
        new.T = self.T
        new.blocked = self.blocked
        new.locked_only = self.locked_only
        new.blocked_shut = self.blocked_shut
        new.stop_stack = self.stop_stack
        new.round = self.round
        new.rounds = self.rounds
        new.D = self.D
        new.die_pos = self.die_pos
        new.die_beer = self.die_beer
        new.die_done = self.die_done
        new.die_height = self.die_height
        new.removed_this_round = self.removed_this_round
        new.p = [pl.copy() for pl in self.p]
        new.stacks = self.stacks
        new.stack_known = self.stack_known
        new.sites = self.sites
        new.special_stacks = self.special_stacks
        new.special_known = self.special_known
        new.discarded_specials = self.discarded_specials
        new.trade_deck = self.trade_deck
        new.display = self.display
        new.decks = self.decks
        new.piles = self.piles
        new.pile_holder = self.pile_holder
        new.cur_die = self.cur_die
        new.moved = self.moved
        new.ship_moved = self.ship_moved
        new.used = self.used
        new.free_move = self.free_move
        new.stack_move = self.stack_move
        new.raid_deaths = self.raid_deaths
        new.tasks = self.tasks.copy()
        new.over = self.over
        new.to_move = self.to_move
        new._legal = None
        new.start_pool = self.start_pool
        return new

    def _resample_hidden(self, player: int, rng: random.Random) -> None:
        """Resample other hands (same card backs), deck orders, others' hidden tiles, and the
        stacks ``player`` has not looked at.

        Search calls this once per iteration, so it works on ints and lists: groups are lists
        indexed by a back's rank among the backs (`_CARD_BACK_RANK`, `_TILE_BACK_RANK`), which
        visits them in the order of the backs themselves, as the draws must be made."""
        others = [q for q in range(self.players) if q != player]
        # Upgrade cards: by back (type, level), across others' hands and the decks; resampled in
        # lists, which then replace the tuples.
        hands = {q: list(self.p[q].hand) for q in others}
        decks = [list(dk) for dk in self.decks]
        places: list[list[tuple[list[int], int]]] = [[] for _ in range(_NUM_CARD_BACKS)]
        for q in others:
            hand = hands[q]
            for i in range(len(hand)):  # a pair drawn to keep one is as hidden as the rest
                places[_CARD_BACK_RANK[hand[i]]].append((hand, i))
        for dk in decks:
            for i in range(len(dk)):
                places[_CARD_BACK_RANK[dk[i]]].append((dk, i))
        # Pools are sorted before shuffling, so the sample depends on what ``player`` knows only.
        for group in places:
            if not group:
                continue
            cards = sorted([lst[i] for lst, i in group])
            shuffle(rng, cards)
            for k in range(len(group)):
                lst, i = group[k]
                lst[i] = cards[k]
        for q in others:
            self.p[q].hand = tuple(hands[q])
        self.decks = tuple([tuple(dk) for dk in decks])
        trade_deck = sorted(self.trade_deck)
        shuffle(rng, trade_deck)
        self.trade_deck = tuple(trade_deck)
        if len(self.stop_stack) > 2:  # the stop-area tiles under the top one, face down
            rest = sorted(self.stop_stack[1:], key=_stop_tile_key)
            shuffle(rng, rest)
            self.stop_stack = (self.stop_stack[0], *rest)
        # Hidden upgrade tiles and rune stones of the others (plus the unused ones in the box).
        # Face-down tiles show their blue requirement stripe: resample within the same back only;
        # the piles of the Less-luck draft (shown as counts) take any of the rest.
        me = self.p[player]
        seen_ut = set(me.hidden_ut)  # mine, or placed by anyone, or in a pile I hold
        seen_r = set(me.hidden_runes)
        for pl in self.p:
            for name in _SLOT_NAMES:
                seen_ut.update(pl.slots[name])
            for st in pl.rune_spots:
                seen_r.update(st)
        for t in self.tasks:
            if t[0] == "rune_spot":
                seen_r.add(t[1])
        held = {k for k, h in self.pile_holder.items() if h == player}
        for slot in _PILE_NAMES:
            runes = slot == "runes"
            seen = seen_r if runes else seen_ut
            if slot in held:
                seen = seen | set(self.piles[slot])
            groups: list[list[int]] = [[] for _ in range(_NUM_TILE_BACKS)]
            for x in _RUNE_IDS if runes else _UT_OF_SLOT[slot]:
                if x not in seen:
                    groups[_RUNE_BACK_RANK[x] if runes else _TILE_BACK_RANK[x]].append(x)
            for g in groups:
                if g:
                    shuffle(rng, g)
            for q in others:
                pl = self.p[q]
                if runes:
                    pl.hidden_runes = tuple(sorted([groups[_RUNE_BACK_RANK[x]].pop() for x in pl.hidden_runes]))
                else:
                    rest = [x for x in pl.hidden_ut if _UT_SLOT[x] != slot]
                    drawn = [groups[_TILE_BACK_RANK[x]].pop() for x in pl.hidden_ut if _UT_SLOT[x] == slot]
                    pl.hidden_ut = tuple(sorted(rest + drawn))
            if slot in self.piles and slot not in held:
                left = sorted([x for g in groups for x in g])
                shuffle(rng, left)
                self.piles = _with(self.piles, slot, tuple(sorted(left[: len(self.piles[slot])])))
        # Location stacks not seen by ``player``.
        public: set[int] = set()
        for pl in self.p:
            public.update(pl.beside)
            public.update(pl.trade_track)
            public.update(pl.raid_track)
        stacks = dict(self.stacks)
        for node, st in self.stacks.items():
            if self.stack_known[node] >> player & 1 or not st:
                continue
            pool = [x for x in _SAME_KIND[st[0]] if x not in public]
            shuffle(rng, pool)
            stacks[node] = tuple(sorted(pool[: len(st)]))
        self.stacks = stacks
        known = {x for node, st in self.special_stacks.items() if self.special_known[node] >> player & 1 for x in st}
        public_s = set(self.discarded_specials) | {x - 100 for pl in self.p for st in pl.rune_spots for x in st if x >= 100}
        public_s |= {t[1] for t in self.tasks if t[0] == "special_spot"}
        pool = [s for s in range(_NUM_SPECIALS) if s not in known and s not in public_s]
        shuffle(rng, pool)
        special_stacks = dict(self.special_stacks)
        for node, st in self.special_stacks.items():
            if not self.special_known[node] >> player & 1:
                special_stacks[node], pool = tuple(sorted(pool[: len(st)])), pool[len(st):]
        self.special_stacks = special_stacks

    # ----- action labels ----------------------------------------------------------------------
    def action_to_json(self, action: int) -> dict[str, Any]:
        fam, x = _FAMILY[action]
        if SIZE[fam] == 1:
            return {"a": fam.lower()}
        return {"a": fam.lower(), "x": x}

    def describe(self, action: int) -> str:
        """The choice in words, in the context of the decision being made (`_task_actions`)."""
        fam, x = _FAMILY[action]
        kind = self.tasks[-1][0] if self.tasks else "main"
        t = self.tasks[-1] if self.tasks else ("main",)
        q = self.to_move if self.to_move is not None else 0
        if fam == "END":
            if kind == "main":
                return "end your turn" if self.moved else "leave this die in the stop area for the round"
            return _SKIP.get(kind, "skip")
        if fam == "MOVE_DIE":
            beer = self.die_beer[self.cur_die]
            cost = self._move_cost(q, x)
            onto = "onto the die on" if self.stack_move and self._occupied(x) else "to"
            return f"move your die ({beer} beer) {onto} {self._spot_place(x)}, " + (f"paying {cost} beer" if cost else "free")
        if fam in ("SHIP_TO", "DISPLACE_TO"):
            where = self.nodes[x]
            if fam == "DISPLACE_TO":
                return f"send the displaced ship to {where}"
            if kind == "main" and x == self.p[q].ship:
                return f"stay in {where} and use the place"
            if kind == "main":
                return f"sail to {where} ({plural(self._distances(q, self.p[q].ship, self.p[q].prov).get(x, 0), 'provision')})"
            if kind == "join":
                return f"join the ship in {where}"
            return f"sail to {where}"
        if fam == "SCOUT":
            return f"scout in {self.nodes[t[1]]}: take a tile from its stack" if kind == "location" else "scout"
        if fam == "BUILD":
            if kind == "location":
                site = self.side["spots"][t[1]]["site"]
                b = "trading post" if site["building"] == "post" else site["building"]
                return f"build a {b} in {self.nodes[t[1]]}"
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
            return f"change 1 gold into +1 beer on {self._die_words(x, q)}"
        if fam in ("RES_FUR", "RES_SILVER"):
            good = "fur" if fam == "RES_FUR" else "silver"
            return f"pay 1 {good}" if kind == "pay_res" else f"take 1 {good}"
        if fam == "DIE":
            die = self._die_words(x, q)
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
            if x < _NUM_UT:
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
            return _ABILITY_WORDS[ABILITIES[x]]
        if fam == "START_CARD":
            return f"take start card {C.START_CARDS[x]['value']}"
        if fam == "SPECIAL":
            return f"take the {Wd.special_words(x)}"
        if fam == "SPOT":
            verb = "use again" if kind == "reuse" else "use"
            return f"{verb} {self._spot_place(x)}"
        return fam.lower().replace("_", " ")  # (every family is named above)

    def _spot_place(self, s: int) -> str:
        """An action spot by what it gives: 'the "2 fur" spot', or the stop area's place."""
        if s >= self.T:
            return f"the stop area ({Wd.spot_words(self._spot(s))})"
        return Wd.spot_name(self.spots[s])

    def _die_words(self, d: int, q: int) -> str:
        owner = d // self.D
        where = "in the stop area" if self.die_pos[d] >= self.T else "on the track"
        return f"{whose(owner, q)} die with {self.die_beer[d]} beer {where}"

    def _event_text(self, event: dict[str, Any], player: int | None) -> str:
        p: Any = event.get("player")  # events without a player never use it
        if "round" in event:
            return f"Round {event['round']} begins."
        if "game_over" in event:
            scores = event["scores"]
            best = max(scores)
            top = [q for q, v in enumerate(scores) if v == best]
            return f"{winners(top, player)} with {best:g} points."
        if "start_card" in event:
            return f"{does(p, player, 'take', 'takes')} start card {event['start_card']}."
        if "free_rune" in event:
            return f"{does(p, player, 'place', 'places')} the {Wd.rune_words(event['free_rune'])} on the first rune spot, free."
        if "sits_out" in event:
            return f"{capital(name_of(p, player))} cannot move a die out of the stop area; it sits out the round."
        if "to" in event:
            to = event["to"]
            where = "the stop area" if to >= self.T else Wd.spot_name(self.spots[to])
            paid = f"paying {event['paid']} beer" if event["paid"] else "for free"
            return f"{does(p, player, 'move', 'moves')} a die to {where}, {paid}."
        if "ship" in event:
            return f"{does(p, player, 'sail', 'sails')} to {event['ship']}."
        if "displaced_to" in event:
            return f"{whose_cap(p, player)} ship is displaced to {event['displaced_to']}."
        if "scouts" in event:
            return f"{does(p, player, 'scout', 'scouts')} and take{'' if p == player else 's'} the {Wd.tr_tile_words(event['scouts'])}."
        if "builds" in event:
            b = "trading post" if event["builds"] == "post" else event["builds"]
            return f"{does(p, player, 'build', 'builds')} a {b} in {event['at']} (+{plural(event['points'], 'point')})."
        if "plays" in event:
            c = next(i for i, card in enumerate(C.UPGRADE_CARDS) if card["number"] == event["plays"])
            return f"{does(p, player, 'play', 'plays')} the {Wd.card_words(c)}."
        if "draws_from" in event:
            return f"{does(p, player, 'draw', 'draws')} a {event['draws_from']} card."
        if "discards" in event:
            return f"{does(p, player, 'discard', 'discards')} two upgrade cards for 1 gold."
        if "raid" in event:
            tile = event["raid"]
            what = f"the {Wd.tr_tile_words(tile)}" if tile is not None else "the raid"
            return f"{does(p, player, 'raid', 'raids')} {what} and take{'' if p == player else 's'} {event['damage']} damage."
        if "track" in event:
            return f"{does(p, player, 'put', 'puts')} the {Wd.tr_tile_words(event['tile'])} on {'your' if p == player else 'their'} {event['track']} track."
        if "rune" in event:
            r = event["rune"]
            what = Wd.special_words(r - 100) if r >= 100 else Wd.rune_words(r)
            return f"{does(p, player, 'place', 'places')} the {what} on rune spot {event['spot'] + 1}."
        if "special_rune" in event:
            return f"{does(p, player, 'take', 'takes')} the {Wd.special_words(event['special_rune'])}."
        if "trade_card" in event:
            return f"{does(p, player, 'take', 'takes')} {Wd.trade_card_words(event['trade_card'] - 1)}."
        if "upgrade_tile" in event:
            return f"{does(p, player, 'place', 'places')} the {Wd.upgrade_tile_words(event['upgrade_tile'])}."
        if "francia" in event:
            return f"{does(p, player, 'trade', 'trades')} in Francia."
        return super()._event_text(event, player)


def whose_cap(p: int, viewer: int | None) -> str:
    return "Your" if p == viewer else whose(p, viewer)


# END in each decision: what not choosing means.
_SKIP = {
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
_ABILITY_WORDS = {
    "sail_any": "sail to any place for 2 provisions (sail tile)",
    "sail_two": "sail up to 2 spaces for 1 provision (sail tile)",
    "die_minus_two": "take 2 beer from a die for a trade or raid action (sail tile)",
}


def _public_task(t: tuple[Any, ...]) -> dict[str, Any]:
    """The pending decision, without hidden details."""
    out: dict[str, Any] = {"kind": t[0]}
    if t[0] in ("res", "beer", "strength", "heal", "damage", "trade_card", "upcard", "double"):
        out["n"] = t[1]
    if t[0] in ("rune_spot", "special_spot"):
        out["stone"] = t[1]  # being placed face up: public
    if t[0] in ("parts", "boxes", "locked"):
        out["options"] = t[1]  # printed on the spot or the played card: public
    return out
