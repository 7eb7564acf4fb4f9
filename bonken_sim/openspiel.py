"""Bonken in OpenSpiel: importing this module registers the game ``python_bonken``
(``pyspiel.load_game("python_bonken", {...})``; docs/RESEARCH.md). Needs the ``openspiel``
extra (``pip install 'bonken-sim[openspiel]'``)."""

from bonken_sim.research.openspiel_game import (
    GAME_TYPE,
    PARAMETERS,
    SHORT_NAME,
    BonkenGame,
    BonkenObserver,
    BonkenState,
)

__all__ = ["GAME_TYPE", "PARAMETERS", "SHORT_NAME", "BonkenGame", "BonkenObserver", "BonkenState"]
