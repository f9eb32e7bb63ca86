"""A player's board (tableau and supply) and the tuple helpers that replace its values.

The state's collections are tuples that play replaces, never changes in place, so that every
copy shares them (a copy of a 4-player game was about a hundred lists and dicts). `put`,
`added`, `with_key` and `without` build the replacements.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeVar

from meeple.core.game import mypyc_attr

from . import components as C

RES: Final = ("fur", "silver", "gold")
SLOT_NAMES: Final[tuple[str, ...]] = tuple(C.SLOTS)
NO_RUNES: Final[tuple[tuple[int, ...], ...]] = ((),) * len(C.RUNE_SPOTS)  # one per rune spot
NO_WARRIORS: Final[tuple[int, ...]] = (0,) * 12  # a count per warrior class
SPECIAL_CODE: Final = 100  # a special rune stone on a rune spot is coded 100 + its id

_V = TypeVar("_V")


def put(values: tuple[_V, ...], i: int, value: _V) -> tuple[_V, ...]:
    """``values`` with ``value`` at ``i``: `meeple.core.replaced` for a tuple."""
    new = list(values)
    new[i] = value
    return tuple(new)


def added(values: tuple[int, ...], i: int, n: int) -> tuple[int, ...]:
    """``values`` with ``n`` added at ``i``."""
    return put(values, i, values[i] + n)


_K = TypeVar("_K")


def with_key(mapping: Mapping[_K, _V], key: _K, value: _V) -> Mapping[_K, _V]:
    """A new dict: ``mapping`` with ``value`` at ``key``."""
    new = dict(mapping)
    new[key] = value
    return new


def without(values: tuple[_V, ...], x: _V) -> tuple[_V, ...]:
    """``values`` less its first ``x``; ValueError if there is none (as `list.remove`)."""
    i = values.index(x)
    return values[:i] + values[i + 1 :]


def warrior_class(value: int, injured: bool) -> int:
    """A warrior's class 0..11: value 1..6, healthy (blue) or injured (red)."""
    return (value - 1) * 2 + int(injured)


def _spaces(lane: list[dict[str, Any]], building: str) -> int:
    return sum(1 << i for i, sp in enumerate(lane) if sp.get("building") == building)


# Individual setup 4: the tableau's towers sit on raid spaces 2 and 4, the posts on trade spaces 2 and 4.
TOWER_SPACES: Final = _spaces(C.RAID_TRACK, "tower")
POST_SPACES: Final = _spaces(C.TRADE_TRACK, "post")


# ``serializable``: compiled, `Player.__new__` then makes a bare object; without it, it runs
# `__init__` (every list and the slots dict, at once thrown away by `copy`).
@mypyc_attr(serializable=True)
class Player:
    """One player's tableau and supply."""

    __slots__ = (
        "res", "provisions", "warriors_by_class", "points", "hand", "played", "trade_cards",
        "trade_track", "raid_track", "beside", "kinds", "hidden_ut", "hidden_runes", "slots",
        "rune_spots", "tower_supply", "post_supply", "tower_tab", "post_tab", "tower_left",
        "post_left", "built", "ship", "map", "start", "exception", "displaced", "_effects_seen",
    )

    def __init__(self) -> None:
        # Every collection is a tuple (or a dict of tuples) that play replaces, never changes:
        # copies of a state share them all (see `KarviState._copy`).
        self.res: tuple[int, ...] = (0, 0, 0)  # fur, silver, gold
        self.provisions = 0
        self.warriors_by_class: tuple[int, ...] = NO_WARRIORS  # counts per warrior class
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
        self.slots: Mapping[str, tuple[int, ...]] = {s: () for s in SLOT_NAMES}  # stacks, top effective
        self.rune_spots: tuple[tuple[int, ...], ...] = NO_RUNES  # stone ids, specials 100+
        self.tower_supply = 1
        self.post_supply = 1
        self.tower_tab = 2
        self.post_tab = 2
        # Which track spaces still hold their building (bit i = space i + 1): a building leaves
        # its space for good, so a later tile on that space releases nothing (Trade; Raid).
        self.tower_left = TOWER_SPACES
        self.post_left = POST_SPACES
        self.built: tuple[tuple[int, str], ...] = ()  # (node, "tower"/"post")
        self.ship = 0
        self.map = False
        self.start = 0  # start card value
        self.exception = False  # in the obstructed area by a special ability without the map
        self.displaced = False  # displaced onto its spot by someone else since it last moved
        # (slots, effects()): the last answer, kept while ``slots`` is the same dict (replaced
        # whenever a tile is placed): the rules ask it several times a decision.
        self._effects_seen: tuple[Any, ...] = ()

    def copy(self) -> Player:
        """Attribute by attribute: 4-5x faster than a loop over ``__slots__`` with
        type tests, and what a compiled class needs. Every collection is shared: play replaces
        them (`tests/test_karvi.py` checks every slot, `tests/test_copies.py` the sharing)."""
        new = Player.__new__(Player)
        new.res = self.res
        new.provisions = self.provisions
        new.warriors_by_class = self.warriors_by_class
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
        new._effects_seen = self._effects_seen
        return new

    def place_rune(self, spot: int, code: int) -> None:
        """A rune stone (code 100+ for a special) on rune spot ``spot``."""
        self.rune_spots = put(self.rune_spots, spot, (*self.rune_spots[spot], code))

    def gain(self, i: int, n: int) -> None:
        """``n`` more (or fewer) of resource ``i`` (0 fur, 1 silver, 2 gold)."""
        self.res = added(self.res, i, n)

    def enlist(self, c: int, n: int) -> None:
        """``n`` more (or fewer) warriors of class ``c``."""
        self.warriors_by_class = added(self.warriors_by_class, c, n)

    def shift(self, c: int, to: int) -> None:
        """One warrior of class ``c`` becomes one of class ``to`` (healed, injured, raised)."""
        war = list(self.warriors_by_class)
        war[c] -= 1
        war[to] += 1
        self.warriors_by_class = tuple(war)

    def release(self, building: str, i: int) -> None:
        """A building leaves track space ``i`` of the tableau for the supply."""
        if building == "tower":
            self.tower_left &= ~(1 << i)
            self.tower_tab -= 1
            self.tower_supply += 1
        else:
            self.post_left &= ~(1 << i)
            self.post_tab -= 1
            self.post_supply += 1

    # ----- counts used by requirements, rune stones and scoring ---------------------------------
    def strength(self) -> int:
        """Combat strength: the sum of the warriors' values, either side (Raid: combat strength)."""
        w = self.warriors_by_class
        return (w[0] + w[1] + 2 * (w[2] + w[3]) + 3 * (w[4] + w[5]) + 4 * (w[6] + w[7])
                + 5 * (w[8] + w[9]) + 6 * (w[10] + w[11]))

    def warriors(self) -> int:
        return sum(self.warriors_by_class)

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
            return sum(self.warriors_by_class[0::2])
        if what == "injured":
            return sum(self.warriors_by_class[1::2])
        if what == "warriors":
            return self.warriors()
        if what == "strength":
            return self.strength()
        if what in ("provisions", "provision"):
            return self.provisions
        if what in ("tower", "post", "building"):
            return self.count(what + "s")
        if what in ("trade_tile", "raid_tile"):
            return self.count(what + "s")
        raise ValueError(what)

    def meets(self, req: dict[str, int]) -> bool:
        return all(self.count(k) >= v for k, v in req.items())

    def effects(self) -> list[dict[str, Any]]:
        """The effects of the uncovered upgrade tiles (a covered tile loses its effect). The list
        is kept while ``slots`` stays the same dict (see ``_effects_seen``): never change it."""
        slots = self.slots
        known = self._effects_seen
        if known and known[0] is slots:
            kept: list[dict[str, Any]] = known[1]
            return kept
        out = []
        for name in SLOT_NAMES:  # (compiled, `Mapping.values()` is a generic call)
            st = slots[name]
            if st:
                out.append(C.UPGRADE_TILES[st[-1]]["effect"])
        self._effects_seen = (slots, out)
        return out

    def can_pay(self, cost: dict[str, int]) -> bool:
        return all(self.res[RES.index(k)] >= v for k, v in cost.items())

    def affords(self, cost: tuple[int, ...]) -> bool:
        """`can_pay` for a cost as (fur, silver, gold)."""
        res = self.res
        return res[0] >= cost[0] and res[1] >= cost[1] and res[2] >= cost[2]

    def pay(self, cost: dict[str, int]) -> None:
        for k, v in cost.items():
            self.gain(RES.index(k), -v)
