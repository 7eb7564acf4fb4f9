"""A saved game whose state has any field changed or removed (a wrong type, a number out of
range, a card nobody holds) is refused by every endpoint of the game with a 400 naming the
field, the file left as it was, and left out of the list of games; a state the game could
have written is played on."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from bonken_sim.engine.game_state import GameState
from bonken_sim.serve.app import ServeOptions, create_app
from tests.fuzz_inputs import EXAMPLES, mutated

PLAYERS = ["you", "basic", "basic", "basic"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """(test client, game id, its file, the bytes saved after the first deal and two
    decisions of the second): a finished deal to review and a deal in play."""
    state = tmp_path_factory.mktemp("serve") / "state"
    client = create_app(ServeOptions(state_dir=state, hint_samples=20)).test_client()
    resp = client.post("/api/games", json={"seed": 5, "players": PLAYERS})
    gid = resp.get_json()["id"]
    done = 0
    while done < 2:
        now = resp.get_json()
        assert resp.status_code == 200, now
        kind, options = now["turn"]["kind"], now["legal"]
        done += now["deal"]["k"] == 1
        if kind == "next":
            resp = client.post(f"/api/games/{gid}/next")
        elif kind == "choose":
            resp = client.post(f"/api/games/{gid}/choose", json={"contract": options[0]})
        elif kind == "double":
            resp = client.post(f"/api/games/{gid}/double", json={"targets": options[:1]})
        else:
            resp = client.post(f"/api/games/{gid}/play", json={"card": options[0]})
    saved = state / "games" / f"{gid}.json"
    return client, gid, saved, saved.read_bytes()


def _requests(gid: str, legal: list) -> list[tuple[str, str, dict | None]]:
    """Every endpoint of a game, with a body that would be right in the saved position."""
    card = next((c for c in legal if isinstance(c, str)), "QS")
    return [
        ("GET", f"/api/games/{gid}", None),
        ("GET", f"/api/games/{gid}/hint", None),
        ("GET", f"/api/games/{gid}/review?deal=0", None),
        ("GET", f"/api/games/{gid}/trace", None),
        ("POST", f"/api/games/{gid}/play", {"card": card}),
        ("POST", f"/api/games/{gid}/choose", {"contract": "troeven_NT"}),
        ("POST", f"/api/games/{gid}/double", {"targets": []}),
        ("POST", f"/api/games/{gid}/next", {}),
    ]


@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_saved_game_with_a_field_changed_is_played_or_refused(table, data):
    client, gid, saved, original = table
    legal = client.get(f"/api/games/{gid}").get_json()["legal"]
    doc, how = data.draw(mutated(json.loads(original)))
    note(how)
    saved.write_text(json.dumps(doc))
    try:
        for method, path, body in _requests(gid, legal):
            before = saved.read_bytes()
            resp = client.open(path, method=method, json=body)
            assert resp.status_code == 200 or 400 <= resp.status_code < 500, (
                path,
                resp.status_code,
                resp.get_data()[:300],
            )
            if resp.status_code >= 400:
                assert "\n" not in resp.get_json()["error"]
                assert saved.read_bytes() == before
    finally:
        saved.write_bytes(original)


def _damage(table, path: tuple, value) -> tuple:
    client, gid, saved, original = table
    doc = json.loads(original)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if value is None:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    saved.write_text(json.dumps(doc))
    return client, gid, saved, saved.read_bytes()


@pytest.mark.parametrize(
    ("path", "value", "said"),
    [
        (("game", "deals"), 5, "game.deals: 5 is not a list of deals"),
        (
            ("game", "deals", 0, "trace", "hands", 1),
            "QS",
            "game.deals[0].trace.hands[1]: 'QS' is not what the game's seed",
        ),
        (
            ("game", "deals", 0, "trace", "hands", 1, 0),
            "AS",
            "game.deals[0].trace.hands[1][0]: 'AS' is not what",
        ),
        (("game", "plays"), 7, "game.plays: 7 is not a list"),
        (
            ("game", "deals", 0, "plays", 0),
            [0, "2C"],
            "game.deals[0].plays[0]: seat 0 plays out of turn",
        ),
        (
            ("game", "deals", 0, "trace", "scores"),
            [0, 0, 0, 0],
            "game.deals[0].trace.scores[0]: 0 is not what",
        ),
        (("mine",), None, "mine is missing"),
        (("you",), True, "you: True is not a seat 0-3"),
        (("game", "seed"), -1, "game.seed: -1 is not an integer 0 to 2**64-1"),
        (("id",), "0123456789ab", "id: '0123456789ab' is not the file's name"),
        (("players", 1), "you", "players: ['you', 'you', 'basic', 'basic'] is not"),
    ],
)
def test_a_damaged_saved_game_is_refused_naming_the_field(table, path, value, said):
    client, gid, saved, damaged = _damage(table, path, value)
    try:
        for method, url, body in _requests(gid, ["QS"]):
            resp = client.open(url, method=method, json=body)
            assert resp.status_code == 400, (url, resp.get_json())
            assert resp.get_json()["error"].startswith(f"{saved} is not a saved game: {said}")
            assert saved.read_bytes() == damaged
        listed = client.get("/api/games")
        assert listed.status_code == 200 and gid not in [g["id"] for g in listed.get_json()]
    finally:
        saved.write_bytes(table[3])


def test_a_card_played_from_another_hand_is_refused(table):
    """A file that makes a seat play a card it does not hold would have the engine score an
    impossible deal."""
    client, gid, saved, original = table
    doc = json.loads(original)
    seat, card = doc["game"]["plays"][0] if doc["game"]["plays"] else (None, None)
    if seat is None:
        pytest.skip("the saved position has no card played in the second deal")
    other = next(c for c in GameState.from_json(doc["game"]).hand((seat + 1) & 3) if c != card)
    _damage(table, ("game", "plays", 0, 1), other)
    try:
        resp = client.get(f"/api/games/{gid}")
        assert resp.status_code == 400
        assert f"game.plays[0]: seat {seat} may not play '{other}'" in resp.get_json()["error"]
    finally:
        saved.write_bytes(original)


def test_the_saved_game_itself_is_played_on(table):
    client, gid, _, _ = table
    assert client.get(f"/api/games/{gid}").status_code == 200
    assert gid in [g["id"] for g in client.get("/api/games").get_json()]
