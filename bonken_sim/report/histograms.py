"""The report's histograms: the score grid, seat relations, hand features, and the
containers the two passes fill (``Hists``, ``ChoiceStats``) and the report reads (``RunStats``).

Every score is a multiple of 5 between −130 and +130, so a histogram over the 53 possible
values holds the count, the sum and the sum of squares exactly: a run cut into any number of
parts, aggregated by any number of workers, gives bit-identical histograms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Seat relations, in playing order; seat = (dealer + REL_OFFSET[r]) % 4. "first_doubler" is
# D+3, who speaks first in the doubling round.
REL_NAMES = ("leader", "chooser", "first_doubler", "dealer")
REL_OFFSET = (1, 2, 3, 0)
R = 4
CHOOSER = 1

SCORE_MIN, SCORE_STEP = -130, 5
SCORE_VALUES = np.arange(SCORE_MIN, -SCORE_MIN + 1, SCORE_STEP)  # 53 values
NS = len(SCORE_VALUES)
DIFF_VALUES = np.arange(2 * SCORE_MIN, -2 * SCORE_MIN + 1, SCORE_STEP)  # s_d − s_t: 105 values
ND = len(DIFF_VALUES)
NT_DIFF_VALUES = np.arange(-130, 131, 10)  # troeven scores are multiples of 10
NNT = len(NT_DIFF_VALUES)
HCP_N = 38  # 0 … 37

#: ordered (doubler, target) pairs of seat relations
PAIRS = tuple((d, t) for d in range(R) for t in range(R) if d != t)
NP = len(PAIRS)

#: per-seat hand features whose effect on the seat's own score is tabulated: name → values
FEATURES: dict[str, int] = {
    "hcp": HCP_N,
    "voids": 4,  # 13 cards leave at most 3 suits empty
    "longest": 14,
    "hearts": 14,
    "aces": 5,
    "kings": 5,
    "queens": 5,
    "jacks": 5,
    "eights": 5,
    "twos": 5,
    "kh": 2,  # 1 = holds the K♥
}
#: features counted jointly: one bincount per group instead of one per feature (counting
#: costs per element, and a joint histogram of up to ~1000 values is barely slower than one
#: of 5); each feature's own histogram is the group's summed over the others
FEATURE_GROUPS = (
    ("hcp",),
    ("longest", "hearts"),
    ("kings", "queens", "jacks"),
    ("kh", "voids", "aces", "twos", "eights"),
)
assert sorted(sum(FEATURE_GROUPS, ())) == sorted(FEATURES)

#: a doubling rule's per-deal sums (the deal is the unit, its doubles are not independent):
#: over deals of x = doubles made, g = their summed gain s_d − s_t, k = doubles that gained,
#: u = 1 if the deal had a double
UNIT_SUMS = ("x", "g", "k", "xx", "gg", "kk", "xg", "xk", "u")


@dataclass
class ChoiceStats:
    """The chooser's relative score per deal under each choice rule, as moments."""

    rules: tuple[str, ...]  # "hindsight", policies…, "random" last
    n: int
    sums: np.ndarray  # (k,)
    sumsq: np.ndarray
    diff_sums: np.ndarray  # (k, k): rule i − rule j, paired per deal
    diff_sumsq: np.ndarray
    chosen: np.ndarray  # (k, V) how often each rule picked each variant

    @classmethod
    def empty(cls, rules: Sequence[str], V: int) -> ChoiceStats:
        k = len(rules)
        return cls(
            tuple(rules),
            0,
            np.zeros(k),
            np.zeros(k),
            np.zeros((k, k)),
            np.zeros((k, k)),
            np.zeros((k, V), np.int64),
        )

    def merge(self, other: ChoiceStats) -> ChoiceStats:
        assert self.rules == other.rules
        return ChoiceStats(
            self.rules,
            self.n + other.n,
            self.sums + other.sums,
            self.sumsq + other.sumsq,
            self.diff_sums + other.diff_sums,
            self.diff_sumsq + other.diff_sumsq,
            self.chosen + other.chosen,
        )


@dataclass
class Hists:
    """The pass-1 histograms of some parts (integer counts: they add up exactly)."""

    deals: int
    #: (V, R, NS): score counts per variant and seat relation
    score: np.ndarray
    #: per FEATURE_GROUPS entry, (*feature values, V, R, NS): a seat's score counts by the
    #: values of its own hand features
    groups: list[np.ndarray]
    #: (4 suits, 14 lengths, 5 honours, NS): chooser's troeven-suit score by his holding in it
    trump: np.ndarray
    #: (14 longest, HCP_N, NNT): chooser's NT score − his score with his longest suit trump
    nt: np.ndarray
    #: rule → (HCP_N doubler hcp, NP pairs, V, ND): counts of s_doubler − s_target
    double: dict[str, np.ndarray]
    #: doubling rule → (V + 1, UNIT_SUMS) int64: per variant and over all (last row) the
    #: sums over deals of each deal's doubles, gain and gains, their squares and products
    double_units: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def empty(cls, V: int, double_rules: Sequence[str]) -> Hists:
        return cls(
            0,
            np.zeros((V, R, NS), np.int64),
            [np.zeros((*(FEATURES[f] for f in g), V, R, NS), np.int64) for g in FEATURE_GROUPS],
            np.zeros((4, 14, 5, NS), np.int64),
            np.zeros((14, HCP_N, NNT), np.int64),
            {name: np.zeros((HCP_N, NP, V, ND), np.int64) for name in ("all", *double_rules)},
            {name: np.zeros((V + 1, len(UNIT_SUMS)), np.int64) for name in double_rules},
        )

    def astype(self, dtype: Any) -> Hists:
        return Hists(
            self.deals,
            self.score.astype(dtype),
            [g.astype(dtype) for g in self.groups],
            self.trump.astype(dtype),
            self.nt.astype(dtype),
            {k: v.astype(dtype) for k, v in self.double.items()},
            self.double_units,  # sums of squares: kept int64 (they outgrow int32)
        )

    def feature(self, name: str) -> np.ndarray:
        """(values, V, R, NS): a seat's score counts by the value of one hand feature."""
        for group, hist in zip(FEATURE_GROUPS, self.groups, strict=True):
            if name in group:
                k = group.index(name)
                others = tuple(i for i in range(len(group)) if i != k)
                return hist.sum(axis=others) if others else hist
        raise KeyError(name)

    def merge(self, o: Hists) -> Hists:
        """Add ``o``'s counts into these (in place: the arrays are tens of MB); self."""
        self.deals += o.deals
        self.score += o.score
        for a, b in zip(self.groups, o.groups, strict=True):
            a += b
        self.trump += o.trump
        self.nt += o.nt
        for k, v in self.double.items():
            v += o.double[k]
        for k, v in self.double_units.items():
            v += o.double_units[k]
        return self


@dataclass
class RunStats:
    """Everything the report shows, as histograms over the run."""

    manifest: dict
    variants: tuple[str, ...]  # the run's variants, in VARIANT_NAMES order
    dealer: int
    hists: Hists
    root: str = ""
    choice: ChoiceStats | None = None

    @property
    def deals(self) -> int:
        return self.hists.deals

    @property
    def mu_chooser(self) -> np.ndarray:
        """Each variant's mean chooser score over the run (V,)."""
        return chooser_means(self.hists)

    def vloc(self, name: str) -> int | None:
        return self.variants.index(name) if name in self.variants else None


def chooser_means(h: Hists) -> np.ndarray:
    counts = h.score[:, CHOOSER, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ SCORE_VALUES) / counts.sum(-1)
