"""Bonken in PettingZoo: ``env(...)``, an AEC environment with one agent per seat
(docs/RESEARCH.md). Needs the ``pettingzoo`` extra (``pip install 'bonken-sim[pettingzoo]'``)."""

from bonken_sim.research.pettingzoo_env import AGENTS, BonkenEnv, env, raw_env

__all__ = ["AGENTS", "BonkenEnv", "env", "raw_env"]
