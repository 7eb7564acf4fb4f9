"""Full games in the core: the kernel against a Python composition of the same rules, and the
constraints of RULES.md §5–§6 on many games."""

from __future__ import annotations

import numpy as np
import pytest

from bonken_sim._core.ruleset import F_TOTAL, standard_table
from bonken_sim.engine.games import (
    DEALS_PER_GAME,
    PAIRS,
    PROFILES,
    GameError,
    GamePlayer,
    parse_profiles,
    play_games,
    ranks,
)
from bonken_sim.engine.play import deal_hands, play
from bonken_sim.models import choice as C
from bonken_sim.models import doubling as D
from bonken_sim.rules import doubling as R

NAMES = C.NAMES
TOTALS = standard_table()[:, F_TOTAL]
BASIC = np.zeros(4, np.int64)


def _turns_left(d0: int, k: int, chooser: int) -> int:
    return sum(1 for j in range(k, DEALS_PER_GAME) if (d0 + j + 2) % 4 == chooser)


def _python_game(seed, g, profiles, models, fixed_order=False, doubling=True, ruleset=None):
    """The same game composed from the Python specification (choice, doubling, settle).
    ``ruleset``: a house Ruleset (its point values, domino_ace_or_two, chooser_doubles)."""
    ace_or_two = ruleset is not None and ruleset.domino_ace_or_two
    chooser_starts = ruleset is not None and ruleset.chooser_doubles
    d0 = g % 4
    neg_free, trump_free, had = set(NAMES[:7]), list(NAMES[7:]), [False] * 4
    rows = []
    for k in range(DEALS_PER_GAME):
        dealer = (d0 + k) % 4
        chooser = (dealer + 2) % 4
        deal = DEALS_PER_GAME * g + k
        hands = np.array(deal_hands(seed, deal), np.uint64)
        turns = _turns_left(d0, k, chooser)
        prof = PROFILES[profiles[chooser]]
        assert prof.choice == 1, "the composition covers fitted choice only"
        if fixed_order:
            avail = [NAMES[k]] if k < 7 else [t for t in NAMES[7:] if t in trump_free]
            v = C.choose(
                models, hands[chooser : chooser + 1], 2, avail, domino_ace_or_two=ace_or_two
            )[0]
        else:
            avail = [n for n in NAMES if n in neg_free or n in trump_free]
            h = hands[chooser : chooser + 1]
            v = C.choose(models, h, 2, avail, had[chooser], turns, ace_or_two)[0]
        if v in neg_free:
            neg_free.discard(v)
        else:
            trump_free.remove(v)
            had[chooser] = True
        doubled = np.zeros((1, 4, 4), bool)
        if doubling:
            barred = D.barred_seats(hands[None, :], v, ace_or_two)
            # a never-doubling seat changes what the others may double back
            barred[:, [PROFILES[p].doubling == 0 for p in profiles]] = True
            doubled = D.doubles(models, hands[None, :], v, dealer, barred, chooser_starts)
        tiers = ("random", "basic", "advanced")
        strategies = ",".join(tiers[PROFILES[p].card] for p in profiles)
        raw = np.array(play(seed, deal, v, strategies, dealer, ruleset=ruleset).scores)
        final = R.settle(raw[None, :], R.multiplicity(doubled))[0]
        rows.append((NAMES.index(v), doubled[0], raw, final))
    return rows


@pytest.mark.parametrize(
    "profiles, fixed_order, doubling",
    [
        (["basic"] * 4, False, True),
        (["basic", "basic-nodouble", "basic", "basic-nodouble"], False, True),
        (["basic"] * 4, True, True),
        (["basic"] * 4, False, False),
        # Without doubles every stake is 0, so advanced play is the plain advanced tier.
        (["advanced", "basic", "advanced", "basic"], False, False),
    ],
)
def test_kernel_games_equal_the_python_composition(profiles, fixed_order, doubling):
    models = C.load_models()
    seed, n = 31, 40
    b = play_games(
        n,
        seed,
        np.arange(4),
        profiles,
        fixed_order=fixed_order,
        doubling=doubling,
        start=5,
    )
    doubled = b.doubled()
    for i in range(n):
        rows = _python_game(seed, 5 + i, profiles, models, fixed_order, doubling)
        for k, (v, dbl, raw, final) in enumerate(rows):
            where = f"game {5 + i} deal {k}"
            assert b.variant[i, k] == v, where
            assert np.array_equal(doubled[i, k], dbl), where
            assert b.raw[i, k].tolist() == raw.tolist(), where
            assert b.final[i, k].tolist() == final.tolist(), where
        assert b.totals[i].tolist() == b.final[i].sum(axis=0).tolist()


def test_advanced_play_in_games_weighs_the_doubles():
    """The game kernel hands each deal's doubling matrix to card play: a deal without doubles
    is the plain advanced play, and some deals with doubles are played differently."""
    seed, n = 12, 300
    b = play_games(n, seed, np.arange(4), ["advanced"] * 4, threads=2)
    dbl = b.doubled()
    changed = 0
    for i in range(n):
        for k in range(DEALS_PER_GAME):
            dealer = (i + k) % 4
            plain = play(seed, DEALS_PER_GAME * i + k, NAMES[b.variant[i, k]], "advanced", dealer)
            same = b.raw[i, k].tolist() == plain.scores
            if not dbl[i, k].any():
                assert same, f"game {i} deal {k}"
            changed += not same
    assert changed > 0


def test_seat_values_equal_the_numpy_models():
    """The core's per-card value tables give every seat's fitted expected score in every
    variant as the numpy specification computes it (features @ coefficients), to rounding."""
    from bonken_sim._core.seat_value import seat_value, seat_values, value_tables
    from bonken_sim.engine.games import model_arrays
    from bonken_sim.rules.names import parse_hand

    models = C.load_models()
    vt = value_tables(model_arrays(models).coef)
    hands = np.array([deal_hands(3, d) for d in range(300)], np.uint64).reshape(-1)
    # hands with the voids, singletons, long suits and bare honours deals rarely give
    odd = ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "KC 2C QD JH 3H AS KS QS JS TS 9S 8S 7S")
    hands = np.concatenate([hands, np.array([parse_hand(t) for t in odd], np.uint64)])
    out = np.empty(12)
    for rel in range(4):
        ref = C.expected_scores(models, hands, rel)
        assert np.ptp(ref, axis=0).min() > 1.0  # hands that tell the variants apart
        for i, h in enumerate(hands):
            seat_values(h, rel, vt, out)
            assert np.allclose(out, ref[i], rtol=0, atol=1e-9), (rel, i)
            one = [seat_value(h, v, rel, vt) for v in range(12)]
            assert np.allclose(one, ref[i], rtol=0, atol=1e-9), (rel, i)


def test_value_tables_map_every_feature():
    """With random coefficients on every feature (the shipped models leave some at zero), the
    tables give features @ coefficients, the features from bonken_sim.models.features."""
    from bonken_sim._core.seat_value import seat_value, value_tables
    from bonken_sim.engine.games import BASE_FEATURES, FULL_FEATURES, TRUMP_FEATURES
    from bonken_sim.models.features import base_features, trump_features

    coef = np.random.default_rng(8).normal(size=(12, 4, len(FULL_FEATURES)))
    vt = value_tables(coef)
    hands = np.array([deal_hands(6, d) for d in range(100)], np.uint64).reshape(-1)
    x = np.zeros((len(hands), 12, len(FULL_FEATURES)))
    x[:, :, 0] = 1.0
    base = base_features(hands)
    for j, name in enumerate(BASE_FEATURES):
        x[:, :, 1 + j] = base[name][:, None]
    for t in range(4):  # troeven with suit t is variant 7 + t; NT has no trump features
        tf = trump_features(hands, t)
        for name in TRUMP_FEATURES:
            x[:, 7 + t, FULL_FEATURES.index(name)] = tf[name]
    for rel in range(4):
        ref = np.einsum("nvf,vf->nv", x, coef[:, rel, :])
        got = [[seat_value(h, v, rel, vt) for v in range(12)] for h in hands]
        assert np.allclose(got, ref, rtol=0, atol=1e-9), rel


@pytest.fixture(scope="module")
def many():
    return play_games(100_000, 2026, BASIC, ["basic"], threads=2)


def _check_constraints(b, fixed_order=False):
    n = b.n
    v = b.variant.astype(np.int64)
    for c in range(7):  # every negative exactly once
        assert np.all((v == c).sum(axis=1) == 1), f"negative {NAMES[c]}"
    trumps = v >= 7
    assert np.all(trumps.sum(axis=1) == 4)
    for t in range(7, 12):  # a trump option at most once
        assert np.all((v == t).sum(axis=1) <= 1)
    g = b.start + np.arange(n)
    k = np.arange(DEALS_PER_GAME)
    chooser = (g[:, None] % 4 + k[None, :] + 2) % 4
    for p in range(4):  # each player calls troeven exactly once
        assert np.all((trumps & (chooser == p)).sum(axis=1) == 1), f"seat {p}"
    if fixed_order:
        assert np.all(v[:, :7] == np.arange(7))
    d = b.doubled()
    rows = np.arange(n)[:, None]
    cols = np.arange(DEALS_PER_GAME)[None, :]
    by_chooser = d[rows, cols, chooser]  # (n, 11, 4): whom the chooser doubled
    of_chooser = d[rows, cols, :, chooser]  # who doubled the chooser
    assert not np.any(by_chooser & ~of_chooser), "the chooser initiated a double"
    assert not np.any(d[..., np.arange(4), np.arange(4)])
    assert np.all(b.totals.sum(axis=1) == 0)
    assert np.all(b.raw.sum(axis=2) == TOTALS[v])
    assert np.all(b.final.sum(axis=2) == TOTALS[v])


def test_constraints_hold_in_100k_games(many):
    _check_constraints(many)
    assert many.dbl.any(), "the fitted policy doubles sometimes"


def test_constraints_hold_for_random_profiles_and_fixed_order():
    b = play_games(20_000, 7, BASIC, ["random"])
    _check_constraints(b)
    assert not b.dbl.any(), "random profiles never double"
    share = np.bincount(b.variant.ravel(), minlength=12) / b.variant.size
    assert share.min() > 0.04  # every variant occurs under random choice
    _check_constraints(play_games(5000, 8, BASIC, ["basic"], fixed_order=True), True)


def test_the_doubling_pass_order_lets_later_seats_double_back():
    """A seat can double back only someone earlier in the pass: D+3 never doubles back."""
    b = play_games(20_000, 9, BASIC, ["basic"])
    d = b.doubled()
    g = b.start + np.arange(b.n)
    first = (g[:, None] % 4 + np.arange(DEALS_PER_GAME)[None, :] + 3) % 4  # seat D+3
    rows, cols = np.arange(b.n)[:, None], np.arange(DEALS_PER_GAME)[None, :]
    # m = 2 with the first doubler means he doubled and was doubled back, never the reverse
    # order: his double needs no earlier double on him (there is none) ...
    assert d[rows, cols, first].any(), "the first doubler doubles sometimes"
    # ... and the chooser (last) doubles back some doubles on him
    chooser = (first + 3) % 4
    assert (d[rows, cols, chooser] & d[rows, cols, :, chooser]).any()


def test_results_do_not_depend_on_threads_or_start():
    a = play_games(3000, 5, BASIC, ["basic"], threads=1)
    b = play_games(3000, 5, BASIC, ["basic"], threads=2)
    c = play_games(1000, 5, BASIC, ["basic"], start=2000, threads=2)
    for name in ("variant", "dbl", "raw", "final", "totals"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert np.array_equal(getattr(a, name)[2000:], getattr(c, name)), name


def test_a_player_plays_rows_in_any_order_and_slicing_as_play_games():
    seating = np.array([np.roll(np.arange(4), g % 4) for g in range(600)])
    profiles = ["advanced", "basic", "random", "basic-nodouble"]
    whole = play_games(600, 8, seating, profiles, start=300, threads=2)
    player = GamePlayer(8, profiles)
    b = player.batch(300, 600, seating)
    assert player.slices(600, 2) == [(lo, min(600, lo + 75)) for lo in range(0, 600, 75)]
    for lo, hi in [(450, 600), (0, 7), (7, 450)]:  # out of order, uneven
        player.play(b, lo, hi)
    for name in ("variant", "dbl", "raw", "final", "totals", "profiles"):
        assert np.array_equal(getattr(b, name), getattr(whole, name)), name


@pytest.mark.parametrize(
    "code, message",
    [("ERR_NOT_ZERO", "do not sum to its contracts' totals"), ("ERR_NO_CONTRACT", "no legal")],
)
def test_a_game_the_core_rejects_is_an_error(monkeypatch, code, message):
    from bonken_sim._core import game as G

    monkeypatch.setattr(G, "play_games", lambda *args: getattr(G, code))
    with pytest.raises(GameError, match=message):
        play_games(10, 1, BASIC, ["basic"], threads=2)


def test_multiplicity_counts_the_directions_doubled_between_each_pair():
    b = play_games(500, 2, BASIC, ["basic"], threads=1)
    d = b.doubled()
    m = b.multiplicity()
    assert m.dtype == np.int8 and m.shape == (500, DEALS_PER_GAME, len(PAIRS))
    for j, (x, y) in enumerate(PAIRS):
        assert np.array_equal(m[..., j], d[..., x, y].astype(np.int8) + d[..., y, x])
    assert m.max() == 2  # some pair doubled both ways in 500 basic games
    for j, column in enumerate(b.pair_multiplicity()):  # the per-pair columns a run writes
        assert column.dtype == np.int8 and np.array_equal(column, m[..., j])


def test_ranks_share_ties():
    t = np.array([[10, 10, -5, -15], [0, 0, 0, 0], [3, 2, 1, 0]])
    assert ranks(t).tolist() == [[1, 1, 3, 4], [1, 1, 1, 1], [1, 2, 3, 4]]
    many = np.random.default_rng(4).integers(-3, 4, size=(2000, 4))  # ties of every kind
    ahead = (many[:, None, :] > many[:, :, None]).sum(axis=2)  # [g, p, q]: q above p
    assert np.array_equal(ranks(many), 1 + ahead)


def test_the_fitted_choice_takes_the_first_best_legal_variant():
    from bonken_sim._core.game import best_legal

    relv = np.array([3.0, 5.0, 5.0, -1.0, 9.0, 0.0, 2.0, 7.0, 1.0, 7.0, -2.0, 4.0])
    assert best_legal(relv, 0b1111111, 0, 7) == 4
    assert best_legal(relv, 0b0000110, 0, 7) == 1  # a tie goes to the first
    assert best_legal(relv, 0b1101111, 0, 7) == 1  # the best is not legal
    assert best_legal(relv, 0b01000, 0, 7) == 3  # the only legal one, however bad
    assert best_legal(relv, 0, 0, 7) == -1
    assert best_legal(relv, 0b11111, 7, 12) == 7  # trump options: bit v - 7
    assert best_legal(relv, 0b11100, 7, 12) == 9


def test_profiles_parse_and_errors():
    assert parse_profiles("basic") == ["basic"] * 4
    assert parse_profiles("basic,random,basic,random")[1] == "random"
    with pytest.raises(ValueError, match="unknown profile 'clever'"):
        parse_profiles("basic,clever,basic,basic")
    with pytest.raises(ValueError, match="give one profile or 4"):
        parse_profiles("basic,random")
    assert issubclass(GameError, RuntimeError)


def test_games_under_a_house_ruleset_use_its_table():
    from bonken_sim.rules.rulesets import preset

    rules = preset("double-points")
    b = play_games(500, 12, BASIC, ["basic"], table=rules.table)
    v = b.variant.astype(np.int64)
    totals = rules.table[:, F_TOTAL]
    assert np.all(b.raw.sum(axis=2) == totals[v])  # the doubled contract totals
    assert np.all(b.final.sum(axis=2) == totals[v])
    assert np.all(b.totals.sum(axis=1) == totals[v].sum(axis=1))
    assert not np.array_equal(totals, TOTALS)
    std = play_games(500, 12, BASIC, ["basic"])
    assert not np.array_equal(std.raw, b.raw)


def _ace_or_two_rules(fixed: bool = False):
    from bonken_sim.rules.rulesets import Ruleset

    return Ruleset(name="t", domino_ace_or_two=True, order="fixed" if fixed else "free")


@pytest.mark.parametrize("fixed_order", [False, True])
def test_domino_only_with_an_ace_or_a_two_kernel_equals_the_python_composition(fixed_order):
    rules = _ace_or_two_rules(fixed_order)
    models = C.load_models()
    profiles = ["basic", "basic", "basic-nodouble", "basic"]
    seed, n = 8, 60
    b = play_games(
        n, seed, np.arange(4), profiles, fixed_order=fixed_order, table=rules.table, start=3
    )
    std = play_games(n, seed, np.arange(4), profiles, fixed_order=fixed_order, start=3)
    if not fixed_order:  # the rule changes choices, and in both orders doubles: not vacuous
        assert (b.variant != std.variant).any()
    assert (b.dbl != std.dbl).any()
    doubled = b.doubled()
    for i in range(n):
        rows = _python_game(seed, 3 + i, profiles, models, fixed_order, True, rules)
        for k, (v, dbl, raw, final) in enumerate(rows):
            where = f"game {3 + i} deal {k}"
            assert b.variant[i, k] == v, where
            assert np.array_equal(doubled[i, k], dbl), where
            assert b.raw[i, k].tolist() == raw.tolist(), where
            assert b.final[i, k].tolist() == final.tolist(), where


@pytest.mark.parametrize("profile", ["basic", "random"])
def test_domino_only_with_an_ace_or_a_two(profile):
    """Who chooses Domino holds an ace or a 2 unless nothing else was open to him; nobody
    without one doubles in it; and the rule changes some games (so the check is not empty)."""
    rules = _ace_or_two_rules()
    n, seed = 3000, 21
    b = play_games(n, seed, BASIC, [profile], table=rules.table)
    std = play_games(n, seed, BASIC, [profile])
    assert not np.array_equal(b.variant, std.variant)
    _check_constraints(b)
    hands = np.array(
        [deal_hands(seed, DEALS_PER_GAME * g + k) for g in range(n) for k in range(11)],
        np.uint64,
    ).reshape(n, DEALS_PER_GAME, 4)
    has = C.holds_ace_or_two(hands)
    games, deals = np.nonzero(b.variant == 6)
    dealer = (games + deals) % 4
    chooser = (dealer + 2) % 4
    lacking = ~has[games, deals, chooser]
    doubled = b.doubled()
    forced = 0
    for g, k, c in zip(games[lacking], deals[lacking], chooser[lacking], strict=True):
        # he chose Domino without an ace or a 2: it must have been his only open contract
        played = set(b.variant[g, :k].tolist())
        negs_left = [v for v in range(7) if v not in played]
        turns = [j for j in range(k, DEALS_PER_GAME) if (g + j + 2) % 4 == c]
        had_trump = any(b.variant[g, j] >= 7 for j in range(k) if (g + j + 2) % 4 == c)
        assert negs_left == [6] and had_trump and turns, (g, k)
        forced += 1
    for g, k in zip(games, deals, strict=True):
        for d in range(4):
            if doubled[g, k, d].any():
                assert has[g, k, d], (g, k, d)
    assert len(games) > 0
    assert forced < len(games) // 4
    if profile == "basic":
        assert doubled[games, deals].any()  # holders of an ace or a 2 still double


def test_chooser_may_start_doubles_kernel_equals_the_python_composition():
    """The house rule chooser_doubles: the chooser doubles like anyone else. The kernel's
    pass equals the Python policy with the rule, and the chooser does start doubles (never
    under RULES.md, which _check_constraints asserts for the standard games)."""
    from bonken_sim.rules.rulesets import Ruleset

    rules = Ruleset(name="t", chooser_doubles=True)
    models = C.load_models()
    profiles = ["basic"] * 4
    seed, n = 17, 60
    b = play_games(n, seed, np.arange(4), profiles, table=rules.table, start=2)
    doubled = b.doubled()
    for i in range(n):
        rows = _python_game(seed, 2 + i, profiles, models, False, True, rules)
        for k, (v, dbl, raw, final) in enumerate(rows):
            where = f"game {2 + i} deal {k}"
            assert b.variant[i, k] == v, where
            assert np.array_equal(doubled[i, k], dbl), where
            assert b.raw[i, k].tolist() == raw.tolist(), where
            assert b.final[i, k].tolist() == final.tolist(), where
    big = play_games(2000, seed, np.arange(4), profiles, table=rules.table)
    d = big.doubled()
    g, k = np.meshgrid(np.arange(2000), np.arange(DEALS_PER_GAME), indexing="ij")
    chooser = (g % 4 + k + 2) % 4
    by_chooser = np.take_along_axis(d, chooser[:, :, None, None], axis=2)[:, :, 0, :]
    of_chooser = np.take_along_axis(d, chooser[:, :, None, None], axis=3)[:, :, :, 0]
    assert np.any(by_chooser & ~of_chooser), "the chooser never started a double"
    assert (big.totals.sum(axis=1) == 0).all()
