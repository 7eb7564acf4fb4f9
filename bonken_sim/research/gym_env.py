"""One seat of Bonken as a single-agent Gymnasium environment, the other three seats played
by the engine's profiles (``engine.decide``: ``basic``, ``advanced``, ``expert``, ...):

    env = bonken_sim.pettingzoo.GymEnv(opponents="expert")
    obs, info = env.reset(seed=1)
    while True:
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break

Observations, actions and rewards are the PettingZoo environment's for the agent's seat
(``pettingzoo_env``): the reward of a step is the agent's settled score of every deal that
ended on its action and the profiles' actions after it. An action outside the mask ends
the episode with ``illegal_reward`` (default: the worst score one deal can settle to) and
``info["illegal"]``. The profiles decide from the views a table gives them
(``PlayView``, ``ChooseView``, ``DoubleView``), never from the hidden hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from bonken_sim.engine.deal_play import PASS
from bonken_sim.engine.decide import decide, seat_policy
from bonken_sim.engine.views import ChooseView, DoubleView, PlayView
from bonken_sim.research.core import CHOOSE, DOUBLE, N_NEGATIVE, NO_DOUBLE, Position, bits
from bonken_sim.research.encoding import action_name, cards_text
from bonken_sim.research.pettingzoo_env import AGENTS, BonkenEnv


def engine_view(pos: Position) -> ChooseView | DoubleView | PlayView:
    """What the seat to act sees, as the engine's decision views (a doubling question's
    view is its seat's whole turn: the doubles said before it)."""
    kind, seat = pos.now
    names, rules, dealer = pos.setup.names, pos.setup.ruleset, pos.dealer
    hand = tuple(cards_text(pos.hand(seat)).split())
    if kind == "choose":
        return ChooseView(dealer, seat, hand, pos.k, tuple(names[v] for v in bits(pos.open)),
                          bool((pos.had >> seat) & 1), tuple(pos.totals), rules)  # fmt: skip
    v = pos.contract
    if kind == "double":
        before = [b for b in bits(pos.doubled) if (b >> 2) != seat]
        had = bool((pos.had >> pos.chooser) & 1) and v < N_NEGATIVE
        return DoubleView(dealer, seat, hand, names[v], tuple((b >> 2, b & 3) for b in before),
                          rules, pos.k, tuple(names[u] for u in bits(pos.open | 1 << v)),
                          had)  # fmt: skip
    plays = tuple((q, action_name(c, names)) for c, q in zip(pos.plays, pos.seats, strict=True))
    stake = pos.stake().tolist() if pos.doubled else None
    return PlayView(names[v], dealer, seat, hand, plays, rules, stake)


class BonkenGymEnv(gymnasium.Env):
    """Seat ``seat`` of a Bonken game (``ruleset``, ``contract``, ``deals`` as in
    ``pettingzoo_env``), the others played by ``opponents`` (one profile name, or three: the
    seats after the agent's, in order)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponents: str | Sequence[str] = "advanced", seat: int = 0,
                 ruleset: str = "standard", contract: str | None = None, deals: int = 0,
                 render_mode: str | None = None,
                 illegal_reward: float | None = None):  # fmt: skip
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be 0-3, got {seat!r}")
        names = [opponents] * 3 if isinstance(opponents, str) else list(opponents)
        if len(names) != 3:
            raise ValueError(f"opponents: one profile or three, got {len(names)}")
        for name in names:
            seat_policy(name)  # an unknown profile: one line naming the known ones
        self.profiles = {(seat + 1 + i) & 3: name for i, name in enumerate(names)}
        self.seat, self.agent = seat, AGENTS[seat]
        self.aec = BonkenEnv(ruleset, contract, deals, 0, None)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be ansi or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        bound = self.aec.setup.deal_bound()
        self.illegal_reward = float(-bound if illegal_reward is None else illegal_reward)
        self._doubles: tuple[int, ...] = ()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**62))
        self.aec.reset(seed=game_seed, options=options)
        self.decision_seed = game_seed
        reward = self._others()
        return self.aec.observe(self.agent), {"reward_before": reward}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        pos = self.aec.pos
        if pos.now[0] == "over":
            raise RuntimeError("the episode is over: call reset()")
        if int(action) not in pos.legal():
            obs = self.aec.observe(self.agent)
            return obs, self.illegal_reward, True, False, {"illegal": True}
        self.aec.step(int(action))
        reward = float(self.aec.rewards[self.agent]) + self._others()
        done = self.aec.pos.now[0] == "over"
        return self.aec.observe(self.agent), reward, done, False, {}

    def _others(self) -> float:
        """The profiles act until the agent's turn or the end; the agent's rewards meanwhile."""
        reward = 0.0
        pos = self.aec.pos
        while pos.now[0] != "over" and pos.now[1] != self.seat:
            self.aec.step(self._profile_action(pos))
            reward += float(self.aec.rewards[self.agent])
            pos = self.aec.pos
        return reward

    def _profile_action(self, pos: Position) -> int:
        kind, seat = pos.now
        if kind == "double":
            if pos.q % 3 == 0:  # the seat's turn starts: its whole answer, asked once
                view = engine_view(pos)
                self._doubles = decide(view, self.profiles[seat], self.decision_seed).doubles
            target = pos.question()[1]
            return DOUBLE if target in self._doubles else NO_DOUBLE
        decision = decide(engine_view(pos), self.profiles[seat], self.decision_seed)
        if kind == "choose":
            assert decision.contract is not None
            return CHOOSE + pos.setup.names.index(decision.contract)
        assert decision.card is not None
        return PASS if decision.card == "pass" else _CARD_IDS[decision.card]

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        self.aec.render_mode = "ansi"
        try:
            return self.aec.render()
        finally:
            self.aec.render_mode = None


_CARD_IDS = {action_name(c, ()): c for c in range(52)}
