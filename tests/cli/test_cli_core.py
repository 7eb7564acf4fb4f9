"""The play / trace / replay / warmup commands, including every bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bonken_sim.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_shows_hands_tricks_and_scores(capsys):
    code, out, _ = run(capsys, "play", "--seed", "1", "--deal", "3", "--contract", "vrouwen")
    assert code == 0
    assert out.count("trick ") == 13
    assert "seat 1 (leader" in out and "seat 2 (chooser" in out
    import re

    line = out.split("scores:")[1].split("\n")[0]
    scores = [int(x) for x in re.findall(r"seat \d: ([+-]\d+)", line)]
    assert len(scores) == 4 and sum(scores) == -120


def test_play_domino_shows_turns_and_passes(capsys):
    code, out, _ = run(
        capsys, "play", "--seed", "4", "--contract", "domino", "--strategies", "random"
    )
    assert code == 0
    assert out.count(" lays ") == 52
    assert "went out in order" in out and "(last card)" in out


def test_play_json_is_a_trace_record(capsys):
    code, out, _ = run(
        capsys,
        "play",
        "--seed",
        "5",
        "--deal",
        "2",
        "--contract",
        "troeven",
        "--trump",
        "nt",
        "--json",
    )
    rec = json.loads(out)
    assert rec["contract"] == "troeven" and rec["trump"] == "NT" and sum(rec["scores"]) == 130


@pytest.mark.parametrize(
    "contract",
    [["troeven_S"], ["troeven_S", "--trump", "S"], ["Troeven-s", "--trump", "s"]],
    ids=["name", "name-and-trump", "spelling"],
)
@pytest.mark.parametrize("as_json", [[], ["--json"]], ids=["text", "json"])
def test_play_takes_a_troeven_variant_as_the_contract(capsys, contract, as_json):
    """``--contract troeven_S`` (the name ``--contracts`` takes) plays what ``--contract
    troeven --trump S`` plays; a --trump that agrees may be given too."""
    args = ["play", "--seed", "5", "--deal", "2", *as_json, "--contract"]
    code, expected, err = run(capsys, *args, "troeven", "--trump", "S")
    assert code == 0, err
    assert run(capsys, *args, *contract) == (0, expected, "")


@pytest.mark.parametrize(
    "args",
    [["play", "--seed", "1"], ["solve", "--hands", "AS / KS / QS / JS", "--leader", "0"]],
    ids=["play", "solve"],
)
def test_an_unknown_contract_lists_the_troeven_variants_too(capsys, args):
    """--contract takes troeven_S as well as troeven: the refusal lists every name it takes."""
    assert run(capsys, *args, "--contract", "poker") == (
        2,
        "",
        "bonken-sim: error: unknown contract 'poker' (expected one of: bukken, hartenjagen, "
        "herenboeren, vrouwen, hartenheer, laatste_slag, domino, troeven, troeven_C, "
        "troeven_D, troeven_H, troeven_S, troeven_NT)\n",
    )
    code, _, err = run(capsys, *args, "--ruleset", "bierkaart", "--contract", "poker")
    assert code == 2 and "laatste_slag, bierkaart, troeven, troeven_C" in err  # not domino


@pytest.mark.parametrize(
    "command, option, prefix",
    [
        ("run", "--contracts", "--contracts: "),
        ("trace", "--contracts", ""),
        ("advise", "--available", "--available: "),
    ],
    ids=["run", "trace", "advise"],
)
def test_an_unknown_name_in_a_contract_list_lists_every_name_it_takes(
    capsys, tmp_path, command, option, prefix
):
    """A contract list takes all and troeven_S as well as the contracts: the refusal lists
    them all, in one line, and under the beer-card ruleset bierkaart in domino's place."""
    given = {
        "run": ["--deals", "2", "--seed", "1", "--out", str(tmp_path / "r")],
        "trace": ["--deals", "2", "--seed", "1", "--out", str(tmp_path / "t.jsonl")],
        "advise": ["--hand", "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"],
    }[command]
    assert run(capsys, command, *given, option, "bukken,poker") == (
        2,
        "",
        f"bonken-sim: error: {prefix}unknown contract 'poker' (expected one of: all, bukken, "
        "hartenjagen, herenboeren, vrouwen, hartenheer, laatste_slag, domino, troeven, "
        "troeven_C, troeven_D, troeven_H, troeven_S, troeven_NT)\n",
    )
    code, _, err = run(capsys, command, *given, "--ruleset", "bierkaart", option, "poker")
    assert code == 2 and "laatste_slag, bierkaart, troeven, troeven_C" in err  # not domino
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "--seed", "1", "--contract", "poker"], "unknown contract 'poker'"),
        (
            ["play", "--seed", "1", "--contract", "troeven_S", "--trump", "H"],
            "--contract troeven_S has trump S, but --trump is H; give the trump once",
        ),
        (["play", "--seed", "1", "--contract", "troeven_X"], "unknown trump 'X'"),
        (["play", "--seed", "1", "--contract", "troeven_NT", "--trump", "X"], "unknown trump 'X'"),
        (["play", "--seed", "1", "--contract", "bukken", "--trump", "H"], "not a trump contract"),
        (["play", "--seed", "1", "--contract", "troeven"], "troeven needs a trump"),
        (["play", "--seed", "1", "--contract", "troeven", "--trump", "X"], "unknown trump"),
        (["play", "--seed", "1", "--deal", "-1", "--contract", "bukken"], "from 0 to 2**63-1"),
        (["play", "--seed", "1", "--deal", "x", "--contract", "bukken"], "from 0 to 2**63-1"),
        (
            ["play", "--seed", "1", "--deal", str(2**63), "--contract", "bukken"],
            f"--deal must be an integer from 0 to 2**63-1, got '{2**63}'",
        ),
        (["play", "--seed", "-3", "--contract", "bukken"], "seed"),
        (
            ["play", "--seed", "1", "--contract", "bukken", "--strategies", "basic,foo"],
            "unknown strategy",
        ),
        (
            ["play", "--seed", "1", "--contract", "bukken", "--strategies", "basic,basic"],
            "one strategy or four",
        ),
        (["play", "--seed", "1", "--contract", "bukken", "--dealer", "4"], "dealer"),
        (["trace", "--deals", "0", "--seed", "1", "--out", "x.jsonl"], "--deals"),
        (["trace", "--deals", "1.5", "--seed", "1", "--out", "x.jsonl"], "whole number"),
        (
            [
                "trace",
                "--deals",
                "2",
                "--seed",
                "1",
                "--contracts",
                "bukken,nope",
                "--out",
                "x.jsonl",
            ],
            "unknown contract",
        ),
        (
            ["trace", "--deals", "2", "--seed", "1", "--dealer", "north", "--out", "x.jsonl"],
            "--dealer",
        ),
        (
            ["trace", "--deals", "2", "--seed", "1", "--out", "/nonexistent-dir/x.jsonl"],
            "does not exist",
        ),
        (["play"], "Missing option"),
        (["frobnicate"], "No such command"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code != 0
    assert err.count("\n") == 1 and err.startswith("bonken-sim: error:"), err
    assert message in err


def test_unwritable_out_is_a_clear_error_and_keeps_old_file(tmp_path, capsys):
    if os.geteuid() == 0:
        target_dir = tmp_path / "ro"
        target_dir.mkdir()
        (target_dir / "x.jsonl").write_text("keep\n")
        code, _, err = run(capsys, "trace", "--deals", "1", "--seed", "1", "--out", str(target_dir))
        assert code != 0 and "is a directory" in err
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        code, _, err = run(
            capsys, "trace", "--deals", "1", "--seed", "1", "--out", str(ro / "x.jsonl")
        )
        assert code != 0 and "cannot write" in err


def test_trace_writes_every_record_and_replays(tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    code, _, _ = run(
        capsys, "trace", "--deals", "20", "--seed", "8", "--out", str(out), "--dealer", "rotate"
    )
    assert code == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 20 * 12
    recs = [json.loads(x) for x in lines]
    assert [r["dealer"] for r in recs[::12]] == [d % 4 for d in range(20)]
    for r in recs:
        keys = ["deal", "dealer", "contract", "trump", "hands", "plays", "scores", "ruleset"]
        assert list(r) == keys
        assert r["ruleset"]["name"] == "standard"
        n_cards = sum(1 for p in r["plays"] if p != "pass")
        assert n_cards == 52
    code, out_txt, _ = run(capsys, "replay", str(out))
    assert code == 0 and "240 legal, 0 illegal" in out_txt
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], (
        "temporary file left behind"
    )


def test_trace_contract_selection(tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    run(
        capsys,
        "trace",
        "--deals",
        "3",
        "--seed",
        "8",
        "--contracts",
        "troeven,bukken",
        "--out",
        str(out),
    )
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["contract"], r["trump"]) for r in recs[:6]] == [
        ("bukken", None),
        ("troeven", "C"),
        ("troeven", "D"),
        ("troeven", "H"),
        ("troeven", "S"),
        ("troeven", "NT"),
    ]


def test_replay_reports_a_tampered_record(tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    run(capsys, "trace", "--deals", "2", "--seed", "3", "--contracts", "vrouwen", "--out", str(out))
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    recs[1]["scores"][0] += 30
    out.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    code, text, _ = run(capsys, "replay", str(out))
    assert code == 1
    assert "scores" in text and "1 legal, 1 illegal" in text
    # a line that is not JSON is no illegal record: the file is not a trace (exit 2)
    out.write_text("\n".join(json.dumps(r) for r in recs) + "\nnot json\n")
    code, _, err = run(capsys, "replay", str(out))
    assert code == 2 and f"not a trace file: {out}:3 is not JSON" in err


def test_console_script_runs_warmup():
    exe = os.path.join(os.path.dirname(sys.executable), "bonken-sim")
    if not os.path.exists(exe):
        pytest.skip("console script not installed (run through make test)")
    res = subprocess.run([exe, "warmup"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and "kernels ready" in res.stdout
    res = subprocess.run(
        [exe, "play", "--seed", "1", "--contract", "nope"], capture_output=True, text=True
    )
    assert (
        res.returncode == 2
        and res.stderr.startswith("bonken-sim: error:")
        and "Traceback" not in res.stderr
    )
