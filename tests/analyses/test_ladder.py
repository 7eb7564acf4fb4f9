"""The strategy ladder: its statistics and its command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from bonken_sim.analyses.ladder import (
    card_play_rung,
    choice_rung,
    doubling_rung,
    replay_with_stakes,
    run_ladder,
)
from bonken_sim.cli import cli
from bonken_sim.engine.selfplay import self_play
from bonken_sim.models.choice import NAMES, load_models
from bonken_sim.models.doubling import doubles


@pytest.fixture(scope="module")
def ladder():
    return run_ladder(3000, seed=21, threads=2, expert_deals=0)  # the expert rung: below


def test_basic_beats_random_in_every_variant(ladder):
    rung = ladder["card_play"]["random->basic"]
    assert set(rung) == set(NAMES)
    for name, iv in rung.items():
        assert iv.lo > 0, f"{name}: basic hero gain {iv.mean:+.2f}, CI [{iv.lo:.2f}, {iv.hi:.2f}]"


def test_advanced_beats_basic_where_its_rules_are_worth_most(ladder):
    """The issue's rule on 3,000 seeded deals: advanced is never significantly worse than
    basic, and significantly better in at least four of hartenjagen, herenboeren, vrouwen,
    laatste_slag, domino and troeven (troeven counted only when every suit trump is)."""
    rung = ladder["card_play"]["basic->advanced"]
    assert set(rung) == set(NAMES)
    for name, iv in rung.items():
        assert iv.hi >= 0, f"{name}: advanced worse, {iv.mean:+.3f} [{iv.lo:.3f}, {iv.hi:.3f}]"
    better = {name for name in NAMES if rung[name].lo > 0}
    contracts = {"hartenjagen", "herenboeren", "vrouwen", "laatste_slag", "domino"} & better
    if {"troeven_C", "troeven_D", "troeven_H", "troeven_S"} <= better:
        contracts.add("troeven")
    assert len(contracts) >= 4, f"significantly better only in {sorted(contracts)}"


def test_stake_aware_doubling_rung_replays_only_the_doubled_deals():
    models = load_models()
    sp = self_play(600, seed=8, strategies="advanced")
    picked = choice_rung(sp, models, seed=8)["picked"]
    again = replay_with_stakes(sp, models, picked, "advanced")
    spb = self_play(600, seed=8, strategies="basic")
    plain = replay_with_stakes(spb, models, picked, "basic")  # basic ignores stakes
    assert np.array_equal(plain.scores, spb.scores)
    changed = np.nonzero((again.scores != sp.scores).any(axis=2))
    assert len(changed[0]) > 0
    for i, v in zip(*changed, strict=True):
        assert v == picked[i]  # only the chosen contract of a deal is played again
        assert doubles(models, sp.hands[i : i + 1], NAMES[v]).any()
    assert (again.scores.sum(axis=2) == sp.scores.sum(axis=2)).all()


def test_choice_policy_beats_random_choice(ladder):
    ch = ladder["choice"]
    assert ch["policy_minus_random"].lo > 0
    assert ch["hindsight"].mean > ch["policy"].mean  # hindsight is the ceiling


def test_choice_and_doubling_numbers_match_a_direct_computation():
    models = load_models()
    sp = self_play(1500, seed=8)
    ch = choice_rung(sp, models, seed=8)
    mu = np.array([models.mean[v][2] for v in NAMES])
    rel = sp.scores[:, :, 2] - mu
    picked = ch["picked"]
    assert ch["policy"].mean == pytest.approx(rel[np.arange(1500), picked].mean())
    assert ch["hindsight"].mean == pytest.approx(rel.max(axis=1).mean())
    dbl = doubling_rung(sp, models, picked)
    assert sum(e["deals"] for k, e in dbl.items() if k != "all") == 1500
    from bonken_sim.models.doubling import doubles

    name = max((k for k in dbl if k != "all"), key=lambda k: dbl[k]["deals"])
    v = NAMES.index(name)
    idx = np.nonzero(picked == v)[0]
    d = doubles(models, sp.hands[idx], name)
    s = sp.scores[idx, v].astype(np.int64)
    gains = [s[i, a] - s[i, b] for i, a, b in zip(*np.nonzero(d), strict=True)]
    assert dbl[name]["gain_per_double"].mean == pytest.approx(np.mean(gains))
    assert dbl[name]["profitable"].mean == pytest.approx(np.mean(np.array(gains) > 0))


def test_ladder_command_json_and_file(tmp_path):
    out = tmp_path / "ladder.json"
    res = CliRunner().invoke(
        cli,
        # a small expert rung: its play has tests of its own below
        ["ladder", "--deals", "500", "--seed", "4", "--expert-deals", "20", "--out", str(out)]
        + ["--json"],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc == json.loads(out.read_text())
    assert doc["deals"] == 500 and set(doc["card_play"]["random->basic"]) == set(NAMES)
    assert len(doc["choice"]["policy"]["ci95"]) == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["--deals", "0"], "--deals must be positive"),
        (["--deals", "1"], "--deals must be at least 2"),
        (["--deals", "1e10"], "--deals must be at most 10,000,000"),
        (["--deals", "1.5"], "--deals"),
        (["--seed", "x"], "--seed"),
        (["--out", "/no/such/dir/l.json"], "cannot write --out"),
    ],
)
def test_ladder_command_errors(args, message):
    res = CliRunner().invoke(cli, ["ladder", *args])
    assert res.exit_code == 2
    assert message in res.output


def test_ladder_takes_the_largest_seed():
    """The choice and doubling rungs play the next seed, which wraps at 2**64."""
    res = CliRunner().invoke(
        cli, ["ladder", "--deals", "50", "--seed", str(2**64 - 1), "--out", "-", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["seed"] == 2**64 - 1


def test_expert_rung_runs_on_its_own_deals_with_its_settings(monkeypatch):
    calls = []
    real = card_play_rung

    def recorded(deals, seed, lower, hero, threads):
        calls.append((deals, lower, hero))
        return real(deals, seed, lower, hero, threads)

    monkeypatch.setattr("bonken_sim.analyses.ladder.card_play_rung", recorded)
    args = ["ladder", "--deals", "20", "--expert-deals", "6", "--expert-samples", "3"]
    result = CliRunner().invoke(cli, [*args, "--out", "-", "--json"])
    assert result.exit_code == 0, result.output
    assert (6, "advanced", "expert:3:0:1:100") in calls
    doc = json.loads(result.output)
    assert doc["expert_deals"] == 6
    assert set(doc["card_play"]["advanced->expert:3:0:1:100"]) == set(NAMES)
    calls.clear()
    result = CliRunner().invoke(cli, [*args[:3], "--expert-deals", "0", "--out", "-"])
    assert result.exit_code == 0 and not any(hero.startswith("expert") for *_, hero in calls)


@pytest.mark.parametrize("bad", ["1", "-3", "x"])
def test_bad_expert_deals_are_refused(bad):
    result = CliRunner().invoke(
        cli, ["ladder", "--deals", "20", "--expert-deals", bad, "--out", "-"]
    )
    assert result.exit_code == 2
    assert "expert-deals" in result.output


# --- the whole-game rungs (--games) --------------------------------------------------------


def test_a_pair_rung_is_the_tournaments_numbers_paired_per_deal_set():
    """Two heuristic profiles on 12 games (two deal sets): the rung's mean totals and win
    rates are the tournament's, and its difference is the paired one, per deal set."""
    from bonken_sim.analyses.ladder_games import pair_rung
    from bonken_sim.analyses.tournament import run_tournament

    rung = pair_rung(12, 5, "basic", "advanced", threads=1)
    t = run_tournament(12, 5, ["basic", "advanced"], threads=1)
    for name in ("basic", "advanced"):
        assert rung["win_rate"][name] == t["profiles"][name]["win_rate"]
        assert rung["mean_total"][name].mean == pytest.approx(
            t["profiles"][name]["mean_total"].mean
        )
    d = rung["difference"]
    assert d.n == 2 and d.lo < d.mean < d.hi
    assert d.mean == pytest.approx(
        rung["mean_total"]["basic"].mean - rung["mean_total"]["advanced"].mean
    )
    assert (rung["profile"], rung["against"]) == ("basic", "advanced")


def test_game_rungs_measure_every_heuristic_profile_and_every_step(monkeypatch):
    """The rungs' layout, on stand-ins for the strongest and the expert (the real ones search
    at every decision: the command's test below plays them on the fewest games)."""
    from bonken_sim.analyses import ladder_games as LG

    monkeypatch.setattr(LG, "STRONGEST", "advanced")
    monkeypatch.setattr(LG, "HEURISTIC", ("basic", "basic-nodouble"))
    monkeypatch.setattr(LG, "BASE", "advanced")
    monkeypatch.setattr(LG, "STEPS", ("basic-randomchoice",))
    g = LG.game_rungs(13, 3, threads=1)  # rounded up to whole deal sets: 3 × 6 games
    assert (g["games"], g["deal_sets"], g["seed"], g["strongest"]) == (18, 3, 3, "advanced")
    assert list(g["distance"]) == ["basic", "basic-nodouble"]
    assert list(g["steps"]) == ["basic-randomchoice"]
    for r in g["distance"].values():
        assert r["against"] == "advanced" and r["difference"].n == 3
        assert set(r["win_rate"]) == {r["profile"], "advanced"}
    # on the same deals: the basic rung is the same as played on its own
    alone = LG.pair_rung(18, 3, "basic", "advanced", threads=1)
    assert alone["difference"] == g["distance"]["basic"]["difference"]
    text = "\n".join(LG.game_text(g))
    assert "whole games against advanced: 18 games = 3 deal sets × 6 seatings" in text
    assert "basic-randomchoice" in text


def test_ladder_command_plays_the_whole_game_rungs(tmp_path):
    """The real rungs, the expert's searches and all, on the fewest games: in the text, in the JSON
    (with the strongest named) and its file alike."""
    from bonken_sim.analyses.ladder_games import HEURISTIC, STEPS, STRONGEST

    out = tmp_path / "ladder.json"
    args = ["ladder", "--deals", "50", "--expert-deals", "0", "--games", "12", "--seed", "2"]
    res = CliRunner().invoke(cli, [*args, "--threads", "2", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert f"whole games against {STRONGEST}: 12 games = 2 deal sets" in res.stdout
    doc = json.loads(out.read_text())
    g = doc["games"]
    assert (g["games"], g["deal_sets"], g["seed"], g["strongest"]) == (12, 2, 2, STRONGEST)
    assert list(g["distance"]) == list(HEURISTIC) and list(g["steps"]) == list(STEPS)
    for r in [*g["distance"].values(), *g["steps"].values()]:
        lo, hi = r["difference"]["ci95"]
        assert lo <= r["difference"]["mean"] <= hi and r["difference"]["n"] == 2
        assert {k: v["n"] for k, v in r["win_rate"].items()} == {
            r["profile"]: 24,
            r["against"]: 24,
        }
    # the report reads it back: every rung, the strongest named as the ladder names it
    from bonken_sim.report.ladder.games import read_game_rungs

    back = read_game_rungs(g)
    assert back.strongest == STRONGEST and len(back.table) == len(HEURISTIC) + len(STEPS)
    assert list(back.table["mean"]) == [
        r["difference"]["mean"] for r in [*g["distance"].values(), *g["steps"].values()]
    ]


def test_a_ladder_without_games_has_no_games_key(ladder):
    from bonken_sim.analyses.ladder import to_json, to_text

    assert "games" not in to_json(ladder) and "whole games" not in to_text(ladder)


@pytest.mark.parametrize(
    "bad, message",
    [
        ("5", "--games must be 0 (no whole-game rungs) or at least 12"),
        ("-3", "--games"),
        ("x", "--games"),
        ("2e7", "--games must be at most 10,000,000"),
    ],
)
def test_bad_games_are_refused_in_one_line(capsys, bad, message):
    from bonken_sim.cli import main

    assert main(["ladder", "--deals", "20", "--games", bad, "--out", "-"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err


# --- card play with inference against without (--infer-deals) -----------------------------


def test_the_inference_rung_is_the_two_heroes_paired_per_deal(tmp_path):
    """Its difference per variant is the inferring hero's card-play rung minus the plain
    hero's, deal by deal, and it says how long each took."""
    from bonken_sim.analyses.ladder import INFERRING, PLAIN, hero_gains

    out = tmp_path / "ladder.json"
    args = ["ladder", "--deals", "6", "--expert-deals", "0", "--infer-deals", "5"]
    res = CliRunner().invoke(cli, [*args, "--threads", "2", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert f"one {INFERRING} hero minus one {PLAIN} hero" in res.output
    rung = json.loads(out.read_text())["card_play_inference"]
    assert rung["inferring"] == INFERRING and rung["deals"] == 5
    assert rung["seconds"]["plain"] > 0 and rung["seconds"]["inferring"] > 0
    plain = hero_gains(5, 1, "advanced", PLAIN, 2)[0]
    infer = hero_gains(5, 1, "advanced", INFERRING, 2)[0]
    for v, name in enumerate(NAMES):
        assert rung["gain"][name]["mean"] == pytest.approx((infer[:, v] - plain[:, v]).mean())


def test_a_ladder_without_the_inference_rung_has_no_key(ladder):
    from bonken_sim.analyses.ladder import to_json, to_text

    assert "card_play_inference" not in to_json(ladder) and "inference" not in to_text(ladder)


@pytest.mark.parametrize("bad", ["1", "-3", "x", "2e7"])
def test_bad_infer_deals_are_refused_in_one_line(capsys, bad):
    from bonken_sim.cli import main

    assert main(["ladder", "--deals", "20", "--infer-deals", bad, "--out", "-"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--infer-deals" in err, err
