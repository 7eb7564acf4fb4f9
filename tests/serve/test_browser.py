"""The web app in a real browser: Playwright drives the system's Chromium (a browser download
at install time is not possible here, so it launches the given executable) through a whole
game by clicking and the keyboard, at a phone's width and a desktop's.

A missing browser or Playwright skips these tests on a developer's machine and fails them
under CI=true, as the report's browser tests do (tests/report/page/browser.py)."""

from __future__ import annotations

import json
import os

import pytest

from bonken_sim.engine.play import replay
from tests.report.page.browser import FLAGS, chromium
from tests.serve.conftest import ServeProcess, call
from tests.serve.table_driver import (
    Player,
    game_id,
    hand_buttons,
    settle,
    settle_page,
    sheet,
    start_game,
)

WIDTHS = (420, 1280)
#: fast computer seats and a fixed seed: the game is the same in every run
PLAYERS = ["you", "basic", "random", "basic"]


def _playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        message = "playwright is not installed (pip install -e '.[test]')"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return sync_playwright


@pytest.fixture(scope="module")
def browser():
    path = chromium()
    with _playwright()() as pw:
        b = pw.chromium.launch(executable_path=path, args=list(FLAGS[1:]))
        yield b
        b.close()


def open_page(browser, width: int):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(60_000)
    return page, errors


@pytest.mark.parametrize("width", WIDTHS)
def test_a_whole_game_played_by_clicking(browser, served, tmp_path, width):
    page, errors = open_page(browser, width)
    gid = start_game(page, served, PLAYERS, seed=2024)
    player = Player(page, served, seed=width)
    steps = 0
    while player.step(hint=steps in (2, 25), review=player.reviews == 0) != "over":
        steps += 1
        assert steps < 400
    # the page's width: nothing wider than the window at 420 px but the scrolled tables
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.wait_for_selector("#game-over")
    assert player.cards_played > 100 and player.checked_hands == player.cards_played
    assert player.hints == 2 and player.reviews == 1
    # the sheet shows the engine's scores for the same plays
    shown = sheet(page)
    status, trace = call(served, "GET", f"/api/games/{gid}/trace")
    records = [json.loads(line) for line in trace.splitlines()]
    assert len(records) == 11 == len(shown["raw"])
    doubles = [row["doubles"] for row in call(served, "GET", f"/api/games/{gid}")[1]["sheet"]]
    for k, record in enumerate(records):
        assert shown["raw"][k] == replay(record)
        assert shown["final"][k] == settle(replay(record), doubles[k])
    assert shown["totals"] == [sum(f[p] for f in shown["final"]) for p in range(4)]
    winner = page.text_content("#game-over")
    best = max(shown["totals"])
    assert ("You win" in winner) == (shown["totals"][0] == best)
    page.click("#dialog button:has-text('Review the game')")
    page.wait_for_selector("#review-title:has-text('Review of the game')")
    assert page.locator("#review .review-row").count() > 50
    assert page.locator("#review .replay").count() == 11
    page.locator("#review .replay").first.locator("button.next-trick").click()
    page.screenshot(path=str(tmp_path / f"game-{width}.png"), full_page=True)
    assert errors == []


def test_a_game_survives_a_server_restart(browser, tmp_path):
    state = tmp_path / "state"
    first = ServeProcess(state)
    page, errors = open_page(browser, 420)
    try:
        gid = start_game(page, first.base, PLAYERS, seed=77)
        player = Player(page, first.base, seed=1)
        for _ in range(6):
            player.step()
        settle_page(page)
        before_hand = hand_buttons(page)
        before = call(first.base, "GET", f"/api/games/{gid}")[1]
    finally:
        first.stop()
    second = ServeProcess(state)
    try:
        page.goto(second.base + f"?fast=1#game={gid}")
        settle_page(page)
        assert game_id(page) == gid
        assert hand_buttons(page) == before_hand
        assert call(second.base, "GET", f"/api/games/{gid}")[1] == before
        player = Player(page, second.base, seed=2)
        for _ in range(3):
            player.step()
        after = call(second.base, "GET", f"/api/games/{gid}")[1]
        assert after != before
    finally:
        second.stop()
    assert errors == []


def test_only_legal_cards_can_be_clicked(browser, served):
    page, errors = open_page(browser, 1280)
    start_game(page, served, PLAYERS, seed=5)
    player = Player(page, served, seed=3)
    while settle_page(page) != "play":
        player.step()
    cards, enabled = hand_buttons(page)
    before = player.state()
    assert sorted(enabled) == sorted(before["legal"])
    blocked = [c for c in cards if c not in before["legal"]]
    assert blocked, "the seed gives a position where some cards may not be played"
    for card in blocked:
        button = page.locator(f'#hand button[data-card="{card}"]')
        assert button.is_disabled()
        button.click(force=True)  # a disabled button does nothing
    settle_page(page)
    assert player.state() == before
    assert hand_buttons(page) == (cards, enabled)
    assert errors == []


def test_advice_for_a_hand_picked_by_clicking(browser, served):
    page, errors = open_page(browser, 420)
    page.goto(served + "?fast=1")
    settle_page(page)
    page.click(".tab[data-view=advice]")
    hand = "AS KS QS JS 9S 4S AH 7H 2H KD 5D 3C 2C".split()
    for card in hand:
        page.click(f'#picker button[data-card="{card}"]')
    assert sorted(page.input_value("#advice-form input[name=hand]").split()) == sorted(hand)
    page.fill("#advice-form input[name=deals]", "2000")
    page.click("#advice-form button[type=submit]")
    page.wait_for_selector("#advice-table tr[data-variant]", timeout=180_000)
    status, answer = call(served, "POST", "/api/advise",
                          {"hand": " ".join(hand), "deals": 2000, "seed": 1})  # fmt: skip
    assert status == 200
    shown = page.eval_on_selector_all(
        "#advice-table tr[data-variant]", "trs => trs.map(tr => tr.dataset.variant)"
    )
    assert shown == answer["doc"]["ranking"]
    assert page.text_content("#advice-title") == answer["doc"]["recommendation"]
    assert page.locator("#advice-chart rect").count() == 12
    assert errors == []


def test_an_opened_run_is_browsed_and_replayed_in_the_browser(browser, tmp_path):
    from bonken_sim.cli.main import main
    from bonken_sim.serve.app import ServeOptions
    from bonken_sim.serve.run_browser import open_run
    from bonken_sim.serve.server import address, serve_in_thread

    run = tmp_path / "run"
    assert main(["run", "--deals", "20", "--seed", "9", "--out", str(run), "--quiet"]) == 0
    server, thread = serve_in_thread(ServeOptions(tmp_path / "state", run=open_run(run)))
    page, errors = open_page(browser, 420)
    try:
        page.goto(address(server) + "?fast=1")
        settle_page(page)
        page.click("#run-tab")
        page.fill("#run-form input[name=index]", "4")
        page.select_option("#run-form select[name=variant]", "vrouwen")
        page.click("#run-form button[type=submit]")
        page.wait_for_selector("#run-out .replay .replay-hand")
        assert page.locator("#run-rows tr[data-variant]").count() == 12
        for _ in range(13):
            page.locator("#run-out button.next-trick").click()
        assert page.locator("#run-out button.next-trick").is_disabled()
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
    assert errors == []


def _compiling(tmp_path, monkeypatch):
    """serve's kernels as on an empty cache (only the markers are looked up there), moved by
    hand: the page's waiting state without a compile."""
    from bonken_sim.serve.kernels_ready import SERVE_NEEDS, Kernels

    monkeypatch.setenv("BONKEN_SIM_CACHE_DIR", str(tmp_path / "empty-cache"))
    kernels = Kernels(SERVE_NEEDS)
    monkeypatch.delenv("BONKEN_SIM_CACHE_DIR")
    return kernels


@pytest.mark.parametrize("outcome", ["ready", "failed"])
def test_a_new_game_waits_for_the_kernels_with_the_progress_shown(
    browser, tmp_path, monkeypatch, outcome
):
    from bonken_sim.serve.app import ServeOptions
    from bonken_sim.serve.server import address, serve_in_thread

    kernels = _compiling(tmp_path, monkeypatch)
    kernels.progress(1, ("decide", "advanced"), 42)
    server, thread = serve_in_thread(ServeOptions(tmp_path / "state", kernels=kernels))
    page, errors = open_page(browser, 420)
    try:
        page.goto(address(server) + "?fast=1")
        page.wait_for_selector("#kernels:not([hidden])")
        shown = page.text_content("#kernels") or ""
        assert "Compiling the computer players" in shown
        assert "part 2 of 4" in shown and "decide (advanced)" in shown
        page.fill("#new-game input[name=seed]", "7")
        page.click("#new-game button[type=submit]")  # asked for while compiling: it waits
        page.wait_for_timeout(1500)
        assert page.is_hidden("#game") and page.is_hidden("#error")
        if outcome == "ready":
            kernels.finish()
            page.wait_for_selector("#game:not([hidden])", timeout=30_000)
            settle_page(page)
            assert page.is_hidden("#kernels")
            assert call(address(server), "GET", f"/api/games/{game_id(page)}")[0] == 200
        else:
            kernels.fail("TypingError: no kernel today")
            page.wait_for_selector("#kernels[data-state=failed]")
            assert "could not be compiled: TypingError: no kernel today" in (
                page.text_content("#kernels") or ""
            )
            page.wait_for_selector("#error:not([hidden])")
            assert "compiling the kernels failed" in (page.text_content("#error") or "")
            assert page.is_hidden("#game")
            # the form's handler rethrows a refused request, as for any other refusal
            errors = [e for e in errors if "compiling the kernels failed" not in e]
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
    assert errors == []
