"""Trickarus' ``learned`` level: a small policy network, trained by ``examples/train_trickarus.py``.

The network was trained with OpenSpiel's policy-gradient agent (A2C, PyTorch) through
`meeple.interop.openspiel` and `open_spiel.python.rl_environment`; its weights ship beside this
module as ``learned.npz`` (see docs/interop.md, "A learned agent"). Playing it needs **nothing
beyond the standard library**: the ``.npz`` is read with `zipfile` (it is a zip of ``.npy``
files, whose header is a Python literal) and the forward pass is a few lines of Python, so the
level is offered in every install, the bare one included, and stays deterministic (no sampling:
the legal action with the highest logit, the lowest id on a tie).

What it sees is `features(view)`: the mover's own `view` and nothing else, so it cannot read a
hidden card by construction. The encoding is this module's, not the interop adapters' generic
observation tensor, on purpose: the weights are bound to it, and an encoding kept next to them
cannot drift when the adapters' layouts change. Seats are *relative* (row 0 is the mover), so
one network serves every seat; every player count and mode has a place in the encoding and the
bot plays them legally, but it was trained on the 2-player competitive game only, and only
there do its arena figures (docs/arena.md) say anything about its strength.
"""

from __future__ import annotations

import ast
import operator
import struct
import sys
import zipfile
from array import array
from functools import cache
from importlib import resources
from typing import Any

from meeple.core import State

from .rules import CARD_ID, FLIPS, LIGHTNING, NUM_CARDS, STRENGTH, SUIT, SUITS

WEIGHTS = "learned.npz"
MAX_PLAYERS = 5
_SIDE = {"day": 0, "night": 1}
_SUIT = {s: i for i, s in enumerate(SUITS)}

# ----- the encoding ---------------------------------------------------------------------------
# Card blocks, 40 slots each (by card id, which is also the action id).
CARD_BLOCKS = (
    "hand",  # my hand
    "played",  # played this round (public)
    "removed",  # out of the round (public)
    "trick",  # on the table in the current trick
    "winning",  # the card winning the trick so far (one-hot)
    "wins",  # cards of my hand that would be winning the trick once I play them (5s flip first)
    "beaten",  # per card of my hand: the share of the unseen cards that would beat it, led now
)
# Per relative seat (row 0 me, row k the player k seats after me), `MAX_PLAYERS` rows: present,
# position / track, on the ground, cards in hand / 13, the space a won trick would take them to
# / track, whether that is the sun, whether they lead this trick, whether they already played in it.
SEAT_FEATURES = 8
# The rest: players one-hot (2..5), night, Lightning variant, co-operative, sun reached, moving
# down, round / 5, track / 30, cards in the trick / players, leading, last to play, lead suit
# one-hot (+ none).
GLOBAL_FEATURES = 4 + 10 + len(SUITS) + 1
FEATURES = len(CARD_BLOCKS) * NUM_CARDS + MAX_PLAYERS * SEAT_FEATURES + GLOBAL_FEATURES


def _up_space(positions: list[int], p: int) -> int:
    """Where a trick won upwards takes ``p`` (the engine's `move_up` without the fall)."""
    space = positions[p] + 1
    while space in positions:
        space += 1
    return space


def _would_win(trick: list[int], card: int, side: int, strong: bool) -> bool:
    """Whether ``card``, played now on ``trick``, is then winning it (the flip of a 5 first)."""
    side ^= FLIPS[card]
    cards = [*trick, card]
    lead = next((c for c in cards if c != LIGHTNING), -1)
    strength = STRENGTH[strong][side][SUIT[side][lead] if lead >= 0 else -1]
    mine = strength[card]
    return all(strength[c] < mine for c in trick)


def _beaten_share(card: int, unseen: list[int], side: int, strong: bool) -> float:
    """The share of ``unseen`` cards that would beat ``card`` led now (after its own flip)."""
    side ^= FLIPS[card]
    strength = STRENGTH[strong][side][SUIT[side][card] if card != LIGHTNING else -1]
    mine = strength[card]
    return sum(1 for u in unseen if strength[u] > mine) / len(unseen)


def features(view: dict[str, Any]) -> list[float]:
    """The network's input for the player whose `view` this is (`FEATURES` floats in [0, 1])."""
    x = [0.0] * FEATURES
    me = view["player"]
    players = view["players"]
    side = _SIDE[view["side"]]
    strong = bool(view["lightning_variant"])
    hand = [CARD_ID[c["code"]] for c in view.get("hand", ())]
    trick = [CARD_ID[t["card"]["code"]] for t in view["trick"]]
    base = 0
    for c in hand:
        x[base + c] = 1.0
    base += NUM_CARDS
    for code in view["played_this_round"]:
        x[base + CARD_ID[code]] = 1.0
    base += NUM_CARDS
    for code in view["removed"]:
        x[base + CARD_ID[code]] = 1.0
    base += NUM_CARDS
    for c in trick:
        x[base + c] = 1.0
    base += NUM_CARDS
    if trick:
        lead = next((c for c in trick if c != LIGHTNING), -1)
        strength = STRENGTH[strong][side][SUIT[side][lead] if lead >= 0 else -1]
        x[base + max(trick, key=strength.__getitem__)] = 1.0
    base += NUM_CARDS
    if trick:
        for c in hand:
            if _would_win(trick, c, side, strong):
                x[base + c] = 1.0
    base += NUM_CARDS
    seen = set(hand).union(trick, (CARD_ID[c] for c in view["played_this_round"]),
                           (CARD_ID[c] for c in view["removed"]))
    unseen = [c for c in range(NUM_CARDS) if c not in seen]
    if unseen:
        for c in hand:
            x[base + c] = _beaten_share(c, unseen, side, strong)
    base += NUM_CARDS
    track = view["track_length"]
    positions = view["positions"]
    sizes = view["hand_sizes"]
    in_trick = {t["player"] for t in view["trick"]}
    for k in range(players):
        p = (me + k) % players
        up = _up_space(positions, p)
        row = base + k * SEAT_FEATURES
        x[row] = 1.0
        x[row + 1] = positions[p] / track
        x[row + 2] = float(positions[p] == 0)
        x[row + 3] = sizes[p] / 13
        x[row + 4] = min(up, track + 1) / (track + 1)
        x[row + 5] = float(up > track)
        x[row + 6] = float(view["leader"] == p)
        x[row + 7] = float(p in in_trick)
    base += MAX_PLAYERS * SEAT_FEATURES
    x[base + players - 2] = 1.0
    base += 4
    x[base] = float(side)
    x[base + 1] = float(strong)
    x[base + 2] = float(view["mode"] == "cooperative")
    x[base + 3] = float(bool(view["sun_reached"]))
    x[base + 4] = float(view["direction"] == "down")
    x[base + 5] = min(view["round"], 5) / 5
    x[base + 6] = track / 30
    x[base + 7] = len(trick) / players
    x[base + 8] = float(not trick)
    x[base + 9] = float(len(trick) == players - 1)
    base += 10
    lead_suit = view["lead_suit"]
    x[base + (_SUIT[lead_suit] if lead_suit is not None else len(SUITS))] = 1.0
    return x


# ----- the weights and the forward pass (standard library only) -------------------------------
def read_npz(data: bytes | str | Any) -> dict[str, tuple[tuple[int, ...], list[float]]]:
    """The float arrays of an ``.npz`` (``np.savez``/``savez_compressed`` of little-endian
    float32/float64 or int arrays in C order): name -> (shape, flat values). No numpy needed."""
    out: dict[str, tuple[tuple[int, ...], list[float]]] = {}
    with zipfile.ZipFile(data) as z:
        for member in z.namelist():
            raw = z.read(member)
            if raw[:6] != b"\x93NUMPY":
                raise ValueError(f"{member}: not a .npy array")
            major = raw[6]
            if major == 1:
                (hlen,), start = struct.unpack("<H", raw[8:10]), 10
            else:
                (hlen,), start = struct.unpack("<I", raw[8:12]), 12
            header = ast.literal_eval(raw[start : start + hlen].decode("latin1"))
            if header["fortran_order"]:
                raise ValueError(f"{member}: Fortran order is not supported")
            codes = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q"}
            if header["descr"] not in codes:
                raise ValueError(f"{member}: dtype {header['descr']} is not supported")
            values = array(codes[header["descr"]])
            values.frombytes(raw[start + hlen :])
            if sys.byteorder == "big":
                values.byteswap()
            shape = tuple(header["shape"])
            size = 1
            for n in shape:
                size *= n
            if len(values) != size:
                raise ValueError(f"{member}: {len(values)} values for shape {shape}")
            out[member.removesuffix(".npy")] = (shape, [float(v) for v in values])
    return out


class Policy:
    """A multilayer perceptron: ReLU hidden layers, then one logit per action.

    ``layers`` is a list of (weights, bias), weights as rows of inputs (PyTorch's ``Linear``
    layout: ``out x in``). The hidden layers are kept by *input* (columns) as well: the inputs
    are mostly zeros (one-hot cards) and ReLU zeroes many hidden units, so each layer adds up
    only the columns of its nonzero inputs, which is what makes plain Python fast enough (a
    fraction of a millisecond a move for a 256-unit layer).
    """

    def __init__(self, layers: list[tuple[list[list[float]], list[float]]]) -> None:
        self.layers = layers
        self.inputs = len(layers[0][0][0])
        self.outputs = len(layers[-1][1])
        self._columns = [[list(col) for col in zip(*weights, strict=True)] for weights, _ in layers[:-1]]

    @classmethod
    def from_arrays(cls, arrays: dict[str, tuple[tuple[int, ...], list[float]]]) -> Policy:
        """From the arrays ``w0, b0, w1, b1, ...`` (the last pair is the logits layer)."""
        layers = []
        i = 0
        while f"w{i}" in arrays:
            (rows, cols), flat = arrays[f"w{i}"]
            _, bias = arrays[f"b{i}"]
            layers.append(([flat[r * cols : (r + 1) * cols] for r in range(rows)], list(bias)))
            i += 1
        if not layers:
            raise ValueError("no layers w0, b0, ... in the weights")
        return cls(layers)

    def hidden(self, x: list[float]) -> list[float]:
        """The last hidden layer's activations for input ``x``."""
        add = operator.add
        for columns, (_, bias) in zip(self._columns, self.layers, strict=False):
            acc = bias
            for v, col in zip(x, columns, strict=True):
                if v == 1.0:
                    acc = list(map(add, acc, col))
                elif v:
                    acc = [a + v * w for a, w in zip(acc, col, strict=True)]
            x = [a if a > 0.0 else 0.0 for a in acc]
        return x

    def logits(self, x: list[float], actions: list[int] | None = None) -> list[float]:
        """The logits of ``actions`` (all of them when None) for input ``x``."""
        if len(x) != self.inputs:
            raise ValueError(f"the policy takes {self.inputs} inputs, not {len(x)}")
        h = self.hidden(x)
        weights, bias = self.layers[-1]
        mul = operator.mul
        chosen = range(self.outputs) if actions is None else actions
        return [bias[a] + sum(map(mul, h, weights[a])) for a in chosen]


@cache
def shipped_policy() -> Policy:
    """The policy in ``learned.npz`` beside this module (read once per process)."""
    with resources.files(__package__).joinpath(WEIGHTS).open("rb") as f:
        arrays = read_npz(f)
    policy = Policy.from_arrays(arrays)
    if policy.inputs != FEATURES or policy.outputs != NUM_CARDS:
        raise ValueError(
            f"{WEIGHTS}: a {policy.inputs}->{policy.outputs} network, but the encoding has "
            f"{FEATURES} features and the game {NUM_CARDS} actions: retrain (examples/train_trickarus.py)"
        )
    return policy


class LearnedBot:
    """The ``learned`` level: the trained policy's most likely legal card, from the mover's view.

    Deterministic (no sampling): the same state gives the same card whatever the seed, which is
    kept only for the common bot signature.
    """

    name = "learned"

    def __init__(self, seed: int = 0, policy: Policy | None = None) -> None:
        self.seed = seed
        self.policy = policy or shipped_policy()

    def choose(self, state: State) -> int:
        me = state.to_move
        if me is None:
            raise ValueError("the game is over: nobody is to move")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        scores = self.policy.logits(features(state.view(me)), legal)
        best = max(range(len(legal)), key=scores.__getitem__)  # the first maximum: lowest id
        return legal[best]
