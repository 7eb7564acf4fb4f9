"""No view leaks another seat's hidden cards: a seat's information state, observation
(string and tensor) and action mask, in OpenSpiel and in PettingZoo, stay the same when the
cards it has not seen are swapped between the other seats (the same plays, still legal)."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

import bonken_sim.openspiel  # noqa: F401  (registers python_bonken)
import bonken_sim.pettingzoo as bp
from bonken_sim.engine.deal_play import is_domino
from bonken_sim.research.core import bits, slots_of


def views(state: pyspiel.State, seat: int) -> tuple:
    """Everything ``seat`` is shown in OpenSpiel and in PettingZoo."""
    env = bp.raw_env()
    env.pos = state.pos
    obs = env.observe(f"player_{seat}")
    mask = state.legal_actions_mask(seat) if state.current_player() == seat else None
    return (state.information_state_string(seat), tuple(state.information_state_tensor(seat)),
            state.observation_string(seat),
            tuple(state.observation_tensor(seat)), mask,
            obs["observation"].tobytes(), obs["action_mask"].tobytes())  # fmt: skip


def swapped(game: pyspiel.Game, state: pyspiel.State, seat: int, rng: random.Random):
    """The state with two unseen cards of one suit traded between two other seats (in a
    trick contract of the standard rules every play stays legal: suits held are unchanged),
    its history given again; None when no two other seats hold unseen cards of one suit."""
    pos = state.pos
    if pos.contract >= 0 and is_domino(pos.setup.rows[pos.contract]):
        return None  # in Domino ranks decide what was playable
    others = [q for q in range(4) if q != seat]
    rng.shuffle(others)
    for a in others:
        for b in others:
            if a == b:
                continue
            for suit in rng.sample(range(4), 4):
                block = 0x1FFF << (13 * suit)
                xs, ys = bits(pos.hand(a) & block), bits(pos.hand(b) & block)
                if xs and ys:
                    x, y = rng.choice(xs), rng.choice(ys)
                    dealt = list(pos.dealt)
                    dealt[a] ^= (1 << x) | (1 << y)
                    dealt[b] ^= (1 << x) | (1 << y)
                    return replayed(game, state, slots_of(pos.dealer, dealt))
    return None


def replayed(game: pyspiel.Game, state: pyspiel.State, cards: list[int]) -> pyspiel.State:
    """``state``'s history with this deal's cards dealt as ``cards``."""
    other = game.new_initial_state()
    history = state.history()
    start = state.deal_start
    for action in [*history[:start], *cards, *history[start + 52 :]]:
        assert action in other.legal_actions()
        other.apply_action(action)
    return other


@pytest.mark.parametrize("params", [
    {"contract": "hartenjagen"}, {"contract": "troeven_D"}, {"contract": "laatste_slag"},
    {"deals": 2, "first_dealer": 2},
])  # fmt: skip
def test_swapping_the_hidden_cards_changes_no_view(params):
    game = pyspiel.load_game("python_bonken", params)
    rng = random.Random(11)
    compared = 0
    for seed in range(4):
        state = game.new_initial_state()
        play = random.Random(seed)
        while not state.is_terminal():
            if not state.is_chance_node() and play.random() < 0.2:
                for seat in range(4):
                    other = swapped(game, state, seat, rng)
                    if other is None:
                        continue
                    assert str(other) != str(state)  # the hidden cards did move
                    assert views(other, seat) == views(state, seat)
                    compared += 1
            state.apply_action(play.choice(state.legal_actions()))
    assert compared > 50


def test_a_seats_own_cards_do_change_its_views():
    # the check above can fail: trading one of the seat's own cards shows in its views
    game = pyspiel.load_game("python_bonken", {"contract": "bukken"})
    state = game.new_initial_state()
    for c in range(52):
        state.apply_action(c)
    pos = state.pos
    seat = state.current_player()
    x, y = bits(pos.hand(seat))[0], bits(pos.hand((seat + 1) & 3))[0]
    dealt = list(pos.dealt)
    dealt[seat] ^= (1 << x) | (1 << y)
    dealt[(seat + 1) & 3] ^= (1 << x) | (1 << y)
    other = replayed(game, state, slots_of(pos.dealer, dealt))
    mine, theirs = views(state, seat), views(other, seat)
    assert mine[0] != theirs[0] and mine[1] != theirs[1]  # information state
    assert mine[3] != theirs[3] and mine[5] != theirs[5]  # observation tensors
    assert np.any(np.array(mine[4]) != np.array(theirs[4]))  # the mask
