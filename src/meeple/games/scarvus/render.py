"""Text rendering of a Scarvus view (terminal play, replays, PettingZoo's render)."""

from __future__ import annotations

from typing import Any


def _discards(pile: Any) -> str:
    if isinstance(pile, dict):  # The Daedalus Challenge: only the top card shows
        return "-" if pile["top"] is None else f"{pile['top']} (+{pile['count'] - 1} under)"
    return " ".join(map(str, pile)) or "-"


def render_text(view: dict[str, Any]) -> str:
    """Match, bid, each colour's deck and discards, each player's feathers or lives and revealed
    cards, and, for a seat, its hand and Flight cards."""
    n = view["players"]
    bid = view["bid"]
    lines = [
        f"Match {view['match']}, round {view['round']} · phase {view['phase']}"
        + (f" · P{view['to_move'] + 1} to move" if view["to_move"] is not None else ""),
        "Bid: " + (f"{bid['number']} {bid['colour']} by P{bid['bidder'] + 1}" if bid else "none yet")
        + (f" (accepted by {', '.join(f'P{q + 1}' for q in view['accepted_by'])})" if view["accepted_by"] else ""),
    ]
    hand = view.get("hand", {})
    for colour in view["in_play"]:
        mine = f"  you: {hand[colour]}" if colour in hand else ""
        lines.append(
            f"  {colour:<7} deck {view['decks'][colour]:>2}  discards: {_discards(view['discards'][colour])}{mine}"
        )
    for p in range(n):
        if view["lives"] is not None:
            status = f"{view['lives'][p]} lives" if view["alive"][p] else "out"
        else:
            f = view["feathers"][p]
            status = f"{f['singed']} singed, {f['burnt']} burnt ({view['scores'][p]:+.0f})"
        rev = ", ".join(f"{c} {v}" for c, v in view["revealed"][p].items())
        flights = view["flight"]["hand_sizes"][p]
        lines.append(
            f"P{p + 1}: {status}" + (f" · revealed {rev}" if rev else "") + (f" · {flights} Flight" if flights else "")
        )
    if view["flight"]["deck"] or view["flight"]["discard"]:
        lines.append(f"Flight deck {view['flight']['deck']}, used: {', '.join(view['flight']['discard']) or '-'}")
    if view.get("flight_hand"):
        lines.append("Your Flight cards: " + ", ".join(view["flight_hand"]))
    for s in view.get("seen", []):
        who = "Daedalus" if s["owner"] == "daedalus" else f"P{s['owner'] + 1}"
        lines.append(f"You saw {who}'s {s['colour']}: {s['value']}")
    if "scouted" in view:
        lines.append(f"Scouted {view['scouted']['colour']}: {view['scouted']['value']}")
    last = view["last_challenge"]
    if last:
        lines.append(
            f"Last challenge: P{last['challenger'] + 1} on {last['number']} {last['colour']}: total {last['total']}, "
            + ("safe" if last["safe"] else "unsafe") + f"; P{last['loser'] + 1} lost"
        )
    if view["over"]:
        lines.append("Game over. Places: " + ", ".join(f"P{p + 1}:{r}" for p, r in enumerate(view["ranking"])))
    return "\n".join(lines)
