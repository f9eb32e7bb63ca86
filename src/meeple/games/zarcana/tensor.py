"""Zarcana's own observation tensor (the interop hook; layout in docs/interop.md, "Zarcana").

The generic encoder builds the JSON view and walks it every step; this reads the state's
fields directly and is several times faster. It encodes exactly what `view(player)` shows:
the board, every pyramid, the public counts and turn state, and only the observer's own hand
(other hands and the deck order are hidden, so a determinized state gives the same tensor).
Players are *relative*: row 0 is the observer (player 0 for the spectator), row k the player k
seats after them, so one network serves every seat.
"""

from __future__ import annotations

import marshal
from functools import cache
from typing import Any

import numpy as np

from meeple.core.hooks import TensorHooks
from meeple.core.layout import PerPosition, offsets

from .rules import (
    CODE,
    DRAW_MAX,
    HAND_LIMIT,
    NUM_ACTIONS,
    NUM_CARDS,
    PIECES,
    VALUE,
    H,
    W,
    ZarcanaState,
    piece_label,
)

# Per card (by id; a card's value and ability are fixed by its id, so they are not repeated):
# on top of a board stack, buried in one, in the discard pile, on top of the discard pile (what
# Recycle takes), in my hand, being played, then x, y (window cell) and depth (0 = top) / 4.
CARD_FEATURES = 9
# Per pyramid (relative owner, then its 15 pieces: 5 small, 5 medium, 5 large): on the board,
# x, y, orientation one-hot (up, N, E, S, W), still to reorient, reoriented next.
PIECE_FEATURES = 10
_STAGES = ("main", "chain", "reorient")
# A chain is at most 4 decisions (a pyramid; an ability, for a master or wild card, or one a
# copied card lends; then an ability's own two, such as a pyramid and its orientation:
# `ZarcanaState._seqs`), and it runs at its last, so at most 3 are ever on view; room for 4.
CHAIN_ROOM = 4
_CODE_BITS = NUM_ACTIONS.bit_length()  # an action as the binary code of its id + 1
_CODES = [tuple(k for k in range(_CODE_BITS) if (a + 1) >> k & 1) for a in range(NUM_ACTIONS)]
_DEPTH = [min(1.0, d / 4) for d in range(NUM_CARDS)]


@cache
def _layout(players: int) -> dict[str, int]:
    """Offsets of each block for ``players`` (the shape depends only on the player count)."""
    sizes = [
        ("cards", NUM_CARDS * CARD_FEATURES),
        ("pieces", players * PIECES * PIECE_FEATURES),
        ("to_move", players),
        ("declared", players),
        ("hand_sizes", players),
        ("scores", players),
        ("stash", players * 3),
        ("stage", len(_STAGES)),
        ("misc", 5),  # turn, deck size, reshuffles, turns left, over
        (
            "chosen",
            CHAIN_ROOM * _CODE_BITS,
        ),  # the current chain's decisions, in order: id + 1 in binary
    ]
    return offsets(sizes)


def observation_tensor_shape(players: int, options: dict[str, Any]) -> tuple[int, ...]:
    """Flat: per-card, per-pyramid and scalar blocks (see docs/interop.md)."""
    return (_layout(players)["size"],)


def observation_tensor(state: ZarcanaState, player: int | None) -> np.ndarray:
    """``state`` as ``player`` (None: a spectator) may know it, as float32 in [0, 1].

    Every observer at one position shares all but their hand and the seat order of the
    per-player rows, so the tensor as player 0 sees it without a hand is computed once per
    position (keyed by the state object and its history length: a state changes only by
    `apply`), then copied, its rows rotated to the observer and their hand added."""
    base = _SHARED.get(state, _encode)
    if not player:  # None or 0: the rows are in order
        out = base.copy()
        if player is None:
            return out
    else:
        out = base[_rotation(state.players, player)]  # row r holds seat (r + player) % n
    out[[k * CARD_FEATURES + 4 for k in state.hands[player]]] = 1.0
    return out


@cache
def _rotation(players: int, player: int) -> np.ndarray:
    """Indices taking the tensor as player 0 sees it to ``player``'s seat order (one gather
    instead of a copy and two slices per per-player block)."""
    lay = _layout(players)
    perm = np.arange(lay["size"], dtype=np.intp)
    for name, width in _ROWS:
        at, size = lay[name], players * width
        perm[at : at + size] = at + (np.arange(size) + player * width) % size
    return perm


# Per-player blocks (rows by relative seat) and their widths.
_ROWS = (
    ("pieces", PIECES * PIECE_FEATURES),
    ("to_move", 1),
    ("declared", 1),
    ("hand_sizes", 1),
    ("scores", 1),
    ("stash", 3),
)
_SHARED = PerPosition()  # the last position's tensor as player 0 sees it, less their hand


def _encode(state: ZarcanaState, player: int | None = None) -> np.ndarray:
    """The tensor as ``player`` sees it, computed in full (None: player 0's seat order, and no
    hand)."""
    n = state.players
    lay = _layout(n)
    me = 0 if player is None else player
    ones: list[int] = []  # slots that are 1
    idx: list[int] = []  # slots with another value, in `val`
    val: list[float] = []
    board = _board(state.stacks)
    ones += board[0]
    idx += board[1]
    val += board[2]
    ones += [k * CARD_FEATURES + 2 for k in state.discard]
    if state.discard:
        ones.append(state.discard[-1] * CARD_FEATURES + 3)
    if player is not None:
        ones += [k * CARD_FEATURES + 4 for k in state.hands[player]]
    if state.playing >= 0:
        ones.append(state.playing * CARD_FEATURES + 5)
    pieces = lay["pieces"]
    p_ones, p_idx, p_val, stash, owners = _pieces(state.pos, state.orient, n, me)
    ones += p_ones
    idx += p_idx
    val += p_val
    for i, q in enumerate(state.reo):
        b = pieces + ((q // PIECES - me) % n * PIECES + q % PIECES) * PIECE_FEATURES
        ones.append(b + 8)
        if i == 0:
            ones.append(b + 9)
    if state.to_move is not None:
        ones.append(lay["to_move"] + (state.to_move - me) % n)
    if state.declared >= 0:
        ones.append(lay["declared"] + (state.declared - me) % n)
    ones.append(lay["stage"] + _STAGES.index(state.stage))
    ch = lay["chosen"]
    for i, a in enumerate(state.chosen[:CHAIN_ROOM]):
        b = ch + i * _CODE_BITS
        ones += [b + k for k in _CODES[a]]
    scores = [0] * n  # Scoring: the top cards each player occupies alone (as State.scores)
    stacks = state.stacks
    for c, who in owners.items():
        if who >= 0 and c in stacks:
            scores[who] += VALUE[stacks[c][-1]]
    hands, hs, sc = state.hands, lay["hand_sizes"], lay["scores"]
    for p in range(n):
        rel = (p - me) % n
        idx += (hs + rel, sc + rel)
        val += (min(1.0, len(hands[p]) / 6), min(1.0, scores[p] / 60))
    idx += range(lay["stash"], lay["stash"] + 3 * n)
    val += [k / 5 for k in stash]
    m = lay["misc"]
    idx += (m, m + 1, m + 2, m + 3, m + 4)
    val += (
        min(1.0, state.turn / 200),
        len(state.deck) / NUM_CARDS,
        min(1.0, state.reshuffles / 5),
        min(1.0, state.turns_left / n) if state.declared >= 0 else 0.0,
        1.0 if state.to_move is None else 0.0,
    )
    out = np.zeros(lay["size"], np.float32)
    out[ones] = 1.0
    out[idx] = val
    return out


# Parts that change on few steps, cached by the fields they are computed from (as `marshal`
# bytes: one C call), at most `_CACHE_MAX` entries each: the board's cards (`_board`) and the
# pyramids (`_pieces`).
_CACHE_MAX = 4096
_BOARDS: dict[bytes, tuple[list[int], list[int], list[float]]] = {}
_PIECES: dict[tuple[int, int, bytes], tuple[Any, ...]] = {}


def _board(stacks: dict[int, list[int]]) -> tuple[list[int], list[int], list[float]]:
    """The board's cards: (slots that are 1, other slots, their values); callers only read."""
    key = marshal.dumps(stacks)
    hit = _BOARDS.get(key)
    if hit is not None:
        return hit
    ones: list[int] = []
    idx: list[int] = []
    val: list[float] = []
    sx, sy = 1.0 / (W - 1), 1.0 / (H - 1)
    for c, stack in stacks.items():
        x, y = c % W * sx, c // W * sy
        depth = len(stack)
        for k in stack:
            depth -= 1
            b = k * CARD_FEATURES
            ones.append(b if depth == 0 else b + 1)
            idx += (b + 6, b + 7, b + 8)
            val += (x, y, _DEPTH[depth])
    if len(_BOARDS) >= _CACHE_MAX:
        _BOARDS.clear()
    _BOARDS[key] = hit = (ones, idx, val)
    return hit


def _pieces(pos: list[int], orient: list[int], n: int, me: int) -> tuple[Any, ...]:
    """The pyramids as ``me`` sees them (rows by relative seat): (slots that are 1, other
    slots, their values, the stash counts by relative seat and size, each occupied cell's only
    owner or -1 when shared); callers only read."""
    key = (n, me, marshal.dumps((pos, orient)))
    hit = _PIECES.get(key)
    if hit is not None:
        return hit
    pieces = _layout(n)["pieces"]
    sx, sy = 1.0 / (W - 1), 1.0 / (H - 1)
    ones: list[int] = []
    idx: list[int] = []
    val: list[float] = []
    stash = [5] * (3 * n)
    owners: dict[int, int] = {}  # cell -> its only owner so far, or -1 when shared
    for q in range(n * PIECES):
        c = pos[q]
        if c < 0:
            continue
        who = q // PIECES
        if owners.get(c, who) != who:
            owners[c] = -1
        else:
            owners[c] = who
        rel = (who - me) % n
        stash[3 * rel + q // 5 % 3] -= 1
        b = pieces + (rel * PIECES + q % PIECES) * PIECE_FEATURES
        ones += (b, b + 3 + orient[q])
        idx += (b + 1, b + 2)
        val += (c % W * sx, c // W * sy)
    if len(_PIECES) >= _CACHE_MAX:
        _PIECES.clear()
    _PIECES[key] = hit = (ones, idx, val, stash, owners)
    return hit


def actions_logged(players: int, options: dict[str, Any]) -> bool:
    """Every decision is logged to everyone as an ``act`` event with its player and action
    (`ZarcanaState._apply`), so the information-state tensor needs no own-actions block (the
    interop hook; `meeple.interop.recall`)."""
    return True


def information_state_room(players: int, options: dict[str, Any]) -> dict[str, int]:
    """Events the rules log once a game in each player's log: the deal (Setup: each player's
    own), the starting board and the end (the interop hook: room 1 instead of room for a
    count that varies; `meeple.interop.recall`)."""
    return {"deal": 1, "setup": 1, "game_end": 1}


def information_state_examples(players: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Every kind of event Zarcana logs, with every card code, pyramid label and reason, and
    lists at their longest (the interop hook: the information-state tensor learns its layout
    from these as well as from random games, so a rare event still has a place; see
    `meeple.interop.recall`). Events as `rules` emits them."""
    labels = [piece_label(q) for q in range(players * PIECES)]
    cell = [0, 0]
    hand = [CODE[0]] * HAND_LIMIT
    out: list[dict[str, Any]] = [
        {"type": "deal", "hand": hand},
        {"type": "drew", "cards": [CODE[0]] * DRAW_MAX},
        {"type": "discard", "player": 0, "cards": hand},
        {"type": "draw", "player": 0, "count": 0},
        {"type": "reshuffle", "count": 1, "deck": 0},
        {"type": "transport", "from": cell, "to": cell},
        {"type": "declare", "player": 0},
        {"type": "recenter", "dx": 0, "dy": 0},
        {"type": "game_end", "scores": [0.0] * players, "ranking": [1] * players},
    ]
    out += [{"type": "setup", "board": [[0, 0, c]] * 9} for c in CODE]
    for c in CODE:
        out += [{"type": t, "cell": cell, "card": c} for t in ("build", "card_destroyed")]
        out += [{"type": "copy", "card": c}, {"type": "take", "player": 0, "card": c}]
    for why in ("reduced", "isolated", "attacked", "sacrifice", "pushed", "converted"):
        out += [{"type": "destroyed", "pyramid": p, "why": why} for p in labels]
    for p in labels:
        out += [{"type": t, "pyramid": p} for t in ("unharmed", "clone", "create")]
        out += [{"type": t, "pyramid": p, "to": p} for t in ("reduced", "grow")]
        out.append({"type": "attack", "by": p, "target": p})
    return out


TENSORS = TensorHooks(
    observation_tensor_shape=observation_tensor_shape,
    observation_tensor=observation_tensor,
    actions_logged=actions_logged,
    information_state_examples=information_state_examples,
    information_state_room=information_state_room,
)  # the interop hooks (GameInfo.tensors names this module)
