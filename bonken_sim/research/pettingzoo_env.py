"""Bonken as a PettingZoo AEC environment: one agent per seat (``player_0`` ... ``player_3``),
turns as the game gives them (the trick winner leads).

    env = bonken_sim.pettingzoo.env(ruleset="standard")
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        mask = obs["action_mask"]
        env.step(None if termination else env.action_space(agent).sample(mask))

An observation is ``{"observation": float32[OBS_SIZE], "action_mask": int8[67]}`` (the
encoding of ``research.encoding``; the mask is all zeros for a seat not to act). Rewards
come when a deal is settled: each seat's settled score of that deal. The cards are the
engine's deals: a game ``g`` of seed ``s`` (``reset(seed=s, options={"game": g})``; a
reset without a seed plays the next game) holds deal ``11·g + k`` of ``s`` in its deal
``k`` with first dealer ``(first_dealer + g) mod 4``, as ``bonken-sim game --seed s``
deals its game ``g`` when ``first_dealer`` is 0.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError:  # one line naming the extra, not the traceback
    raise ImportError(
        "bonken_sim.pettingzoo needs PettingZoo: pip install 'bonken-sim[pettingzoo]'"
    ) from None

from bonken_sim.engine.play import deal_hands
from bonken_sim.research.core import (
    DEALS_PER_GAME,
    N_ACTIONS,
    Position,
    make_setup,
    slots_of,
)
from bonken_sim.research.encoding import (
    OBS_SIZE,
    CardRows,
    action_name,
    cards_text,
    observation_string,
    observation_tensor,
)

AGENTS = tuple(f"player_{q}" for q in range(4))
RENDER_MODES = ["human", "ansi"]


class BonkenEnv(AECEnv):
    """The AEC environment (``env()`` wraps it as PettingZoo's classic games are)."""

    metadata = {"name": "bonken_v0", "render_modes": RENDER_MODES, "is_parallelizable": False}

    def __init__(self, ruleset: str = "standard", contract: str | None = None, deals: int = 0,
                 first_dealer: int = 0, render_mode: str | None = None):  # fmt: skip
        super().__init__()
        self.setup = make_setup(ruleset, contract, deals, first_dealer)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be human, ansi or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        bound = max(1.0, self.setup.deal_bound() * self.setup.deals / 100.0)
        obs = spaces.Box(-bound, bound, (OBS_SIZE,), np.float32)
        mask = spaces.Box(0, 1, (N_ACTIONS,), np.int8)
        self._observation_spaces = {
            a: spaces.Dict({"observation": obs, "action_mask": mask}) for a in AGENTS
        }
        self._action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self.seed_value = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
        self.game = -1
        self.pos = Position(self.setup)
        self.moves = 0  # actions and resets so far: what an observation is kept for
        self.rows = CardRows()  # the position's cards as rows, for the observations
        self._rows_for: Position | None = None
        self._seen: tuple[Any, ...] = (None,)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: game ``options["game"]`` (default 0) of ``seed``, or without a seed the
        next game of the last one."""
        if seed is not None:
            self.seed_value = int(seed)
            self.game = -1
        options = options or {}
        self.game = int(options.get("game", self.game + 1))
        first = (self.setup.first_dealer + self.game) & 3
        self.pos = Position(dataclasses.replace(self.setup, first_dealer=first))
        self._rows_for = self.pos
        self.moves += 1
        self.agents = list(AGENTS)
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._deal()
        self.agent_selection = AGENTS[self.pos.seat()]

    def _deal(self) -> None:
        """Deal the position's next deal from the seed (the engine's deal)."""
        pos = self.pos
        hands = deal_hands(self.seed_value, DEALS_PER_GAME * self.game + pos.k)
        for card in slots_of(pos.dealer, hands):
            pos.apply(card)
        self.rows.deal(pos.dealt)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        # kept until the next action: the classic wrappers observe the agent to act before
        # each step, and the agent's ``last()`` asks the same again (copies handed out)
        key = (self.moves, agent, self.pos)
        if self._seen[0] != key:
            seat = AGENTS.index(agent)
            obs = np.empty(OBS_SIZE, np.float32)
            rows = self.rows if self.pos is self._rows_for else None
            observation_tensor(self.pos, seat, obs, rows=rows)
            mask = np.zeros(N_ACTIONS, np.int8)
            if self.pos.seat() == seat:
                mask[self.pos.legal()] = 1
            self._seen = (key, obs, mask)
        _, obs, mask = self._seen
        return {"observation": obs.copy(), "action_mask": mask.copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        pos = self.pos
        action = int(action)
        if action not in pos.legal():
            legal = ", ".join(action_name(a, self.setup.names) for a in pos.legal())
            raise ValueError(f"{agent}: action {action} is not legal here (legal: {legal})")
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in AGENTS}
        if pos.now[0] == "play":
            self.rows.play(pos.now[1], action)
        final = pos.apply(action)
        self.moves += 1
        if final is not None:
            self.rewards = {a: final[q] for q, a in enumerate(AGENTS)}
            if pos.kind() == "over":
                self.terminations = {a: True for a in AGENTS}
            else:
                self._deal()
        if pos.kind() != "over":
            self.agent_selection = AGENTS[pos.seat()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as text: every hand, the deal so far, the totals (``ansi`` returns it,
        ``human`` prints it)."""
        if self.render_mode is None:
            return None
        pos = self.pos
        lines = [observation_string(pos, 0, private=False)]
        if pos.kind() != "over":
            lines += [f"  seat {q}: {cards_text(pos.hand(q))}" for q in range(4)]
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """The environment as PettingZoo's classic games come: an illegal action ends the game
    with -1 for the seat that made it (``TerminateIllegalWrapper``), out-of-range actions are
    refused, and the order of calls is enforced."""
    from pettingzoo.utils import wrappers

    raw = BonkenEnv(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


raw_env = BonkenEnv
