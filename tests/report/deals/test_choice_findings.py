"""The chooser's own troeven call, the choice valued as a game values it, the hand features by
variance explained, and the sentences computed from them (sections 1 and 2 of a deal run's
report), on small runs checked against direct pandas computations.

The runs use dealer seat 1, so the chooser is seat 3: a mix-up of seats and relations shows.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import bonken_sim
from bonken_sim.report.deals.sections.deal_page import deal_sections
from bonken_sim.report.deals.stats.aggregate import aggregate
from bonken_sim.report.deals.stats.histograms import GAME_DEALS, GAME_TROEVEN_DEALS, OWN_TROEVEN
from bonken_sim.report.deals.tables import choice as T
from bonken_sim.report.deals.tables.costs import expected_score, feature_importance
from bonken_sim.report.deals.tables.kit import HCP_BUCKETS, HCP_EDGES
from bonken_sim.report.page.section_types import page_parts
from bonken_sim.runs.storage import read_run

DEALS = 3000
DEALER = 1
CHOOSER = (DEALER + 2) % 4
SUITS = ("clubs", "diamonds", "hearts", "spades")
NEGATIVES = ("bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag")
NEGATIVES += ("domino",)
QUOTA = GAME_TROEVEN_DEALS / GAME_DEALS
# the quota as the report computes it: troeven's share of a game's mix over the variants
_SHARE = np.array([1.0] * 7 + [GAME_TROEVEN_DEALS / 5] * 5) / GAME_DEALS
PRICE_AT = 1 - float((_SHARE / _SHARE.sum())[7:].sum())


def tie_broken(gap, deal) -> np.ndarray:
    """The report's tie-break: 1e-9 × the golden-ratio sequence of the deal number."""
    return np.asarray(gap, np.float64) + 1e-9 * ((np.asarray(deal) * 0.6180339887498949) % 1.0)


def _holding_key(hands: pd.Series) -> np.ndarray:
    """(n, 4): length, then honours, then the suit: the longest suit a player would name."""
    cols = []
    for s in range(4):
        bits = hands.map(lambda h, s=s: (int(h) >> (13 * s)) & 0x1FFF)
        length = bits.map(lambda b: bin(b).count("1"))
        honours = bits.map(lambda b: bin(b >> 9).count("1"))
        cols.append(((length * 5 + honours) * 4 + s).to_numpy())
    return np.stack(cols, 1)


class GapRule:
    """A choice rule with game values: it calls his longest suit and values the call over
    its best negative (always bukken) by the suit's length: long suits call troeven first."""

    call_words = "the test rule's call"

    def _call(self, deals: pd.DataFrame) -> np.ndarray:
        best = _holding_key(deals[f"hand_{CHOOSER}"]).argmax(1)
        return np.array([f"troeven_{'CDHS'[s]}" for s in best], dtype=object)

    def __call__(self, deals: pd.DataFrame) -> np.ndarray:
        return self._call(deals)

    def game_values(self, deals: pd.DataFrame):
        longest = deals[[f"{s}_{CHOOSER}" for s in SUITS]].max(axis=1).to_numpy()
        gap = longest + deals[f"hcp_{CHOOSER}"].to_numpy() / 100.0
        return np.full(len(deals), "bukken", dtype=object), self._call(deals), gap


def _run(tmp_path_factory, seed: int, **kw):
    out = tmp_path_factory.mktemp(f"choice{seed}") / "run"
    bonken_sim.run(deals=DEALS, seed=seed, chunk_size=1000, dealer=DEALER, out=out, threads=1, **kw)
    return out


@pytest.fixture(scope="module")
def run_a(tmp_path_factory):
    return _run(tmp_path_factory, 5)


@pytest.fixture(scope="module")
def run_b(tmp_path_factory):
    return _run(tmp_path_factory, 6)


@pytest.fixture(scope="module")
def stats_a(run_a):
    return aggregate(run_a, {"policy": GapRule()})


@pytest.fixture(scope="module")
def frame_a(run_a):
    return read_run(run_a, deals=True)


def _sections(stats):
    sections, _, tabs = page_parts(deal_sections(stats, []))
    return sections, tabs


def _chooser(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    scores = frame.pivot(index="deal", columns="variant", values=f"score_{CHOOSER}")
    deals = frame.drop_duplicates("deal").set_index("deal").loc[scores.index]
    return scores, deals


def _own_scores(frame: pd.DataFrame, seat: int) -> pd.Series:
    """Seat's score per deal in troeven in the chooser's longest suit (the rule's call)."""
    scores = frame.pivot(index="deal", columns="variant", values=f"score_{seat}")
    deals = frame.drop_duplicates("deal").set_index("deal").loc[scores.index]
    best = _holding_key(deals[f"hand_{CHOOSER}"]).argmax(1)
    cols = scores[[f"troeven_{s}" for s in "CDHS"]].to_numpy()
    return pd.Series(cols[np.arange(len(cols)), best], scores.index)


# ---------------------------------------------------------------------------------------
# Troeven in the trump the chooser names


def test_own_troeven_is_a_contract_of_every_seat(stats_a, frame_a):
    assert stats_a.contracts[-1] == OWN_TROEVEN and stats_a.call_rule == "the test rule's call"
    t = expected_score(stats_a)
    for seat_rel in ("leader", "chooser", "first_doubler", "dealer"):
        row = t[(t["variant"] == OWN_TROEVEN) & (t["relation"] == seat_rel)].iloc[0]
        want = _own_scores(frame_a, int(row["seat"])).mean()
        assert row["mean"] == pytest.approx(want, abs=1e-9)


def test_best_contract_map_boxes_troeven_for_long_suits(run_a):
    """With no rule, the chooser names his longest suit; a long suit must box troeven, and
    the fixed-suit rows are out of the choice set."""
    stats = aggregate(run_a)
    assert (
        stats.call_rule
        == "his longest suit (ties: more of A K Q J, then the higher suit), never NT"
    )
    t = T.best_contract(stats)
    boxed = t[t["best"]].set_index(["feature", "bucket"])["variant"]
    assert boxed[("longest", "7+")] == OWN_TROEVEN
    assert boxed[("longest", "6")] == OWN_TROEVEN
    assert not t.loc[t["variant"].str.startswith("troeven_"), "in_choice_set"].any()
    assert t.loc[t["variant"] == OWN_TROEVEN, "in_choice_set"].all()


def test_hand_grid_against_pandas(stats_a, frame_a):
    scores, deals = _chooser(frame_a)
    own = _own_scores(frame_a, CHOOSER)
    scores = scores.assign(**{OWN_TROEVEN: own})
    rel = scores - scores.mean()
    hcp = pd.cut(deals[f"hcp_{CHOOSER}"], HCP_EDGES, right=False, labels=HCP_BUCKETS)
    longest = deals[[f"{s}_{CHOOSER}" for s in SUITS]].max(axis=1)
    lb = longest.map(lambda x: "7+" if x >= 7 else str(x))
    grid = T.hand_grid(stats_a).set_index(["hcp_bucket", "longest_bucket", "contract"])
    allowed = [*NEGATIVES, OWN_TROEVEN]
    for (h, ln), g in rel.groupby([hcp.astype(str).to_numpy(), lb.to_numpy()]):
        means = g.mean()
        for contract, value in means.items():
            assert grid.loc[(h, ln, contract), "mean_relative"] == pytest.approx(value)
            assert grid.loc[(h, ln, contract), "n"] == len(g)
        assert grid.loc[(h, ln, means[allowed].idxmax()), "best"]


# ---------------------------------------------------------------------------------------
# Choice valued as a game values it


def test_choice_baselines_random_mix_and_quota(stats_a, frame_a):
    scores, deals = _chooser(frame_a)
    own = _own_scores(frame_a, CHOOSER)
    base = scores.mean()
    for v in scores.columns:
        if v.startswith("troeven"):
            base[v] = own.mean()  # the alternative to troeven now: his own call later
    rel = scores - base
    weights = pd.Series(
        {v: (QUOTA / 5 if v.startswith("troeven") else 1 / GAME_DEALS) for v in rel.columns}
    )
    weights /= weights.sum()
    rules, freq = T.choice_value(stats_a)
    got = rules.set_index(["rule", "versus"])
    assert got.loc[("random", ""), "mean"] == pytest.approx((rel @ weights[rel.columns]).mean())
    assert got.loc[("hindsight", ""), "mean"] == pytest.approx(rel.max(axis=1).mean())
    # held to the quota, hindsight and the rule call troeven on 4 deals in 11
    for rule in ("hindsight_quota", "policy_quota"):
        assert got.loc[(rule, ""), "troeven_share"] == pytest.approx(QUOTA, abs=2 / DEALS)
    # the rule under the quota: troeven (its call) on the deals with the largest gaps
    longest = deals[[f"{s}_{CHOOSER}" for s in SUITS]].max(axis=1).to_numpy()
    gap = tie_broken(
        (longest + deals[f"hcp_{CHOOSER}"].to_numpy() / 100.0).astype(np.float32),
        deals.index.to_numpy(),
    )
    tau = np.quantile(gap, PRICE_AT)
    value = np.where(gap > tau, own - base["troeven_C"], rel["bukken"])
    assert got.loc[("policy_quota", ""), "mean"] == pytest.approx(value.mean())
    # the per-game value is the per-turn value times a player's 11/4 chooser turns
    row = got.loc[("policy_quota", "random")]
    assert row["mean_per_game"] == pytest.approx(row["mean"] * GAME_DEALS / 4)
    share = freq[(freq["rule"] == "random") & (freq["variant"] == OWN_TROEVEN)]["share"]
    assert float(share.iloc[0]) == pytest.approx(QUOTA)


def test_choice_picks_add_up(stats_a):
    picks = T.choice_picks(stats_a)
    for rule, g in picks.groupby("rule"):
        assert g["n"].sum() == DEALS, rule
    rules, _ = T.choice_value(stats_a)
    alone = rules[rules["versus"] == ""].set_index("rule")["mean"]
    for rule, g in picks.groupby("rule"):
        total = (g["mean"].fillna(0) * g["n"]).sum() / DEALS
        assert total == pytest.approx(alone[rule])


# ---------------------------------------------------------------------------------------
# Hand features by variance explained


def test_feature_importance_against_pandas(stats_a, frame_a):
    imp = feature_importance(stats_a).set_index(["variant", "feature"])
    for variant, feature in (("laatste_slag", "twos"), ("vrouwen", "queens"), ("bukken", "hcp")):
        f = frame_a[frame_a["variant"] == variant]
        x = pd.concat([f[f"{feature}_{s}"] for s in range(4)], ignore_index=True)
        y = pd.concat([f[f"score_{s}"] for s in range(4)], ignore_index=True).astype(float)
        between = y.groupby(x).agg(["count", "mean"])
        ss_b = (between["count"] * (between["mean"] - y.mean()) ** 2).sum()
        ss_t = ((y - y.mean()) ** 2).sum()
        assert imp.loc[(variant, feature), "eta2"] == pytest.approx(ss_b / ss_t)
    ranks = feature_importance(stats_a)
    for _, g in ranks[ranks["feature"] != "seat"].groupby("variant"):
        assert list(g.sort_values("rank")["eta2"]) == sorted(g["eta2"], reverse=True)


# ---------------------------------------------------------------------------------------
# The sentences


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"[-+−]?\d+\.\d+", text.replace("−", "-"))]


def test_findings_follow_the_data(stats_a, run_b):
    """Two runs give different findings, and the numbers in them are the tables'."""
    sec_a, tabs_a = _sections(stats_a)
    sec_b, _ = _sections(aggregate(run_b, {"policy": GapRule()}))
    fa = [f for s in sec_a[:2] for f in s.findings]
    fb = [f for s in sec_b[:2] for f in s.findings]
    assert 2 <= len(sec_a[0].findings) <= 3 and 2 <= len(sec_a[1].findings) <= 3
    assert fa != fb
    # the choice finding quotes the policy under the quota against random, per turn and game
    rules = tabs_a["choice_value"].set_index(["rule", "versus"])
    row = rules.loc[("policy_quota", "random")]
    choice = next(f for f in sec_a[1].findings if f.startswith("Choosing well"))
    assert f"{row['mean']:+.1f} points per chooser turn" in choice
    assert f"{row['mean_per_game']:+.1f} per player and game" in choice
    # the own-call finding quotes the chooser_value table
    cv = tabs_a["chooser_value"].set_index("variant")["mean"]
    own = next(f for f in sec_a[1].findings if f.startswith("Naming his own trump"))
    assert _numbers(own)[0] == pytest.approx(cv[OWN_TROEVEN], abs=0.05)
    # the seat finding quotes the importance table
    imp = tabs_a["feature_importance"]
    weighed = imp["variant"].isin([*NEGATIVES, OWN_TROEVEN])
    seat_max = imp.loc[weighed & (imp["feature"] == "seat"), "eta2"].max()
    assert f"{seat_max:.1%}" in sec_a[0].findings[0]
    for section in sec_a[:2]:
        for item in section.figures:
            assert item.meaning, item.name


def test_k_heart_is_explained_with_the_runs_numbers(stats_a, frame_a):
    sections, _ = _sections(stats_a)
    item = next(i for i in sections[0].figures if i.name == "hand_features")
    f = frame_a[frame_a["variant"] == "hartenheer"]
    held = pd.concat([f.loc[f["kh_seat"] == s, f"score_{s}"] for s in range(4)]).mean()
    assert f"costs {held:+.1f} points per deal" in item.meaning
    assert "decides when it falls" in item.meaning


def test_no_interval_collapses_to_a_point(stats_a):
    """Every interval in the section tables and sentences shows a width."""
    sections, _ = _sections(stats_a)
    texts = [s.intro for s in sections[:2]]
    for section in sections[:2]:
        for _, table in section.tables:
            texts += [str(v) for v in table.to_numpy().ravel()]
    page = "\n".join(texts)
    assert not re.search(r"± 0\.0+(?!\d)", page)
    for lo, hi in re.findall(r"95% CI ([-+]?\d+\.\d+) to ([-+]?\d+\.\d+)", page):
        assert lo != hi
    assert "95% CI" in sections[1].intro


def test_hand_panels_show_each_contracts_strongest_feature(stats_a):
    _, draw, tabs = page_parts(deal_sections(stats_a, []))
    panels = draw["hand_features"][1][1]
    imp = tabs["feature_importance"]
    first = imp[imp["rank"] == 1].set_index("variant")
    second = imp[imp["rank"] == 2].set_index("variant")
    assert {c for c, _ in panels} == {*NEGATIVES, OWN_TROEVEN}
    for contract in {c for c, _ in panels}:
        want = [first.loc[contract, "feature"]]
        if second.loc[contract, "eta2"] >= 0.8 * first.loc[contract, "eta2"]:
            want.append(second.loc[contract, "feature"])
        assert [f for c, f in panels if c == contract] == want


@pytest.mark.parametrize("contracts", [("bukken", "troeven_H"), ("troeven",)])
def test_fitted_policy_on_a_run_of_some_contracts(tmp_path, contracts):
    """The fitted policy chooses among the run's contracts only; without a negative there
    is no quota, without all five troeven options no own call."""
    from bonken_sim.report.deals.stats.policies import fitted_rules

    out = tmp_path / "run"
    bonken_sim.run(deals=600, seed=2, dealer=DEALER, out=out, threads=1, contracts=contracts)
    stats = aggregate(out, *fitted_rules(DEALER))
    rules, freq = T.choice_value(stats)
    chosen = freq[(freq["rule"] == "policy") & (freq["count"] > 0)]["variant"]
    assert set(chosen) <= {*stats.variants, OWN_TROEVEN}
    assert stats.choice.game.quota is None and "policy_quota" not in set(rules["rule"])
    assert (OWN_TROEVEN in stats.contracts) == (contracts == ("troeven",))
    sections, _ = _sections(stats)
    assert sections[1].findings  # the sentences still read the tables
