"""The pure-Python reference against the golden traces, and against itself.

* Every legal golden record replays to exactly its ``scores``; every illegal one is
  rejected at the step its ``why_illegal`` names.
* The reference's own ``play_deal`` output, turned into a record, replays to the same
  scores (random and basic play, every variant), and the deal invariants hold.
* ``replay`` is strict about malformed records and only accepts the early stops that
  RULES.md §2.5 / §4.5 allow.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.reference import (
    VARIANTS,
    IllegalPlay,
    card_str,
    deal_hands,
    parse_card,
    play_deal,
    replay,
)
from tests.reference.replay import replay_detail, to_record
from tests.reference.rules import DEAL_TOTAL, penalty_set

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


SELF_SEED = 20240601
SELF_DEALS = 300
RANDOM4 = (0, 0, 0, 0)
BASIC4 = (1, 1, 1, 1)


def _load(name: str) -> list[dict]:
    path = GOLDEN / name
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def random_traces() -> list[dict]:
    return _load("traces_random.jsonl")


@pytest.fixture(scope="module")
def illegal_traces() -> list[dict]:
    return _load("traces_illegal.jsonl")


# ---------------------------------------------------------------------------
# golden traces
# ---------------------------------------------------------------------------
def test_golden_random_traces_cover_every_variant(random_traces):
    seen = Counter((r["contract"], r["trump"]) for r in random_traces)
    assert set(seen) == set(VARIANTS)


def test_golden_random_traces_replay_with_their_scores(random_traces):
    failures = []
    for r in random_traces:
        where = f"deal {r['deal']} {r['contract']} {r['trump']}"
        try:
            scores = replay(r)
        except IllegalPlay as e:
            failures.append(f"{where}: rejected: {e}")
            continue
        if scores != r["scores"]:
            failures.append(f"{where}: scores {scores} != golden {r['scores']}")
    assert not failures, "\n".join(failures[:20])


def test_golden_illegal_traces_are_rejected_at_the_named_step(illegal_traces):
    failures = []
    for r in illegal_traces:
        where = f"deal {r['deal']} {r['contract']} {r['trump']}"
        try:
            replay(r)
        except IllegalPlay as e:
            # The message format is the golden one, so the first broken step must match.
            if str(e) != r["why_illegal"]:
                failures.append(f"{where}: got {e!s} / golden {r['why_illegal']}")
        else:
            failures.append(f"{where}: accepted, but {r['why_illegal']}")
    assert not failures, "\n".join(failures[:20])


def test_illegal_play_is_a_value_error():
    assert issubclass(IllegalPlay, ValueError)


# ---------------------------------------------------------------------------
# the reference against itself
# ---------------------------------------------------------------------------
def _check_invariants(res: dict, variant_id: int, dealer: int) -> None:
    contract, _ = VARIANTS[variant_id]
    hands = res["hands"]
    assert [len(h) for h in hands] == [13, 13, 13, 13]
    assert sorted(c for h in hands for c in h) == list(range(52))
    assert all(h == sorted(h) for h in hands)
    assert len(res["plays"]) == len(res["seats"])
    assert sum(res["scores"]) == DEAL_TOTAL[contract]
    cards = [p for p in res["plays"] if p != "pass"]
    assert sorted(cards) == list(range(52)), "every card is played exactly once"
    for p, seat in zip(res["plays"], res["seats"], strict=True):
        if p != "pass":
            assert p in hands[seat], "a seat only plays its own cards"
    if contract == "domino":
        assert res["tricks"] == [0, 0, 0, 0]
        assert sorted(res["out_order"]) == [0, 1, 2, 3]
        loser = res["out_order"][-1]
        assert res["scores"] == [-50 if p == loser else 0 for p in range(4)]
        assert res["seats"][0] == (dealer + 1) % 4
        assert res["plays"][-1] != "pass" and res["seats"][-1] == loser
    else:
        assert "pass" not in res["plays"] and len(res["plays"]) == 52
        assert res["out_order"] == []
        assert sum(res["tricks"]) == 13
        assert res["seats"][0] == (dealer + 1) % 4
        if contract == "bukken":
            assert res["scores"] == [-5 * t for t in res["tricks"]]
        if contract == "troeven":
            assert res["scores"] == [10 * t for t in res["tricks"]]
        if contract == "laatste_slag":
            last_trick_seats = res["seats"][48:]
            assert sorted(last_trick_seats) == [0, 1, 2, 3]


@pytest.mark.parametrize("strategies", [RANDOM4, BASIC4], ids=["random", "basic"])
def test_play_deal_replays_to_its_own_scores(strategies):
    failures = []
    for deal in range(SELF_DEALS):
        dealer = deal % 4
        for v in range(len(VARIANTS)):
            res = play_deal(SELF_SEED, deal, v, strategies, dealer=dealer)
            _check_invariants(res, v, dealer)
            detail = replay_detail(to_record(res, v, dealer))
            if detail["scores"] != res["scores"] or detail["tricks"] != res["tricks"]:
                failures.append(f"deal {deal} variant {v}: replay {detail} vs play {res['scores']}")
            if detail["out_order"] != res["out_order"]:
                failures.append(
                    f"deal {deal} variant {v}: out_order {detail['out_order']} "
                    f"vs {res['out_order']}"
                )
    assert not failures, "\n".join(failures[:20])


def test_mixed_strategies_replay_and_hands_do_not_depend_on_variant():
    for deal in range(20):
        for v in range(len(VARIANTS)):
            res = play_deal(7, deal, v, (0, 1, 0, 1), dealer=(deal + 1) % 4)
            assert res["hands"] == deal_hands(7, deal)
            _check_invariants(res, v, (deal + 1) % 4)
            assert replay(to_record(res, v, (deal + 1) % 4)) == res["scores"]


def test_play_deal_is_deterministic():
    for v in range(len(VARIANTS)):
        assert play_deal(3, 5, v, (0, 1, 0, 0), dealer=2) == play_deal(
            3, 5, v, (0, 1, 0, 0), dealer=2
        )


def test_basic_beats_random_in_troeven():
    """Two basic seats against two random seats win clearly more tricks (a sanity check
    that the basic strategy is wired in; the margin is ~7 standard errors)."""
    diff = []
    for deal in range(40):
        for v in range(7, 12):
            res = play_deal(11, deal, v, (0, 1, 0, 1))
            diff.append(res["scores"][1] + res["scores"][3] - res["scores"][0] - res["scores"][2])
    n = len(diff)
    mean = sum(diff) / n
    sd = (sum((d - mean) ** 2 for d in diff) / (n - 1)) ** 0.5
    assert mean > 3 * sd / n**0.5


# ---------------------------------------------------------------------------
# replay is strict
# ---------------------------------------------------------------------------
def _record(variant_id: int, deal: int = 3, strategies=RANDOM4, dealer: int = 1) -> dict:
    res = play_deal(99, deal, variant_id, strategies, dealer=dealer)
    return to_record(res, variant_id, dealer)


def _expect_illegal(record: dict, fragment: str = "") -> str:
    with pytest.raises(IllegalPlay) as info:
        replay(record)
    assert fragment in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("variant_id", [0, 5, 7, 11])
def test_trace_missing_the_last_play_is_rejected(variant_id):
    # (Domino may stop early once three players are out: tested below.)
    rec = _record(variant_id)
    rec["plays"] = rec["plays"][:-1]
    _expect_illegal(rec, "trace ends")


@pytest.mark.parametrize("variant_id", [0, 3, 6, 10])
def test_trace_with_an_extra_play_is_rejected(variant_id):
    rec = _record(variant_id)
    rec["plays"] = rec["plays"] + [rec["plays"][0]]
    _expect_illegal(rec, "after all")


def test_malformed_hands_are_rejected():
    rec = _record(0)
    bad = copy.deepcopy(rec)
    bad["hands"][2][5] = "1X"
    _expect_illegal(bad, "unknown card")
    bad = copy.deepcopy(rec)
    bad["hands"][2][5] = bad["hands"][0][0]  # a duplicate (and a missing card)
    _expect_illegal(bad, "dealt to seat 0 and seat 2")
    bad = copy.deepcopy(rec)
    bad["hands"][1] = bad["hands"][1][:12]
    _expect_illegal(bad, "holds 12 cards")
    bad = copy.deepcopy(rec)
    bad["hands"] = bad["hands"][:3]
    _expect_illegal(bad, "4 hands")


def test_malformed_header_is_rejected():
    rec = _record(7)
    for key, value in [
        ("dealer", 4),
        ("dealer", True),
        ("contract", "kings"),
        ("trump", None),
        ("trump", "X"),
    ]:
        bad = dict(rec, **{key: value})
        _expect_illegal(bad)
    _expect_illegal(dict(_record(0), trump="H"))  # bukken has no trump


def test_alternative_card_spellings_are_accepted():
    rec = _record(9)
    scores = replay(rec)
    alt = copy.deepcopy(rec)
    alt["hands"] = [[c.lower().replace("t", "10") for c in h] for h in alt["hands"]]
    alt["plays"] = [c.replace("T", "10") for c in alt["plays"]]
    assert replay(alt) == scores


def test_unknown_played_card_and_pass_in_trick_play_are_rejected():
    rec = _record(1)
    bad = copy.deepcopy(rec)
    bad["plays"][6] = "ZZ"
    _expect_illegal(bad, "unknown card 'ZZ'")
    bad = copy.deepcopy(rec)
    bad["plays"][6] = "pass"
    _expect_illegal(bad, "trick 2: seat")
    bad = copy.deepcopy(rec)
    bad["plays"][6] = 17
    _expect_illegal(bad, "not a card")


def test_replaying_a_card_twice_is_rejected():
    rec = _record(2)
    bad = copy.deepcopy(rec)
    bad["plays"][4] = bad["plays"][0]
    _expect_illegal(bad, f"played {bad['plays'][0]}")


def test_domino_pass_while_able_is_rejected():
    for deal in range(5):
        rec = _record(6, deal=deal)
        bad = copy.deepcopy(rec)
        i = next(i for i, p in enumerate(bad["plays"]) if p != "pass")
        laid = bad["plays"][i]
        bad["plays"][i] = "pass"  # that seat could lay `laid`, so it may not pass
        msg = _expect_illegal(bad, "passed holding")
        assert laid in msg


# ---------------------------------------------------------------------------
# early stops (RULES.md §2.5, §4.5)
# ---------------------------------------------------------------------------
def _last_penalty_trick(rec: dict) -> int:
    """Number of plays after the trick in which the last penalty card was played."""
    pen = {card_str(c) for c in penalty_set(rec["contract"])}
    last = max(i for i, p in enumerate(rec["plays"]) if p in pen)
    return (last // 4 + 1) * 4


@pytest.mark.parametrize("variant_id", [1, 2, 3, 4])
def test_trick_trace_may_stop_once_every_penalty_card_is_taken(variant_id):
    checked = 0
    for deal in range(2000):
        rec = _record(variant_id, deal=deal, strategies=BASIC4)
        full = replay(rec)
        cut = _last_penalty_trick(rec)
        if cut == 52:
            continue
        checked += 1
        if checked == 5:
            break
        for n in range(cut, 53):  # any stop from the end of that trick on is fine
            assert replay(dict(rec, plays=rec["plays"][:n])) == full
        for n in (cut - 1, cut - 4):  # the last penalty card is not yet taken
            _expect_illegal(dict(rec, plays=rec["plays"][:n]), "trace ends")
    assert checked >= 5


@pytest.mark.parametrize("variant_id", [0, 5, 7, 11])
def test_trick_trace_without_penalty_cards_must_play_all_13_tricks(variant_id):
    rec = _record(variant_id)
    for n in (0, 4, 48, 51):
        _expect_illegal(dict(rec, plays=rec["plays"][:n]), "trace ends")


def test_domino_trace_may_stop_once_three_players_are_out():
    for deal in range(20):
        res = play_deal(5, deal, 6, RANDOM4, dealer=deal % 4)
        rec = to_record(res, 6, deal % 4)
        third_out = res["out_order"][2]
        # index of the play with which the third player went out: its last card
        idx = max(i for i, s in enumerate(res["seats"]) if s == third_out)
        for n in range(idx + 1, len(rec["plays"]) + 1):
            assert replay(dict(rec, plays=rec["plays"][:n])) == res["scores"]
        _expect_illegal(dict(rec, plays=rec["plays"][:idx]), "trace ends")


def test_parse_card_round_trip():
    for c in range(52):
        assert parse_card(card_str(c)) == c
        assert parse_card(card_str(c).lower()) == c
    assert parse_card("10H") == parse_card("TH") == 13 * 2 + 8
    assert card_str(parse_card("qs")) == "QS"
    for bad in ["", "1H", "11H", "QX", "Q", "QSS", "0H", None, 5]:
        with pytest.raises(ValueError):
            parse_card(bad)
