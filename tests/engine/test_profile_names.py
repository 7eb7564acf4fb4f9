"""The profiles' names: ``expert`` is the strongest whole-game player (adaptive card play,
choice and doubling by search), ``expert-fitted`` the expert card play with the fitted
choice and doubling, and ``expert-search``, the strongest's former name, still names it
wherever a profile is given."""

from __future__ import annotations

import pytest

from bonken_sim._core import game as G
from bonken_sim.analyses.tournament import parse_tournament_profiles
from bonken_sim.engine.decide import ChooseView, decide, seat_policy
from bonken_sim.engine.games import PROFILES, parse_profiles, profile, profile_name
from bonken_sim.engine.strategies import ADAPTIVE_EXPERT
from bonken_sim.errors import BadValue
from bonken_sim.rules.names import Strategy
from bonken_sim.table.players import parse_player


def test_expert_is_the_searching_profile_and_expert_fitted_the_fitted_one():
    assert (PROFILES["expert"].card, PROFILES["expert"].choice, PROFILES["expert"].doubling) == (
        int(ADAPTIVE_EXPERT), G.CHOICE_SEARCH, G.DOUBLE_SEARCH)  # fmt: skip
    fitted = PROFILES["expert-fitted"]
    assert (fitted.card, fitted.choice, fitted.doubling) == (
        Strategy.EXPERT, G.CHOICE_FITTED, G.DOUBLE_FITTED)  # fmt: skip
    assert "expert-search" not in PROFILES  # one profile, not two with the same play


def test_the_former_name_names_the_strongest_everywhere():
    assert profile_name("Expert-Search") == "expert"
    assert profile("expert-search") is PROFILES["expert"]
    assert parse_profiles("expert-search,basic,basic,basic")[0] == "expert"
    assert parse_player("expert-search") == "expert"
    assert parse_tournament_profiles("expert-search,advanced") == ["expert", "advanced"]
    assert seat_policy("expert-search") == seat_policy("expert")
    view = ChooseView(0, 2, "2C 5C 9C JC AC 3D 8D KD 4H 6H QH 7S TS", 0, ["bukken", "domino"])
    assert decide(view, "expert-search", seed=3) == decide(view, "expert", seed=3)


def test_a_profile_named_twice_by_two_names_is_refused_by_the_tournament():
    with pytest.raises(BadValue, match="twice"):
        parse_tournament_profiles("expert,expert-search")


@pytest.mark.parametrize("name", ["expert-searc", "expert_fitted", ""])
def test_an_unknown_profile_lists_the_profiles(name):
    with pytest.raises(BadValue, match="expert-fitted"):
        profile_name(name)
