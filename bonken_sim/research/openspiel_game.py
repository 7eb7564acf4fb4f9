"""Bonken as an OpenSpiel game: importing this module registers ``python_bonken``.

    game = pyspiel.load_game("python_bonken", {"ruleset": "strict", "contract": "bukken"})

Parameters: ``ruleset`` (a preset name, default ``standard``), ``contract`` (a variant name
for one contract, every deal played in it without choice or doubling; empty: the whole
game), ``deals`` (1-11; 0, the default: 11 for a whole game, 1 for one contract) and
``first_dealer`` (0-3); with one contract, ``doubles`` in force in every deal (bits
``4·doubler + target``; default none), settled as any doubles.

The deal is explicit chance, one card a node: 52 nodes a deal, each outcome a card still
in the deck with probability 1/(cards left), card ``n`` to seat ``(D + 1 + n) mod 4``, so
exact tools (CFR, ``get_all_states`` on tiny setups) see the deal and a state's history
replays it. The actions (``core``): 0-51 a card, 52 a Domino pass, 53-64 a variant, 65 no
double, 66 double. Rewards: a deal's settled scores at the next decision (``rewards()``),
``returns()`` the running totals (GENERAL_SUM: a deal alone need not sum to zero, a whole
game does). The game itself is ``core.Position``'s, whose rules come from the engine.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError:  # one line naming the extra, not pyspiel's traceback
    raise ImportError(
        "bonken_sim.openspiel needs OpenSpiel: pip install 'bonken-sim[openspiel]'"
    ) from None

from bonken_sim.research.core import N_ACTIONS, Position, Setup, make_setup, slots_of
from bonken_sim.research.encoding import (
    DEAL_SIZE,
    INFO_HEAD,
    OBS_BLOCKS,
    OBS_SIZE,
    action_name,
    cards_text,
    information_state,
    information_state_size,
    information_state_tensor,
    observation_string,
    observation_tensor,
)

SHORT_NAME = "python_bonken"
PARAMETERS = {"ruleset": "standard", "contract": "", "deals": 0, "first_dealer": 0,
              "doubles": 0}  # fmt: skip

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Bonken (bonken-sim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


#: (card, 1/n) for n cards left: a deal's 52 chance nodes build no pairs of their own
_PAIRS = [[(c, 1.0 / n) for c in range(52)] if n else [] for n in range(53)]


def setup_of(params: dict[str, Any]) -> Setup:
    """The game's settings from its parameters (one-line ``BadValue`` for a bad one)."""
    return make_setup(params["ruleset"], params["contract"] or None, params["deals"],
                      params["first_dealer"], params["doubles"])  # fmt: skip


class BonkenGame(pyspiel.Game):
    """``python_bonken``: four seats, one action space of ``N_ACTIONS`` ids."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**PARAMETERS, **(params or {})}
        self.setup = setup_of(params)
        bound = float(self.setup.deal_bound() * self.setup.deals)
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=52,
            num_players=4,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=None,
            max_game_length=self.setup.max_decisions(),
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> BonkenState:
        return BonkenState(self)

    def max_chance_nodes_in_history(self) -> int:
        return 52 * self.setup.deals

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BonkenObserver:
        return BonkenObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                              params, self.setup.deals)  # fmt: skip


class BonkenState(pyspiel.State):
    """A game of ``python_bonken``: a ``core.Position`` (``pos``), the totals at the last
    decision (for ``rewards()``) and where this deal's chance nodes start in the history."""

    def __init__(self, game: BonkenGame):
        super().__init__(game)
        self.pos = Position(game.setup)
        self.reward_base = [0, 0, 0, 0]
        self.deal_start = 0

    def current_player(self) -> int:
        kind, seat = self.pos.now
        if seat >= 0:
            return seat
        return pyspiel.PlayerId.CHANCE if kind == "deal" else pyspiel.PlayerId.TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        return self.pos.legal() if player == self.pos.now[1] else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self.pos.legal()
        pairs = _PAIRS[len(left)]
        return [pairs[c] for c in left]

    def _apply_action(self, action: int) -> None:
        pos = self.pos
        if pos.now[0] != "deal":
            self.reward_base = pos.totals
        elif not pos.cards:
            self.deal_start = len(self.history())
        pos.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action_name(action, self.pos.setup.names)}"
        return action_name(action, self.pos.setup.names)

    def is_terminal(self) -> bool:
        return self.pos.now[0] == "over"

    def returns(self) -> list[float]:
        return [float(t) for t in self.pos.totals]

    def rewards(self) -> list[float]:
        return [float(t - b) for t, b in zip(self.pos.totals, self.reward_base, strict=True)]

    def __str__(self) -> str:
        pos = self.pos
        hands = " | ".join(f"{q}: {cards_text(pos.hand(q))}" for q in range(4))
        return f"{observation_string(pos, 0, private=False)}\nhands {hands}"

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BonkenState:
        """A state whose information state for ``player_id`` is this one's, with the hands
        it has not seen dealt anew (``core.Position.resample``: the engine's sampler, every
        play, the choice and the doubles checked legal again), its history replayed."""
        pos = self.pos
        draw = int(probability_sampler() * 2**53) ^ int(probability_sampler() * 2**53) << 11
        history = self.history()
        if pos.kind() == "over" or not pos.cards:
            return self.clone()
        if len(pos.cards) < 52:
            mine = [c for n, c in enumerate(pos.cards) if (pos.dealer + 1 + n) & 3 == player_id]
            others = [c for c in pos.cards if c not in mine]
            random.Random(draw).shuffle(others)
            order = iter(others)
            cards = [c if c in mine else next(order) for c in pos.cards]
        else:
            cards = slots_of(pos.dealer, pos.resample(player_id, draw))
        state = self.get_game().new_initial_state()
        start = self.deal_start
        for a in history[:start]:
            state.apply_action(a)
        for a in cards:
            state.apply_action(a)
        for a in history[start + len(cards) :]:
            state.apply_action(a)
        return state


class BonkenObserver:
    """OpenSpiel's observer of ``python_bonken`` (``open_spiel.python.observation``): the
    observation tensor (``encoding.OBS_BLOCKS``, named in ``dict``) and string; with perfect
    recall the information-state tensor (``encoding.INFO_HEAD``, then a block per deal,
    ``deal_0`` ...) and string. Public-only observers (``PrivateInfoType.NONE``) leave out
    the seat's own cards."""

    def __init__(self, iig_obs_type: Any, params: Any, deals: int):
        if params:
            raise ValueError(f"python_bonken's observer takes no parameters, got {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("python_bonken observes one seat or the public (no ALL_PLAYERS)")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.dict: dict[str, np.ndarray] = {}
        if self.perfect_recall:
            self.tensor = np.zeros(information_state_size(deals), np.float32)
            at = 0
            for name, n in INFO_HEAD:
                self.dict[name] = self.tensor[at : at + n]
                at += n
            for k in range(deals):
                self.dict[f"deal_{k}"] = self.tensor[at : at + DEAL_SIZE]
                at += DEAL_SIZE
        else:
            self.tensor = np.zeros(OBS_SIZE, np.float32)
            at = 0
            for name, n in OBS_BLOCKS:
                self.dict[name] = self.tensor[at : at + n]
                at += n

    def set_from(self, state: BonkenState, player: int) -> None:
        if self.perfect_recall:
            information_state_tensor(state.pos, player, self.tensor, self.private)
        else:
            observation_tensor(state.pos, player, self.tensor, self.private)

    def string_from(self, state: BonkenState, player: int) -> str:
        if self.perfect_recall:
            return information_state(state.pos, player, self.private)
        return observation_string(state.pos, player, self.private)


pyspiel.register_game(GAME_TYPE, BonkenGame)
