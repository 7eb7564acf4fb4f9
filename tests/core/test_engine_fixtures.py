"""The numba engine replays the hand-worked fixture deals of tests/fixtures_hand.py.

Scores and tricks are compared with the values worked out by hand in the fixture file. The
trick winners are also derived here from the plays by a few lines of plain Python, so the
hand-worked numbers, this helper and the engine are three independent witnesses. Mutating
one play of a fixture into a card the rules forbid must make the engine's replay fail with
``IllegalPlay`` naming the step, the seat and the card.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

import bonken_sim
from bonken_sim import IllegalPlay
from bonken_sim._core import kernels as K
from bonken_sim._core import verdicts as V
from bonken_sim._core.ruleset import standard_table
from bonken_sim.engine.play import seats_of
from bonken_sim.rules.names import make_variant
from tests.core.fixtures_hand import FIXTURES

RANKS = "23456789TJQKA"
SUITS = "CDHS"
IDS = [f["name"] for f in FIXTURES]
BY_NAME = {f["name"]: f for f in FIXTURES}


# --------------------------------------------------------------------------------------------
# A tiny independent model of the rules (plain Python, cards as "QS" strings).
# --------------------------------------------------------------------------------------------
def suit(card: str) -> str:
    return card[-1]


def rank(card: str) -> int:
    return RANKS.index(card[0])


def trump_suit(fixture: dict) -> str | None:
    t = fixture["trump"]
    return t if t in ("C", "D", "H", "S") else None


def trick_winner(trick: list[str], trump: str | None) -> int:
    """Index in ``trick`` (play order) of the card that wins it."""
    trumps = [i for i, c in enumerate(trick) if trump is not None and suit(c) == trump]
    pool = trumps or [i for i, c in enumerate(trick) if suit(c) == suit(trick[0])]
    return max(pool, key=lambda i: rank(trick[i]))


def walk_tricks(fixture: dict) -> list[tuple[int, list[str], int]]:
    """(leader, the four cards in play order, winning seat) for each trick of the plays."""
    plays = fixture["plays"]
    assert len(plays) == 52
    leader = (fixture["dealer"] + 1) % 4
    out = []
    for t in range(13):
        trick = plays[4 * t : 4 * t + 4]
        winner = (leader + trick_winner(trick, trump_suit(fixture))) % 4
        out.append((leader, trick, winner))
        leader = winner
    return out


def legal_trick_cards(hand: set[str], trick: list[str], contract: str) -> set[str]:
    if not trick:
        if contract in ("hartenjagen", "hartenheer"):
            others = {c for c in hand if suit(c) != "H"}
            if others:
                return others
        return set(hand)
    follow = {c for c in hand if suit(c) == suit(trick[0])}
    return follow or set(hand)


def legal_domino_cards(hand: set[str], rows: dict[str, tuple[int, int] | None]) -> set[str]:
    legal = set()
    for c in hand:
        row = rows[suit(c)]
        if row is None:
            if rank(c) == 6:
                legal.add(c)
        elif rank(c) in (row[0] - 1, row[1] + 1):
            legal.add(c)
    return legal


def steps(fixture: dict):
    """Yield (index, seat, hand before the play, legal cards) for every entry of the plays,
    following the rules of the fixture's contract (hands are copies)."""
    hands = [set(h) for h in fixture["hands"]]
    plays = fixture["plays"]
    if fixture["contract"] == "domino":
        rows: dict[str, tuple[int, int] | None] = dict.fromkeys(SUITS)
        turn = (fixture["dealer"] + 1) % 4
        for i, p in enumerate(plays):
            while not hands[turn]:
                turn = (turn + 1) % 4
            legal = legal_domino_cards(hands[turn], rows)
            yield i, turn, set(hands[turn]), legal
            if p != "pass":
                hands[turn].discard(p)
                lo, hi = rows[suit(p)] or (rank(p), rank(p))
                rows[suit(p)] = (min(lo, rank(p)), max(hi, rank(p)))
            turn = (turn + 1) % 4
        return
    for t, (leader, trick, _winner) in enumerate(walk_tricks(fixture)):
        for pos, card in enumerate(trick):
            seat = (leader + pos) % 4
            legal = legal_trick_cards(hands[seat], trick[:pos], fixture["contract"])
            yield 4 * t + pos, seat, set(hands[seat]), legal
            hands[seat].discard(card)


def hand_scores(fixture: dict) -> tuple[list[int], list[int]]:
    """Raw scores and tricks recomputed from the plays by the table of RULES.md §3."""
    contract = fixture["contract"]
    scores, tricks = [0] * 4, [0] * 4
    if contract == "domino":
        last = [seat for _i, seat, _hand, _legal in steps(fixture)][-1]
        scores[last] -= 50  # the seat of the last entry lays the last card
        return scores, tricks
    for t, (_leader, trick, w) in enumerate(walk_tricks(fixture)):
        tricks[w] += 1
        for c in trick:
            r, s = c[0], suit(c)
            scores[w] += {
                "hartenjagen": -5 if s == "H" else 0,
                "herenboeren": {"K": -20, "J": -10}.get(r, 0),
                "vrouwen": -30 if r == "Q" else 0,
                "hartenheer": -50 if c == "KH" else 0,
            }.get(contract, 0)
        scores[w] += {"bukken": -5, "troeven": 10}.get(contract, 0)
        if t == 12 and contract == "laatste_slag":
            scores[w] -= 50
    return scores, tricks


def engine_replay_detail(fixture: dict) -> tuple[int, int, list[int], list[int]]:
    """The engine's replay kernel directly: (verdict, index, scores, tricks)."""
    variant = make_variant(fixture["contract"], fixture["trump"])
    from bonken_sim.rules.names import parse_card

    hands = np.array([sum(1 << parse_card(c) for c in h) for h in fixture["hands"]], np.uint64)
    plays = np.array([K.PASS if p == "pass" else parse_card(p) for p in fixture["plays"]], np.int64)
    scores, tricks = np.zeros(4, np.int64), np.zeros(4, np.int64)
    seats = np.zeros(len(plays), np.int64)
    no_results = np.zeros((0, 3), np.int64)
    verdict, index, _seat, _legal = K.replay(
        standard_table()[variant.id],
        hands,
        fixture["dealer"],
        plays,
        scores,
        tricks,
        seats,
        no_results,
    )
    return int(verdict), int(index), scores.tolist(), tricks.tolist()


# --------------------------------------------------------------------------------------------
# The fixtures themselves are consistent with the independent model.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_fixture_is_legal_and_hand_worked_numbers_follow_from_the_plays(fixture):
    for i, _seat, hand, legal in steps(fixture):
        p = fixture["plays"][i]
        if p == "pass":
            assert not legal, f"entry {i}: pass while able"
        else:
            assert p in hand and p in legal, f"entry {i}: {p} not legal ({sorted(legal)})"
    scores, tricks = hand_scores(fixture)
    assert scores == fixture["scores"]
    assert tricks == fixture["expected_tricks"]


# --------------------------------------------------------------------------------------------
# The engine agrees.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_engine_replay_gives_the_hand_worked_scores(fixture):
    rec = copy.deepcopy(fixture)
    assert bonken_sim.replay(rec) == fixture["scores"]
    assert rec == fixture  # replay does not touch the record


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_engine_replay_kernel_counts_the_hand_worked_tricks(fixture):
    verdict, index, scores, tricks = engine_replay_detail(fixture)
    assert (verdict, index) == (V.OK, len(fixture["plays"]))
    assert scores == fixture["scores"]
    assert tricks == fixture["expected_tricks"]


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_engine_seats_follow_the_hand_worked_trick_winners(fixture):
    """``Playout.seats`` machinery (play.seats_of) assigns every play to the seat the
    independent walk does; for trick contracts, each trick's leader is the previous winner."""
    variant = make_variant(fixture["contract"], fixture["trump"])
    from bonken_sim.rules.names import parse_card

    masks = [sum(1 << parse_card(c) for c in h) for h in fixture["hands"]]
    plays = [None if p == "pass" else parse_card(p) for p in fixture["plays"]]
    seats = seats_of(variant, fixture["dealer"], masks, plays)
    assert seats == [seat for _i, seat, _h, _l in steps(fixture)]
    if fixture["contract"] == "domino":
        out = []
        for i, seat, hand, _legal in steps(fixture):
            if hand == {fixture["plays"][i]}:
                out.append(seat)
        assert out == fixture["expected_out_order"]
    else:
        walk = walk_tricks(fixture)
        leaders = [seats[4 * t] for t in range(13)]
        assert leaders == [leader for leader, _t, _w in walk]
        assert leaders[1:] == [w for _l, _t, w in walk[:-1]]


# --------------------------------------------------------------------------------------------
# Broken fixtures are rejected.
# --------------------------------------------------------------------------------------------
def first_illegal_mutation(fixture: dict) -> tuple[int, int, str]:
    """The first entry where the acting seat holds a card it may not play: (index, seat, card).
    The card chosen is the lowest such card by (suit, rank)."""
    for i, seat, hand, legal in steps(fixture):
        bad = sorted(
            hand - legal - {fixture["plays"][i]}, key=lambda c: (SUITS.index(suit(c)), rank(c))
        )
        if bad:
            return i, seat, bad[0]
    raise AssertionError("no step with an illegal card in hand")


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_one_play_changed_to_an_illegal_card_is_rejected(fixture):
    i, seat, card = first_illegal_mutation(fixture)
    rec = copy.deepcopy(fixture)
    rec["plays"][i] = card
    with pytest.raises(IllegalPlay) as info:
        bonken_sim.replay(rec)
    msg = str(info.value)
    where = f"turn {i + 1}" if fixture["contract"] == "domino" else f"trick {i // 4 + 1}"
    assert msg.startswith(f"{where}: seat {seat} may not play {card};"), msg
    legal = {c for j, _s, _h, lg in steps(fixture) if j == i for c in lg}
    assert sorted(re.findall(r"'(\w+)'", msg.split("legal", 1)[1])) == sorted(legal)
    verdict, index, _s, _t = engine_replay_detail(rec)
    assert (verdict, index) == (V.NOT_LEGAL, i)


def test_heart_lead_ban_is_among_the_mutations():
    # The generic mutation hits the ban in both heart contracts: the leader holds a non-heart.
    assert first_illegal_mutation(BY_NAME["hartenjagen_lead_ban"]) == (0, 1, "2H")
    assert first_illegal_mutation(BY_NAME["hartenheer_forced_king"]) == (0, 2, "2H")


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_a_card_from_another_hand_is_rejected(fixture):
    rec = copy.deepcopy(fixture)
    first_seat = (fixture["dealer"] + 1) % 4
    rec["plays"][0] = fixture["hands"][(first_seat + 1) % 4][0]
    with pytest.raises(IllegalPlay, match=rf"^(trick|turn) 1: seat {first_seat} does not hold"):
        bonken_sim.replay(rec)


def test_domino_pass_while_able_is_rejected():
    rec = copy.deepcopy(BY_NAME["domino_held_eight"])
    rec["plays"][0] = "pass"  # seat 1 holds 8S
    with pytest.raises(
        IllegalPlay, match=r"^turn 1: seat 1 passed while able to play; legal \['8S'\]"
    ):
        bonken_sim.replay(rec)


def test_pass_in_a_trick_contract_is_rejected():
    rec = copy.deepcopy(BY_NAME["bukken_split_clubs_diamonds"])
    rec["plays"][5] = "pass"
    with pytest.raises(IllegalPlay, match=r"^trick 2: "):
        bonken_sim.replay(rec)


def test_swapped_plays_are_rejected_at_the_first_broken_trick():
    # Troeven hearts, trick 3 (9S led by seat 3): seat 2 ruffs with 3H while holding spades.
    rec = copy.deepcopy(BY_NAME["troeven_hearts_ruff_and_overruff"])
    i, j = rec["plays"].index("AS"), rec["plays"].index("3H")
    rec["plays"][i], rec["plays"][j] = rec["plays"][j], rec["plays"][i]
    with pytest.raises(IllegalPlay, match=r"^trick 3: seat 2 may not play 3H; legal \["):
        bonken_sim.replay(rec)


def test_truncated_traces_follow_the_early_stop_rules():
    # Domino: after round 13 three seats are out; the trace may stop there (RULES §4.5).
    dom = BY_NAME["domino_held_eight"]
    assert bonken_sim.replay(dict(dom, plays=dom["plays"][:52])) == dom["scores"]
    with pytest.raises(IllegalPlay):
        bonken_sim.replay(dict(dom, plays=dom["plays"][:51]))
    # Hartenheer: KH is taken in trick 2, nothing can change afterwards (RULES §2.5).
    hh = BY_NAME["hartenheer_forced_king"]
    assert bonken_sim.replay(dict(hh, plays=hh["plays"][:8])) == hh["scores"]
    with pytest.raises(IllegalPlay):
        bonken_sim.replay(dict(hh, plays=hh["plays"][:4]))  # KH still out
    # Every trick scores in troeven: no early stop; extra plays are rejected too.
    tr = BY_NAME["troeven_nt_discarded_aces"]
    with pytest.raises(IllegalPlay):
        bonken_sim.replay(dict(tr, plays=tr["plays"][:48]))
    with pytest.raises(IllegalPlay):
        bonken_sim.replay(dict(tr, plays=tr["plays"] + ["2C"]))
