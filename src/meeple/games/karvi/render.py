"""Text rendering of a Karvi view: the action track, the map and each tableau, compactly."""

from __future__ import annotations

from typing import Any

from meeple.core.text import plural

from . import components as C
from . import words as Wd


def _part(part: list[Any]) -> str:
    return Wd.steps_words(part)


def _spot(spot: dict[str, Any]) -> str:
    return Wd.spot_words(spot)


def _warriors(war: list[int]) -> str:
    out = []
    for c, n in enumerate(war):
        out += [f"{c // 2 + 1}{'*' if c % 2 else ''}"] * n
    return " ".join(out) or "-"


def render_text(view: dict[str, Any]) -> str:
    """Round, the track with dice (P<player>:<beer>), the map positions and every tableau.

    An injured warrior shows a '*'.
    """
    lines = [f"Round {view['round']} of {view['rounds']}" + (" · game over" if view["over"] else "")]
    dice_at: dict[int, list[str]] = {}
    for d in view["dice"]:
        dice_at.setdefault(d["pos"], []).append(f"P{d['player'] + 1}:{d['beer']}" + ("✓" if d["done"] else ""))
    lines.append("Action track:")
    for i, sp in enumerate(view["track"]):
        mark = " X" if sp["blocked"] else ""
        here = " ".join(dice_at.get(i, []))
        lines.append(f"  {i:2} [{sp['cost']}] {_spot(sp)}{mark}" + (f"  <- {here}" if here else ""))
    lines.append(f"Stop area ({plural(view['stop_tiles_left'], 'tile')} left):")
    t = len(view["track"])
    for k, sp in enumerate(view["stop_area"]):
        here = " ".join(dice_at.get(t + k, []))
        lines.append(f"  {t + k:2} {_spot(sp)}" + (f"  <- {here}" if here else ""))
    ships: dict[str, list[str]] = {}
    for q, pl in enumerate(view["players"]):
        ships.setdefault(pl["ship"], []).append(f"P{q + 1}")
    lines.append("Map: " + ", ".join(f"{n}: {' '.join(s)}" for n, s in ships.items()))
    built = [f"{n} {'/'.join(f'P{q + 1}' for q in v)}" for n, v in view["sites"].items() if v]
    if built:
        lines.append("Buildings: " + ", ".join(built))
    lines.append("Trade display: " + ", ".join(f"#{c + 1}" for c in view["display"]))
    for q, pl in enumerate(view["players"]):
        mark = ">" if view["to_move"] == q else " "
        lines.append(
            f"{mark}P{q + 1} {pl['points']} pts · fur {pl['fur']} silver {pl['silver']} gold {pl['gold']}"
            f" · provisions {pl['provisions']} · strength {pl['strength']} ({_warriors(pl['warriors'])})"
        )
        kinds = [C.TR_TILES[x]["kind"] for x in pl["beside"]]
        lines.append(
            f"    trade track {len(pl['trade_track'])}/6 · raid track {len(pl['raid_track'])}/6"
            f" · tiles beside: {', '.join(kinds) or '-'} · towers {pl['towers']['supply']} posts {pl['posts']['supply']} in supply"
        )
        if "hand" in pl:
            hand = ", ".join(f"{C.UPGRADE_CARDS[c]['type']} #{c + 1}" for c in pl["hand"])
            lines.append(f"    hand: {hand or '-'}")
            for t in pl["tiles_text"]:
                lines.append(f"    face down: {t}")
        else:
            lines.append(f"    face down: {'; '.join(pl['face_down']) or '-'}")
    if view["decision"]:
        dec = view["decision"]
        opts = dec.get("options")
        lines.append(f"Decision: {dec['kind'].replace('_', ' ')}" + (
            " — " + " | ".join(f"{i}: {_part(o)}" for i, o in enumerate(opts)) if opts else ""))
    if view["over"] and view["final"]:
        for q, f in enumerate(view["final"]):
            lines.append(f"Final P{q + 1}: " + ", ".join(f"{k} {v}" for k, v in f.items()) + f" = {view['scores'][q]:g}")
    return "\n".join(lines)
