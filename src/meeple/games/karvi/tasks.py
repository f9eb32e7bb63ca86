"""The task table: every kind of pending decision, with the function listing its legal actions
and the function applying the one chosen.

A task is a tuple, its kind first, then what the decision needs (a count still to take, the
options printed on a spot, ...). `KarviState` keeps a stack of them; the one on top is the
decision being made. ``legal(s, t, q, pl)`` lists its actions for player ``q`` (board ``pl``);
an empty list, or END alone, means there is nothing to choose and the task passes by itself.
``apply(s, t, fam, x, q, pl)`` applies the action of family ``fam`` and number ``x``, the task
having been taken off the stack (a task that asks again pushes its next self).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from . import components as C
from .actions import (
    A_BOX,
    A_BUILD,
    A_DIE,
    A_DISCARD,
    A_DISPLACE_TO,
    A_DRAW_STACK,
    A_KEEP,
    A_PART,
    A_PICK,
    A_PLACE_TILE,
    A_RES_FUR,
    A_RES_SILVER,
    A_RUNE_SPOT,
    A_SCOUT,
    A_SHIP_TO,
    A_SPECIAL,
    A_SPOT,
    A_START_CARD,
    A_TAKE_TILE,
    A_TRADE_CARD,
    A_WARRIOR,
    END,
    NUM_UT,
)
from .board import SPECIAL_CODE, Player, added, put, warrior_class, with_key, without
from .effects import (
    activations,
    build,
    do_action,
    draw,
    gain_warrior,
    hook_order,
    pay_res,
    raid,
    supply,
    track_place,
)
from .map import LOCKED, arrival_cost, displace_targets, distances, has_map, location_options, sail

if TYPE_CHECKING:
    from .rules import KarviState

_STOP_POSITIONS: Final[int] = C.STOP_POSITIONS
_HEALTHY: Final = range(0, 12, 2)  # the warrior classes of healthy warriors
_INJURED: Final = range(1, 12, 2)


# ----- setup ---------------------------------------------------------------------------------
def _legal_draft(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_START_CARD + c for c in s.start_pool]


def _apply_draft(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """Draft start cards variant: take a start card from those left."""
    s.start_pool = without(s.start_pool, x)
    s._take_start(t[1], x)
    if not any(tt[0] == "draft" for tt in s.tasks):
        s._place_dice()


def _legal_free_rune(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_PLACE_TILE + NUM_UT + r for r in pl.hidden_runes]


def _apply_free_rune(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """Start cards: the first rune stone goes on the first rune spot, free."""
    pl.hidden_runes = without(pl.hidden_runes, x - NUM_UT)
    pl.place_rune(0, x - NUM_UT)
    s.log_event(("free_rune", q, x - NUM_UT))


def _legal_pick(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    off = NUM_UT if t[2] == "runes" else 0
    return [A_PICK + off + x for x in s.piles[t[2]]]


def _apply_pick(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """Less luck: keep a tile (rune stone) of the pile in hand."""
    if x >= NUM_UT:
        s.piles = with_key(s.piles, "runes", without(s.piles["runes"], x - NUM_UT))
        pl.hidden_runes = tuple(sorted([*pl.hidden_runes, x - NUM_UT]))
    else:
        slot = C.UPGRADE_TILES[x]["slot"]
        s.piles = with_key(s.piles, slot, without(s.piles[slot], x))
        pl.hidden_ut = tuple(sorted([*pl.hidden_ut, x]))


# ----- taking things one at a time: (kind, how many more) --------------------------------------
def _legal_res(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_RES_FUR, A_RES_SILVER, END]


def _apply_res(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        pl.gain(0 if fam == "RES_FUR" else 1, 1)
        if t[1] > 1:
            s.tasks.append(("res", t[1] - 1))


def _legal_pay_res(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_RES_FUR, A_RES_SILVER]


def _apply_pay_res(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    pl.gain(0 if fam == "RES_FUR" else 1, -1)
    pay_res(s, pl, t[1] - 1)


def _legal_beer(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    dice = [A_DIE + d for d in s._own_dice(q) if s.die_beer[d] < 5]
    return [*dice, END]


def _apply_beer(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        s.die_beer = added(s.die_beer, x, 1)
        if t[1] > 1:
            s.tasks.append(("beer", t[1] - 1))


def raisable(s: KarviState, pl: Player) -> list[int]:
    """Increase combat strength: a warrior below 6 whose next value is still in the supply."""
    out = []
    for c in range(12):
        v = c // 2 + 1
        if pl.warriors_by_class[c] and v < 6 and supply(s, v + 1) > 0:
            out.append(A_WARRIOR + c)
    return out


def _legal_strength(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [*raisable(s, pl), END]


def _apply_strength(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        pl.shift(x, x + 2)  # Increase combat strength: keep the warrior's side
        if t[1] > 1:
            s.tasks.append(("strength", t[1] - 1))


def _legal_heal(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_WARRIOR + c for c in _INJURED if pl.warriors_by_class[c]] + [END]


def _apply_heal(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        pl.shift(x, x - 1)
        if t[1] > 1 and any(pl.warriors_by_class[1::2]):
            s.tasks.append(("heal", t[1] - 1))


def _legal_place_warrior(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_WARRIOR + c for c in range(12) if pl.warriors_by_class[c]] + [END]


def _apply_place_warrior(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """Every warrior space taken: one goes back to the supply to make room for the new one."""
    if fam != "END":
        pl.enlist(x, -1)
        gain_warrior(s, pl, t[1])


def _legal_damage(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_WARRIOR + c for c in range(12) if pl.warriors_by_class[c]]


def _apply_damage(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """Raid damage, one at a time: a healthy warrior is injured, an injured one dies."""
    if x % 2 == 0:
        pl.shift(x, x + 1)
    else:
        pl.enlist(x, -1)
        pl.points += x // 2 + 1  # Valhalla: points equal to her strength
        s.raid_deaths += 1
    if t[1] > 1 and pl.warriors():
        s.tasks.append(("damage", t[1] - 1))


def _legal_healthy(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_WARRIOR + c for c in _HEALTHY if pl.warriors_by_class[c]] + [END]


def _apply_double(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        v = x // 2 + 1
        nv = min(6, 2 * v)
        while nv > v and supply(s, nv) <= 0:
            nv -= 1
        pl.shift(x, warrior_class(nv, False))
        if t[1] > 1:
            s.tasks.append(("double", t[1] - 1))


def _apply_flip_for(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(flip_for, what, per warrior, cap, got so far): injure a warrior for points or gold."""
    if fam != "END":
        _, what, per, cap, got = t
        pl.shift(x, x + 1)
        gain = min(per, cap - got)
        if what == "points":
            pl.points += gain
        else:
            pl.gain(2, gain)
        if got + gain < cap:
            s.tasks.append(("flip_for", what, per, cap, got + gain))


def _apply_sacrifice(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        pl.enlist(x, -1)
        pl.points += t[1]


def _legal_trade_card(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    # nothing left: empty-handed, no decision
    return [A_TRADE_CARD + c for c in s.display] + [END] if s.display else []


def _apply_trade_card(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        s.display = without(s.display, x)
        pl.trade_cards += (x,)
        bonus = sum(e.get("trade_card_points", 0) for e in pl.effects())
        pl.points += bonus
        s.log_event(("trade_card", q, x + 1))
        if t[1] > 1 and s.display:
            s.tasks.append(("trade_card", t[1] - 1))
        s._push_boxes(C.TRADE_CARDS[x]["boxes"])


def _legal_upcard(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    draws = [A_DRAW_STACK + i for i, dk in enumerate(s.decks) if dk]
    return [*draws, END] if draws else []


def _apply_upcard(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam != "END":
        if t[1] > 1:  # the next card waits until this one's draw-two-keep-one is settled
            s.tasks.append(("upcard", t[1] - 1))
        draw(s, q, x)


def _legal_keep(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_KEEP + c for c in pl.hand[-2:]]


def _apply_keep(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """Draw two, keep one: the other goes under its deck."""
    a, b = pl.hand[-2:]
    back = b if x == a else a
    pl.hand = without(pl.hand, back)
    s._put_back(back)


# ----- the upgrade action and rune stones ------------------------------------------------------
def _legal_upgrade_action(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    out = [A_DRAW_STACK + i for i, dk in enumerate(s.decks) if dk] + [END]
    for u in pl.hidden_ut:
        tile = C.UPGRADE_TILES[u]
        if pl.meets(tile["requirement"]) and pl.can_pay(C.SLOT_COST[tile["slot"]]):
            out.append(A_PLACE_TILE + u)
    for r in pl.hidden_runes:
        if pl.meets(C.RUNES[r]["requirement"]) and any(
            pl.can_pay(spot["cost"]) for spot in C.RUNE_SPOTS
        ):
            out.append(A_PLACE_TILE + NUM_UT + r)
    return out + s._gold(q, pl)


def _apply_upgrade_action(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam == "DRAW_STACK":
        draw(s, q, x)
    elif fam == "PLACE_TILE":
        if x < NUM_UT:
            tile = C.UPGRADE_TILES[x]
            slot = tile["slot"]
            pl.pay(C.SLOT_COST[slot])
            if not pl.slots[slot]:
                pl.points += C.SLOT_POINTS[slot]
            pl.slots = with_key(pl.slots, slot, (*pl.slots[slot], x))
            pl.hidden_ut = without(pl.hidden_ut, x)
            s.log_event(("upgrade_tile", q, x, slot))
        else:
            pl.hidden_runes = without(pl.hidden_runes, x - NUM_UT)  # revealed as it is placed
            s.tasks.append(("rune_spot", x - NUM_UT))


def _legal_rune_spot(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_RUNE_SPOT + k for k, spot in enumerate(C.RUNE_SPOTS) if pl.can_pay(spot["cost"])]


def _apply_rune_spot(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(rune_spot, stone): the stone goes on the spot paid for; an empty spot scores."""
    spot = C.RUNE_SPOTS[x]
    pl.pay(spot["cost"])
    if not pl.rune_spots[x]:
        pl.points += spot["points"]
    pl.place_rune(x, t[1])
    s.log_event(("rune", q, t[1], x))


def _legal_special_spot(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    # a free spot; only when none is free, cover one (or discard)
    free = [k for k, st in enumerate(pl.rune_spots) if not st]
    return [A_RUNE_SPOT + k for k in (free or range(len(C.RUNE_SPOTS)))] + [END]


def _apply_special_spot(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam == "END":
        s.discarded_specials += (t[1],)
    else:
        pl.place_rune(x, SPECIAL_CODE + t[1])


def _legal_special_choose(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_SPECIAL + x for x in s.special_stacks[t[1]]]


def _apply_special_choose(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(special_choose, node): a special rune stone from the stack of the site built on."""
    s.special_stacks = with_key(s.special_stacks, t[1], without(s.special_stacks[t[1]], x))
    s.tasks.append(("special_spot", x))
    s._push_steps(C.SPECIALS[x]["bonus"])
    s.log_event(("special_rune", q, x))


# ----- trade and raid: (kind, bonus after an activation, bonus taken so it must activate) -------
def _legal_trade_action(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    acts = activations(s, pl, "trade")
    return ([] if len(t) > 2 and t[2] and acts else [END]) + acts + s._gold(q, pl)


def _apply_trade_action(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam == "ACTIVATE":
        tile = C.TR_TILES[x]
        pl.pay(tile["cost"])
        pl.beside = without(pl.beside, x)
        if len(t) > 1:
            s._push_steps(list(t[1]))  # the upgrade tiles' bonus, after the action
        # Trade: "This gives you the bonus ... Then place the tile ... on the trade track"
        # (ruling; the option follows the example's telling: tile, post, then the bonus).
        if s.options.get("trade_track_first", False):
            s._push_steps(tile["bonus"])
            track_place(s, q, "trade", x)
        else:
            s._push_steps([*tile["bonus"], ["_track", "trade", x]])
    elif fam == "FRANCIA":
        if len(t) > 1:
            s._push_steps(list(t[1]))  # the upgrade tiles' bonus, after the action
        pl.points += C.TRADE_TRACK[5]["francia"]["points"]
        s.log_event(("francia", q, "trade"))
        pay_res(s, pl, C.TRADE_TRACK[5]["francia"]["pay_res"])


def _legal_raid_action(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    acts = activations(s, pl, "raid")
    return ([] if len(t) > 2 and t[2] and acts else [END]) + acts


def _apply_raid_action(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if len(t) > 1 and fam != "END":
        s._push_steps(list(t[1]))  # the upgrade tiles' bonus, after the action
    if fam == "ACTIVATE":
        tile = C.TR_TILES[x]
        pl.beside = without(pl.beside, x)
        raid(s, q, tile["damage"], tile["bonus"], x)
    elif fam == "FRANCIA":
        f = C.RAID_TRACK[5]["francia"]
        raid(s, q, f["damage"], [["points", f["points"]]], None)


# ----- choosing among printed options ----------------------------------------------------------
def _legal_two_ways(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_PART, A_PART + 1]


def _apply_hook_order(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(hook_order, action, bonus): the upgrade tiles' bonus first (PART 0) or after."""
    hook_order(s, q, t[1], t[2], x == 0)


def _apply_choice2(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """The sail tile's 2 beer: the trade action (PART 0) or the raid action."""
    do_action(s, q, "trade" if x == 0 else "raid")


def _legal_parts(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    _, parts, join, done = t
    opened = s._locked_open(q)
    return [END] + [A_PART + k for k in range(len(parts))
                    if not done >> k & 1 and (opened or parts[k] != LOCKED)]


def _apply_parts(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(parts, parts, join, done bits): a spot's parts, one ("/") or each in turn ("+")."""
    _, parts, join, done = t
    if fam == "PART":
        if join == "+" and (done | 1 << x) != (1 << len(parts)) - 1:
            s.tasks.append(("parts", parts, join, done | 1 << x))
        s._push_steps(parts[x])


def _legal_boxes(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_BOX + k for k in range(len(t[1]))]


def _legal_locked(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_PART + k for k in range(len(t[1]))]


def _apply_option(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(boxes or locked, options): the steps of the option chosen."""
    s._push_steps(t[1][x])


def _legal_prov_pts(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_PART, END] if pl.provisions > 0 and t[2] > 0 else [END]


def _apply_prov_pts(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(prov_pts, points each, how many more): pay provisions for points."""
    if fam == "PART":
        pl.provisions -= 1
        pl.points += t[1]
        s.tasks.append(("prov_pts", t[1], t[2] - 1))


# ----- ships ---------------------------------------------------------------------------------
def _legal_move(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    """(move, spaces, mode): a ship card's move."""
    _, steps, mode = t
    mode = "card" if mode == "normal" else mode
    out = [END]
    for node in distances(s, q, pl.ship, steps):
        if node == pl.ship:
            continue
        if mode == "card" and arrival_cost(s, q, node, mode) > pl.provisions:
            continue
        out.append(A_SHIP_TO + node)
    return out


def _legal_paid_move(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    """(paid_move, spaces, paid): the sail tile's move, its provisions paid."""
    steps = t[1]
    return [END] + [
        A_SHIP_TO + node
        for node in distances(s, q, pl.ship, steps)
        if node != pl.ship and arrival_cost(s, q, node, "normal") <= pl.provisions
    ]


def _legal_map_jump(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_SHIP_TO + i for i, spot in enumerate(s.side["spots"]) if spot["kind"] == "map"]


def _legal_join(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    others = {s.tableaus[o].ship for o in range(s.players) if o != q}
    return [A_SHIP_TO + node for node in sorted(others) if node != pl.ship] + [END]


def _apply_sail(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """A move by a card or tile (move, paid_move, map_jump, join): how it displaces differs."""
    if fam == "SHIP_TO":
        kind = t[0]
        if kind in ("map_jump", "join") and s.obstructed[x] and not has_map(s, q):
            pl.exception = True
        if kind == "move":  # ship cards: pay only with less strength (ruling)
            mode = "card" if t[2] == "normal" else t[2]
        elif kind == "join":
            mode = "force" if t[1] else "beside"
        else:  # ruling: a map jump shares a taken map spot; a sail move displaces as usual
            mode = "beside" if kind == "map_jump" else "normal"
        sail(s, q, x, mode)


def _legal_displace(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_DISPLACE_TO + node for node in displace_targets(s, t[1], t[2])]


def _apply_displace(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(displace, victim, node): the arriving player sends the ship there away."""
    victim = s.tableaus[t[1]]
    victim.ship = x
    victim.displaced = True
    s.log_event(("displaced", t[1], s.nodes[x]))


def _legal_location(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    opts = location_options(s, q, t[1])
    return [A_SCOUT] * ("scout" in opts) + [A_BUILD] * ("build" in opts) + [END]


def _apply_location(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(location, node): end of movement, scout or build there."""
    node = t[1]
    if fam == "SCOUT":
        s.undo_barrier()  # they look at the stack
        s.stack_known = with_key(s.stack_known, node, s.stack_known[node] | 1 << q)
        s.tasks.append(("scout", node))
    elif fam == "BUILD":
        build(s, q, node)


def _legal_scout(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_TAKE_TILE + x for x in s.stacks[t[1]]]


def _apply_scout(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    s.stacks = with_key(s.stacks, t[1], without(s.stacks[t[1]], x))
    pl.beside += (x,)
    pl.kinds |= 1 << C.TILE_KIND[x]
    s.log_event(("scout", q, x))


# ----- cards in hand ------------------------------------------------------------------------
def _legal_discard2(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    # the first card chosen waits at the end of the hand
    return [A_DISCARD + c for c in pl.hand[:-1]]


def _apply_discard2(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    for c in (pl.hand[-1], x):
        pl.hand = without(pl.hand, c)
        s._put_back(c)
    pl.gain(2, 1)
    s.log_event(("discard", q, 2))


# ----- dice ----------------------------------------------------------------------------------
def _legal_own_die(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_DIE + d for d in s._own_dice(q)]


def _apply_set_die(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    s.die_beer = put(s.die_beer, x, t[1])


def _apply_copy_die(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    s.tasks.append(("copy_from", x))


def _legal_copy_from(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_DIE + d for d in range(len(s.die_pos)) if d != t[1]]


def _apply_copy_from(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    s.die_beer = put(s.die_beer, t[1], s.die_beer[x])


def _legal_die_back(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_DIE + d for d in s._own_dice(q) if s._back_target(d, t[1], t[2]) is not None] + [END]


def _apply_die_back(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(die_back, spots, pay): cards 20, 27-29 move a die back and use that spot."""
    if fam == "DIE":
        spot = s._back_target(x, t[1], t[2])
        assert spot is not None
        if t[2]:
            s.die_beer = added(s.die_beer, x, -s._cost(q, spot))
        s.die_pos = put(s.die_pos, x, spot)
        s.die_height = put(s.die_height, x, 0)
        s._push_spot(spot)


def _legal_reuse(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_SPOT + s.die_pos[d] for d in s._own_dice(q)] + [END]


def _apply_reuse(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam == "SPOT":
        s._push_spot(x)


def _legal_any_spot(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    """(any_spot, pay): a free spot's action, paid for by one of the player's dice if ``pay``."""
    pay = t[1]
    best = max(s.die_beer[d] for d in s._own_dice(q))
    opened = s._locked_open(q)
    size = s.track_size
    return [
        A_SPOT + spot
        for spot in range(size + _STOP_POSITIONS)
        if not s._occupied(spot) and not (spot < size and (s.blocked[spot] or s.locked_only[spot] and not opened))
        and (not pay or s._cost(q, spot) <= best)
    ] + [END]


def _apply_any_spot(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    if fam == "SPOT":
        if t[1] and s._cost(q, x) > 0:
            s.tasks.append(("pay_die", s._cost(q, x), x))
        else:
            s._push_spot(x)


def _legal_pay_die(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_DIE + d for d in s._own_dice(q) if s.die_beer[d] >= t[1]]


def _apply_pay_die(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """(pay_die, beer, spot): the die that pays for the spot chosen."""
    s.die_beer = added(s.die_beer, x, -t[1])
    s._push_spot(t[2])


def _legal_minus_two(s: KarviState, t: tuple[Any, ...], q: int, pl: Player) -> list[int]:
    return [A_DIE + d for d in s._own_dice(q) if s.die_beer[d] >= 2]


def _apply_minus_two(s: KarviState, t: tuple[Any, ...], fam: str, x: int, q: int, pl: Player) -> None:
    """The sail tile's ability: 2 beer off a die for a trade or raid action (then `choice2`)."""
    s.die_beer = added(s.die_beer, x, -2)
    s.tasks.append(("choice2",))


Legal = Callable[["KarviState", tuple[Any, ...], int, Player], list[int]]
Apply = Callable[["KarviState", tuple[Any, ...], str, int, int, Player], None]

# kind -> (legal, apply)
TASKS: Final[dict[str, tuple[Legal, Apply]]] = {
    "draft": (_legal_draft, _apply_draft),
    "free_rune": (_legal_free_rune, _apply_free_rune),
    "pick": (_legal_pick, _apply_pick),
    "res": (_legal_res, _apply_res),
    "pay_res": (_legal_pay_res, _apply_pay_res),
    "beer": (_legal_beer, _apply_beer),
    "strength": (_legal_strength, _apply_strength),
    "heal": (_legal_heal, _apply_heal),
    "place_warrior": (_legal_place_warrior, _apply_place_warrior),
    "damage": (_legal_damage, _apply_damage),
    "double": (_legal_healthy, _apply_double),
    "flip_for": (_legal_healthy, _apply_flip_for),
    "sacrifice": (_legal_healthy, _apply_sacrifice),
    "trade_card": (_legal_trade_card, _apply_trade_card),
    "upcard": (_legal_upcard, _apply_upcard),
    "keep": (_legal_keep, _apply_keep),
    "upgrade_action": (_legal_upgrade_action, _apply_upgrade_action),
    "rune_spot": (_legal_rune_spot, _apply_rune_spot),
    "special_spot": (_legal_special_spot, _apply_special_spot),
    "special_choose": (_legal_special_choose, _apply_special_choose),
    "trade_action": (_legal_trade_action, _apply_trade_action),
    "raid_action": (_legal_raid_action, _apply_raid_action),
    "hook_order": (_legal_two_ways, _apply_hook_order),
    "choice2": (_legal_two_ways, _apply_choice2),
    "parts": (_legal_parts, _apply_parts),
    "boxes": (_legal_boxes, _apply_option),
    "locked": (_legal_locked, _apply_option),
    "prov_pts": (_legal_prov_pts, _apply_prov_pts),
    "move": (_legal_move, _apply_sail),
    "paid_move": (_legal_paid_move, _apply_sail),
    "map_jump": (_legal_map_jump, _apply_sail),
    "join": (_legal_join, _apply_sail),
    "displace": (_legal_displace, _apply_displace),
    "location": (_legal_location, _apply_location),
    "scout": (_legal_scout, _apply_scout),
    "discard2": (_legal_discard2, _apply_discard2),
    "set_die": (_legal_own_die, _apply_set_die),
    "copy_die": (_legal_own_die, _apply_copy_die),
    "copy_from": (_legal_copy_from, _apply_copy_from),
    "die_back": (_legal_die_back, _apply_die_back),
    "reuse": (_legal_reuse, _apply_reuse),
    "any_spot": (_legal_any_spot, _apply_any_spot),
    "pay_die": (_legal_pay_die, _apply_pay_die),
    "minus_two": (_legal_minus_two, _apply_minus_two),
}
# The tasks that pass the decision to another seat (setup): the player to move is theirs.
SEATED: Final = frozenset({"draft", "free_rune", "pick"})
