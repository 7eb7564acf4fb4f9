"""The expert's inference (``_core/infer.py``): the replay scores the other seats' plays
exactly as the advanced tier would have made them, and resampling keeps candidates in
proportion to their weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bonken_sim
from bonken_sim._core.determinize import sample_hands, suit_exclusions
from bonken_sim._core.ids import PASS
from bonken_sim._core.infer import (
    N_PUBLIC,
    domino_log_likelihood,
    history_entry,
    resample,
)
from bonken_sim._core.play_tricks import infer_laatste, infer_negative, infer_troeven
from bonken_sim._core.playout import kernel_table
from bonken_sim.rules.names import VARIANTS
from bonken_sim.rules.rulesets import PRESETS, STANDARD
from tests.reference.rules import DominoDeal, Rules, TrickDeal, trump_suit_of

NOISE = 0.1


def _reference_deal(p):
    """The pure-Python reference's deal of the playout ``p``, before any play."""
    hands = [{c for c in range(52) if h >> c & 1} for h in p.hands]
    rules = Rules.from_record(p.ruleset.to_dict())
    if p.is_domino:
        return DominoDeal(hands=hands, dealer=p.dealer, rules=rules)
    return TrickDeal(p.contract_name, trump_suit_of(p.variant.trump), hands, p.dealer, rules=rules)


def _true_log_likelihood(p, me: int, n: int) -> float:
    """log P(the first ``n`` plays of ``p``) under the model when every other seat played
    the model's card: per decision of theirs with ``k`` legal cards, log(1 - ε + ε / k),
    the legal cards counted by the reference."""
    game = _reference_deal(p)
    total = 0.0
    for c in p.plays[:n]:
        if c is None:
            game.pass_turn()
            continue
        seat = game.to_act()
        k = len(game.legal(seat))
        if seat != me and k > 1:
            total += math.log(1 - NOISE + NOISE / k)
        game.play(c)
    return total


def _log_likelihood(p, row, hands_now, me, hist, n):
    if p.is_domino:
        cur = np.zeros(4, np.uint64)
        return domino_log_likelihood(row, hands_now, me, hist, n, NOISE, -np.inf, cur)
    public, log_likelihood = {"laatste_slag": infer_laatste}.get(p.contract_name, infer_negative)
    if p.variant.trump is not None:
        public, log_likelihood = infer_troeven
    pub = np.zeros((256, N_PUBLIC), np.int64)
    rows = public(row, me, hist, n, pub)
    stake = np.zeros((4, 4), np.int64)
    return log_likelihood(row, hands_now, pub, rows, stake, NOISE, -np.inf)


@pytest.mark.parametrize("ruleset", ["standard", "strict"])
def test_the_true_deal_of_advanced_play_scores_every_play_as_the_models(ruleset: str) -> None:
    """In deals every seat played advanced, the true hands' log-likelihood is exactly the sum
    of log(1 - ε + ε / k) over the other seats' decisions (each matched the model: the
    replay rebuilt the loop's state and choice), and deals drawn from what a seat knows
    mostly score lower."""
    rules = STANDARD if ruleset == "standard" else PRESETS[ruleset]
    lower = drawn = 0
    for v in VARIANTS:
        for deal in range(3):
            p = bonken_sim.play(seed=21, deal=deal, variant=v.name, strategies="advanced",
                                dealer=deal % 4, ruleset=rules)  # fmt: skip
            row = kernel_table(rules.table[p.variant.id])
            hist = np.zeros(256, np.int64)
            for i, (c, q) in enumerate(zip(p.plays, p.seats, strict=True)):
                hist[i] = history_entry(PASS if c is None else c, q)
            for n in (9, 22, 37):
                me = p.seats[n]
                now = np.array(p.hands, np.uint64)
                for c, q in zip(p.plays[:n], p.seats[:n], strict=True):
                    if c is not None:
                        now[q] &= ~np.uint64(1 << c)
                true = _log_likelihood(p, row, now, me, hist, n)
                assert true == pytest.approx(_true_log_likelihood(p, me, n)), (v.name, deal, n)
                # deals of the unseen cards that keep every count and void shown so far
                excl = np.zeros(4, np.uint64)
                if not p.is_domino:
                    game = _reference_deal(p)
                    for c in p.plays[:n]:
                        game.play(c)
                    for q in range(4):
                        voids = sum(1 << (4 * q + s) for s in game.known_void[q])
                        excl[q] = suit_exclusions(voids, q)
                s = np.uint64(deal * 1000 + n)
                sample = np.zeros(4, np.uint64)
                for _ in range(20):
                    s = np.uint64(sample_hands(now, me, excl, s, sample))
                    got = _log_likelihood(p, row, sample, me, hist, n)
                    assert got <= 0.0
                    lower += got < true - 1e-9
                    drawn += 1
    # The model tells deals apart: most drawn deals make the plays seen less likely than the
    # true one (not all: a deal where a seat had a single legal card has no term there).
    assert lower > 0.8 * drawn


def test_resample_keeps_candidates_in_proportion_to_their_weights() -> None:
    mult = np.zeros(8, np.int64)
    # one candidate carries all the weight: it is kept every time
    logw = np.array([-50.0, 0.0, -60.0, -55.0, -70.0, -80.0, -90.0, -99.0])
    _s, eff = resample(logw, 8, 16, mult, np.uint64(7))
    assert mult.tolist() == [0, 16, 0, 0, 0, 0, 0, 0] and eff == 1.0
    # equal weights, k = m: each once, the effective number is k
    _s, eff = resample(np.zeros(8), 8, 8, mult, np.uint64(7))
    assert mult.tolist() == [1] * 8 and eff == 8.0
    # weights 3:1 over 4 + 4 candidates, k = 400: about 300 and 100, never off by more than
    # one per candidate (systematic resampling)
    logw = np.array([math.log(3)] * 4 + [0.0] * 4)
    _s, eff = resample(logw, 8, 400, mult, np.uint64(9))
    assert mult.sum() == 400
    assert abs(mult[:4].sum() - 300) <= 4 and all(abs(x - 75) <= 1 for x in mult[:4])
    assert 1.0 < eff < 400
