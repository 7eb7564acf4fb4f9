"""The solver's part of the benchmark (bench/solver.py) and its options in `bonken-sim bench`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bonken_sim.bench.solver import TRICK_VARIANTS, ending, percentile, run_solver_bench
from bonken_sim.cli import cli
from bonken_sim.engine.solve import engine_deal
from bonken_sim.rules.names import make_variant


def test_endings_are_cut_from_the_engine_deal():
    full, _ = engine_deal(1, 4)
    assert ending(1, 4, 13) == full
    cut = ending(1, 4, 5)
    assert [bin(m).count("1") for m in cut] == [5] * 4
    assert all(c & ~f == 0 for c, f in zip(cut, full, strict=True))  # each seat's own cards
    assert ending(1, 4, 5) == cut  # a fixed draw
    assert "domino" not in [v.name for v in TRICK_VARIANTS] and len(TRICK_VARIANTS) == 11


def test_percentile_is_the_nearest_rank_at_or_above():
    values = [float(v) for v in range(1, 11)]
    assert percentile(values, 0.9) == 10.0 and percentile(values, 0.5) == 6.0
    assert percentile([3.0], 0.9) == 3.0


def test_run_solver_bench_reports_each_contract_and_kind():
    lines: list[str] = []
    variants = (make_variant("hartenheer"), make_variant("troeven", "S"))
    doc = run_solver_bench(
        endings=6, deals=2, cards=3, max_nodes=3000, variants=variants, echo=lines.append
    )
    assert set(doc["kinds"]) == {"3-card endings", "full deals"}
    for kind, positions in (("3-card endings", 6), ("full deals", 2)):
        got = doc["kinds"][kind]
        assert got["positions"] == positions and list(got["contracts"]) == [
            "hartenheer",
            "troeven_S",
        ]
        for st in got["contracts"].values():
            assert st["positions"] == positions
            assert 0 <= st["median_ms"] <= st["p90_ms"] <= st["max_ms"]
            assert 0 <= st["median_nodes"] <= st["max_nodes"]
            assert 0 <= st["gave_up"] <= positions
    # 3000 nodes solve 3-card endings, not full deals of troeven
    assert doc["kinds"]["3-card endings"]["contracts"]["troeven_S"]["gave_up"] == 0
    assert any(ln.startswith("troeven_S") for ln in lines)
    assert any("gives up after 3,000 nodes" in ln for ln in lines)


def test_zero_sizes_skip_the_solver():
    lines: list[str] = []
    assert run_solver_bench(endings=0, deals=0, echo=lines.append)["kinds"] == {}
    assert lines == []


def test_bench_command_passes_the_solver_options(tmp_path):
    args = ["bench", "--deals", "2000", "--repeats", "1", "--threads", "1"]
    args += ["--strategies", "random", "--out", str(tmp_path)]
    args += ["--solver-endings", "2", "--solver-deals", "0", "--solver-max-nodes", "50k"]
    args += ["--jobs", "none"]  # the jobs have tests of their own
    res = CliRunner().invoke(cli, [*args, "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)["solver"]
    assert doc["max_nodes"] == 50_000 and list(doc["kinds"]) == ["5-card endings"]
    assert len(doc["kinds"]["5-card endings"]["contracts"]) == 11


@pytest.mark.parametrize(
    ("option", "value"),
    [("--solver-endings", "-1"), ("--solver-deals", "x"), ("--solver-max-nodes", "lots")],
)
def test_bad_solver_options_exit_2(option, value):
    res = CliRunner().invoke(cli, ["bench", option, value])
    assert res.exit_code == 2
    assert option in res.output
