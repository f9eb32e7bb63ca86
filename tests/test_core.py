"""The core contract's own pieces: incremental logs, determinize keeping a log, option checks."""

from __future__ import annotations

import random

import pytest

import meeple
from contract import play_random


def test_log_from_a_start_index_is_the_tail_of_the_log():
    s = meeple.make("trickarus", players=3, seed=2)
    for _ in range(10):
        s.apply(s.legal_actions()[0])
    size = s.log_size()
    for _ in range(7):
        s.apply(s.legal_actions()[0])
    for p in (None, 0, 1, 2):
        whole = s.log(p)
        head = meeple.replay(s.record(), upto=10).log(p)
        assert whole == head + s.log(p, start=size)


def test_determinize_keep_log_keeps_only_the_players_own_log():
    s = meeple.make("trickarus", players=3, seed=2)
    det = s.determinize(1, random.Random(0), keep_log=True)
    assert det.log(1) == s.log(1)
    assert det.log(0, text=False) == s.log(None, text=False)  # player 0's private deal is not in player 1's copy
    with pytest.raises(ValueError):
        s.determinize(1, random.Random(0)).log(1)  # search copies keep no log


def test_records_refuse_determinized_states():
    s = meeple.make("trickarus", players=3, seed=2)
    with pytest.raises(ValueError):
        s.determinize(0, random.Random(0)).record()


def test_boolean_options_take_booleans_only():
    with pytest.raises(meeple.BadOption):
        meeple.make("trickarus", players=3, lightning_variant=1)
    with pytest.raises(meeple.BadOption):
        meeple.make("trickarus", players=3, track=True)


def test_replay_upto_stops_early():
    s = meeple.make("trickarus", players=4, seed=8)
    play_random(s, random.Random(8))
    part = meeple.replay(s.record(), upto=5)
    assert part.history == s.history[:5]


def test_apply_with_a_known_legal_list_still_refuses_illegal_actions():
    s = meeple.make("karvi", players=2, seed=1)
    legal = s.legal_actions()
    bad = next(a for a in range(meeple.game_info("karvi").num_actions) if a not in legal)
    with pytest.raises(meeple.IllegalAction):
        s.apply(bad, legal=legal)
    s.apply(legal[0], legal=legal)
    assert s.history == [legal[0]]


def test_rng_shuffle_may_leave_the_first_cards_unordered():
    """``unordered=k``: every card lands where the full shuffle puts it, except that the first
    ``k`` come in some order (a dealt hand as a set)."""
    from meeple.core.rng import shuffle

    for seed in range(200):
        for size, k in ((37, 13), (40, 8), (10, 10), (5, 1), (3, 0), (0, 4)):
            full, part = list(range(size)), list(range(size))
            shuffle(random.Random(seed), full)
            shuffle(random.Random(seed), part, unordered=k)
            assert part[k:] == full[k:] and sorted(part[:k]) == sorted(full[:k])
    short = list(range(37))
    shuffle(random.Random(1), short, unordered=13)
    assert short != sorted(short)  # (not a no-op)


def test_rng_shuffle_gives_the_order_random_shuffle_gives():
    """`meeple.core.rng.shuffle` is a faster `random.Random.shuffle`: same order, same RNG state
    after, for every length (records depend on it)."""
    from meeple.core.rng import shuffle

    for seed in range(200):
        for size in (0, 1, 2, 3, 7, 15, 16, 17, 52, 105):
            ours, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(size)), list(range(size))
            shuffle(ours, a)
            theirs.shuffle(b)
            assert a == b and ours.getstate() == theirs.getstate()


def _twister_keys() -> list[int]:
    """Seeds at the edges of the one-word and two-word keys, and seeded random ones."""
    edges = [0, 1, 2, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1]
    return edges + [random.Random(i).getrandbits(64) for i in range(150)] + [
        random.Random(-i).getrandbits(31) for i in range(50)]


def test_shuffler_gives_the_orders_derive_and_shuffle_give():
    """`rng.shuffler` (a deal's RNG) gives, shuffle after shuffle, what `shuffle` gives from
    `derive`'s `random.Random`, in whichever build runs (compiled: `_twister`)."""
    from meeple.core.rng import derive, shuffle, shuffler

    for seed in range(300):
        ours, theirs = shuffler(seed, 7, "deal", 2), derive(seed, 7, "deal", 2)
        for size, unordered in ((15, 0), (15, 0), (52, 13), (105, 0), (1, 0), (0, 0), (700, 2)):
            a, b = list(range(size)), list(range(size))
            ours.shuffle(a, unordered=unordered)
            shuffle(theirs, b, unordered)
            assert a == b, (seed, size)


def test_key_is_the_blake2b_of_the_joined_text():
    """`rng._key` (every deal's seed) is blake2b's 8-byte digest of ``seed:salt:key...``, read
    big-endian: the text built as the records were made, whatever builds it now."""
    import hashlib

    from meeple.core.rng import _key

    def want(text: str) -> int:
        return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")

    for seed in (0, 1, 7, 2**40, -3):
        for salt in (0, 1, 2**62 + 1):
            for keys in ((), ("deal", 2), ("match", 1), ("reshuffle", 3, "x"), ("plague", 12, 0)):
                text = ":".join(str(k) for k in (seed, salt, *keys))
                assert _key(seed, salt, keys) == want(text)


def test_compiled_twister_draws_the_words_random_random_draws():
    """The compiled build's Mersenne Twister (`meeple.core._twister`) against CPython's, for keys
    of one and two 32-bit words: every ``getrandbits(k)`` (k <= 32) alike for 1,500 draws (past
    the 624-word twist, twice), and every shuffle, with and without ``unordered``."""
    twister = pytest.importorskip("meeple.core._twister", reason="pure Python: no compiled build")
    from meeple.core.rng import shuffle

    for key in _twister_keys():
        ours, theirs = twister.Twister(key), random.Random(key)
        for i in range(1500):
            k = i * 7 % 33
            assert ours.getrandbits(k) == theirs.getrandbits(k), (key, i)
        ours, theirs = twister.Twister(key), random.Random(key)
        for size in [*range(40), 52, 105, 1000]:
            for unordered in (0, 1, 5):
                a, b = list(range(size)), list(range(size))
                ours.shuffle(a, unordered)
                shuffle(theirs, b, unordered)
                assert a == b, (key, size, unordered)
    with pytest.raises(ValueError):
        twister.Twister(1).getrandbits(33)
    with pytest.raises(OverflowError):
        twister.Twister(2**64)



def test_default_options_are_validated_once_and_never_shared():
    """`make()` with no options reuses the player count's validated defaults (a playout makes a
    game each time), but each state gets its own dict, and a bad count is still refused."""
    a = meeple.make("scarvus", players=4, seed=1)
    b = meeple.make("scarvus", players=4, seed=2)
    assert a.options == b.options and a.options is not b.options
    a.options["feathers"] = 99
    assert meeple.make("scarvus", players=4, seed=3).options["feathers"] != 99
    with pytest.raises(meeple.core.BadPlayerCount):
        meeple.make("scarvus", players=9, seed=1)
