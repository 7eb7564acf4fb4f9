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
        #: the run's variants, the only ones it may choose (None: all twelve)
        self.variants: tuple[str, ...] | None = None

    def for_variants(self, variants: tuple[str, ...]) -> Any:
        """This rule for a run of ``variants`` only: it chooses among them."""
        import copy

        rule = copy.copy(self)
        rule.variants = tuple(variants)
        return rule

    def allowed(self, names: list[str]) -> np.ndarray:
        """(len(names),) bool: which of ``names`` this rule may choose."""
        return np.array([self.variants is None or n in self.variants for n in names])

    @property
    def models(self) -> Any:
        if self._models is None:
            from bonken_sim.models.choice import load_models

            self._models = load_models(self.models_path)
        return self._models

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_models": None}  # each process loads its own


# The last model values computed in this process: the choice rule, its game values and the
# doubling rule all need them on the same part, and they cost more than the rest of the
# report's pass over a part.
_last_values: tuple[tuple, np.ndarray] | None = None


def _values(policy: _Models, deals: Any) -> np.ndarray:
    """(n, 12): the model's relative value of every variant for the chooser's hand."""
    from bonken_sim.models.choice import relative_values

    global _last_values
    chooser = (policy.dealer + _CHOOSER_REL) % 4
    hands = np.ascontiguousarray(deals[f"hand_{chooser}"].to_numpy(np.uint64))
    key = (policy.models_path, policy.dealer, hashlib.blake2b(hands.tobytes()).digest())
    if _last_values is None or _last_values[0] != key:
        _last_values = (key, relative_values(policy.models, hands, _CHOOSER_REL))
    return _last_values[1]


def _choose(policy: _Models, deals: Any) -> np.ndarray:
    """The variant of the run with the best relative value (``choice.choose`` without game
    context)."""
    from bonken_sim.models.choice import NAMES

    rel = np.where(policy.allowed(NAMES), _values(policy, deals), -np.inf)
    return np.asarray(NAMES, dtype=object)[rel.argmax(1)]


class FittedChoice(_Models):
    """The choice policy: the variant with the best modelled relative value for the
    chooser's hand (``choice.choose`` without game context: every contract available).

    ``game_values`` gives what the report needs to hold it to a game's troeven quota: its
    best negative, its trump call (the best troeven option, NT included) and how much more
    it values the call than that negative."""

    call_words = "the fitted choice model's best troeven option: C, D, H, S or NT"

    def __call__(self, deals: Any) -> np.ndarray:
        return _choose(self, deals)

    def game_values(self, deals: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from bonken_sim.models.choice import NAMES, NEGATIVES, TROEVENS

        rel = _values(self, deals)
        ok = self.allowed(NAMES)
        neg = np.array([NAMES.index(v) for v in NEGATIVES if ok[NAMES.index(v)]])
        trump = np.array([NAMES.index(v) for v in TROEVENS if ok[NAMES.index(v)]])
        best_neg = neg[rel[:, neg].argmax(1)]
        call = trump[rel[:, trump].argmax(1)]
        rows = np.arange(len(rel))
        names = np.asarray(NAMES, dtype=object)
        return names[best_neg], names[call], rel[rows, call] - rel[rows, best_neg]


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
