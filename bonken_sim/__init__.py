"""bonken-sim: fast simulation of the Dutch card game Bonken.

Importing the package compiles nothing; kernels compile (or load from the cache) on first use.
"""

from bonken_sim.engine.decide import (
    BadView,
    ChooseView,
    Decision,
    DoubleView,
    PlayView,
    View,
    Weighed,
    decide,
)
from bonken_sim.engine.play import IllegalPlay, Playout, deal_hands, play, replay
from bonken_sim.rules.names import VARIANTS, Contract, Strategy, Variant
from bonken_sim.runs.deals import RunConfig, RunResult, run, simulate
from bonken_sim.version import __version__

__all__ = [
    "VARIANTS",
    "BadView",
    "ChooseView",
    "Contract",
    "Decision",
    "DoubleView",
    "IllegalPlay",
    "PlayView",
    "Playout",
    "Strategy",
    "Variant",
    "View",
    "Weighed",
    "__version__",
    "deal_hands",
    "decide",
    "play",
    "replay",
    "RunConfig",
    "RunResult",
    "run",
    "simulate",
]
