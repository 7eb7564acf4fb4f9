"""The web app's JSON API, driven over HTTP as the page drives it: a game from start to end,
every refused request a 4xx with one JSON line and no change, the game saved on disk after
every decision, the trace a file ``bonken-sim replay`` accepts, hints and the review."""

from __future__ import annotations

import json
import random

import pytest

from bonken_sim.engine.play import replay
from bonken_sim.serve.app import ServeOptions
from bonken_sim.serve.server import address, serve_in_thread
from tests.serve.conftest import ServeProcess, call
from tests.serve.table_driver import settle


def new_game(base, **body):
    body = {"seed": 21, "players": ["you", "basic", "random", "advanced"], **body}
    status, state = call(base, "POST", "/api/games", body)
    assert status == 200, state
    return state


def move(base, state, rng):
    """One decision of the person: a seeded choice among his legal options."""
    gid, kind = state["id"], state["turn"]["kind"]
    if kind == "choose":
        return call(
            base, "POST", f"/api/games/{gid}/choose", {"contract": rng.choice(state["legal"])}
        )
    if kind == "double":
        targets = [t for t in state["legal"] if rng.random() < 0.3]
        return call(base, "POST", f"/api/games/{gid}/double", {"targets": targets})
    if kind == "play":
        return call(base, "POST", f"/api/games/{gid}/play", {"card": rng.choice(state["legal"])})
    return call(base, "POST", f"/api/games/{gid}/next", {})


def test_a_whole_game_over_http_scores_as_the_engine_replays_it(served):
    state = new_game(served)
    rng = random.Random(3)
    while not state["over"]:
        assert state["turn"]["seat"] == state["you"]
        status, state = move(served, state, rng)
        assert status == 200, state
    assert len(state["sheet"]) == 11
    status, text = call(served, "GET", f"/api/games/{state['id']}/trace")
    assert status == 200
    records = [json.loads(line) for line in text.splitlines()]
    assert len(records) == 11
    for row, record in zip(state["sheet"], records, strict=True):
        assert replay(record) == row["raw"] == record["scores"]
        assert row["final"] == settle(row["raw"], row["doubles"])
    assert state["totals"] == [sum(r["final"][p] for r in state["sheet"]) for p in range(4)]
    assert state["winners"] == [p for p in range(4) if state["totals"][p] == max(state["totals"])]
    status, review = call(served, "GET", f"/api/games/{state['id']}/review")
    assert status == 200 and review["finished"] == 11
    costs = [it["cost"] for it in review["decisions"]]
    assert costs == sorted(costs, reverse=True) and len(costs) > 50


def to_card(base, state):
    rng = random.Random(0)
    while state["turn"]["kind"] != "play":
        status, state = move(base, state, rng)
        assert status == 200
    return state


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/api/games/{id}/play", b"{not json", 400),
        ("POST", "/api/games/{id}/play", b"[1, 2]", 400),
        ("POST", "/api/games/{id}/play", {"card": "ZZ"}, 400),
        ("POST", "/api/games/{id}/play", {"card": "{other}"}, 400),
        ("POST", "/api/games/{id}/play", {"card": "{illegal}"}, 400),
        ("POST", "/api/games/{id}/choose", {"contract": "bukken"}, 409),
        ("POST", "/api/games/{id}/double", {"targets": [1]}, 409),
        ("POST", "/api/games/{id}/next", {}, 409),
        ("POST", "/api/games/{id}/shuffle", {}, 404),
        ("GET", "/api/games/0123456789ab", None, 404),
        ("POST", "/api/games/0123456789ab/play", {"card": "2C"}, 404),
        ("GET", "/api/games/../../etc/passwd", None, 404),
        ("GET", "/api/games/{id}/review?deal=0", None, 400),
        ("GET", "/api/games/{id}/trace", None, 400),
        ("POST", "/api/games", {"players": ["you", "basic"], "seed": 1}, 400),
        ("POST", "/api/games", {"players": ["you", "genius", "basic", "basic"]}, 400),
        ("POST", "/api/games", {"ruleset": "no-such-rules"}, 400),
        ("POST", "/api/games", {"rules": "heart_lead = 'sometimes'"}, 400),
        ("POST", "/api/games", {"seed": "minus one"}, 400),
    ],
)
def test_a_refused_request_is_a_4xx_with_one_json_line_and_changes_nothing(
    served, method, path, body, status
):
    state = to_card(served, new_game(served, seed=8))
    gid = state["id"]
    hand, legal = state["deal"]["hand"], state["legal"]
    other = next(c for s in range(4) for c in "2C 3C 4C 5C 6C 7C AS KS QS JS AH KH AD".split()
                 if c not in hand)  # fmt: skip
    illegal = next((c for c in hand if c not in legal), other)
    if isinstance(body, dict):
        body = json.loads(json.dumps(body).replace("{other}", other).replace("{illegal}", illegal))
    raw = body if isinstance(body, bytes) else None
    before = call(served, "GET", f"/api/games/{gid}")[1]
    got, answer = call(served, method, path.replace("{id}", gid), None if raw else body, raw)
    assert got == status, answer
    assert isinstance(answer, dict) and set(answer) == {"error"}
    assert "\n" not in answer["error"] and answer["error"]
    assert call(served, "GET", f"/api/games/{gid}")[1] == before


def test_a_game_is_saved_after_every_decision_and_a_new_server_continues_it(tmp_path):
    first = ServeProcess(tmp_path / "state")
    try:
        state = to_card(first.base, new_game(first.base, seed=30))
        status, state = call(first.base, "POST", f"/api/games/{state['id']}/play",
                             {"card": state["legal"][0]})  # fmt: skip
        assert status == 200
    finally:
        first.stop()
    saved = json.loads((tmp_path / "state" / "games" / f"{state['id']}.json").read_text())
    assert len(saved["game"]["plays"]) == len(state["deal"]["plays"])
    assert not list((tmp_path / "state" / "games").glob(".*"))  # no temporary file left
    second = ServeProcess(tmp_path / "state")
    try:
        status, again = call(second.base, "GET", f"/api/games/{state['id']}")
        assert status == 200 and again == state
        status, games = call(second.base, "GET", "/api/games")
        assert [g["id"] for g in games] == [state["id"]]
        status, after = move(second.base, again, random.Random(1))
        assert status == 200
    finally:
        assert second.stop() == 143


def test_a_card_hint_weighs_every_legal_card_with_its_interval(served):
    state = to_card(served, new_game(served, seed=44))
    status, hint = call(served, "GET", f"/api/games/{state['id']}/hint")
    assert status == 200 and hint["kind"] == "play"
    assert {o["option"] for o in hint["options"]} == set(state["legal"])
    assert hint["expert"] in state["legal"]
    for o in hint["options"]:
        if o["se"] is not None:
            lo, hi = o["ci95"]
            assert lo <= o["value"] <= hi
    status, again = call(served, "GET", f"/api/games/{state['id']}/hint")
    assert again == hint


def test_the_choice_and_doubling_hints(served):
    rng = random.Random(5)
    state = new_game(served, seed=2, you=2, players=["basic", "basic", "you", "basic"])
    seen = set()
    while state["turn"]["kind"] != "play" or len(seen) < 2:
        kind = state["turn"]["kind"]
        if kind in ("choose", "double") and kind not in seen:
            status, hint = call(served, "GET", f"/api/games/{state['id']}/hint")
            assert status == 200 and hint["kind"] == kind
            # the strongest player's searched values, each with its 95% interval
            for o in hint["options"]:
                lo, hi = o["ci95"]
                assert o["se"] >= 0 and lo <= round(o["value"], 2) <= hi  # the bounds: 2 digits
            if kind == "choose":
                assert {o["option"] for o in hint["options"]} == set(state["legal"])
                assert hint["expert"] in state["legal"]
            else:
                assert {o["option"] for o in hint["options"]} == set(state["legal"])
            seen.add(kind)
        status, state = move(served, state, rng)
        assert status == 200
        if state["over"]:
            break
    assert seen == {"choose", "double"}


def test_every_ruleset_and_a_rules_file_start_a_game(served):
    for name in ("standard", "fixed-order", "double-points", "bierkaart", "strict"):
        state = new_game(served, ruleset=name)
        assert state["ruleset"]["name"] == name
    toml = (
        'preset = "standard"\nname = "our club"\nheart_lead = "broken"\n'
        "[points]\nvrouwen.queen = -25\n"
    )
    state = new_game(served, rules=toml)
    assert state["ruleset"]["name"] == "our club"
    assert state["ruleset"]["points"]["vrouwen.queen"] == -25


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A small deal run and a small game run, written by the commands."""
    from bonken_sim.cli.main import main

    root = tmp_path_factory.mktemp("runs")
    assert main(["run", "--deals", "50", "--seed", "3", "--out", str(root / "d"), "--quiet"]) == 0
    assert main(["game", "--games", "8", "--seed", "4", "--players", "basic,random,basic,basic",
                 "--out", str(root / "g"), "--quiet"]) == 0  # fmt: skip
    return root


def test_an_opened_deal_run_replays_its_deals_as_the_run_scored_them(runs, tmp_path):
    from bonken_sim.serve.run_browser import open_run

    info = open_run(runs / "d")
    assert info["kind"] == "deals" and info["count"] == 50
    server, thread = serve_in_thread(ServeOptions(state_dir=tmp_path, run=info))
    try:
        base = address(server)
        for variant in ("hartenjagen", "domino", "troeven_S"):
            status, r = call(base, "GET", f"/api/run/deal?deal=7&variant={variant}")
            assert status == 200, r
            row = next(x for x in r["rows"] if x["variant"] == variant)
            assert r["replay"]["raw"] == row["scores"] == replay(r["replay"]["record"])
        assert call(base, "GET", "/api/run/deal?deal=50")[0] == 400
        assert call(base, "GET", "/api/run/deal?deal=1&variant=poker")[0] == 400
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


def test_an_opened_game_run_shows_a_games_deals_and_replays_any(runs, tmp_path):
    from bonken_sim.serve.run_browser import open_run

    info = open_run(runs / "g")
    assert info["kind"] == "games" and info["count"] == 8
    server, thread = serve_in_thread(ServeOptions(state_dir=tmp_path, run=info))
    try:
        base = address(server)
        status, r = call(base, "GET", "/api/run/deal?game=3&k=2")
        assert status == 200, r
        assert [x["deal"] for x in r["rows"]] == list(range(11))
        row = r["rows"][2]
        assert r["replay"]["contract"] == row["variant"]
        assert sum(row["final"]) == sum(row["raw"]) == sum(r["replay"]["raw"])
        if not row["doubles"]:  # no stakes: the replay is the game's own deal
            assert r["replay"]["raw"] == row["raw"]
        status, r = call(base, "GET", "/api/run/deal?game=3&k=2&variant=bukken")
        assert status == 200 and r["replay"]["contract"] == "bukken"
        assert call(base, "GET", "/api/run/deal?game=8")[0] == 400
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
