"""Trickarus' own observation tensor (the interop hook; layout in docs/interop.md, "Trickarus").

The generic encoder builds the JSON view and walks it at every step; this reads the state's
fields directly, several times faster and in fewer floats. It holds what `view(player)` shows:
a card is its id (its day and night faces, its active face and the lead suit follow from the
id and the side), so hands and tricks are 40-slot rows. What the view repeats from elsewhere is
left out: the trick's players (the leader and the position give them), trump and the lead suit
(the side and the trick give them), the direction (the mode and ``sun_reached``), the ranking
(the scores) and the options and removed cards (fixed for the configuration). Hidden things
(other hands, the undealt cards, who has shown a void) are never read.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from meeple.core.hooks import TensorHooks
from meeple.core.layout import PerPosition, offsets

from .rules import NUM_CARDS, TrickarusState


@cache
def _layout(players: int) -> dict[str, int]:
    """Offsets of each block for ``players`` (the shape depends only on the player count)."""
    sizes = [
        ("seat", players + 1),  # the observer's seat; the last slot: the spectator
        ("round", 1),  # round / 64 (at most 1)
        ("side", 1),  # 1: night
        ("sun_reached", 1),
        ("over", 1),
        ("to_move", players),
        ("leader", players),
        ("positions", players),  # space / track length
        ("scores", players),  # competitive: space / track length; co-op: landed / players
        ("hand_sizes", players),  # cards / 20
        ("trick", players * NUM_CARDS),  # the card at each position of the trick, one-hot
        ("last_winner", players),
        ("last_trick", players * NUM_CARDS),  # the last trick's cards in play order
        ("played", NUM_CARDS),  # played this round
        ("hand", NUM_CARDS),  # the observer's hand
    ]
    return offsets(sizes)


def observation_tensor_shape(players: int, options: dict[str, Any]) -> tuple[int, ...]:
    """Flat: seat, scalars, per-player rows, then card rows (see docs/interop.md)."""
    return (_layout(players)["size"],)


def observation_tensor(state: TrickarusState, player: int | None) -> np.ndarray:
    """``state`` as ``player`` (None: a spectator) may know it, as float32. The public part is
    computed once per position (every observer asks in turn) and copied."""
    out = _SHARED.get(state, _public).copy()
    n = state.players
    lay = _layout(n)
    out[lay["seat"] + (n if player is None else player)] = 1.0
    if player is not None:
        _bits(out, lay["hand"], state.hands[player])
    return out


def _public(state: TrickarusState) -> np.ndarray:
    """What every observer sees (no seat, no hand)."""
    n = state.players
    lay = _layout(n)
    out = np.zeros(lay["size"], np.float32)
    out[lay["round"]] = min(1.0, state.round / 64)
    out[lay["side"]] = state.side
    out[lay["sun_reached"]] = state.sun_reached
    if state.to_move is None:
        out[lay["over"]] = 1.0
    else:
        out[lay["to_move"] + state.to_move] = 1.0
    out[lay["leader"] + state.leader] = 1.0
    track = state.track_length
    at = lay["positions"]
    out[at : at + n] = [q / track for q in state.pos]
    at = lay["scores"]
    if state.coop:
        out[at : at + n] = state.landed() / n
    else:
        out[at : at + n] = [q / track for q in state.pos]
    at = lay["hand_sizes"]
    out[at : at + n] = [h.bit_count() / 20 for h in state.hands]
    at = lay["trick"]
    for i, card in enumerate(state.trick):
        out[at + i * NUM_CARDS + card] = 1.0
    if state.last_winner is not None:
        out[lay["last_winner"] + state.last_winner] = 1.0
    at = lay["last_trick"]
    for i, card in enumerate(state.last_trick):
        out[at + i * NUM_CARDS + card] = 1.0
    _bits(out, lay["played"], state.played)
    return out


_SHARED = PerPosition()  # the last position's public part


def _bits(out: np.ndarray, at: int, mask: int) -> None:
    """A card mask as ones from ``at``."""
    while mask:
        low = mask & -mask
        out[at + low.bit_length() - 1] = 1.0
        mask ^= low


TENSORS = TensorHooks(
    observation_tensor_shape=observation_tensor_shape,
    observation_tensor=observation_tensor,
)  # the interop hooks (GameInfo.tensors names this module)
