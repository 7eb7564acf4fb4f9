"""Contract choice (STRATEGIES.md §4): maximise value relative to each contract's average.

Every contract is played once per game, so choosing contract c now is worth
``EV_c(hand) − μ_c``, not ``EV_c(hand)``. ``EV`` is a linear model of the seat's score on its
own hand's features and ``μ_c`` the seat's mean score in c, both fitted by self-play and
shipped in ``bonken_sim/models/data/models.json`` (``make fit`` refits them).

>>> from bonken_sim.models.choice import load_models, choose
>>> from bonken_sim.rules.names import parse_hand
>>> import numpy as np
>>> hand = np.array([parse_hand("AH KH QH JH TH 9H 8H 7H AS KS AC KC AD")], np.uint64)
>>> str(choose(load_models(), hand)[0])
'troeven_H'
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.files import NotJson, json_document
from bonken_sim.models.features import FeatureCache
from bonken_sim.rules.names import ACES_AND_TWOS, VARIANTS
from bonken_sim.rules.rule_table import standard_deal_totals

NAMES = [v.name for v in VARIANTS]
NEGATIVES = [n for n in NAMES if not n.startswith("troeven")]
TROEVENS = [n for n in NAMES if n.startswith("troeven")]
TOTALS = {n: float(t) for n, t in zip(NAMES, standard_deal_totals(), strict=True)}
MODELS_FILE = "models.json"


def holds_ace_or_two(hands) -> np.ndarray:
    """Per hand (uint64 masks, any shape): does it hold an ace or a 2?"""
    return (np.asarray(hands, dtype=np.uint64) & np.uint64(ACES_AND_TWOS)) != 0


class ModelError(UserFixableError, ValueError):
    """A models file that cannot be used."""


class Models:
    """The fitted models: ``ev[variant][f"seat_{p}"]["coef"]``, ``mean[variant][p]``, …"""

    def __init__(self, data: dict[str, Any]) -> None:
        for key in ("ev", "mean"):
            if key not in data:
                raise ModelError(f"models file has no '{key}' section")
        missing = [n for n in NAMES if n not in data["ev"] or n not in data["mean"]]
        if missing:
            raise ModelError(f"models file lacks variant {missing[0]}")
        self.data = data
        self.ev = data["ev"]
        self.mean = data["mean"]
        self.choice = data.get("choice", {})
        self.doubling = data.get("doubling", {})
        self.provenance = data.get("provenance", {})

    def coef(self, variant: str, seat: int) -> np.ndarray:
        return np.asarray(self.ev[variant][f"seat_{seat}"]["coef"], dtype=np.float64)

    def tau(self, turns_left: int) -> float:
        """Threshold on T − N for calling troeven with ``turns_left`` chooser turns left."""
        if turns_left <= 1:
            return -np.inf
        taus = self.choice.get("tau", {})
        key = str(min(turns_left, max((int(k) for k in taus), default=2)))
        return float(taus.get(key, 0.0))


@cache
def load_models(path: str | None = None) -> Models:
    """The shipped models (or those in ``path``)."""
    try:
        if path is None:
            text = resources.files("bonken_sim.models").joinpath("data", MODELS_FILE).read_text()
        else:
            text = Path(path).read_text()
        data = json_document(text)
    except (OSError, UnicodeDecodeError, NotJson) as exc:
        raise ModelError(f"cannot read models {path or MODELS_FILE}: {exc}") from exc
    return Models(data)


def _features(hands: np.ndarray | FeatureCache) -> FeatureCache:
    return hands if isinstance(hands, FeatureCache) else FeatureCache(hands)


def expected_scores(
    models: Models, hands: np.ndarray | FeatureCache, seat: int, variants=NAMES
) -> np.ndarray:
    """(n, len(variants)): the model's expected raw score of ``seat`` holding each hand."""
    fc = _features(hands)
    return np.stack([fc.design(v) @ models.coef(v, seat) for v in variants], axis=1)


def relative_values(
    models: Models, hands: np.ndarray | FeatureCache, seat: int, variants=NAMES
) -> np.ndarray:
    """(n, len(variants)): expected score minus the variant's mean score at that seat."""
    ev = expected_scores(models, hands, seat, variants)
    mu = np.array([models.mean[v][seat] for v in variants])
    return ev - mu


def choose(
    models: Models,
    hands: np.ndarray | FeatureCache,
    seat: int = 2,
    available=None,
    trump_used: bool = False,
    turns_left: int | None = None,
    domino_ace_or_two: bool = False,
) -> np.ndarray:
    """The chosen variant name for each hand (an array of str).

    ``available``: variant names still open (default all twelve). ``trump_used``: this
    player has had his troeven, so only negatives. ``turns_left`` (this one included): with
    it, troeven is called when its best option beats the best negative by more than τ_k, and
    always on the last turn; without it, the single best relative value wins.
    ``domino_ace_or_two`` (the house rule): a hand without an ace or a 2 may not choose
    domino, unless nothing else is open to it.
    """
    avail = list(NAMES if available is None else available)
    unknown = [v for v in avail if v not in NAMES]
    if unknown:
        raise BadValue(f"unknown contract variant {unknown[0]!r}")
    negs = [v for v in avail if v in NEGATIVES]
    trumps = [] if trump_used else [v for v in avail if v in TROEVENS]
    if turns_left == 1 and trumps:
        negs = []  # the last turn of a player who has not had troeven: he must call it
    pool = negs + trumps
    if not pool:
        raise BadValue("no contract is available to choose")
    rel = relative_values(models, hands, seat, pool)
    if domino_ace_or_two and "domino" in pool and len(pool) > 1:
        fc = _features(hands)
        rel[~holds_ace_or_two(fc.hands), pool.index("domino")] = -np.inf
    if not negs or not trumps or turns_left is None:
        return np.asarray(pool, dtype=object)[np.argmax(rel, axis=1)]
    nn = len(negs)
    best_neg = np.argmax(rel[:, :nn], axis=1)
    best_trump = nn + np.argmax(rel[:, nn:], axis=1)
    rows = np.arange(len(rel))
    gap = rel[rows, best_trump] - rel[rows, best_neg]
    pick = np.where(gap > models.tau(turns_left), best_trump, best_neg)
    return np.asarray(pool, dtype=object)[pick]
