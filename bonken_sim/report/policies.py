"""The fitted contract-choice and doubling policies (``bonken_sim.models.choice``,
``bonken_sim.models.doubling``) as report rules.

A rule sees one part's deals (the `_deals` columns as a DataFrame). Both are classes, not
closures, so they pickle into the report's worker processes; the models load once per
process.

The doubling policy acts as in a game: on each deal only in the contract the choice policy
picks (its estimates assume the chooser chose that contract), so its realised gain per double
is measured on those (deal, contract) pairs, as ``bonken-sim ladder`` does.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

#: the chooser's relation index in the models (seats relative to the dealer: D+2)
_CHOOSER_REL = 2


class _Models:
    def __init__(self, dealer: int, models_path: str | None = None) -> None:
        self.dealer = int(dealer)
        self.models_path = models_path
        self._models: Any = None

    @property
    def models(self) -> Any:
        if self._models is None:
            from bonken_sim.models.choice import load_models

            self._models = load_models(self.models_path)
        return self._models

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_models": None}  # each process loads its own


# The last choice made in this process: the choice rule and the doubling rule both need it on
# the same part, and choose() costs more than the rest of the report's pass over a part.
_last_choice: tuple[tuple, np.ndarray] | None = None


def _choose(policy: _Models, deals: Any) -> np.ndarray:
    from bonken_sim.models.choice import choose

    global _last_choice
    chooser = (policy.dealer + _CHOOSER_REL) % 4
    hands = np.ascontiguousarray(deals[f"hand_{chooser}"].to_numpy(np.uint64))
    key = (policy.models_path, policy.dealer, hashlib.blake2b(hands.tobytes()).digest())
    if _last_choice is None or _last_choice[0] != key:
        _last_choice = (key, choose(policy.models, hands, seat=_CHOOSER_REL))
    return _last_choice[1]


class FittedChoice(_Models):
    """The choice policy: the variant with the best modelled relative value for the
    chooser's hand (``choice.choose`` without game context: every contract available)."""

    def __call__(self, deals: Any) -> np.ndarray:
        return _choose(self, deals)


class FittedDoubling(_Models):
    """The doubling policy on the contract the choice policy picks (no doubles elsewhere)."""

    def __call__(self, deals: Any, variant: str) -> np.ndarray:
        from bonken_sim.models.doubling import doubles
        from bonken_sim.models.features import FeatureCache

        out = np.zeros((len(deals), 4, 4), bool)
        picked = np.flatnonzero(_choose(self, deals) == variant)
        if len(picked):
            # features of the deals where this variant was chosen only: 4·n hands per part
            caches = [
                FeatureCache(deals[f"hand_{p}"].to_numpy(np.uint64)[picked]) for p in range(4)
            ]
            out[picked] = doubles(self.models, caches, variant, self.dealer)
        return out


def fitted_rules(dealer: int, models_path: str | None = None) -> tuple[dict, dict]:
    """(choice rules, doubling rules) for ``write_report``: the fitted policies."""
    return (
        {"policy": FittedChoice(dealer, models_path)},
        {"policy": FittedDoubling(dealer, models_path)},
    )
