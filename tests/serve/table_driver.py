"""A person at the table, in a real browser: Playwright drives the system's Chromium through
the page by clicking (and the keyboard), and reads what the page shows."""

from __future__ import annotations

import json
import random
import urllib.request

READY = "body[data-ready]:not([data-busy])"


def settle(raw: list[int], doubles: list[list[int]]) -> list[int]:
    """RULES.md §5 on a deal's raw scores and its doubles ((doubler, target) pairs)."""
    import numpy as np

    from bonken_sim.rules import doubling

    doubled = np.zeros((1, 4, 4), bool)
    for a, b in doubles:
        doubled[0, a, b] = True
    final = doubling.settle(np.array([raw]), doubling.multiplicity(doubled))[0]
    return [int(x) for x in final]


def api_get(base: str, path: str):
    with urllib.request.urlopen(base.rstrip("/") + path, timeout=60) as resp:
        body = resp.read().decode()
    return body if path.endswith("trace") or "trace?" in path else json.loads(body)


def settle_page(page) -> str:
    """Wait until nothing is in flight or being shown; the turn the page shows."""
    page.wait_for_selector(READY, timeout=60_000)
    return page.eval_on_selector("body", "b => b.dataset.turn || ''")


def game_id(page) -> str:
    return page.evaluate("location.hash.match(/game=([0-9a-f]{12})/)[1]")


def start_game(page, base: str, players: list[str], seed: int, you: int = 0) -> str:
    page.goto(base + "?fast=1")
    page.wait_for_selector(READY)
    page.select_option("select[name=you]", str(you))
    for seat, name in enumerate(players):
        if seat != you:
            page.select_option(f"select[name=p{seat}]", name)
    page.fill("#new-game input[name=seed]", str(seed))
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#game:not([hidden])")
    settle_page(page)
    return game_id(page)


def hand_buttons(page) -> tuple[list[str], list[str]]:
    """(every card of the hand, the clickable ones) as the page shows them."""
    cards = page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)")
    enabled = page.eval_on_selector_all(
        "#hand button.card:not([disabled])", "bs => bs.map(b => b.dataset.card)"
    )
    return cards, enabled


def sheet(page) -> dict[str, list[list[int]]]:
    """The score sheet's raw and settled scores per deal and its totals, as shown."""
    rows = page.eval_on_selector_all(
        "#sheet tbody tr",
        """trs => trs.map(tr => {
            const cell = (s, kind) => tr.querySelector(`td[data-seat="${s}"][data-kind=${kind}]`);
            return {raw: [0, 1, 2, 3].map(s => Number(cell(s, "raw").textContent)),
                    final: [0, 1, 2, 3].map(s => Number(cell(s, "final").textContent))};
        })""",
    )
    totals = page.eval_on_selector_all(
        "#sheet tfoot td[data-kind=total]", "tds => tds.map(td => Number(td.textContent))"
    )
    return {"raw": [r["raw"] for r in rows], "final": [r["final"] for r in rows], "totals": totals}


class Player:
    """Plays by clicking: a seeded choice among the options the page offers, checking on the
    way that the clickable cards are exactly the server's legal ones."""

    def __init__(self, page, base: str, seed: int = 0, keyboard_every: int = 5) -> None:
        self.page, self.base = page, base
        self.rng = random.Random(seed)
        self.keyboard_every = keyboard_every
        self.cards_played = 0
        self.checked_hands = 0
        self.hints = 0
        self.reviews = 0

    def state(self) -> dict:
        return api_get(self.base, f"/api/games/{game_id(self.page)}")

    def step(self, hint: bool = False, review: bool = False) -> str:
        """One decision of the person (or the next deal); the turn it found."""
        page = self.page
        turn = settle_page(page)
        if turn == "over":
            return turn
        if hint and turn in ("choose", "double", "play"):
            page.click("#hint-btn")
            page.wait_for_selector("#hint:not([hidden]) table tr[data-option]")
            self.hints += 1
        if turn == "choose":
            buttons = page.query_selector_all("#dialog button.choice")
            self.rng.choice(buttons).click()
        elif turn == "double":
            for box in page.query_selector_all("#dialog input[name=target]"):
                if self.rng.random() < 0.25:
                    box.check()
            page.click("#double-go")
        elif turn == "play":
            cards, enabled = hand_buttons(page)
            legal = self.state()["legal"]
            assert sorted(enabled) == sorted(legal), (enabled, legal)
            assert set(legal) <= set(cards)
            self.checked_hands += 1
            card = self.rng.choice(enabled)
            if self.keyboard_every and self.cards_played % self.keyboard_every == 0:
                self._play_by_keyboard(card)
            else:
                page.click(f'#hand button[data-card="{card}"]')
            self.cards_played += 1
        elif turn == "next":
            if review:
                page.click("#dialog button:has-text('Review this deal')")
                page.wait_for_selector("#review .review-table")
                page.wait_for_selector("#review .replay .replay-hand")
                self.reviews += 1
            page.click("#next-deal")
        else:
            raise AssertionError(f"unexpected turn {turn!r}")
        return turn

    def _play_by_keyboard(self, card: str) -> None:
        """Focus the first playable card, arrow to ``card``, press Enter."""
        page = self.page
        enabled = page.eval_on_selector_all(
            "#hand button.card:not([disabled])", "bs => bs.map(b => b.dataset.card)"
        )
        page.focus(f'#hand button[data-card="{enabled[0]}"]')
        for _ in range(enabled.index(card)):
            page.keyboard.press("ArrowRight")
        focused = page.evaluate("document.activeElement.dataset.card")
        assert focused == card, (focused, card)
        page.keyboard.press("Enter")
