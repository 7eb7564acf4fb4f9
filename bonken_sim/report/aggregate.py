"""Streamed sufficient statistics of a run directory, part by part.

Results part ``k`` and deals part ``k`` cover the same deals, so each pair is read together,
turned into a (variant, seat relation, deal) score array, and folded into integer
histograms. Every score is a multiple of 5 between −130 and +130, so a histogram over the 53
possible values holds the count, the sum and the sum of squares exactly: a run cut into any
number of parts, aggregated by any number of workers, gives bit-identical histograms, and
the means, distributions and rates of the report all come from them.

Memory: one part's scores (int16) and hand columns, plus code arrays for at most ``SLICE``
deals at a time, per process. The only thing that grows with the run is the choice rules'
pick per deal, one byte each (10 MB for 10 million deals), kept from pass 1 to pass 2.

Two passes: the chooser's relative score of a contract (his score minus that contract's mean
chooser score) needs the means over the whole run before the per-deal hindsight choice
exists, so the choice comparison re-reads the chooser's score column only.

Speed: ``np.bincount`` costs ~4.5 ns per element here whatever the number of bins and holds
the GIL, so the work is what it counts (about 440 elements per deal); with an executor the
parts are shared between worker processes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.rules.names import BEER_CARD_NAME
from bonken_sim.runs.storage import (
    VARIANT_NAMES,
    NotARun,
    dictionary_codes,
    read_manifest,
    require_complete,
)

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
_SLOTS = [R * d + t for d, t in PAIRS]  # a pair's slot among all 16 (d, t)
_PD = np.array([d for d, _ in PAIRS])
_PT = np.array([t for _, t in PAIRS])

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
_SUIT_COLS = ("clubs", "diamonds", "hearts", "spades")
_STORED = ("hcp", "voids", "aces", "kings", "queens", "jacks", "eights", "twos", *_SUIT_COLS)

# Deals per block for the code arrays: bounds memory whatever the run's chunk size.
SLICE = 1 << 15

#: A choice rule: the deals of one part (a DataFrame of the `_deals` columns) → the chosen
#: variant name per deal. Must be picklable (a module-level function or a functools.partial
#: of one) for the work to be shared between processes; otherwise it runs in-process.
ChoiceRule = Callable[[Any], np.ndarray]
#: A doubling rule: (deals DataFrame, variant name) → bool (n, 4, 4), [i, d, t] = seat d
#: doubles seat t on deal i.
DoubleRule = Callable[[Any, str], np.ndarray]


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

    @classmethod
    def empty(cls, V: int, double_rules: Sequence[str]) -> Hists:
        return cls(
            0,
            np.zeros((V, R, NS), np.int64),
            [np.zeros((*(FEATURES[f] for f in g), V, R, NS), np.int64) for g in FEATURE_GROUPS],
            np.zeros((4, 14, 5, NS), np.int64),
            np.zeros((14, HCP_N, NNT), np.int64),
            {name: np.zeros((HCP_N, NP, V, ND), np.int64) for name in ("all", *double_rules)},
        )

    def astype(self, dtype: Any) -> Hists:
        return Hists(
            self.deals,
            self.score.astype(dtype),
            [g.astype(dtype) for g in self.groups],
            self.trump.astype(dtype),
            self.nt.astype(dtype),
            {k: v.astype(dtype) for k, v in self.double.items()},
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


# ---------------------------------------------------------------------------------------
# Reading


def open_run(path: str | os.PathLike) -> dict:
    """The manifest of a complete run; NotARun with a one-line reason otherwise."""
    root = Path(path)
    manifest = read_manifest(root)
    resume = f"with: bonken-sim run --resume --out {root}"
    require_complete(root, manifest, "deals", ("file", "deals_file"), "run", resume)
    _check_score_grid(root, manifest.get("config", {}).get("ruleset"))
    return manifest


def _check_score_grid(root: Path, record: Mapping[str, Any] | None) -> None:
    """The histograms hold scores in steps of 5 from −130 to +130, as RULES.md scores; a house
    ruleset whose point values leave that grid is refused up front with a clear reason."""
    if record is None:
        return
    from bonken_sim._core.ruleset import F_CARD_PTS, F_DOMINO_LAST_PTS, F_LAST_PTS, F_TRICK_PTS
    from bonken_sim.rules.rulesets import RulesError, Ruleset

    try:
        rules = Ruleset.from_dict(record, "run ruleset")
    except RulesError as exc:
        raise NotARun(f"{root}: {exc}") from None
    t = np.abs(rules.table.astype(np.int64))
    per_card = t[:, F_CARD_PTS : F_CARD_PTS + 52]
    bound = int((13 * t[:, F_TRICK_PTS] + per_card.sum(1) + t[:, F_LAST_PTS] +
                 t[:, F_DOMINO_LAST_PTS]).max())  # fmt: skip
    steps = np.concatenate(
        [t[:, F_TRICK_PTS], per_card.ravel(), t[:, F_LAST_PTS], t[:, F_DOMINO_LAST_PTS]]
    )
    if bound > -SCORE_MIN or (steps % SCORE_STEP).any():
        raise NotARun(
            f"{root}: played under house ruleset {rules.name!r}, whose point values give scores "
            f"beyond the report's grid ({SCORE_MIN} … {-SCORE_MIN} in steps of {SCORE_STEP}); "
            "bonken-sim summary and bonken-sim compare read such runs"
        )


@dataclass(frozen=True)
class Layout:
    """What a worker needs to know about the run (small and picklable)."""

    root: str
    variants: tuple[str, ...]
    dealer: int

    @property
    def seats(self) -> list[int]:
        """The seat of each relation."""
        return [(self.dealer + off) % 4 for off in REL_OFFSET]


def run_layout(root: Path, manifest: dict) -> Layout:
    cfg = manifest.get("config", {})
    # The beer card takes Domino's slot (variant 6) and is reported under that slot's name,
    # as io.dictionary_codes reads it; the report's metadata says so.
    listed = {"domino" if v == BEER_CARD_NAME else v for v in cfg.get("contracts", VARIANT_NAMES)}
    variants = tuple(v for v in VARIANT_NAMES if v in listed)
    return Layout(str(root), variants, int(cfg.get("dealer", 0)))


@dataclass
class Part:
    index: int
    start: int
    n: int
    scores: np.ndarray  # (V, seats read, n) int16, seats in the order asked for
    deals: Any  # pyarrow Table of the deals part (only the columns asked for), or None


def _variant_index(variants: Sequence[str]) -> np.ndarray:
    idx = np.full(len(VARIANT_NAMES) + 1, -1, np.int64)  # last slot: a null code
    for i, name in enumerate(variants):
        idx[VARIANT_NAMES.index(name)] = i
    return idx


def _read_scores(
    path: Path, start: int, n: int, variants: Sequence[str], seats: Sequence[int]
) -> np.ndarray:
    import pyarrow.parquet as pq

    vindex = _variant_index(variants)
    V = len(variants)
    out = np.zeros((V, len(seats), n), np.int16)
    filled = np.zeros(V, np.int64)
    cols = ["deal", "variant", *(f"score_{s}" for s in seats)]
    try:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1 << 17, columns=cols):
            v = vindex[dictionary_codes(batch.column(1), VARIANT_NAMES).astype(np.int64)]
            pos = batch.column(0).to_numpy() - start
            m = len(pos)
            if m == 0:
                continue
            if (v < 0).any() or pos.min() < 0 or pos.max() >= n:
                raise NotARun(f"{path}: rows outside the part's deals or variants")
            # the writer's layout (one variant per row group, deals in order) is a slice
            one = v[0] == v[-1] and (v == v[0]).all() and pos[-1] - pos[0] == m - 1
            contiguous = one and (m == 1 or (np.diff(pos) == 1).all())
            for j in range(len(seats)):
                x = batch.column(2 + j).to_numpy()
                if contiguous:
                    out[v[0], j, pos[0] : pos[0] + m] = x
                else:
                    out[v, j, pos] = x
            filled += np.bincount(v, minlength=V)
    except NotARun:
        raise
    except (OSError, ValueError, KeyError) as exc:
        raise NotARun(f"{path}: cannot read the results part: {exc}") from None
    if (filled != n).any():
        raise NotARun(f"{path}: expected {n} rows per variant, found {filled.tolist()}")
    return out


def _read_deals(path: Path, start: int, n: int, columns: Sequence[str] | None):
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=None if columns is None else ["deal", *columns])
    except (OSError, ValueError, KeyError) as exc:
        raise NotARun(f"{path}: cannot read the deals part: {exc}") from None
    deal = table.column("deal").to_numpy()
    if len(deal) != n or (n and (deal[0] != start or deal[-1] != start + n - 1)):
        raise NotARun(f"{path}: deals do not match the manifest's range")
    if n > 1 and (np.diff(deal) != 1).any():
        raise NotARun(f"{path}: deals are not in order")
    return table


def iter_parts(
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    seats: Sequence[int],
    deal_columns: Sequence[str] | None,
) -> Iterator[Part]:
    """Each part's scores (only ``seats``) with its deals (``None``: every column; ``[]``:
    none)."""
    root = Path(layout.root)
    for part in parts:
        start, n = int(part["deal_start"]), int(part["deals"])
        scores = _read_scores(root / part["file"], start, n, layout.variants, seats)
        deals = None
        if deal_columns is None or len(deal_columns):
            deals = _read_deals(root / part["deals_file"], start, n, deal_columns)
        yield Part(int(part["index"]), start, n, scores, deals)


# ---------------------------------------------------------------------------------------
# Pass 1


def _seat_features(deals, seats: Sequence[int]) -> dict[str, np.ndarray]:
    """Per-feature (R, n) arrays in relation order (seats[r] is relation r's seat)."""
    out: dict[str, np.ndarray] = {}
    for name in _STORED:
        out[name] = np.stack([deals.column(f"{name}_{s}").to_numpy() for s in seats]).astype(
            np.intp
        )
    lengths = np.stack([out[c] for c in _SUIT_COLS])  # (4 suits, R, n)
    out["longest"] = lengths.max(0)
    kh = deals.column("kh_seat").to_numpy()
    out["kh"] = np.stack([(kh == s) for s in seats]).astype(np.intp)
    return out


def _score_index(scores: np.ndarray, where: str) -> np.ndarray:
    """Scores (int16) → indices into SCORE_VALUES (intp), checking every score fits."""
    idx = (scores - np.int16(SCORE_MIN)) // np.int16(SCORE_STEP)
    bad = (idx < 0) | (idx >= NS) | (idx * np.int16(SCORE_STEP) + np.int16(SCORE_MIN) != scores)
    if bad.any():
        raise NotARun(f"{where}: scores outside −130 … 130 in steps of 5")
    return idx.astype(np.intp)


def _bincount_into(target: np.ndarray, codes: np.ndarray) -> None:
    flat = target.reshape(-1)  # the histograms are contiguous: a view, not a copy
    flat += np.bincount(codes.reshape(-1), minlength=flat.size)


def _suit_holding(hands: np.ndarray, suit: int) -> tuple[np.ndarray, np.ndarray]:
    """Length and honours (A, K, Q, J) of ``suit`` in each hand mask."""
    bits = (hands >> np.uint64(13 * suit)) & np.uint64(0x1FFF)
    honours = bits >> np.uint64(9)
    return np.bitwise_count(bits).astype(np.intp), np.bitwise_count(honours).astype(np.intp)


def _pair_mask(doubles: np.ndarray, seats: Sequence[int], n: int) -> np.ndarray:
    """(n, 4, 4) seat doubles → (NP, n) bool in relation-pair order."""
    d = np.asarray(doubles, bool)
    if d.shape != (n, 4, 4):
        raise ValueError(f"a doubling rule returned shape {d.shape}, expected ({n}, 4, 4)")
    return np.stack([d[:, seats[a], seats[b]] for a, b in PAIRS])


def _add_doubles(hist: np.ndarray, sidx: np.ndarray, hcp: np.ndarray) -> None:
    """Fold s_doubler − s_target of every (variant, ordered pair) into ``hist`` (laid out
    (HCP_N, R·R, V, ND): pair slot 4·d + t).

    code = A[v, d] − B[v, t] with everything but the target's score folded into A and B
    beforehand, broadcast over all 16 (d, t) slots: one subtraction, 4x faster than
    gathering the 12 real pairs; the 4 diagonal slots are dropped at the end."""
    V = sidx.shape[0]
    unit = V * ND
    rel = np.arange(R)[None, :, None]
    a = sidx + (hcp * (R * R * unit))[None] + rel * (R * unit)
    a += (np.arange(V) * ND + (ND - 1) // 2)[:, None, None]
    b = sidx - rel * unit
    _bincount_into(hist, a[:, :, None, :] - b[:, None, :, :])


def _add_rule_doubles(hist: np.ndarray, sidx: np.ndarray, hcp: np.ndarray, mask: np.ndarray):
    """As :func:`_add_doubles`, only the doubles a rule made (``mask`` (V, NP, m)): a few
    per deal, so they are picked out first and only they are coded."""
    V = sidx.shape[0]
    v, p, i = np.nonzero(mask)
    d, t = _PD[p], _PT[p]
    diff = sidx[v, d, i] - sidx[v, t, i] + (ND - 1) // 2
    _bincount_into(hist, ((hcp[d, i] * (R * R) + R * d + t) * V + v) * ND + diff)


def _trump_stats(h: Hists, sidx, chooser_hand, feats, a, b, suit_v, nt_v) -> None:
    holdings = []
    for s, v in enumerate(suit_v):
        length, honours = _suit_holding(chooser_hand, s)
        holdings.append((length, honours))
        if v is None:
            continue
        _bincount_into(h.trump, ((s * 14 + length) * 5 + honours) * NS + sidx[v, CHOOSER])
    if nt_v is None or any(v is None for v in suit_v):
        return
    # the suit a player would name: longest, then most honours, then the higher suit
    key = np.stack([(ln * 5 + hon) * 4 + s for s, (ln, hon) in enumerate(holdings)])
    best = key.argmax(0)
    suit_sidx = np.stack([sidx[v, CHOOSER] for v in suit_v])  # (4, m)
    best_sidx = np.take_along_axis(suit_sidx, best[None, :], 0)[0]
    # both scores are multiples of 10: score-index steps of 5 points → halve
    diff = (sidx[nt_v, CHOOSER] - best_sidx) // 2 + (NNT - 1) // 2
    longest = feats["longest"][CHOOSER, a:b]
    hcp = feats["hcp"][CHOOSER, a:b]
    _bincount_into(h.nt, (longest * HCP_N + hcp) * NNT + diff)


def pass_one(
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    double_rules: Mapping[str, DoubleRule] | None = None,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
) -> tuple[Hists, dict[int, dict[str, np.ndarray]]]:
    """The pass-1 histograms of ``parts`` (any subset of the run's parts), and each choice
    rule's pick per deal (int8 variant indices, by part index) for pass 2.

    The rules run here, once per part: pass 2 needs the picks, and a rule such as the fitted
    policy costs more than everything else; the picks are one byte per deal."""
    double_rules = dict(double_rules or {})
    choice_rules = dict(choice_rules or {})
    seats = layout.seats
    V = len(layout.variants)
    h = Hists.empty(V, list(double_rules))
    picks: dict[int, dict[str, np.ndarray]] = {}
    suit_v = [_loc(layout, f"troeven_{s}") for s in "CDHS"]
    nt_v = _loc(layout, "troeven_NT")
    cols = None
    if not (double_rules or choice_rules):  # rules see the whole deals table
        cols = [f"hand_{s}" for s in seats] + [f"{f}_{s}" for f in _STORED for s in seats]
        cols.append("kh_seat")
    base_vr = (np.arange(V)[:, None, None] * R + np.arange(R)[None, :, None]) * NS
    wide = {k: np.zeros((HCP_N, R * R, V, ND), np.int64) for k in h.double}
    for part in iter_parts(layout, parts, seats, cols):
        h.deals += part.n
        feats = _seat_features(part.deals, seats)
        chooser_hand = part.deals.column(f"hand_{seats[CHOOSER]}").to_numpy()
        masks: dict[str, np.ndarray] = {}
        if double_rules or choice_rules:
            frame = part.deals.to_pandas()
            picks[part.index] = {
                name: _variant_ids(rule(frame), layout.variants, name, part.n).astype(np.int8)
                for name, rule in choice_rules.items()
            }
            for name, rule in double_rules.items():
                masks[name] = np.stack(
                    [_pair_mask(rule(frame, v), seats, part.n) for v in layout.variants]
                )  # (V, NP, n)
        for a in range(0, part.n, SLICE):
            b = min(part.n, a + SLICE)
            sidx = _score_index(part.scores[:, :, a:b], f"part {part.index}")
            base = base_vr + sidx
            _bincount_into(h.score, base)
            for group, hist in zip(FEATURE_GROUPS, h.groups, strict=True):
                x = np.zeros((R, b - a), np.intp)
                for fname in group:
                    xf = feats[fname][:, a:b]
                    if xf.min(initial=0) < 0 or xf.max(initial=0) >= FEATURES[fname]:
                        raise NotARun(f"part {part.index}: hand feature {fname} out of range")
                    x = x * FEATURES[fname] + xf
                _bincount_into(hist, base + (x * (V * R * NS))[None, :, :])
            hcp = feats["hcp"][:, a:b]
            _add_doubles(wide["all"], sidx, hcp)
            for name, mask in masks.items():
                _add_rule_doubles(wide[name], sidx, hcp, mask[:, :, a:b])
            _trump_stats(h, sidx, chooser_hand[a:b], feats, a, b, suit_v, nt_v)
    h.double = {k: np.ascontiguousarray(w[:, _SLOTS]) for k, w in wide.items()}
    return h, picks


def _loc(layout: Layout, name: str) -> int | None:
    return layout.variants.index(name) if name in layout.variants else None


# ---------------------------------------------------------------------------------------
# Pass 2: the chooser's relative score under each choice rule


def paired_choice(
    rel: np.ndarray, chosen: Mapping[str, np.ndarray], acc: ChoiceStats | None = None
) -> ChoiceStats:
    """Fold one block of deals into the choice comparison.

    ``rel`` (V, n): the chooser's relative score of every variant on each deal; ``chosen``:
    rule name → variant index per deal. Uniform random choice enters as its exact expectation
    over the variants (the mean of each column): paired with every rule, with less variance
    than a sampled choice. Returns ``acc`` updated (or a new one)."""
    V, n = rel.shape
    if acc is None:
        acc = ChoiceStats.empty((*chosen, "random"), V)
    cols = np.arange(n)
    values = [rel[chosen[name], cols] for name in chosen] + [rel.mean(0)]
    for i, x in enumerate(values):
        acc.sums[i] += x.sum()
        acc.sumsq[i] += (x * x).sum()
        for j, y in enumerate(values):
            if j != i:
                d = x - y
                acc.diff_sums[i, j] += d.sum()
                acc.diff_sumsq[i, j] += (d * d).sum()
        if i < len(chosen):
            acc.chosen[i] += np.bincount(chosen[acc.rules[i]], minlength=V)
    acc.n += n
    return acc


def _variant_ids(picked: Any, variants: Sequence[str], rule: str, n: int) -> np.ndarray:
    """A rule's chosen variant names → indices into the run's variants."""
    names = np.asarray(picked)
    if names.shape != (n,):
        raise ValueError(f"choice rule {rule!r} returned shape {names.shape}, expected ({n},)")
    uniq, inverse = np.unique(names.astype(str), return_inverse=True)
    lookup = {v: i for i, v in enumerate(variants)}
    missing = [u for u in uniq if u not in lookup]
    if missing:
        raise ValueError(
            f"choice rule {rule!r} chose {missing[0]!r}, which is not a variant of the run"
        )
    return np.array([lookup[u] for u in uniq], np.intp)[inverse]


def pass_two(
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    mu: np.ndarray,
    picks: Mapping[int, Mapping[str, np.ndarray]] | None = None,
    rules: Sequence[str] = (),
) -> ChoiceStats:
    """The choice comparison over ``parts``, given each variant's mean chooser score and the
    choice rules' picks from pass 1 (by part index, then rule name)."""
    acc = ChoiceStats.empty(("hindsight", *rules, "random"), len(layout.variants))
    seats = layout.seats
    for part in iter_parts(layout, parts, [seats[CHOOSER]], []):
        rel = part.scores[:, 0, :].astype(np.float64) - mu[:, None]
        chosen: dict[str, np.ndarray] = {"hindsight": rel.argmax(0)}
        for name in rules:
            chosen[name] = (picks or {})[part.index][name].astype(np.intp)
        paired_choice(rel, chosen, acc)
    return acc


# ---------------------------------------------------------------------------------------
# Both passes


def _pass_one_compact(*args: Any) -> tuple[Hists, dict[int, dict[str, np.ndarray]]]:
    """:func:`pass_one` in a worker: the counts go back as int32 (a bin holds at most one
    part's deals, < 2^31), half the bytes to pickle."""
    h, picks = pass_one(*args)
    return h.astype(np.int32), picks


def _split(parts: Sequence[Any], k: int) -> list[list[Any]]:
    """Parts dealt round-robin to ``k`` groups (the last part is often shorter)."""
    groups: list[list[Any]] = [list(parts[i::k]) for i in range(k)]
    return [g for g in groups if g]


def _picklable(*objs: Any) -> bool:
    import pickle

    try:
        pickle.dumps(objs)
    except Exception:  # noqa: BLE001 - any failure means: run in this process
        return False
    return True


def _parallel_pass_one(
    executor: Executor,
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    double_rules: Mapping[str, DoubleRule] | None,
    choice_rules: Mapping[str, ChoiceRule] | None,
    absorb: Callable[[tuple[Hists, dict[int, dict[str, np.ndarray]]]], None],
    slots: int,
) -> None:
    """One task per part, taken by the workers from the front; this process takes parts from
    the back until it meets one a worker has. Results are merged as they arrive and dropped:
    memory stays a few parts, not the run.

    The tasks are submitted from a thread: the first submit to a fresh forkserver pool
    blocks until the server has imported its preload (about 2 s), and this process works
    through parts from the back meanwhile instead of waiting."""
    lock = threading.Lock()
    pending: dict[int, Future] = {}
    state: dict[int, str] = {}  # part index → submitting, submitted, mine or merged
    failure: list[BaseException] = []

    def feed() -> None:
        try:
            for p in parts:
                i = p["index"]
                # at most one task per worker: a task in the executor's queue can no longer
                # be cancelled, and this process would idle while it waits there
                while True:
                    with lock:
                        busy = [f for f in pending.values() if not f.done()]
                    if len(busy) < slots:
                        break
                    wait(busy, return_when=FIRST_COMPLETED)
                with lock:
                    if i in state:  # this process has reached the front
                        return
                    state[i] = "submitting"
                fut = executor.submit(_pass_one_compact, layout, [p], double_rules, choice_rules)
                with lock:
                    pending[i], state[i] = fut, "submitted"
        except BaseException as exc:  # noqa: BLE001 - raised again by the driver
            failure.append(exc)

    def absorb_done(block: bool) -> None:
        with lock:
            futures = dict(pending)
        done = [i for i, f in futures.items() if f.done()]
        if block and not done and futures:
            finished = wait(list(futures.values()), return_when=FIRST_COMPLETED).done
            done = [i for i, f in futures.items() if f in finished]
        for i in done:
            with lock:
                fut = pending.pop(i)
                state[i] = "merged"
            absorb(fut.result())

    feeder = threading.Thread(target=feed, name="report-feeder", daemon=True)
    feeder.start()
    try:
        for part in reversed(parts):
            i = part["index"]
            with lock:
                if i not in state:
                    state[i] = "mine"  # the feeder stops when it gets here
                elif state[i] == "submitted" and pending[i].cancel():
                    del pending[i]
                    state[i] = "mine"
                else:  # being submitted, started by a worker, or already merged
                    break
            absorb(pass_one(layout, [part], double_rules, choice_rules))
            absorb_done(block=False)
    finally:
        feeder.join()
    if failure:
        raise failure[0]
    while pending:
        absorb_done(block=True)


def first_pass(
    path: str | os.PathLike,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
    double_rules: Mapping[str, DoubleRule] | None = None,
    manifest: dict | None = None,
    executor: Executor | None = None,
    workers: int = 1,
) -> tuple[RunStats, dict[int, dict[str, np.ndarray]]]:
    """Pass 1 over a complete run: every statistic but the choice comparison, and the choice
    rules' picks that :func:`second_pass` needs.

    With ``executor`` (and ``workers`` > 1) the parts are split into ``workers`` groups
    aggregated in parallel; the histograms are the same bit for bit."""
    root = Path(path)
    manifest = manifest if manifest is not None else open_run(root)
    layout = run_layout(root, manifest)
    parts = sorted(manifest["parts"], key=lambda p: p["index"])
    parallel = executor is not None and workers > 1 and len(parts) > 1
    parallel = parallel and _picklable(choice_rules, double_rules)
    hists = Hists.empty(len(layout.variants), list(double_rules or {}))
    picks: dict[int, dict[str, np.ndarray]] = {}

    def absorb(result: tuple[Hists, dict[int, dict[str, np.ndarray]]]) -> None:
        hists.merge(result[0])
        picks.update(result[1])

    if not parallel:
        absorb(pass_one(layout, parts, double_rules, choice_rules))
    else:
        assert executor is not None
        _parallel_pass_one(executor, layout, parts, double_rules, choice_rules, absorb, workers)
    return RunStats(manifest, layout.variants, layout.dealer, hists, str(root)), picks


def second_pass(
    stats: RunStats,
    picks: Mapping[int, Mapping[str, np.ndarray]],
    rules: Sequence[str] = (),
    executor: Executor | None = None,
    workers: int = 1,
) -> RunStats:
    """Pass 2: the choice comparison (hindsight, the ``rules`` picked in pass 1, random),
    which needs each variant's mean chooser score over the whole run. Sets ``stats.choice``
    (None with fewer than two variants)."""
    if len(stats.variants) < 2:
        return stats
    layout = Layout(stats.root, stats.variants, stats.dealer)
    parts = sorted(stats.manifest["parts"], key=lambda p: p["index"])
    mu = chooser_means(stats.hists)
    parallel = executor is not None and workers > 1 and len(parts) > 1
    groups = _split(parts, workers if parallel else 1)

    def sub(g: list) -> dict:
        return {p["index"]: picks[p["index"]] for p in g} if rules else {}

    if parallel:
        assert executor is not None
        futures = [executor.submit(pass_two, layout, g, mu, sub(g), rules) for g in groups]
        cs = [f.result() for f in futures]
    else:
        cs = [pass_two(layout, g, mu, sub(g), rules) for g in groups]
    choice = cs[0]
    for c in cs[1:]:
        choice = choice.merge(c)
    stats.choice = choice
    return stats


def aggregate(
    path: str | os.PathLike,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
    double_rules: Mapping[str, DoubleRule] | None = None,
    manifest: dict | None = None,
    executor: Executor | None = None,
    workers: int = 1,
) -> RunStats:
    """Both passes over a complete run: every statistic of the report."""
    stats, picks = first_pass(path, choice_rules, double_rules, manifest, executor, workers)
    return second_pass(stats, picks, list(choice_rules or {}), executor, workers)
