"""The numba engine against the pure-Python reference (tests/reference), card by card."""

from __future__ import annotations

import os

import pytest

import bonken_sim
from tests import reference as ref

DEALS = int(os.environ.get("BONKEN_SIM_DIFF_DEALS", "2000"))
TABLES = {
    "random": (0, 0, 0, 0),
    "basic": (1, 1, 1, 1),
    "mixed": (1, 0, 1, 0),
}


def _engine_plays(p: bonken_sim.Playout) -> list:
    return ["pass" if c is None else c for c in p.plays]


@pytest.mark.parametrize("table", list(TABLES))
@pytest.mark.parametrize("variant", bonken_sim.VARIANTS, ids=lambda v: v.name)
def test_engine_matches_reference_card_by_card(variant, table):
    strategies = TABLES[table]
    deals = DEALS if table != "mixed" else DEALS // 4
    for d in range(deals):
        dealer = d % 4
        mine = bonken_sim.play(
            seed=31337, deal=d, variant=variant, strategies=list(strategies), dealer=dealer
        )
        theirs = ref.play_deal(31337, d, variant.id, strategies, dealer)
        assert [sorted(bonken_sim.rules.names.mask_cards(h)) for h in mine.hands] == [
            sorted(h) for h in theirs["hands"]
        ], d
        got, want = _engine_plays(mine), theirs["plays"]
        if got != want:
            first = next(i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b)
            pytest.fail(
                f"{variant.name} {table} deal {d}: play {first} (seat {theirs['seats'][first]}) "
                f"engine {got[first]} reference {want[first]}"
            )
        assert mine.scores == theirs["scores"], d
        assert mine.tricks == theirs["tricks"], d
        assert mine.seats == theirs["seats"], d
        if variant.name == "domino":
            assert mine.out_order == theirs["out_order"], d
