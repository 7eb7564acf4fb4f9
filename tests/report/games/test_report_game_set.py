"""`bonken-sim report RUN --games DIR`: game runs beside a deal run's report. The pooled
numbers against a direct pandas computation (the deal set as the unit, seatings paired on
the same deals, runs of different lengths), doubling the chooser against the deals table's
own chooser and doubles columns, findings computed from the data, and every bad input as
one line with exit status 2."""

from __future__ import annotations

import json
import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest

import bonken_sim
from bonken_sim.cli import main
from bonken_sim.report import write_report
from bonken_sim.report.games import stats as G
from bonken_sim.report.games.game_set import section as SG
from bonken_sim.report.games.game_set import stats as S
from bonken_sim.report.games.game_set import tables as T
from bonken_sim.runs.games import make_game_config, run_games

Z = 1.959963984540054
#: two seatings of the same seed (different circular orders), one of them shorter, and a
#: run of another seed
RUNS = (
    ("a", 7, "basic,basic-randomchoice,basic-nodouble,advanced", 120, 50),
    ("b", 7, "basic-nodouble,basic,advanced,basic-randomchoice", 90, 40),
    ("c", 8, "basic-randomchoice,basic,basic-nodouble,advanced", 60, 60),
)


def _play(out, seed, players, games, chunk, **extra):
    cfg = make_game_config(
        games, seed=seed, players=players, threads=1, chunk_size=chunk, out=out, **extra
    )
    run_games(cfg)
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("report_game_set")


@pytest.fixture(scope="module")
def game_dir(base):
    folder = base / "games"
    for name, seed, players, games, chunk in RUNS:
        _play(folder / name, seed, players, games, chunk)
    return folder


@pytest.fixture(scope="module")
def deal_run(base):
    out = base / "deals"
    bonken_sim.run(deals=300, seed=1, out=out, threads=1)
    return out


@pytest.fixture(scope="module")
def report(deal_run, game_dir):
    write_report(deal_run, formats="md", workers=1, games=[game_dir])
    return deal_run / "_report"


def csv(report, name: str) -> pd.DataFrame:
    return pd.read_csv(report / "tables" / f"{name}.csv")


def moments(x) -> tuple[float, float, float]:
    x = np.asarray(x, float)
    half = Z * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean(), x.mean() - half, x.mean() + half


def close(a, b, tol=1e-9) -> bool:
    return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(b)))


def per_deal_set(game_dir) -> pd.DataFrame:
    """(seed, game, profile) → the profile's win share and total, averaged over every seat
    it held in every run of that seed: the unit the report pools over."""
    rows = []
    for name, seed, players, _, _ in RUNS:
        g = pd.read_parquet(game_dir / name)
        for p, prof in enumerate(players.split(",")):
            rows.append(
                pd.DataFrame(
                    {"seed": seed, "game": g["game"], "profile": prof,
                     "win": (g[f"rank_{p}"] == 1).astype(float), "total": g[f"total_{p}"]}
                )
            )  # fmt: skip
    return pd.concat(rows).groupby(["seed", "game", "profile"]).mean().reset_index()


def test_profiles_pooled_over_deal_sets(report, game_dir):
    t = csv(report, "games_profiles").set_index("name")
    units = per_deal_set(game_dir)
    assert set(t.index) == {"basic", "basic-randomchoice", "basic-nodouble", "advanced"}
    for prof, d in units.groupby("profile"):
        row = t.loc[prof]
        assert row["deal_sets"] == 120 + 60  # seed 7's 120 games (b adds no new sets), seed 8's 60
        assert row["seat_games"] == 120 + 90 + 60
        for q, col in (("win", "win_rate"), ("total", "mean_total")):
            m, lo, hi = moments(d[q])
            prefix = "win" if q == "win" else "total"
            assert close(row[col], m), (prof, q)
            assert close(row[f"{prefix}_ci_low"], lo) and close(row[f"{prefix}_ci_high"], hi)


def test_values_paired_per_deal_set(report, game_dir):
    t = csv(report, "games_values")
    units = per_deal_set(game_dir).set_index(["seed", "game", "profile"])
    by_measure = t.set_index("measures", drop=False)
    assert by_measure.loc["contract choice", "profile"] == "basic"
    assert by_measure.loc["contract choice", "versus"] == "basic-randomchoice"
    assert by_measure.loc["doubling", "versus"] == "basic-nodouble"
    assert by_measure.loc["card play", "profile"] == "advanced"
    assert list(t["measures"].fillna(""))[:3] == ["contract choice", "doubling", "card play"]
    for _, row in t.iterrows():
        for q in ("win", "total"):
            a = units.xs(row["profile"], level="profile")[q]
            b = units.xs(row["versus"], level="profile")[q]
            m, lo, hi = moments(a - b)
            assert close(row[f"{q}_diff"], m), (row["profile"], row["versus"], q)
            assert close(row[f"{q}_diff_ci_low"], lo) and close(row[f"{q}_diff_ci_high"], hi)


def chooser_deals(game_dir, deal_run) -> pd.DataFrame:
    """One row per deal of every game run, from the deals table's own chooser, doubles and
    variant columns: the chooser's kind, his score relative to the deal run's mean chooser
    score of the variant, the three others' gains and the doubles of him."""
    runs = pd.read_parquet(deal_run)  # dealer 0: the chooser is seat 2
    mu = runs.groupby(runs["variant"].astype(str))["score_2"].mean()
    rows = []
    for name, seed, players, _, _ in RUNS:
        d = pd.read_parquet(game_dir / name / "_deals")
        prof = np.array(players.split(","))
        c = d["chooser"].to_numpy().astype(int)
        raw = d[[f"raw_{p}" for p in range(4)]].to_numpy().astype(float)
        s_c = raw[np.arange(len(d)), c]
        dbl = d["doubles"].to_numpy().astype(int)
        out = pd.DataFrame(
            {"seed": seed, "game": d["game"],
             "kind": np.where(prof[c] == "basic-randomchoice", "random", "fitted"),
             "contract": d["contract"].astype(str),
             "relative": s_c - d["variant"].astype(str).map(mu).to_numpy()}
        )  # fmt: skip
        gains = [raw[:, p] - s_c for p in range(4)]
        made = [((dbl >> (4 * p + c)) & 1).astype(bool) & (c != p) for p in range(4)]
        out["always"] = sum(g * (c != p) for p, g in enumerate(gains)) / 3
        out["n"] = sum(m.astype(int) for m in made)
        out["gain"] = sum(g * m for g, m in zip(gains, made, strict=True))
        rows.append(out)
    return pd.concat(rows, ignore_index=True)


def ratio(units: pd.DataFrame, y: str, x: str) -> tuple[float, float, float]:
    """Σy/Σx over units with its delta-method 95% interval (the unit: a row)."""
    r = units[y].sum() / units[x].sum()
    n = len(units)
    d = (units[y] - r * units[x]) / units[x].mean()
    half = Z * math.sqrt((d * d).sum() / (n - 1) / n)
    return r, r - half, r + half


def test_chooser_doubles_from_the_deals_table(report, game_dir, deal_run):
    t = csv(report, "games_chooser_doubles").set_index(["chooser_choice", "contract"])
    deals = chooser_deals(game_dir, deal_run)
    deals["one"] = 1.0
    all_sets = deals[["seed", "game"]].drop_duplicates()
    checked = 0
    for (kind, contract), d in deals.groupby(["kind", "contract"]):
        row = t.loc[(kind, contract)]
        assert row["deals"] == len(d) and row["doubles"] == d["n"].sum()
        # every deal set is a unit, also those where this chooser never chose this contract
        units = all_sets.merge(
            d.groupby(["seed", "game"])[["always", "one", "n", "gain"]].sum().reset_index(),
            how="left",
        ).fillna(0.0)
        m, lo, hi = ratio(units, "always", "one")
        assert close(row["always_mean"], m) and close(row["always_ci_low"], lo)
        assert close(row["always_ci_high"], hi)
        if d["n"].sum() and (units["n"] > 0).sum() > 1:
            m, lo, hi = ratio(units, "gain", "n")
            assert close(row["gain_per_double"], m) and close(row["gain_ci_low"], lo)
            checked += 1
    assert checked  # some doubles of the chooser were made and checked


def test_choice_per_turn_against_the_deal_run(report, game_dir, deal_run):
    t = csv(report, "games_choice_turns").set_index("chooser_choice")
    deals = chooser_deals(game_dir, deal_run)
    deals["one"] = 1.0
    for kind in ("fitted", "random"):
        d = deals[deals["kind"] == kind]
        units = (
            deals[["seed", "game"]]
            .drop_duplicates()
            .merge(d.groupby(["seed", "game"])[["relative", "one"]].sum().reset_index(), how="left")
            .fillna(0.0)
        )
        m, lo, hi = ratio(units, "relative", "one")
        assert t.loc[kind, "turns"] == len(d)
        assert close(t.loc[kind, "relative_mean"], m) and close(t.loc[kind, "relative_ci_low"], lo)
    diff = t.loc["fitted − random"]
    assert close(
        diff["relative_mean"], t.loc["fitted", "relative_mean"] - t.loc["random", "relative_mean"]
    )
    assert diff["relative_ci_low"] < diff["relative_mean"] < diff["relative_ci_high"]


def test_page_has_the_games_section_and_its_findings(report, game_dir):
    md = (report / "report.md").read_text()
    assert f"## {SG.TITLE}" in md
    findings = md.split("## Key findings", 1)[1].split("\n\n", 2)[1]
    prof = csv(report, "games_profiles").set_index("name")
    for name in prof.index:  # every win rate, as the table has it
        assert f"{name} {100 * prof.loc[name, 'win_rate']:.1f}%" in findings
    val = csv(report, "games_values").set_index("measures")
    choice = val.loc["contract choice", "total_diff"]
    sentence = "Choosing contracts by the fitted policy rather than at random is worth"
    assert f"{sentence} {choice:+.1f}" in findings
    assert md.count("**What this means:**") >= 3
    doc = json.loads((report / "report.json").read_text())
    assert sorted(doc["games"]) == sorted(str((game_dir / r[0]).resolve()) for r in RUNS)
    for name, *_ in RUNS:
        assert str(game_dir / name) in md  # the metadata names every game run


def test_findings_change_with_the_data(game_dir):
    one = S.aggregate_game_set(S.find_game_runs([game_dir / "a"], {"config": {}}))
    other = S.aggregate_game_set(S.find_game_runs([game_dir / "c"], {"config": {}}))

    def findings(st):
        return SG.games_section(st).section.findings

    f1, f2 = findings(one), findings(other)
    assert len(f1) == len(f2) == 5
    assert all(a != b for a, b in zip(f1[:4], f2[:4], strict=True))
    assert one.seatings == other.seatings == 1
    both = S.aggregate_game_set(S.find_game_runs([game_dir / "a", game_dir / "b"], {"config": {}}))
    assert both.seatings == 2 and both.deal_sets == 120 and both.games == 210


def test_lockstep_ignores_where_parts_and_batches_end(game_dir, monkeypatch):
    runs = S.find_game_runs([game_dir], {"config": {}})
    whole = S.aggregate_game_set(runs)
    monkeypatch.setattr(G, "BATCH", 13)
    cut = S.aggregate_game_set(runs)
    for a, b in ((cut.total, whole.total), (cut.total_pairs, whole.total_pairs)):
        np.testing.assert_allclose(a.s1, b.s1, rtol=1e-12)
        np.testing.assert_allclose(a.s2, b.s2, rtol=1e-12)
        assert (a.n == b.n).all()
    for q in ("always", "made", "relative"):
        a, b = getattr(cut.chooser, q), getattr(whole.chooser, q)
        np.testing.assert_allclose(a.sum, b.sum, rtol=1e-12)
        np.testing.assert_allclose(a.cross, b.cross, rtol=1e-12, atol=1e-6)
        assert a.n == b.n == 180


def test_table_orients_a_skill_pair_better_side_first():
    st = S.GameSetStats([], ("basic-nodouble", "basic"))
    st.win_pairs = S.CountedMoments((2, 2))
    st.total_pairs = S.CountedMoments((2, 2))
    x = np.array([[[0.0, -1.0], [1.0, 0.0]], [[0.0, -3.0], [3.0, 0.0]]])
    st.win_pairs.add(x / 10, np.ones_like(x, bool))
    st.total_pairs.add(x, np.ones_like(x, bool))
    t = T.value_table(st)
    assert list(t[["measures", "profile", "versus"]].iloc[0]) == [
        "doubling", "basic", "basic-nodouble",
    ]  # fmt: skip
    assert close(t["total_diff"].iloc[0], 2.0)


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _copy(run, dest, **config):
    shutil.copytree(run, dest, ignore=shutil.ignore_patterns("_report"))
    manifest = json.loads((dest / "_manifest.json").read_text())
    manifest["config"].update(config)
    (dest / "_manifest.json").write_text(json.dumps(manifest))
    return dest


@pytest.mark.parametrize(
    "case, message",
    [
        ("deal_run_as_games", r"--games .*deals is a deal run; --games takes game runs"),
        ("missing", r"--games .*nowhere does not exist"),
        ("empty_folder", r"--games .*empty is neither a game run nor a folder of game runs"),
        ("other_rules", r"was played under the bierkaart rules, the run under the standard"),
        ("twice", r"--games .*a is given twice"),
        ("other_order", r"its order \('fixed'\) differs from"),
        ("incomplete", r"--games: .*is an incomplete game run"),
        ("game_run_as_run_dir", r"--games adds games to a deal run's report; .* is a game run"),
    ],
)
def test_bad_inputs_are_one_line(capsys, deal_run, game_dir, tmp_path, case, message):
    a = game_dir / "a"
    args: list = ["report", deal_run, "--out", tmp_path / "rep", "--games"]
    if case == "deal_run_as_games":
        args.append(deal_run)
    elif case == "missing":
        args.append(tmp_path / "nowhere")
    elif case == "empty_folder":
        (tmp_path / "empty").mkdir()
        args.append(tmp_path / "empty")
    elif case == "other_rules":
        args.append(_play(tmp_path / "beer", 7, "basic", 12, 12, ruleset="bierkaart"))
    elif case == "twice":
        args += [a, "--games", a]
    elif case == "other_order":
        args += [a, "--games", _copy(a, tmp_path / "fixed", order="fixed")]
    elif case == "incomplete":
        dest = _copy(a, tmp_path / "half")
        manifest = json.loads((dest / "_manifest.json").read_text())
        manifest["state"] = "incomplete"
        (dest / "_manifest.json").write_text(json.dumps(manifest))
        args.append(dest)
    elif case == "game_run_as_run_dir":
        args = ["report", a, "--out", tmp_path / "rep", "--games", game_dir / "b"]
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("bonken-sim: error: "), err
    assert re.search(message, err), err
    assert not (tmp_path / "rep").exists()


def test_games_with_doubling_off_say_nothing_of_doubling(tmp_path):
    off = _play(tmp_path / "off", 7, "basic,basic-nodouble,basic-randomchoice,basic", 24, 24,
                doubling="off")  # fmt: skip
    st = S.aggregate_game_set(S.find_game_runs([off], {"config": {}}))
    built = SG.games_section(st)
    section = built.section
    assert "doubling" not in set(built.tables["games_values"]["measures"])
    assert "games_chooser_doubles" not in built.drawings
    assert "doubling off" in section.intro
    assert not any(f.startswith("Doubling by the fitted") for f in section.findings)
    assert "± 0.0" not in " ".join(section.findings)
