"""Seeded randomness.

A state never keeps a live RNG object: every chance event draws from an RNG derived from
``(seed, salt, key...)``. Cloning is then just copying two ints, replays are exact, and
``determinize`` re-randomizes all *future* draws by changing the salt.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any


def derive(seed: int, salt: int, *keys: object) -> random.Random:
    """A fresh `random.Random` fixed by ``seed``, ``salt`` and ``keys`` (stable across runs)."""
    text = ":".join(str(k) for k in (seed, salt, *keys))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def new_salt(rng: random.Random) -> int:
    """A non-zero salt (salt 0 is reserved for the real game's chance)."""
    return rng.getrandbits(63) | 1


def shuffle(rng: random.Random, cards: list[Any], unordered: int = 0) -> None:
    """Shuffle ``cards`` in place into the very order ``rng.shuffle(cards)`` gives (records and
    replays depend on it), about twice as fast: `random.Random.shuffle` draws every index through
    the Python method ``_randbelow``; this draws through ``getrandbits`` directly, by the same rule
    (Fisher-Yates from the end; ``n.bit_length()`` bits, drawn again while not below ``n``).
    `tests/test_core.py` checks it against ``rng.shuffle``.

    ``unordered``: a caller that takes the first ``unordered`` cards as a set (a hand dealt as a
    bitmask) may say so; the steps that only reorder those among themselves, the last
    ``unordered - 1``, are then skipped. Every position gets the same card as with the full
    shuffle except the order inside that set (`rng` is left mid-stream: draw nothing after)."""
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, max(unordered, 1) - 1, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
