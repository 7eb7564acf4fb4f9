"""A slow, readable pure-Python reference of the Bonken rules and of the ``random`` and
``basic`` strategies, written from docs/RULES.md and docs/ENGINE.md.

It imports nothing from ``bonken_sim``: the differential tests compare the two.

Modules: ``cards`` (encoding, text, LO/HI), ``rng`` (splitmix64 streams, dealing),
``rules`` (variants, legality, trick winner, Domino rows, scoring), ``strategies``
(random and basic), ``play`` (``play_deal``), ``replay`` (``replay``, ``replay_detail``,
``to_record``).

Public API: ``VARIANTS``, ``card_str``, ``parse_card``, ``deal_hands``, ``play_deal``,
``replay`` and ``IllegalPlay`` (a ValueError).
"""

from .cards import card_str, parse_card
from .play import play_deal
from .replay import replay
from .rng import deal_hands
from .rules import VARIANTS, IllegalPlay

__all__ = ["VARIANTS", "IllegalPlay", "card_str", "deal_hands", "parse_card", "play_deal", "replay"]
