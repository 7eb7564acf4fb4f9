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
LONGEST_N = 14  # a longest suit holds 4 … 13 cards

#: the contract "troeven, the trump the chooser names": on each deal, the chooser's score in
#: the troeven variant he would call (the choice model's call among C, D, H, S and NT). A game
#: has one troeven per player, played in the trump he names, so this, not a fixed suit, is
#: the troeven a chooser weighs against the negatives.
OWN_TROEVEN = "troeven"
#: a game of eleven deals: each of the 7 negatives once, troeven 4 times (RULES.md §6)
GAME_DEALS = 11
GAME_TROEVEN_DEALS = 4

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
    #: (k, V): the sum and sum of squares of the relative score on the deals a rule picked
    #: each variant (what a contract is worth when that rule chooses it)
    pick_sums: np.ndarray
    pick_sumsq: np.ndarray
    #: how the run was valued: see :class:`GameChoice` (None: not yet set)
    game: GameChoice | None = None

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
            np.zeros((k, V)),
            np.zeros((k, V)),
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
            self.pick_sums + other.pick_sums,
            self.pick_sumsq + other.pick_sumsq,
            self.game or other.game,
        )


@dataclass(frozen=True)
class GameChoice:
    """How a contract choice is valued, as a game values it.

    ``baseline`` (V,): what each variant's relative score is taken against. A negative is
    played once per game whatever the chooser does, so its baseline is its own mean chooser
    score; troeven is played once per player in the trump he names, so every troeven
    variant's baseline is the mean of the chooser's own call (:data:`OWN_TROEVEN`), not its
    fixed suit's mean. ``weights`` (V,): random choice as a game's mixture (each negative
    1/11, troeven 4/11 with a uniformly random trump option). ``troeven`` (V,) bool: the
    troeven variants. ``quota``: the share of chooser turns that are troeven in a game (4/11),
    None when the run lacks negatives or troeven. ``tau``: rule → the price on (best troeven
    − best negative) that makes the rule call troeven on ``quota`` of the deals."""

    baseline: np.ndarray
    weights: np.ndarray
    troeven: np.ndarray
    quota: float | None
    tau: dict[str, float]
    call_rule: str  # how the chooser's own trump call was made, in words


@dataclass
class Hists:
    """The pass-1 histograms of some parts (integer counts: they add up exactly)."""

    deals: int
    #: (K, R, NS): score counts per contract and seat relation
    score: np.ndarray
    #: per FEATURE_GROUPS entry, (*feature values, K, R, NS): a seat's score counts by the
    #: values of its own hand features (K contracts: the V variants, then OWN_TROEVEN when the
    #: run has every troeven variant; ``score`` has the same K)
    groups: list[np.ndarray]
    #: (4 suits, 14 lengths, 5 honours, NS): chooser's troeven-suit score by his holding in it
    trump: np.ndarray
    #: (14 longest, HCP_N, NNT): chooser's NT score − his score with his longest suit trump
    nt: np.ndarray
    #: rule → (HCP_N doubler hcp, NP pairs, V, ND): counts of s_doubler − s_target
    double: dict[str, np.ndarray]
    #: (HCP_N, LONGEST_N, K, NS): the chooser's score counts by his hcp and longest suit
    hand2: np.ndarray
    #: doubling rule → (V + 1, UNIT_SUMS) int64: per variant and over all (last row) the
    #: sums over deals of each deal's doubles, gain and gains, their squares and products
    double_units: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def empty(cls, V: int, double_rules: Sequence[str], K: int | None = None) -> Hists:
        """Empty histograms for V variants (doubles) and K ≥ V contracts (the rest)."""
        K = V if K is None else K
        return cls(
            0,
            np.zeros((K, R, NS), np.int64),
            [np.zeros((*(FEATURES[f] for f in g), K, R, NS), np.int64) for g in FEATURE_GROUPS],
            np.zeros((4, 14, 5, NS), np.int64),
            np.zeros((14, HCP_N, NNT), np.int64),
            {name: np.zeros((HCP_N, NP, V, ND), np.int64) for name in ("all", *double_rules)},
            np.zeros((HCP_N, LONGEST_N, K, NS), np.int64),
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
            self.hand2.astype(dtype),
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
        self.hand2 += o.hand2
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
    #: how the chooser's own trump call (OWN_TROEVEN) was made, in words ("": no own call)
    call_rule: str = ""

    @property
    def deals(self) -> int:
        return self.hists.deals

    @property
    def contracts(self) -> tuple[str, ...]:
        """The score histograms' contracts: the variants, then OWN_TROEVEN if counted."""
        return self.variants + ((OWN_TROEVEN,) if self.call_rule else ())

    @property
    def mu_chooser(self) -> np.ndarray:
        """Each contract's mean chooser score over the run (K,)."""
        return chooser_means(self.hists)

    def vloc(self, name: str) -> int | None:
        return self.contracts.index(name) if name in self.contracts else None


def chooser_means(h: Hists) -> np.ndarray:
    counts = h.score[:, CHOOSER, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ SCORE_VALUES) / counts.sum(-1)
