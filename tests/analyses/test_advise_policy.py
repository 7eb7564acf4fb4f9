"""advise's game state and sources: the choice policy (--turns-left), house rules (--ruleset)
and contract averages taken from a run (--reference)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bonken_sim.analyses.advise import AdviseError, advise, make_config, policy_choice
from bonken_sim.analyses.advise.reference import ReferenceError
from bonken_sim.cli import main
from bonken_sim.models.choice import load_models
from bonken_sim.runs.deals import run as run_simulation
from bonken_sim.runs.storage import summarize

ALL_HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
MIXED = "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C 8C"


def _row(name: str, rel: float) -> dict:
    troeven = name.startswith("troeven")
    return {
        "variant": name,
        "contract": "troeven" if troeven else name,
        "relative": {"mean": rel},
    }


def _ranked(rows):
    return sorted(rows, key=lambda r: -r["relative"]["mean"])


def _cfg(turns_left):
    return make_config(MIXED, turns_left=turns_left, deals=2, seed=1, threads=1)


@pytest.mark.parametrize("k", [2, 3])
def test_troeven_is_called_only_when_it_beats_the_best_negative_by_more_than_tau(k):
    tau = load_models().tau(k)
    assert tau > 0  # the fitted thresholds: a later turn may bring a better trump hand
    just_below = _ranked([_row("vrouwen", 1.0), _row("troeven_S", 1.0 + tau - 0.01)])
    just_above = _ranked([_row("vrouwen", 1.0), _row("troeven_S", 1.0 + tau + 0.01)])
    assert policy_choice(_cfg(k), just_below)["variant"] == "vrouwen"
    assert policy_choice(_cfg(k), just_above)["variant"] == "troeven_S"
    # Without the game state, the best relative value wins.
    assert policy_choice(_cfg(None), just_below)["variant"] == "troeven_S"


def test_last_turn_forces_troeven_even_when_a_negative_is_better():
    rows = _ranked([_row("bukken", 20.0), _row("troeven_NT", -5.0), _row("troeven_H", -2.0)])
    pick = policy_choice(_cfg(1), rows)
    assert pick["variant"] == "troeven_H" and "last turn" in pick["rule"]


def test_policy_recommendation_in_the_document():
    # All hearts: troeven_H is worth ~+100 over its average, far above any tau.
    doc = advise(make_config(ALL_HEARTS, deals=500, seed=2, threads=1, turns_left=3))
    assert doc["best"] == "troeven_H" and doc["policy"]["variant"] == "troeven_H"
    assert doc["policy"]["troeven_gap"] > doc["policy"]["tau"]
    assert doc["recommendation"].startswith("choose troeven_H")
    # With troeven used, only negatives remain and the policy takes the best of them.
    doc = advise(make_config(ALL_HEARTS, deals=500, seed=2, threads=1, trump_used=True))
    assert doc["best"] == doc["ranking"][0] and not doc["best"].startswith("troeven")


def test_model_values_are_those_of_the_choice_model():
    from bonken_sim.models.choice import relative_values

    doc = advise(make_config(MIXED, deals=200, seed=2, threads=1, available="bukken,domino"))
    hand = np.array([make_config(MIXED, deals=2, seed=1).hand], np.uint64)
    want = relative_values(load_models(), hand, 2, ["bukken", "domino"])[0]
    got = [
        next(r for r in doc["variants"] if r["variant"] == v)["model_relative"]
        for v in ("bukken", "domino")
    ]
    assert got == pytest.approx(want)


def test_ruleset_changes_the_scores():
    # double-points doubles every point value: 13 hearts in the leader's hand take all 13
    # tricks in bukken, -65 under RULES.md and -130 doubled.
    std = advise(
        make_config(ALL_HEARTS, seat="leader", deals=300, seed=4, threads=1, available="bukken")
    )
    dbl = advise(
        make_config(
            ALL_HEARTS,
            seat="leader",
            deals=300,
            seed=4,
            threads=1,
            available="bukken",
            ruleset="double-points",
        )
    )
    assert std["variants"][0]["expected"]["mean"] == -65
    assert dbl["variants"][0]["expected"]["mean"] == -130
    assert dbl["ruleset"]["name"] == "double-points"
    assert dbl["variants"][0]["model_relative"] is None  # the model is fitted on RULES.md


def test_rules_file_and_bad_ruleset(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('preset = "standard"\nheart_lead = "sometimes"\n')
    with pytest.raises(AdviseError, match="heart_lead"):
        make_config(MIXED, rules_file=str(bad))
    with pytest.raises(AdviseError, match="unknown ruleset"):
        make_config(MIXED, ruleset="nonesuch")


@pytest.mark.parametrize("value", ["0", "4", "two", "-1"])
def test_bad_turns_left(value):
    with pytest.raises(AdviseError, match="--turns-left"):
        make_config(MIXED, turns_left=value)


def test_last_turn_without_troeven_open_is_refused(capsys):
    # RULES.md §6: a chooser whose last turn has come and who has not had his troeven must
    # call it now; with no troeven available that position cannot arise in a game.
    with pytest.raises(AdviseError, match="--turns-left 1 .*troeven"):
        make_config(MIXED, turns_left=1, available="bukken,vrouwen")
    args = ["advise", "--hand", MIXED, "--turns-left", "1", "--available", "bukken,vrouwen"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bonken-sim: error: --turns-left 1") and "\n" not in err


def test_last_turn_rule_is_only_the_last_turn():
    # Two or three turns left, troeven used, or a troeven option open: all legal positions.
    assert make_config(MIXED, turns_left=2, available="bukken,vrouwen").turns_left == 2
    used = make_config(MIXED, turns_left=1, trump_used=True, available="bukken,vrouwen")
    assert [v.name for v in used.variants] == ["bukken", "vrouwen"]
    open_ = make_config(MIXED, turns_left=1, available="bukken,troeven_H")
    assert [v.name for v in open_.variants] == ["bukken", "troeven_H"]


def test_turns_left_is_for_the_chooser():
    with pytest.raises(AdviseError, match="chooser"):
        make_config(MIXED, seat="dealer", turns_left=2)


# --- --reference RUN_DIR ------------------------------------------------------------------


@pytest.fixture(scope="module")
def ref_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    run_simulation(deals=3000, seed=11, out=out, threads=1)
    return out


def test_reference_run_supplies_the_averages(ref_run):
    doc = advise(make_config(MIXED, deals=500, seed=5, threads=1, reference=str(ref_run)))
    summary = {r["variant"]: r for r in summarize(ref_run)["variants"]}
    for row in doc["variants"]:
        avg = summary[row["variant"]]["seats"][2]
        assert row["average"]["mean"] == pytest.approx(avg["mean"])
        assert row["average"]["sd"] == pytest.approx(avg["sd"])
        assert row["relative"]["mean"] == pytest.approx(row["expected"]["mean"] - avg["mean"])
    assert doc["reference_run"] == str(ref_run) and "3,000 deals" in doc["reference"]
    assert doc["seconds"]["reference_cpu"] == 0.0  # nothing simulated for the averages


def test_reference_run_must_match(ref_run, tmp_path):
    def cfg(**kw):
        return make_config(MIXED, deals=50, seed=5, threads=1, reference=str(ref_run), **kw)

    with pytest.raises(ReferenceError, match="strategies"):
        advise(cfg(strategies="random"))
    with pytest.raises(ReferenceError, match="ruleset"):
        advise(cfg(ruleset="strict"))
    with pytest.raises(ReferenceError, match="does not exist"):
        advise(make_config(MIXED, deals=50, reference=str(tmp_path / "missing")))
    # A run of other contracts, another dealer or engine, or an unfinished run: refused.
    import shutil

    for change, match in (
        (lambda m: m["config"].update(contracts=["bukken"]), "has no"),
        (lambda m: m["config"].update(dealer=1), "dealer"),
        (lambda m: m["versions"].update(engine="0000"), "engine"),
        (lambda m: m.update(state="running"), "not complete"),
    ):
        copy = tmp_path / f"copy{abs(hash(match))}"
        shutil.copytree(ref_run, copy)
        manifest = json.loads((copy / "_manifest.json").read_text())
        change(manifest)
        (copy / "_manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ReferenceError, match=match):
            advise(make_config(MIXED, deals=50, seed=5, threads=1, reference=str(copy)))


def test_cli_reference_and_errors(ref_run, capsys):
    hand = ["--hand", MIXED, "--deals", "300", "--seed", "1", "--threads", "1"]
    assert main(["advise", *hand, "--reference", str(ref_run), "--turns-left", "2"]) == 0
    out = capsys.readouterr().out
    assert f"run {ref_run}" in out and "2 choosing turns left" in out and "tau_2" in out
    assert main(["advise", *hand, "--reference", str(ref_run), "--strategies", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bonken-sim: error: --reference")
    assert main(["advise", *hand, "--turns-left", "9"]) == 2
    assert "--turns-left" in capsys.readouterr().err
