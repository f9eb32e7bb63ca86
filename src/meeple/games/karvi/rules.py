"""Karvi (Torgeir Tjong, Hans im Glück 2023): dice on an action track, a sea map, trade and raid.

Rulebook: shared/rules/002. Section names in comments refer to it. Rulings and the reconstructed
edition: docs/games/karvi.md. Components: the JSON files read by `components.py`.

A turn is a chain of atomic decisions by one player: free actions, the die move, the choices of
the action, more free actions, then END. The rules keep a stack of pending *tasks*; the task on
top says which decision comes next, and its entry in the task table (`tasks.TASKS`) lists exactly
its legal options and applies the one chosen. Effects (cards, tiles, spots) are short step lists
in data; `_run` executes steps (`effects.run_step`) until one needs a choice. All chance is in
the setup (deck orders, stacks, deals), drawn from `derive(seed, salt, ...)`.

The modules beside this one: `actions` (the action ids, their JSON and labels), `board` (a
player's tableau), `map` (the sea map), `tasks` (the task table), `effects` (the step language
and what actions, raids and buildings do) and `words` (text).

The state is ints, tuples and read-only dicts of tuples, which play replaces and never changes
in place, so that a copy shares them and copies only its players' fields and the task list
(search copies states all the time). mypy (`Mapping`, `tuple`) holds the rules to it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any, Final

from meeple.core import State
from meeple.core.game import mypyc_attr
from meeple.core.rng import derive, shuffle, shuffler
from meeple.core.text import plural

from . import components as C
from . import words as Wd
from .actions import (
    A_ABILITY,
    A_DISCARD,
    A_GOLD_BEER,
    A_GOLD_FUR,
    A_GOLD_PROV,
    A_GOLD_SILVER,
    A_MOVE_DIE,
    A_PLAY_CARD,
    A_SHIP_TO,
    ABILITIES,
    BASE,
    END,
    FAMILY,
    MAX_SPOTS,
    NUM_ACTIONS,
    NUM_UT,
    SIZE,
    action_to_json,
    describe,
)
from .board import RES, SLOT_NAMES, Player, added, put, warrior_class, with_key, without
from .effects import (
    ACTIONS,
    COUNTS,
    DIE_MOVE_CARD,
    FREE_MOVE,
    NO_CARD,
    STACK_MOVE,
    STEP_OPS,
    draw,
    run_step,
)
from .map import distances, has_map, layout, location_options, sail
from .tasks import SEATED, TASKS

# Names the rest of the package and the tests read from here.
__all__ = [
    "ABILITIES", "ACTIONS", "BASE", "COUNTS", "END", "MAX_SPOTS", "NUM_ACTIONS", "RUNE_BACK",
    "SIZE", "STEP_OPS", "TILE_BACK", "KarviState", "Player", "check", "warrior_class",
]
_FAMILY: Final = FAMILY
_MAX_PROVISIONS: Final[int] = C.MAX_PROVISIONS
_STOP_POSITIONS: Final[int] = C.STOP_POSITIONS
_NONE_USED: Final[frozenset[str]] = frozenset()  # no ability used yet this turn
# The effect each ability's upgrade tile gives, as `Player.effects` lists it.
_ABILITY_EFFECT: Final[list[dict[str, Any]]] = [{"ability": ab} for ab in ABILITIES]


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
# Each upgrade card's cost as (fur, silver, gold), and the die-move card it is (cards 19 and 30;
# else NO_CARD): asked at every decision with cards in hand, so typed lists, not the data's dicts.
_CARD_COST: Final[list[tuple[int, ...]]] = [tuple(c["cost"].get(r, 0) for r in RES) for c in C.UPGRADE_CARDS]
_CARD_DIE_MOVE: Final[list[int]] = [DIE_MOVE_CARD.get(c["boxes"][0][0][0], NO_CARD) for c in C.UPGRADE_CARDS]


def _cards_of(t: str, level: int) -> list[int]:
    return [i for i, c in enumerate(C.UPGRADE_CARDS) if c["type"] == t and c["level"] == level]


# Static lists the setup shuffles copies of (with `_TILES_OF_KIND` above): upgrade cards by type
# (in `C.CARD_TYPES`' order) as the level 1s and the level 2s, upgrade tiles by slot.
_CARDS_OF: Final[list[tuple[list[int], list[int]]]] = [(_cards_of(t, 1), _cards_of(t, 2)) for t in C.CARD_TYPES]
_UT_OF_SLOT: Final[dict[str, list[int]]] = {
    s: [i for i, t in enumerate(C.UPGRADE_TILES) if t["slot"] == s] for s in C.SLOTS
}
# The component tables the setup reads, as this module's constants: compiled, each `C.X` is a
# look-up of ``C`` in the module's globals and then one of ``X`` on the module.
_BOARD_ORDER: Final[list[str]] = C.BOARD_ORDER
_STOP_TILES: Final[list[dict[str, Any]]] = C.STOP_TILES
_ROUNDS: Final[dict[int, int]] = C.ROUNDS
_DICE: Final[dict[int, int]] = C.DICE
_START_POSITIONS: Final[dict[int, list[list[int]]]] = C.START_POSITIONS
_START_CARDS: Final[list[dict[str, Any]]] = C.START_CARDS
_START_CARD_OF_VALUE: Final[dict[int, dict[str, Any]]] = {c["value"]: c for c in C.START_CARDS}
_CARD_TYPES: Final[tuple[str, ...]] = C.CARD_TYPES
_SLOTS: Final[tuple[str, ...]] = C.SLOTS
_NUM_TRADE_CARDS: Final[int] = len(C.TRADE_CARDS)
_NUM_RUNES: Final[int] = len(C.RUNES)
_NUM_START_CARDS: Final[int] = len(C.START_CARDS)


def _stop_tile_key(tile: Any) -> str:
    """Face-down stop-area tiles are resampled in the order of their contents."""
    return json.dumps(tile, sort_keys=True)


def _ascending(acts: list[int]) -> list[int]:
    """``acts`` sorted (in place), each once."""
    acts.sort()
    prev = -1
    for a in acts:  # a duplicate is rare: look for one before paying for a set
        if a == prev:
            return sorted(set(acts))
        prev = a
    return acts


def check(players: int, options: dict[str, Any]) -> None:
    """Every option works at every player count (2-4)."""


@mypyc_attr(allow_interpreted_subclasses=True)  # see State
class KarviState(State):
    """A game of Karvi. See the module docstring for the representation."""

    # A turn's steps may be taken back up to its start, or to the last step that brought
    # something to light: a card drawn, a stack looked at, the next stop-area tile, piles passed.
    undo_within_turn = True

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        n = players
        lay = layout(n)
        self.side = lay.side
        self.nodes = lay.nodes
        self.adj = lay.adj
        self.obstructed = lay.obstructed
        # `map.distances` by (start, limit, map unlocked): the map never changes, so every game of
        # this player count shares it.
        self._dist_memo = lay.dist_memo
        # The setup's chance, from one RNG: only shuffles, but in the Chaos variant, which draws
        # sides from it too. Shuffles only come from `shuffler` (the compiled Twister, where there
        # is one: the very orders `shuffle` gives from `derive(seed, 0, "setup")`); the Chaos
        # variant's from that `random.Random` itself (its own shuffle, the same orders).
        rng = derive(seed, 0, "setup") if options["chaos"] else None
        deal: Any = shuffler(seed, 0, "setup") if rng is None else rng
        # Action boards (Setup 3; More action variety and Chaos variants).
        order = list(_BOARD_ORDER)
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
        self.spots, self.spot_cost, self.blocked, self.locked_only, self.blocked_shut = lay.track(order, sides)
        self.track_size = len(self.spots)
        tiles = lay.stop_tiles.copy()
        deal.shuffle(tiles)
        if rng is None:
            self.stop_stack = tuple([_STOP_TILES[i][face] for i in tiles])
        else:  # Chaos: a mixture of sides, drawn tile by tile
            self.stop_stack = tuple([_STOP_TILES[i][rng.choice("AB")] for i in tiles])
        self.round = 1
        # (typed: compiled, `d // self.dice_each` and the like are then machine arithmetic, not generic)
        self.rounds: int = _ROUNDS[n]
        self.dice_each: int = _DICE[n]
        nd = n * self.dice_each
        self.die_pos: tuple[int, ...] = (0,) * nd
        self.die_beer: tuple[int, ...] = (0,) * nd
        self.die_done: tuple[bool, ...] = (False,) * nd
        self.die_height: tuple[int, ...] = (0,) * nd
        self.removed_this_round = False
        self.tableaus = [Player() for _ in range(n)]
        # Location stacks (Setup 2): kind -> node; 1 tile per player of each kind.
        # The dicts are replaced, never changed, like the tuples (`Mapping`: mypy says if one is).
        stacks: dict[int, tuple[int, ...]] = {}
        for locs, pair_kinds in lay.location_pairs:
            kinds = pair_kinds.copy()
            deal.shuffle(kinds)
            # (by index: compiled, `zip(..., strict=True)` is a generic call with a keyword)
            for k in range(len(locs)):
                pool = _TILES_OF_KIND[kinds[k]].copy()
                deal.shuffle(pool)
                stacks[locs[k]] = tuple(sorted(pool[:n]))
        self.stacks: Mapping[int, tuple[int, ...]] = stacks
        self.stack_known: Mapping[int, int] = dict.fromkeys(stacks, 0)
        self.sites: Mapping[int, tuple[int, ...]] = {i: () for i in lay.sites}
        specials = list(range(_NUM_SPECIALS))
        deal.shuffle(specials)
        special_stacks: dict[int, tuple[int, ...]] = {}
        for i in lay.special_spots:
            special_stacks[i] = tuple(sorted(specials[:n]))
            specials = specials[n:]
        self.special_stacks: Mapping[int, tuple[int, ...]] = special_stacks
        self.special_known: Mapping[int, int] = dict.fromkeys(special_stacks, 0)
        self.discarded_specials: tuple[int, ...] = ()
        # Trade cards (Setup 6): 3 face up.
        deck = list(range(_NUM_TRADE_CARDS))
        deal.shuffle(deck)
        self.trade_deck = tuple(deck[3:])
        self.display = tuple(deck[:3])
        # Upgrade cards: one stack per type, the 1s on top of the 2s (top = index 0).
        decks: list[tuple[int, ...]] = []
        for level_ones, level_twos in _CARDS_OF:
            ones = level_ones.copy()
            twos = level_twos.copy()
            deal.shuffle(ones)
            deal.shuffle(twos)
            decks.append(tuple(ones + twos))
        self.decks: tuple[tuple[int, ...], ...] = tuple(decks)
        # Individual setup 2-3: 3 rune stones, 2 upgrade tiles of each type.
        runes = list(range(_NUM_RUNES))
        deal.shuffle(runes)
        by_slot = [_UT_OF_SLOT[s].copy() for s in _SLOTS]
        for tiles_of_slot in by_slot:
            deal.shuffle(tiles_of_slot)
        self.piles: Mapping[str, tuple[int, ...]] = {}
        self.pile_holder: Mapping[str, int] = {}
        if not options["less_luck"]:
            for q, pl in enumerate(self.tableaus):
                pl.hidden_runes = tuple(sorted(runes[3 * q : 3 * q + 3]))
                pl.hidden_ut = tuple(sorted([x for tiles_of_slot in by_slot for x in tiles_of_slot[2 * q : 2 * q + 2]]))
        # Turn state.
        self.cur_die = -1
        self.moved = False
        self.ship_moved = False
        self.used: frozenset[str] = _NONE_USED  # abilities used this turn
        self.die_move_card = NO_CARD  # card 19 or 30 played for this turn's die move
        self.raid_deaths = 0
        self.tasks: list[tuple[Any, ...]] = []
        self.over = False
        self.to_move: int | None = 0
        # The legal actions of the decision now (`_cached_legal`), for `is_legal`, which `apply`
        # asks next; and the task `_run` worked them out for, to see whether it asks anything at
        # all: `legal_actions` gives that list while that very task is on top. `_apply` and
        # `_copy` drop them, the state having changed or being another.
        self._legal: list[int] | None = None
        self._legal_task: tuple[Any, ...] | None = None
        if options["draft_start"]:
            self.start_pool: tuple[int, ...] = tuple(range(_NUM_START_CARDS))
            self.tasks = [("draft", q) for q in reversed(range(n))]
        else:
            cards = list(range(_NUM_START_CARDS))
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
        sc = _START_CARDS[card]
        side = sc["4" if self.players == 4 else "2-3"]
        pl = self.tableaus[q]
        pl.start = sc["value"]
        self.undo_barrier()  # upgrade cards are dealt from the decks
        res, war = list(pl.res), list(pl.warriors_by_class)  # (one new tuple each, not one a gain)
        for k, v in side["resources"].items():
            res[RES.index(k)] += v
        for v in side["warriors"]:
            war[warrior_class(v, False)] += 1
        pl.res, pl.warriors_by_class = tuple(res), tuple(war)
        if self.options["draw_two"]:  # "whenever you get an upgrade card" (ruling: start cards too)
            self.tasks += [("start_draw", q, _CARD_TYPES.index(t)) for t in reversed(side["upgrade_cards"])]
        else:
            for t in side["upgrade_cards"]:
                deck = _CARD_TYPES.index(t)
                if self.decks[deck]:
                    pl.hand += (self._draw_upgrade(deck),)
        pl.provisions = min(_MAX_PROVISIONS, side["provisions"])
        self.log_event(("start_card", q, sc["value"]))

    def _place_dice(self) -> None:
        """Start cards: dice on the stop-area tile by card value, set to the beer shown; then the
        free first rune stone, chosen by each player."""
        order = sorted(range(self.players), key=lambda q: self.tableaus[q].start)
        die_pos, die_beer = list(self.die_pos), list(self.die_beer)
        positions = _START_POSITIONS[self.players]
        for rank, q in enumerate(order):
            side = _START_CARD_OF_VALUE[self.tableaus[q].start]
            beer = side["4" if self.players == 4 else "2-3"]["beer"]
            for i, pos in enumerate(positions[rank]):
                d = q * self.dice_each + i
                die_pos[d] = self.track_size + pos
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
            k = (pos - 100 if pos >= self.track_size else pos) * 1024 - self.die_height[d]
            if best < 0 or k < key:
                best, key = d, k
        return best

    def _occupied(self, s: int) -> bool:
        return s in self.die_pos

    def _cost(self, q: int, s: int) -> int:
        """A spot's beer cost for player q: the printed cost, at most 1 with the sail tile."""
        cost = self.spot_cost[s] if s < self.track_size else 0
        if cost > 1 and any(e.get("cap_cost") for e in self.tableaus[q].effects()):
            cost = 1
        return cost

    def _stack_targets(self, d: int) -> list[int]:
        """Card 30: the spots ahead of die ``d`` with a die to stand on, locked spots only once
        unlocked (ruling 3: the card chooses its spot, so it is no fixed back-move)."""
        pos = self.die_pos[d]
        start = 0 if pos >= self.track_size else pos + 1
        shut = self.blocked if self._locked_open(d // self.dice_each) else self.blocked_shut
        return [s for s in range(start, self.track_size) if s != pos and not shut[s] and self._occupied(s)]

    def _die_targets(self, d: int, beer: int | None = None) -> list[int]:
        """Moving dice: clockwise, at least one spot, a free spot the die can pay for (with
        ``beer`` instead of the die's own, if given); a die in the stop area must land outside it
        first."""
        q = d // self.dice_each
        pos = self.die_pos[d]
        if beer is None:
            beer = self.die_beer[d]
        out = []
        if self.die_move_card == STACK_MOVE:  # if no die is ahead any more, the card lapses (ruling)
            onto = self._stack_targets(d)
            if onto:
                return onto
        start = 0 if pos >= self.track_size else pos + 1
        cap: bool | None = None  # the sail tile's cost cap, looked up only when it matters
        taken = 0  # the spots with a die, as bits: no set to build, no list to scan per spot
        for p in self.die_pos:
            taken |= 1 << p
        costs, free = self.spot_cost, self.die_move_card == FREE_MOVE
        blocked = self.blocked if self._locked_open(q) else self.blocked_shut
        for s in range(start, self.track_size):
            if not blocked[s] and not taken >> s & 1:
                cost = costs[s]
                if free or cost <= beer:
                    out.append(s)
                elif min(cost, 1) <= beer:  # affordable at the capped cost, if capped
                    if cap is None:
                        cap = any(e.get("cap_cost") for e in self.tableaus[q].effects())
                    if cap:
                        out.append(s)
        if pos < self.track_size:
            for k in range(_STOP_POSITIONS):
                if not taken >> (self.track_size + k) & 1:
                    out.append(self.track_size + k)
        return out

    def _locked_open(self, q: int) -> bool:
        """Locked action: "Once you've unlocked this improvement with your second trade or raid tile,
        you may use a locked action" (ruling: not before, unless the option opens them)."""
        pl = self.tableaus[q]
        return len(pl.trade_track) >= 2 or len(pl.raid_track) >= 2 or self.options.get("locked_spots_open", False)

    def stop_spots(self) -> list[dict[str, Any]]:
        """The stop-area actions in force: the top tile, or the village's once all are gone."""
        return self.stop_stack[0] if self.stop_stack else C.VILLAGE_STOP

    def _spot(self, s: int) -> dict[str, Any]:
        return self.spots[s] if s < self.track_size else self.stop_spots()[s - self.track_size]

    # ----- legal actions ------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        top = self.tasks[-1] if self.tasks else None
        if top is None or top is not self._legal_task:
            # not the list `_run` left for the task on top: worked out afresh, as tests edit a
            # state by hand between calls
            self._legal = None
            self._legal_task = None
        return self._cached_legal().copy()

    def is_legal(self, action: Any) -> bool:  # Any: see State.is_legal
        if action in self._cached_legal():
            return True
        # An action outside the kept list is tested afresh: tests edit a state by hand between
        # legal_actions and apply to make an action legal.
        self._legal = None
        self._legal_task = None
        return action in self._cached_legal()

    def _compute_legal(self) -> list[int]:
        """The decision on top of the task stack (`tasks.TASKS`), or the turn's own choices."""
        if self.over:
            return []
        acts = self._task_actions(self.tasks[-1]) if self.tasks else self._main_actions()
        return _ascending(acts)

    def _task_actions(self, t: tuple[Any, ...]) -> list[int]:
        """The legal actions of task ``t`` (unsorted), by its entry in the task table."""
        q = self.to_move
        assert q is not None
        return TASKS[t[0]][0](self, t, q, self.tableaus[q])

    def _gold(self, q: int, pl: Player) -> list[int]:
        """Basic system: change a gold into a fur, a silver, a provision or +1 beer on a die."""
        if pl.res[2] <= 0:
            return []
        out = [A_GOLD_FUR, A_GOLD_SILVER]
        if pl.provisions < _MAX_PROVISIONS:
            out.append(A_GOLD_PROV)
        out += [A_GOLD_BEER + d for d in self._own_dice(q) if self.die_beer[d] < 5]
        return out

    def _own_dice(self, q: int) -> range:
        return range(q * self.dice_each, q * self.dice_each + self.dice_each)

    def _main_actions(self) -> list[int]:
        q = self.to_move
        assert q is not None
        pl = self.tableaus[q]
        out: list[int] = []
        if not self.moved:
            targets = self._die_targets(self.cur_die)
            out += [A_MOVE_DIE + s for s in targets]
            if not targets and not (pl.res[2] and self._die_targets(self.cur_die, min(5, self.die_beer[self.cur_die] + pl.res[2]))):
                # ruling 1: a stop-area die that cannot pay for a spot, even after gold -> beer,
                # sits the round out
                out.append(END)
        else:
            out.append(END)
        if not self.ship_moved:
            ship, prov = pl.ship, pl.provisions
            dist = distances(self, q, ship, prov)  # every node in it is at most `prov` away
            # Entering a spot costs 1 provision more per ship there at least as strong (node 0,
            # Kaupanger, has room for all): only such spots can be out of reach.
            extra: dict[int, int] = {}
            mine = -1
            for o in range(self.players):
                there = self.tableaus[o].ship
                if o != q and there and there in dist:
                    if mine < 0:
                        mine = pl.strength()
                    if self.tableaus[o].strength() >= mine:
                        extra[there] = extra.get(there, 0) + 1
            for node, k in dist.items():
                if node == ship:  # "move" 0 spots: a ship displaced there (ruling; option: any)
                    if (pl.displaced or self.options.get("zero_move_any", False)) and location_options(self, q, node):
                        out.append(A_SHIP_TO + node)
                elif not extra or extra.get(node, 0) + k <= prov:
                    out.append(A_SHIP_TO + node)
        for c in pl.hand:  # a card held twice gives one action (legal_actions drops duplicates)
            if self._card_playable(q, c):
                out.append(A_PLAY_CARD + c)
        if len(pl.hand) >= 2:
            out += [A_DISCARD + c for c in pl.hand]
        out += self._gold(q, pl)
        effects = pl.effects()
        for i in range(len(ABILITIES) if effects else 0):  # (no tile, no ability: most turns)
            ab = ABILITIES[i]
            if ab in self.used or _ABILITY_EFFECT[i] not in effects:
                continue
            if ab == "sail_any" and pl.provisions >= 2 or ab == "sail_two" and pl.provisions >= 1:
                out.append(A_ABILITY + i)
            if ab == "die_minus_two" and any(self.die_beer[d] >= 2 for d in self._own_dice(q)):
                out.append(A_ABILITY + i)
        return out

    def _card_playable(self, q: int, c: int) -> bool:
        if not self.tableaus[q].affords(_CARD_COST[c]):
            return False
        die_move = _CARD_DIE_MOVE[c]
        if die_move != NO_CARD:  # cards 19 and 30: before the die moves, one at a time
            if self.moved or self.die_move_card != NO_CARD:
                return False
            if die_move == STACK_MOVE:  # needs a die ahead on the track to stand on
                return bool(self._stack_targets(self.cur_die))
        return True


    def _back_target(self, d: int, k: int, pay: bool) -> int | None:
        """Cards 20, 27-29: a die moves back k free spots (blocked spots not counted), not in or
        into the stop area; a stacked die under another may not move."""
        pos = self.die_pos[d]
        if pos >= self.track_size or any(
            self.die_pos[e] == pos and self.die_height[e] > self.die_height[d] for e in range(len(self.die_pos))
        ):
            return None
        frees = [s for s in range(pos - 1, -1, -1) if not self.blocked[s] and not self._occupied(s)]
        if len(frees) < k:
            return None
        s = frees[k - 1]
        if pay and self._cost(d // self.dice_each, s) > self.die_beer[d]:
            return None
        return s

    # ----- applying actions ---------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._legal = None
        fam, x = _FAMILY[action]
        q = self.to_move
        assert q is not None
        pl = self.tableaus[q]
        if fam.startswith("GOLD"):
            pl.gain(2, -1)
            if fam == "GOLD_FUR":
                pl.gain(0, 1)
            elif fam == "GOLD_SILVER":
                pl.gain(1, 1)
            elif fam == "GOLD_PROV":
                pl.provisions += 1
            else:
                self.die_beer = added(self.die_beer, x, 1)
            self._run()
            return
        if self.tasks:
            t = self.tasks.pop()
            TASKS[t[0]][1](self, t, fam, x, q, pl)
        else:
            self._apply_main(fam, x, q, pl)
        self._run()

    def _apply_main(self, fam: str, x: int, q: int, pl: Player) -> None:
        if fam == "END":
            if not self.moved:
                self.die_done = put(self.die_done, self.cur_die, True)  # a stop-area die that cannot move sits out
                self.log_event(("sits_out", q, self.cur_die))
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
                pl.provisions -= distances(self, q, pl.ship, pl.provisions)[x]
                sail(self, q, x, "normal")
        elif fam == "PLAY_CARD":
            card = C.UPGRADE_CARDS[x]
            pl.pay(card["cost"])
            pl.hand = without(pl.hand, x)
            pl.played += (x,)
            self.log_event(("play_card", q, card["number"]))
            self._push_boxes(card["boxes"])
        elif fam == "DISCARD":
            # last in hand: by position, so that resampling hidden hands keeps the task valid
            pl.hand = (*without(pl.hand, x), x)
            self.tasks.append(("discard2",))
        elif fam == "ABILITY":
            ab = ABILITIES[x]
            self.used |= {ab}
            if ab == "sail_any":
                pl.provisions -= 2
                self.tasks.append(("paid_move", 99, 2))
            elif ab == "sail_two":
                pl.provisions -= 1
                self.tasks.append(("paid_move", 2, 1))
            else:
                self.tasks.append(("minus_two",))

    def _stacks_onto(self, s: int) -> bool:
        """Card 30 in force and spot ``s`` holds a die: the move stacks this die on it."""
        return self.die_move_card == STACK_MOVE and self._occupied(s)

    def _move_cost(self, q: int, s: int) -> int:
        """The beer a die move to ``s`` pays: none with card 19, nor onto a die with card 30
        ("perform the action without paying the beer cost")."""
        if self.die_move_card == FREE_MOVE or self._stacks_onto(s):
            return 0
        return self._cost(q, s)

    def _move_die(self, q: int, s: int) -> None:
        d = self.cur_die
        cost = self._move_cost(q, s)
        if self._stacks_onto(s):
            height = 1 + max(self.die_height[e] for e in range(len(self.die_pos)) if self.die_pos[e] == s)
        else:
            height = 0
        if self.die_height[d] != height:
            self.die_height = put(self.die_height, d, height)
        if cost:
            self.die_beer = added(self.die_beer, d, -cost)
        self.die_pos = put(self.die_pos, d, s)
        self.moved = True
        self.die_move_card = NO_CARD
        if s >= self.track_size:
            self.die_done = put(self.die_done, d, True)
        self.log_event(("die_move", q, d, s, cost))
        self._check_removal()
        self._push_spot(s)

    def _check_removal(self) -> None:
        """End of round: from round 2, once all dice have left the stop area, remove 1 tile."""
        if self.round >= 2 and not self.removed_this_round and not any(
            not self.die_done[e] and self.die_pos[e] >= self.track_size for e in range(len(self.die_pos))
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

    def _draw_upgrade(self, t: int) -> int:
        """The top card of the upgrade deck of type ``t``, taken off it."""
        deck = self.decks[t]
        self.decks = put(self.decks, t, deck[1:])
        return deck[0]

    def _put_back(self, card: int) -> None:
        """An upgrade card under its deck."""
        t = C.CARD_TYPES.index(C.UPGRADE_CARDS[card]["type"])
        self.decks = put(self.decks, t, (*self.decks[t], card))


    # ----- running steps ------------------------------------------------------------------------
    def _run(self) -> None:
        """Execute automatic steps until a decision is needed; then settle whose turn it is."""
        while True:
            while self.tasks and self.tasks[-1][0] == "steps":
                _, steps, i = self.tasks.pop()
                if i + 1 < len(steps):
                    self.tasks.append(("steps", steps, i + 1))
                run_step(self, steps[i])
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
                        draw(self, t[1], t[2])
                    continue
                if kind in SEATED:
                    self.to_move = t[1]
                acts = self._task_actions(t)
                if not acts or acts == [END]:
                    self.tasks.pop()  # nothing to choose (or only "no"): it passes by itself
                    continue
                self._legal = _ascending(acts)  # the options of this decision, for legal_actions
                self._legal_task = t
                return
            if self.cur_die < 0 and not self.over:
                self._begin_turn()
            return


    # ----- turns and rounds ---------------------------------------------------------------------
    def _begin_turn(self) -> None:
        d = self._next_die()
        self.cur_die = d
        self.to_move = d // self.dice_each
        self.moved = self.ship_moved = False
        self.used = _NONE_USED
        self.die_move_card = NO_CARD

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
                self.log_event(("game_over", self.scores()))
                return
            self.round += 1
            self.removed_this_round = False
            self.die_done = (False,) * len(self.die_done)
            self.log_event(("round", self.round))
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
        pl = self.tableaus[q]
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
            "provisions": pl.provisions // 2,
            "gold and cards": pl.res[2] + cards // 2,
            "resources": (pl.res[0] + pl.res[1]) // 2,
        }

    def scoring_lines(self, player: int) -> list[tuple[str, float]]:
        """The scoring track, then the final scoring steps of the overview card (End of the Game
        and Final Scoring), each rune stone on its own line, so the end explains the difference
        between the track and the final score."""
        pl = self.tableaus[player]
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
            (f"Provisions: {pl.provisions}, 1 point for every 2", float(pl.provisions // 2)),
            (f"Gold: {pl.res[2]}, 1 point each", float(pl.res[2])),
            (f"Upgrade cards left in hand: {cards}, 1 point for every 2", float(cards // 2)),
            (f"Fur and silver: {pl.res[0] + pl.res[1]}, 1 point for every 2", float((pl.res[0] + pl.res[1]) // 2)),
        ]
        return lines

    def scores(self) -> list[float]:
        out = []
        for q, pl in enumerate(self.tableaus):
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
        for q, pl in enumerate(self.tableaus):
            hand_backs: dict[str, int] = {}
            for c in pl.hand:
                card = C.UPGRADE_CARDS[c]
                key = f"{card['type']}{card['level']}"
                hand_backs[key] = hand_backs.get(key, 0) + 1
            info: dict[str, Any] = {
                "fur": pl.res[0], "silver": pl.res[1], "gold": pl.res[2], "provisions": pl.provisions,
                "warriors": list(pl.warriors_by_class), "strength": pl.strength(), "points": pl.points,
                "ship": self.nodes[pl.ship], "map": has_map(self, q),
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
                    Wd.placeable_words(NUM_UT + r) for r in pl.hidden_runes]
                info["tile_ids"] = [*pl.hidden_ut, *(NUM_UT + r for r in pl.hidden_runes)]  # as tiles_text
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
                 "height": self.die_height[d], "player": d // self.dice_each}
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
                                 [*self.display, *(x for pl in self.tableaus for x in pl.trade_cards)]},
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
                     "free_move": self.die_move_card == FREE_MOVE,
                     "stack_move": self.die_move_card == STACK_MOVE},
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
        new.track_size = self.track_size
        new.blocked = self.blocked
        new.locked_only = self.locked_only
        new.blocked_shut = self.blocked_shut
        new.stop_stack = self.stop_stack
        new.round = self.round
        new.rounds = self.rounds
        new.dice_each = self.dice_each
        new.die_pos = self.die_pos
        new.die_beer = self.die_beer
        new.die_done = self.die_done
        new.die_height = self.die_height
        new.removed_this_round = self.removed_this_round
        new.tableaus = [pl.copy() for pl in self.tableaus]
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
        new.die_move_card = self.die_move_card
        new.raid_deaths = self.raid_deaths
        new.tasks = self.tasks.copy()
        new.over = self.over
        new.to_move = self.to_move
        new._legal = None
        new._legal_task = None
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
        hands = {q: list(self.tableaus[q].hand) for q in others}
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
            self.tableaus[q].hand = tuple(hands[q])
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
        me = self.tableaus[player]
        seen_ut = set(me.hidden_ut)  # mine, or placed by anyone, or in a pile I hold
        seen_r = set(me.hidden_runes)
        for pl in self.tableaus:
            for name in SLOT_NAMES:
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
                pl = self.tableaus[q]
                if runes:
                    pl.hidden_runes = tuple(sorted([groups[_RUNE_BACK_RANK[x]].pop() for x in pl.hidden_runes]))
                else:
                    rest = [x for x in pl.hidden_ut if _UT_SLOT[x] != slot]
                    drawn = [groups[_TILE_BACK_RANK[x]].pop() for x in pl.hidden_ut if _UT_SLOT[x] == slot]
                    pl.hidden_ut = tuple(sorted(rest + drawn))
            if slot in self.piles and slot not in held:
                left = sorted([x for g in groups for x in g])
                shuffle(rng, left)
                self.piles = with_key(self.piles, slot, tuple(sorted(left[: len(self.piles[slot])])))
        # Location stacks not seen by ``player``.
        public: set[int] = set()
        for pl in self.tableaus:
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
        public_s = set(self.discarded_specials) | {x - 100 for pl in self.tableaus for st in pl.rune_spots for x in st if x >= 100}
        public_s |= {t[1] for t in self.tasks if t[0] == "special_spot"}
        pool = [s for s in range(_NUM_SPECIALS) if s not in known and s not in public_s]
        shuffle(rng, pool)
        special_stacks = dict(self.special_stacks)
        for node, st in self.special_stacks.items():
            if not self.special_known[node] >> player & 1:
                special_stacks[node], pool = tuple(sorted(pool[: len(st)])), pool[len(st):]
        self.special_stacks = special_stacks

    # ----- action labels and the log ----------------------------------------------------------
    def action_to_json(self, action: int) -> dict[str, Any]:
        return action_to_json(action)

    def describe(self, action: int) -> str:
        return describe(self, action)

    def log_event(self, event: tuple[Any, ...]) -> None:
        """Log a public event as a compact tuple, its type first (`words.EVENT_FIELDS`)."""
        events = self._writable_log()
        if events is not None:
            events.append((None, event))

    def _format_event(self, event: Any) -> dict[str, Any]:
        return Wd.event_dict(event)

    def _event_text(self, event: dict[str, Any], player: int | None) -> str:
        text = Wd.event_text(event, player, self.track_size, self.spots)
        return text if text is not None else super()._event_text(event, player)


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
