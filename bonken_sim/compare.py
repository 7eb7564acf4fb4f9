"""``bonken-sim compare RUN_A RUN_B``: what a house rule changes, deal by deal.

Two runs of the same seed hold the same cards in deal ``i``; played under different rulesets
(or strategies), the difference ``score_B − score_A`` of one seat in one variant is a paired
sample per deal. Its mean, with a normal 95% CI from exact integer sums, says how far the
rule moves that seat's expected score: pairing removes the variation of the cards, so a
rule's effect shows with far fewer deals than comparing two independent means.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .io import NotARun, dataset, read_manifest
from .rules import VARIANT_NAMES
from .stats import Estimate, mean_ci

ROLES = ("dealer", "leader", "chooser", "doubler")  # relative to the dealer; doubler: first


class CompareError(ValueError):
    """Two runs that cannot be compared deal by deal."""


def _scores(path: str | os.PathLike, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """(deal indices, scores (n, 4)) of one variant of a run, sorted by deal."""
    import pyarrow.dataset as pads

    cols = ["deal", "score_0", "score_1", "score_2", "score_3"]
    t = dataset(path).to_table(columns=cols, filter=pads.field("variant") == variant)
    deals = t.column("deal").to_numpy()
    scores = np.stack([t.column(c).to_numpy().astype(np.int64) for c in cols[1:]], axis=1)
    order = np.argsort(deals, kind="stable")
    return deals[order], scores[order]


def _ruleset_name(manifest: dict) -> str:
    r = manifest["config"].get("ruleset")
    return "standard" if r is None else str(r.get("name"))


def compare_runs(run_a: str | os.PathLike, run_b: str | os.PathLike) -> dict[str, Any]:
    """Per variant and seat: mean score in A and B and the paired difference B − A (95% CI),
    over the deals both runs hold."""
    try:
        ma, mb = read_manifest(run_a), read_manifest(run_b)
    except NotARun as exc:
        raise CompareError(str(exc)) from None
    ca, cb = ma["config"], mb["config"]
    if ca["seed"] != cb["seed"]:
        raise CompareError(
            f"the runs have different seeds ({ca['seed']} and {cb['seed']}): their deals hold "
            f"different cards and cannot be paired; run both with the same --seed"
        )
    if ca.get("dealer", 0) != cb.get("dealer", 0):
        raise CompareError("the runs have different dealers; their deals cannot be paired")
    notes = []
    for key in ("strategies",):
        if ca.get(key) != cb.get(key):
            notes.append(f"{key} differ: {ca.get(key)} vs {cb.get(key)}")
    ra, rb = ca.get("ruleset"), cb.get("ruleset")
    if (ra or {}).get("name") != (rb or {}).get("name") and ra is not None and rb is not None:
        opts_a = {k: v for k, v in ra.items() if k != "name"}
        opts_b = {k: v for k, v in rb.items() if k != "name"}
        if opts_a == opts_b:
            notes.append("the two rulesets have different names but the same rules")
    variants = [v for v in VARIANT_NAMES if v in ca["contracts"] and v in cb["contracts"]]
    if not variants:
        raise CompareError("the runs have no contract variant in common")
    rows = []
    for v in variants:
        da, sa = _scores(run_a, v)
        db, sb = _scores(run_b, v)
        common, ia, ib = np.intersect1d(da, db, assume_unique=True, return_indices=True)
        n = len(common)
        if n < 2:
            continue
        sa, sb = sa[ia], sb[ib]
        seats = []
        for p in range(4):
            d = sb[:, p] - sa[:, p]
            diff = mean_ci(n, int(d.sum()), int((d * d).sum()))
            a = mean_ci(n, int(sa[:, p].sum()), int((sa[:, p] ** 2).sum()))
            b = mean_ci(n, int(sb[:, p].sum()), int((sb[:, p] ** 2).sum()))
            seats.append({"a": a.mean, "b": b.mean, "diff": diff})
        rows.append({"variant": v, "n": n, "seats": seats})
    return {
        "run_a": str(run_a),
        "run_b": str(run_b),
        "ruleset_a": _ruleset_name(ma),
        "ruleset_b": _ruleset_name(mb),
        "seed": ca["seed"],
        "dealer": ca.get("dealer", 0),
        "notes": notes,
        "variants": rows,
    }


def to_json(doc: dict[str, Any]) -> dict[str, Any]:
    out = dict(doc)
    out["variants"] = [
        {
            "variant": r["variant"],
            "n": r["n"],
            "seats": [
                {"mean_a": s["a"], "mean_b": s["b"], "diff": _est(s["diff"])} for s in r["seats"]
            ],
        }
        for r in doc["variants"]
    ]
    return out


def _est(e: Estimate) -> dict[str, Any]:
    return {"mean": e.mean, "ci95": [e.lo, e.hi], "sd": e.sd}


def to_text(doc: dict[str, Any]) -> list[str]:
    dealer = doc["dealer"]
    roles = [ROLES[(p - dealer) % 4] for p in range(4)]
    lines = [
        f"B = {doc['run_b']} (ruleset {doc['ruleset_b']})  minus  "
        f"A = {doc['run_a']} (ruleset {doc['ruleset_a']})",
        f"seed {doc['seed']}, the same cards in both: mean paired difference of raw scores "
        "per deal, ± the 95% CI half-width",
    ]
    lines += [f"note: {n}" for n in doc["notes"]]
    lines.append("")
    head = f"{'variant':12s} {'deals':>8s}" + "".join(
        f" {f'seat {p} {roles[p]}':>16s}" for p in range(4)
    )
    lines.append(head)
    for r in doc["variants"]:
        cells = []
        for s in r["seats"]:
            e = s["diff"]
            cells.append(f" {f'{e.mean:+.3f} ± {e.half_width:.3f}':>16s}")
        lines.append(f"{r['variant']:12s} {r['n']:>8,d}" + "".join(cells))
    lines.append("")
    chooser = (dealer + 2) % 4
    for r in doc["variants"]:
        e = r["seats"][chooser]["diff"]
        if abs(e.mean) > e.half_width:
            lines.append(
                f"{doc['ruleset_b']} moves the chooser's {r['variant']} value by "
                f"{e.mean:+.2f} ± {e.half_width:.2f} "
                f"({r['seats'][chooser]['a']:+.2f} -> {r['seats'][chooser]['b']:+.2f})"
            )
    return lines
