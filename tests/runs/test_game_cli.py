"""`bonken-sim game` and `bonken-sim tournament`: the run directory, its guarantees, errors."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bonken_sim.cli import cli
from bonken_sim.rules.doubling import settle
from bonken_sim.runs.games import MANIFEST
from bonken_sim.runs.storage import sha256_file


def _game(*args):
    return CliRunner().invoke(cli, ["game", *args])


def _digests(root):
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in root.rglob("part-*.parquet")}


@pytest.fixture(scope="module")
def game_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("g") / "run"
    res = _game("--games", "3000", "--seed", "9", "--out", str(out), "--chunk-size", "1000")
    assert res.exit_code == 0, res.output
    return out


def test_game_run_directory_and_tables(game_run):
    manifest = json.loads((game_run / MANIFEST).read_text())
    assert manifest["state"] == "complete" and len(manifest["parts"]) == 3
    deals = pd.read_parquet(game_run / "_deals")
    games = pd.read_parquet(game_run)
    assert len(deals) == 3000 * 11 and len(games) == 3000
    assert sorted(games.game) == list(range(3000))
    raw = deals[[f"raw_{p}" for p in range(4)]].to_numpy()
    final = deals[[f"final_{p}" for p in range(4)]].to_numpy()
    m = np.zeros((len(deals), 4, 4), np.int64)
    for a, b in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
        m[:, a, b] = m[:, b, a] = deals[f"m_{a}{b}"]
    assert np.array_equal(settle(raw, m), final)
    bits = deals["doubles"].to_numpy()
    for a in range(4):
        for b in range(4):
            if a < b:
                both = ((bits >> (4 * a + b)) & 1) + ((bits >> (4 * b + a)) & 1)
                assert np.array_equal(both, deals[f"m_{a}{b}"])
    sums = deals.groupby("game")[[f"final_{p}" for p in range(4)]].sum().sort_index()
    g = games.set_index("game").sort_index()
    for p in range(4):
        assert np.array_equal(sums[f"final_{p}"].to_numpy(), g[f"total_{p}"].to_numpy())
    assert (g[[f"total_{p}" for p in range(4)]].sum(axis=1) == 0).all()
    assert (deals.dealer == (deals.game % 4 + deals.deal) % 4).all()
    assert (deals.chooser == (deals.dealer + 2) % 4).all()
    assert set(deals.variant.unique()) <= {
        "bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag",
        "domino", "troeven_C", "troeven_D", "troeven_H", "troeven_S", "troeven_NT",
    }  # fmt: skip


def test_same_bytes_for_any_threads_and_chunking(game_run, tmp_path):
    one = tmp_path / "one"
    res = _game("--games", "3000", "--seed", "9", "--out", str(one), "--chunk-size", "1000",
                "--threads", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert _digests(one) == _digests(game_run)
    big = tmp_path / "big"
    assert _game("--games", "3000", "--seed", "9", "--out", str(big), "--quiet").exit_code == 0
    a = pd.read_parquet(game_run / "_deals").sort_values(["game", "deal"]).reset_index(drop=True)
    b = pd.read_parquet(big / "_deals").sort_values(["game", "deal"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_resume_after_a_kill_gives_the_same_bytes(game_run, tmp_path):
    out = tmp_path / "r"
    assert (
        _game("--games", "3000", "--seed", "9", "--out", str(out), "--chunk-size", "1000").exit_code
        == 0
    )
    # what a kill after the first part leaves: a manifest listing one part, later files gone
    # or half-written under a temporary name
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["state"] = "incomplete"
    manifest["parts"] = manifest["parts"][:1]
    (out / MANIFEST).write_text(json.dumps(manifest))
    for sub in ("_deals", ""):
        (out / sub / "part-000002.parquet").unlink()
        (out / sub / "part-000001.parquet").rename(out / sub / ".part-000001.parquet.tmp")
    res = _game("--games", "3000", "--seed", "9", "--out", str(out), "--chunk-size", "1000",
                "--resume", "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["played"] == 2000
    assert _digests(out) == _digests(game_run)
    assert json.loads((out / MANIFEST).read_text())["state"] == "complete"


def test_existing_directory_refused_then_forced(game_run, tmp_path):
    out = tmp_path / "f"
    assert _game("--games", "100", "--seed", "1", "--out", str(out)).exit_code == 0
    res = _game("--games", "100", "--seed", "1", "--out", str(out))
    assert res.exit_code == 2 and "already exists" in res.output
    res = _game("--games", "100", "--seed", "2", "--out", str(out), "--resume")
    assert res.exit_code == 2 and "different game run" in res.output
    res = _game("--games", "200", "--seed", "2", "--out", str(out), "--force", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["games"] == 200
    other = tmp_path / "notours"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    res = _game("--games", "100", "--out", str(other), "--force")
    assert res.exit_code == 2 and "not a game run" in res.output
    assert (other / "precious.txt").read_text() == "keep me"
    res = _game("--games", "100", "--out", str(other))
    assert res.exit_code == 2
    assert "not a game run; choose another directory" in res.output
    assert "--resume" not in res.output and "--force" not in res.output
    assert (other / "precious.txt").read_text() == "keep me"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--games", "0"], "--games"),
        (["--games", "1.5"], "--games"),
        (["--games", "10", "--players", "basic,clever,basic,basic"], "unknown profile 'clever'"),
        (["--games", "10", "--players", "basic,random"], "give one profile or 4"),
        (["--games", "10", "--order", "sorted"], "--order must be free or fixed"),
        (["--games", "10", "--doubling", "maybe"], "--doubling must be on or off"),
        (["--games", "10", "--threads", "0"], "--threads"),
        (["--games", "10", "--seed", "-3"], "seed"),
        (["--games", "10", "--resume", "--force"], "--resume and --force exclude each other"),
    ],
)
def test_game_errors(args, message, tmp_path):
    res = _game(*args, "--out", str(tmp_path / "x"))
    assert res.exit_code == 2, res.output
    assert message in res.output


def test_tournament_json_and_text():
    res = CliRunner().invoke(
        cli, ["tournament", "--games", "120", "--profiles", "basic,random", "--json"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["arrangements"] == 6 and doc["games"] == 120
    basic, rnd = doc["profiles"]["basic"], doc["profiles"]["random"]
    assert basic["mean_total"]["mean"] == pytest.approx(-rnd["mean_total"]["mean"])
    assert basic["win_rate"]["mean"] > rnd["win_rate"]["mean"]
    assert set(basic["per_contract"]) == {
        "bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag",
        "domino", "troeven",
    }  # fmt: skip
    for prof in (basic, rnd):  # the seats partition the profile's seat-games and wins
        seats = prof["per_seat"]
        assert set(seats) == {"0", "1", "2", "3"}
        assert sum(e["seat_games"] for e in seats.values()) == prof["seat_games"]
        wins = sum(round(e["win_rate"]["mean"] * e["seat_games"]) for e in seats.values())
        assert wins == round(prof["win_rate"]["mean"] * prof["seat_games"])
        for e in seats.values():
            lo, hi = e["win_rate"]["ci95"]
            assert lo <= e["win_rate"]["mean"] <= hi and e["mean_total"]["n"] == e["seat_games"]
    res = CliRunner().invoke(cli, ["tournament", "--games", "48", "--profiles", "basic,random"])
    assert res.exit_code == 0 and "win rate" in res.output and "by seat" in res.output


def test_tournament_of_one_deal_set_prints_means_without_an_interval():
    """One deal set (--games at most the seatings) gives no interval over deal sets: the
    mean totals and contract means stand alone, never ``± nan``."""
    res = CliRunner().invoke(cli, ["tournament", "--games", "1", "--profiles", "basic,random"])
    assert res.exit_code == 0, res.output
    assert "nan" not in res.stdout
    assert "6 games = 1 deal sets" in res.stdout
    assert "one deal set: the means over deal sets have no 95% CI (--games 12 or more" in res.stdout
    rows = [line.split() for line in res.stdout.splitlines()]
    profile_rows = [r for r in rows if r[:1] in (["basic"], ["random"]) and len(r) == 5]
    assert len(profile_rows) == 2  # name, rate, lo, hi, total: no ± half-width
    assert "±" in res.stdout  # the per-seat means (several games each) keep theirs


def _strict_json(text: str):
    """The JSON document ``text``; NaN and Infinity, which JSON has not, are an error."""

    def refuse(constant):
        raise ValueError(f"{constant} in the JSON output")

    return json.loads(text, parse_constant=refuse)


def test_tournament_json_of_one_deal_set_has_null_intervals():
    res = CliRunner().invoke(
        cli, ["tournament", "--games", "1", "--profiles", "basic,random", "--json"]
    )
    assert res.exit_code == 0, res.output
    doc = _strict_json(res.stdout)
    assert doc["deal_sets"] == 1
    for prof in doc["profiles"].values():
        assert prof["mean_total"]["ci95"] is None and prof["mean_total"]["n"] == 1
        assert isinstance(prof["mean_total"]["mean"], float)
        assert all(e["ci95"] is None for e in prof["per_contract"].values())
        lo, hi = prof["win_rate"]["ci95"]  # over seat-games: still an interval
        assert lo <= prof["win_rate"]["mean"] <= hi
        for e in prof["per_seat"].values():  # several games each: intervals kept
            lo, hi = e["mean_total"]["ci95"]
            assert lo <= e["mean_total"]["mean"] <= hi


@pytest.mark.parametrize(
    "profiles, message",
    [
        ("basic", "2 to 4 profiles"),
        ("basic,basic", "twice"),
        ("basic,nope", "unknown profile 'nope'"),
        ("basic,random,basic-nodouble,basic-randomchoice,basic", "2 to 4 profiles"),
    ],
)
def test_tournament_errors(profiles, message):
    res = CliRunner().invoke(cli, ["tournament", "--games", "10", "--profiles", profiles])
    assert res.exit_code == 2
    assert message in res.output


def test_game_under_house_rules(tmp_path):
    out = tmp_path / "dp"
    res = _game("--games", "200", "--seed", "3", "--out", str(out), "--ruleset", "double-points")
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["config"]["ruleset"]["name"] == "double-points"
    deals = pd.read_parquet(out / "_deals")
    raw = deals[[f"raw_{p}" for p in range(4)]].sum(axis=1)
    doubled = {"bukken": -130, "vrouwen": -240, "domino": -100, "troeven": 260}
    for contract, total in doubled.items():
        assert (raw[deals.contract == contract] == total).all(), contract
    fixed = tmp_path / "fx"
    res = _game("--games", "50", "--seed", "3", "--out", str(fixed), "--ruleset", "fixed-order")
    assert res.exit_code == 0, res.output
    d = pd.read_parquet(fixed / "_deals").sort_values(["game", "deal"])
    first7 = d[d.deal < 7].groupby("game").variant.apply(list)
    negatives = ["bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer",
                 "laatste_slag", "domino"]  # fmt: skip
    assert len(first7) == 50 and all(v == negatives for v in first7)
    # the command line wins over the ruleset's order
    free = tmp_path / "fr"
    res = _game("--games", "50", "--seed", "3", "--out", str(free), "--ruleset", "fixed-order",
                "--order", "free")  # fmt: skip
    assert res.exit_code == 0
    assert json.loads((free / MANIFEST).read_text())["config"]["order"] == "free"
    res = _game("--games", "10", "--out", str(tmp_path / "bad"), "--ruleset", "nosuch")
    assert res.exit_code == 2 and "nosuch" in res.output


def test_tournament_under_house_rules():
    res = CliRunner().invoke(
        cli,
        ["tournament", "--games", "60", "--profiles", "basic,random", "--ruleset",
         "double-points", "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["ruleset"] == "double-points"
    basic = doc["profiles"]["basic"]["per_contract"]["troeven"]["mean"]
    rnd = doc["profiles"]["random"]["per_contract"]["troeven"]["mean"]
    assert basic + rnd == pytest.approx(130.0)  # two seats each: 2·(b + r) = 260 per deal


def test_resume_takes_its_options_from_the_run(tmp_path, game_run):
    """`game --resume --out D` needs neither --games nor the other options: they are the run's."""
    out = tmp_path / "run"
    res = _game("--games", "3000", "--seed", "9", "--out", str(out), "--chunk-size", "1000")
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["state"] = "incomplete"
    last = manifest["parts"].pop()
    (out / last["deals_file"]).unlink()
    (out / last["games_file"]).unlink()
    (out / MANIFEST).write_text(json.dumps(manifest))
    res = _game("--resume", "--out", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert _digests(out) == _digests(game_run)
    res = _game("--resume", "--out", str(out), "--seed", "10", "--quiet")
    assert res.exit_code == 2 and "--seed" in res.output


@pytest.fixture(scope="module")
def one_game(tmp_path_factory):
    out = tmp_path_factory.mktemp("g1") / "run"
    res = _game("--games", "1", "--seed", "3", "--out", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    return out


def test_summary_json_of_one_game_has_null_intervals(one_game):
    res = CliRunner().invoke(cli, ["summary", str(one_game), "--json"])
    assert res.exit_code == 0, res.output
    doc = _strict_json(res.stdout)
    assert doc["games_done"] == 1
    for seat in doc["seats"]:
        assert seat["mean_total"]["ci95"] is None and seat["mean_total"]["sd"] is None
        lo, hi = seat["win_rate"]["ci95"]  # Wilson's interval exists for one game
        assert lo <= seat["win_rate"]["mean"] <= hi
    assert all(e["ci95"] is None for row in doc["contracts"] for e in row["seats"])


def test_summary_text_of_one_game_shows_the_means_without_an_interval(one_game):
    res = CliRunner().invoke(cli, ["summary", str(one_game)])
    assert res.exit_code == 0, res.output
    assert "nan" not in res.stdout and not re.search(r"± *[0-9]", res.stdout)
    assert "one game: its totals and points stand alone" in res.stdout
    seats = [ln.split() for ln in res.stdout.splitlines() if ln[:1] in "0123" and "%" in ln]
    assert len(seats) == 4 and all(r[-2].endswith("]") for r in seats)  # rate [lo, hi] total
    assert sum(float(r[-1]) for r in seats) == 0  # the settled totals of a game add up to 0


def test_summary_of_a_game_run(game_run):
    res = CliRunner().invoke(cli, ["summary", str(game_run)])
    assert res.exit_code == 0, res.output
    assert "not a bonken-sim run manifest" not in res.output
    assert "win" in res.output.lower()
    doc = json.loads(CliRunner().invoke(cli, ["summary", str(game_run), "--json"]).output)
    games = pd.read_parquet(game_run)
    assert doc["games"] == len(games) == 3000
