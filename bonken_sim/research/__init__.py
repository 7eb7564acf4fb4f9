"""Bonken for game-AI research: OpenSpiel's python_bonken, a PettingZoo environment and a
Gymnasium one, all on the engine's rules (docs/RESEARCH.md). Never imports table/."""
