"""Text rendering of a Trickarus view (terminal play, replays, PettingZoo's render)."""

from __future__ import annotations

from typing import Any


def _card(c: dict[str, Any]) -> str:
    if c["active"] is None:
        return "Lightning"
    suit, value = c["active"]
    return f"{suit.title()} {value}"


def render_text(view: dict[str, Any]) -> str:
    lines = [
        f"Round {view['round']}" + (f" of {view['round_limit']}" if view["round_limit"] else "")
        + f" · {view['side'].upper()} (trump {view['trump'].title()})"
        + (" · the sun has been reached" if view["sun_reached"] else ""),
    ]
    top = view["track_length"]
    track = []
    for p, q in enumerate(view["positions"]):
        where = "ground" if q == 0 else f"{q}/{top}"
        track.append(f"P{p + 1}: {where}")
    lines.append("Track (sun above " + str(top) + "): " + ", ".join(track))
    if view["trick"]:
        lines.append(
            "Trick: " + ", ".join(f"P{t['player'] + 1} {_card(t['card'])}" for t in view["trick"])
            + (f"  (lead {view['lead_suit'].title()})" if view["lead_suit"] else "")
        )
    elif view["last_trick"]["winner"] is not None:
        lines.append(f"Last trick won by P{view['last_trick']['winner'] + 1}")
    if "hand" in view:
        lines.append("Your hand: " + ", ".join(_card(c) for c in view["hand"]))
    lines.append("Cards in hand: " + ", ".join(f"P{p + 1}:{n}" for p, n in enumerate(view["hand_sizes"])))
    if view["over"]:
        lines.append("Game over. Places: " + ", ".join(f"P{p + 1}:{r}" for p, r in enumerate(view["ranking"])))
    return "\n".join(lines)
