"""``compare``: a run is never compared with itself, and a comparison over fewer deals (games)
than a run was made for says so, in the text and in the JSON."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from bonken_sim.analyses.compare import CompareError, compare_runs, to_json, to_text
from bonken_sim.cli import main
from bonken_sim.runs.deals import run as run_deals
from bonken_sim.runs.games import make_game_config, run_games
from bonken_sim.runs.manifest import read_manifest, write_manifest


def _drop_last_part(root) -> None:
    """What an interrupted run looks like: the last part not (yet) in the manifest."""
    manifest = json.loads((root / "_manifest.json").read_text())
    manifest["parts"] = sorted(manifest["parts"], key=lambda p: p["index"])[:-1]
    manifest["state"] = "incomplete"
    write_manifest(root, manifest)


@pytest.fixture(scope="module")
def deal_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmp")
    opts = dict(deals=600, seed=3, chunk_size=200, threads=1, contracts="bukken,troeven_S")
    a = run_deals(out=tmp / "a", **opts).out
    b = run_deals(out=tmp / "b", ruleset="double-points", **opts).out
    return a, b


@pytest.fixture(scope="module")
def game_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmpg")
    outs = []
    for name, doubling in (("a", "on"), ("b", "off")):
        cfg = make_game_config(60, 8, doubling=doubling, threads=1, chunk_size=20, out=tmp / name)
        outs.append(run_games(cfg).out)
    return outs


def _error(capsys, *args: str) -> str:
    assert main(["compare", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bonken-sim: error: ") and "\n" not in err
    return err


def test_a_run_is_not_compared_with_itself(deal_runs, game_runs, capsys, monkeypatch):
    a, _ = deal_runs
    with pytest.raises(CompareError, match="the same run directory"):
        compare_runs(a, a)
    with pytest.raises(CompareError, match="the same run directory"):
        compare_runs(game_runs[0], game_runs[0])
    # the same directory under another name: a relative path, a trailing "/.", a symlink
    monkeypatch.chdir(a.parent)
    assert "the same run directory" in _error(capsys, str(a), a.name)
    assert "the same run directory" in _error(capsys, str(a), os.path.join(str(a), "."))
    link = a.parent / "link"
    link.symlink_to(a, target_is_directory=True)
    assert "the same run directory" in _error(capsys, "link", str(a))


def test_complete_runs_of_one_size_need_no_note(deal_runs, game_runs):
    assert not any("compared" in n for n in compare_runs(*deal_runs)["notes"])
    assert not any("compared" in n for n in compare_runs(*game_runs)["notes"])


def test_an_incomplete_run_is_named_with_the_deals_compared(deal_runs, tmp_path):
    a, b = deal_runs
    cut = tmp_path / "b"
    shutil.copytree(b, cut)
    _drop_last_part(cut)
    doc = compare_runs(a, cut)
    assert "run B is incomplete: 400 of 600 deals compared" in doc["notes"]
    assert all(r["n"] == 400 for r in doc["variants"])
    assert "note: run B is incomplete: 400 of 600 deals compared" in to_text(doc)
    assert "run B is incomplete: 400 of 600 deals compared" in to_json(doc)["notes"]
    # the other way round, and a complete run with more deals than the other holds
    doc = compare_runs(cut, a)
    assert "run A is incomplete: 400 of 600 deals compared" in doc["notes"]
    assert "run B holds 600 deals: 400 of them compared (those both runs hold)" in doc["notes"]


def test_an_incomplete_game_run_is_named_in_text_and_json(game_runs, tmp_path, capsys):
    a, b = game_runs
    cut = tmp_path / "gb"
    shutil.copytree(b, cut)
    _drop_last_part(cut)
    assert read_manifest(cut, "bonken-sim-games", 1, kind="game run")["state"] == "incomplete"
    doc = compare_runs(a, cut)
    assert doc["games"] == 40
    assert "run B is incomplete: 40 of 60 games compared" in doc["notes"]
    assert main(["compare", str(a), str(cut)]) == 0
    assert "note: run B is incomplete: 40 of 60 games compared" in capsys.readouterr().out
    assert main(["compare", str(a), str(cut), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert "run B is incomplete: 40 of 60 games compared" in notes


def test_runs_of_one_deal_show_its_differences_without_an_interval(tmp_path, capsys):
    """One deal in common is what B changed on that deal, exactly: the table shows it alone,
    with a line saying why there is no ±, and the JSON has null intervals (not an empty
    table)."""
    opts = dict(deals=1, seed=3, threads=1, contracts="bukken,troeven_S")
    a = run_deals(out=tmp_path / "a", **opts).out
    b = run_deals(out=tmp_path / "b", ruleset="double-points", **opts).out
    assert main(["compare", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "one deal: its differences stand alone (a 95% CI needs two deals or more)" in text
    rows = [ln.split() for ln in text.splitlines() if ln.startswith(("bukken", "troeven_S"))]
    assert [r[:2] for r in rows] == [["bukken", "1"], ["troeven_S", "1"]]
    assert all(len(r) == 6 and "nan" not in r and "±" not in r for r in rows)
    assert main(["compare", str(a), str(b), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for row, cells in zip(doc["variants"], rows, strict=True):
        for seat, cell in zip(row["seats"], cells[2:], strict=True):
            assert seat["diff"] == {
                "mean": seat["mean_b"] - seat["mean_a"],
                "ci95": None,
                "sd": None,
            }
            assert float(cell) == seat["diff"]["mean"]


def test_runs_without_a_deal_in_common_are_one_line_exit_2(deal_runs, tmp_path, capsys):
    a, b = deal_runs
    empty = tmp_path / "b"
    shutil.copytree(b, empty)
    for _ in range(3):  # an interrupted run that has not finished a part yet
        _drop_last_part(empty)
    err = _error(capsys, str(a), str(empty))
    assert err.startswith("bonken-sim: error: the runs have no deal in common: nothing to compare")
    assert "run B is incomplete: 0 of 600 deals compared" in err


def test_game_runs_of_one_game_show_its_differences_without_an_interval(tmp_path, capsys):
    """One game in common is what B changed on that game, as one deal is for deal runs: the
    differences alone, a line saying why there is no ±, null intervals in the JSON."""
    a, b = (
        run_games(make_game_config(1, 8, doubling=d, threads=1, out=tmp_path / d)).out
        for d in ("on", "off")
    )
    assert main(["compare", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "one game: its differences stand alone (a 95% CI needs two games or more)" in text
    seats = [ln.split() for ln in text.splitlines() if ln[:1] in "0123" and "basic" in ln]
    assert len(seats) == 4 and not any("±" in r or "nan" in r for r in seats)
    assert main(["compare", str(a), str(b), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 1
    for seat, cells in zip(doc["seats"], seats, strict=True):
        total = seat["total"]
        assert total["diff"] == {
            "mean": total["mean_b"] - total["mean_a"],
            "ci95": None,
            "sd": None,
        }
        assert float(cells[-1]) == total["diff"]["mean"]


def test_game_runs_without_a_game_in_common_are_one_line_exit_2(game_runs, tmp_path, capsys):
    a, b = game_runs
    empty = tmp_path / "gb"
    shutil.copytree(b, empty)
    for _ in range(3):  # an interrupted game run that has not finished a part yet
        _drop_last_part(empty)
    err = _error(capsys, str(a), str(empty))
    assert err.startswith(
        "bonken-sim: error: the game runs have no game in common: nothing to compare"
    )
    assert "run B is incomplete: 0 of 60 games compared" in err


def test_counts_of_one_are_singular(tmp_path, capsys):
    """A note or heading about one deal or game says "1 deal" or "1 game", not "1 deals"."""
    opts = dict(deals=1, seed=3, threads=1, contracts="bukken")
    a = run_deals(out=tmp_path / "a", **opts).out
    b = tmp_path / "b"
    shutil.copytree(run_deals(out=tmp_path / "full", ruleset="double-points", **opts).out, b)
    _drop_last_part(b)
    err = _error(capsys, str(a), str(b))
    assert "run A holds 1 deal: 0 of them compared" in err
    assert "run B is incomplete: 0 of 1 deal compared" in err
    ga, gb = (
        run_games(make_game_config(1, 8, doubling=d, threads=1, out=tmp_path / d)).out
        for d in ("on", "off")
    )
    assert main(["compare", str(ga), str(gb)]) == 0
    assert "seed 8, 1 game with the same cards in both" in capsys.readouterr().out
