"""Pass 1 of the report: one part's scores and deals folded into integer histograms.

Memory: one part's scores (int16) and hand columns, plus code arrays for at most ``SLICE``
deals at a time, per process. The choice rules run here, once per part, and their pick per
deal (one byte) is kept for pass 2.

Speed: ``np.bincount`` costs ~4.5 ns per element here whatever the number of bins and holds
the GIL, so the work is what it counts (about 440 elements per deal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from bonken_sim.report.deals.stats.histograms import (
    CHOOSER,
    FEATURE_GROUPS,
    FEATURES,
    HCP_N,
    LONGEST_N,
    ND,
    NNT,
    NS,
    PAIRS,
    SCORE_MIN,
    SCORE_STEP,
    Hists,
    R,
)
from bonken_sim.report.deals.stats.run_reader import Layout, iter_parts
from bonken_sim.runs.storage import NotARun

_SLOTS = [R * d + t for d, t in PAIRS]  # a pair's slot among all 16 (d, t)
_PD = np.array([d for d, _ in PAIRS])
_PT = np.array([t for _, t in PAIRS])
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

#: A choice rule may also say how it weighs troeven against the negatives: a method
#: ``game_values(deals)`` → (best negative name, trump call name, gap) per deal, the gap being
#: its value of the call minus its value of the best negative. Such a rule gets a second row
#: under the game's troeven quota, and the first such rule's trump call is the chooser's own
#: call (OWN_TROEVEN); without one, the own call is his longest suit.
GAME_VALUES = "game_values"
#: the picks' key of the chooser's own trump call, and the suffixes of a rule's game values
CALL_KEY = "@call"
NEG_SUFFIX, GAP_SUFFIX = "@neg", "@gap"
LONGEST_CALL = "his longest suit (ties: more of A K Q J, then the higher suit), never NT"


def has_own_call(variants: Sequence[str]) -> bool:
    """Whether the run plays every troeven option, so the chooser's own call can be scored."""
    return all(f"troeven_{t}" in variants for t in ("C", "D", "H", "S", "NT"))


def weighs_troeven(variants: Sequence[str]) -> bool:
    """Whether a choice between troeven (the own call) and negatives can be valued: every
    troeven option and at least one negative."""
    return has_own_call(variants) and any(not v.startswith("troeven") for v in variants)


def call_source(
    choice_rules: Mapping[str, ChoiceRule] | None, variants: Sequence[str]
) -> tuple[str | None, str]:
    """The choice rule whose trump call is the chooser's own call (None: his longest suit),
    and how the call is made, in words."""
    if weighs_troeven(variants):
        for name, rule in (choice_rules or {}).items():
            if callable(getattr(rule, GAME_VALUES, None)):
                return name, getattr(rule, "call_words", f"the trump rule {name!r} calls")
    return None, LONGEST_CALL


def for_run(rules: Mapping[str, Any] | None, variants: Sequence[str]) -> dict[str, Any]:
    """The rules as they apply to a run of ``variants``: a rule with ``for_variants`` (the
    fitted policies) chooses among the run's variants only."""
    out = {}
    for name, rule in (rules or {}).items():
        restrict = getattr(rule, "for_variants", None)
        out[name] = restrict(tuple(variants)) if callable(restrict) else rule
    return out


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


def _add_rule_doubles(
    hist: np.ndarray, units: np.ndarray, sidx: np.ndarray, hcp: np.ndarray, mask: np.ndarray
) -> None:
    """As :func:`_add_doubles`, only the doubles a rule made (``mask`` (V, NP, m)): a few
    per deal, so they are picked out first and only they are coded. ``units`` (V + 1,
    UNIT_SUMS) gets each deal's doubles, gain and gains summed per variant and over all
    variants, and their squares and products: the statistics over deals, not doubles."""
    V, m = sidx.shape[0], sidx.shape[2]
    v, p, i = np.nonzero(mask)
    d, t = _PD[p], _PT[p]
    diff = sidx[v, d, i] - sidx[v, t, i]
    _bincount_into(hist, ((hcp[d, i] * (R * R) + R * d + t) * V + v) * ND + diff + (ND - 1) // 2)
    if not len(v):
        return
    # each (variant, deal) that has doubles, and its x, g, k (zero elsewhere: it adds nothing)
    cell, inv = np.unique(v * m + i, return_inverse=True)
    per = np.stack(
        [
            np.bincount(inv).astype(np.float64),
            np.bincount(inv, weights=diff * SCORE_STEP),
            np.bincount(inv, weights=diff > 0),
        ]
    )  # integers, exact in float64
    _add_unit_sums(units, per, cell // m)  # per variant
    deal, inv = np.unique(cell % m, return_inverse=True)
    whole = np.stack([np.bincount(inv, weights=row) for row in per])  # summed over variants
    _add_unit_sums(units, whole, np.full(len(deal), V))


def _add_unit_sums(units: np.ndarray, per: np.ndarray, row: np.ndarray) -> None:
    """Add the sums over units of x, g, k (``per`` (3, n)), their squares and products, and
    the count of units with x > 0, into ``units[row]`` (UNIT_SUMS order)."""
    x, g, k = per
    terms = (x, g, k, x * x, g * g, k * k, x * g, x * k, (x > 0).astype(np.float64))
    for col, term in enumerate(terms):
        # sums of integers far below 2^53: exact
        units[:, col] += np.rint(np.bincount(row, weights=term, minlength=len(units))).astype(
            np.int64
        )


def _longest_suit(chooser_hand: np.ndarray) -> np.ndarray:
    """The suit a player would name: longest, then most honours, then the higher suit."""
    key = []
    for s in range(4):
        length, honours = _suit_holding(chooser_hand, s)
        key.append((length * 5 + honours) * 4 + s)
    return np.stack(key).argmax(0)


def _trump_stats(h: Hists, sidx, chooser_hand, feats, a, b, suit_v, nt_v) -> None:
    for s, v in enumerate(suit_v):
        if v is None:
            continue
        length, honours = _suit_holding(chooser_hand, s)
        _bincount_into(h.trump, ((s * 14 + length) * 5 + honours) * NS + sidx[v, CHOOSER])
    if nt_v is None or any(v is None for v in suit_v):
        return
    best = _longest_suit(chooser_hand)
    suit_sidx = np.stack([sidx[v, CHOOSER] for v in suit_v])  # (4, m)
    best_sidx = np.take_along_axis(suit_sidx, best[None, :], 0)[0]
    # both scores are multiples of 10: score-index steps of 5 points → halve
    diff = (sidx[nt_v, CHOOSER] - best_sidx) // 2 + (NNT - 1) // 2
    longest = feats["longest"][CHOOSER, a:b]
    hcp = feats["hcp"][CHOOSER, a:b]
    _bincount_into(h.nt, (longest * HCP_N + hcp) * NNT + diff)


def fold_parts(
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    double_rules: Mapping[str, DoubleRule] | None = None,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
    on_part: Callable[[], None] | None = None,
) -> tuple[Hists, dict[int, dict[str, np.ndarray]]]:
    """The pass-1 histograms of ``parts`` (any subset of the run's parts), and each choice
    rule's pick per deal (int8 variant indices, by part index) for pass 2; ``on_part()``
    after each part (progress).

    The rules run here, once per part: pass 2 needs the picks, and a rule such as the fitted
    policy costs more than everything else; the picks are one byte per deal (plus, for a rule
    with game values, its best negative and its gap: five more). When the run plays every
    troeven option, the chooser's own call (CALL_KEY) is kept too and scored as one more
    contract, OWN_TROEVEN, after the variants."""
    double_rules = for_run(double_rules, layout.variants)
    choice_rules = for_run(choice_rules, layout.variants)
    seats = layout.seats
    V = len(layout.variants)
    own = has_own_call(layout.variants)
    K = V + own
    h = Hists.empty(V, list(double_rules), K)
    picks: dict[int, dict[str, np.ndarray]] = {}
    suit_v = [_loc(layout, f"troeven_{s}") for s in "CDHS"]
    nt_v = _loc(layout, "troeven_NT")
    source, _ = call_source(choice_rules, layout.variants)
    game = weighs_troeven(layout.variants)
    cols = None
    if not (double_rules or choice_rules):  # rules see the whole deals table
        cols = [f"hand_{s}" for s in seats] + [f"{f}_{s}" for f in _STORED for s in seats]
        cols.append("kh_seat")
    base_kr = (np.arange(K)[:, None, None] * R + np.arange(R)[None, :, None]) * NS
    wide = {k: np.zeros((HCP_N, R * R, V, ND), np.int64) for k in h.double}
    for part in iter_parts(layout, parts, seats, cols):
        h.deals += part.n
        feats = _seat_features(part.deals, seats)
        chooser_hand = part.deals.column(f"hand_{seats[CHOOSER]}").to_numpy()
        masks: dict[str, np.ndarray] = {}
        mine: dict[str, np.ndarray] = {}
        if double_rules or choice_rules:
            frame = part.deals.to_pandas()
            mine = _rule_picks(frame, choice_rules, layout.variants, part.n, game)
            for name, rule in double_rules.items():
                masks[name] = np.stack(
                    [_pair_mask(rule(frame, v), seats, part.n) for v in layout.variants]
                )  # (V, NP, n)
        if own:
            if source is not None:
                mine[CALL_KEY] = mine[source + CALL_KEY]
            else:
                mine[CALL_KEY] = np.array(suit_v, np.int8)[_longest_suit(chooser_hand)]
        if mine:
            picks[part.index] = mine
        for a in range(0, part.n, SLICE):
            b = min(part.n, a + SLICE)
            sidx = _score_index(part.scores[:, :, a:b], f"part {part.index}")
            sidx_k = sidx
            if own:  # the own call's scores: variant call[i] on deal i, every seat
                called = sidx[mine[CALL_KEY][a:b].astype(np.intp), :, np.arange(b - a)]
                sidx_k = np.concatenate([sidx, called.T[None]])
            base = base_kr + sidx_k
            _bincount_into(h.score, base)
            for group, hist in zip(FEATURE_GROUPS, h.groups, strict=True):
                x = np.zeros((R, b - a), np.intp)
                for fname in group:
                    xf = feats[fname][:, a:b]
                    if xf.min(initial=0) < 0 or xf.max(initial=0) >= FEATURES[fname]:
                        raise NotARun(f"part {part.index}: hand feature {fname} out of range")
                    x = x * FEATURES[fname] + xf
                _bincount_into(hist, base + (x * (K * R * NS))[None, :, :])
            hcp = feats["hcp"][:, a:b]
            hand = hcp[CHOOSER] * LONGEST_N + feats["longest"][CHOOSER, a:b]
            _bincount_into(
                h.hand2, (hand[None] * K + np.arange(K)[:, None]) * NS + sidx_k[:, CHOOSER]
            )
            _add_doubles(wide["all"], sidx, hcp)
            for name, mask in masks.items():
                _add_rule_doubles(wide[name], h.double_units[name], sidx, hcp, mask[:, :, a:b])
            _trump_stats(h, sidx, chooser_hand[a:b], feats, a, b, suit_v, nt_v)
        if on_part is not None:
            on_part()
    h.double = {k: np.ascontiguousarray(w[:, _SLOTS]) for k, w in wide.items()}
    return h, picks


def _rule_picks(
    frame: Any, choice_rules: Mapping[str, ChoiceRule], variants: Sequence[str], n: int, game
) -> dict[str, np.ndarray]:
    """Each choice rule's pick per deal (int8 variant index); with ``game`` (the run can
    weigh troeven against negatives), for a rule with game values also its best negative
    (``@neg``), trump call (``@call``) and gap (``@gap``, float32)."""
    out: dict[str, np.ndarray] = {}
    for name, rule in choice_rules.items():
        out[name] = _variant_ids(rule(frame), variants, name, n).astype(np.int8)
        game_values = getattr(rule, GAME_VALUES, None)
        if game and callable(game_values):
            neg, call, gap = game_values(frame)
            out[name + NEG_SUFFIX] = _variant_ids(neg, variants, name, n).astype(np.int8)
            out[name + CALL_KEY] = _variant_ids(call, variants, name, n).astype(np.int8)
            out[name + GAP_SUFFIX] = np.asarray(gap, np.float32).reshape(n)
    return out


def _loc(layout: Layout, name: str) -> int | None:
    return layout.variants.index(name) if name in layout.variants else None


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
