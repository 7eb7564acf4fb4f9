"""The expert tier on the command line: play, trace (its records replay as legal), run, and
every bad expert setting refused with exit status 2."""

from __future__ import annotations

import json

import pytest

from bonken_sim.cli import main
from bonken_sim.runs.manifest import read_manifest


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_with_an_expert_seat(capsys):
    args = ["play", "--seed", "2", "--contract", "vrouwen", "--json"]
    code, out, _ = run(capsys, *args, "--strategies", "expert,advanced,advanced,advanced",
                       "--expert-samples", "3", "--expert-exact-tricks", "1")  # fmt: skip
    assert code == 0
    rec = json.loads(out)
    assert sum(rec["scores"]) == -120
    # the same deal with the settings written into the name plays the same cards
    code, again, _ = run(capsys, *args, "--strategies", "expert:3:1,advanced,advanced,advanced")
    assert code == 0 and json.loads(again) == rec


def test_trace_of_expert_seats_replays_as_legal(capsys, tmp_path):
    out = tmp_path / "t.jsonl"
    code, _, _ = run(capsys, "trace", "--deals", "2", "--seed", "3", "--contracts", "all",
                     "--strategies", "expert", "--expert-samples", "2", "--out", str(out),
                     "--ruleset", "strict")  # fmt: skip
    assert code == 0
    assert len(out.read_text().splitlines()) == 24
    code, rep, _ = run(capsys, "replay", str(out))
    assert code == 0, rep


def test_run_records_the_expert_settings(capsys, tmp_path):
    out = tmp_path / "run"
    code, _, err = run(capsys, "run", "--deals", "4", "--seed", "1", "--out", str(out),
                       "--strategies", "expert,basic,basic,basic", "--expert-samples", "2",
                       "--contracts", "hartenjagen", "--threads", "1", "--quiet")  # fmt: skip
    assert code == 0, err
    # expert is the strongest card play: its samples set, its other settings kept
    assert read_manifest(out)["config"]["strategies"][0] == "expert:2:0:1:100"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--strategies", "basic", "--expert-samples", "4"], "need an expert seat"),
        (["--strategies", "expert", "--expert-samples", "0"], "--expert-samples"),
        (["--strategies", "expert", "--expert-exact-tricks", "14"], "--expert-exact-tricks"),
        (["--strategies", "expert:0:1"], "expert"),
        (["--strategies", "expert:4:x"], "expert"),
    ],
)
def test_bad_expert_settings_exit_2(capsys, extra, message):
    code, _, err = run(capsys, "play", "--seed", "1", "--contract", "bukken", *extra)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
