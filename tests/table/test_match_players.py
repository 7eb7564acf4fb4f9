"""Outside programs at a match table (`cmd:COMMAND`): the example player, and players that
crash, hang, write garbage, play cards they do not hold or refuse: the match goes on, each
fault is recorded and counted, the basic profile's decision is played instead, nothing is
lost. A player that cannot be started stops the match in one line, the run resumable."""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from bonken_sim.cli import cli
from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView, decide
from bonken_sim.rules.names import VARIANT_NAMES
from bonken_sim.table.players import FAULT_KINDS, External

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
LOWEST = f"cmd:{shlex.quote(sys.executable)} {REPO / 'examples' / 'lowest_bot.py'}"


def _bot(mode: str, n: int = 1) -> str:
    return f"cmd:{shlex.quote(sys.executable)} {HERE / 'faulty_bot.py'} {mode} {n}"


def _match(out: Path, *args: str):
    return CliRunner().invoke(cli, ["match", "--out", str(out), "--quiet", *args])


def _faults(run: Path) -> list[dict]:
    out = []
    for path in sorted((run / "_faults").glob("part-*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line]
    return out


def _replays(run: Path, games: int) -> None:
    files = [str(p) for p in sorted((run / "_traces").glob("part-*.jsonl"))]
    res = CliRunner().invoke(cli, ["replay", *files])
    assert res.exit_code == 0 and res.output.strip() == f"{games * 11} legal, 0 illegal"


def test_the_example_player_plays_a_match(tmp_path):
    run = tmp_path / "m"
    res = _match(run, "--games", "2", "--seed", "6", "--no-duplicate", "--json",
                 "--player", "advanced", "--player", "advanced", "--player", "advanced",
                 "--player", LOWEST)  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)["results"]
    assert doc["players"][LOWEST]["faults"]["total"] == 0
    assert doc["players"]["advanced"]["seats"] == [0, 1, 2]
    assert _faults(run) == []
    games = pd.read_parquet(run)
    assert (games.profile_3 == LOWEST).all() and len(games) == 2
    _replays(run, 2)
    log = (run / "_players" / "seat-3.log").read_text()
    assert log.count("--- bonken-sim: start") == 1  # one start, never restarted
    # a command for a name (spaces, slashes) reads in the summary and the report
    res = CliRunner().invoke(cli, ["summary", str(run)])
    assert res.exit_code == 0 and f"3    {LOWEST}  " in res.output, res.output
    res = CliRunner().invoke(cli, ["report", str(run), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert LOWEST in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.parametrize(
    "mode, n, kind, limit",
    [
        ("crash", 40, "crash", "10"),
        ("hang", 60, "timeout", "0.5"),
        ("garbage", 30, "malformed", "10"),
        ("deep", 30, "malformed", "10"),
        ("illegal", 25, "illegal", "10"),
        ("refuse", 35, "refused", "10"),
    ],
)
def test_faults_are_recorded_and_the_match_goes_on(tmp_path, mode, n, kind, limit):
    run = tmp_path / "m"
    bot = _bot(mode, n)
    res = _match(run, "--games", "2", "--seed", "2", "--no-duplicate", "--time-limit", limit,
                 "--json", "--players", f"basic,basic,basic,{bot}")  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    faults = _faults(run)
    assert faults and {f["kind"] for f in faults} == {kind}
    assert doc["run"]["faults"] == len(faults)
    counts = doc["results"]["players"][bot]["faults"]
    assert counts["total"] == counts[kind] == len(faults)
    for f in faults:
        assert f["seat"] == 3 and f["player"] == bot and 0 <= f["game"] < 2
        assert f["request"] in ("play", "choose", "double") and f["view"]["seat"] == 3
        # the fallback is the basic profile's decision in that view
        view = {"play": PlayView, "choose": ChooseView, "double": DoubleView}[f["request"]]
        fields = dict(f["view"])
        if f["request"] == "play":
            fields["plays"] = [tuple(x) for x in fields["plays"]]
        want = decide(view(**fields), "basic")
        expect = {"play": want.card, "choose": want.contract, "double": list(want.doubles)}
        assert f["fallback"] == expect[f["request"]]
    if kind == "illegal":
        assert all("not legal" in f["message"] or "pass" in f["message"] for f in faults)
    if mode == "garbage":
        assert all(f["answer"] == "this is not an answer" for f in faults)
    if mode == "deep":  # the line shown cut, the reason in one line
        assert all(f["answer"] == "[" * 500 + "…" for f in faults)
        assert all("nested deeper" in f["message"] for f in faults)
    if kind in ("crash", "timeout"):  # the program was started again after each
        starts = (run / "_players" / "seat-3.log").read_text().count("--- bonken-sim: start")
        assert starts == len(faults) + 1
    assert len(pd.read_parquet(run)) == 2  # nothing lost
    _replays(run, 2)


def test_a_second_answer_to_one_request_is_skipped(tmp_path):
    run = tmp_path / "m"
    res = _match(run, "--games", "1", "--seed", "2", "--no-duplicate",
                 "--players", f"basic,{_bot('twice', 7)},basic,basic")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert _faults(run) == []


@pytest.mark.parametrize(
    "player, message",
    [
        (_bot("nohello"), "gave no hello"),
        (_bot("badhello"), "cannot play this match"),
        ("cmd:/no/such/program --x", "cannot start"),
        (_bot("crash", 1), "before answering after each of 3 starts in a row"),
    ],
)
def test_a_player_that_cannot_play_stops_the_match_in_one_line(tmp_path, player, message):
    run = tmp_path / "m"
    res = _match(run, "--games", "2", "--seed", "2", "--players", f"basic,basic,{player},basic")
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert "\n" not in line and message in line and "--resume" in line
    manifest = json.loads((run / "_manifest.json").read_text())
    assert manifest["state"] == "incomplete"


def test_a_stopped_match_resumes_to_the_uninterrupted_tables(tmp_path, monkeypatch):
    bot = _bot("fail-env", 1)
    args = ("--games", "4", "--seed", "12", "--no-duplicate", "--chunk-size", "1",
            "--players", f"{bot},advanced,basic,advanced")  # fmt: skip
    whole = tmp_path / "whole"
    assert _match(whole, *args).exit_code == 0
    run = tmp_path / "run"
    monkeypatch.setenv("FAULTY_BOT_FAIL", "1")
    monkeypatch.setenv("FAULTY_BOT_FAIL_FROM", "2")
    res = _match(run, *args)
    assert res.exit_code == 2 and "the match stops" in res.output
    manifest = json.loads((run / "_manifest.json").read_text())
    assert [p["index"] for p in manifest["parts"]] == [0, 1]
    monkeypatch.delenv("FAULTY_BOT_FAIL")
    res = _match(run, "--resume")
    assert res.exit_code == 0, res.output
    for table in ("", "_deals"):
        pd.testing.assert_frame_equal(pd.read_parquet(whole / table), pd.read_parquet(run / table))


def test_an_external_seat_restarts_with_a_fresh_hello(tmp_path):
    """The player object alone: a crash, then a fresh start that answers again."""
    from bonken_sim.rules.rulesets import STANDARD

    player = External(_bot("crash", 2), time_limit=5, stderr=tmp_path / "err.log")
    player.open(STANDARD)
    clubs = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC".split()
    view = PlayView("bukken", dealer=3, seat=0, hand=clubs)
    try:
        assert player.decide("play", view, 0).fault is None
        crashed = player.decide("play", view, 0)
        assert crashed.fault is not None and crashed.fault.kind == "crash"
        assert crashed.value == "2C"  # basic's card
        assert player.decide("play", view, 0).fault is None
        assert player.starts == 2
    finally:
        player.close()
    assert set(FAULT_KINDS) >= {"crash", "timeout", "malformed", "refused", "illegal"}


def test_an_outside_player_receives_every_field_of_its_double_views(tmp_path):
    """Each double request carries every field of ``DoubleView`` (the ruleset apart, which
    the hello carries) with the game's values: the deal, the variants open to the chooser
    before he chose, whether he had chosen troeven before."""
    log = tmp_path / "received.jsonl"
    player = f"cmd:{shlex.quote(sys.executable)} {HERE / 'logging_bot.py'} {log}"
    res = _match(tmp_path / "m", "--games", "1", "--seed", "3", "--no-duplicate",
                 "--player", "basic", "--player", player, "--player", "basic",
                 "--player", "basic")  # fmt: skip
    assert res.exit_code == 0, res.output
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    fields = [f.name for f in dataclasses.fields(DoubleView) if f.name != "ruleset"]
    chosen: list[str] = []  # the contracts of the game's deals so far
    checked = 0
    for msg in messages:
        if msg["type"] == "deal_end":
            assert msg["deal"] == len(chosen)
            chosen.append(msg["contract"])
        if msg["type"] != "double":
            continue
        view, deal = msg["view"], len(chosen)
        assert list(view) == fields
        had_troeven = any(
            (view["dealer"] - deal + j + 2) % 4 == (view["dealer"] + 2) % 4
            and c.startswith("troeven")
            for j, c in enumerate(chosen)
        )
        assert view["deal"] == deal
        assert view["open"] == [v for v in VARIANT_NAMES if v not in chosen]
        assert view["contract"] in view["open"]
        assert view["chooser_had_troeven"] == (
            had_troeven and not view["contract"].startswith("troeven")
        )
        checked += 1
    assert checked == 11  # one double request a deal: the seat speaks in every pass
