"""The advice of `bonken-sim advise` (bonken_sim/advise.py): what it computes and ranks."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from bonken_sim.analyses.advise import (
    SEATS,
    advise,
    make_config,
    play,
    played_scores,
)
from bonken_sim.rules.names import VARIANT_NAMES, parse_card, parse_hand
from bonken_sim.stats import Z95

ALL_HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
MIXED = "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C 8C"
V = {name: i for i, name in enumerate(VARIANT_NAMES)}


@pytest.mark.parametrize("strategies", [(1, 1, 1, 1), (0, 0, 0, 0), (0, 1, 1, 0)])
@pytest.mark.parametrize("seat", range(4))
def test_all_thirteen_hearts_score_exactly_with_zero_variance(seat, strategies):
    # Holding every heart: leading, you must lead hearts and win every trick; not leading,
    # you never win one (you can never follow suit and there is no trump). In troeven_H
    # every card you hold is a master trump, so you take all 13 tricks from any seat.
    hand = parse_hand(ALL_HEARTS)
    variants = np.array([V["bukken"], V["hartenjagen"], V["troeven_H"]], np.int64)
    s = played_scores(variants, np.array(strategies, np.int64), 3, 0, 500, hand=hand, seat=seat)
    leading = seat == 1
    assert (s[:, 0, seat] == (-65 if leading else 0)).all()
    assert (s[:, 1, seat] == (-65 if leading else 0)).all()
    assert (s[:, 2, seat] == 130).all()


def _doc(hand=ALL_HEARTS, **kw):
    kw.setdefault("deals", 2000)
    kw.setdefault("seed", 1)
    kw.setdefault("threads", 1)
    return advise(make_config(hand, **kw))


def _row(doc, name):
    return next(r for r in doc["variants"] if r["variant"] == name)


@pytest.mark.parametrize("seat", list(SEATS))
def test_all_hearts_is_advised_accordingly(seat):
    doc = _doc(seat=seat)
    leading = seat == "leader"
    for name in ("bukken", "hartenjagen", "troeven_H"):
        e = _row(doc, name)["expected"]
        want = 130 if name == "troeven_H" else (-65 if leading else 0)
        assert e == {"mean": want, "sd": 0.0, "ci95": [want, want]}
    # troeven_H is worth about 100 points more than its average (~ +32.5 at any seat)
    assert doc["best"] == "troeven_H" and doc["ranking"][0] == "troeven_H"
    assert doc["best_troeven"] == "troeven_H"
    rel = _row(doc, "troeven_H")["relative"]
    assert 90 < rel["mean"] < 105 and rel["ci95"][0] < rel["mean"] < rel["ci95"][1]
    if seat == "chooser":
        assert doc["recommendation"].startswith("choose troeven_H: your score +130.00")
    else:
        assert doc["recommendation"].startswith(
            "you would like troeven_H chosen: your score +130.00"
        )
    # Doubling anyone in troeven_H wins 130 per unit, always.
    for d in _row(doc, "troeven_H")["doubling"]:
        assert d["mean"] == 130 and d["p_profit"] == 1.0 and d["verdict"] == "pays"
        assert d["p_profit_ci95"][1] == 1.0 and 0.99 < d["p_profit_ci95"][0] < 1.0
    if leading:  # leading with all hearts, the negatives are disasters
        assert _row(doc, "herenboeren")["expected"]["mean"] == -120
        assert doc["ranking"][-1] in ("herenboeren", "vrouwen")


def test_all_hearts_with_troeven_used_gets_the_best_negative():
    doc = _doc(seat="chooser", trump_used=True)
    assert not any(name.startswith("troeven") for name in doc["available"])
    assert doc["best_troeven"] is None
    # Zero in every negative; the two biggest averages (−30) give the best relative value.
    assert doc["best"] in ("herenboeren", "vrouwen") and doc["best_negative"] == doc["best"]
    assert all(r["expected"]["mean"] == 0 for r in doc["variants"])


def test_available_restricts_what_is_simulated_and_ranked():
    doc = _doc(MIXED, available="bukken, domino,troeven_S,troeven-nt", seat="leader")
    assert doc["available"] == ["bukken", "domino", "troeven_S", "troeven_NT"]
    assert sorted(doc["ranking"]) == sorted(doc["available"])
    assert len(doc["not_available"]) == 8 and "vrouwen" in doc["not_available"]
    ranked = [r["relative"]["mean"] for r in doc["variants"]]
    assert ranked == sorted(ranked, reverse=True)
    assert [r["rank"] for r in doc["variants"]] == [1, 2, 3, 4]
    only_troeven = _doc(MIXED, available="troeven")
    assert only_troeven["available"] == [f"troeven_{t}" for t in ("C", "D", "H", "S", "NT")]
    assert only_troeven["best_negative"] is None


def _strip_run(doc):
    return {k: v for k, v in doc.items() if k not in ("seconds", "threads")}


def test_advice_does_not_depend_on_threads_or_chunking():
    cfg1 = make_config(MIXED, seat="doubler", deals=3001, seed=8, threads=1)
    cfg2 = make_config(MIXED, seat="doubler", deals=3001, seed=8, threads=2)
    a = advise(cfg1)
    b = advise(cfg2, chunk=250)
    c = advise(cfg1, chunk=1)  # one deal per task: the extreme case
    assert _strip_run(a) == _strip_run(b) == _strip_run(c)
    assert _strip_run(a) != _strip_run(advise(make_config(MIXED, seat="doubler", deals=3001)))


def test_document_structure():
    doc = _doc(MIXED, seat="chooser", deals=500, seed=12)
    assert doc["command"] == "advise" and doc["seed"] == 12 and not doc["seed_drawn"]
    assert doc["deals"] == 500 and doc["seat"] == "chooser" and doc["seat_index"] == 2
    assert doc["dealer"] == 0 and doc["strategies"] == ["basic"] * 4
    assert doc["hand"] == sorted(doc["hand"], key=parse_card)  # by card index
    assert len(doc["hand"]) == 13 and set(doc["hand"]) == set(MIXED.split())
    assert doc["available"] == list(VARIANT_NAMES) and doc["not_available"] == []
    assert doc["ranking"] == [r["variant"] for r in doc["variants"]]
    assert doc["best"] == doc["ranking"][0]
    assert set(doc["seconds"]) == {"wall", "conditional_cpu", "reference_cpu"}
    for r in doc["variants"]:
        assert set(r) == {
            "variant",
            "contract",
            "trump",
            "rank",
            "expected",
            "average",
            "relative",
            "doubling",
            "model_relative",
        }
        assert set(r["expected"]) == set(r["average"]) == {"mean", "sd", "ci95"}
        assert set(r["relative"]) == {"mean", "se", "ci95"}
        assert [d["target_seat"] for d in r["doubling"]] == [3, 0, 1]  # doubling order
        for d in r["doubling"]:
            assert set(d) == {
                "target_seat",
                "target_role",
                "mean",
                "sd",
                "ci95",
                "p_profit",
                "p_profit_ci95",
                "p_loss",
                "p_loss_ci95",
                "verdict",
            }
            assert d["verdict"] in ("pays", "loses", "unclear")
    drawn = advise(make_config(MIXED, deals=10, threads=1))
    assert drawn["seed_drawn"] and 0 <= drawn["seed"] < 2**63


def _wilson(k, n, z=Z95):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_confidence_intervals_match_a_direct_numpy_computation():
    n, seed, seat = 3000, 21, SEATS["leader"]
    doc = _doc(MIXED, seat="leader", deals=n, seed=seed, threads=2)
    variants = np.arange(12, dtype=np.int64)
    strat = np.ones(4, np.int64)
    cond = played_scores(variants, strat, seed, 0, n, hand=parse_hand(MIXED), seat=seat)
    ref = played_scores(variants, strat, seed, 0, n)
    for j, name in enumerate(VARIANT_NAMES):
        row = _row(doc, name)
        x = cond[:, j, seat].astype(float)
        y = ref[:, j, seat].astype(float)
        half_x = Z95 * x.std(ddof=1) / math.sqrt(n)
        assert row["expected"]["mean"] == pytest.approx(x.mean(), abs=1e-12)
        assert row["expected"]["sd"] == pytest.approx(x.std(ddof=1), rel=1e-12)
        assert row["expected"]["ci95"] == pytest.approx([x.mean() - half_x, x.mean() + half_x])
        assert row["average"]["mean"] == pytest.approx(y.mean(), abs=1e-12)
        se = math.sqrt(x.var(ddof=1) / n + y.var(ddof=1) / n)
        diff = x.mean() - y.mean()
        assert row["relative"]["mean"] == pytest.approx(diff, abs=1e-12)
        assert row["relative"]["ci95"] == pytest.approx([diff - Z95 * se, diff + Z95 * se])
        for d in row["doubling"]:
            t = d["target_seat"]
            g = cond[:, j, seat].astype(float) - cond[:, j, t]
            half = Z95 * g.std(ddof=1) / math.sqrt(n)
            assert d["mean"] == pytest.approx(g.mean(), abs=1e-12)
            assert d["ci95"] == pytest.approx([g.mean() - half, g.mean() + half])
            k = int((g > 0).sum())
            assert d["p_profit"] == k / n
            assert d["p_profit_ci95"] == pytest.approx(list(_wilson(k, n)))
            k = int((g < 0).sum())
            assert d["p_loss"] == k / n
            assert d["p_loss_ci95"] == pytest.approx(list(_wilson(k, n)))


def test_reference_deals_are_those_of_a_run():
    import bonken_sim

    df = bonken_sim.simulate(deals=200, seed=4, contracts="vrouwen,troeven_D", features=False)
    ref = played_scores(np.array([3, 8], np.int64), np.ones(4, np.int64), 4, 0, 200)
    for j, name in enumerate(("vrouwen", "troeven_D")):
        part = df[df.variant == name].sort_values("deal")
        for p in range(4):
            assert np.array_equal(part[f"score_{p}"].to_numpy(), ref[:, j, p])


def test_progress_counts_the_conditional_deals():
    seen = []
    advise(
        make_config(MIXED, deals=9000, seed=3, threads=2),
        chunk=4096,
        progress=lambda d, t: seen.append((d, t)),
    )
    assert [d for d, _ in seen] == [4096, 8192, 9000] and {t for _, t in seen} == {9000}


def test_work_is_made_as_it_is_needed():
    """A billion deals do not build the list of every chunk first (memory would grow with
    --deals: some 50 MB of task tuples here), and stopping at the first chunk stops."""

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop

    cfg = make_config(MIXED, deals=10**9, seed=3, threads=2)
    tracemalloc.start()
    try:
        with pytest.raises(Stop):
            play(cfg, progress=stop)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20, f"{peak / 2**20:.0f} MB traced"


def test_default_deals_follow_the_strategies():
    """An expert seat searches at every card, so its default is a few hundred deals; the
    heuristic tiers keep 1e5; a count given is always taken."""
    from bonken_sim.analyses.advise.config import DEFAULT_DEALS, EXPERT_DEFAULT_DEALS

    assert make_config(MIXED, seed=1).deals == DEFAULT_DEALS
    assert make_config(MIXED, seed=1, strategies="expert").deals == EXPERT_DEFAULT_DEALS
    mixed = "basic,expert:8:0,basic,basic"
    assert make_config(MIXED, seed=1, strategies=mixed).deals == EXPERT_DEFAULT_DEALS
    assert make_config(MIXED, seed=1, strategies="expert", deals="2k").deals == 2000
    assert EXPERT_DEFAULT_DEALS < DEFAULT_DEALS
