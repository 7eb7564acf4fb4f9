"""``bonken-sim advise``: which contract to choose and whom to double, for one known hand.

``config`` reads the request, ``simulation`` plays and sums the deals, ``reference`` reads
the contract averages from a finished run, ``advice`` turns the sums into the advice
document and ``text`` prints it. The names a caller needs are importable from here.
"""

from bonken_sim.analyses.advise.advice import DOUBLING_ORDER, advise, policy_choice
from bonken_sim.analyses.advise.config import (
    DEALER,
    DEFAULT_DEALS,
    MAX_TURNS,
    ROLE_OF,
    SEATS,
    AdviseConfig,
    AdviseError,
    choosable_variants,
    make_config,
    parse_hand13,
    parse_seat,
    parse_turns_left,
)
from bonken_sim.analyses.advise.simulation import CHUNK_DEALS, Played, Sums, play, played_scores

__all__ = [
    "CHUNK_DEALS",
    "DEALER",
    "DEFAULT_DEALS",
    "DOUBLING_ORDER",
    "MAX_TURNS",
    "ROLE_OF",
    "SEATS",
    "AdviseConfig",
    "AdviseError",
    "Played",
    "Sums",
    "advise",
    "choosable_variants",
    "make_config",
    "parse_hand13",
    "parse_seat",
    "parse_turns_left",
    "play",
    "played_scores",
    "policy_choice",
]
