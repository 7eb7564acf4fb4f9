"""``decide`` for the chooser and the doubling pass: at every deal of games the kernel
played, the contract and the doubles ``decide`` gives from each seat's view are the
kernel's; the options follow the rules; bad views are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from bonken_sim.engine.decide import ChooseView, DoubleView, decide
from bonken_sim.engine.games import DEALS_PER_GAME, play_games
from bonken_sim.engine.play import deal_hands
from bonken_sim.engine.views import BadView
from bonken_sim.rules.names import card_str, mask_cards, variant_names
from bonken_sim.rules.rulesets import as_ruleset

SEED = 11
GAMES = 24
N_NEG = 7


def _cards(mask: int) -> list[str]:
    return [card_str(c) for c in mask_cards(int(mask))]


def _game_views(b, i, rules):
    """Per deal of game row ``i`` of batch ``b``: (choose view, the variant the kernel
    chose, [(double view, the seats the kernel's seat doubled)])."""
    names = variant_names(rules)
    g = b.start + i
    open_ = set(names)
    had_troeven = [False] * 4
    totals = [0, 0, 0, 0]
    for k in range(DEALS_PER_GAME):
        dealer = (g + k) & 3
        chooser = (dealer + 2) & 3
        hands = deal_hands(SEED, DEALS_PER_GAME * g + k)
        v = int(b.variant[i, k])
        cv = ChooseView(dealer, chooser, _cards(hands[chooser]), k, sorted(open_),
                        had_troeven[chooser], tuple(totals), rules)  # fmt: skip
        bits = int(b.dbl[i, k])
        doubles = []
        said: list[tuple[int, int]] = []
        for step in (3, 0, 1, 2):
            d = (dealer + step) & 3
            mine = tuple(t for t in range(4) if bits >> (4 * d + t) & 1)
            dv = DoubleView(dealer, d, _cards(hands[d]), names[v], tuple(said), rules)
            doubles.append((dv, mine))
            said += [(d, t) for t in mine]
        yield cv, names[v], doubles
        open_.discard(names[v])
        if v >= N_NEG:
            had_troeven[chooser] = True
        totals = [totals[p] + int(b.final[i, k, p]) for p in range(4)]


@pytest.mark.parametrize(
    ("profiles", "ruleset"),
    [
        (["basic", "advanced", "basic-randomchoice", "basic-nodouble"], "standard"),
        (["advanced", "basic", "basic", "advanced"], "strict"),
    ],
)
def test_choice_and_doubles_are_the_kernels_at_every_deal(profiles, ruleset):
    rules = as_ruleset(ruleset)
    b = play_games(GAMES, SEED, np.arange(4), profiles, threads=1,
                   table=None if rules.is_standard else rules.table)  # fmt: skip
    checked = doubled = 0
    for i in range(GAMES):
        for cv, chosen, doubles in _game_views(b, i, rules):
            prof = profiles[cv.seat]
            if prof != "basic-randomchoice":  # a random choice draws from the deal's stream
                d = decide(cv, prof)
                assert d.contract == chosen, (i, cv)
                assert chosen in d.legal
                checked += 1
            for dv, mine in doubles:
                assert decide(dv, profiles[dv.seat]).doubles == mine, (i, dv)
                doubled += bool(mine)
    assert checked > GAMES * 8 and doubled > GAMES


HAND = "AH KH QH JH TH 9H 8H 7H AS KS AC KC AD"
ALL_OPEN = variant_names(None)


def test_the_last_chooser_without_troeven_must_call_it():
    last = ChooseView(0, 2, HAND, 8, ["bukken", "domino", "troeven_C", "troeven_S"])
    d = decide(last, "basic")
    assert set(d.legal) == {"troeven_C", "troeven_S"}
    assert d.contract in d.legal
    again = ChooseView(0, 2, HAND, 8, ["bukken", "domino", "troeven_C"], had_troeven=True)
    assert set(decide(again, "basic").legal) == {"bukken", "domino"}


def test_explain_ranks_every_open_contract_and_random_choice_is_reproducible():
    view = ChooseView(3, 1, HAND, 0, ALL_OPEN)
    d = decide(view, "advanced", explain=True)
    assert d.contract == "troeven_H" == d.weighed[0].option
    assert len(d.weighed) == len(d.legal) == 12
    values = [w.value for w in d.weighed]
    assert values == sorted(values, reverse=True)
    picks = {decide(view, "random", seed=s).contract for s in range(40)}
    assert len(picks) > 3 and picks <= set(d.legal)
    assert decide(view, "random", seed=5) == decide(view, "random", seed=5)


def test_the_chooser_may_only_double_back():
    alone = DoubleView(0, 2, HAND, "troeven_H")
    assert decide(alone, "basic").legal == ()
    assert decide(alone, "basic").doubles == ()
    back = DoubleView(0, 2, HAND, "troeven_H", [(3, 2), (1, 0)])
    assert decide(back, "basic").legal == ("3",)
    assert decide(back, "basic-nodouble").doubles == ()


@pytest.mark.parametrize(
    ("view", "message"),
    [
        (ChooseView(0, 1, HAND, 0, ALL_OPEN), "does not choose"),
        (ChooseView(0, 2, HAND, 11, ALL_OPEN), "deal must be 0 to 10"),
        (ChooseView(0, 2, HAND, 0, []), "no contract is open"),
        (ChooseView(0, 2, HAND, 0, ["bukken", "solo"]), "solo"),
        (ChooseView(0, 2, "AH KH", 0, ALL_OPEN), "13 cards"),
        (DoubleView(0, 3, HAND, "vrouwen", [(0, 1)]), "does not double before"),
        (DoubleView(0, 1, HAND, "vrouwen", [(0, 0)]), "cannot double itself"),
        (DoubleView(0, 1, HAND, "vrouwen", [(3, 1), (3, 1)]), "twice"),
        (DoubleView(0, 1, HAND, "nothing"), "nothing"),
    ],
)
def test_a_view_that_cannot_arise_is_refused_in_one_line(view, message):
    with pytest.raises(BadView, match=message) as info:
        decide(view, "basic")
    assert "\n" not in str(info.value)


def test_a_mapping_names_its_kind():
    d = decide({"kind": "double", "dealer": 0, "seat": 3, "hand": HAND, "contract": "vrouwen"})
    assert d.kind == "double"
    with pytest.raises(BadView, match="unknown view kind"):
        decide({"kind": "bid", "dealer": 0})
