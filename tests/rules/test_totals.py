"""rules.totals: a deal's totals from a ruleset's point values agree with the kernels' table."""

from __future__ import annotations

import numpy as np
import pytest

from bonken_sim._core.ruleset import (
    F_CARD_PTS,
    F_DOMINO_LAST_PTS,
    F_LAST_PTS,
    F_TOTAL,
    F_TRICK_PTS,
)
from bonken_sim.rules.names import variant_names
from bonken_sim.rules.rulesets import PRESETS, Ruleset
from bonken_sim.rules.totals import deal_total, max_abs_deal_score, point_values

ODD = Ruleset(
    name="odd",
    points=(
        ("bukken.trick", -3),
        ("hartenjagen.heart", -7),
        ("herenboeren.king", -11),
        ("herenboeren.jack", -2),
        ("vrouwen.queen", -40),
        ("hartenheer.king_of_hearts", -60),
        ("laatste_slag.last_trick", -35),
        ("domino.last_card", -45),
        ("troeven.trick", 17),
    ),
)
RULESETS = [*PRESETS.values(), ODD]


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_deal_total_is_the_tables(rules):
    names = variant_names(rules)
    assert [deal_total(v, rules) for v in names] == rules.table[:, F_TOTAL].tolist()


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_largest_score_and_point_values_are_the_tables(rules):
    t = np.abs(rules.table.astype(np.int64))
    cards = t[:, F_CARD_PTS : F_CARD_PTS + 52]
    bound = 13 * t[:, F_TRICK_PTS] + cards.sum(1) + t[:, F_LAST_PTS] + t[:, F_DOMINO_LAST_PTS]
    assert max_abs_deal_score(rules) == int(bound.max())
    used = np.concatenate([t[:, F_TRICK_PTS], cards.ravel(), t[:, F_LAST_PTS],
                           t[:, F_DOMINO_LAST_PTS]])  # fmt: skip
    assert {abs(v) for v in point_values(rules)} == set(used[used != 0].tolist())


def test_standard_totals():
    assert deal_total("bukken") == -65 and deal_total("troeven_NT") == 130
    assert deal_total("herenboeren") == -120 and deal_total("domino") == -50
