"""The PettingZoo environment: PettingZoo's own API and seed tests on every ruleset preset,
in one-contract and whole-game modes; rewards per settled deal; the engine's deals; the
classic wrappers' handling of an illegal action; the text render."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import bonken_sim.pettingzoo as bp
from bonken_sim.engine.play import deal_hands
from bonken_sim.research.core import N_ACTIONS
from bonken_sim.research.encoding import OBS_SIZE
from bonken_sim.rules.names import variant_names
from bonken_sim.rules.rulesets import PRESETS

MODES = [(preset, mode) for preset in PRESETS for mode in ("contract", "game")]


def kwargs_of(preset: str, mode: str) -> dict:
    if mode == "game":
        return {"ruleset": preset, "deals": 11 if preset == "standard" else 2}
    names = variant_names(PRESETS[preset])
    return {"ruleset": preset, "contract": names[(6 + 5 * len(preset)) % 12], "deals": 2}


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize(("preset", "mode"), MODES)
def test_api_test_passes(preset, mode):
    kwargs = kwargs_of(preset, mode)
    api_test(bp.env(**kwargs), num_cycles=300)
    api_test(bp.raw_env(**kwargs), num_cycles=300)


@pytest.mark.parametrize(("preset", "mode"), MODES)
def test_seed_test_passes(preset, mode):
    kwargs = kwargs_of(preset, mode)
    seed_test(lambda: bp.env(**kwargs), num_cycles=200)


def play(env, rng):
    """Random legal actions to the end; the rewards each agent saw, in order."""
    seen: dict[str, list] = {a: [] for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        seen[agent].append(reward)
        if termination or truncation:
            env.step(None)
            continue
        assert obs["observation"].shape == (OBS_SIZE,) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].shape == (N_ACTIONS,) and obs["action_mask"].dtype == np.int8
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def test_rewards_are_the_settled_deals_and_a_game_sums_to_zero():
    env = bp.raw_env()
    env.reset(seed=9)
    seen = play(env, np.random.default_rng(0))
    finals = [deal[6] for deal in env.pos.past]
    assert len(finals) == 11
    for q, agent in enumerate(env.possible_agents):
        assert sum(seen[agent]) == env.pos.totals[q] == sum(f[q] for f in finals)
        assert sum(1 for r in seen[agent] if r) <= 11  # rewards come only when a deal settles
    assert sum(env.pos.totals) == 0


def test_the_deals_are_the_engines_deals_of_the_seed():
    env = bp.raw_env(contract="bukken", deals=3)
    env.reset(seed=77, options={"game": 5})
    assert env.pos.dealt == deal_hands(77, 11 * 5)
    assert env.pos.dealer == 5 % 4
    play(env, np.random.default_rng(1))
    assert [list(d[5]) for d in env.pos.past] == [deal_hands(77, 55 + k) for k in range(3)]
    env.reset()  # the next game of the seed
    assert env.pos.dealt == deal_hands(77, 66)


def test_an_illegal_action_ends_the_game_for_the_wrapped_env_and_is_refused_raw():
    env = bp.env(contract="hartenjagen")
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    raw = bp.raw_env(contract="hartenjagen")
    raw.reset(seed=3)
    with pytest.raises(ValueError, match="is not legal here"):
        raw.step(int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0]))


def test_render_shows_the_table_as_text():
    env = bp.raw_env(contract="domino", render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert "domino" in text and "seat 3:" in text and len(text.splitlines()) == 5
    with pytest.raises(ValueError, match="render_mode"):
        bp.raw_env(render_mode="rgb")


def test_bad_settings_are_one_line_errors():
    with pytest.raises(ValueError, match="unknown contract 'nope'"):
        bp.raw_env(contract="nope")


def test_without_pettingzoo_the_import_names_the_extra(monkeypatch):
    for name in ("bonken_sim.pettingzoo", "bonken_sim.research.pettingzoo_env"):
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    with pytest.raises(ImportError, match=r"pip install 'bonken-sim\[pettingzoo\]'"):
        importlib.import_module("bonken_sim.pettingzoo")


@pytest.mark.parametrize("kwargs", [{"deals": 3}, {"contract": "domino", "deals": 2}])
def test_the_environments_card_rows_give_the_tensor_of_the_position(kwargs):
    # the environment copies its card rows, kept one card at a time, into the observations;
    # OpenSpiel's observer gathers the same blocks from the position's masks
    import random

    from bonken_sim.research.encoding import observation_tensor

    env = bp.raw_env(**kwargs)
    env.reset(seed=4)
    rng = random.Random(1)
    steps = 0
    while env.pos.now[0] != "over":
        for q in range(4):
            expected = np.empty(OBS_SIZE, np.float32)
            observation_tensor(env.pos, q, expected)
            assert np.array_equal(env.observe(f"player_{q}")["observation"], expected)
        env.step(rng.choice(env.pos.legal()))
        steps += 1
    assert steps > 100
