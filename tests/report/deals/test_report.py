"""`bonken-sim report`: the numbers behind every figure (the CSV tables) against a direct
pandas computation on a small run, the streamed aggregation against a one-part run, the
choice and doubling policy seam, and the files written.

The run uses dealer seat 1, so the seat relations (leader = seat 2, chooser = seat 3, …) are
not the identity: a mix-up of seats and relations shows.
"""

from __future__ import annotations

import json
import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest

import bonken_sim
from bonken_sim.report import write_report
from bonken_sim.report.deals.stats.aggregate import aggregate
from bonken_sim.report.deals.stats.histograms import REL_NAMES, REL_OFFSET
from bonken_sim.report.page.format import MIN_N
from bonken_sim.runs.storage import read_run
from tests.report.page.browser import figures_shown

DEALS = 3000
DEALER = 1
SEATS = {rel: (DEALER + off) % 4 for rel, off in zip(REL_NAMES, REL_OFFSET, strict=True)}
CHOOSER = SEATS["chooser"]
Z = 1.959963984540054
HCP_BINS = [0, 6, 9, 12, 15, 18, 38]
HCP_LABELS = ["0-5", "6-8", "9-11", "12-14", "15-17", "18+"]
TOTALS = {
    "bukken": -65,
    "hartenjagen": -65,
    "herenboeren": -120,
    "vrouwen": -120,
    "hartenheer": -50,
    "laatste_slag": -50,
    "domino": -50,
}


def always_nt(deals: pd.DataFrame) -> np.ndarray:
    return np.full(len(deals), "troeven_NT", dtype=object)


def chooser_longest_trump(deals: pd.DataFrame) -> np.ndarray:
    lengths = deals[[f"{s}_{CHOOSER}" for s in ("clubs", "diamonds", "hearts", "spades")]]
    return np.array(["troeven_" + "CDHS"[i] for i in lengths.to_numpy().argmax(1)], dtype=object)


def strong_double_chooser(deals: pd.DataFrame, variant: str) -> np.ndarray:
    """Every non-chooser with 12+ hcp doubles the chooser (a simple deterministic policy), in
    the contract the choice rule of the same name ('policy') picks, as the fitted one does."""
    out = np.zeros((len(deals), 4, 4), bool)
    played = chooser_longest_trump(deals) == variant
    for s in range(4):
        if s != CHOOSER:
            out[:, s, CHOOSER] = (deals[f"hcp_{s}"].to_numpy() >= 12) & played
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "run"
    bonken_sim.run(deals=DEALS, seed=31, chunk_size=1000, dealer=DEALER, out=out, threads=1)
    return out


@pytest.fixture(scope="module")
def report(run_dir):
    """The report, with two choice rules and one doubling rule through the policy seam."""
    write_report(
        run_dir,
        choice_rules={"policy": chooser_longest_trump, "always_nt": always_nt},
        double_rules={"policy": strong_double_chooser},
    )
    return run_dir / "_report"


@pytest.fixture(scope="module")
def frame(run_dir):
    return read_run(run_dir, deals=True)


def csv(report, name: str) -> pd.DataFrame:
    return pd.read_csv(report / "tables" / f"{name}.csv", keep_default_na=False, na_values=[""])


def moments(x: pd.Series) -> dict:
    n = len(x)
    mean = x.mean()
    half = Z * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
    return {"n": n, "mean": mean, "ci_low": mean - half, "ci_high": mean + half}


def wilson(k: int, n: int) -> tuple[float, float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return p, centre - half, centre + half


def close(a, b, tol=1e-9) -> bool:
    if isinstance(b, float) and math.isnan(b):
        return math.isnan(a)
    return abs(a - b) <= tol * max(1.0, abs(b))


def check_row(row, expected: dict) -> None:
    for key, value in expected.items():
        assert close(float(row[key]), float(value)), (key, row[key], value)


def chooser_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """deal × variant: the chooser's raw score."""
    return frame.pivot(index="deal", columns="variant", values=f"score_{CHOOSER}")


def own_call(c: pd.DataFrame, deals: pd.DataFrame, calls=None) -> pd.Series:
    """The chooser's score in his own troeven call: ``calls`` (variant names), or without
    them his longest suit (ties: more honours, then the higher suit)."""
    if calls is None:
        keys = [
            (h * 5 + o) * 4 + s
            for s, (h, o) in enumerate(_holding(deals[f"hand_{CHOOSER}"], s) for s in range(4))
        ]
        best = pd.concat(keys, axis=1).to_numpy().argmax(1)
        calls = np.array([f"troeven_{'CDHS'[b]}" for b in best])
    return pd.Series(c.to_numpy()[np.arange(len(c)), c.columns.get_indexer(calls)], c.index)


def game_relative(c: pd.DataFrame, own: pd.Series) -> pd.DataFrame:
    """Relative scores as a game values them: troeven in any trump against the own call."""
    base = c.mean()
    for v in c.columns:
        if v.startswith("troeven"):
            base[v] = own.mean()
    return c - base


# ---------------------------------------------------------------------------------------
# Section 1


def test_expected_score(report, frame):
    t = csv(report, "expected_score")
    assert len(t) == 13 * 4  # the 12 variants and troeven in the chooser's own call
    for row in t[t["variant"] != "troeven"].itertuples():
        seat = SEATS[row.relation]
        assert row.seat == seat
        x = frame.loc[frame["variant"] == row.variant, f"score_{seat}"]
        check_row(row._asdict(), moments(x))


def test_score_distribution(report, frame):
    t = csv(report, "score_distribution")
    t = t[
        t["variant"] != "troeven"
    ]  # the chooser's own call: tests/report/deals/test_choice_findings
    for (variant, rel), g in t.groupby(["variant", "relation"]):
        x = frame.loc[frame["variant"] == variant, f"score_{SEATS[rel]}"]
        counts = x.value_counts()
        got = g.set_index("score")["count"]
        assert got.sum() == DEALS
        for score, c in counts.items():
            assert got[score] == c
        assert (got.drop(counts.index) == 0).all()
        assert np.allclose(g["probability"], g["count"] / DEALS)


def _feature(frame: pd.DataFrame, name: str, seat: int) -> pd.Series:
    if name == "kh":
        return (frame["kh_seat"] == seat).astype(int)
    if name == "longest":
        return frame[[f"{s}_{seat}" for s in ("clubs", "diamonds", "hearts", "spades")]].max(axis=1)
    return frame[f"{name}_{seat}"]


@pytest.mark.parametrize("feature", ["hcp", "voids", "hearts", "queens", "kh", "twos", "longest"])
def test_hand_features(report, frame, feature):
    t = csv(report, "hand_features")
    t = t[t["feature"] == feature]
    assert set(t["variant"]) == {*frame["variant"], "troeven"}
    for rel in [*REL_NAMES, "all"]:
        seats = [SEATS[rel]] if rel != "all" else range(4)
        pooled = pd.concat(
            [
                pd.DataFrame(
                    {
                        "variant": frame["variant"],
                        "value": _feature(frame, feature, s),
                        "score": frame[f"score_{s}"],
                    }
                )
                for s in seats
            ]
        )
        for (variant, value), g in pooled.groupby(["variant", "value"]):
            row = t[(t["variant"] == variant) & (t["relation"] == rel) & (t["value"] == value)]
            assert len(row) == 1, (variant, rel, value)
            check_row(row.iloc[0], moments(g["score"]))


# ---------------------------------------------------------------------------------------
# Section 2


def test_chooser_value(report, frame):
    t = csv(report, "chooser_value").set_index("variant")
    for variant, x in frame.groupby("variant", observed=True)[f"score_{CHOOSER}"]:
        total = TOTALS.get(variant, 130)
        row = t.loc[variant]
        check_row(row, moments(x))
        assert close(row["fair_share"], total / 4)
        assert close(row["advantage"], x.mean() - total / 4)


def test_best_contract(report, frame):
    t = csv(report, "best_contract")
    c = chooser_scores(frame)
    deals = frame.drop_duplicates("deal").set_index("deal").loc[c.index]
    c["troeven"] = own_call(c, deals)
    mu = c.mean()
    allowed = [v for v in c.columns if not v.startswith("troeven_")]
    buckets = {
        "hcp": pd.cut(deals[f"hcp_{CHOOSER}"], HCP_BINS, right=False, labels=HCP_LABELS),
        "longest": _feature(deals, "longest", CHOOSER).map(lambda x: "7+" if x >= 7 else str(x)),
    }
    for feature, bucket in buckets.items():
        rel = (c - mu).groupby(bucket.astype(str).to_numpy())
        means = rel.mean()
        for label, row_means in means.iterrows():
            rows = t[(t["feature"] == feature) & (t["bucket"] == label)].set_index("variant")
            for variant, value in row_means.items():
                assert close(rows.loc[variant, "mean_relative"], value), (feature, label, variant)
                assert rows.loc[variant, "n"] == rel.size()[label]
            assert rows.loc[row_means[allowed].idxmax(), "best"]
            assert rows["best"].sum() == 1


def test_choice_value(report, frame):
    t = csv(report, "choice_value")
    c = chooser_scores(frame)
    deals = frame.drop_duplicates("deal").set_index("deal").loc[c.index]
    rel = game_relative(c, own_call(c, deals))
    troeven = rel.columns.str.startswith("troeven")
    weights = np.where(troeven, 4 / troeven.sum(), 1.0) / 11
    weights = weights / weights.sum()
    best_t, best_n = rel.loc[:, troeven].max(axis=1), rel.loc[:, ~troeven].max(axis=1)
    u = (rel.index.to_numpy() * 0.6180339887498949) % 1.0  # the report's tie-break
    gap = best_t - best_n + 1e-9 * u
    tau = np.quantile(gap, 1 - weights[troeven].sum())
    hind_quota = best_t.where(gap > tau, best_n)
    values = {
        "hindsight": rel.max(axis=1),
        "hindsight_quota": hind_quota,
        "random": rel @ weights,
        "always_nt": rel["troeven_NT"],
        "policy": pd.Series(
            rel.to_numpy()[
                np.arange(len(rel)), rel.columns.get_indexer(chooser_longest_trump(deals))
            ],
            index=rel.index,
        ),
    }
    assert set(t["rule"]) == set(values)
    for row in t.itertuples():
        alone = not isinstance(row.versus, str)  # a blank cell: the rule on its own
        x = values[row.rule] if alone else values[row.rule] - values[row.versus]
        check_row(row._asdict(), moments(x))
    # the hindsight choice is the best per deal: it beats every other rule on average
    gains = t[(t["rule"] == "hindsight") & t["versus"].notna()]
    assert (gains["mean"] > 0).all()
    freq = csv(report, "choice_frequency").set_index(["rule", "variant"])
    picked = rel.idxmax(axis=1).value_counts()
    for variant in c.columns:
        assert freq.loc[("hindsight", variant), "count"] == picked.get(variant, 0)
    assert freq.loc[("hindsight", "troeven"), "count"] == picked.filter(like="troeven").sum()
    assert freq.loc[("always_nt", "troeven_NT"), "count"] == DEALS


def _holding(hands: pd.Series, suit: int) -> tuple[pd.Series, pd.Series]:
    """Length and A-K-Q-J count of a suit, by Python int bit counting (not numpy's)."""
    bits = hands.map(lambda h: (int(h) >> (13 * suit)) & 0x1FFF)
    return bits.map(lambda b: bin(b).count("1")), bits.map(lambda b: bin(b >> 9).count("1"))


def test_trump_value(report, frame):
    t = csv(report, "trump_value")
    pooled = []
    for suit, name in enumerate("CDHS"):
        f = frame[frame["variant"] == f"troeven_{name}"]
        length, honours = _holding(f[f"hand_{CHOOSER}"], suit)
        d = pd.DataFrame({"length": length, "honours": honours, "score": f[f"score_{CHOOSER}"]})
        pooled.append(d)
        for (ln, hon), g in d.groupby(["length", "honours"]):
            row = t[(t["trump"] == name) & (t["length"] == ln) & (t["honours"] == hon)]
            assert len(row) == 1
            check_row(row.iloc[0], moments(g["score"]))
    d = pd.concat(pooled)
    for (ln, hon), g in d.groupby(["length", "honours"]):
        row = t[(t["trump"] == "any") & (t["length"] == ln) & (t["honours"] == hon)]
        check_row(row.iloc[0], moments(g["score"]))
    assert t.loc[t["trump"] == "any", "n"].sum() == 4 * DEALS
    by_length = csv(report, "trump_length")
    for name, g in zip([*"CDHS", "any"], [*pooled, d], strict=True):
        for ln, gl in g.groupby("length"):
            row = by_length[(by_length["trump"] == name) & (by_length["length"] == ln)]
            check_row(row.iloc[0], moments(gl["score"]))


def test_nt_vs_suit(report, frame):
    t = csv(report, "nt_vs_suit")
    c = chooser_scores(frame)
    deals = frame.drop_duplicates("deal").set_index("deal").loc[c.index]
    keys = []
    for suit in range(4):
        length, honours = _holding(deals[f"hand_{CHOOSER}"], suit)
        keys.append((length * 5 + honours) * 4 + suit)
    best = pd.concat(keys, axis=1).to_numpy().argmax(1)
    suit_scores = c[[f"troeven_{s}" for s in "CDHS"]].to_numpy()
    diff = pd.Series(c["troeven_NT"].to_numpy() - suit_scores[np.arange(len(c)), best], c.index)
    longest = _feature(deals, "longest", CHOOSER)
    hcp = pd.cut(deals[f"hcp_{CHOOSER}"], HCP_BINS, right=False, labels=HCP_LABELS).astype(str)
    for by, key in (("longest", longest.astype(str)), ("hcp_bucket", hcp)):
        for value, g in diff.groupby(key.to_numpy()):
            row = t[(t["by"] == by) & (t["value"].astype(str) == value)]
            assert len(row) == 1
            check_row(row.iloc[0], moments(g))
            p, lo, hi = wilson(int((g > 0).sum()), len(g))
            check_row(row.iloc[0], {"p_nt_better": p, "p_ci_low": lo, "p_ci_high": hi})
    check_row(t[t["by"] == "all"].iloc[0], moments(diff))


# ---------------------------------------------------------------------------------------
# Section 3


def test_doubling(report, frame):
    t = csv(report, "doubling")
    assert len(t) == 12 * 12
    for row in t.itertuples():
        d, tg = SEATS[row.doubler], SEATS[row.target]
        f = frame[frame["variant"] == row.variant]
        x = f[f"score_{d}"] - f[f"score_{tg}"]
        check_row(row._asdict(), moments(x))
        p, lo, hi = wilson(int((x > 0).sum()), len(x))
        check_row(row._asdict(), {"p_positive": p, "p_ci_low": lo, "p_ci_high": hi})
        assert close(row.p_negative, (x < 0).mean())
        assert row.target_is_chooser == (row.target == "chooser")


def test_doubling_by_hcp(report, frame):
    t = csv(report, "doubling_by_hcp")
    groups = csv(report, "doubling_groups_by_hcp")
    for variant in ("vrouwen", "troeven_H"):
        f = frame[frame["variant"] == variant]
        pooled: dict[str, list] = {}
        for dr in REL_NAMES:
            for tr in REL_NAMES:
                if dr == tr:
                    continue
                d, tg = SEATS[dr], SEATS[tr]
                x = f[f"score_{d}"] - f[f"score_{tg}"]
                bucket = pd.cut(f[f"hcp_{d}"], HCP_BINS, right=False, labels=HCP_LABELS)
                group = (
                    "chooser → other (double back)"
                    if dr == "chooser"
                    else "other → chooser"
                    if tr == "chooser"
                    else "other → other"
                )
                pooled.setdefault(group, []).append(pd.DataFrame({"x": x, "b": bucket}))
                for label, g in x.groupby(bucket.astype(str).to_numpy()):
                    row = t[
                        (t["variant"] == variant)
                        & (t["doubler"] == dr)
                        & (t["target"] == tr)
                        & (t["hcp_bucket"] == label)
                    ]
                    check_row(row.iloc[0], moments(g))
                    p, lo, hi = wilson(int((g > 0).sum()), len(g))
                    check_row(row.iloc[0], {"p_positive": p, "p_ci_low": lo, "p_ci_high": hi})
        for group, parts in pooled.items():
            d = pd.concat(parts)
            for label, g in d.groupby(d["b"].astype(str))["x"]:
                row = groups[
                    (groups["variant"] == variant)
                    & (groups["group"] == group)
                    & (groups["hcp_bucket"] == label)
                ]
                m = moments(g)
                check_row(row.iloc[0], {"n": m["n"], "mean": m["mean"]})
                check_row(row.iloc[0], {"ci_naive_low": m["ci_low"], "ci_naive_high": m["ci_high"]})
                # up to the group's pairs come from one deal: widened by √(pairs)
                k = len(parts)
                half = (m["mean"] - m["ci_low"]) * math.sqrt(k)
                check_row(row.iloc[0], {"ci_low": m["mean"] - half, "ci_high": m["mean"] + half})


def _policy_doubles(frame: pd.DataFrame) -> pd.DataFrame:
    """Every double strong_double_chooser made: deal, variant, doubler seat and gain."""
    deals = frame.drop_duplicates("deal").set_index("deal").sort_index()
    picked = pd.Series(chooser_longest_trump(deals), index=deals.index)
    rows = []
    for variant, idx in picked.groupby(picked).groups.items():
        f = frame[frame["variant"] == variant].set_index("deal").loc[idx]
        for d in range(4):
            if d != CHOOSER:
                on = f[f[f"hcp_{d}"] >= 12]
                gain = on[f"score_{d}"] - on[f"score_{CHOOSER}"]
                rows.append(
                    pd.DataFrame({"deal": on.index, "variant": variant, "doubler": d, "gain": gain})
                )
    return pd.concat(rows, ignore_index=True), picked


def test_policy_doubling_seam(report, frame):
    """A doubling rule's realised gain per double it made, per pair and variant, and its
    doubles per deal of the contract (the deals the same-named choice rule picked it on)."""
    t = csv(report, "doubling_policy")
    doubles, picked = _policy_doubles(frame)
    made = t[t["n"] > 0]
    assert set(made["target"]) == {"chooser"}
    assert made["n"].sum() == len(doubles)
    for row in made.itertuples():
        x = doubles[
            (doubles["variant"] == row.variant) & (doubles["doubler"] == SEATS[row.doubler])
        ]
        check_row(row._asdict(), moments(x["gain"]))
        assert close(row.per_deal, len(x) / (picked == row.variant).sum())
    assert (report / "figures" / "doubling_policy.png").stat().st_size > 0


def test_policy_summary_takes_the_deal_as_the_unit(report, frame):
    """Per contract: doubles per deal of that contract, and the gain per double as a ratio
    over deals (per-deal sums of gain and count), its interval from the deals' residuals."""
    summary = csv(report, "doubling_policy_summary").set_index("variant")
    doubles, picked = _policy_doubles(frame)
    for variant in [*sorted(set(picked)), "all"]:
        mine = doubles if variant == "all" else doubles[doubles["variant"] == variant]
        deals = picked.index if variant == "all" else picked.index[picked == variant]
        x = mine.groupby("deal").size().reindex(deals, fill_value=0).to_numpy(float)
        g = mine.groupby("deal")["gain"].sum().reindex(deals, fill_value=0).to_numpy(float)
        k = (mine["gain"] > 0).groupby(mine["deal"]).sum().reindex(deals, fill_value=0)
        row = summary.loc[variant]
        n = len(deals)
        ratio = g.sum() / x.sum()
        resid = g - ratio * x
        se = math.sqrt(resid @ resid / (n * (n - 1))) / x.mean()
        assert (
            row["deals"] == n and row["n"] == x.sum() and row["deals_with_doubles"] == (x > 0).sum()
        )
        check_row(row, {"per_deal": x.mean(), "mean": ratio, "se": se})
        check_row(row, {"ci_low": ratio - Z * se, "ci_high": ratio + Z * se})
        assert close(row["p_positive"], k.sum() / x.sum())
        assert row["p_ci_low"] < row["p_positive"] < row["p_ci_high"]
        # the doubles of one deal are correlated (they share the chooser's score): the
        # interval over deals is wider than one treating every double as independent
        naive = Z * mine["gain"].std(ddof=1) / math.sqrt(len(mine))
        assert Z * se > naive


def _svg_texts(report, name: str) -> list[str]:
    svg = (report / "figures" / f"{name}.svg").read_text()
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_cells_under_min_n_show_n_and_no_interval(report):
    """The policy's map: a cell of fewer than MIN_N doubles is grey with its n, every other
    cell has its interval; the page's table has no interval under MIN_N deals either."""
    t = csv(report, "doubling_policy")
    texts = _svg_texts(report, "doubling_policy")
    few = t[t["n"] < MIN_N]
    assert len(few) and len(t) - len(few)  # the small run has both kinds
    assert sorted(x for x in texts if x.startswith("n = ")) == sorted(f"n = {n}" for n in few["n"])
    assert sum(x.startswith("±") for x in texts) == len(t) - len(few)
    summary = csv(report, "doubling_policy_summary")
    html = (report / "report.html").read_text()
    table = html[html.index("doubles, on the contracts it chooses") :].split("</table>")[0]
    for row in summary.itertuples():
        cells = re.search(rf"<td>{row.variant}</td>(.*?)</tr>", table).group(1)
        if row.deals_with_doubles < MIN_N:
            assert "±" not in cells and "%" not in cells and "too few" in cells
        else:
            assert "±" in cells


def test_no_interval_on_the_page_collapses(report):
    for page in ("report.html", "report.md"):
        text = (report / page).read_text()
        assert not re.search(r"± 0(\.0+)?(?![\d.])", text), page
        for a, b in re.findall(r"\((\d[\d.]*)–(\d[\d.]*)%\)", text):
            assert a != b, (page, a)
    for name in ("doubling_mean", "doubling_win_rate", "doubling_policy"):
        assert not [x for x in _svg_texts(report, name) if re.fullmatch(r"±0(\.0+)?", x)]


def test_gain_tie_loss_add_up(report):
    """Every cell's gain, tie and loss rates add up to 1 in the CSV and to 100% drawn."""
    t = csv(report, "doubling")
    assert np.allclose(t["p_positive"] + t["p_tie"] + t["p_negative"], 1.0)
    drawn = [x for x in _svg_texts(report, "doubling_win_rate") if re.fullmatch(r"\d+·\d+·\d+", x)]
    assert len(drawn) == 6 * 12  # one of each mirrored pair, every contract
    assert all(sum(map(int, x.split("·"))) == 100 for x in drawn)
    assert len([x for x in _svg_texts(report, "doubling_mean") if x.startswith("±")]) == 6 * 12


def test_the_page_works_copied_alone(report, tmp_path):
    """report.html copied without its folder: every figure is drawn, and every link to a
    figure or table file is served from the page itself."""
    alone = tmp_path / "alone" / "report.html"
    alone.parent.mkdir()
    shutil.copy(report / "report.html", alone)
    html = alone.read_text()
    links = re.findall(r'<a href="(figures|tables)/([^"]+)"([^>]*)>', html)
    assert links
    for folder, name, attrs in links:
        stem = name.rsplit(".", 1)[0]
        key = f'data-svg="{stem}"' if folder == "figures" else f'data-embed="csv-{stem}"'
        assert key in attrs, name
        if folder == "tables":
            body = re.search(rf'<script type="text/csv" id="csv-{stem}">(.*?)</script>', html, re.S)
            assert body.group(1).replace("<\\/", "</") == (report / "tables" / name).read_text()
    assert figures_shown(alone.resolve().as_uri()) == ("12", "12")


def test_doubling_the_chooser_points_to_where_he_chose(run_dir):
    """A deal run's chooser did not choose: the page says so, and points to the games
    section only when the page has one."""
    from bonken_sim.report.deals.sections.deal_page import deal_sections

    stats = aggregate(run_dir)
    for has_games, text in ((False, "Only a game run"), (True, "The games section")):
        doubling = deal_sections(stats, [], has_games=has_games)[2].section
        assert any(text in f and "did not pick" in f for f in doubling.findings)
        assert text in doubling.figures[0].caption


# ---------------------------------------------------------------------------------------
# Streaming


def _hist_arrays(stats) -> dict[str, np.ndarray]:
    h = stats.hists
    out = {"score": h.score, "trump": h.trump, "nt": h.nt}
    out.update({f"group{i}": g for i, g in enumerate(h.groups)})
    out.update({f"double_{k}": v for k, v in h.double.items()})
    out.update({f"double_units_{k}": v for k, v in h.double_units.items()})
    return out


def test_streamed_equals_one_part(run_dir, tmp_path, monkeypatch):
    """Three parts, and slices of 256 deals inside each, give the histograms of one part."""
    import bonken_sim.report.deals.stats.part_histograms as part_histograms

    one = tmp_path / "one"
    bonken_sim.run(deals=DEALS, seed=31, chunk_size=DEALS, dealer=DEALER, out=one, threads=1)
    rule = {"policy": strong_double_chooser}  # a rule's per-deal sums stream too
    whole = aggregate(one, None, rule)
    monkeypatch.setattr(part_histograms, "SLICE", 256)
    parts = aggregate(run_dir, None, rule)
    assert whole.hists.double_units["policy"][-1, 0] > 0
    assert len(parts.manifest["parts"]) == 3 and len(whole.manifest["parts"]) == 1
    a, b = _hist_arrays(whole), _hist_arrays(parts)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.allclose(whole.choice.sums, parts.choice.sums, rtol=1e-12, atol=1e-9)
    assert np.allclose(whole.choice.diff_sumsq, parts.choice.diff_sumsq, rtol=1e-12)


def test_parallel_workers_equal_serial(run_dir):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    serial = aggregate(run_dir)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        parallel = aggregate(run_dir, executor=pool, workers=2)
    a, b = _hist_arrays(serial), _hist_arrays(parallel)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.allclose(serial.choice.sumsq, parallel.choice.sumsq, rtol=1e-12)


def test_parallel_when_workers_finish_first(run_dir):
    """The driver takes parts from the back until it meets one a worker has started, or one
    a worker already finished and that was merged and dropped. An executor that runs every
    pass-1 task at once but the last part's makes the second case happen: the driver takes
    the last part, merges the others, then finds the next one gone."""
    from concurrent.futures import Executor, Future

    last = max(p["index"] for p in json.loads((run_dir / "_manifest.json").read_text())["parts"])

    class AllButLast(Executor):
        def submit(self, fn, *args, **kwargs):
            f: Future = Future()
            if fn.__name__ == "_fold_parts_compact" and args[1][0]["index"] == last:
                return f  # left pending: the driver cancels it and does the part itself
            f.set_result(fn(*args, **kwargs))
            return f

    rules = ({"nt": always_nt}, {"policy": strong_double_chooser})
    serial = aggregate(run_dir, *rules)
    eager = aggregate(run_dir, *rules, executor=AllButLast(), workers=2)
    a, b = _hist_arrays(serial), _hist_arrays(eager)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.allclose(serial.choice.sums, eager.choice.sums, rtol=1e-12)


# ---------------------------------------------------------------------------------------
# Files


def test_files(report, run_dir):
    doc = json.loads((report / "report.json").read_text())
    assert doc["format"] == "bonken-sim-report" and doc["deals"] == DEALS
    for name in doc["files"]:
        assert (report / name).stat().st_size > 0, name
    figures = {p.stem for p in (report / "figures").glob("*.png")}
    assert figures == {p.stem for p in (report / "figures").glob("*.svg")}
    assert len(figures) == 12  # 11 + the policy's doubling figure
    html = (report / "report.html").read_text()
    assert html.count('<svg role="img"') == len(figures)  # every figure inlined as SVG
    assert '<img src="figures/' not in html  # self-contained: no image read from disk
    md = (report / "report.md").read_text()
    for stem in figures:
        assert f"](figures/{stem}.png)" in md
    for line in md.splitlines():
        if "](tables/" in line:
            for name in line.split("](tables/")[1:]:
                assert (report / "tables" / name.split(")")[0]).is_file()
    # the report sits in a '_' folder: the run still reads as its Parquet datasets
    assert len(pd.read_parquet(run_dir)) == DEALS * 12


def test_rewrite_replaces_a_previous_report(run_dir, report, tmp_path):
    # the previous report is a copy of the module's (HTML and Markdown), not drawn again
    out = tmp_path / "rep"
    shutil.copytree(report, out)
    assert (out / "report.md").is_file()
    (out / "stale.txt").write_text("old")
    write_report(run_dir, out, formats="html")
    assert (out / "report.html").is_file()
    assert not (out / "report.md").exists() and not (out / "stale.txt").exists()
    assert not list(tmp_path.glob(".rep*"))  # no temporary folder left behind


# ---------------------------------------------------------------------------------------
# The fitted policies (bonken_sim.models.choice, bonken_sim.models.doubling) through the seam


def test_fitted_policies(run_dir, frame):
    """The report's 'policy' rules are choice.choose on the chooser's hands and
    doubling.doubles on the contract it chooses: the tables against calling them directly."""
    from bonken_sim.models.choice import TROEVENS, choose, load_models
    from bonken_sim.models.doubling import doubles
    from bonken_sim.report.deals.stats.policies import fitted_rules
    from bonken_sim.report.deals.tables import choice as T
    from bonken_sim.report.deals.tables.doubling import doubling, doubling_summary

    choice_rules, double_rules = fitted_rules(DEALER)
    stats = aggregate(run_dir, choice_rules, double_rules)
    models = load_models()
    c = chooser_scores(frame)
    deals = frame.drop_duplicates("deal").set_index("deal").loc[c.index]
    hands = deals[f"hand_{CHOOSER}"].to_numpy(np.uint64)
    calls = choose(models, hands, seat=2, available=TROEVENS)
    rel = game_relative(c, own_call(c, deals, calls))
    picked = choose(models, hands, seat=2)
    mine = pd.Series(rel.to_numpy()[np.arange(len(rel)), rel.columns.get_indexer(picked)])
    rules, freq = T.choice_value(stats)
    row = rules[(rules["rule"] == "policy") & (rules["versus"] == "")].iloc[0]
    check_row(row, moments(mine))
    counts = pd.Series(picked).value_counts()
    f = freq[freq["rule"] == "policy"].set_index("variant")["count"]
    assert all(f[v] == counts.get(v, 0) for v in f.index if v != "troeven")
    assert f["troeven"] == sum(counts.get(v, 0) for v in TROEVENS)

    hands = deals[[f"hand_{p}" for p in range(4)]].to_numpy(np.uint64)
    gains: dict[tuple[str, str, str], list] = {}
    for variant in np.unique(picked):
        idx = np.flatnonzero(picked == variant)
        dbl = doubles(models, hands[idx], variant, DEALER)
        s = frame[frame["variant"] == variant].set_index("deal").loc[c.index[idx]]
        for dr in REL_NAMES:
            for tr in REL_NAMES:
                if dr != tr:
                    d, tg = SEATS[dr], SEATS[tr]
                    on = dbl[:, d, tg]
                    x = (s[f"score_{d}"] - s[f"score_{tg}"])[on]
                    gains[variant, dr, tr] = list(x)
    table = doubling(stats, "policy")
    for r in table.itertuples():
        x = pd.Series(gains.get((r.variant, r.doubler, r.target), []), dtype=float)
        assert r.n == len(x)
        if len(x) > 1:
            check_row(r._asdict(), moments(x))
    assert table["n"].sum() > 0
    summary = doubling_summary(stats, "policy").set_index("variant")
    assert summary.loc["all", "n"] == table["n"].sum()
    assert close(summary.loc["all", "per_deal"], table["n"].sum() / DEALS)
