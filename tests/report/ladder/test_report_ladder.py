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
