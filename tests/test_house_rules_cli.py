"""House rules on the command line and in runs: play, trace, replay, rules, run, compare."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import bonken_sim
from bonken_sim.cli import main
from bonken_sim.compare import compare_runs
from bonken_sim.house_rules import PRESETS, STANDARD
from bonken_sim.io import read_manifest, result_digest, schema_metadata
from bonken_sim.rules import VARIANT_NAMES
from bonken_sim.simulate import RunError, make_config
from bonken_sim.simulate import run as run_dir
from tests import reference as ref


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_lists_and_describes(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0 and all(name in out for name in PRESETS)
    code, out, _ = run(capsys, "rules", "strict")
    assert code == 0 and "broken" in out and "must-overtrump" in out and "7s" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    code, out, _ = run(capsys, "rules", "double-points", "--json")
    assert json.loads(out) == PRESETS["double-points"].to_dict()


def test_rules_errors_are_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "rules", "klaverjas")
    assert code == 2 and err.strip().startswith("bonken-sim: error: unknown ruleset 'klaverjas'")
    bad = tmp_path / "bad.toml"
    bad.write_text('trump_play = "sometimes"\n')
    code, _, err = run(capsys, "play", "--seed", "1", "--contract", "bukken", "--rules", str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "trump_play = 'sometimes'" in err and str(bad) in err


def test_play_under_a_ruleset(capsys):
    args = ["play", "--seed", "1", "--deal", "4", "--contract", "vrouwen", "--json"]
    code, out, _ = run(capsys, *args, "--ruleset", "double-points")
    rec = json.loads(out)
    std = bonken_sim.play(seed=1, deal=4, variant="vrouwen")
    assert rec["ruleset"]["name"] == "double-points"
    assert rec["scores"] == [2 * x for x in std.scores]
    code, out, _ = run(capsys, *args[:-1], "--ruleset", "double-points")
    assert "ruleset double-points" in out and "-60" in out


def test_trace_with_a_rules_file_replays_under_its_ruleset(capsys, tmp_path):
    rules = tmp_path / "club.toml"
    rules.write_text('preset = "strict"\n[points]\ntroeven.trick = 12\n')
    out = tmp_path / "t.jsonl"
    code, _, _ = run(
        capsys,
        "trace",
        "--deals",
        "6",
        "--seed",
        "3",
        "--strategies",
        "random",
        "--contracts",
        "hartenjagen,domino,troeven_S",
        "--rules",
        str(rules),
        "--out",
        str(out),
    )
    assert code == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["ruleset"]["name"] for r in recs} == {"club"}
    assert all(sum(r["scores"]) == 156 for r in recs if r["contract"] == "troeven")
    for r in recs:
        assert ref.replay(r) == r["scores"]
    code, txt, _ = run(capsys, "replay", str(out))
    assert code == 0 and "18 legal, 0 illegal" in txt
    # the same plays are not all legal under RULES.md: replay reads the recorded ruleset
    for r in recs:
        r["ruleset"] = STANDARD.to_dict()
    out.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    code, txt, _ = run(capsys, "replay", str(out))
    assert code == 1 and "illegal" in txt


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hr")
    a = run_dir(deals=600, seed=11, out=tmp / "a", chunk_size=256, strategies="basic")
    b = run_dir(
        deals=600, seed=11, out=tmp / "b", chunk_size=256, strategies="basic", ruleset="strict"
    )
    c = run_dir(
        deals=600,
        seed=11,
        out=tmp / "c",
        chunk_size=256,
        strategies="basic",
        ruleset="double-points",
    )
    return a.out, b.out, c.out


def test_run_records_the_ruleset_in_manifest_and_parquet(two_runs):
    a, b, _ = two_runs
    assert read_manifest(a)["config"]["ruleset"] == STANDARD.to_dict()
    assert read_manifest(b)["config"]["ruleset"] == PRESETS["strict"].to_dict()
    meta = schema_metadata(pq.read_schema(b / "part-000001.parquet"))
    assert meta["config"]["ruleset"]["name"] == "strict"
    meta = schema_metadata(pq.read_schema(b / "_deals" / "part-000000.parquet"))
    assert meta["config"]["ruleset"]["heart_lead"] == "broken"
    # row (deal i, variant v) is exactly `play` under the run's ruleset
    df = pd.read_parquet(b, filters=[("variant", "==", "troeven_S")])
    row = df[df.deal == 17].iloc[0]
    p = bonken_sim.play(seed=11, deal=17, variant="troeven_S", ruleset="strict")
    assert [int(row[f"score_{s}"]) for s in range(4)] == p.scores
    assert result_digest(a) != result_digest(b)


def test_resume_must_keep_the_ruleset(two_runs):
    _, b, _ = two_runs
    with pytest.raises(RunError, match="ruleset 'standard' differs from the run's ruleset"):
        make_config(resume=True, out=b, ruleset="standard")
    cfg = make_config(resume=True, out=b)
    assert cfg.ruleset == PRESETS["strict"]


def test_compare_pairs_deals_exactly(two_runs, capsys):
    a, _, c = two_runs
    doc = compare_runs(a, c)
    da, dc = pd.read_parquet(a), pd.read_parquet(c)
    assert [r["variant"] for r in doc["variants"]] == list(VARIANT_NAMES)
    for r in doc["variants"]:
        m = da[da.variant == r["variant"]].merge(
            dc[dc.variant == r["variant"]], on="deal", suffixes=("_a", "_c")
        )
        for p, s in enumerate(r["seats"]):
            x = m[f"score_{p}_a"].to_numpy(np.int64)
            y = m[f"score_{p}_c"].to_numpy(np.int64)
            d = y - x
            assert s["diff"].mean == pytest.approx(d.mean())
            assert (s["a"], s["b"]) == pytest.approx((x.mean(), y.mean()))
            half = 1.959963984540054 * d.std(ddof=1) / np.sqrt(len(d))
            assert s["diff"].half_width == pytest.approx(half)
    code, out, _ = run(capsys, "compare", str(a), str(c))
    assert code == 0 and "ruleset double-points" in out and "chooser" in out
    code, out, _ = run(capsys, "compare", str(a), str(c), "--json")
    assert json.loads(out)["variants"][0]["n"] == 600


def test_compare_refuses_different_seeds(tmp_path, two_runs, capsys):
    a, _, _ = two_runs
    d = run_dir(deals=50, seed=12, out=tmp_path / "d", contracts="bukken")
    code, _, err = run(capsys, "compare", str(a), str(d.out))
    assert code == 2 and "different seeds" in err


def test_run_cli_ruleset_and_config_key(capsys, tmp_path):
    cfg = tmp_path / "run.toml"
    cfg.write_text('[run]\ndeals = 40\nseed = 5\ncontracts = "bukken"\nruleset = "double-points"\n')
    code, _, err = run(capsys, "run", "--config", str(cfg), "--out", str(tmp_path / "r"), "--quiet")
    assert code == 0, err
    assert read_manifest(tmp_path / "r")["config"]["ruleset"]["name"] == "double-points"
    code, _, err = run(
        capsys, "run", "--deals", "10", "--ruleset", "nope", "--out", str(tmp_path / "s")
    )
    assert code == 2 and "unknown ruleset 'nope'" in err
