"""Every action of OpenSpiel playthroughs of ``python_bonken`` (random legal actions) given
again to the engine's game state (``engine.game_state.GameState``, dealt the same hands):
at every decision the same seat acts with the same legal set, and every deal ends with the
same settled totals (the game state replays each finished deal through ``engine.replay``).

1,000 one-contract playthroughs (200 per ruleset preset, the twelve variants in turn) and
two whole games of 11 deals per preset."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

import bonken_sim.openspiel  # noqa: F401  (registers python_bonken)
from bonken_sim.engine.game_state import GameState
from bonken_sim.research.core import DOUBLE, Position
from bonken_sim.research.encoding import action_name
from bonken_sim.rules.names import variant_names
from bonken_sim.rules.rulesets import PRESETS

PER_PRESET = 200


class DealtGameState(GameState):
    """The engine's game state dealt given hands (``given[k]``: deal k's masks by seat)."""

    given: list[tuple[int, ...]]

    def dealt(self) -> list[int]:
        if self._dealt_for != self.deal:
            self._dealt = list(self.given[self.deal])
            self._dealt_array = np.array(self._dealt, np.uint64)
            self._dealt_for = self.deal
        return self._dealt


def playthrough(game: pyspiel.Game, seed: int) -> pyspiel.State:
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def agree(game: pyspiel.Game, history: list[int], given: list[tuple[int, ...]]) -> int:
    """Give ``history`` to a fresh state and to a ``DealtGameState`` side by side, checking
    each decision; returns the decisions checked."""
    setup = game.setup
    gs = DealtGameState.start(0, setup.first_dealer, setup.ruleset, variant=setup.variant)
    gs.given = given
    state = game.new_initial_state()
    names = setup.names
    doubles: list[int] = []
    checked = 0
    for action in history:
        pos: Position = state.pos
        if state.is_chance_node():
            state.apply_action(action)
            continue
        turn = gs.turn()
        assert turn.seat == state.current_player(), (checked, turn)
        kind = pos.kind()
        assert turn.kind == kind
        legal = state.legal_actions()
        if kind == "double":
            seat, target = pos.question()
            assert (DOUBLE in legal) == (str(target) in gs.legal())
            if action == DOUBLE:
                doubles.append(target)
            if pos.q % 3 == 2:
                gs.act(doubles)
                doubles = []
        else:
            assert tuple(action_name(a, names) for a in legal) == gs.legal()
            gs.act(action_name(action, names))
        checked += 1
        k = pos.k
        state.apply_action(action)
        if state.pos.k != k:  # a deal settled: the game state ends it (Domino plays on)
            while gs.deal == k:
                gs.act(gs.legal()[0])
            assert gs.totals == state.pos.totals
            assert gs.traces()[-1]["final"] == list(state.pos.past[-1][6])
    assert state.is_terminal()
    return checked


@pytest.mark.parametrize("preset", tuple(PRESETS))
def test_one_contract_playthroughs_agree_with_the_game_state(preset):
    names = variant_names(PRESETS[preset])
    checked = 0
    for i in range(PER_PRESET):
        params = {"ruleset": preset, "contract": names[i % 12], "first_dealer": i % 4}
        game = pyspiel.load_game("python_bonken", params)
        end = playthrough(game, 1000 * i + len(preset))
        checked += agree(game, end.history(), [p[5] for p in end.pos.past])
    assert checked >= PER_PRESET * 13 * 4 - 200  # every card of every deal (Domino's less)


@pytest.mark.parametrize("preset", tuple(PRESETS))
def test_whole_games_agree_with_the_game_state(preset):
    for first in (0, 3):
        game = pyspiel.load_game("python_bonken", {"ruleset": preset, "first_dealer": first})
        end = playthrough(game, first + 7 * len(preset))
        assert agree(game, end.history(), [p[5] for p in end.pos.past]) > 11 * 60
        assert sum(end.returns()) == 0
