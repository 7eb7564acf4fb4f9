"""The single-agent Gymnasium environment: Gymnasium's own checker, the rewards, and the
profiles seeing exactly what the engine's game state shows a seat at the table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import bonken_sim.pettingzoo as bp
from bonken_sim.engine.decide import decide
from bonken_sim.engine.game_state import GameState
from bonken_sim.research import gym_env
from bonken_sim.rules.rulesets import PRESETS


@pytest.mark.filterwarnings("ignore:.*render modes")
@pytest.mark.parametrize("kwargs", [
    {"contract": "hartenjagen"}, {"ruleset": "strict", "deals": 2},
    {"ruleset": "bierkaart", "contract": "bierkaart", "seat": 3, "opponents": "basic"},
])  # fmt: skip
def test_check_env_passes(kwargs):
    check_env(bp.GymEnv(**kwargs))


def test_rewards_add_up_to_the_seats_total_and_illegal_actions_end_the_episode():
    env = bp.GymEnv(opponents=["basic", "advanced", "basic"], seat=1)
    obs, info = env.reset(seed=3)
    total, rng = info["reward_before"], np.random.default_rng(3)
    while True:
        obs, reward, terminated, truncated, _ = env.step(
            rng.choice(np.flatnonzero(obs["action_mask"]))
        )
        total += reward
        if terminated:
            break
    assert total == env.aec.pos.totals[1] and len(env.aec.pos.past) == 11
    env.reset(seed=3)
    obs, reward, terminated, _, info = env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert terminated and info["illegal"] and reward == -910


def test_an_unknown_profile_is_refused_in_one_line():
    with pytest.raises(ValueError, match="unknown strategy 'expertt'"):
        bp.GymEnv(opponents="expertt")


def normal(view):
    """A view with its doubles as a set (the order said within a turn is not part of it)."""
    if hasattr(view, "doubles"):
        return dataclasses.replace(view, doubles=tuple(sorted(view.doubles)))
    return view


@pytest.mark.parametrize("preset", ["standard", "strict"])
def test_the_profiles_see_what_the_game_state_shows_and_play_its_game(preset, monkeypatch):
    # every seat advanced (the agent too, by the same views): the game of the engine's game
    # state dealt by the same seed, view for view and total for total
    seen = []
    original = gym_env.engine_view

    def recorded(pos):
        seen.append(original(pos))
        return seen[-1]

    monkeypatch.setattr(gym_env, "engine_view", recorded)
    env = bp.GymEnv(opponents="advanced", ruleset=preset)
    env.reset(seed=21)
    while env.aec.pos.now[0] != "over":
        env.profiles[0] = "advanced"  # the agent's action as the profile would take it
        action = env._profile_action(env.aec.pos)
        del env.profiles[0]
        env.step(action)
    seed = env.decision_seed
    gs = GameState.start(seed, 0, PRESETS[preset])
    shown = []
    while gs.turn().kind != "over":
        view = gs.view()
        shown.append(view)
        answer = decide(view, "advanced", seed)
        gs.act(answer.card if answer.kind == "play" else
               answer.contract if answer.kind == "choose" else list(answer.doubles))  # fmt: skip
    assert len(seen) > 11 * 52
    # view for view, but for Domino's last seat: once three seats are out the game state
    # asks its cards, the environment's deal has ended
    rest = iter(normal(v) for v in seen)
    want = next(rest)
    for view in map(normal, shown):
        if view == want:
            want = next(rest, None)
        else:
            assert view.kind == "play" and view.contract == "domino", view
    assert want is None
    assert env.aec.pos.totals == gs.totals
