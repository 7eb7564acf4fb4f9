"""A game run's configuration: ``make_game_config`` validates the options and, on
``--resume``, takes the ones not given from the run (as a deal run's ``make_config`` does)
and names a given one that differs from the run's."""

from __future__ import annotations

import json

import pytest

from bonken_sim.rules.rulesets import PRESETS
from bonken_sim.runs.errors import GameRunError
from bonken_sim.runs.games import MANIFEST, make_game_config, run_games
from bonken_sim.runs.storage import sha256_file

OPTIONS = dict(
    games=90,
    seed=6,
    players="basic,random,basic-nodouble,basic",
    order="fixed",
    doubling="off",
    chunk_size=30,
    ruleset=PRESETS["double-points"],
)


def _digests(root):
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in root.rglob("part-*.parquet")}


@pytest.fixture(scope="module")
def game_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("gc") / "run"
    run_games(make_game_config(threads=1, out=out, **OPTIONS))
    return out


def test_resume_takes_every_option_from_the_run(game_run):
    cfg = make_game_config(resume=True, out=game_run, threads=1)
    manifest = json.loads((game_run / MANIFEST).read_text())
    assert cfg.identity() == manifest["config"]
    assert (cfg.games, cfg.seed, cfg.order, cfg.doubling) == (90, 6, "fixed", False)
    assert cfg.players == ("basic", "random", "basic-nodouble", "basic")
    assert cfg.rules is not None and cfg.rules["name"] == "double-points"
    assert not cfg.seed_drawn and cfg.threads == 1 and cfg.out == game_run


def test_resume_without_options_completes_the_run_to_the_same_bytes(game_run, tmp_path):
    import shutil

    out = tmp_path / "cut"
    shutil.copytree(game_run, out)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["state"] = "incomplete"
    manifest["parts"] = manifest["parts"][:1]
    (out / MANIFEST).write_text(json.dumps(manifest))
    for part in json.loads((game_run / MANIFEST).read_text())["parts"][1:]:
        (out / part["deals_file"]).unlink()
        (out / part["games_file"]).unlink()
    result = run_games(make_game_config(resume=True, out=out, threads=1), resume=True)
    assert result.played == 60
    assert _digests(out) == _digests(game_run)


def test_resume_accepts_the_run_s_own_options(game_run):
    cfg = make_game_config(resume=True, out=game_run, threads=1, **OPTIONS)
    assert cfg == make_game_config(resume=True, out=game_run, threads=1)


def test_resume_compares_the_chunk_size_as_a_new_run_records_it(tmp_path):
    # a run of fewer games than --chunk-size records the games as its chunk size
    run_games(make_game_config(5, 1, threads=1, chunk_size="1k", out=tmp_path / "r"))
    cfg = make_game_config(resume=True, out=tmp_path / "r", chunk_size="1k", games=5)
    assert cfg.chunk_size == 5


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("games", "100", "--games 100 differs from the run's 90"),
        ("seed", 7, "--seed 7 differs from the run's 6"),
        ("players", "basic", "--players basic,basic,basic,basic differs from the run's basic,"),
        ("order", "free", "--order free differs from the run's fixed"),
        ("doubling", "on", "--doubling on differs from the run's off"),
        ("chunk_size", 10, "--chunk-size 10 differs from the run's 30"),
        ("ruleset", PRESETS["strict"], "the ruleset 'strict' differs from the run's"),
        ("ruleset", "standard", "the ruleset 'standard' differs from the run's 'double-points'"),
    ],
)
def test_resume_names_a_given_option_that_differs(game_run, option, value, message):
    with pytest.raises(GameRunError, match="holds a different game run") as info:
        make_game_config(resume=True, out=game_run, **{option: value})
    assert message in str(info.value)


def test_resume_errors(tmp_path):
    with pytest.raises(GameRunError, match="--resume needs --out DIR"):
        make_game_config(resume=True)
    with pytest.raises(GameRunError, match="nothing to resume in"):
        make_game_config(resume=True, out=tmp_path / "none")
    (tmp_path / "x.txt").write_text("not a run")
    with pytest.raises(GameRunError, match="is not a bonken-sim game run directory"):
        make_game_config(resume=True, out=tmp_path)
    with pytest.raises(GameRunError, match="--resume and --force exclude each other"):
        make_game_config(resume=True, force=True, out=tmp_path)
    with pytest.raises(GameRunError, match="--games is required"):
        make_game_config(seed=1, out=tmp_path / "new")
