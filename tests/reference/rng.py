"""Counter-based randomness (splitmix64) and dealing, exactly as in docs/ENGINE.md.

All arithmetic is modulo 2**64; Python ints are masked with MASK64 after every step.
"""

from __future__ import annotations

MASK64 = 0xFFFFFFFFFFFFFFFF
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """The splitmix64 finaliser."""
    z &= MASK64
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & MASK64
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & MASK64
    z ^= z >> 31
    return z


class Stream:
    """A splitmix64 stream: ``next()`` adds GOLDEN to the state and mixes it.

    Each 64-bit output serves two 32-bit draws: its high half, then its low half.
    """

    def __init__(self, state: int) -> None:
        self.state = state & MASK64
        self.draws = 0  # how many times next() was called (for tests)
        self._low: int | None = None

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        self.draws += 1
        return mix64(self.state)

    def next32(self) -> int:
        if self._low is not None:
            low, self._low = self._low, None
            return low
        x = self.next()
        self._low = x & 0xFFFFFFFF
        return x >> 32

    def below(self, n: int) -> int:
        """An integer in [0, n) from one 32-bit draw: (next32() * n) >> 32."""
        if not 1 <= n <= 1 << 32:
            raise ValueError(f"below() needs 1 <= n <= 2**32, got {n}")
        return (self.next32() * n) >> 32


def run_key(seed: int) -> int:
    if not 0 <= seed <= MASK64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return mix64(seed + GOLDEN)


def deal_state(key: int, deal: int) -> int:
    return mix64(key ^ mix64(deal + 1))


def play_state(ds: int, variant_id: int) -> int:
    return mix64(ds ^ mix64(variant_id + 0x5EED))


def deal_hands(seed: int, deal: int) -> list[list[int]]:
    """The four hands (sorted lists of card ints) of deal ``deal`` of run ``seed``.

    Fisher-Yates from the top: for j = 51 .. 1 swap deck[j] with deck[below(j + 1)];
    seat p gets deck[13p : 13p + 13].
    """
    stream = Stream(deal_state(run_key(seed), deal))
    deck = list(range(52))
    for j in range(51, 0, -1):
        k = stream.below(j + 1)
        deck[j], deck[k] = deck[k], deck[j]
    return [sorted(deck[13 * p : 13 * p + 13]) for p in range(4)]


def play_stream(seed: int, deal: int, variant_id: int) -> Stream:
    """The one stream shared by the four seats when deal ``deal`` is played in a variant."""
    return Stream(play_state(deal_state(run_key(seed), deal), variant_id))
