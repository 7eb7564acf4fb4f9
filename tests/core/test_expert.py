"""The expert tier: legal play under every ruleset (checked by the pure-Python reference),
reproducible across threads and chunks, and stronger than advanced where it must be."""

from __future__ import annotations

import numpy as np
import pytest

import bonken_sim
from bonken_sim.engine.selfplay import self_play
from bonken_sim.engine.strategies import (
    STRONGEST_EXPERT,
    Expert,
    parse_strategies,
    strategy_array,
    strategy_names,
)
from bonken_sim.rules.names import VARIANTS, Strategy
from bonken_sim.rules.rulesets import PRESETS, STANDARD, Ruleset
from tests import reference as ref

RULESETS = {
    "standard": STANDARD,
    "strict": PRESETS["strict"],
    "bierkaart": PRESETS["bierkaart"],
    "aces-7": Ruleset(name="t", domino_aces="first-fixes", domino_open=7),
}
# Small searches keep the test quick; E = 2 puts the solver's endings in play too.
TABLES = {
    "one-expert": "expert:3:0,advanced,advanced,advanced",
    "mixed": "expert:3:2,random,expert:2:0,basic",
    # inference on (2 and 1 candidates per sample, the second with a 30% noisy model)
    "inferring": "expert:3:0:2,advanced,expert:2:1:1:30,basic",
}


@pytest.mark.parametrize("table", list(TABLES))
@pytest.mark.parametrize("name", list(RULESETS))
def test_expert_play_is_legal_in_every_variant(name: str, table: str) -> None:
    rules = RULESETS[name]
    for variant in VARIANTS:
        for d in range(3):
            p = bonken_sim.play(
                seed=11, deal=d, variant=variant, strategies=TABLES[table], dealer=d % 4,
                ruleset=rules,
            )  # fmt: skip
            rec = p.record()
            assert ref.replay(rec) == p.scores, (name, variant.name, d)
            assert bonken_sim.replay(rec) == p.scores


@pytest.mark.parametrize(
    "strategies", ["expert:4:1,advanced,random,basic", "expert:4:0:2,advanced,random,expert:3:1:1"]
)
def test_expert_play_is_the_same_on_any_threads_and_chunks(strategies: str) -> None:
    one = self_play(8, 5, strategies, threads=1)
    two = self_play(8, 5, strategies, threads=2)
    assert np.array_equal(one.scores, two.scores)
    head = self_play(3, 5, strategies, threads=1)
    tail = self_play(5, 5, strategies, threads=2, start=3)
    assert np.array_equal(np.concatenate([head.scores, tail.scores]), one.scores)


def test_expert_plays_differently_from_advanced() -> None:
    """The search, not the advanced card it breaks ties with, decides."""
    exp = self_play(6, 3, "expert:8:0,advanced,advanced,advanced", threads=1)
    adv = self_play(6, 3, "advanced", threads=1)
    assert not np.array_equal(exp.scores, adv.scores)


def test_strategy_names_and_codes_round_trip() -> None:
    strats = parse_strategies("expert:32:2,expert,advanced,expert:16:0")
    assert strats[0] == Expert(32, 2)
    # the bare name: the strongest card play; the kernel's defaults: the tier itself
    assert strats[1] == STRONGEST_EXPERT and strats[3] is Strategy.EXPERT
    assert strategy_names(strats) == "expert:32:2,expert,advanced,expert:16:0"
    assert parse_strategies(strategy_names(strats)) == strats
    assert parse_strategies("expert:24:0:1:100")[0] == STRONGEST_EXPERT
    codes = strategy_array(strats)
    assert codes[3] == int(Strategy.EXPERT) and codes[1] == int(STRONGEST_EXPERT)
    assert codes[0] & 0xFF == int(Strategy.EXPERT) and codes[0] != codes[3]
    # inference settings: I candidates per sample, N percent noise (shown when not 10)
    inferring = parse_strategies("expert:16:0:4,expert:8:1:2:25,expert:16:0:0:30,expert:16:0:0")
    assert inferring[0] == Expert(16, 0, 4) and inferring[1] == Expert(8, 1, 2, 25)
    assert inferring[3] is Strategy.EXPERT
    assert strategy_names(inferring) == "expert:16:0:4,expert:8:1:2:25,expert:16:0:0:30,expert:16:0"
    assert parse_strategies(strategy_names(inferring)) == inferring
    assert len({int(s) for s in inferring}) == 4


def test_inference_plays_differently_from_the_plain_search() -> None:
    """The weighed samples, not only the search, decide: the same K with inference on plays
    other cards on some deals."""
    plain = self_play(6, 3, "expert:8:0,advanced,advanced,advanced", threads=1)
    infer = self_play(6, 3, "expert:8:0:2,advanced,advanced,advanced", threads=1)
    assert not np.array_equal(plain.scores, infer.scores)


@pytest.mark.parametrize(
    "bad",
    [
        "expert:0:0",
        "expert:8:14",
        "expert:x",
        "expert:8:-1",
        "expert:8:0:33",
        "expert:8:0:-1",
        "expert:8:0:2:0",
        "expert:8:0:2:101",
        "expert:8:0:2:10:1",
    ],
)
def test_bad_expert_settings_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="expert"):
        parse_strategies(bad)


@pytest.mark.parametrize("variant", ["hartenjagen", "laatste_slag", "troeven_NT"])
def test_one_expert_beats_advanced_where_its_gain_is_large(variant: str) -> None:
    """One expert among three advanced, in each seat in turn on the same 300 deals: its mean
    score beats the seat average (an advanced player's in the same seat) by over 4 SE."""
    from bonken_sim.engine.deals import play_deal_columns
    from bonken_sim.rules.names import parse_variant

    v = parse_variant(variant).id
    deals = 300
    gains = np.zeros(deals)
    for seat in range(4):
        strategies = ["advanced"] * 4
        strategies[seat] = "expert:8:0"
        codes = tuple(int(c) for c in strategy_array(parse_strategies(strategies)))
        cols = play_deal_columns(17, 0, deals, 0, (v,), codes, STANDARD.table)
        scores = cols.scores[:, 0, :].astype(np.float64)  # (seat, deal)
        gains += scores[seat] - scores.sum(axis=0) / 4
    gains /= 4
    se = gains.std(ddof=1) / np.sqrt(deals)
    assert gains.mean() > 4 * se, f"{variant}: {gains.mean():+.2f} ± {se:.2f}"


def _runs_reference(legal: list[int], hand: set[int], gone: set[int], pen: set[int]):
    """The runs of equivalent cards by their definition: neighbours in ``legal`` (ascending)
    of one suit join a run when neither carries points and every card between them is held
    or gone."""
    runs: list[list[int]] = []
    for c in sorted(legal):
        if runs:
            last = runs[-1][-1]
            between = set(range(last + 1, c))
            if (
                last // 13 == c // 13
                and last not in pen
                and c not in pen
                and between <= hand | gone
            ):
                runs[-1].append(c)
                continue
        runs.append([c])
    return runs


def _mask(cards) -> np.uint64:
    return np.uint64(sum(1 << int(c) for c in cards))


def test_runs_of_equivalent_cards_match_their_definition() -> None:
    from bonken_sim._core.expert import run_of, run_starts

    rng = np.random.default_rng(7)
    for _ in range(2000):
        cards = rng.permutation(52)
        hand = set(cards[:13].tolist())
        gone = set(cards[13 : 13 + rng.integers(0, 36)].tolist())
        points = {c for c in range(52) if rng.random() < 0.2}
        suit = int(rng.integers(4))
        legal = [c for c in hand if c // 13 == suit] or sorted(hand)
        runs = _runs_reference(legal, hand, gone, points)
        starts = np.uint64(run_starts(_mask(legal), _mask(hand), _mask(gone), _mask(points)))
        assert starts == _mask(run[0] for run in runs), sorted(legal)
        assert all(run_of(starts, c) == run[0] for run in runs for c in run)


def test_an_adaptive_seat_rolls_out_one_card_of_each_run_but_the_advanced_cards() -> None:
    from bonken_sim._core.expert import distinct_cards, share_runs
    from bonken_sim._core.playout import kernel_table

    vrouwen = next(v for v in VARIANTS if v.name == "vrouwen")
    row = kernel_table(STANDARD.table[vrouwen.id])
    # spades are cards 39 (2♠) .. 51 (A♠): held 2♠ 3♠ 4♠ 6♠ 9♠ Q♠ K♠ with the 5♠ gone
    # in a finished trick and the 7♠ on this one: runs 2♠-6♠, 9♠, Q♠ (the queens carry
    # points in vrouwen, so it joins no run) and K♠
    hand = _mask({39, 40, 41, 43, 46, 49, 50})
    played, trick = _mask({42, 44}), _mask({44})
    assert distinct_cards(row, hand, 39, hand, played, trick) == _mask({46, 49, 50})
    assert distinct_cards(row, hand, 41, hand, played, trick) == _mask({46, 49, 50})
    assert distinct_cards(row, hand, 46, hand, played, trick) == _mask({39, 49, 50})
    # the 7♠ gone in a finished trick, the 8♠ held: 2♠ .. 9♠ are one run
    hand |= _mask({45})
    assert distinct_cards(row, hand, 50, hand, _mask({42, 44}), np.uint64(0)) == _mask({39, 49})
    # a view's explanation lists every card: each takes its stand-in's figures
    diffs = np.zeros((3, 52), np.int64)
    diffs[:, 41] = (-70, 4900, 8)  # the advanced card's own score
    diffs[:, 49] = (-30, 500, 8)
    diffs[:, 50] = (10, 90, 5)
    share_runs(row, hand, 41, hand, _mask({42, 44}), np.uint64(0), diffs)
    for c in (39, 40, 43, 45, 46):
        assert list(diffs[:, c]) == [0, 0, 8]
    assert list(diffs[:, 49]) == [-30, 500, 8] and list(diffs[:, 50]) == [10, 90, 5]
