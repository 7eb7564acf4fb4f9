"""Choice and doubling by search (``_core/game_search.py``): the profiles' switches, whole
games that settle, keep the rules and reproduce on any thread count, today's expert
unchanged with the switches off, and ``decide`` deciding with the game kernel's code."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from bonken_sim._core import decide_game as DG
from bonken_sim._core import game as G
from bonken_sim._core.deal import deal_into
from bonken_sim._core.game_search import doubles_from_search
from bonken_sim._core.ids import N_NEGATIVE
from bonken_sim._core.playout import kernel_table
from bonken_sim._core.rng import deal_state, seed_key
from bonken_sim._core.ruleset import F_CHOOSER_STARTS, standard_table
from bonken_sim._core.seat_value import value_tables
from bonken_sim.engine.decide import ChooseView, DoubleView, decide
from bonken_sim.engine.games import (
    DEALS_PER_GAME,
    PROFILES,
    model_arrays,
    play_games,
)
from bonken_sim.engine.strategies import ADAPTIVE_EXPERT
from bonken_sim.models.choice import load_models
from bonken_sim.rules.names import card_str, mask_cards
from tests.engine.test_games import _check_constraints

# play_games(6, 11, [0, 1, 0, 1], [<the fitted expert>, "advanced"], threads=1) before the
# searches existed (the profile was then called expert): with the switches off it plays
# exactly as it did.
EXPERT_DIGEST = "d12ee2cd837901a8"


def _digest(b) -> str:
    h = hashlib.sha256()
    for a in (b.variant, b.dbl, b.raw, b.final, b.totals):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def test_each_search_has_its_own_switch():
    fitted = (G.CHOICE_FITTED, G.DOUBLE_FITTED)
    assert (PROFILES["expert-fitted"].choice, PROFILES["expert-fitted"].doubling) == fitted
    assert (PROFILES["expert"].choice, PROFILES["expert"].doubling) == (
        G.CHOICE_SEARCH,
        G.DOUBLE_SEARCH,
    )
    assert (PROFILES["expert-choice"].choice, PROFILES["expert-choice"].doubling) == (
        G.CHOICE_SEARCH,
        G.DOUBLE_FITTED,
    )
    assert (PROFILES["expert-double"].choice, PROFILES["expert-double"].doubling) == (
        G.CHOICE_FITTED,
        G.DOUBLE_SEARCH,
    )
    # each search alone beside the plain expert's card play; the whole search profile plays
    # the expert with adaptive sampling
    for name in ("expert-choice", "expert-double"):
        assert PROFILES[name].card == PROFILES["expert-fitted"].card
    assert PROFILES["expert"].card == int(ADAPTIVE_EXPERT)


def test_the_expert_fitted_profile_is_unchanged():
    b = play_games(6, 11, np.array([0, 1, 0, 1]), ["expert-fitted", "advanced"], threads=1)
    assert _digest(b) == EXPERT_DIGEST


@pytest.fixture(scope="module")
def searched():
    return play_games(8, 9, np.array([0, 1, 0, 1]), ["expert", "advanced"], threads=1)


def test_searching_games_reproduce_on_any_thread_count_and_start(searched):
    two = play_games(8, 9, np.array([0, 1, 0, 1]), ["expert", "advanced"], threads=2)
    assert _digest(two) == _digest(searched)
    tail = play_games(3, 9, np.array([0, 1, 0, 1]), ["expert", "advanced"], start=5, threads=1)
    assert np.array_equal(tail.final, searched.final[5:])
    assert np.array_equal(tail.dbl, searched.dbl[5:])


def test_searching_games_keep_the_rules(searched):
    _check_constraints(searched)
    every = play_games(4, 12, np.zeros(4, np.int64), ["expert"], threads=2)
    _check_constraints(every)
    assert every.dbl.any()


def test_the_searches_change_decisions():
    """Each switch decides otherwise than the fitted models somewhere (a search that never
    did would be a switch that does nothing)."""
    seating = np.zeros(4, np.int64)
    base = play_games(6, 13, seating, ["expert-fitted"], threads=2)
    choice = play_games(6, 13, seating, ["expert-choice"], threads=2)
    double = play_games(6, 13, seating, ["expert-double"], threads=2)
    assert not np.array_equal(choice.variant, base.variant)
    assert np.array_equal(double.variant, base.variant)  # it chooses as the expert ...
    assert not np.array_equal(double.dbl, base.dbl)  # ... and doubles otherwise


def test_doubles_from_search_applies_the_fitted_rule():
    theta = np.zeros((12, 4))
    theta[0] = (1.0, 2.0, 10.0, 5.0)  # vs chooser, vs other, back (chooser), back (other)
    est = np.array([np.nan, 3.5, 1.8, 2.5])  # seat 0 (dealer 0, so seat 2 chooses)
    se = np.array([np.nan, 1.0, 1.0, 1.0])
    # seat 0 doubles seat 1 (3.5 > 2) and the chooser (1.8 > 1), not seat 3 (2.5 > 2, but
    # three doubles need every edge above θ_back: the least margin goes)
    assert doubles_from_search(0, 0, 0, 0, (est, se, 0.0), theta, True) == 0b0110
    # one standard error of margin: only seat 1 (3.5 - 1 > 2) clears it
    assert doubles_from_search(0, 0, 0, 0, (est, se, 1.0), theta, True) == 0b0010
    # the chooser only doubles back: seat 1 doubled him (bit 4·1 + 2), and 3 < θ_back 10
    est_c = np.array([4.0, 12.0, np.nan, 20.0])
    se_c = np.zeros(4)
    bits = 1 << (4 * 1 + 2)
    assert doubles_from_search(0, 2, 0, bits, (est_c, se_c, 0.0), theta, False) == 0b0010


def _cards(mask: int) -> list[str]:
    return [card_str(c) for c in mask_cards(int(mask))]


def test_the_kernel_searches_are_the_game_kernels(searched):
    """At every deal of the searching games, ``decide_game``'s kernels, given the deal's
    stream, choose and double exactly as the game did: the same code."""
    ma = model_arrays(load_models())
    vt = value_tables(ma.coef)
    table = kernel_table(standard_table())
    key = seed_key(9)
    deck, dealt = np.empty(52, np.int64), np.empty(4, np.uint64)
    code_c, code_d = PROFILES["expert"].choice, PROFILES["expert"].doubling
    for i in range(searched.n):
        g = searched.start + i
        neg, trump, had = (1 << N_NEGATIVE) - 1, 31, [False] * 4
        for k in range(DEALS_PER_GAME):
            dealer = (g + k) & 3
            chooser = (dealer + 2) & 3
            ds = np.uint64(deal_state(key, DEALS_PER_GAME * g + k))
            deal_into(ds, deck, dealt)
            v = int(searched.variant[i, k])
            free = (neg, trump, not had[chooser])
            if chooser in (0, 2):  # the searching seats
                relv, stats = np.zeros(12), np.zeros((2, 12))
                got = DG.decide_choice_search(
                    table, ds, k, dealt[chooser], dealer, (False, False), free,
                    (ma.mean, ma.bonus, ma.tau), np.int64(code_c), relv, stats,
                )  # fmt: skip
                assert got == v, (g, k)
            bits = 0
            for step in (3, 0, 1, 2):
                d = (dealer + step) & 3
                said = (int(searched.dbl[i, k]) >> (4 * d)) & 15
                if d in (0, 2):
                    model = (True, k, free, False, False, (ma.mean, ma.tau, vt))
                    est, se = np.zeros(4), np.zeros(4)
                    ok = DG.decide_doubles_search(
                        table, ds, v, d, dealer, dealt[d], bits,
                        (ma.theta, bool(table[0, F_CHOOSER_STARTS])), model, np.int64(code_d),
                        est, se,
                    )  # fmt: skip
                    assert ok == said, (g, k, d)
                bits |= said << (4 * d)
            if v < N_NEGATIVE:
                neg &= ~(1 << v)
            else:
                trump &= ~(1 << (v - N_NEGATIVE))
                had[chooser] = True


HAND = "AS 9S 5S KH 7H 3H QD JD 4D 2D TC 8C 6C"


def test_decide_chooses_by_search_reproducibly_with_its_values():
    view = ChooseView(dealer=0, seat=2, hand=HAND, deal=2, open=[
        "bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag",
        "domino"], had_troeven=True)  # fmt: skip
    one = decide(view, "expert", seed=4, explain=True)
    assert one == decide(view, "expert", seed=4, explain=True)
    assert one.contract in one.legal
    assert {w.option for w in one.weighed} == set(one.legal)
    assert all(w.se is not None and w.se > 0 for w in one.weighed)
    assert one.contract == one.weighed[0].option  # no troeven call to weigh against τ


def test_decide_doubles_by_search_with_edges_and_errors():
    view = DoubleView(dealer=0, seat=3, hand=HAND, contract="hartenjagen")
    d = decide(view, "expert", seed=2, explain=True)
    assert d == decide(view, "expert", seed=2, explain=True)
    assert {w.option for w in d.weighed} == set(d.legal) == {"0", "1", "2"}
    assert all(w.se is not None and w.se > 0 for w in d.weighed)
    assert set(map(str, d.doubles)) <= set(d.legal)
    # with the game's state the chooser's samples fit the choice; the chosen contract
    # must be among the open ones
    full = DoubleView(dealer=0, seat=3, hand=HAND, contract="hartenjagen", deal=0,
                      open=["hartenjagen", "bukken", "troeven_C"])  # fmt: skip
    assert decide(full, "expert", seed=2).legal == d.legal
    with pytest.raises(ValueError, match="open must hold"):
        decide(DoubleView(0, 3, HAND, "hartenjagen", deal=0, open=["bukken"]), "expert")


@pytest.mark.parametrize("fixed", [False, True])
def test_searching_games_keep_a_house_rulesets_rules(fixed):
    """Under domino_ace_or_two (and a fixed order) the searching seats choose and double
    only as the rules let them: nobody without an ace or a 2 doubles in Domino."""
    from bonken_sim.rules.rulesets import Ruleset

    rules = Ruleset(name="t", domino_ace_or_two=True, order="fixed" if fixed else "free")
    n, seed = 6, 21
    b = play_games(n, seed, np.zeros(4, np.int64), ["expert"], table=rules.table, fixed_order=fixed)
    _check_constraints(b, fixed)
    from bonken_sim.engine.play import deal_hands
    from bonken_sim.models.choice import holds_ace_or_two

    hands = np.array(
        [deal_hands(seed, DEALS_PER_GAME * g + k) for g in range(n) for k in range(11)],
        np.uint64,
    ).reshape(n, DEALS_PER_GAME, 4)
    has = holds_ace_or_two(hands)
    doubled = b.doubled()
    for g, k in zip(*np.nonzero(b.variant == 6), strict=True):
        for d in range(4):
            if doubled[g, k, d].any():
                assert has[g, k, d], (g, k, d)


def test_a_searching_chooser_starts_doubles_only_where_the_rules_let_him():
    from bonken_sim.rules.rulesets import Ruleset

    rules = Ruleset(name="t", chooser_doubles=True)
    b = play_games(8, 5, np.zeros(4, np.int64), ["expert"], table=rules.table)
    d = b.doubled()
    g = b.start + np.arange(b.n)
    chooser = (g[:, None] % 4 + np.arange(DEALS_PER_GAME)[None, :] + 2) % 4
    rows, cols = np.arange(b.n)[:, None], np.arange(DEALS_PER_GAME)[None, :]
    started = d[rows, cols, chooser] & ~d[rows, cols, :, chooser]
    assert started.any()  # he may start doubles here, and does
    assert np.all(b.final.sum(axis=2) == b.raw.sum(axis=2))


def test_a_policy_code_carries_the_searchs_settings():
    from bonken_sim._core.game_search import (
        DEFAULT_DOUBLE_SAMPLES,
        DOUBLE_Z,
        LATER_BIT,
        SAMPLES_SHIFT,
        Z_SHIFT,
        policy_later,
        policy_samples,
        policy_z,
    )

    plain = np.int64(G.DOUBLE_SEARCH)
    assert policy_samples(plain, DEFAULT_DOUBLE_SAMPLES) == DEFAULT_DOUBLE_SAMPLES
    assert policy_z(plain) == DOUBLE_Z and not policy_later(plain)
    code = np.int64(G.DOUBLE_SEARCH | (48 << SAMPLES_SHIFT) | (9 << Z_SHIFT) | (1 << LATER_BIT))
    assert policy_samples(code, DEFAULT_DOUBLE_SAMPLES) == 48
    assert policy_z(code) == 1.0 and policy_later(code)
    assert code & 0xFF == G.DOUBLE_SEARCH
