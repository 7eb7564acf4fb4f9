"""The reference replays the hand-worked fixture deals of tests/fixtures_hand.py."""

from __future__ import annotations

import copy

import pytest

from tests.core.fixtures_hand import FIXTURES
from tests.reference import IllegalPlay, parse_card, replay
from tests.reference.replay import replay_detail
from tests.reference.rules import DEAL_TOTAL

BY_NAME = {f["name"]: f for f in FIXTURES}


def test_every_contract_family_has_a_fixture():
    families = {(f["contract"], f["trump"] == "NT") for f in FIXTURES}
    for contract in DEAL_TOTAL:
        assert (contract, False) in families, contract
    assert ("troeven", True) in families


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_fixture_is_well_formed(fixture):
    cards = [parse_card(c) for h in fixture["hands"] for c in h]
    assert sorted(cards) == list(range(52)) and [len(h) for h in fixture["hands"]] == [13] * 4
    played = [parse_card(p) for p in fixture["plays"] if p != "pass"]
    assert sorted(played) == list(range(52))
    assert sum(fixture["scores"]) == DEAL_TOTAL[fixture["contract"]]
    if fixture["contract"] != "domino":
        assert sum(fixture["expected_tricks"]) == 13


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_fixture_replays_to_hand_worked_scores_and_tricks(fixture):
    detail = replay_detail(fixture)
    assert detail["scores"] == fixture["scores"]
    assert replay(fixture) == fixture["scores"]
    assert detail["tricks"] == fixture["expected_tricks"]
    assert detail["complete"]
    if fixture["contract"] == "domino":
        assert detail["out_order"] == fixture["expected_out_order"]


def _illegal(record: dict, message: str) -> None:
    with pytest.raises(IllegalPlay) as info:
        replay(record)
    assert str(info.value) == message


def test_heart_lead_ban_in_hartenjagen_fixture():
    # Seat 1 holds 2C and twelve hearts: leading a heart to trick 1 is illegal.
    rec = copy.deepcopy(BY_NAME["hartenjagen_lead_ban"])
    rec["plays"][0] = "2H"
    _illegal(rec, "trick 1: seat 1 played 2H to []; legal ['2C']")


def test_heart_lead_ban_in_hartenheer_fixture():
    # Seat 2 must lead AS before its hearts; in trick 2 it holds only hearts and may lead 2H.
    rec = copy.deepcopy(BY_NAME["hartenheer_forced_king"])
    rec["plays"][0], rec["plays"][4] = rec["plays"][4], rec["plays"][0]  # 2H first, AS second
    _illegal(rec, "trick 1: seat 2 played 2H to []; legal ['AS']")


def test_revoke_is_rejected_in_troeven_fixture():
    # Trick 3 (9S led by seat 3): seat 1 holds no spade, seat 2 must follow with a spade.
    rec = copy.deepcopy(BY_NAME["troeven_hearts_ruff_and_overruff"])
    i = rec["plays"].index("AS")
    rec["plays"][i] = "3H"  # seat 2 ruffs although it holds spades
    _illegal(
        rec,
        "trick 3: seat 2 played 3H to ['9S', '4C', 'QD']; "
        "legal ['3S', '4S', '5S', '6S', '7S', 'AS']",
    )


def test_domino_fixture_passes_and_early_stop():
    rec = BY_NAME["domino_held_eight"]
    # Round 1: seat 1 may not pass while holding 8S.
    bad = copy.deepcopy(rec)
    bad["plays"][0] = "pass"
    _illegal(bad, "seat 1 passed holding ['8S']")
    # Round 2: seat 1 cannot lay a diamond before 8D is down.
    bad = copy.deepcopy(rec)
    bad["plays"][4] = "9D"
    _illegal(bad, "seat 1 played 9D; legal []")
    # After round 13 three players are out: the trace may stop there, same scores.
    assert rec["plays"][:52].count("pass") == 12
    assert replay(dict(rec, plays=rec["plays"][:52])) == rec["scores"]
    with pytest.raises(IllegalPlay):
        replay(dict(rec, plays=rec["plays"][:51]))  # seat 0 still holds 2C


def test_nt_fixture_with_clubs_as_trumps_changes_who_leads():
    # The same plays under troeven C.  Tricks 1-4 go as in NT (tricks 1 and 3 are club
    # tricks, tricks 2 and 4 spade tricks without a club).  In trick 5 (6S 6C TD TH) seat
    # 0's discard 6C is now a ruff and wins, so seat 0 must lead trick 6, but the trace
    # has seat 3's 7S next: seat 0 does not hold 7S.
    rec = dict(BY_NAME["troeven_nt_discarded_aces"], trump="C")
    _illegal(
        rec,
        "trick 6: seat 0 played 7S to []; legal ['7C', '8C', '9C', 'AC', 'JC', 'KC', 'QC', 'TC']",
    )
    # Truncated after trick 5 the trace is incomplete (every trick scores in troeven).
    with pytest.raises(IllegalPlay, match="trace ends"):
        replay(dict(rec, plays=rec["plays"][:20]))


def test_laatste_slag_fixture_scored_as_bukken():
    # Same plays under bukken: 12 tricks for seat 0, 1 for seat 3.
    rec = dict(BY_NAME["laatste_slag_last_spade"], contract="bukken")
    assert replay(rec) == [-60, 0, 0, -5]
