"""The conditional dealer of `bonken-sim advise` (bonken_sim/_core/conditional.py).

It must follow docs/ENGINE.md "Conditional deals" bit for bit, never give away the known
hand, give every seat 13 cards and spread the 39 unknown cards uniformly over the other
three seats; its batch kernel must play those deals exactly as the rules reference does.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bonken_sim._core.conditional import conditional_batch, conditional_hands
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import standard_table
from bonken_sim.rules.names import parse_hand
from tests.reference import play as reference_play
from tests.reference.rng import Stream, deal_state, mix64, play_state, run_key

ALL52 = (1 << 52) - 1
HANDS = [
    "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C 8C",
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "AH KD QS JC TH 9D 8S 7C 6H 5D 4S 3C 2H",
]


def spec_conditional_deal(seed: int, hand: int, seat: int, deal: int) -> tuple[int, list[int]]:
    """docs/ENGINE.md, "Conditional deals", in plain Python: (deal state, four masks)."""
    key = mix64(run_key(seed) ^ mix64(hand ^ mix64(seat + 0xC0DE)))
    state = deal_state(key, deal)
    stream = Stream(state)
    rest = [c for c in range(52) if not hand >> c & 1]
    for j in range(38, 0, -1):
        k = stream.below(j + 1)
        rest[j], rest[k] = rest[k], rest[j]
    hands = [0] * 4
    hands[seat] = hand
    for q in range(3):
        hands[(seat + 1 + q) % 4] = sum(1 << c for c in rest[13 * q : 13 * q + 13])
    return state, hands


def kernel_hands(seed: int, hand: int, seat: int, start: int, n: int) -> np.ndarray:
    out = np.zeros((n, 4), np.uint64)
    conditional_hands(seed_key(seed), np.uint64(hand), seat, start, out)
    return out


@pytest.mark.parametrize("seat", range(4))
@pytest.mark.parametrize("text", HANDS)
def test_kernel_deals_exactly_as_engine_md_specifies(text, seat):
    hand = parse_hand(text)
    got = kernel_hands(7, hand, seat, 1000, 25)
    for i in range(25):
        _, want = spec_conditional_deal(7, hand, seat, 1000 + i)
        assert [int(h) for h in got[i]] == want


def test_a_large_seed_and_deal_index_work():
    hand = parse_hand(HANDS[0])
    got = kernel_hands(2**64 - 1, hand, 3, 2**40, 3)
    for i in range(3):
        assert [int(h) for h in got[i]] == spec_conditional_deal(2**64 - 1, hand, 3, 2**40 + i)[1]


@pytest.mark.parametrize("seat", range(4))
def test_the_known_hand_stays_and_every_seat_gets_13_distinct_cards(seat):
    hand = parse_hand(HANDS[2])
    hands = kernel_hands(11, hand, seat, 0, 20_000).astype(object)
    assert all(h == hand for h in hands[:, seat])
    union = np.bitwise_or.reduce(hands, axis=1)
    assert all(u == ALL52 for u in union)
    for p in range(4):
        assert all(bin(h).count("1") == 13 for h in hands[:, p])
        for q in range(p + 1, 4):
            assert not any(a & b for a, b in zip(hands[:, p], hands[:, q], strict=True))


def test_deals_depend_on_seed_hand_and_seat_but_not_on_chunking():
    hand = parse_hand(HANDS[0])
    whole = kernel_hands(3, hand, 2, 0, 1000)
    pieces = np.concatenate([kernel_hands(3, hand, 2, s, 100) for s in range(0, 1000, 100)])
    assert np.array_equal(whole, pieces)
    assert not np.array_equal(whole, kernel_hands(4, hand, 2, 0, 1000))
    assert not np.array_equal(whole[:, [0, 1, 3]], kernel_hands(3, hand, 1, 0, 1000)[:, [0, 2, 3]])
    other = parse_hand(HANDS[2])
    assert not np.array_equal(whole[:, 0], kernel_hands(3, other, 2, 0, 1000)[:, 0])


def _chi2_sf_even(x: float, df: int) -> float:
    """P(χ² > x) for an even number of degrees of freedom (a closed form: Poisson tail)."""
    m = df // 2
    term = math.exp(-x / 2)
    total = term
    for i in range(1, m):
        term *= (x / 2) / i
        total += term
    return min(1.0, total)


def _seat_counts(hands: np.ndarray, seat: int, unknown: list[int]) -> np.ndarray:
    """counts[c, k]: how often unknown card c went to the k-th seat after ``seat``."""
    others = [(seat + 1 + k) % 4 for k in range(3)]
    counts = np.zeros((len(unknown), 3), np.int64)
    for k, p in enumerate(others):
        col = hands[:, p]
        for i, c in enumerate(unknown):
            counts[i, k] = int(np.count_nonzero((col >> np.uint64(c)) & np.uint64(1)))
    return counts


def _uniformity_p_values(counts: np.ndarray) -> tuple[float, float]:
    """p-values of (the whole table, the worst single card) under a uniform deal.

    Whole table: Pearson's X over the 39×3 cells. Each seat gets exactly 13 cards, so the
    cells are dependent: by symmetry the centred counts live in the (39−1)(3−1) = 76
    dimensional space where both margins are fixed, with equal variance in every direction,
    and the per-cell variance 2/9 per deal gives E[X] = 78; so X·76/78 is χ² with 76 degrees
    of freedom (for many deals). Single card: its three counts are exactly multinomial, so
    X_c is χ² with 2 degrees of freedom; the worst of 39 is judged with Bonferroni.
    """
    n = counts.sum(axis=1)[0]
    expected = n / 3
    cells = (counts - expected) ** 2 / expected
    whole = _chi2_sf_even(cells.sum() * 76 / 78, 76)
    worst = min(1.0, len(counts) * _chi2_sf_even(cells.sum(axis=1).max(), 2))
    return whole, worst


ALPHA = 1e-4  # the chance this test fails on a correct dealer (per p-value checked)


@pytest.mark.parametrize("seat", [0, 2])
def test_unknown_cards_are_spread_uniformly_over_the_other_seats(seat):
    hand = parse_hand(HANDS[0])
    unknown = [c for c in range(52) if not hand >> c & 1]
    hands = kernel_hands(2024, hand, seat, 0, 60_000)
    counts = _seat_counts(hands, seat, unknown)
    assert (counts.sum(axis=1) == 60_000).all()
    assert (counts.sum(axis=0) == 13 * 60_000).all()
    whole, worst = _uniformity_p_values(counts)
    assert whole > ALPHA and worst > ALPHA, (whole, worst)


def test_the_uniformity_check_catches_a_slightly_biased_dealer():
    # The same statistics on a dealer that sends one card to the first seat 36% of the time
    # instead of 33.3%: both must reject, or the test above proves nothing.
    rng = np.random.default_rng(5)
    n = 60_000
    seat_of = np.repeat(np.arange(3), 13)
    assign = np.empty((n, 39), np.int64)
    for i in range(n):
        assign[i] = rng.permutation(seat_of)
    biased = rng.random(n) < 0.04
    swap = biased & (assign[:, 0] != 0)
    for i in np.flatnonzero(swap):
        j = rng.choice(np.flatnonzero(assign[i] == 0))
        assign[i, j], assign[i, 0] = assign[i, 0], 0
    counts = np.stack([(assign == k).sum(axis=0) for k in range(3)], axis=1)
    whole, worst = _uniformity_p_values(counts)
    assert worst < ALPHA and whole < ALPHA, (whole, worst)


@pytest.mark.parametrize("seat", [1, 2])
@pytest.mark.parametrize("strategies", [(1, 1, 1, 1), (0, 1, 0, 1)])
def test_batch_plays_each_deal_as_the_reference_plays_those_hands(monkeypatch, seat, strategies):
    # The pure-Python rules reference plays the conditional deal from the spec above (its
    # dealing and play stream swapped in); every score must match the kernel's.
    seed, hand, n = 99, parse_hand(HANDS[0]), 12
    variants = np.arange(12, dtype=np.int64)
    scores = np.zeros((n, 12, 4), np.int16)
    conditional_batch(
        seed_key(seed),
        np.uint64(hand),
        seat,
        0,
        0,
        variants,
        np.array(strategies, np.int64),
        standard_table(),
        scores,
    )
    specs = {i: spec_conditional_deal(seed, hand, seat, i) for i in range(n)}

    def hands_of(_seed, deal):
        return [[c for c in range(52) if h >> c & 1] for h in specs[deal][1]]

    def stream_of(_seed, deal, variant_id):
        return Stream(play_state(specs[deal][0], variant_id))

    monkeypatch.setattr(reference_play, "deal_hands", hands_of)
    monkeypatch.setattr(reference_play, "play_stream", stream_of)
    for i in range(n):
        for v in range(12):
            ref = reference_play.play_deal(seed, i, v, strategies, 0)
            assert list(scores[i, v]) == ref["scores"], (i, v)
