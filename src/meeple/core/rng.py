"""Seeded randomness.

A state never keeps a live RNG object: every chance event draws from an RNG derived from
``(seed, salt, key...)``. Cloning is then just copying two ints, replays are exact, and
``determinize`` re-randomizes all *future* draws by changing the salt.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Final, Protocol


def _compiled_twister() -> Any:
    """The compiled build's Mersenne Twister (setup.py), or None: pure Python uses
    `random.Random` itself."""
    try:
        from meeple.core._twister import Twister
    except ImportError:
        return None
    return Twister


_Twister: Any = _compiled_twister()


_blake2b: Final = hashlib.blake2b


def _key(seed: int, salt: int, keys: tuple[object, ...]) -> int:
    """The 64-bit seed of ``(seed, salt, *keys)``'s RNG: the blake2b digest of their `str`
    joined by ``:`` (built by f-strings, not by a join over a generator: every deal pays this)."""
    text = f"{seed}:{salt}"
    for k in keys:
        text = f"{text}:{k}"
    return int.from_bytes(_blake2b(text.encode(), digest_size=8).digest(), "big")


def derive(seed: int, salt: int, *keys: object) -> random.Random:
    """A fresh `random.Random` fixed by ``seed``, ``salt`` and ``keys`` (stable across runs)."""
    return random.Random(_key(seed, salt, keys))


class Shuffler(Protocol):
    """What `shuffler` gives: shuffles only."""

    def shuffle(self, cards: list[Any], unordered: int = 0) -> None: ...


class _DealRandom(random.Random):
    """A `random.Random` whose ``shuffle`` is this module's `shuffle` (pure Python's `Shuffler`:
    a subclass, not a wrapper, so a deal makes one object, as `derive` does)."""

    def shuffle(self, cards: list[Any], unordered: int = 0) -> None:  # type: ignore[override]
        shuffle(self, cards, unordered)


def shuffler(seed: int, salt: int, *keys: object) -> Shuffler:
    """`derive(seed, salt, *keys)` for chance that only shuffles (a deal): ``.shuffle(cards,
    unordered=0)`` gives the very orders `shuffle` gives from that RNG, one shuffle after
    another. The compiled build draws them from `meeple.core._twister` (3-4 times faster a deal:
    a `random.Random` costs 4-5 us to seed and a Python call per shuffle step); pure Python from
    the `random.Random` itself."""
    key = _key(seed, salt, keys)
    if _Twister is not None:
        twister: Shuffler = _Twister(key)
        return twister
    return _DealRandom(key)


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
