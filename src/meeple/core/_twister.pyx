# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""CPython's Mersenne Twister, for the compiled build's shuffles (`meeple.core.rng`).

`Twister(key)` draws the very words ``random.Random(key)`` draws, for a key from 0 to 2**64 - 1,
and `Twister.shuffle` puts cards in the very order `meeple.core.rng.shuffle` (that is,
``random.Random.shuffle``) gives. It exists for speed only: ``random.Random(key)`` costs 4-5 us
(seeding: two passes over the 624-word state, after a first pass that is the same for every key),
and each shuffle step is a Python call (~45 ns). Here the first pass is computed once, the state
is twisted a word at a time as words are drawn (a deal draws about a hundred of the 624), and a
step is a few nanoseconds. Deals must not change (records replay from their seeds), so
`tests/test_core.py` checks this against ``random.Random`` word by word and shuffle by shuffle.

The algorithm is CPython's `Modules/_randommodule.c` (``init_genrand``, ``init_by_array``,
``genrand_uint32``, ``getrandbits`` for k <= 32), itself Matsumoto and Nishimura's reference code.
Without a compiler, `meeple.core.rng` uses ``random.Random`` itself.
"""

from libc.stdint cimport uint32_t, uint64_t
from cpython.object cimport PyObject


cdef extern from "Python.h":
    ctypedef struct PyListObject:
        PyObject **ob_item

cdef enum:
    N = 624
    M = 397

cdef uint32_t MATRIX_A = 0x9908b0dfU
cdef uint32_t UPPER_MASK = 0x80000000U
cdef uint32_t LOWER_MASK = 0x7fffffffU

# init_genrand(19650218): the state every init_by_array starts from, whatever the key.
cdef uint32_t _BASE[N]


cdef void _init_base() noexcept:
    cdef int i
    _BASE[0] = 19650218U
    for i in range(1, N):
        _BASE[i] = 1812433253U * (_BASE[i - 1] ^ (_BASE[i - 1] >> 30)) + <uint32_t>i


_init_base()


cdef class Twister:
    """The words of ``random.Random(key)``; see the module docstring."""

    cdef uint32_t mt[N]
    cdef int index  # the next word to draw; words from here on are not yet twisted

    def __cinit__(self, uint64_t key):
        # random.Random(key) for an int: init_by_array with the key's 32-bit words from the
        # right (one or two), adding word j + j in turn. Its loops' wrap-arounds are unrolled:
        # N steps from word 1 (words 1..N-1, then word 0 takes word N-1 and word 1 is made
        # again), then N-1 steps from word 2 (words 2..N-1, then the same wrap). Each word is
        # made from the one before, kept in ``prev`` (a register, not a reload). The first pass
        # reads `_BASE` and writes ``mt``; both passes go two words a step, so that the word
        # added is a register (word i of the first pass adds ``even`` for odd i, ``odd`` for
        # even i) and the loop's own count is paid once for two words.
        cdef uint32_t even = <uint32_t>key  # add[0]
        # add[1] with a two-word key; with one word, j is always 0
        cdef uint32_t odd = <uint32_t>(key >> 32) + 1 if key >> 32 else <uint32_t>key
        cdef Py_ssize_t i
        cdef uint32_t prev
        cdef uint32_t *mt = self.mt
        prev = _BASE[0]
        i = 1
        while i < N - 1:  # steps i - 1 and i: words i (j even) and i + 1 (j odd)
            prev = (_BASE[i] ^ ((prev ^ (prev >> 30)) * 1664525U)) + even
            mt[i] = prev
            prev = (_BASE[i + 1] ^ ((prev ^ (prev >> 30)) * 1664525U)) + odd
            mt[i + 1] = prev
            i += 2
        prev = (_BASE[N - 1] ^ ((prev ^ (prev >> 30)) * 1664525U)) + even  # step N - 2: j even
        mt[N - 1] = prev
        mt[0] = prev
        prev = (mt[1] ^ ((prev ^ (prev >> 30)) * 1664525U)) + odd  # step N - 1: j odd
        mt[1] = prev
        i = 2
        while i < N:  # words 2..N-1, two a step (N - 2 is even)
            prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - <uint32_t>i
            mt[i] = prev
            prev = (mt[i + 1] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - <uint32_t>(i + 1)
            mt[i + 1] = prev
            i += 2
        mt[0] = prev
        mt[1] = (mt[1] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - 1U
        mt[0] = 0x80000000U
        self.index = N

    cdef inline uint32_t _word(self) noexcept:
        """genrand_uint32. CPython twists all 624 words when the last is used; this twists each
        word just before it is drawn, in the same order, so every word reads the same values
        (a word reads the next one and the one M ahead still untwisted, or, past N - M, the one
        N - M behind already twisted)."""
        cdef uint32_t *mt = self.mt
        cdef int kk = self.index
        cdef uint32_t y
        if kk >= N:
            kk = 0
        if kk < N - M:
            y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK)
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        elif kk < N - 1:
            y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK)
            mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        else:
            y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK)
            mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        self.index = kk + 1
        y = mt[kk]
        y ^= y >> 11
        y ^= (y << 7) & 0x9d2c5680U
        y ^= (y << 15) & 0xefc60000U
        y ^= y >> 18
        return y

    def getrandbits(self, int k):
        """``random.Random.getrandbits(k)`` for 0 <= k <= 32 (all a shuffle needs)."""
        if not 0 <= k <= 32:
            raise ValueError("Twister.getrandbits takes 0 <= k <= 32")
        if k == 0:
            return 0
        return self._word() >> (32 - k)

    def shuffle(self, list cards not None, Py_ssize_t unordered=0):
        """`meeple.core.rng.shuffle(rng, cards, unordered)` with ``rng`` this Twister's
        ``random.Random``: the same order, the same words used."""
        cdef Py_ssize_t size = len(cards)
        cdef Py_ssize_t i, j, stop = unordered if unordered > 1 else 1
        cdef uint64_t n, m
        cdef int k
        cdef PyObject **items = (<PyListObject *>cards).ob_item
        cdef PyObject *swap
        if size > 0xffffffff:
            raise OverflowError("Twister.shuffle takes fewer than 2**32 cards")
        for i in range(size - 1, stop - 1, -1):
            n = i + 1
            k = 0
            m = n
            while m:
                k += 1
                m >>= 1
            j = self._word() >> (32 - k)
            while <uint64_t>j >= n:
                j = self._word() >> (32 - k)
            swap = items[i]  # (the list keeps the same references: no counts change)
            items[i] = items[j]
            items[j] = swap
