"""The effects of cards, tiles, spots and actions: the step language of the data files
(docs/games/karvi.md, "Effect language") and what the dice actions, raids, tracks and buildings
do. A step either changes the state at once or pushes the task that asks for its choice
(`tasks.TASKS`); `run_step` executes one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from . import components as C
from .actions import A_ACTIVATE, A_FRANCIA
from .board import RES, Player, warrior_class, with_key

if TYPE_CHECKING:
    from .rules import KarviState

_MAX_PROVISIONS: Final[int] = C.MAX_PROVISIONS

# The step language: step name -> arity.
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

# The die-move cards: while one is in force (``KarviState.die_move_card``), the turn's die move
# follows it. Card 19: "move your die to any free action spot without paying the beer cost";
# card 30: onto a spot ahead that holds a die, stacked on it, free (`KarviState._move_cost`).
NO_CARD: Final = 0
FREE_MOVE: Final = 19
STACK_MOVE: Final = 30
DIE_MOVE_CARD: Final[dict[str, int]] = {"free_move": FREE_MOVE, "stack_move": STACK_MOVE}


# ----- the steps that only ask: each pushes the task of its choice (`tasks.TASKS`) ------------
# The task is the step's name (or the one given here) with the step's arguments.
ASKING: Final[dict[str, str]] = {
    "res": "res", "beer": "beer", "strength": "strength", "heal": "heal",
    "trade_card": "trade_card", "upgrade_card": "upcard", "move": "move", "double": "double",
    "sacrifice": "sacrifice", "set_die": "set_die", "die_back": "die_back", "reuse": "reuse",
    "copy_die": "copy_die", "any_spot": "any_spot", "prov_for_points": "prov_pts",
    "map_jump": "map_jump", "join": "join",
}


# ----- the steps that act -----------------------------------------------------------------------
def _points(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    pl.points += step[1]


def _resource(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    pl.gain(RES.index(step[0]), step[1])


def _provisions(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    pl.provisions = min(_MAX_PROVISIONS, pl.provisions + step[1])


def _warrior(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    """A new warrior; with every warrior space taken, one must go first (its task)."""
    if pl.warriors() < C.WARRIOR_SPACES:
        gain_warrior(s, pl, step[1])
    else:
        s.tasks.append(("place_warrior", step[1]))


def _action(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    do_action(s, q, step[1])


def _points_per(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    _, what, per, cap = step
    pl.points += min(cap, per * pl.count(what))


def _unlock(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    """Cards 6 and 36: the building furthest to the left leaves the tableau."""
    left = pl.tower_left if step[1] == "tower" else pl.post_left
    if left:
        pl.release(step[1], (left & -left).bit_length() - 1)


def _boost_each(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    """Cards 10/11: each healthy (injured) warrior by up to 2, unsplit; ruling: the most."""
    injured = step[1] == "injured"
    todo = [v for v in range(6, 0, -1) for _ in range(pl.warriors_by_class[warrior_class(v, injured)])]
    for v in todo:
        nv = min(6, v + step[2])
        while nv > v and supply(s, nv) <= 0:
            nv -= 1
        pl.shift(warrior_class(v, injured), warrior_class(nv, injured))


def _best_healthy(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    war = pl.warriors_by_class
    vals = sorted((c // 2 + 1 for c in range(0, 12, 2) for _ in range(war[c])), reverse=True)
    pl.points += min(step[2], sum(vals[: step[1]]))


def _flip_for(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    s.tasks.append(("flip_for", step[1], step[2], step[3], 0))  # nothing got yet


def _die_move_card(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    s.die_move_card = DIE_MOVE_CARD[step[0]]


def _points_per_beer(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    pl.points += min(step[1], sum(s.die_beer[d] for d in s._own_dice(q)))


def _track(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    """(Internal) the trade or raid tile goes on its track, after its bonus."""
    track_place(s, q, step[1], step[2])


def _if_died_beer(s: KarviState, step: list[Any], q: int, pl: Player) -> None:
    """(Internal) the head tile's beer action when a warrior died in the raid."""
    if s.raid_deaths:
        do_action(s, q, "beer")


Step = Callable[["KarviState", list[Any], int, Player], None]
ACTING: Final[dict[str, Step]] = {
    "points": _points, "fur": _resource, "silver": _resource, "gold": _resource,
    "provisions": _provisions, "warrior": _warrior, "action": _action, "pts_per": _points_per,
    "unlock": _unlock, "boost_each": _boost_each, "best_healthy": _best_healthy,
    "flip_for": _flip_for, "free_move": _die_move_card, "stack_move": _die_move_card,
    "pts_per_beer": _points_per_beer, "_track": _track, "_if_died_beer": _if_died_beer,
}


def run_step(s: KarviState, step: list[Any]) -> None:
    op: str = step[0]
    asks = ASKING.get(op)
    if asks is not None:
        s.tasks.append((asks, *step[1:]))
        return
    q = s.to_move
    assert q is not None
    ACTING[op](s, step, q, s.tableaus[q])


# ----- warriors, resources, cards ------------------------------------------------------------
def supply(s: KarviState, v: int) -> int:
    """The warriors of value ``v`` left in the general supply."""
    used = sum(pl.warriors_by_class[(v - 1) * 2] + pl.warriors_by_class[(v - 1) * 2 + 1] for pl in s.tableaus)
    return C.WARRIOR_SUPPLY - used


def gain_warrior(s: KarviState, pl: Player, v: int) -> None:
    """Take a warrior; (In)finite components: a weaker one if none of that value is left."""
    while v > 0 and supply(s, v) <= 0:
        v -= 1
    if v > 0:
        pl.enlist(warrior_class(v, False), 1)


def pay_res(s: KarviState, pl: Player, n: int) -> None:
    """Pay n "fur and/or silver" in "a combination of your choice" (Trade in Francia; Basic
    system): one unit at a time while both piles have some, the rest from the only pile left."""
    if n > 0 and pl.res[0] and pl.res[1]:
        s.tasks.append(("pay_res", n))
    elif n > 0:
        pl.gain(0 if pl.res[0] else 1, -n)


def draw(s: KarviState, q: int, deck: int) -> None:
    """Draw an upgrade card (the draw-two-keep-one variant draws 2 and keeps 1)."""
    pl = s.tableaus[q]
    n = 2 if s.options["draw_two"] and len(s.decks[deck]) >= 2 else 1
    s.undo_barrier()  # the card drawn comes to light
    for _ in range(n):
        pl.hand += (s._draw_upgrade(deck),)
    s.log_event(("draw", q, C.CARD_TYPES[deck]))
    if n == 2:
        s.tasks.append(("keep",))


# ----- tracks, raids, buildings ----------------------------------------------------------------
def track_place(s: KarviState, q: int, track: str, tile: int) -> None:
    """Trade and raid tracks: the tile goes on the leftmost space; its improvement unlocks."""
    pl = s.tableaus[q]
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
        pl.release("post", i)
    if space.get("building") == "tower" and pl.tower_left >> i & 1:
        pl.release("tower", i)
    if space.get("map"):
        pl.map = True
    s.log_event(("track", q, track, tile))


def activations(s: KarviState, pl: Player, name: str) -> list[int]:
    """The tiles (and Francia) a trade- or raid-action can activate now."""
    out = []
    if name == "trade":
        for tile in pl.beside:
            if tile < C.NUM_TR and pl.can_pay(C.TR_TILES[tile]["cost"]):
                out.append(A_ACTIVATE + tile)
        if len(pl.trade_track) >= 6 and pl.res[0] + pl.res[1] >= C.TRADE_TRACK[5]["francia"]["pay_res"]:
            out.append(A_FRANCIA)
    else:
        strength = pl.strength()
        for tile in pl.beside:
            if tile >= C.NUM_TR and C.TR_TILES[tile]["strength"] <= strength:
                out.append(A_ACTIVATE + tile)
        if len(pl.raid_track) >= 6 and strength >= C.RAID_TRACK[5]["francia"]["strength"]:
            out.append(A_FRANCIA)
    return out


def raid(s: KarviState, q: int, damage: int, bonus: list[Any], tile: int | None) -> None:
    """Raid: suffer the damage, then take the bonus (head tiles: -1 damage, +4 points, double)."""
    pl = s.tableaus[q]
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
    s.raid_deaths = 0
    s._push_steps(steps)
    if damage and pl.warriors():
        s.tasks.append(("damage", damage))
    s.log_event(("raid", q, tile, damage))


def build(s: KarviState, q: int, node: int) -> None:
    """A tower or trading post on the site at ``node``, for the points of the next free space."""
    pl = s.tableaus[q]
    site = s.side["spots"][node]["site"]
    b = site["building"]
    pts = site["points"][len(s.sites[node])]
    s.sites = with_key(s.sites, node, (*s.sites[node], q))
    if b == "tower":
        pl.tower_supply -= 1
    else:
        pl.post_supply -= 1
    pl.built += ((node, b),)
    pl.points += pts
    s.log_event(("build", q, b, s.nodes[node], pts))
    if node in s.special_stacks and s.special_stacks[node]:
        s.undo_barrier()
        s.special_known = with_key(s.special_known, node, s.special_known[node] | 1 << q)  # they look at the whole stack
        s.tasks.append(("special_choose", node))
    if any(e.get("on") == "build" for e in pl.effects()):
        s._push_steps([["strength", 2]] if b == "tower" else [["res", 2]])


# ----- the dice actions ------------------------------------------------------------------------
def do_action(s: KarviState, q: int, name: str) -> None:
    """A dice action by name (Dice actions) with the upgrade tiles' bonuses for it, which "you may
    take before or after performing that action" (Upgrade tiles). Rulings: the player chooses
    the order unless it cannot matter (points only); a trade or raid bonus needs a tile (or
    Francia) activated, so taking it first commits the player to trade or raid."""
    pl = s.tableaus[q]
    hooks = [st for e in pl.effects() if e.get("on") == name for st in e["do"]]
    if not hooks:
        push_action(s, q, name)
        return
    points_only = all(st[0] == "points" for st in hooks)
    if name in ("trade", "raid"):
        if points_only or not activations(s, pl, name):
            s.tasks.append((name + "_action", hooks))  # the bonus after an activation
        else:
            s.tasks.append(("hook_order", name, hooks))
    elif points_only:
        push_action(s, q, name)
        s._push_steps(hooks)
    else:
        s.tasks.append(("hook_order", name, hooks))


def hook_order(s: KarviState, q: int, name: str, hooks: list[Any], first: bool) -> None:
    """Upgrade tiles: the bonus before (``first``) or after the action."""
    if name in ("trade", "raid"):
        if first:
            s.tasks.append((name + "_action", [], True))
            s._push_steps(hooks)
        else:
            s.tasks.append((name + "_action", hooks))
    elif first:
        push_action(s, q, name)
        s._push_steps(hooks)
    else:
        s._push_steps(hooks)
        push_action(s, q, name)


def push_action(s: KarviState, q: int, name: str) -> None:
    """The action itself (Dice actions): its steps or the task of its choices."""
    pl = s.tableaus[q]
    if name == "beer":
        n = C.START_BEER
        for sp in C.TRADE_TRACK[: len(pl.trade_track)]:
            n = max(n, sp.get("beer", n))
        s.tasks.append(("beer", n))
    elif name == "provisions":
        n = C.START_PROVISIONS
        for sp in C.RAID_TRACK[: len(pl.raid_track)]:
            n = max(n, sp.get("provisions", n))
        s._push_steps([["provisions", n]])
    elif name == "income":
        s._push_steps([["res", 1 + pl.count("posts")], ["strength", 1 + pl.count("towers")]])
    elif name == "upgrade":
        s.tasks.append(("upgrade_action",))
    elif name == "trade":
        s.tasks.append(("trade_action",))
    elif name == "raid":
        s.tasks.append(("raid_action",))
    elif name == "locked":
        opts = [lane[1]["locked"] for lane, mine in ((C.TRADE_TRACK, pl.trade_track), (C.RAID_TRACK, pl.raid_track))
                if len(mine) >= 2]
        if len(opts) == 1:
            s._push_steps(opts[0])
        elif opts:
            s.tasks.append(("locked", opts))
