"""The ``advanced`` tier: legal under every ruleset option, deterministic, each rule of
docs/ENGINE.md firing on a hand-made position, and stake-aware under doubles."""

from __future__ import annotations

import numpy as np
import pytest

import bonken_sim
from bonken_sim._core import strategy_advanced as A
from bonken_sim._core import strategy_basic as B
from bonken_sim._core.expert import expert_workspace
from bonken_sim._core.ids import STRAT_ADVANCED
from bonken_sim._core.playout import play_staked
from bonken_sim._core.ruleset import (
    ACES_HIGH,
    BUKKEN,
    HARTENHEER,
    HARTENJAGEN,
    HERENBOEREN,
    VROUWEN,
    standard_table,
)
from bonken_sim.rules.names import VARIANTS, Strategy, parse_card, parse_variant
from tests import reference as ref
from tests.harness import check_invariants, play_batch
from tests.rules.test_house_rules_differential import RULESETS

ALL = (1 << 52) - 1
HEARTS = 0x1FFF << 26


def m(*cards: str) -> int:
    out = 0
    for c in cards:
        out |= 1 << parse_card(c)
    return out


def u(x: int) -> np.uint64:
    return np.uint64(x)


def rank_mask(*ranks: str) -> int:
    return m(*(r + s for r in ranks for s in "CDHS"))


def card(text: str) -> int:
    return parse_card(text)


SEATINGS = ["advanced", "advanced,basic,basic,basic", "basic,random,advanced,advanced"]


def test_strategy_id_is_shared_by_python_and_the_core():
    assert Strategy.ADVANCED == STRAT_ADVANCED == 2
    assert bonken_sim.play(1, 0, "vrouwen", "advanced").strategies == (Strategy.ADVANCED,) * 4


@pytest.mark.parametrize("seating", SEATINGS)
def test_every_advanced_play_replays_in_the_reference_under_the_standard_rules(seating):
    """tests/reference knows nothing of the advanced tier: its replay is an independent
    check that every card (and pass) is legal and the scores are right."""
    for d in range(25):
        for v in VARIANTS:
            p = bonken_sim.play(31, d, v, strategies=seating, dealer=d % 4)
            rec = p.record()
            assert ref.replay(rec) == p.scores, (v.name, d)
            assert bonken_sim.replay(rec) == p.scores


@pytest.mark.parametrize("option", list(RULESETS))
def test_every_advanced_play_is_legal_under_every_ruleset_option(option):
    rules, variants = RULESETS[option]
    for variant in variants:
        for d in range(12):
            seating = SEATINGS[d % len(SEATINGS)]
            p = bonken_sim.play(2024, d, variant, strategies=seating, dealer=d % 4, ruleset=rules)
            rec = p.record()
            assert rec["ruleset"] == rules.to_dict()
            assert ref.replay(rec) == p.scores, (option, variant, d)
            assert bonken_sim.replay(rec) == p.scores


@pytest.mark.parametrize("seating", ["advanced", "advanced,random,basic,advanced"])
def test_invariants_hold_on_many_advanced_deals(seating):
    check_invariants(play_batch(seed=2026, deals=20_000, strategies=seating))


def test_advanced_is_deterministic_and_batch_equals_single_deals():
    a = play_batch(seed=5, deals=300, strategies="advanced,basic,random,advanced", start=40)
    b = play_batch(seed=5, deals=300, strategies="advanced,basic,random,advanced", start=40)
    assert np.array_equal(a.scores, b.scores)
    for d in range(0, 300, 37):
        for v in VARIANTS:
            p = bonken_sim.play(5, 40 + d, v, "advanced,basic,random,advanced")
            assert p.scores == a.scores[d, v.id].tolist()


def test_advanced_differs_from_basic_where_its_rules_apply():
    adv = play_batch(seed=3, deals=400, strategies="advanced")
    bas = play_batch(seed=3, deals=400, strategies="basic")
    for name in ("hartenjagen", "herenboeren", "vrouwen", "hartenheer", "troeven_S"):
        v = parse_variant(name).id
        assert not np.array_equal(adv.scores[:, v], bas.scores[:, v]), name


# --------------------------------------------------------------------------------------------
# Hand-made positions: each advanced rule fires where basic plays something else.
# --------------------------------------------------------------------------------------------

PEN_HJ = HEARTS
PEN_VR = rank_mask("Q")
PEN_HB = rank_mask("K", "J")
TOP_HB = rank_mask("K")
KH = m("KH")


def test_clean_last_seat_sheds_the_high_card():
    H = m("AS", "3S", "5D")
    played = m("KS", "2S", "4S")
    L = m("AS", "3S")
    out = ALL & ~H & ~played
    args = (u(H), u(L), u(out), u(PEN_HJ), u(0), False, 3, card("KS"), 3, False, HARTENJAGEN)
    assert A.adv_neg_follow(*args) == card("AS")
    assert B.neg_follow(u(L), card("KS"), u(PEN_HJ), 3) == card("3S")  # basic ducks


def test_clean_last_seat_still_dumps_a_penalty_duck():
    H = m("QS", "AS", "5D")
    played = m("KS", "2S", "4S")
    L = m("QS", "AS")
    out = ALL & ~H & ~played
    args = (u(H), u(L), u(out), u(PEN_VR), u(PEN_VR), False, 3, card("KS"), 3, False, VROUWEN)
    assert A.adv_neg_follow(*args) == card("QS")


def test_force_feed_lead_of_a_queen_below_every_outstanding_spade():
    H = m("QS", "4D", "9C", "5H")
    played = m(*(r + "S" for r in "23456789TJ"))
    out = ALL & ~H & ~played
    c = A.adv_neg_lead(u(H), u(H), u(out), u(PEN_VR), u(PEN_VR), 0, 14, VROUWEN, False)
    assert c == card("QS")
    assert B.neg_lead(u(H), u(out), u(PEN_VR)) != card("QS")  # basic never leads a penalty


def test_drill_lead_under_an_outstanding_king():
    H = m("9S", "5S", "2C", "8H")
    out = ALL & ~H
    c = A.adv_neg_lead(u(H), u(H), u(out), u(PEN_HB), u(TOP_HB), 0, 14, HERENBOEREN, False)
    assert c == card("5S")  # the longest suit whose K/J sits above all my cards, led low
    assert B.neg_lead(u(H), u(out), u(PEN_HB)) == card("2C")


def test_safe_high_leads_the_highest_card_of_the_shortest_fresh_suit():
    H = m("AS", "KS", "2C", "3C", "9C", "2D", "3D", "4D")  # three fresh suits, no hearts
    out = ALL & ~H
    c = A.adv_neg_lead(u(H), u(H), u(out), u(PEN_HJ), u(0), 0, 14, HARTENJAGEN, False)
    assert c == card("AS")  # not KS (the lowest), 9C or 4D (longer suits)
    assert B.neg_lead(u(H), u(out), u(PEN_HJ)) == card("2C")  # basic exits low


SPADE_VOID_OF_SEAT_2 = 1 << (4 * 2 + 3)


@pytest.mark.parametrize(
    ("contract", "qs_out", "voids", "risky", "spades_played", "lead"),
    [
        (VROUWEN, False, 0, 14, "", "AS"),  # the control: Q♠ gone, spades fresh
        (VROUWEN, True, 0, 14, "", "2D"),  # the Q♠ is outstanding
        (HARTENJAGEN, False, SPADE_VOID_OF_SEAT_2, 14, "", "2D"),  # an opponent void in ♠
        (VROUWEN, False, SPADE_VOID_OF_SEAT_2, 14 & ~(1 << 2), "", "AS"),  # ...known clean
        (HARTENJAGEN, False, 0, 14, "23456", "2D"),  # 5 spades out, one short of fresh
        (BUKKEN, False, 0, 14, "", "2D"),  # never in bukken
    ],
    ids=["fires", "penalty-out", "void", "void-clean", "not-fresh", "bukken"],
)
def test_safe_high_needs_a_fresh_suit_without_risky_voids_or_penalty_cards_out(
    contract, qs_out, voids, risky, spades_played, lead
):
    """The spades are the only candidate suit (4 diamonds out, the Q♦ played): where the
    rule does not fire the lead is L4's, which here is basic's 2D."""
    H = m("AS", "KS", *(r + "D" for r in "23456789"))
    out = ALL & ~H & ~m("QD", *(r + "S" for r in spades_played))
    if not qs_out:
        out &= ~m("QS")
    pen = {VROUWEN: PEN_VR, HARTENJAGEN: PEN_HJ, BUKKEN: 0}[contract]
    top = PEN_VR if contract == VROUWEN else 0
    c = A.adv_neg_lead(u(H), u(H), u(out), u(pen), u(top), voids, risky, contract, False)
    assert c == card(lead)
    assert B.neg_lead(u(H), u(out), u(pen)) == card("2D")


def test_doomed_master_queen_is_taken_on_a_trick_won_anyway():
    H = m("QS", "JS", "4D")
    played = m("AS", "KS", "TS")
    L = m("QS", "JS")
    out = ALL & ~H & ~played
    args = (u(H), u(L), u(out), u(PEN_VR), u(PEN_VR), False, 3, card("TS"), 3, False, VROUWEN)
    assert A.adv_neg_follow(*args) == card("QS")
    assert B.neg_follow(u(L), card("TS"), u(PEN_VR), 3) == card("JS")


def test_king_of_hearts_holder_leads_high_from_the_shortest_side_suit():
    H = m("KH", "2H", "AS", "3C", "4C")
    L = H & ~HEARTS
    out = ALL & ~H
    c = A.adv_neg_lead(u(H), u(L), u(out), u(KH), u(KH), 0, 14, HARTENHEER, True)
    assert c == card("AS")
    assert B.neg_lead(u(L), u(out), u(KH)) != card("AS")


def test_king_of_hearts_holder_wins_side_tricks_and_dumps_the_king_at_the_first_void():
    H = m("KH", "3C", "QC", "4H")
    L = m("3C", "QC")
    out = ALL & ~H & ~m("5C")
    follow = (u(H), u(L), u(out), u(KH), u(KH), False, 1, card("5C"), 0, True, HARTENHEER)
    assert A.adv_neg_follow(*follow) == card("QC")
    assert B.neg_follow(u(L), card("5C"), u(KH), 1) == card("3C")
    H2 = m("KH", "4H", "5C")
    a_mask, a_pts = KH, -50
    c = A.adv_neg_discard(u(H2), u(ALL & ~H2), u(KH), u(KH), u(a_mask), a_pts, u(0), 0, 4, 0)
    assert c == card("KH")


def test_laatste_endgame_sheds_high_when_the_trick_is_won_anyway():
    H = m("KS", "QS", "3D")
    played = m("AS", "JS")
    L = m("KS", "QS")
    out = ALL & ~H & ~played
    assert A.adv_laatste(u(H), u(L), u(out), 1, 3, card("JS")) == card("KS")
    assert B.laatste_choice(u(H), u(L), u(out), 1, 3, card("JS")) == card("QS")


def test_laatste_shedding_discard_weighs_the_outstanding_cards_of_the_suit():
    H = m("KD", "QD", "JD", "TD", "9D", "8D", "QC")
    out = ALL & ~H & ~m("5S")
    c = A.adv_laatste(u(H), u(H), u(out), 1, 3, card("5S"))
    assert c == card("QC")  # 2·Q + 12 clubs out beats 2·K + 7 diamonds out
    assert B.laatste_choice(u(H), u(H), u(out), 1, 3, card("5S")) == card("KD")


def test_troeven_draws_trumps_with_the_master_trump_even_when_short():
    H = m("AS", "3S", "4D", "5D", "6C", "7H")
    out = ALL & ~H
    assert A.adv_troeven_lead(u(H), u(out), 3, 0, 0) == card("AS")
    assert B.troeven_lead(u(H), u(out), 3, 0, 0) != card("AS")


def test_troeven_leads_low_from_the_shortest_side_suit_while_holding_trumps():
    H = m("KS", "3S", "4D", "5D", "9D", "6C", "8C", "TC", "JC", "7H")
    out = ALL & ~H
    assert A.adv_troeven_lead(u(H), u(out), 3, 0, 0) == card("7H")
    assert B.troeven_lead(u(H), u(out), 3, 0, 0) == card("6C")


def test_troeven_ruffs_when_the_later_void_seat_has_no_trumps_either():
    H = m("3S", "9S", "4D", "8D")
    out = ALL & ~H & ~m("AC")
    voids = (1 << (4 * 2 + 0)) | (1 << (4 * 2 + 3))  # seat 2: void in clubs and spades
    later = 1 << 2
    args = (u(H), u(out), 3, voids, 1, 0, card("AC"), later)
    assert A.adv_troeven_void(*args, 0) == card("3S")
    assert B.troeven_void(*args) != card("3S")


def test_troeven_stake_ruffs_a_doubled_winner_despite_an_overruff_threat():
    H = m("3S", "9S", "4D", "8D")
    out = ALL & ~H & ~m("AC")
    voids = 1 << (4 * 2 + 0)  # seat 2 void in clubs, may hold spades
    args = (u(H), u(out), 3, voids, 1, 0, card("AC"), 1 << 2)
    assert A.adv_troeven_void(*args, 0) != card("3S")
    assert A.adv_troeven_void(*args, 1) == card("3S")


def test_domino_pass_inference_breaks_a_tie_away_from_a_stuck_opponent():
    H = m("9C", "9D")
    playable = m("9C", "9D", "7C", "7D", "8H", "8S")
    c0 = A.adv_domino_choice(u(H), u(H), 6, ACES_HIGH, u(playable), u(0))
    assert c0 == card("9C")  # basic's tie-break: the lowest card index
    c1 = A.adv_domino_choice(u(H), u(H), 6, ACES_HIGH, u(playable), u(m("TC")))
    assert c1 == card("9D")  # 9C would open the TC a stuck opponent may hold


def test_stake_flips_a_discard_onto_a_doubled_winner():
    """Low hearts under every outstanding heart are kept as exits, unless the trick's winner
    is doubled: then dumping one is worth twice its points."""
    H = m("2H", "3H", "AS", "2S", "4D", "7D", "3C", "4C")
    out = ALL & ~H
    args = (u(H), u(out), u(PEN_HJ), u(0), u(PEN_HJ), -5, u(0), 0, HARTENJAGEN)
    assert A.adv_neg_discard(*args, 0) == card("AS")
    assert A.adv_neg_discard(*args, 1) == card("3H")
    basic = B.neg_discard(u(H), u(out), u(PEN_HJ), u(0), u(PEN_HJ), -5, u(0), 0)
    assert basic == card("3H")


def _play_staked(seed, deal, v, strat, stake):
    """One deal played by the stake-aware kernel (basic and advanced seats only)."""
    table = standard_table()
    hands = np.zeros(4, np.uint64)
    hands[:] = bonken_sim.deal_hands(seed, deal)
    scores = np.zeros(4, np.int64)
    tricks = np.zeros(4, np.int64)
    order = np.zeros(4, np.int64)
    trace = np.zeros(256, np.int64)
    rnd = np.zeros(52, np.uint64)
    n = play_staked(
        table[v],
        hands,
        0,
        np.asarray(strat, np.int64),
        np.uint64(0),  # the play stream: no seat here is random
        rnd,
        scores,
        tricks,
        order,
        trace,
        np.asarray(stake, np.int64),
        expert_workspace(),
    )
    return trace[:n].tolist(), scores.tolist()


def test_stakes_change_advanced_play_and_never_basic_play():
    stake = np.zeros((4, 4), np.int64)
    stake[0, 1] = stake[1, 0] = 2
    changed = 0
    for d in range(150):
        base_adv = _play_staked(4, d, 1, [2, 1, 1, 1], np.zeros((4, 4)))
        adv = _play_staked(4, d, 1, [2, 1, 1, 1], stake)
        changed += base_adv != adv
        assert _play_staked(4, d, 1, [1, 1, 1, 1], stake) == _play_staked(
            4, d, 1, [1, 1, 1, 1], np.zeros((4, 4))
        )
    assert changed > 0
    # and the zero-stake kernel is exactly what plain play does
    p = bonken_sim.play(4, 7, "hartenjagen", "advanced,basic,basic,basic")
    assert _play_staked(4, 7, 1, [2, 1, 1, 1], np.zeros((4, 4)))[1] == p.scores


def test_bench_measures_the_advanced_tier(tmp_path):
    from click.testing import CliRunner

    from bonken_sim.cli import cli

    args = ["bench", "--deals", "2000", "--repeats", "1", "--threads", "1"]
    args += ["--strategies", "advanced", "--out", str(tmp_path)]
    args += ["--jobs", "none", "--solver-endings", "0", "--solver-deals", "0"]  # tested apart
    res = CliRunner().invoke(cli, [*args, "--json"])
    assert res.exit_code == 0, res.output
    import json

    doc = json.loads(res.stdout)
    assert list(doc["strategies"]) == ["advanced"]
    assert doc["strategies"]["advanced"]["all_variants_threads_1"] > 0


@pytest.mark.parametrize("value", ["clever", "basic,basic", ""])
def test_bench_rejects_unknown_or_repeated_strategies(value):
    from click.testing import CliRunner

    from bonken_sim.cli import cli

    res = CliRunner().invoke(cli, ["bench", "--strategies", value])
    assert res.exit_code == 2
    assert "--strategies must be distinct names" in res.output


def test_bukken_advanced_is_basic_card_for_card():
    adv = play_batch(seed=3, deals=2000, strategies="advanced", variants=[0])
    bas = play_batch(seed=3, deals=2000, strategies="basic", variants=[0])
    assert np.array_equal(adv.scores, bas.scores) and np.array_equal(adv.tricks, bas.tricks)
