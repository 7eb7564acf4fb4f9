"""The web API answers any body, query string or damaged saved game with a 4xx JSON
``{"error": ...}``, never a 500, and a refused request leaves the saved game as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bonken_sim.serve.app import ServeOptions, create_app
from tests.fuzz_inputs import EXAMPLES, hostile_bytes, hostile_texts, json_objects, json_values

#: the function-scoped fixture is one app and game for all of a test's examples, on purpose
_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture
def table(tmp_path):
    """(test client, the id of a game in progress, its saved file)."""
    client = create_app(ServeOptions(state_dir=tmp_path / "state", hint_samples=50)).test_client()
    resp = client.post(
        "/api/games", json={"seed": 3, "players": ["you", "basic", "basic", "basic"]}
    )
    assert resp.status_code == 200, resp.get_json()
    gid = resp.get_json()["id"]
    (saved,) = (tmp_path / "state").rglob(f"{gid}.json")
    return client, gid, saved


def _refused(resp) -> None:
    assert 400 <= resp.status_code < 500, (resp.status_code, resp.get_data()[:300])
    doc = resp.get_json()
    assert isinstance(doc, dict) and isinstance(doc["error"], str) and "\n" not in doc["error"]


def _answered(resp) -> None:
    """A request that may be right: answered, or refused with a 4xx."""
    if resp.status_code >= 300:
        _refused(resp)


#: every POST: their bodies are all decoded by the app's one reader (``_body``), so one test
#: of hostile bytes meets them all; what each endpoint reads from a JSON object is its own
ACTIONS = {"choose": "contract", "double": "targets", "play": "card"}
#: the keys ``advise`` reads
ADVICE_KEYS = ["hand", "seat", "available", "deals", "seed", "strategies", "turns_left",
               "trump_used", "ruleset"]  # fmt: skip


@_SETTINGS
@given(
    st.sampled_from([*ACTIONS, "next", "hint", "nonsense", "/api/games", "/api/advise"]),
    hostile_bytes() | json_objects(max_leaves=8).map(str),
)
def test_any_body_of_a_post_is_refused_and_the_game_kept(table, where, body):
    client, gid, saved = table
    before = saved.read_bytes()
    path = where if where.startswith("/") else f"/api/games/{gid}/{where}"
    resp = client.post(path, data=body, content_type="application/json")
    if where.startswith("/"):
        _answered(resp)  # a new game or advice: a body that happens to be right is answered
    else:
        _refused(resp)
        assert saved.read_bytes() == before


@settings(_SETTINGS, max_examples=EXAMPLES // 2)
@given(
    st.sampled_from(sorted(ACTIONS)).flatmap(
        lambda action: st.tuples(
            st.just(action),
            st.fixed_dictionaries({ACTIONS[action]: json_values(max_leaves=8)})
            | json_objects(max_leaves=8),
        )
    )
)
def test_any_json_object_of_an_action_is_answered(table, action_body):
    action, body = action_body
    client, gid, saved = table
    before = saved.read_bytes()
    resp = client.post(f"/api/games/{gid}/{action}", json=body)
    _answered(resp)
    if resp.status_code >= 300:
        assert saved.read_bytes() == before


@settings(_SETTINGS, max_examples=EXAMPLES // 2)
@given(st.dictionaries(st.sampled_from(ADVICE_KEYS), json_values(max_leaves=8), max_size=6))
def test_any_json_object_asking_advice_is_answered(table, body):
    client, _, _ = table
    _answered(client.post("/api/advise", json=body))


@settings(_SETTINGS, max_examples=EXAMPLES // 2)
@given(st.sampled_from(["review", "trace"]), hostile_texts())
def test_any_deal_of_a_review_or_trace_is_answered(table, what, deal):
    client, gid, _ = table
    _answered(client.get(f"/api/games/{gid}/{what}", query_string={"deal": deal}))


@settings(_SETTINGS, max_examples=EXAMPLES // 2)
@given(
    st.dictionaries(st.sampled_from(["seed", "deal", "contract", "trump", "x"]), hostile_texts())
)
def test_any_arguments_of_a_run_deal_are_answered(table, args):
    client, _, _ = table
    _answered(client.get("/api/run/deal", query_string=args))


#: fewer: the file's bytes meet the JSON reader of every saved document (files.json_document,
#: met by as many in tests/runs/test_damaged_manifest.py), and
#: tests/serve/test_damaged_saved_game.py changes the fields of a real saved game
@settings(_SETTINGS, max_examples=EXAMPLES // 4)
@given(hostile_bytes())
def test_a_damaged_saved_game_is_refused_and_left_alone(table, damage):
    client, gid, saved = table
    saved.write_bytes(damage)
    for resp in (client.get(f"/api/games/{gid}"), client.post(f"/api/games/{gid}/play", json={})):
        _refused(resp)
    assert saved.read_bytes() == damage


@pytest.mark.parametrize(
    "damage, words",
    [
        (b"[" * 50_000, "nested deeper than 64 levels"),
        (b"[1, 2]", "a JSON list, not an object"),
        (b"42", "a JSON int, not an object"),
        (b"\xff\xfe{}", "not UTF-8 text"),
    ],
)
def test_a_damaged_saved_game_says_what_is_wrong(table, damage, words):
    client, gid, saved = table
    saved.write_bytes(damage)
    resp = client.get(f"/api/games/{gid}")
    _refused(resp)
    assert f"{Path(saved).name} is not a saved game" in resp.get_json()["error"]
    assert words in resp.get_json()["error"]
