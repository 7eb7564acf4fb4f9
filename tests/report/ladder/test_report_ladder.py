"""`bonken-sim report RUN --ladder FILE`: how far the heuristic tiers are from expert play,
from a ladder measured by `bonken-sim ladder`. The section's table against the ladder's JSON,
its findings computed from it (and changing with it), the page without --ladder left as it
was, and every bad input as one line with exit status 2."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

import bonken_sim
from bonken_sim.cli import main
from bonken_sim.report import write_report
from bonken_sim.report.ladder import read as L
from bonken_sim.report.ladder import section as LS
from bonken_sim.rules.names import VARIANT_NAMES


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("report_ladder")


def _ladder(base, seed: int, deals: int, expert_deals: int):
    out = base / f"ladder-{seed}.json"
    args = ["ladder", "--deals", deals, "--expert-deals", expert_deals, "--seed", seed]
    assert main([str(a) for a in [*args, "--threads", 1, "--out", out]]) == 0
    return out


@pytest.fixture(scope="module")
def ladder(base):
    return _ladder(base, 1, 200, 20)


@pytest.fixture(scope="module")
def other_ladder(base):
    return _ladder(base, 2, 100, 10)


@pytest.fixture(scope="module")
def deal_run(base):
    out = base / "deals"
    bonken_sim.run(deals=200, seed=1, out=out, threads=1)
    return out


@pytest.fixture(scope="module")
def pages(deal_run, ladder, base):
    """The report with --ladder and the report without it."""
    write_report(deal_run, base / "with", formats="md", workers=1, ladder=ladder)
    write_report(deal_run, base / "without", formats="md", workers=1)
    return base / "with", base / "without"


def _findings(md: str) -> list[str]:
    block = md.split("## Key findings", 1)[1].split("\n## ", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("- ")]


def test_the_ladder_has_both_expert_rungs_on_its_expert_deals(ladder):
    doc = json.loads(ladder.read_text())
    assert doc["ruleset"] == "standard"
    for lower in ("advanced", "basic"):
        rung = doc["card_play"][f"{lower}->expert"]
        assert set(rung) == set(VARIANT_NAMES)
        assert {iv["n"] for iv in rung.values()} == {20}


def test_the_table_is_the_ladders_intervals(pages, ladder):
    import pandas as pd

    doc = json.loads(ladder.read_text())
    t = pd.read_csv(pages[0] / "tables" / "strong_play_gaps.csv").set_index("variant")
    for lower, hero in L.RUNGS:
        rung = doc["card_play"][f"{lower}->{hero}"]
        for v in VARIANT_NAMES:
            iv = rung[v]
            row = t.loc[v]
            assert row[f"{lower}_{hero}_mean"] == pytest.approx(iv["mean"], rel=1e-9)
            assert row[f"{lower}_{hero}_ci_low"] == pytest.approx(iv["ci95"][0], rel=1e-9)
            assert row[f"{lower}_{hero}_ci_high"] == pytest.approx(iv["ci95"][1], rel=1e-9)
            assert row[f"{lower}_{hero}_deals"] == iv["n"]


def test_page_has_the_section_its_findings_and_meaning(pages, ladder):
    import pandas as pd

    md = (pages[0] / "report.md").read_text()
    assert re.search(rf"^## \d\. {LS.TITLE}$", md, re.M)
    t = pd.read_csv(pages[0] / "tables" / "strong_play_gaps.csv")
    most = t.loc[t["basic_expert_mean"].idxmax()]  # the run played basic in every seat
    findings = _findings(md)
    mine = [f for f in findings if f.startswith("This run's card play (basic)")]
    assert len(mine) == 1
    assert f"furthest from expert play in {most['variant']}" in mine[0]
    assert f"{most['basic_expert_mean']:+.2f} (95% CI {most['basic_expert_ci_low']:+.2f}" in mine[0]
    above = int((t["basic_expert_ci_low"] > 0).sum())
    assert f"significantly more than basic in {above} of 12 variants" in mine[0]
    section = md.split(LS.TITLE, 1)[1]
    # the lead finding is lifted to the top; the section itself opens with all of them
    assert not any(f.startswith("Advanced card play is significantly behind") for f in findings)
    assert "- Advanced card play is significantly behind" in section
    assert "**What this means:**" in section
    assert f"{t['basic_expert_mean'].min():+.2f} and" in section
    assert "figures/strong_play_gaps.png" in section
    doc = json.loads((pages[0] / "report.json").read_text())
    assert doc["ladder"] == str(ladder.resolve())


def test_without_ladder_the_page_is_as_before(pages):
    with_md = (pages[0] / "report.md").read_text()
    without_md = (pages[1] / "report.md").read_text()
    assert LS.TITLE not in without_md
    assert not (pages[1] / "tables" / "strong_play_gaps.csv").exists()
    heads = re.findall(r"^## .*$", with_md, re.M)
    assert re.findall(r"^## .*$", without_md, re.M) == [h for h in heads if LS.TITLE not in h]
    new = set(_findings(with_md)) - set(_findings(without_md))
    assert _findings(without_md) == [f for f in _findings(with_md) if f not in new]
    assert len(new) == 1  # the run's tier at the top; the section keeps the other two
    assert "ladder" not in json.loads((pages[1] / "report.json").read_text())


def test_findings_change_with_the_ladder(ladder, other_ladder):
    manifest = {"config": {"strategies": ["advanced"] * 4}}
    assert L.run_tier(manifest) == "advanced"

    def findings(path):
        built = LS.ladder_section(L.read_ladder(path, manifest), (VARIANT_NAMES, "advanced"), 5)
        return built.section.findings

    one, two = findings(ladder), findings(other_ladder)
    assert len(one) == len(two) == 3
    assert one[0].startswith("This run's card play (advanced)")
    assert all(a != b for a, b in zip(one, two, strict=True))


def test_run_tier_is_one_heuristic_tier_in_every_seat():
    assert L.run_tier({"config": {"strategies": ["basic"] * 4}}) == "basic"
    assert L.run_tier({"config": {"strategies": ["basic", "advanced", "basic", "basic"]}}) is None
    assert L.run_tier({"config": {"strategies": ["random"] * 4}}) is None


def _edited(ladder, dest, edit):
    doc = json.loads(ladder.read_text())
    edit(doc)
    dest.write_text(json.dumps(doc))
    return dest


@pytest.mark.parametrize(
    "case, message",
    [
        ("missing", r"--ladder .*nowhere.json does not exist"),
        ("not_json", r"--ladder .* is not JSON"),
        ("not_a_ladder", r"--ladder .* is not a strategy ladder"),
        ("bad_count", r"--ladder .* is not a strategy ladder"),
        ("no_expert", r"--ladder .* has no expert rung"),
        ("no_basic_expert", r"--ladder .* has no rung basic->expert"),
        ("other_rules", r"measured under the bierkaart rules, the run was played under the "),
        ("bad_interval", r"rung advanced->expert, bukken is not an interval"),
        ("bad_games", r"--ladder .*: its whole-game rungs are incomplete"),
    ],
)
def test_bad_inputs_are_one_line(capsys, deal_run, ladder, tmp_path, case, message):
    run = deal_run
    if case == "missing":
        path = tmp_path / "nowhere.json"
    elif case == "not_json":
        path = tmp_path / "x.json"
        path.write_text("{ not json")
    elif case == "not_a_ladder":
        path = tmp_path / "x.json"
        path.write_text(json.dumps({"format": "something else"}))
    elif case == "bad_count":
        path = _edited(ladder, tmp_path / "x.json", lambda d: d.update(expert_deals="20"))
    elif case == "no_expert":
        path = _edited(ladder, tmp_path / "x.json", lambda d: [
            d["card_play"].pop(k) for k in list(d["card_play"]) if k.endswith("expert")
        ])  # fmt: skip
    elif case == "no_basic_expert":
        path = _edited(ladder, tmp_path / "x.json", lambda d: d["card_play"].pop("basic->expert"))
    elif case == "other_rules":
        path = _edited(ladder, tmp_path / "x.json", lambda d: d.update(ruleset="bierkaart"))
    elif case == "bad_games":
        path = _edited(ladder, tmp_path / "x.json", lambda d: d.update(games={"games": 12}))
    else:
        assert case == "bad_interval"
        path = _edited(
            ladder, tmp_path / "x.json",
            lambda d: d["card_play"]["advanced->expert"]["bukken"].pop("ci95"),
        )  # fmt: skip
    code, out, err = cli(capsys, "report", run, "--out", tmp_path / "rep", "--ladder", path)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("bonken-sim: error: "), err
    assert re.search(message, err), err
    assert not (tmp_path / "rep").exists()


def test_a_game_run_report_gains_the_section(capsys, ladder, tmp_path):
    """Games play every variant with the profiles' card play: the section shows both tiers'
    distances, and its lead finding joins the game report's key findings."""
    from bonken_sim.runs.games import make_game_config, run_games

    run = tmp_path / "games"
    run_games(make_game_config(4, seed=1, players="basic", threads=1, out=run))
    code, out, err = cli(capsys, "report", run, "--out", tmp_path / "rep", "--ladder", ladder)
    assert code == 0, err
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "How far from strong play" in md
    top = md[md.index("## Key findings") : md.index("| run |")]
    assert "expert" in top
    table = pd.read_csv(tmp_path / "rep" / "tables" / "strong_play_gaps.csv")
    assert len(table) == 12
    plain = cli(capsys, "report", run, "--out", tmp_path / "rep2")
    assert plain[0] == 0
    assert "How far from strong play" not in (tmp_path / "rep2" / "report.md").read_text()


# --- the whole-game rungs (bonken-sim ladder --games) ----------------------------------------


@pytest.fixture(scope="module")
def games_ladder(ladder, base):
    """The ladder with whole-game rungs, played by the ladder's own code on cheap stand-ins
    for the strongest profile and the expert (the real ones search at every decision)."""
    from bonken_sim.analyses import ladder_games as LG
    from bonken_sim.analyses.ladder import to_json

    mp = pytest.MonkeyPatch()
    mp.setattr(LG, "STRONGEST", "advanced")
    mp.setattr(LG, "HEURISTIC", ("basic", "basic-randomchoice"))
    mp.setattr(LG, "BASE", "advanced")
    mp.setattr(LG, "STEPS", ("basic-nodouble",))
    try:
        games = to_json({"games": LG.game_rungs(24, 1, threads=1)})["games"]
    finally:
        mp.undo()
    doc = json.loads(ladder.read_text())
    doc["games"] = games
    out = base / "ladder-games.json"
    out.write_text(json.dumps(doc))
    return out


def test_the_page_shows_the_whole_game_rungs_and_their_findings(deal_run, games_ladder, base):
    write_report(deal_run, base / "games", formats="md", workers=1, ladder=games_ladder)
    md = (base / "games" / "report.md").read_text()
    section = md.split(f". {LS.TITLE}", 1)[1]
    assert "Whole games: each heuristic profile against advanced" in section
    assert "Whole games: each step of the expert's game against advanced" in section
    g = json.loads(games_ladder.read_text())["games"]
    t = pd.read_csv(base / "games" / "tables" / "strong_play_games.csv")
    assert list(t["profile"]) == ["basic", "basic-randomchoice", "basic-nodouble"]
    for _, row in t.iterrows():
        rung = g["distance" if row["kind"] == "distance" else "steps"][row["profile"]]
        assert row["mean"] == pytest.approx(rung["difference"]["mean"], rel=1e-9)
        assert row["ci_low"] == pytest.approx(rung["difference"]["ci95"][0], rel=1e-9)
        assert row["win_rate"] == pytest.approx(rung["win_rate"][row["profile"]]["mean"])
        assert row["against_win_rate"] == pytest.approx(rung["win_rate"][row["against"]]["mean"])
    findings = [f for f in section.split("\n") if f.startswith("- Over 24 whole games")]
    assert len(findings) == 1
    d = g["distance"]["basic"]["difference"]
    side = "behind" if d["mean"] < 0 else "ahead of"
    assert f"basic is {abs(d['mean']):.1f}" in findings[0]
    assert f"points per game {side} advanced (95% CI" in findings[0]
    from bonken_sim.report.page.format import ci_words

    step = g["steps"]["basic-nodouble"]["difference"]
    gain = ci_words(step["mean"], *step["ci95"], 1, " points per game")
    assert (
        "- Against advanced (the fitted choice and doubling thresholds), basic-nodouble" in section
    )
    assert f"basic-nodouble gains {gain}" in section


def test_findings_of_the_rungs_follow_the_ladder(ladder, games_ladder):
    manifest = {"config": {"strategies": ["basic"] * 4}}
    plain = LS.ladder_section(L.read_ladder(ladder, manifest), (VARIANT_NAMES, "basic"), 5)
    built = LS.ladder_section(L.read_ladder(games_ladder, manifest), (VARIANT_NAMES, "basic"), 5)
    assert L.read_ladder(ladder, manifest).games is None
    assert built.section.findings[:3] == plain.section.findings  # the card play's, unchanged
    assert len(built.section.findings) == 5 and len(built.section.tables) == 3
    assert LS.GAMES_NAME in built.tables and LS.GAMES_NAME not in plain.tables
    # a rung behind by more than its interval is called so; one within it, not significant
    from bonken_sim.report.ladder import games as LGR

    g = L.read_ladder(games_ladder, manifest).games
    t = g.table.copy()
    t.loc[0, ["mean", "ci_low", "ci_high"]] = [-12.0, -15.0, -9.0]
    t.loc[1, ["mean", "ci_low", "ci_high"]] = [2.0, -1.0, 5.0]
    first = LGR.game_findings(LGR.GameRungs(24, 4, 1, "advanced", "basic", t))[0]
    assert "basic is 12.0 points per game behind advanced (95% CI 9.0 to 15.0)" in first
    assert (
        "basic-randomchoice is 2.0 points per game ahead of advanced (95% CI -1.0 to 5.0, "
        "not significantly different)"
    ) in first
    assert first.index("basic-randomchoice is") < first.index("basic is")  # nearest first
