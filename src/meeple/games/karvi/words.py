"""Karvi's components in words, as a player of the printed game names them.

The data files describe effects in a small step language (docs/games/karvi.md, "Effect
language"); these functions turn steps, costs, requirements, tiles, cards and spots into short
phrases for log lines, choice labels and tooltips. Nothing here shows a data key.
"""

from __future__ import annotations

from typing import Any

from meeple.core.text import capital, does, plural, whose, winners
from meeple.core.text import name as name_of

from . import components as C

# Counts (requirements, rune-stone goals, points per ...) in words.
COUNT_WORDS = {
    "towers": "towers built", "posts": "trading posts built", "buildings": "buildings on the map",
    "trade_tiles": "trade tiles on the trade track", "raid_tiles": "raid tiles on the raid track",
    "upgrade_tiles": "upgrade tiles placed", "played_cards": "upgrade cards played",
    "trade_cards": "trade cards taken", "healthy": "healthy warriors", "injured": "injured warriors",
    "warriors": "warriors", "strength": "combat strength", "provisions": "provisions",
    "tower": "tower built", "post": "trading post built", "building": "building on the map",
    "trade_tile": "trade tile", "raid_tile": "raid tile", "provision": "provision",
}
ACTION_WORDS = {
    "beer": "the beer action", "provisions": "the provisions action", "income": "the income action",
    "upgrade": "the upgrade action", "trade": "the trade action", "raid": "the raid action",
    "locked": "a locked action",
}
SLOT_WORDS = {"stern": "stern", "sail": "sail", "head": "figurehead"}


# The same counts when there is one ("1 raid tile on the raid track", not "1 raid tiles").
ONE_WORDS = {
    "towers": "tower built", "posts": "trading post built", "buildings": "building on the map",
    "trade_tiles": "trade tile on the trade track", "raid_tiles": "raid tile on the raid track",
    "upgrade_tiles": "upgrade tile placed", "played_cards": "upgrade card played",
    "trade_cards": "trade card taken", "healthy": "healthy warrior", "injured": "injured warrior",
    "warriors": "warrior", "provisions": "provision",
}


def count_words(key: str) -> str:
    return COUNT_WORDS.get(key, key.replace("_", " "))


def count_of(n: int, key: str) -> str:
    """``n`` things of a count, in words: "1 trading post built", "2 trading posts built"."""
    return f"{n} {ONE_WORDS.get(key, count_words(key)) if n == 1 else count_words(key)}"


def step_words(step: list[Any]) -> str:
    """One step of the effect language as a phrase."""
    op, args = step[0], step[1:]
    n = args[0] if args else 1
    if op == "points":
        return f"+{plural(n, 'point')}"
    if op in ("fur", "silver", "gold"):
        return f"{n} {op}"
    if op == "res":
        return f"{n} fur or silver" if n == 1 else f"{n} fur and/or silver"
    if op == "provisions":
        return f"+{plural(n, 'provision')}"
    if op == "beer":
        return f"+{n} beer on your dice"
    if op == "warrior":
        return f"a new warrior of strength {n}"
    if op == "strength":
        return f"+{n} combat strength"
    if op == "heal":
        return f"heal {plural(n, 'warrior')}"
    if op == "trade_card":
        return f"take {plural(n, 'trade card')}"
    if op == "upgrade_card":
        return f"draw {plural(n, 'upgrade card')}"
    if op == "move":
        how = {"beside": ", without displacing", "force": ", displacing a ship for free"}.get(args[1], "")
        return f"sail up to {plural(n, 'space')} without provisions{how}"
    if op == "action":
        return ACTION_WORDS.get(n, f"the {n} action")
    if op == "pts_per":
        what, per, cap = args
        return f"{plural(per, 'point')} per {count_words(what)}" + (f" (at most {cap})" if cap < 99 else "")
    if op == "unlock":
        return f"unlock your leftmost {'trading post' if n == 'post' else n}"
    if op == "boost_each":
        return f"each {n} warrior gains up to {args[1]} strength"
    if op == "best_healthy":
        return f"points equal to your {plural(n, 'strongest healthy warrior')} (at most {args[1]})"
    if op == "double":
        return f"double the strength of {plural(n, 'healthy warrior')}"
    if op == "flip_for":
        what, per, cap = args
        return f"injure healthy warriors for {per} {what} each" + (f" (at most {cap})" if cap < 99 else "")
    if op == "sacrifice":
        return f"sacrifice a healthy warrior for {plural(n, 'point')}"
    if op == "set_die":
        return f"set one of your dice to {n} beer"
    if op == "free_move":
        return "move your die for free"
    if op == "stack_move":
        return "move your die onto a die ahead"
    if op == "die_back":
        return f"move a die back {plural(n, 'space')}" + (", paying" if args[1] else ", free")
    if op == "reuse":
        return "use again a spot your die stands on"
    if op == "copy_die":
        return "copy another die's beer"
    if op == "pts_per_beer":
        return f"points equal to your dice's beer (at most {n})"
    if op == "any_spot":
        return "use any free spot" + (", paying" if n else ", free")
    if op == "prov_for_points":
        return f"pay provisions for {plural(n, 'point')} each (up to {args[1]} times)"
    if op == "map_jump":
        return "sail to any map spot"
    if op == "join":
        return "join another ship" + (" and displace it" if n else "")
    return " ".join(str(a) for a in step).replace("_", " ")


def steps_words(steps: list[Any]) -> str:
    return ", then ".join(step_words(s) for s in steps) or "nothing"


def cost_words(cost: dict[str, int]) -> str:
    return " and ".join(f"{v} {k}" for k, v in cost.items()) or "free"


def req_words(req: dict[str, int]) -> str:
    return " and ".join(count_of(v, k) for k, v in req.items()) or "nothing"


def spot_words(spot: dict[str, Any]) -> str:
    """An action spot or stop-area place: its parts joined by "and" (+) or "or" (/)."""
    join = " and " if spot.get("join", "+") == "+" else " or "
    return join.join(steps_words(p) for p in spot["parts"])


def spot_name(spot: dict[str, Any]) -> str:
    """An action spot as players call it: "the raid spot", "the trade or raid spot", or by its
    goods in quotes ("the “3 fur” spot")."""
    steps = [st for p in spot["parts"] for st in p]
    if all(st[0] == "action" for st in steps):
        join = " and " if spot.get("join", "+") == "+" else " or "
        return "the " + join.join(ACTION_WORDS.get(st[1], st[1]).removeprefix("the ").removeprefix("a ").removesuffix(" action")
                                  for st in steps) + " spot"
    return f"the \u201c{spot_words(spot)}\u201d spot"


def upgrade_tile_words(x: int) -> str:
    t = C.UPGRADE_TILES[x]
    text = t.get("text", "").replace("-action", " action")
    return f"{SLOT_WORDS.get(t['slot'], t['slot'])} upgrade tile ({text}; needs {req_words(t['requirement'])})"


def rune_words(r: int) -> str:
    s = C.RUNES[r]
    what = count_words(s["count"])
    return (f"rune stone for {what} ({s['easy'][0]} gives {s['easy'][1]} points, {s['hard'][0]} gives "
            f"{s['hard'][1]}; needs {req_words(s['requirement'])})")


def placeable_words(x: int) -> str:
    """An upgrade tile (0..23) or a rune stone (24..35)."""
    return upgrade_tile_words(x) if x < C.NUM_UT else rune_words(x - C.NUM_UT)


def tr_tile_words(x: int) -> str:
    """A trade tile (cost, bonus) or a raid tile (strength, damage, bonus)."""
    t = C.TR_TILES[x]
    if x < C.NUM_TR:
        return f"{t['kind']} trade tile (pay {cost_words(t['cost'])} for {steps_words(t['bonus'])})"
    return (f"{t['kind']} raid tile (strength {t['strength']}, {t['damage']} damage, "
            f"{steps_words(t['bonus'])})")


def card_words(c: int) -> str:
    card = C.UPGRADE_CARDS[c]
    what = card.get("text") or " or ".join(steps_words(b) for b in card["boxes"])
    return f"{card['type']} card {card['number']} ({cost_words(card['cost'])}: {what})"


def trade_card_words(x: int) -> str:
    return f"trade card {x + 1} (" + " or ".join(steps_words(b) for b in C.TRADE_CARDS[x]["boxes"]) + ")"


def special_words(x: int) -> str:
    sp = C.SPECIALS[x]
    per = " and ".join(count_words(p) for p in sp["per"])
    return f"special rune stone ({steps_words(sp['bonus'])} now; {plural(sp['points'], 'point')} per {per})"


def warrior_words(c: int) -> str:
    """A warrior class: strength c // 2 + 1, injured when c is odd."""
    return f"{'injured' if c % 2 else 'healthy'} warrior of strength {c // 2 + 1}"


# ----- the log --------------------------------------------------------------------------------
# The rules log compact tuples, their type first (`KarviState.log_event`); these are the fields
# of the rest, in order, and the constant fields each event of the type carries besides.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "start_card": ("player", "start_card"),
    "free_rune": ("player", "free_rune"),
    "sits_out": ("player", "die"),
    "die_move": ("player", "die", "to", "paid"),
    "sail": ("player", "ship"),
    "displaced": ("player", "displaced_to"),
    "scout": ("player", "scouts"),
    "build": ("player", "builds", "at", "points"),
    "play_card": ("player", "plays"),
    "draw": ("player", "draws_from"),
    "discard": ("player", "discards"),
    "raid": ("player", "raid", "damage"),
    "track": ("player", "track", "tile"),
    "rune": ("player", "rune", "spot"),
    "special_rune": ("player", "special_rune"),
    "trade_card": ("player", "trade_card"),
    "upgrade_tile": ("player", "upgrade_tile", "slot"),
    "francia": ("player", "francia"),
    "round": ("round",),
    "game_over": ("scores",),
}
_EVENT_FLAGS: dict[str, dict[str, Any]] = {"sits_out": {"sits_out": True}, "game_over": {"game_over": True}}


def event_dict(event: tuple[Any, ...]) -> dict[str, Any]:
    """A compact event as the log's JSON: ``{"type": ..., field: value, ...}``."""
    kind = event[0]
    out: dict[str, Any] = {"type": kind}
    out.update(zip(EVENT_FIELDS[kind], event[1:], strict=True))
    out.update(_EVENT_FLAGS.get(kind, {}))
    return out


def _your(p: int, viewer: int | None) -> str:
    return "Your" if p == viewer else whose(p, viewer)


def event_text(event: dict[str, Any], player: int | None, track_size: int,
               spots: list[dict[str, Any]]) -> str | None:
    """The sentence of a logged event as ``player`` reads it (None: not one of these)."""
    kind = event.get("type")
    p: Any = event.get("player")  # events without a player never use it
    if kind == "round":
        return f"Round {event['round']} begins."
    if kind == "game_over":
        scores = event["scores"]
        best = max(scores)
        top = [q for q, v in enumerate(scores) if v == best]
        return f"{winners(top, player)} with {best:g} points."
    if kind == "start_card":
        return f"{does(p, player, 'take', 'takes')} start card {event['start_card']}."
    if kind == "free_rune":
        return f"{does(p, player, 'place', 'places')} the {rune_words(event['free_rune'])} on the first rune spot, free."
    if kind == "sits_out":
        return f"{capital(name_of(p, player))} cannot move a die out of the stop area; it sits out the round."
    if kind == "die_move":
        to = event["to"]
        where = "the stop area" if to >= track_size else spot_name(spots[to])
        paid = f"paying {event['paid']} beer" if event["paid"] else "for free"
        return f"{does(p, player, 'move', 'moves')} a die to {where}, {paid}."
    if kind == "sail":
        return f"{does(p, player, 'sail', 'sails')} to {event['ship']}."
    if kind == "displaced":
        return f"{_your(p, player)} ship is displaced to {event['displaced_to']}."
    if kind == "scout":
        return f"{does(p, player, 'scout', 'scouts')} and take{'' if p == player else 's'} the {tr_tile_words(event['scouts'])}."
    if kind == "build":
        b = "trading post" if event["builds"] == "post" else event["builds"]
        return f"{does(p, player, 'build', 'builds')} a {b} in {event['at']} (+{plural(event['points'], 'point')})."
    if kind == "play_card":
        c = next(i for i, card in enumerate(C.UPGRADE_CARDS) if card["number"] == event["plays"])
        return f"{does(p, player, 'play', 'plays')} the {card_words(c)}."
    if kind == "draw":
        return f"{does(p, player, 'draw', 'draws')} a {event['draws_from']} card."
    if kind == "discard":
        return f"{does(p, player, 'discard', 'discards')} two upgrade cards for 1 gold."
    if kind == "raid":
        tile = event["raid"]
        what = f"the {tr_tile_words(tile)}" if tile is not None else "the raid"
        return f"{does(p, player, 'raid', 'raids')} {what} and take{'' if p == player else 's'} {event['damage']} damage."
    if kind == "track":
        return f"{does(p, player, 'put', 'puts')} the {tr_tile_words(event['tile'])} on {'your' if p == player else 'their'} {event['track']} track."
    if kind == "rune":
        r = event["rune"]
        what = special_words(r - 100) if r >= 100 else rune_words(r)
        return f"{does(p, player, 'place', 'places')} the {what} on rune spot {event['spot'] + 1}."
    if kind == "special_rune":
        return f"{does(p, player, 'take', 'takes')} the {special_words(event['special_rune'])}."
    if kind == "trade_card":
        return f"{does(p, player, 'take', 'takes')} {trade_card_words(event['trade_card'] - 1)}."
    if kind == "upgrade_tile":
        return f"{does(p, player, 'place', 'places')} the {upgrade_tile_words(event['upgrade_tile'])}."
    if kind == "francia":
        return f"{does(p, player, 'trade', 'trades')} in Francia."
    return None
