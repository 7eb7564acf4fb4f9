"""The solver (_core.solver via engine.solve) against a brute-force minimax, and the value of
larger positions against playing out its principal line."""

from __future__ import annotations

import random

import pytest

from bonken_sim.engine.solve import NotSolved, solve
from bonken_sim.rules.names import card_str, parse_card
from bonken_sim.rules.rulesets import Ruleset, preset
from tests.reference import solver as R
from tests.reference.cards import HEARTS, suit_of
from tests.reference.rules import VARIANTS, Rules, current_winner_index, legal_trick_cards

TRICK_VARIANTS = [v for v in range(12) if v != 6]
RULESETS = {
    "standard": preset("standard"),
    "strict": preset("strict"),  # hearts led once broken, must over-trump
    "must-trump": Ruleset(name="must-trump", trump_play="must-trump"),
    "double-points": preset("double-points"),
}


def _ending(rng: random.Random, k: int) -> list[set[int]]:
    deck = rng.sample(range(52), 4 * k)
    return [set(deck[i * k : (i + 1) * k]) for i in range(4)]


def _text(hands: list[set[int]]) -> str:
    return " / ".join(" ".join(card_str(c) for c in sorted(h)) for h in hands)


def _trump(trump: str | None) -> int | None:
    return None if trump in (None, "NT") else "CDHS".index(trump)


def _check(rs_name: str, hands: list[set[int]], vid: int, leader: int, seat: int) -> None:
    rules = RULESETS[rs_name]
    contract, trump = VARIANTS[vid]
    got = solve(_text(hands), contract, trump, leader, seat, rules, table_bits=14)
    want, cards = R.solve(
        hands, contract, _trump(trump), leader, seat, Rules.from_record(rules.to_dict())
    )
    where = f"{rs_name} {contract} {trump} {_text(hands)} leader {leader} seat {seat}"
    assert got.value == want, where
    assert got.cards == {card_str(c): v for c, v in cards.items()}, where


@pytest.mark.parametrize("rs_name", list(RULESETS))
def test_small_endings_match_brute_force(rs_name):
    """1 to 3 cards a seat: every trick variant, leader and seat (300 per ruleset)."""
    rng = random.Random(f"solver-{rs_name}")
    for i in range(300):
        hands = _ending(rng, 1 + i % 3)
        vid = TRICK_VARIANTS[i % len(TRICK_VARIANTS)]
        _check(rs_name, hands, vid, rng.randrange(4), (i // 11) % 4)


def test_four_card_endings_match_brute_force():
    rng = random.Random("solver-4")
    for i in range(88):
        rs_name = ("standard", "strict")[i % 2]
        _check(rs_name, _ending(rng, 4), TRICK_VARIANTS[i % 11], i % 4, rng.randrange(4))


def test_five_card_endings_match_brute_force():
    """The largest endings checked against the brute force: 5 cards a seat, two per trick
    variant, both rulesets."""
    rng = random.Random("solver-5")
    for i in range(22):
        rs_name = ("standard", "strict")[i % 2]
        _check(rs_name, _ending(rng, 5), TRICK_VARIANTS[i % 11], i % 4, rng.randrange(4))


def test_the_table_does_not_grow_across_solves():
    """The caller's table is the only memory of the search: solves of any size leave it the
    same array (same size, same buffer) and only move its generation."""
    import numpy as np

    from bonken_sim._core import solver as S
    from bonken_sim._core.ruleset import standard_table

    table = S.new_table(12)
    size, buffer = table.nbytes, table.ctypes.data
    ctx = np.zeros(S.N_CTX, np.int64)
    si, su = S.new_stack()
    rng = random.Random("table")
    gens = []
    for i in range(40):
        hands = np.array([sum(1 << c for c in h) for h in _ending(rng, 1 + i % 8)], np.uint64)
        before = hands.copy()
        S.solve_value(hands, i % 4, 0, standard_table()[i % 12 if i % 12 != 6 else 0], table,
                      ctx, si, su, 200_000)  # fmt: skip
        assert np.array_equal(hands, before)  # the hands are given back
        gens.append(int(table[0]))
    assert (table.nbytes, table.ctypes.data) == (size, buffer)
    assert gens == list(range(gens[0], gens[0] + 40))  # a new generation per solve


def test_heart_lead_rules_in_endings():
    """Hearts count as broken iff a heart is missing from the four hands (docs/SOLVER.md)."""
    all_hearts = "2H 3H 4H 5H / 6H 7H 8H 9H / TH JH QH AH / KH 2C 3C 4C"
    strict = RULESETS["strict"]
    # Seat 3 holds K♥ and clubs; with every heart still out, seat 3 may not lead hearts.
    r = solve(all_hearts, "hartenheer", None, 3, 3, strict)
    assert set(r.cards) == {"2C", "3C", "4C"}
    broken = "2H 3H 4H 5H / 6H 7H 8H 9H / TH JH QH AH / KH 2C 3C 5C"
    r = solve(broken.replace("5C", "4D"), "hartenheer", None, 3, 3, strict)
    assert "KH" not in r.cards  # every heart still out: not broken
    r = solve(
        "2H 3H 4H 2S / 6H 7H 8H 9H / TH JH QH AH / KH 2C 3C 4C", "hartenheer", None, 3, 3, strict
    )  # the 5♥ is gone: broken
    assert "KH" in r.cards


def _line_value(hands, contract, trump, leader, seat, rules) -> int:
    """Play the position out along the solver's values: at each trick every seat plays a
    card that keeps the value (the leader per the solver's card values, the followers by
    brute force over the trick with the solver valuing the next trick's position); return
    the points the seat scored. Checks each trick's minimax against the solver too."""
    ref_rules = Rules.from_record(rules.to_dict())
    ts = _trump(trump)
    hands = [set(h) for h in hands]
    total = 0
    while any(hands):
        r = solve(_text(hands), contract, trump, leader, seat, rules)
        lead = parse_card(r.best[0])

        def after(trick, hs, leader=leader):
            if len(trick) == 4:
                win = (leader + current_winner_index(trick, ts)) % 4
                last = not any(hs)
                gain = R.trick_points(contract, trick, last, ref_rules) if win == seat else 0
                nxt = 0 if last else solve(_text(hs), contract, trump, win, seat, rules).value
                return gain + nxt, gain, hs, win
            mover = (leader + len(trick)) % 4
            opts = []
            for c in sorted(legal_trick_cards(hs[mover], trick, contract, ref_rules, ts)):
                h2 = [h - {c} if p == mover else h for p, h in enumerate(hs)]
                opts.append(after([*trick, c], h2, leader))
            pick = max if mover == seat else min
            return pick(opts, key=lambda o: o[0])

        h1 = [h - {lead} if p == leader else h for p, h in enumerate(hands)]
        value, gain, hands, leader = after([lead], h1)
        assert value == r.value  # the trick's minimax agrees with the solver's value
        total += gain
    return total


@pytest.mark.parametrize("vid", TRICK_VARIANTS)
def test_principal_line_achieves_the_value(vid):
    """6-card endings of real deals: the line of best play scores exactly the value."""
    from bonken_sim.engine.play import deal_hands

    contract, trump = VARIANTS[vid]
    rng = random.Random(vid)
    masks = deal_hands(7, vid)
    hands = [set(rng.sample([c for c in range(52) if m >> c & 1], 6)) for m in masks]
    for seat in range(4):
        r = solve(_text(hands), contract, trump, vid % 4, seat)
        assert _line_value(hands, contract, trump, vid % 4, seat, preset("standard")) == r.value


@pytest.mark.parametrize(
    ("hands", "err"),
    [
        ("AS / KS / QS", "four hands"),
        ("AS / AS / QS / JS", "card AS is in the hands of seat 0 and seat 1"),
        ("AS 2C / KS / QS / JS", "equal length"),
        (" / / / ", "1 to 13"),
        ("AS / KS / QS / XX", "not a card"),
    ],
)
def test_bad_positions_are_value_errors(hands, err):
    with pytest.raises(ValueError, match=err):
        solve(hands, "bukken", None, 0, 0)


def test_bad_contract_seat_and_domino():
    with pytest.raises(ValueError, match="not a trump contract"):
        solve("AS / KS / QS / JS", "bukken", "H", 0, 0)
    with pytest.raises(ValueError, match="domino cannot be solved"):
        solve("AS / KS / QS / JS", "domino", None, 0, 0)
    with pytest.raises(ValueError, match="seat 0-3"):
        solve("AS / KS / QS / JS", "bukken", None, 0, 4)
    with pytest.raises(ValueError, match="leader must be a seat"):
        solve("AS / KS / QS / JS", "bukken", None, -1, 0)
    r = solve("AS / KS / QS / JS", "troeven", "S", leader=0, seat=0)
    assert (r.value, r.cards, r.best) == (10, {"AS": 10}, ["AS"])
    assert HEARTS == suit_of(parse_card("2H"))


def test_node_budget_stops_the_search():
    """A budget too small for a 6-card ending raises NotSolved (and leaves the solver
    usable: the same position then solves with the default budget)."""
    text = "AS KS 7S 2H 9D 3C / QS 3H 9C 2D 8H 4C / JS 4H 8C 3D TD 5C / TS 5H 7C 4D JD 6C"
    with pytest.raises(NotSolved, match=r"not solved within 50 nodes .*raise max_nodes"):
        solve(text, "herenboeren", None, 0, 1, max_nodes=50)
    r = solve(text, "herenboeren", None, 0, 1)
    assert r.nodes > 1000
    with pytest.raises(NotSolved):
        solve(text, "herenboeren", None, 0, 1, max_nodes=r.nodes // 4)
    # Node counts vary a little from solve to solve (table collisions), the values do not.
    enough = solve(text, "herenboeren", None, 0, 1, max_nodes=2 * r.nodes)
    assert (enough.value, enough.cards) == (r.value, r.cards)
    with pytest.raises(ValueError, match="node budget"):
        solve(text, "herenboeren", None, 0, 1, max_nodes=0)
