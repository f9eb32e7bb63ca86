"""Text rendering of a Savage Bowl view (terminal play, replays, PettingZoo's render)."""

from __future__ import annotations

from typing import Any

from meeple.core.text import plural


def _card(c: dict[str, Any]) -> str:
    return f"{c['colour'].title()} {c['number']}"


def render_text(view: dict[str, Any]) -> str:
    n = view["players"]
    lines = [
        f"Round {view['round']} of {view['rounds']} · trick {view['trick_number']} of "
        f"{view['tricks_per_round']} ({view['half']} half) · target exactly {view['target']} tricks"
    ]
    seats = []
    for p in range(n):
        tags = []
        if view["eliminated"][p]:
            tags.append("OUT")
        if view["yellow_card"] == p:
            tags.append("yellow card")
        if view["sitting_out"] == p:
            tags.append("sits out")
        if view["options"]["chameleons"] and view["chameleon_unused"][p]:
            tags.append("chameleon")
        for champ in view["runaway_champ"]:
            if champ["player"] == p:
                tags.append(f"champ +{champ['value']}")
        seats.append(
            f"P{p + 1}: {plural(view['points'][p], 'point')}, {plural(view['tricks_won'][p], 'trick')}, "
            f"{plural(view['hand_sizes'][p], 'card')}" + (f" [{', '.join(tags)}]" if tags else "")
        )
    lines += seats
    if view["trick"]:
        played = []
        for t in view["trick"]:
            label = _card(t)
            if t["chameleon"]:
                label += f" + Chameleon (as {t['as'].title()})"
            played.append(f"P{t['player'] + 1} {label}")
        lines.append(f"Trick (lead {view['lead_colour'].title()}): " + ", ".join(played))
    if view["progress_sheet"]:
        lines.append(
            "Progress sheet: "
            + ", ".join(
                f"#{d['trick']} P{d['player'] + 1} " + (d["card"] if d["card"] else "face down")
                for d in view["progress_sheet"]
            )
        )
    if "hand" in view:
        lines.append(
            ("Your hand (set aside): " if view["set_aside"] else "Your hand: ")
            + (", ".join(_card(c) for c in view["hand"]) or "empty")
        )
    if view["to_move"] is not None:
        what = "discard a card face down" if view["phase"] == "discard" else "play"
        lines.append(f"P{view['to_move'] + 1} to {what}")
    if view["over"]:
        lines.append(
            "Game over. Places: " + ", ".join(f"P{p + 1}:{r}" for p, r in enumerate(view["ranking"]))
        )
    return "\n".join(lines)
