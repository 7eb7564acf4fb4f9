"""`bonken-sim report RUN --games DIR --strong-deals DIR --strong-games DIR`: the section
"Under strong play". One paired cost difference, one game value and one share of doubles
recomputed from the runs' Parquet with pandas, the findings computed from the tables, and
every bad input as one line with exit status 2."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

import bonken_sim
from bonken_sim.cli import main
from bonken_sim.report import write_report

Z = 1.959963984540054
#: the strong games: the strongest player beside itself choosing at random and never
#: doubling, in the three circular orders of these four seats
STRONG_SEATINGS = (
    "expert,expert,expert-randomchoice,expert-nodouble",
    "expert,expert-randomchoice,expert,expert-nodouble",
    "expert,expert,expert-nodouble,expert-randomchoice",
)
HEURISTIC_SEATINGS = (
    "basic,basic-randomchoice,basic-nodouble,advanced",
    "basic-nodouble,basic,advanced,basic-randomchoice",
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("strong_play")
    bonken_sim.run(deals=240, seed=3, out=base / "deals", threads=1)
    # a strong run on the run's first deals: the strongest card play is slow, so few of them
    bonken_sim.run(deals=40, seed=3, strategies="expert:4:0:1:100", out=base / "strong",
                   threads=1, contracts=["hartenjagen", "troeven_S"])  # fmt: skip
    for folder, seatings, games in (("games", HEURISTIC_SEATINGS, 40),
                                    ("strong_games", STRONG_SEATINGS, 10)):  # fmt: skip
        for k, players in enumerate(seatings):
            args = ["game", "--games", str(games), "--seed", "5", "--players", players,
                    "--out", str(base / folder / f"s{k}"), "--quiet", "--threads", "1"]  # fmt: skip
            assert main(args) == 0
    return base


@pytest.fixture(scope="module")
def report(runs):
    write_report(runs / "deals", formats="md", workers=1, games=[runs / "games"],
                 strong_deals=runs / "strong", strong_games=[runs / "strong_games"])  # fmt: skip
    return runs / "deals" / "_report"


def csv(report, name: str) -> pd.DataFrame:
    return pd.read_csv(report / "tables" / f"{name}.csv")


def interval(x) -> tuple[float, float, float]:
    x = np.asarray(x, float)
    half = Z * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean(), x.mean() - half, x.mean() + half


def test_a_paired_cost_difference_is_the_same_deals_difference(runs, report):
    t = csv(report, "strong_costs")
    assert set(t["variant"]) == {"hartenjagen", "troeven_S"} and len(t) == 8
    assert (t["deals"] == 40).all()
    cols = ["deal", "variant", "score_0", "score_1", "score_2", "score_3"]
    heur = pd.read_parquet(runs / "deals", columns=cols)
    strong = pd.read_parquet(runs / "strong", columns=cols)
    heur = heur[heur["deal"] < 40]
    # the chooser is seat 2 (dealer 0): his score in hartenjagen, strong minus heuristic
    both = strong.merge(heur, on=["deal", "variant"], suffixes=("_s", "_h"))
    x = both[both["variant"] == "hartenjagen"].sort_values("deal")
    assert len(x) == 40
    d = x["score_2_s"].astype(float) - x["score_2_h"]
    row = t[(t["variant"] == "hartenjagen") & (t["seat"] == "chooser")].iloc[0]
    assert np.allclose([row.diff_mean, row.diff_ci_low, row.diff_ci_high], interval(d))
    assert math.isclose(row.heuristic_mean, x["score_2_h"].mean())
    assert math.isclose(row.strong_mean, x["score_2_s"].mean())


def _per_deal_set(root, players: list[str], name: str) -> pd.Series:
    """Per game of a game run: the mean total of the seats ``name`` holds."""
    g = pd.read_parquet(root, columns=["game", *(f"total_{p}" for p in range(4))])
    seats = [p for p in range(4) if players[p] == name]
    return g.set_index("game")[[f"total_{p}" for p in seats]].mean(axis=1)


def test_the_strong_choice_value_is_the_paired_per_deal_set_difference(runs, report):
    v = csv(report, "strong_values")
    row = v[(v["play"] == "strong") & (v["measures"] == "contract choice")].iloc[0]
    assert (row.profile, row.versus) == ("expert", "expert-randomchoice")
    # per deal set (game g of seed 5): each profile's mean over every seat it held in every
    # seating, then the difference
    sums = {p: 0.0 for p in ("expert", "expert-randomchoice")}
    seats = dict.fromkeys(sums, 0)
    for k, players in enumerate(STRONG_SEATINGS):
        names = players.split(",")
        for p in sums:
            n = names.count(p)
            sums[p] = sums[p] + _per_deal_set(runs / "strong_games" / f"s{k}", names, p) * n
            seats[p] += n
    diff = sums["expert"] / seats["expert"] - sums["expert-randomchoice"] / seats[
        "expert-randomchoice"]  # fmt: skip
    assert np.allclose([row.total_diff, row.total_diff_ci_low, row.total_diff_ci_high],
                       interval(diff))  # fmt: skip
    heur = v[(v["play"] == "heuristic") & (v["measures"] == "doubling")].iloc[0]
    assert (heur.profile, heur.versus) == ("basic", "basic-nodouble")


def test_the_share_of_doubles_of_the_chooser_that_paid(runs, report):
    k = csv(report, "strong_doubles")
    row = k[(k["play"] == "strong") & (k["kind"] == "of the chooser")].iloc[0]
    made = paid = 0
    for s in range(len(STRONG_SEATINGS)):
        d = pd.read_parquet(runs / "strong_games" / f"s{s}" / "_deals")
        chooser = d["chooser"].astype(np.int64)
        raw = d[[f"raw_{p}" for p in range(4)]].to_numpy()
        bits = d["doubles"].to_numpy()
        for doubler in range(4):
            hit = ((bits >> (4 * doubler + chooser.to_numpy())) & 1 == 1) & (
                doubler != chooser.to_numpy())  # fmt: skip
            target = raw[np.arange(len(d)), chooser.to_numpy()]
            made += int(hit.sum())
            paid += int((hit & (raw[:, doubler] > target)).sum())
    assert row.doubles == made > 0
    assert math.isclose(row.paid_mean, paid / made)


def test_the_findings_say_whether_each_answer_holds(report):
    page = (report / "report.md").read_text()
    section = page[page.index("Under strong play") :]
    v = csv(report, "strong_values")
    s = v[(v["play"] == "strong") & (v["measures"] == "doubling")].iloc[0]
    assert f"Doubling is worth {s.total_diff:+.1f}" in section
    assert re.search(r"the heuristic answer holds|it does not hold", section)
    assert re.search(r"What each contract costs each seat (holds|changes|shows no change)", section)
    assert "These strong-play figures rest on 40 deals" in section
    for name in ("strong_costs", "strong_values"):
        assert (report / "figures" / f"{name}.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--strong-deals", "{missing}"], "--strong-deals: "),
        (["--strong-deals", "{other_seed}"], "has seed 4, the run 3"),
        (["--strong-deals", "{games}"], "--strong-deals: "),
        (["--strong-games", "{deals}"], "--strong-games .* is a deal run"),
    ],
)
def test_bad_strong_runs_are_one_line_with_exit_2(runs, tmp_path, capsys, extra, message):
    other = tmp_path / "other"
    bonken_sim.run(deals=10, seed=4, out=other, threads=1, contracts=["bukken"])
    where = {"missing": tmp_path / "nowhere", "other_seed": other,
             "games": runs / "games" / "s0", "deals": runs / "strong"}  # fmt: skip
    args = [a.format(**where) for a in extra]
    code = main(["report", str(runs / "deals"), "--out", str(tmp_path / "r"), *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and re.search(message, err[0]), err
    assert not (tmp_path / "r").exists()


def test_a_game_run_refuses_the_strong_options(runs, tmp_path, capsys):
    code = main(["report", str(runs / "games" / "s0"), "--out", str(tmp_path / "r"),
                 "--strong-deals", str(runs / "strong")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "add to a deal run's report" in err
