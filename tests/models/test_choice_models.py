"""Contract-choice and doubling models: features, fitting, the choice rule, the doubling pass,
settlement, and the shipped models' quality on fresh deals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bonken_sim.analyses.fit_models import fit_models, ols, trump_thresholds
from bonken_sim.engine.provenance import versions
from bonken_sim.engine.selfplay import self_play
from bonken_sim.models import choice as C
from bonken_sim.models import doubling as D
from bonken_sim.models.features import VARIANT_FEATURES, FeatureCache, base_features
from bonken_sim.rules import doubling as R
from bonken_sim.rules.names import parse_hand

ALL_HEARTS = parse_hand("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")


def _slow_features(mask: int) -> dict[str, int]:
    cards = [c for c in range(52) if mask >> c & 1]
    suits = [[c % 13 for c in cards if c // 13 == s] for s in range(4)]
    lengths = [len(x) for x in suits]

    def unguarded(rank: int) -> int:
        return sum(1 for s in suits if rank in s and sum(r < rank for r in s) <= 1)

    return {
        "aces": sum(c % 13 == 12 for c in cards),
        "kings": sum(c % 13 == 11 for c in cards),
        "queens": sum(c % 13 == 10 for c in cards),
        "jacks": sum(c % 13 == 9 for c in cards),
        "tens": sum(c % 13 == 8 for c in cards),
        "low": sum(c % 13 <= 3 for c in cards),
        "twos": sum(c % 13 == 0 for c in cards),
        "eights": sum(c % 13 == 6 for c in cards),
        "voids": lengths.count(0),
        "singletons": lengths.count(1),
        "longest": max(lengths),
        "hearts": lengths[2],
        "hearts_high": sum(r >= 8 for r in suits[2]),
        "kh": int(11 in suits[2]),
        "ah": int(12 in suits[2]),
        "k_unguarded": unguarded(11),
        "q_unguarded": unguarded(10),
        "j_unguarded": unguarded(9),
    }


def test_features_match_a_card_by_card_count():
    hands = self_play(300, seed=5).hands.reshape(-1)
    fast = base_features(hands)
    for i, h in enumerate(hands):
        slow = _slow_features(int(h))
        got = {k: int(v[i]) for k, v in fast.items()}
        assert got == slow, f"hand {i}"


def test_trump_features_of_the_all_hearts_hand():
    fc = FeatureCache(np.array([ALL_HEARTS], np.uint64))
    x = dict(
        zip(("const",) + VARIANT_FEATURES["troeven_H"], fc.design("troeven_H")[0], strict=True)
    )
    assert x["trump_len"] == 13 and x["trump_honours"] == 4
    assert x["side_aces"] == 0 and x["side_voids"] == 3 and x["side_singletons"] == 0
    y = dict(
        zip(("const",) + VARIANT_FEATURES["troeven_S"], fc.design("troeven_S")[0], strict=True)
    )
    assert y["trump_len"] == 0 and y["side_voids"] == 2  # clubs and diamonds; hearts is long


def test_ols_recovers_known_coefficients():
    rng = np.random.default_rng(3)
    x = np.column_stack([np.ones(5000), rng.normal(size=(5000, 3))])
    beta = np.array([2.0, -1.0, 0.5, 3.0])
    fit = ols(x, x @ beta + rng.normal(scale=0.1, size=5000))
    assert np.allclose(fit["coef"], beta, atol=0.01)
    assert fit["r2"] > 0.99 and fit["n"] == 5000


def test_trump_thresholds_by_backward_induction():
    t, n = np.full(100, 12.0), np.full(100, 5.0)
    assert trump_thresholds(t, n) == {"2": 7.0, "3": 7.0}  # constants: wait only for more
    rng = np.random.default_rng(1)
    t, n = rng.normal(10, 8, 200_000), rng.normal(6, 8, 200_000)
    tau = trump_thresholds(t, n)
    # With a chance of a better troeven hand later, waiting is worth something: τ_3 > τ_2 > τ_1.
    assert tau["3"] > tau["2"]
    assert tau["2"] == pytest.approx(t.mean() - n.mean(), abs=1e-3)


def test_settlement_matches_the_rules_test_vector():
    raw = np.array([[-20, -15, -25, -5]])
    m = np.zeros((1, 4, 4), np.int64)
    for (a, b), k in {(0, 1): 1, (0, 2): 2, (1, 3): 1, (2, 3): 2}.items():
        m[0, a, b] = m[0, b, a] = k
    assert R.settle(raw, m).tolist() == [[-15, -20, -75, 45]]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-130, 130), min_size=4, max_size=4),
    st.lists(st.booleans(), min_size=16, max_size=16),
)
def test_settlement_is_zero_sum(raw, bits):
    doubled = np.array(bits, dtype=bool).reshape(1, 4, 4)
    doubled[0, np.arange(4), np.arange(4)] = False
    m = R.multiplicity(doubled)
    assert np.all(m == m.transpose(0, 2, 1)) and m.max() <= 2
    final = R.settle(np.array([raw]), m)
    assert final.sum() == sum(raw)


def test_doubling_pass_rules():
    # θ against the chooser (seat 2), against others; θ_back of the chooser, of a non-chooser
    theta = (5.0, 10.0, 20.0, 14.0)
    est = np.zeros((6, 4, 4))
    # deal 0: seat 3 beats everyone by 13 → doubles at most two (not all three: 13 is below
    # a non-chooser's θ_back of 14)
    est[0, 3, :] = 13.0
    # deal 1: seat 3 beats everyone by 30 → all three (every estimate above its θ_back)
    est[1, 3, :] = 30.0
    # deal 2: seat 0 doubles the chooser; the chooser would gain 12 against seat 0 (> θ, but
    # below the chooser's θ_back of 20)
    est[2, 0, 2] = 6.0
    est[2, 2, 0] = 12.0
    # deal 3: as deal 2 but the chooser's edge is 25 > 20 → he doubles back; seat 1 doubles
    # no one; the chooser may not double seat 1 (who did not double him)
    est[3, 0, 2] = 6.0
    est[3, 2, 0] = 25.0
    est[3, 2, 1] = 50.0
    # deal 4: seat 3 doubles seat 0; seat 0 doubles back at 16: above a non-chooser's θ_back
    # (14), though the chooser's (20) would not have been met
    est[4, 3, 0] = 11.0
    est[4, 0, 3] = 16.0
    # deal 5: as deal 4 at 12 (above θ = 10 against a non-chooser, below θ_back): no double
    # back, and seat 0 may not double seat 3 as a first double either (seat 3 doubled him)
    est[5, 3, 0] = 11.0
    est[5, 0, 3] = 12.0
    d = D.doubles_from_estimates(est, theta)
    assert d[0, 3].sum() == 2 and not d[0, 3, 3]
    assert d[1, 3, [0, 1, 2]].all()
    assert d[2, 0, 2] and not d[2, 2, 0]
    assert d[3, 0, 2] and d[3, 2, 0] and not d[3, 2, 1]
    assert d[4, 3, 0] and d[4, 0, 3]
    assert d[5, 3, 0] and not d[5, 0, 3]
    assert not d[:, np.arange(4), np.arange(4)].any()


def test_shipped_double_back_thresholds_are_fitted_and_stricter(shipped):
    """θ_back is fitted on the opportunities that arise (the target doubled first) and is
    never below θ against a non-chooser, the fit's lower bound (audit: it was 2θ, unfitted,
    and so no stricter where the fitted θ is 0)."""
    for name in C.NAMES:
        th_c, th_o, back_c, back_o = D.thresholds(shipped, name)
        entry = shipped.doubling[name]
        for kind, back in (("chooser", back_c), ("other", back_o)):
            assert entry[f"back_opportunities_{kind}"] >= 1000, (name, kind)
            assert back >= th_o, (name, kind, back, th_o)
        assert back_o > th_o, f"{name}: a non-chooser's θ_back {back_o} is not above θ {th_o}"


def test_models_without_double_back_thresholds_are_refused(shipped):
    doubling = {n: dict(e) for n, e in shipped.doubling.items()}
    del doubling["vrouwen"]["theta_back_other"]
    old = C.Models({**shipped.data, "doubling": doubling})
    with pytest.raises(ValueError, match="theta_back_other for vrouwen"):
        D.thresholds(old, "vrouwen")


def test_fit_models_structure_and_choice_on_a_small_fit():
    m = fit_models(3000, seed=11, threads=2)
    assert versions().items() <= m["provenance"].items()  # the record, beside the fit's own
    models = C.Models(m)
    json.dumps(m)  # the whole thing is JSON-able
    assert set(m["ev"]) == set(C.NAMES) and set(m["doubling"]) == set(C.NAMES)
    for v in C.NAMES:
        assert len(m["ev"][v]["seat_2"]["coef"]) == 1 + len(VARIANT_FEATURES[v])
    assert sum(m["choice"]["chosen_share"].values()) == pytest.approx(1.0, abs=1e-3)
    for v in C.NAMES:
        assert len(D.thresholds(models, v)) == 4  # θ_back fitted too, for every variant
    hands = self_play(50, seed=12).hands[:, 2]
    assert set(C.choose(models, hands)) <= set(C.NAMES)


@pytest.fixture(scope="module")
def shipped():
    return C.load_models()


def test_shipped_models_record_how_they_were_made(shipped):
    prov = shipped.provenance
    assert prov["command"].startswith("python scripts/fit_models.py")
    assert (
        f"--deals {prov['deals']}" in prov["command"]
        and f"--seed {prov['seed']}" in prov["command"]
    )
    assert prov["deals"] >= 100_000


def test_shipped_ev_models_are_unbiased_on_fresh_deals(shipped):
    sp = self_play(20_000, seed=777, start=10**9)  # deals the fit never saw
    for p in range(4):
        ev = C.expected_scores(shipped, sp.hands[:, p], p)
        for v, name in enumerate(C.NAMES):
            resid = sp.scores[:, v, p] - ev[:, v]
            se = resid.std() / np.sqrt(len(resid))
            assert abs(resid.mean()) < 5 * se + 0.05, f"{name} seat {p}: bias {resid.mean():.2f}"


def test_relative_value_choice_beats_random_choice_on_fresh_deals(shipped):
    sp = self_play(20_000, seed=778, start=10**9)
    mu = np.array([shipped.mean[v][2] for v in C.NAMES])
    rel = sp.scores[:, :, 2] - mu  # the chooser's realised relative score in every variant
    picked = C.choose(shipped, sp.hands[:, 2])
    idx = np.array([C.NAMES.index(v) for v in picked])
    rng = np.random.default_rng(0)
    gain = rel[np.arange(len(rel)), idx] - rel[np.arange(len(rel)), rng.integers(0, 12, len(rel))]
    se = gain.std(ddof=1) / np.sqrt(len(gain))
    assert gain.mean() > 10 * se, f"policy gain {gain.mean():.2f} ± {se:.2f}"


def test_choose_respects_the_game_state(shipped):
    hands = np.array([ALL_HEARTS], np.uint64)
    assert C.choose(shipped, hands)[0] == "troeven_H"
    assert C.choose(shipped, hands, trump_used=True)[0] in C.NEGATIVES
    negs_only = ["bukken", "domino"]
    assert C.choose(shipped, hands, available=negs_only)[0] in negs_only
    # last turn without troeven: it must be called, whatever the negatives are worth
    weak = self_play(200, seed=3).hands[:, 2]
    assert all(v.startswith("troeven") for v in C.choose(shipped, weak, turns_left=1))
    with pytest.raises(ValueError, match="unknown contract variant"):
        C.choose(shipped, hands, available=["bukkn"])
    with pytest.raises(ValueError, match="no contract"):
        C.choose(shipped, hands, available=["troeven_H"], trump_used=True)


def test_turns_left_uses_tau(shipped):
    hands = self_play(5000, seed=4).hands[:, 2]
    rel = C.relative_values(shipped, hands, 2)
    gap = rel[:, 7:].max(axis=1) - rel[:, :7].max(axis=1)
    for k in (2, 3):
        got = np.array([v.startswith("troeven") for v in C.choose(shipped, hands, turns_left=k)])
        assert np.array_equal(got, gap > shipped.tau(k))
    assert shipped.tau(3) > shipped.tau(2)


def test_doubles_policy_on_shipped_models(shipped):
    sp = self_play(2000, seed=9)
    for name in ("vrouwen", "troeven_S"):
        d = D.doubles(shipped, sp.hands, name)
        assert d.shape == (2000, 4, 4)
        chooser_fresh = d[:, 2, :] & ~d[:, :, 2]
        assert not chooser_fresh.any(), "the chooser doubled someone who had not doubled him"
        assert (d.sum(axis=2) <= 3).all()
    with pytest.raises(ValueError, match="unknown contract variant"):
        D.doubles(shipped, sp.hands, "nope")


def test_bad_models_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text("{not json")
    with pytest.raises(C.ModelError, match="cannot read models"):
        C.load_models(str(bad))
    bad.write_text(json.dumps({"ev": {}, "mean": {}}))
    with pytest.raises(C.ModelError, match="lacks variant bukken"):
        C.load_models(str(bad))
