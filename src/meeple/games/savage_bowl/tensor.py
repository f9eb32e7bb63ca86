"""Savage Bowl's own observation tensor (the interop hook; layout in docs/interop.md, "Savage Bowl").

The generic encoder builds the JSON view and walks it at every step (most of a step through
OpenSpiel's `rl_environment`); this reads the state's fields directly. It holds what
`view(player)` shows. A card is its id (its code, colour and number follow from it), so hands
and trick positions are 60-slot rows. Left out, because they follow from what is in:
- the options, the rounds, the target, the tricks per round and the Runaway Champ values
  (fixed for the configuration);
- the half (the trick number), the lead colour (the first card of the trick: a leader never
  plays the Chameleon), a trick card's effective colour (its own, or with the Chameleon the
  effective colour of the card before it) and its player (the order);
- the order itself beyond its leader (the leader, then to the left, skipping the eliminated and
  the seat sitting out), the set-aside flag (the observer's ``eliminated``);
- in a finished round's result: the round (its index), the tricks played (one winner per
  trick: the sum of the tricks won), who was eliminated (one trick too many), the points gained
  and the totals (the scoring rule applied to the tricks and the Champ order); the scores and
  ranking (the points and the last round's Champ order).
Hidden things (other hands, the cards won face down, others' discards) are never read.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from meeple.core.hooks import TensorHooks
from meeple.core.layout import PerPosition, offsets

from .rules import (
    BASE_POINTS,
    CHAM_FLAG,
    DISCARD,
    END_POINTS,
    FIRST_HALF,
    NUM_CARDS,
    PLAY,
    SETUP,
    SavageBowlState,
)

# Points a player can have, at most: under END_POINTS before the last round, then one round's
# best gain (its base points and the best Champ card).
_POINTS = float(
    END_POINTS - 1 + max(BASE_POINTS) + max(max(s["champ_cards"]) for s in SETUP.values())
)
_TRICK_SLOT = NUM_CARDS + 1  # a trick position: the card, one-hot; played with the Chameleon
_SHEET_SLOT = NUM_CARDS + 2  # (per player) a discard: its player (one-hot rows), trick, own card


@cache
def _layout(players: int) -> dict[str, int]:
    """Offsets of each block for ``players`` (the shape depends only on the player count)."""
    n = players
    setup = SETUP[n]
    rounds, tricks, champs = setup["rounds"], setup["tricks"], len(setup["champ_cards"])
    sizes = [
        ("seat", n + 1),  # the observer's seat; the last slot: the spectator
        ("round", rounds),  # one-hot
        ("trick_number", tricks),  # one-hot (min(trick, tricks per round), as the view)
        ("discard_phase", 1),
        ("over", 1),
        ("to_move", n),
        ("leader", n),  # the order's first seat, while a trick is being played
        ("sitting_out", n),  # while a trick is being played
        ("yellow_card", n),  # its holder
        ("trick", n * _TRICK_SLOT),  # per position in play order
        ("tricks_won", n),  # / (target + 1), the most a player can win
        ("eliminated", n),
        ("chameleon_unused", n),
        ("champ", champs * n),  # per Runaway Champ card, its holder
        ("hand_sizes", n),  # / hand size
        (
            "sheet",
            FIRST_HALF * (n + 1 + NUM_CARDS),
        ),  # per discard: player, trick / tricks, own card
        ("points", n),  # / _POINTS
        ("results", rounds * (n + champs * n)),  # per finished round: tricks won, Champ holders
        ("hand", NUM_CARDS),  # the observer's hand
    ]
    return offsets(sizes)


def observation_tensor_shape(players: int, options: dict[str, Any]) -> tuple[int, ...]:
    """Flat: seat, turn state, the trick, per-player rows, the sheet, the results, the hand."""
    return (_layout(players)["size"],)


def observation_tensor(state: SavageBowlState, player: int | None) -> np.ndarray:
    """``state`` as ``player`` (None: a spectator) may know it, as float32 in [0, 1]. The part
    every observer shares is computed once per position (every observer asks in turn) and
    copied; the observer adds their seat, their hand and their own discards' cards."""
    out = _SHARED.get(state, _public).copy()
    n = state.players
    lay = _layout(n)
    out[lay["seat"] + (n if player is None else player)] = 1.0
    if player is not None:
        at = lay["hand"]
        mask = state.hands[player]
        while mask:
            low = mask & -mask
            out[at + low.bit_length() - 1] = 1.0
            mask ^= low
        at = lay["sheet"] + n + 1
        for i, (_, q, c) in enumerate(state.sheet):
            if q == player:
                out[at + i * (n + 1 + NUM_CARDS) + c] = 1.0
    return out


def _public(state: SavageBowlState) -> np.ndarray:
    """What every observer sees (no seat, no hand, no discarded card)."""
    n = state.players
    lay = _layout(n)
    out = np.zeros(lay["size"], np.float32)
    ones = [
        lay["round"] + state.round - 1,
        lay["trick_number"] + min(state.trick_no, state.num_tricks) - 1,
    ]
    to_move = state.to_move
    if to_move is None:
        ones.append(lay["over"])
    else:
        ones.append(lay["to_move"] + to_move)
    if state.phase == DISCARD:
        ones.append(lay["discard_phase"])
    if to_move is not None and state.phase == PLAY:
        ones.append(lay["leader"] + state.order[0])
        if state.sitting >= 0:
            ones.append(lay["sitting_out"] + state.sitting)
    if state.yellow >= 0:
        ones.append(lay["yellow_card"] + state.yellow)
    at = lay["trick"]
    for i, (c, col) in enumerate(zip(state.trick, state.tcol, strict=True)):
        b = at + i * _TRICK_SLOT
        ones.append(b + c)
        if col >= CHAM_FLAG:
            ones.append(b + NUM_CARDS)
    out_bits, cham = state.out, state.cham
    for p in range(n):
        if out_bits >> p & 1:
            ones.append(lay["eliminated"] + p)
        if cham >> p & 1:
            ones.append(lay["chameleon_unused"] + p)
    at = lay["champ"]
    for i, p in enumerate(state.champ):
        ones.append(at + i * n + p)
    slot = n + 1 + NUM_CARDS
    at = lay["sheet"]
    tricks = state.num_tricks
    for i, (t, q, _) in enumerate(state.sheet):
        ones.append(at + i * slot + q)
        out[at + i * slot + n] = t / tricks
    champs = len(state.champ_values)
    row = n + champs * n
    at = lay["results"]
    for r, res in enumerate(state.results):
        b = at + r * row
        for p, w in enumerate(res["tricks"]):
            out[b + p] = w / (state.target + 1)
        for i, p in enumerate(res["champ"]):
            ones.append(b + n + i * n + p)
    out[ones] = 1.0
    top = state.target + 1
    at = lay["tricks_won"]
    out[at : at + n] = [w / top for w in state.won]
    size = state.hand_size
    at = lay["hand_sizes"]
    out[at : at + n] = [h.bit_count() / size for h in state.hands]
    at = lay["points"]
    out[at : at + n] = [q / _POINTS for q in state.points]
    return out


_SHARED = PerPosition()  # the last position's public part


TENSORS = TensorHooks(
    observation_tensor_shape=observation_tensor_shape,
    observation_tensor=observation_tensor,
)  # the interop hooks (GameInfo.tensors names this module)
