"""Seeded randomness.

A state never keeps a live RNG object: every chance event draws from an RNG derived from
``(seed, salt, key...)``. Cloning is then just copying two ints, replays are exact, and
``determinize`` re-randomizes all *future* draws by changing the salt.
"""

from __future__ import annotations

import hashlib
import random


def derive(seed: int, salt: int, *keys: object) -> random.Random:
    """A fresh `random.Random` fixed by ``seed``, ``salt`` and ``keys`` (stable across runs)."""
    text = ":".join(str(k) for k in (seed, salt, *keys))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def new_salt(rng: random.Random) -> int:
    """A non-zero salt (salt 0 is reserved for the real game's chance)."""
    return rng.getrandbits(63) | 1
