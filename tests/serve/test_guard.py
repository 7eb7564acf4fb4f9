"""The web app answers its user only: a foreign Host (DNS rebinding) and a request that
changes something sent from another site's page are refused with a 403 and change nothing;
listening beyond the loopback (``serve --host``), nothing answers without the printed token."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from bonken_sim.errors import BadValue
from bonken_sim.serve.app import ServeOptions, create_app
from bonken_sim.serve.guard import Guard, guard_for
from tests.serve.conftest import REPO

TOKEN = "s3cret-token-of-this-launch"


def _client(tmp_path, guard: Guard | None = None):
    opts = ServeOptions(state_dir=tmp_path / "state", hint_samples=200)
    if guard is not None:
        opts.guard = guard
    return create_app(opts).test_client()


def _saved(tmp_path) -> list[str]:
    state = tmp_path / "state"
    return sorted(str(p) for p in state.rglob("*") if p.is_file())


# -- Host ------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/", "/api/config", "/api/games", "/static/app.js"])
def test_a_foreign_host_is_refused(tmp_path, path):
    app = _client(tmp_path)
    resp = app.get(path, headers={"Host": "evil.example"})
    assert resp.status_code == 403
    assert "evil.example" in resp.get_json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "LOCALHOST", "127.0.0.1"])
def test_the_served_address_is_answered(tmp_path, host):
    resp = _client(tmp_path).get("/api/config", headers={"Host": host})
    assert resp.status_code == 200, resp.get_json()


@pytest.mark.parametrize(
    "host", ["evil.example:8765", "127.0.0.1.evil.example", "192.168.1.5:8765", "[::1]:8765x"]
)
def test_a_new_game_under_a_foreign_host_is_refused_and_nothing_is_saved(tmp_path, host):
    resp = _client(tmp_path).post("/api/games", json={"seed": 1}, headers={"Host": host})
    assert resp.status_code == 403
    assert _saved(tmp_path) == []


# -- Origin ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://evil.example:8765"},
        {"Origin": "http://localhost:9999"},  # another local server's page
        {"Origin": "null"},  # a sandboxed frame, a file
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://localhost", "Sec-Fetch-Site": "same-site"},
    ],
)
def test_a_request_from_another_sites_page_is_refused(tmp_path, headers):
    app = _client(tmp_path)
    for path in ("/api/games", "/api/games/abc/play", "/api/advise"):
        resp = app.post(path, json={"seed": 1}, headers={"Host": "localhost", **headers})
        assert resp.status_code == 403, (path, resp.get_json())
        assert resp.get_json()["error"].startswith("refused: a request from another")
    assert _saved(tmp_path) == []


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://localhost"},  # the app's own page
        {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},
        {},  # not a browser: curl, a script
    ],
)
def test_the_apps_own_page_and_other_programs_pass(tmp_path, headers):
    app = _client(tmp_path)
    # an unknown ruleset is refused by the endpoint itself: the request got past the guard
    resp = app.post("/api/games", json={"ruleset": "nope"}, headers=headers)
    assert resp.status_code == 400
    assert "nope" in resp.get_json()["error"]


def test_reading_is_not_an_origin_matter(tmp_path):
    resp = _client(tmp_path).get("/api/games", headers={"Origin": "http://evil.example"})
    assert resp.status_code == 200  # the browser itself keeps another site from reading it


# -- the token -------------------------------------------------------------------------------
def _remote(tmp_path):
    return _client(tmp_path, Guard("0.0.0.0", TOKEN))


@pytest.mark.parametrize("path", ["/", "/api/config", "/api/games", "/static/app.js"])
def test_without_the_token_nothing_answers(tmp_path, path):
    app = _remote(tmp_path)
    for extra in ({}, {"Authorization": "token wrong"}):
        resp = app.get(path, headers={"Host": "192.168.1.5:8765", **extra})
        assert resp.status_code == 403
        assert "token" in resp.get_json()["error"]
    resp = app.get(path + "?token=wrong", headers={"Host": "192.168.1.5:8765"})
    assert resp.status_code == 403


def test_the_printed_address_keeps_the_token_in_a_cookie(tmp_path):
    app = _remote(tmp_path)
    host = {"Host": "192.168.1.5:8765"}
    first = app.get(f"/?token={TOKEN}", headers=host)
    assert first.status_code == 303 and first.headers["Location"] == "/"
    cookie = first.headers["Set-Cookie"]
    assert TOKEN in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert app.get("/", headers=host).status_code == 200  # the cookie sent
    assert app.get("/api/config", headers=host).status_code == 200


def test_a_program_may_send_the_token_as_a_header(tmp_path):
    app = _remote(tmp_path)
    resp = app.get("/api/games", headers={"Host": "192.168.1.5", "Authorization": f"token {TOKEN}"})
    assert resp.status_code == 200


def test_a_rebinding_name_is_refused_even_with_the_token(tmp_path):
    resp = _remote(tmp_path).get(f"/api/games?token={TOKEN}", headers={"Host": "evil.example:8765"})
    assert resp.status_code == 403


def test_the_guard_of_a_host():
    assert guard_for("127.0.0.1").token is None
    assert guard_for("localhost").token is None
    assert guard_for("::1").token is None
    remote = guard_for("0.0.0.0")
    assert remote.token is not None and len(remote.token) >= 40
    assert guard_for("0.0.0.0").token != remote.token  # a new one each launch
    assert guard_for("my-laptop.local").token is not None
    for bad in ("", "a b", "evil.example/x", "http://x", "-x"):
        with pytest.raises(BadValue, match="--host"):
            guard_for(bad)


# -- the command -----------------------------------------------------------------------------
def _serve(tmp_path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bonken_sim.cli", "serve", "--port", "0", "--state",
         str(tmp_path / "state"), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip


def test_serve_host_prints_an_address_with_a_token(tmp_path):
    proc = _serve(tmp_path, "--host", "0.0.0.0")
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        warning = proc.stdout.readline() if proc.stdout else ""
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    found = re.search(r"open (http://\S+:\d+/\?token=(\S+)) ", line)
    assert found, line
    assert len(found.group(2)) >= 40
    assert "token" in warning and "trust" in warning


def test_serve_refuses_a_host_that_is_no_address(tmp_path):
    proc = _serve(tmp_path, "--host", "not a host")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.strip().splitlines() == [
        "bonken-sim: error: --host must be an IP address or a host name, got 'not a host'"
    ]
