"""Scarvus' own observation tensor (the interop hook; layout in docs/interop.md, "Scarvus").

The generic encoder builds the JSON view and walks it at every step; this reads the state's
fields directly. It holds what `view(player)` shows, field by field, numbers divided by their
largest possible value (exact, so different views give different tensors). Left out, because
they follow from what is in: the options and the bid cap (fixed for the configuration), the
Daedalus card count (the colours in play), who accepted (the responders and how many answered)
and the ranking (the scores). Hidden things (other hands, the decks' order, the Daedalus Hand,
what others peeked at) are never read.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from meeple.core.hooks import TensorHooks
from meeple.core.layout import PerPosition, offsets

from .rules import (
    CAP,
    COLOUR_ID,
    DAEDALUS,
    DECK,
    FLIGHT_DECK,
    LOSS,
    MAX_LIVES,
    MAX_VALUE,
    NC,
    NE,
    RESPOND,
    SCOUTING,
    ScarvusState,
)

D = len(DECK)  # cards of one colour
F = len(FLIGHT_DECK)
V = float(MAX_VALUE)
FEATHERS = 32.0  # feathers of one kind a player can hold, at most (scaled; clipped beyond)
SCORE = 256.0  # |score| scale (clipped beyond)


@cache
def _layout(players: int) -> dict[str, int]:
    """Offsets of each block for ``players`` (the shape depends only on the player count)."""
    n = players
    sizes = [
        ("seat", n + 1),  # the observer's seat; the last slot: the spectator
        ("counters", 2),  # match / 16, round / 64
        ("phase", 7),  # card, scouting, bid, respond, loss, hand_limit, over
        ("to_move", n),
        ("in_play", NC),
        ("decks", NC),  # cards left / D
        ("discard_count", NC),  # / D
        ("discards", NC * D * 2),  # per colour, per position: present, value / V (Daedalus: top)
        ("revealed", n * NC * 2),  # per player and colour: revealed, value / V
        ("bid", 2 + NC + n),  # present, number / CAP, colour, bidder
        ("responders", n * n),  # while responding: the order to answer, one-hot per position
        ("accepted", 1),  # how many answered / players
        ("feathers", n * 2),  # singed, burnt / FEATHERS
        ("lives", n),  # / MAX_LIVES (Fight in the Skies)
        ("alive", n),
        ("flight", 1 + F + n),  # deck / F, the discard pile (effect + 1) / NE, hand sizes / F
        ("challenge", 1 + 2 * n + 1 + NC + n + 2 + n),  # the last challenge (see below)
        ("scores", n),  # (score / SCORE + 1) / 2
        ("loss", 1 + n + 1),  # present, player, difference / (D * V)
        ("hand", NC * 2),  # the observer's: present, value / V
        ("flight_hand", NE),  # the observer's: count / F per effect
        ("seen", (n + 1) * NC * 2),  # cards the observer peeked at (owner, colour): seen, value
        ("scouted", 1 + NC + 1),  # present, colour, value / V
    ]
    return offsets(sizes)


def observation_tensor_shape(players: int, options: dict[str, Any]) -> tuple[int, ...]:
    """Flat: seat, counters, turn, colours, piles, per-player rows, the observer's secrets."""
    return (_layout(players)["size"],)


def _clip(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def observation_tensor(state: ScarvusState, player: int | None) -> np.ndarray:
    """``state`` as ``player`` (None: a spectator) may know it, as float32 in [0, 1]. The public
    part is computed once per position (every observer asks in turn) and copied."""
    s = state
    out = _SHARED.get(s, _public).copy()
    n = s.players
    lay = _layout(n)
    out[lay["seat"] + (n if player is None else player)] = 1.0
    if player is None:
        return out
    colours = [c for c in range(NC) if s.in_play >> c & 1]
    if s.alive[player]:
        at = lay["hand"]
        for c in colours:
            out[at + 2 * c] = 1.0
            out[at + 2 * c + 1] = (s.hand[player * NC + c] + 1) / (V + 1)
    at = lay["flight_hand"]
    for t in range(NE):
        out[at + t] = s.flight_hand[player][t] / F
    peeks = s.peeks[player]
    if peeks:
        at = lay["seen"]
        for k, owner in enumerate([*range(n), DAEDALUS]):
            if owner == player:
                continue
            for c in colours:
                if peeks >> (owner * NC + c) & 1:
                    value = s.daedalus[c] if owner == DAEDALUS else s.hand[owner * NC + c]
                    out[at + (k * NC + c) * 2] = 1.0
                    out[at + (k * NC + c) * 2 + 1] = (value + 1) / (V + 1)
    if s.phase == SCOUTING and player == s.to_move:
        at = lay["scouted"]
        out[at] = 1.0
        out[at + 1 + s.pending_colour] = 1.0
        out[at + 1 + NC] = s.pending / V
    return out


def _public(s: ScarvusState) -> np.ndarray:
    """What every observer sees (no seat, no secrets)."""
    n = s.players
    lay = _layout(n)
    out: list[float] = [0.0] * lay["size"]  # a list: item writes cost a fraction of numpy's
    out[lay["counters"]] = _clip(s.match / 16)
    out[lay["counters"] + 1] = _clip(s.round / 64)
    over = s.to_move is None
    out[lay["phase"] + (6 if over else s.phase)] = 1.0
    if not over:
        out[lay["to_move"] + s.to_move] = 1.0
    colours = [c for c in range(NC) if s.in_play >> c & 1]
    for c in colours:
        out[lay["in_play"] + c] = 1.0
        out[lay["decks"] + c] = len(s.decks[c]) / D
        pile = s.discards[c]
        out[lay["discard_count"] + c] = len(pile) / D
        at = lay["discards"] + c * D * 2
        if s.daedalus_mode:
            if pile:
                out[at] = 1.0
                out[at + 1] = pile[-1] / V
        else:
            for i, value in enumerate(pile[:D]):
                out[at + 2 * i] = 1.0
                out[at + 2 * i + 1] = value / V
        for p in range(n):
            if s.revealed[p] >> c & 1:
                at = lay["revealed"] + (p * NC + c) * 2
                out[at] = 1.0
                out[at + 1] = s.hand[p * NC + c] / V
    if s.bid is not None:
        at = lay["bid"]
        out[at] = 1.0
        out[at + 1] = s.bid[0] / CAP
        out[at + 2 + s.bid[1]] = 1.0
        out[at + 2 + NC + s.bidder] = 1.0
    if s.phase == RESPOND and not over:
        at = lay["responders"]
        for i, q in enumerate(s.responders[:n]):
            out[at + i * n + q] = 1.0
        out[lay["accepted"]] = s.resp_idx / n
    for p in range(n):
        out[lay["feathers"] + 2 * p] = _clip(s.singed[p] / FEATHERS)
        out[lay["feathers"] + 2 * p + 1] = _clip(s.burnt[p] / FEATHERS)
        if s.fight:
            out[lay["lives"] + p] = _clip(s.lives[p] / MAX_LIVES)
        out[lay["alive"] + p] = bool(s.alive[p])
    at = lay["flight"]
    out[at] = len(s.flight_deck) / F
    for i, t in enumerate(s.flight_discard[:F]):
        out[at + 1 + i] = (t + 1) / NE
    for p in range(n):
        out[at + 1 + F + p] = sum(s.flight_hand[p]) / F
    last = s.last_challenge
    if last is not None:
        at = lay["challenge"]
        out[at] = 1.0
        out[at + 1 + last["bidder"]] = 1.0
        out[at + 1 + n + last["challenger"]] = 1.0
        at += 1 + 2 * n
        out[at] = last["number"] / CAP
        out[at + 1 + COLOUR_ID[last["colour"]]] = 1.0
        at += 1 + NC
        for q, value in enumerate(last["cards"][:n]):
            out[at + q] = (value + 1) / (V + 1)
        at += n
        out[at] = _clip(last["total"] / (D * V))
        out[at + 1] = bool(last["safe"])
        out[at + 2 + last["loser"]] = 1.0
    at = lay["scores"]
    for p, score in enumerate(s.scores()):
        out[at + p] = _clip((score / SCORE + 1.0) / 2.0)
    if s.phase == LOSS and s.res is not None:
        at = lay["loss"]
        out[at] = 1.0
        out[at + 1 + s.res[1]] = 1.0
        out[at + 1 + n] = _clip(s.res[3] / (D * V))
    return np.array(out, np.float32)


_SHARED = PerPosition()  # the last position's public part


TENSORS = TensorHooks(
    observation_tensor_shape=observation_tensor_shape,
    observation_tensor=observation_tensor,
)  # the interop hooks (GameInfo.tensors names this module)
