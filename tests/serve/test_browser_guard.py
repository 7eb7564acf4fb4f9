"""The web app's guard in a real browser: a page of another origin open in the same browser
cannot start a game (its fetch and its form are refused, nothing saved), and with ``--host``
the printed address with its token opens a page that plays, while the bare address shows
nothing but the refusal."""

from __future__ import annotations

import json

import pytest

from bonken_sim.serve.app import ServeOptions
from bonken_sim.serve.guard import Guard
from bonken_sim.serve.server import serve_in_thread
from tests.serve.table_driver import hand_buttons, settle_page, start_game
from tests.serve.test_browser import browser, open_page  # noqa: F401 (the fixture)

TOKEN = "a-token-for-this-test-only-0123456789abcdef"


def _server(tmp_path, guard: Guard):
    opts = ServeOptions(state_dir=tmp_path / "state", hint_samples=200, guard=guard)
    return serve_in_thread(opts)


def _games(tmp_path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "state").rglob("*.json"))


@pytest.fixture
def local(tmp_path):
    server, thread = _server(tmp_path, Guard())
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


def test_another_origins_page_cannot_start_a_game(browser, local, tmp_path):  # noqa: F811
    page, errors = open_page(browser, 1280)
    # http://localhost:PORT is another origin than http://127.0.0.1:PORT: a foreign page
    page.goto(f"http://localhost:{local}/static/style.css")
    target = f"http://127.0.0.1:{local}/api/games"
    # a "simple" request, sent without asking: the page cannot read the answer, the server
    # must refuse to act on it
    kind = page.evaluate(
        """async (url) => {
            const r = await fetch(url, {method: "POST", mode: "no-cors", body: '{"seed": 5}',
                                        headers: {"Content-Type": "text/plain"}});
            return r.type;
        }""",
        target,
    )
    assert kind == "opaque"
    assert _games(tmp_path) == []
    page.set_content(
        f'<form method="post" action="{target}" enctype="text/plain">'
        '<input name=\'{"seed": 5, "x": "\' value=\'"}\'></form>'
    )
    with page.expect_navigation():
        page.evaluate("document.forms[0].submit()")
    assert json.loads(page.inner_text("body"))["error"].startswith(
        "refused: a request from another"
    )
    assert _games(tmp_path) == []
    # the app's own page, in the same browser, starts one
    start_game(page, f"http://127.0.0.1:{local}/", ["you", "basic", "basic", "basic"], seed=3)
    assert len(_games(tmp_path)) == 1
    assert errors == []


def test_the_token_address_opens_a_page_that_plays(browser, tmp_path):  # noqa: F811
    server, thread = _server(tmp_path, Guard("0.0.0.0", TOKEN))
    base = f"http://127.0.0.1:{server.server_port}/"
    try:
        page, errors = open_page(browser, 420)
        page.goto(base)
        assert "token" in json.loads(page.inner_text("body"))["error"]
        page.goto(base + f"?token={TOKEN}")
        assert page.url == base  # the token left the address bar for a cookie
        settle_page(page)
        gid = start_game(page, base, ["you", "basic", "random", "basic"], seed=7)
        cards, _ = hand_buttons(page)
        assert len(cards) == 13
        status = page.evaluate("async (p) => (await fetch(p)).status", f"/api/games/{gid}")
        assert status == 200  # the page's own requests carry the cookie
        assert _games(tmp_path) == [f"{gid}.json"]
        assert errors == []
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
