"""One configuration for every kind of run (``runs/run_config.py``): deal runs and game runs
take their default threads, drawn seed, output directory, ``--resume`` / ``--force`` refusal
and the check of a resumed run's options from the same code, and say the same things."""

from __future__ import annotations

import json
import secrets

import pytest

from bonken_sim import processes
from bonken_sim.rules.rulesets import PRESETS, STANDARD
from bonken_sim.runs.deals import RunConfig, RunError, make_config
from bonken_sim.runs.deals import run as run_deals
from bonken_sim.runs.games import GameRunError, make_game_config, run_games
from bonken_sim.runs.manifest import MANIFEST
from bonken_sim.runs.run_config import RESUME_AND_FORCE

KINDS = {
    "deal run": (make_config, {"deals": 10, "contracts": "bukken"}, RunError),
    "game run": (make_game_config, {"games": 2}, GameRunError),
}


@pytest.fixture
def one_core(monkeypatch):
    """A machine of 8 CPUs on which this process may use 1 (CPU affinity, a container)."""
    monkeypatch.setattr(processes, "usable_cores", lambda: 1)
    monkeypatch.setattr("os.cpu_count", lambda: 8)


@pytest.mark.parametrize("kind", KINDS)
def test_default_threads_are_the_usable_cores(kind, one_core):
    make, options, _ = KINDS[kind]
    assert make(**options, seed=1).threads == 1
    assert make(**options, seed=1, threads=3).threads == 3
    assert make(**options, seed=1, executor="process").threads == 1  # per worker


def test_the_engine_s_default_threads_are_the_usable_cores(one_core, monkeypatch):
    import numpy as np

    from bonken_sim.engine import games, selfplay

    seen = []
    monkeypatch.setattr(games.GamePlayer, "play_all", lambda self, b, threads: seen.append(threads))
    games.play_games(1, 1, np.arange(4), ["random"] * 4)

    class Pool(selfplay.ThreadPoolExecutor):
        def __init__(self, threads):
            seen.append(threads)
            super().__init__(threads)

    monkeypatch.setattr(selfplay, "ThreadPoolExecutor", Pool)
    selfplay.self_play(4, 1, "random")
    assert seen == [1, 1]


def test_every_drawn_seed_comes_from_one_source(monkeypatch):
    from bonken_sim.analyses.advise import make_config as make_advice

    bits = []
    monkeypatch.setattr(secrets, "randbits", lambda n: bits.append(n) or 12345)
    deal = make_config(deals=10)
    game = make_game_config(games=2)
    advice = make_advice("AS KS QS JS 9S 4S AH 7H 2H KD 5D 3C 2C", deals=10)
    assert (deal.seed, game.seed, advice.seed) == (12345, 12345, 12345)
    assert deal.seed_drawn and game.seed_drawn and advice.seed_drawn
    assert bits == [63, 63, 63]
    assert not make_game_config(games=2, seed=7).seed_drawn


@pytest.mark.parametrize("kind", KINDS)
def test_a_tilde_in_out_is_the_home_directory(kind, tmp_path, monkeypatch):
    make, options, _ = KINDS[kind]
    monkeypatch.setenv("HOME", str(tmp_path))
    assert make(**options, out="~/runs/r").out == tmp_path / "runs" / "r"
    assert make(**options, out="").out is None


def test_resume_with_force_is_the_same_refusal_for_every_kind(tmp_path):
    messages = set()
    for make, options, error in KINDS.values():
        with pytest.raises(error) as info:
            make(**options, out=tmp_path, resume=True, force=True)
        messages.add(str(info.value))
    game = make_game_config(games=2, seed=1, out=tmp_path / "g")
    with pytest.raises(GameRunError) as info:
        run_games(game, resume=True, force=True)
    messages.add(str(info.value))
    assert messages == {RESUME_AND_FORCE}


def test_a_game_run_s_ruleset_is_a_ruleset(tmp_path):
    cfg = make_game_config(games=2, seed=1, ruleset="strict")
    assert cfg.ruleset == PRESETS["strict"] and cfg.rules == PRESETS["strict"].to_dict()
    assert "ruleset" in cfg.identity()
    plain = make_game_config(games=2, seed=1)
    assert plain.ruleset == STANDARD and plain.rules is None
    assert "ruleset" not in plain.identity()  # RULES.md is recorded as nothing, as before


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A small run of each kind, seed 1."""
    root = tmp_path_factory.mktemp("kinds")
    run_deals(deals=10, seed=1, contracts="bukken", threads=1, out=root / "deal run")
    run_games(make_game_config(games=2, seed=1, threads=1, out=root / "game run"))
    return root


@pytest.mark.parametrize("kind", KINDS)
def test_a_given_option_that_differs_is_named_alike_for_every_kind(kind, runs):
    make, _, error = KINDS[kind]
    out = runs / kind
    with pytest.raises(error) as info:
        make(out=out, resume=True, seed=2)
    assert str(info.value) == (
        f"{out} holds a different {kind}: --seed 2 differs from the run's 1; resume with the "
        "run's options (or leave them out), or replace it with --force"
    )
    with pytest.raises(error, match="the ruleset 'strict' differs from the run's 'standard'"):
        make(out=out, resume=True, ruleset="strict")
    assert make(out=out, resume=True, seed=1).seed == 1


def test_a_deal_run_config_made_by_hand_resumes_only_its_own_run(runs):
    out = runs / "deal run"
    other = RunConfig(deals=10, seed=2, contracts=("bukken",), threads=1, out=out, resume=True)
    with pytest.raises(RunError, match="holds a different deal run: --seed 2 differs"):
        run_deals(other)
    same = RunConfig(deals=10, seed=1, contracts=("bukken",), threads=1, out=out, resume=True)
    assert run_deals(same).deals_this_session == 0


def test_a_deal_run_recorded_before_rulesets_still_resumes(tmp_path):
    out = tmp_path / "old"
    run_deals(deals=20, seed=3, contracts="bukken", chunk_size=10, threads=1, out=out)
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest["config"]["ruleset"]
    manifest["parts"] = manifest["parts"][:1]
    (out / MANIFEST).write_text(json.dumps(manifest))
    cfg = make_config(resume=True, out=out, threads=1)
    assert cfg.ruleset == STANDARD and cfg.contracts == ("bukken",)
    assert make_config(resume=True, out=out, ruleset="standard").ruleset == STANDARD
    assert run_deals(cfg).deals_this_session == 10


def test_a_damaged_manifest_is_one_line_of_the_kind_s_error(runs, tmp_path):
    import shutil

    for kind, (make, _, error) in KINDS.items():
        out = tmp_path / kind
        shutil.copytree(runs / kind, out)
        manifest = json.loads((out / MANIFEST).read_text())
        manifest["config"]["seed"] = None
        (out / MANIFEST).write_text(json.dumps(manifest))
        with pytest.raises(error, match="is not a valid manifest: config.seed is missing"):
            make(out=out, resume=True)
