"""The solver's static bounds (_core.solver_bounds) against the brute-force values: whenever a
bound claims something of a position, the exact value agrees."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bonken_sim._core import solver as S
from bonken_sim._core import solver_bounds as B
from bonken_sim.engine.solve import parse_hands
from bonken_sim.rules.rulesets import preset
from tests.core.test_solver import RULESETS, _ending, _text, _trump
from tests.reference import solver as R
from tests.reference.rules import VARIANTS, Rules

NEGATIVE_TRICK_VARIANTS = (0, 1, 2, 3, 4, 5)  # bukken .. laatste_slag: no trumps, no plus


def _context(vid: int, rs_name: str, seat: int) -> np.ndarray:
    ctx = np.zeros(S.N_CTX, np.int64)
    table = S.new_table(10)
    S.solve_value(
        np.array([1, 2, 4, 8], np.uint64), 0, seat, RULESETS[rs_name].table[vid], table, ctx,
        *S.new_stack(), 1,
    )  # fmt: skip
    return ctx


def _masks(hands: list[set[int]]) -> np.ndarray:
    return np.array([sum(1 << c for c in h) for h in hands], np.uint64)


def _exact(hands, vid, leader, seat, rs_name) -> int:
    contract, trump = VARIANTS[vid]
    rules = Rules.from_record(RULESETS[rs_name].to_dict())
    return R.solve(hands, contract, _trump(trump), leader, seat, rules)[0]


def _bounded_position(rng, i, vid, rs_name):
    """A random ending of 2-4 cards a seat for variant ``vid``, a random leader and seat, and
    its bounds, checked to hold the exact value: (masks, cards in play, context, bounds)."""
    hands = _ending(rng, 2 + i % 3)
    leader, seat = rng.randrange(4), rng.randrange(4)
    ctx = _context(vid, rs_name, seat)
    m = _masks(hands)
    rem = m[0] | m[1] | m[2] | m[3]
    lo, hi = B.position_bounds(m, rem, leader, ctx)
    v = _exact(hands, vid, leader, seat, rs_name)
    assert lo <= v <= hi, (rs_name, vid, _text(hands), leader, seat, lo, hi, v)
    return m, rem, ctx, lo, hi


@pytest.mark.parametrize("rs_name", ["standard", "strict"])
def test_position_bounds_hold_in_negative_contracts(rs_name):
    """2-4 cards a seat, every negative trick contract, leader and seat: the value lies in
    the bounds, and the bounds that decide a position (P can duck every trick) are exact."""
    rng = random.Random(f"bounds-{rs_name}")
    decided = tight = 0
    for i in range(600):
        vid = NEGATIVE_TRICK_VARIANTS[i % 6]
        _, rem, ctx, lo, hi = _bounded_position(rng, i, vid, rs_name)
        plain_lo, plain_hi = B.points_bounds(rem, ctx)
        decided += lo == hi and plain_lo < plain_hi  # P ducks every trick
        tight += hi < plain_hi  # P is forced to win a trick
    assert decided > 20 and tight > 20  # the cases the bounds are for did come up


def test_duck_all_needs_a_lead_the_others_must_beat():
    """P on lead with 2S: the others must beat it, but then must P's 5S stay below them?
    Seat 3 plays JS on the 2S and keeps 4S, under which P's 5S cannot go: no sure duck."""
    hands = "JC 5C TD / 5D 3C 3D / 2S 5S KS / JS 4S AH"
    m = np.array(parse_hands(hands), np.uint64)
    ctx = _context(0, "standard", 2)
    assert B.position_bounds(m, m[0] | m[1] | m[2] | m[3], 2, ctx) == (-15, 0)
    sets = [{c for c in range(52) if int(x) >> c & 1} for x in m]
    assert _exact(sets, 0, 2, 2, "standard") == -5
    # Seat 3 to lead instead: P ducks every spade (2 < 4, 5 < J) and never leads.
    assert B.position_bounds(m, m[0] | m[1] | m[2] | m[3], 3, ctx) == (0, 0)
    assert _exact(sets, 0, 3, 2, "standard") == 0


@pytest.mark.parametrize("rs_name", ["standard", "strict", "must-trump"])
def test_trick_bounds_hold_in_troeven(rs_name):
    """2-4 cards a seat, troeven with every trump and without, every leader and seat: the
    value lies within the sure tricks (top trumps, the leader's cashed masters) and the sure
    losses, and both sides' cashing did narrow the bounds."""
    rng = random.Random(f"trick-bounds-{rs_name}")
    raised = lowered = 0
    for i in range(500):
        m, rem, ctx, lo, hi = _bounded_position(rng, i, 7 + i % 5, rs_name)
        any_lo, any_hi = B.position_bounds(m, rem, -1, ctx)  # the top trumps alone
        raised += lo > any_lo
        lowered += hi < any_hi
    assert raised > 20 and lowered > 20


def test_troeven_keeps_the_trump_bounds_only():
    """In troeven the negative-contract bounds stay off (the context says so)."""
    for vid in range(7, 12):
        assert _context(vid, "standard", 0)[B.C_DUCKS] == 0
    for vid in NEGATIVE_TRICK_VARIANTS:
        assert _context(vid, "standard", 0)[B.C_DUCKS] == 1
    assert preset("standard").table.shape[0] == 12


@pytest.mark.parametrize("rs_name", ["standard", "strict"])
def test_ducking_mid_trick_is_exact(rs_name):
    """After an opponent's lead (P still to play): whenever P can lose this trick and every
    later one by the mid-trick check, the brute force values that lead 0 for P."""
    rng = random.Random(f"mid-duck-{rs_name}")
    claimed = 0
    for i in range(400):
        hands = _ending(rng, 2 + i % 3)
        vid = NEGATIVE_TRICK_VARIANTS[i % 6]
        seat = rng.randrange(4)
        leader = (seat + 1 + rng.randrange(3)) % 4
        contract, _ = VARIANTS[vid]
        rules = Rules.from_record(RULESETS[rs_name].to_dict())
        _, after_lead = R.solve(hands, contract, None, leader, seat, rules)
        m = _masks(hands)
        for c, v in after_lead.items():
            m[leader] &= ~np.uint64(1 << c)
            if B.ducks_trick_and_rest(m, seat, c // 13, c):
                claimed += 1
                assert v == 0, (rs_name, vid, _text(hands), leader, seat, c)
            m[leader] |= np.uint64(1 << c)
    assert claimed > 100  # the check did decide positions
