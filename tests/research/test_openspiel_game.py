"""``python_bonken`` in OpenSpiel: OpenSpiel's own random-simulation test (clones,
serialisation, rewards, bounds) on every ruleset preset in one-contract and whole-game
modes, the resampler keeping a seat's information, and OpenSpiel's Python IS-MCTS playing
on it."""

from __future__ import annotations

import importlib
import random
import sys

import numpy as np
import pyspiel
import pytest

import bonken_sim.openspiel  # noqa: F401  (registers python_bonken)
from bonken_sim.rules.names import variant_names
from bonken_sim.rules.rulesets import PRESETS

PRESET_NAMES = tuple(PRESETS)


def one_contract(preset: str, i: int) -> str:
    """A contract of the preset, a different one for each preset (Domino included)."""
    names = variant_names(PRESETS[preset])
    return names[(6 + 5 * i) % len(names)]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_sim_test_passes_on_one_contract(preset):
    i = PRESET_NAMES.index(preset)
    params = {"ruleset": preset, "contract": one_contract(preset, i), "deals": 2}
    game = pyspiel.load_game("python_bonken", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_sim_test_passes_on_whole_games(preset):
    # a whole game of 11 deals under the standard rules; three deals of one under the others
    deals = 11 if preset == "standard" else 3
    game = pyspiel.load_game("python_bonken", {"ruleset": preset, "deals": deals,
                                               "first_dealer": 1})  # fmt: skip
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_a_whole_game_sums_to_zero_and_ends_after_eleven_deals():
    game = pyspiel.load_game("python_bonken")
    rng = random.Random(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == 0
    assert len(state.pos.past) == 11
    # every negative once, four troeven (one per seat)
    assert sorted(v for _, v, *_ in state.pos.past)[:7] == list(range(7))
    assert state.pos.had == 0b1111


def test_parameters_are_checked_in_one_line():
    with pytest.raises(Exception, match="unknown ruleset 'nope'"):
        pyspiel.load_game("python_bonken", {"ruleset": "nope"})
    with pytest.raises(Exception, match="unknown contract 'bukkn'"):
        pyspiel.load_game("python_bonken", {"contract": "bukkn"})
    with pytest.raises(Exception, match="deals must be 1-11"):
        pyspiel.load_game("python_bonken", {"deals": 12})


def test_action_names_are_readable():
    game = pyspiel.load_game("python_bonken", {"ruleset": "bierkaart"})
    state = game.new_initial_state()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 50) == "deal KS"
    names = [state.action_to_string(0, a) for a in (0, 51, 52, 53 + 6, 53 + 11, 65, 66)]
    assert names == ["2C", "AS", "pass", "bierkaart", "troeven_NT", "no double", "double"]


def _play_to(game, rng, decisions):
    state = game.new_initial_state()
    while not state.is_terminal() and decisions >= 0:
        if not state.is_chance_node():
            decisions -= 1
            if decisions < 0:
                break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("params", "depths"), [
    ({"contract": "hartenjagen", "ruleset": "strict"}, (0, 9, 23, 40)),
    ({"contract": "troeven_H", "ruleset": "strict"}, (5, 18, 33)),
    ({"contract": "domino"}, (10, 30, 45, 60)),
    ({"deals": 2, "first_dealer": 3}, (0, 6, 13, 40, 70, 100)),
])  # fmt: skip
def test_resampling_keeps_what_the_seat_knows(params, depths):
    game = pyspiel.load_game("python_bonken", params)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for seed in range(3):
        for depth in depths:
            state = _play_to(game, random.Random(seed), depth)
            if state.is_terminal():
                continue
            for p in range(4):
                other = state.resample_from_infostate(p, sampler)
                assert other.information_state_string(p) == state.information_state_string(p)
                assert other.information_state_tensor(p) == state.information_state_tensor(p)
                assert other.observation_string(p) == state.observation_string(p)
                assert other.observation_tensor(p) == state.observation_tensor(p)
                assert other.current_player() == state.current_player()
                if p == state.current_player():
                    assert other.legal_actions() == state.legal_actions()
                assert other.pos.hand(p) == state.pos.hand(p)
                # the history replays: the new state's cards are dealt by its chance nodes
                assert len(other.history()) == len(state.history())
                changed += str(other) != str(state)
    assert changed > 0  # the hidden hands do move


def test_resampling_mid_deal_keeps_the_seats_cards():
    game = pyspiel.load_game("python_bonken", {"contract": "bukken"})
    state = game.new_initial_state()
    for c in range(30):
        state.apply_action(c)
    other = state.resample_from_infostate(2, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert other.pos.dealt[2] == state.pos.dealt[2]
    assert other.information_state_string(2) == state.information_state_string(2)
    assert sorted(other.pos.cards) == list(range(30))


def test_ismcts_plays_a_deal():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_bonken", {"contract": "vrouwen"})
    rs = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 20,
                           max_world_samples=4, random_state=rs)  # fmt: skip
    state = game.new_initial_state()
    rng = random.Random(1)
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    assert sum(state.returns()) == -120


def test_without_openspiel_the_import_names_the_extra(monkeypatch):
    for name in ("bonken_sim.openspiel", "bonken_sim.research.openspiel_game"):
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(ImportError, match=r"pip install 'bonken-sim\[openspiel\]'"):
        importlib.import_module("bonken_sim.openspiel")


def test_the_information_state_tensor_holds_every_play_in_order():
    # the plays of each deal read back from the tensor: cards by their place, the places no
    # card holds Domino's passes; the choice and the doubling answers too
    from bonken_sim.research.encoding import _D, DEAL_SIZE, INFO_HEAD_SIZE

    game = pyspiel.load_game("python_bonken", {"deals": 11, "first_dealer": 2})
    state = game.new_initial_state()
    rng = random.Random(8)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    for seat in range(4):
        tensor = np.array(state.information_state_tensor(seat))
        for k, (_, v, doubled, plays, *_) in enumerate(state.pos.past):
            block = tensor[INFO_HEAD_SIZE + DEAL_SIZE * k : INFO_HEAD_SIZE + DEAL_SIZE * (k + 1)]
            when = block[_D["when"] : _D["when"] + 52]
            places = {round(w * 208) - 1: c for c, w in enumerate(when) if w > 0}
            assert [places.get(i, 52) for i in range(len(plays))] == list(plays)
            assert np.flatnonzero(block[_D["contract"] : _D["contract"] + 12]).tolist() == [v]
            assert block[_D["dealt"] : _D["dealt"] + 52].sum() == 13
            assert block[_D["doubled"] : _D["doubled"] + 12].sum() == bin(doubled).count("1")


def test_one_contract_under_given_doubles_settles_as_the_doubling_rules_say():
    from bonken_sim.rules.doubling import multiplicity, settle

    doubles = (1 << (4 * 0 + 1)) | (1 << (4 * 1 + 0)) | (1 << (4 * 3 + 2))  # 0<->1 twice, 3>2
    doubled = pyspiel.load_game("python_bonken", {"contract": "vrouwen", "doubles": doubles})
    plain = pyspiel.load_game("python_bonken", {"contract": "vrouwen"})
    pyspiel.random_sim_test(doubled, num_sims=2, serialize=True, verbose=False)
    m = np.zeros((1, 4, 4), np.int64)
    for b in range(16):
        m[0, b >> 2, b & 3] = (doubles >> b) & 1
    for seed in range(5):
        end = _play_to(doubled, random.Random(seed), 10**6)
        raw = plain.new_initial_state()
        for action in end.history():
            raw.apply_action(action)
        expected = settle(np.array([raw.returns()]), multiplicity(m))[0]
        assert end.returns() == [float(x) for x in expected]
    assert "doubles 0>1x 1>0x 3>2x;" in end.information_state_string(0)
    with pytest.raises(Exception, match="only with one contract"):
        pyspiel.load_game("python_bonken", {"doubles": 2})
    with pytest.raises(Exception, match="two different seats"):
        pyspiel.load_game("python_bonken", {"contract": "bukken", "doubles": 1})
