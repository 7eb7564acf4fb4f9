"""The `expert-fitted` player profile: expert card play with the fitted choice and doubling, in
full games that settle and reproduce on any thread count."""

from __future__ import annotations

import numpy as np

from bonken_sim.engine.games import PROFILES, play_games
from bonken_sim.rules.names import Strategy


def test_expert_fitted_profile_plays_expert_cards_with_the_fitted_policies():
    exp, adv = PROFILES["expert-fitted"], PROFILES["advanced"]
    assert exp.card == Strategy.EXPERT
    assert (exp.choice, exp.doubling) == (adv.choice, adv.doubling)


def test_games_with_expert_seats_settle_and_reproduce():
    profiles = ["expert-fitted", "advanced"]
    seating = np.array([0, 1, 0, 1])
    one = play_games(3, 9, seating, profiles, threads=1)
    two = play_games(3, 9, seating, profiles, threads=2)
    assert np.array_equal(one.final, two.final) and np.array_equal(one.dbl, two.dbl)
    assert (one.final.sum(axis=2) == one.raw.sum(axis=2)).all()  # doubles move, never make
    plain = play_games(3, 9, np.ones(4, np.int64), profiles, threads=1)
    assert not np.array_equal(one.raw, plain.raw)  # the expert seats play their own cards
