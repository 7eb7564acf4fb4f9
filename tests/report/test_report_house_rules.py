"""`bonken-sim report` on runs played under house rules: it reads them, and says what of the
report still measures by RULES.md."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bonken_sim.cli import main
from bonken_sim.runs.storage import read_run


@pytest.mark.parametrize(
    ("ruleset", "rows"),
    [
        ("standard", ["| rules | RULES.md (standard) |"]),
        ("strict", ["| rules | house ruleset strict", "| note |"]),
        ("bierkaart", ["| rules | house ruleset bierkaart", "| note |", "| beer card |"]),
    ],
)
def test_report_reads_house_rule_runs(tmp_path, capsys, ruleset, rows):
    run = tmp_path / "run"
    args = ["run", "--deals", "1500", "--seed", "3", "--out", str(run), "--quiet"]
    assert main([*args, "--ruleset", ruleset]) == 0
    assert main(["report", str(run), "--quiet", "--format", "md"]) == 0
    capsys.readouterr()
    md = (run / "_report" / "report.md").read_text()
    for row in rows:
        assert row in md
    if ruleset != "bierkaart":
        assert "| beer card |" not in md
    # The numbers behind the first table are the run's own, whatever the contract is called.
    means = pd.read_csv(run / "_report" / "tables" / "expected_score.csv")
    raw = read_run(run)
    slot = "bierkaart" if ruleset == "bierkaart" else "domino"
    want = raw.loc[raw["variant"] == slot, "score_2"].mean()
    got = means.loc[(means["variant"] == "domino") & (means["seat"] == 2), "mean"]
    assert float(got.iloc[0]) == pytest.approx(want, abs=1e-3)
    assert json.loads((run / "_report" / "report.json").read_text())


def test_point_values_off_the_grid_are_refused_in_one_line(tmp_path, capsys):
    run = tmp_path / "run"
    args = ["run", "--deals", "300", "--seed", "3", "--out", str(run), "--quiet"]
    assert main([*args, "--ruleset", "double-points"]) == 0
    assert main(["report", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "double-points" in err[0] and "bonken-sim summary" in err[0]
    assert not (run / "_report").exists()
