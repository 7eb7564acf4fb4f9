"""`bonken-sim report` on game runs: the numbers behind every game table against a direct
pandas computation on a small game run (and its doubling-off twin), the streaming across
batch boundaries, every refusal as one line, and the page in a headless browser."""

from __future__ import annotations

import json
import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from bonken_sim.cli import main
from bonken_sim.engine.provenance import versions
from bonken_sim.report import write_report
from bonken_sim.report.games import stats as G
from bonken_sim.runs.games import make_game_config, run_games
from tests.report.page.browser import figures_shown

GAMES = 300
PLAYERS = ("basic", "basic-nodouble", "random", "basic")
PROFILES = ("basic", "basic-nodouble", "random")
Z = 1.959963984540054


def _play(out, doubling: str, chunk: int):
    cfg = make_game_config(
        GAMES, seed=7, players=",".join(PLAYERS), doubling=doubling, threads=1,
        chunk_size=chunk, out=out,
    )  # fmt: skip
    run_games(cfg)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("report_games")
    # chunk sizes that do not divide the games, and differ between the two runs
    return _play(base / "on", "on", 130), _play(base / "off", "off", 70)


@pytest.fixture(scope="module")
def report(runs):
    on, off = runs
    write_report(on, compare_games=off, workers=1)
    return on / "_report"


@pytest.fixture(scope="module")
def games(runs):
    return pd.read_parquet(runs[0])


@pytest.fixture(scope="module")
def deals(runs):
    return pd.read_parquet(runs[0] / "_deals")


def csv(report, name: str) -> pd.DataFrame:
    return pd.read_csv(report / "tables" / f"{name}.csv")


def moments(x) -> dict:
    x = pd.Series(np.asarray(x, float))
    n = len(x)
    half = Z * x.std(ddof=1) / math.sqrt(n)
    return {"mean": x.mean(), "ci_low": x.mean() - half, "ci_high": x.mean() + half}


def wilson(k: int, n: int) -> tuple[float, float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return p, centre - half, centre + half


def close(a, b, tol=1e-9) -> bool:
    return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(b)))


def units() -> dict[str, list[int]]:
    """Unit name → the seats it averages over."""
    out = {f"seat {p}": [p] for p in range(4)}
    for name in PROFILES:
        out[name] = [p for p in range(4) if PLAYERS[p] == name]
    return out


def test_results(report, games):
    t = csv(report, "game_results").set_index("name")
    assert list(t.index) == [*(f"seat {p}" for p in range(4)), *PROFILES]
    for name, seats in units().items():
        row = t.loc[name]
        first = np.stack([games[f"rank_{p}"] == 1 for p in seats], 1)
        k, n = int(first.sum()), GAMES * len(seats)
        assert row["wins"] == k and row["seat_games"] == n
        for key, value in zip(("win_rate", "win_ci_low", "win_ci_high"), wilson(k, n), strict=True):
            assert close(row[key], value), (name, key)
        per_game = games[[f"total_{p}" for p in seats]].mean(axis=1)
        m = moments(per_game)
        assert close(row["mean_total"], m["mean"])
        assert close(row["total_ci_low"], m["ci_low"]) and close(row["total_ci_high"], m["ci_high"])
        shared = (games[[f"rank_{p}" for p in range(4)]] == 1).sum(axis=1) > 1
        assert row["sole_wins"] == int((first & ~shared.to_numpy()[:, None]).sum())


def _contributions(deals: pd.DataFrame, col: str) -> pd.DataFrame:
    """(game, seat) × contract: the sum of ``col`` over the game's deals of that contract."""
    long = deals.melt(
        id_vars=["game", "contract"], value_vars=[f"{col}_{p}" for p in range(4)],
        var_name="seat", value_name="x",
    )  # fmt: skip
    long["seat"] = long["seat"].str[-1].astype(int)
    long["contract"] = long["contract"].astype(str)
    wide = long.pivot_table(
        index=["game", "seat"], columns="contract", values="x", aggfunc="sum", fill_value=0
    )
    return wide.reindex(columns=list(G.CONTRACTS), fill_value=0)


def test_contracts(report, deals):
    t = csv(report, "game_contracts").set_index(["name", "contract"])
    final = _contributions(deals, "final")
    raw = _contributions(deals, "raw")
    for name, seats in units().items():
        for contract in G.CONTRACTS:
            row = t.loc[(name, contract)]
            for part, frame in (("final", final), ("raw", raw), ("transfer", final - raw)):
                x = frame[contract].unstack("seat")[seats].mean(axis=1)
                m = moments(x)
                for key in ("mean", "ci_low", "ci_high"):
                    assert close(row[f"{part}_{key}"], m[key]), (name, contract, part, key)
    per_game = deals["contract"].astype(str).value_counts() / GAMES
    for contract in G.CONTRACTS:
        assert close(t.loc[("seat 0", contract), "deals_per_game"], per_game.get(contract, 0))
    # the contributions add up to the mean totals
    res = csv(report, "game_results").set_index("name")
    summed = t.groupby(level="name")["final_mean"].sum()
    for name in res.index:
        assert close(summed[name], res.loc[name, "mean_total"], 1e-6)  # CSV: 10 digits


def test_head_to_head(report, games):
    t = csv(report, "head_to_head")
    assert [(a, b) for a, b in zip(t["profile"], t["versus"], strict=True)] == [
        ("basic", "basic-nodouble"),
        ("basic", "random"),
        ("basic-nodouble", "random"),
    ]
    assert list(t["only_doubling_differs"]) == [True, False, False]
    u = units()
    for _, row in t.iterrows():
        for q, col in (("win", "rank"), ("total", "total")):

            def x(name, q=q, col=col):
                v = games[[f"{col}_{p}" for p in u[name]]]
                return (v == 1).mean(axis=1) if q == "win" else v.mean(axis=1)

            m = moments(x(row["profile"]) - x(row["versus"]))
            assert close(row[f"{q}_diff"], m["mean"])
            assert close(row[f"{q}_diff_ci_low"], m["ci_low"])
            assert close(row[f"{q}_diff_ci_high"], m["ci_high"])


def test_doubling_effect(report, runs, games):
    off = pd.read_parquet(runs[1])
    assert (off["game"].to_numpy() == games["game"].to_numpy()).all()
    t = csv(report, "doubling_effect").set_index("name")
    for name, seats in units().items():
        row = t.loc[name]
        for side, g in (("on", games), ("off", off)):
            k = int(np.stack([g[f"rank_{p}"] == 1 for p in seats]).sum())
            p, lo, hi = wilson(k, GAMES * len(seats))
            assert close(row[f"win_rate_{side}"], p) and close(row[f"win_{side}_ci_low"], lo)
        for q, col in (("win", "rank"), ("total", "total")):
            a = games[[f"{col}_{p}" for p in seats]]
            b = off[[f"{col}_{p}" for p in seats]]
            if q == "win":
                a, b = a == 1, b == 1
            m = moments(a.mean(axis=1) - b.mean(axis=1))
            assert close(row[f"{q}_diff"], m["mean"]), (name, q)
            assert close(row[f"{q}_diff_ci_low"], m["ci_low"])
            assert close(row[f"{q}_diff_ci_high"], m["ci_high"])
    ranks_on = games[[f"rank_{p}" for p in range(4)]].to_numpy() == 1
    ranks_off = off[[f"rank_{p}" for p in range(4)]].to_numpy() == 1
    changed = (ranks_on != ranks_off).any(axis=1).mean()
    assert close(t["winner_changed"].iloc[0], changed)
    # doubling off moves nothing: the twin's settled totals are its raw totals
    off_deals = pd.read_parquet(runs[1] / "_deals")
    assert all((off_deals[f"final_{p}"] == off_deals[f"raw_{p}"]).all() for p in range(4))


def test_streaming_across_batches(runs, monkeypatch):
    """Batches cut inside games (13 rows: never a multiple of 11) give the same sums."""
    whole = G.aggregate_games(runs[0])
    monkeypatch.setattr(G, "BATCH", 13)
    cut = G.aggregate_games(runs[0])
    for q in G.PARTS:
        np.testing.assert_allclose(cut.contract[q].s1, whole.contract[q].s1, rtol=1e-12)
        np.testing.assert_allclose(cut.contract[q].s2, whole.contract[q].s2, rtol=1e-12)
    for q in G.QUANTITIES:
        np.testing.assert_allclose(cut.per_game[q].s1, whole.per_game[q].s1, rtol=1e-12)
    assert (cut.wins == whole.wins).all() and cut.games == whole.games == GAMES


def test_files_and_page(report):
    doc = json.loads((report / "report.json").read_text())
    assert doc["kind"] == "games" and doc["games"] == GAMES and doc["compared_with"]
    assert doc["versions"] == versions() and doc["bonken_sim"] == versions()["bonken_sim"]
    figures = {"game_results", "game_contracts", "game_doubling", "doubling_effect"}
    assert {p.stem for p in (report / "figures").glob("*.png")} == figures
    assert {p.stem for p in (report / "figures").glob("*.svg")} == figures
    assert {p.stem for p in (report / "tables").glob("*.csv")} == {
        "game_results", "game_contracts", "head_to_head", "doubling_effect",
    }  # fmt: skip
    page = (report / "report.html").read_text()
    for title in ("1. Win rates and totals", "2. Per-contract contributions",
                  "3. Effect of doubling on win rates",
                  "Profiles that differ only in doubling"):  # fmt: skip
        assert title in page
    assert page.count('<svg role="img"') == 4  # inlined SVG
    md = (report / "report.md").read_text()
    assert md.count("![") == 4


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_without_comparison(capsys, runs, tmp_path):
    code, out, err = cli(capsys, "report", runs[1], "--out", tmp_path / "r", "--format", "md")
    assert code == 0, err
    assert re.fullmatch(rf"report of {GAMES} games written in \d+\.\d s: .*report\.md\n", out)
    md = (tmp_path / "r" / "report.md").read_text()
    assert "This run was played with doubling off." in md and "--compare-games DIR" in md
    # doubling off: nothing moved, so no transfer figure
    assert not (tmp_path / "r" / "figures" / "game_doubling.png").exists()


def _copy(run, tmp_path, name="copy", **changes):
    copy = tmp_path / name
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns("_report"))
    manifest = json.loads((copy / "_manifest.json").read_text())
    for key, value in changes.items():
        if key.startswith("config_"):
            manifest["config"][key[7:]] = value
        else:
            manifest[key] = value
    (copy / "_manifest.json").write_text(json.dumps(manifest))
    return copy


@pytest.mark.parametrize(
    "case, message",
    [
        ("incomplete", r"is an incomplete game run \(300 of 300 games\); complete it with "),
        ("schema", r"schema version 99 is not supported"),
        ("missing_part", r"part file part-000001\.parquet is missing"),
        ("out_in_data", r"inside the run directory only a name starting with '_'"),
        (
            "same_doubling",
            r"both runs have doubling on; the comparison needs the same games "
            r"played with --doubling off",
        ),  # fmt: skip
        ("other_seed", r"its seed \(8\) differs from the report's run \(7\)"),
        ("other_is_deal_run", r"is not a game run"),
        ("compare_with_deal_run", r"--compare-games needs a game run .* is a deal run"),
        ("compare_itself", r"is the report's run itself"),
        ("compare_incomplete", r"is an incomplete game run"),
    ],
)
def test_errors_are_one_line(capsys, runs, tmp_path, case, message):
    on, off = runs
    args: list = ["report", on, "--out", tmp_path / "rep"]
    if case == "incomplete":
        args[1] = _copy(on, tmp_path, state="incomplete")
    elif case == "schema":
        args[1] = _copy(on, tmp_path, schema_version=99)
    elif case == "missing_part":
        args[1] = _copy(on, tmp_path)
        (args[1] / "part-000001.parquet").unlink()
    elif case == "out_in_data":
        args[3] = on / "rep"
    elif case == "same_doubling":
        args += ["--compare-games", _copy(on, tmp_path)]
    elif case == "other_seed":
        args += ["--compare-games", _copy(off, tmp_path, config_seed=8)]
    elif case == "other_is_deal_run":
        import bonken_sim

        deal_run = tmp_path / "deal_run"
        bonken_sim.run(deals=20, seed=1, out=deal_run, threads=1)
        args += ["--compare-games", deal_run]
    elif case == "compare_with_deal_run":
        import bonken_sim

        deal_run = tmp_path / "deal_run"
        bonken_sim.run(deals=20, seed=1, out=deal_run, threads=1)
        args = ["report", deal_run, "--compare-games", off]
    elif case == "compare_itself":
        args += ["--compare-games", on]
    elif case == "compare_incomplete":
        args += ["--compare-games", _copy(off, tmp_path, state="incomplete")]
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("bonken-sim: error: "), err
    assert re.search(message, err), err


def test_page_renders_in_a_browser(report):
    page = (report / "report.html").resolve().as_uri()
    shown = figures_shown(page)
    assert shown == ("4", "4")


def test_findings_and_meanings_come_from_the_tables(report, runs):
    md = (report / "report.md").read_text()
    findings = md.split("## Key findings", 1)[1].split("\n\n", 2)[1]
    res = csv(report, "game_results").set_index("name")
    for name in PROFILES:
        assert f"{name} {100 * res.loc[name, 'win_rate']:.1f}%" in findings
    h2h = csv(report, "head_to_head").set_index(["profile", "versus"])
    dbl = h2h.loc[("basic", "basic-nodouble")]
    sentence = "Doubling by the fitted thresholds rather than never is worth"
    assert f"{sentence} {dbl['total_diff']:+.1f}" in findings
    eff = csv(report, "doubling_effect")
    assert f"changed who finished first in {100 * eff['winner_changed'].iloc[0]:.1f}%" in findings
    assert md.count("**What this means:**") == 4  # one under each figure
    # other games, other findings
    other = G.aggregate_games(runs[1])
    from bonken_sim.report.games.sections import game_sections

    assert game_sections(other)[0].section.findings[0] not in findings


def test_a_profile_at_every_seat_shows_no_zero_interval(tmp_path):
    cfg = make_game_config(
        40, seed=3, players="basic", threads=1, chunk_size=40, out=tmp_path / "g"
    )
    run_games(cfg)
    from bonken_sim.report.games.sections import game_sections

    built = game_sections(G.aggregate_games(tmp_path / "g"))
    cells = [str(v) for b in built for _, t in b.section.tables for v in t.to_numpy().ravel()]
    assert "+0.0" in cells  # the profile's mean over all four seats is 0 in every game
    assert not any("± 0.0" in c for c in cells)
    assert built[0].section.findings[0].startswith("One profile (basic) at every seat")
