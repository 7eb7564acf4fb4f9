"""Bonken in PettingZoo: ``env(...)``, an AEC environment with one agent per seat, and
``GymEnv(opponents=...)``, one seat as a Gymnasium environment against the engine's
profiles (docs/RESEARCH.md). Needs the ``pettingzoo`` extra
(``pip install 'bonken-sim[pettingzoo]'``)."""

from bonken_sim.research.gym_env import BonkenGymEnv as GymEnv
from bonken_sim.research.gym_env import engine_view
from bonken_sim.research.pettingzoo_env import AGENTS, BonkenEnv, env, raw_env

__all__ = ["AGENTS", "BonkenEnv", "GymEnv", "engine_view", "env", "raw_env"]
