"""House rules on the command line and in runs: play, trace, replay, rules, run, compare."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import bonken_sim
from bonken_sim.analyses.compare import compare_runs
from bonken_sim.cli import main
from bonken_sim.rules.names import VARIANT_NAMES
from bonken_sim.rules.rulesets import PRESETS, STANDARD
from bonken_sim.runs.deals import RunError, make_config
from bonken_sim.runs.deals import run as run_dir
from bonken_sim.runs.storage import read_manifest, result_digest, schema_metadata
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


@pytest.mark.parametrize(
    "text",
    [
        'heart_lead = ["free"]\n',
        'trump_play = ["x"]\n',
        'domino_aces = ["x"]\n',
        "heart_lead = {a=1}\n",
    ],
)
def test_rules_a_list_or_table_value_is_one_line(capsys, tmp_path, text):
    q = tmp_path / "q.toml"
    q.write_text(text)
    code, out, err = run(capsys, "rules", "--rules", str(q))
    key = text.split(" =")[0]
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"bonken-sim: error: rules file {q}: {key} = ")


def test_rules_name_and_rules_file_together_name_what_was_given(capsys, tmp_path):
    q = tmp_path / "q.toml"
    q.write_text('preset = "standard"\n')
    code, out, err = run(capsys, "rules", "strict", "--rules", str(q))
    assert (code, out) == (2, "")
    assert (
        err == "bonken-sim: error: give NAME or --rules, not both (a rules file names its preset)\n"
    )


def test_rules_file_not_utf8_or_not_a_regular_file_is_one_line_naming_it(capsys, tmp_path):
    q = tmp_path / "q.toml"
    q.write_bytes(b"\xff\xfe")
    code, _, err = run(capsys, "rules", "--rules", str(q))
    assert code == 2 and err == (
        f"bonken-sim: error: rules file {q}: not valid TOML: "
        "not UTF-8 text (byte 0xff at offset 0)\n"
    )
    code, _, err = run(capsys, "rules", "--rules", "/dev/zero")
    assert code == 2
    assert err == "bonken-sim: error: cannot read rules file /dev/zero: not a regular file\n"


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
    with pytest.raises(RunError, match="the ruleset 'standard' differs from the run's 'strict'"):
        make_config(resume=True, out=b, ruleset="standard")
    cfg = make_config(resume=True, out=b)
    assert cfg.ruleset == PRESETS["strict"]


def test_resume_a_run_recorded_before_the_domino_options(tmp_path):
    out = tmp_path / "old"
    run_dir(deals=50, seed=3, out=out, contracts="bukken", ruleset="strict")
    path = out / "_manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["config"]["ruleset"]["domino_aces"]
    del manifest["config"]["ruleset"]["domino_ace_or_two"]
    path.write_text(json.dumps(manifest))
    assert make_config(resume=True, out=out, ruleset="strict").ruleset == PRESETS["strict"]
    with pytest.raises(RunError, match="ruleset 'double-points' differs from the run's 'strict'"):
        make_config(resume=True, out=out, ruleset="double-points")


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


# --- compare for game runs -------------------------------------------------------------------
@pytest.fixture(scope="module")
def two_game_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hrg")
    (tmp / "mo.toml").write_text('trump_play = "must-overtrump"\nname = "overtrump"\n')
    outs = []
    for name, extra in (("a", []), ("b", ["--rules", str(tmp / "mo.toml")])):
        out = tmp / name
        args = ["game", "--games", "1500", "--seed", "4", "--out", str(out), "--quiet"]
        assert main([*args, "--players", "basic,basic,random,basic", *extra]) == 0
        outs.append(out)
    return outs


def test_compare_game_runs_pairs_games_and_deals(two_game_runs, capsys):
    a, b = two_game_runs
    doc = compare_runs(a, b)
    assert doc["kind"] == "games" and doc["games"] == 1500 and not doc["notes"]
    ga = pd.read_parquet(a).sort_values("game").reset_index(drop=True)
    gb = pd.read_parquet(b).sort_values("game").reset_index(drop=True)
    z = 1.959963984540054
    for p, s in enumerate(doc["seats"]):
        d = (gb[f"rank_{p}"] == 1).astype(int) - (ga[f"rank_{p}"] == 1).astype(int)
        assert s["win"]["diff"].mean == pytest.approx(d.mean())
        assert s["win"]["diff"].half_width == pytest.approx(z * d.std(ddof=1) / np.sqrt(len(d)))
        t = gb[f"total_{p}"].astype(int) - ga[f"total_{p}"].astype(int)
        assert s["total"]["diff"].mean == pytest.approx(t.mean())
    # three basic seats: the profile's win rate is the mean over its seats
    basic = next(x for x in doc["profiles"] if x["profile"] == "basic")
    assert basic["seats"] == [0, 1, 3]
    per_seat = [doc["seats"][p]["win"]["diff"].mean for p in (0, 1, 3)]
    assert basic["win"]["diff"].mean == pytest.approx(np.mean(per_seat))
    # the chooser's troeven value, over deals where both chose the same variant
    da = pd.read_parquet(a / "_deals")
    db = pd.read_parquet(b / "_deals")
    m = da.merge(db, on=["game", "deal"], suffixes=("_a", "_b"))
    m = m[(m.variant_a == m.variant_b) & (m.contract_a == "troeven")]
    ch = m.chooser_a.to_numpy()
    ra = m[[f"raw_{p}_a" for p in range(4)]].to_numpy()[np.arange(len(m)), ch]
    rb = m[[f"raw_{p}_b" for p in range(4)]].to_numpy()[np.arange(len(m)), ch]
    trow = next(c for c in doc["contracts"] if c["contract"] == "troeven")
    assert trow["deals"] == len(m) and trow["diff"].mean == pytest.approx((rb - ra).mean())
    assert trow["diff"].mean != 0  # must over-trump changes troeven play
    negs = [c for c in doc["contracts"] if c["contract"] != "troeven"]
    assert negs and all(c["diff"].mean == 0 for c in negs)  # untouched by a trump rule
    code, out, _ = run(capsys, "compare", str(a), str(b))
    assert code == 0 and "overtrump moves the chooser's troeven value by" in out
    assert "win rate" in out and "basic" in out
    code, out, _ = run(capsys, "compare", str(a), str(b), "--json")
    js = json.loads(out)
    assert js["seats"][2]["profile_a"] == "random" and "ci95" in js["seats"][0]["win_rate"]["diff"]
    assert js["contracts"][-1]["contract"] == "troeven"


def test_compare_refuses_mixed_kinds_and_different_game_seeds(
    two_game_runs, two_runs, tmp_path, capsys
):
    a, _ = two_game_runs
    code, _, err = run(capsys, "compare", str(a), str(two_runs[0]))
    assert code == 2 and "compare two `run` directories or two `game` directories" in err
    other = tmp_path / "s"
    assert main(["game", "--games", "20", "--seed", "5", "--out", str(other), "--quiet"]) == 0
    code, _, err = run(capsys, "compare", str(a), str(other))
    assert code == 2 and "different seeds" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "compare", str(a), str(tmp_path))
    assert code == 2 and "not a bonken-sim run or game run directory" in err
