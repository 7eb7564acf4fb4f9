"""The exact solver's transposition table: a fixed-size uint64 array of two-entry buckets,
keyed on the rank pattern of a position (see ``position_keys``).

Layout: ``table[0]`` is the generation of the current solve (mixed into every key, so a
new solve's keys never match old entries), ``table[1]`` is unused, then entries of four
words: two 64-bit keys, one data word (lower bound, upper bound, best card, log2 of the
nodes the entry cost, generation) and the entry's relevance vector (solver_partition: per
suit, how many top cards the bound depends on). A list of relevance vectors
(``vectors_add``) is an entry of the same form holding seven vectors: four in its fourth
word, three in the low 48 bits of its data word. Quasi-symmetry entries (solver_quasi)
share the table under keys of their own, with the same data word.
"""

import numpy as np

from ._jit import clz, jit
from .cards import SUIT13, U0, U1, npop

GEN_BITS = 10
ENTRY = 4  # words per entry: two key hashes, the data word, the relevance vector
NO_MOVE = 63  # no best card known
_BOUND_OFF = 1 << 20  # a bound is stored as value + _BOUND_OFF in 21 bits
_B21 = (1 << 21) - 1
NO_BOUND_LO = np.int64(1 - _BOUND_OFF)  # "no lower bound" as stored
NO_BOUND_HI = np.int64(_BOUND_OFF - 1)
HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
MUL2 = np.uint64(0xC2B2AE3D27D4EB4F)


def new_table(bits=20):
    """A transposition table of ``2**bits`` entries (32 bytes each; 20 bits = 32 MiB)."""
    return np.zeros(2 + ENTRY * (1 << bits), dtype=np.uint64)


@jit
def next_generation(tt):
    """Bump the table's generation; zero the table when the generation number wraps."""
    gen = np.int64(tt[0]) + 1
    if gen >= (1 << GEN_BITS):
        tt[2:] = U0
        gen = 1
    tt[0] = np.uint64(gen)
    return gen


@jit
def mix(h, sym, mul):
    """One step of the key hashes: fold the word ``sym`` into ``h``."""
    h = (h ^ sym) * mul
    return h ^ (h >> np.uint64(29))


def _compress7_table():
    """``t[m * 128 + x]``: the bits of ``x`` where ``m`` has a one, packed low (a software
    PEXT of 7 bits)."""
    t = np.zeros(128 * 128, np.int64)
    for m in range(128):
        for x in range(128):
            k = 0
            for i in range(7):
                if m >> i & 1:
                    t[m * 128 + x] |= (x >> i & 1) << k
                    k += 1
    return t


_COMPRESS7 = _compress7_table()


@jit
def compress13(x, m):
    """The bits of the 13-bit field ``x`` where ``m`` has a one, packed low."""
    lo = _COMPRESS7[(m & 127) * 128 + (x & 127)]
    hi = _COMPRESS7[(m >> 7) * 128 + (x >> 7)]
    return lo | (hi << npop(np.uint64(m & 127)))


@jit
def position_keys(hands, rem, leader, gen, am, bm):
    """Two 64-bit hashes of the position's rank pattern: per suit, the cards still held in
    rank order, each as (its holder, its point class), and the leader. Positions with one
    pattern have one value (which cards fell earlier only shifts the ranks, never who can
    beat whom or what a card is worth), so they share a table entry. A false match needs
    both hashes to collide (about 2**-128 per probe).

    Per suit the pattern is one exact 56-bit word: the count of cards held, then the
    holder's two bits and the two point-class bits of each card, as bit planes compressed
    to the cards held. ``gen``: the table's generation; ``am``, ``bm``: the two point
    classes' card masks."""
    h1 = np.uint64(gen * 4 + leader + 1)
    h2 = h1
    for s in range(4):
        holders, a, b = suit_pattern(hands, rem, am, bm, s)
        w = np.uint64(holders | (a << 30) | (b << 43))
        h1 = mix(h1, w, HASH_MUL)
        h2 = mix(h2, w + np.uint64(s + 1), MUL2)
    return h1 | U1, h2


@jit
def suit_pattern(hands, rem, am, bm, s):
    """Suit ``s`` of the rank pattern: (the count of its cards in play and their holders'
    two bits as bit planes compressed to those cards, 30 bits; the cards of point class A
    as a plane, 13 bits; those of class B)."""
    sh = np.uint64(13 * s)
    m = np.int64((rem >> sh) & SUIT13)
    o1 = hands[1] | hands[3]
    o2 = hands[2] | hands[3]
    holders = (
        npop(np.uint64(m))
        | (compress13(np.int64((o1 >> sh) & SUIT13), m) << 4)
        | (compress13(np.int64((o2 >> sh) & SUIT13), m) << 17)
    )
    a = compress13(np.int64((am >> sh) & SUIT13), m)
    b = compress13(np.int64((bm >> sh) & SUIT13), m)
    return holders, a, b


@jit
def bucket(tt, key):
    """The first word of the key's bucket: two entries, a deep one (kept while newer
    entries of less work come) and a recent one (always replaced)."""
    n = np.uint64((tt.shape[0] - 2) // (2 * ENTRY))
    return 2 + 2 * ENTRY * np.int64((key >> np.uint64(20)) & (n - U1))


@jit
def tt_find(tt, key, key2):
    """The entry holding ``key``, or -1."""
    i = bucket(tt, key)
    if tt[i] == key and tt[i + 1] == key2:
        return i
    i += ENTRY
    if tt[i] == key and tt[i + 1] == key2:
        return i
    return np.int64(-1)


@jit
def tt_entry(tt, i):
    """(lower bound, upper bound, best card or NO_MOVE) of the entry at ``i``."""
    lo, hi = entry_bounds(tt, i)
    return lo, hi, (np.int64(tt[i + 2]) >> 42) & 63


@jit
def entry_bounds(tt, i):
    """(lower bound, upper bound) of the entry at ``i``."""
    d = np.int64(tt[i + 2])
    return (d & _B21) - _BOUND_OFF, ((d >> 21) & _B21) - _BOUND_OFF


@jit
def tt_vector(tt, i):
    """The relevance vector of the entry at ``i``."""
    return np.int64(tt[i + 3])


@jit
def tt_store(tt, key, key2, lo, hi, move, work, gen, kpack):
    """Store bounds [lo, hi] (merged with what the entry knew) and the best card found with
    ``work`` nodes; ``kpack``: the relevance vector of the bounds (merged suit by suit with
    the entry's: the larger count of exact cards). A new position takes the deep slot when
    it cost at least as much as the deep slot's entry or that entry is from an earlier solve
    (its entry moves to the recent slot), else the recent slot."""
    w = work_log(work)
    i = tt_find(tt, key, key2)
    if i >= 0:
        lo, hi, w = merged_bounds(tt, i, lo, hi, w)
        kpack = merged_vectors(np.int64(tt[i + 3]), kpack)
    else:
        i = new_slot(tt, key, w, gen)
    tt[i] = key
    tt[i + 1] = key2
    tt[i + 3] = np.uint64(kpack)
    tt[i + 2] = data_word(lo, hi, move, w, gen)


@jit
def work_log(work):
    """An entry's work: log2 of the nodes it cost."""
    return np.int64(63 - clz(np.uint64(work))) if work > 0 else np.int64(0)


@jit
def data_word(lo, hi, move, w, gen):
    """An entry's third word: bounds, best card (6 bits), work and generation."""
    return np.uint64(
        (lo + _BOUND_OFF) | ((hi + _BOUND_OFF) << 21) | (move << 42) | (w << 48) | (gen << 54)
    )


@jit
def merged_bounds(tt, i, lo, hi, w):
    """Bounds [lo, hi] and work ``w`` merged with those of the entry at ``i``."""
    elo, ehi = entry_bounds(tt, i)
    return max(lo, elo), min(hi, ehi), max(w, (np.int64(tt[i + 2]) >> 48) & 63)


@jit
def merged_vectors(old, new):
    """Two relevance vectors merged suit by suit: the larger count of exact cards."""
    merged = np.int64(0)
    for s in range(4):
        merged |= max((old >> (4 * s)) & 15, (new >> (4 * s)) & 15) << (4 * s)
    return merged


@jit
def new_slot(tt, key, w, gen):
    """Where a new entry of work ``w`` goes in its bucket: the deep slot when it cost at
    least as much as the deep slot's entry or that entry is from an earlier solve (its
    entry moves to the recent slot), else the recent slot."""
    i = bucket(tt, key)
    d = np.int64(tt[i + 2])
    if ((d >> 54) & 1023) != gen or w >= ((d >> 48) & 63):
        for k in range(ENTRY):
            tt[i + ENTRY + k] = tt[i + k]
        return i
    return i + ENTRY


VECTORS = 7  # relevance vectors a list keeps: four in the fourth word, three in the third
_NO_VECTOR = np.int64(0xFFFF)
_LOW48 = np.int64((1 << 48) - 1)


@jit
def vector_at(tt, i, k):
    """Relevance vector ``k`` (0 the newest) of the list at ``i`` (0xFFFF: none)."""
    if k < 4:
        return (np.int64(tt[i + 3]) >> (16 * k)) & 0xFFFF
    return (np.int64(tt[i + 2]) >> (16 * (k - 4))) & 0xFFFF


@jit
def vectors_add(tt, key, key2, vec, work, gen):
    """List relevance vector ``vec`` under ``key`` (the newest first, VECTORS kept; the
    third word keeps the generation and work bits of an entry above its 48 low bits, so the
    list takes part in the buckets' replacement like any entry)."""
    i = tt_find(tt, key, key2)
    if i < 0:
        tt_store(tt, key, key2, NO_BOUND_LO, NO_BOUND_HI, NO_MOVE, work, gen, np.int64(-1))
        i = tt_find(tt, key, key2)
        tt[i + 2] = np.uint64((np.int64(tt[i + 2]) & ~_LOW48) | _LOW48)
    for k in range(VECTORS):
        if vector_at(tt, i, k) == vec:
            return
    w3 = np.int64(tt[i + 3])
    w2 = np.int64(tt[i + 2])
    tt[i + 2] = np.uint64((w2 & ~_LOW48) | (((w2 << 16) | ((w3 >> 48) & 0xFFFF)) & _LOW48))
    tt[i + 3] = np.uint64((w3 << 16) | vec)
