"""Text rendering of a Zarcana view: the board as a grid of stacks, pyramids and wasteland.

Each space is two lines, 10 characters wide: the top card (type letter and value, ``/n`` for a
stack of n cards, ``..`` for wasteland) and its pyramids as owner digit, size letter and
orientation (``o`` standing, ``^ > v <`` lying N/E/S/W). Only the part of the window holding the
board (plus one space of wasteland) is drawn.
"""

from __future__ import annotations

from typing import Any

from meeple.core.text import plural

from .rules import CARD_ID, CARDS

_ARROW = {"up": "o", "N": "^", "E": ">", "S": "v", "W": "<"}
_TYPE_LETTER = {"grow_clone": "G", "move": "M", "attack": "A", "build": "B"}
CELL_W = 10


def card_short(code: str) -> str:
    """'G7', 'A11' for a Wild, 'Tel17' for a Special (first letters of its name and value)."""
    c = CARDS[CARD_ID[code]]
    if c["kind"] == "special":
        return c["name"].replace(" ", "")[:3] + str(c["value"])
    return _TYPE_LETTER[c["type"]] + str(c["value"])


def render_text(view: dict[str, Any]) -> str:
    cards = {(b["x"], b["y"]): b["stack"] for b in view["board"]}
    pyr: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for p in view["pyramids"]:
        pyr.setdefault((p["x"], p["y"]), []).append(p)
    spaces = set(cards) | set(pyr)
    lines = [_header(view)]
    if spaces:
        x0 = min(x for x, _ in spaces) - 1
        x1 = max(x for x, _ in spaces) + 1
        y0 = min(y for _, y in spaces) - 1
        y1 = max(y for _, y in spaces) + 1
        lines.append("    " + "".join(f"{x:^{CELL_W}}" for x in range(x0, x1 + 1)))
        for y in range(y0, y1 + 1):
            top, bottom = [], []
            for x in range(x0, x1 + 1):
                stack = cards.get((x, y))
                here = pyr.get((x, y), [])
                if stack:
                    label = card_short(stack[-1]) + (f"/{len(stack)}" if len(stack) > 1 else "")
                elif here:
                    label = ".."
                else:
                    label = ""
                marks = "".join(f"{p['owner']}{p['size'][0].upper()}{_ARROW[p['orient']]}" for p in here[:3])
                if len(here) > 3:
                    marks = marks[:6] + f"+{len(here) - 2}"
                top.append(f"[{label:^{CELL_W - 2}}]" if stack else f"{label:^{CELL_W}}")
                bottom.append(f"{marks:^{CELL_W}}")
            lines.append(f"{y:>3} " + "".join(top))
            lines.append("    " + "".join(bottom))
    lines.append(
        "Scores: " + ", ".join(f"P{p + 1}:{s:g}" for p, s in enumerate(view["scores"]))
        + " · hands: " + ", ".join(f"P{p + 1}:{n}" for p, n in enumerate(view["hand_sizes"]))
        + " · stash S/M/L: " + ", ".join(f"P{p + 1}:{'/'.join(map(str, s))}" for p, s in enumerate(view["stash"]))
    )
    if "hand" in view:
        lines.append("Your hand: " + (", ".join(f"{CARDS[CARD_ID[c]]['name']} ({card_short(c)})" for c in view["hand"]) or "empty"))
    if view["playing"]:
        lines.append(f"Playing {view['playing_name']}")
    if view["reorient_next"]:
        lines.append(f"Reorienting {view['reorient_next']}")
    if view["over"]:
        lines.append("Game over. Places: " + ", ".join(f"P{p + 1}:{r}" for p, r in enumerate(view["ranking"])))
    return "\n".join(lines)


def _header(view: dict[str, Any]) -> str:
    parts = [f"Turn {view['turn'] + 1}"]
    if view["to_move"] is not None:
        parts.append(f"P{view['to_move'] + 1} to move")
    parts.append(f"deck {view['deck_size']}, discards {len(view['discard'])}, reshuffles {view['reshuffles']}")
    if view["declared_by"] is not None:
        parts.append(f"final round declared by P{view['declared_by'] + 1} ({plural(view['turns_left'], 'turn')} left)")
    return " · ".join(parts)
