"""The feature names of bonken_sim/models/features.py: one list, in the order the fitted
weights and the game kernel's model arrays read them."""

from __future__ import annotations

import numpy as np

from bonken_sim.models.features import (
    BASE_FEATURES,
    TRUMP_FEATURES,
    VARIANT_FEATURES,
    base_features,
    trump_features,
)
from bonken_sim.rules.names import parse_hand

HAND = np.array([parse_hand("AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C 8C")], np.uint64)


def test_feature_names_are_the_order_the_features_are_computed_in():
    assert tuple(base_features(HAND)) == BASE_FEATURES
    for suit in range(4):
        assert tuple(trump_features(HAND, suit)) == TRUMP_FEATURES


def test_each_variants_features_in_the_order_its_weights_were_fitted():
    # models/data/models.json holds one weight per name, in this order: a change here would
    # silently pair the shipped weights with other features
    negative = (
        "aces kings queens jacks tens low voids singletons hearts hearts_high kh ah "
        "k_unguarded q_unguarded j_unguarded"
    ).split()
    trump = "trump_len trump_honours side_aces side_kings side_voids side_singletons queens low"
    for name in ("bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag"):
        assert VARIANT_FEATURES[name] == tuple(negative)
    assert VARIANT_FEATURES["domino"] == (
        "twos",
        "aces",
        "kings",
        "eights",
        "low",
        "voids",
        "singletons",
    )
    for suit in "CDHS":
        assert VARIANT_FEATURES[f"troeven_{suit}"] == tuple(trump.split())
    assert VARIANT_FEATURES["troeven_NT"] == (
        "aces",
        "kings",
        "queens",
        "jacks",
        "longest",
        "voids",
        "singletons",
        "low",
    )
