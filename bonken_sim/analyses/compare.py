"""``bonken-sim compare RUN_A RUN_B``: what a house rule changes, deal by deal.

Two runs of the same seed hold the same cards in deal ``i``; played under different rulesets
(or strategies), the difference ``score_B − score_A`` of one seat in one variant is a paired
sample per deal. Its mean, with a normal 95% CI from exact integer sums, says how far the
rule moves that seat's expected score: pairing removes the variation of the cards, so a
rule's effect shows with far fewer deals than comparing two independent means.

Two game runs (``bonken-sim game``) of the same seed hold the same cards in game ``g``; the
comparison pairs them game by game (each seat's win and settled total) and deal by deal where
both chose the same variant (the chooser's value of each contract).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.errors import UserFixableError
from bonken_sim.rules.names import VARIANT_NAMES, variant_names
from bonken_sim.runs.game_format import game_manifest
from bonken_sim.runs.game_summary import scaled
from bonken_sim.runs.readers import parts_read
from bonken_sim.runs.storage import NotARun, dataset, read_manifest
from bonken_sim.runs.summary_text import stands_alone
from bonken_sim.stats import Estimate, mean_ci

ROLES = ("dealer", "leader", "chooser", "doubler")  # relative to the dealer; doubler: first


class CompareError(UserFixableError, ValueError):
    """Two runs that cannot be compared deal by deal."""


def _scores(path: str | os.PathLike, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """(deal indices, scores (n, 4)) of one variant of a run, sorted by deal."""
    import pyarrow.dataset as pads

    cols = ["deal", "score_0", "score_1", "score_2", "score_3"]
    with parts_read(path):
        t = dataset(path).to_table(columns=cols, filter=pads.field("variant") == variant)
    deals = t.column("deal").to_numpy()
    scores = np.stack([t.column(c).to_numpy().astype(np.int64) for c in cols[1:]], axis=1)
    order = np.argsort(deals, kind="stable")
    return deals[order], scores[order]


_KIND_WORDS = {"deals": "run directory (bonken-sim run)", "games": "game run (bonken-sim game)"}


def _ruleset_name(manifest: dict) -> str:
    r = manifest["config"].get("ruleset")
    return "standard" if r is None else str(r.get("name"))


def _manifest(path: str | os.PathLike) -> tuple[str, dict]:
    """("deals", manifest) for a ``run`` directory, ("games", manifest) for a game run."""
    try:
        return "deals", read_manifest(path)
    except NotARun as exc:
        try:
            return "games", game_manifest(path)
        except NotARun:
            raise CompareError(
                str(exc).replace("a bonken-sim run", "a bonken-sim run or game run")
            ) from None


def _check_same_seed(ca: dict, cb: dict, runs: str, units: str) -> None:
    """Only runs of one seed hold the same cards in deal (game) ``i``: else a CompareError."""
    if ca["seed"] != cb["seed"]:
        raise CompareError(
            f"the {runs} have different seeds ({ca['seed']} and {cb['seed']}): their {units} "
            "hold different cards and cannot be paired; run both with the same --seed"
        )


def _differences(ca: dict, cb: dict, keys: tuple[str, ...]) -> list[str]:
    """A note for every one of ``keys`` the two runs' configs set differently."""
    return [f"{k} differ: {ca.get(k)} vs {cb.get(k)}" for k in keys if ca.get(k) != cb.get(k)]


def _check_two_runs(run_a: str | os.PathLike, run_b: str | os.PathLike) -> None:
    """A run compared with itself is a table of zeros: refused (the same directory under two
    names too: a symlink, ``.`` and its full path)."""
    a, b = Path(run_a), Path(run_b)
    try:
        same = os.path.samefile(a, b)
    except OSError:
        same = a.resolve() == b.resolve()
    if same:
        raise CompareError(
            f"{run_a} and {run_b} are the same run directory: compare two runs of the same "
            "seed (e.g. played under two rulesets)"
        )


def _held(manifest: dict, start: str, count: str) -> list[tuple[int, int]]:
    """The [first, end) ranges of deals (games) the run's finished parts hold, in order."""
    return sorted((int(p[start]), int(p[start]) + int(p[count])) for p in manifest["parts"])


def _overlap(ra: list[tuple[int, int]], rb: list[tuple[int, int]]) -> int:
    """How many indices two sorted lists of disjoint ranges share."""
    i = j = shared = 0
    while i < len(ra) and j < len(rb):
        shared += max(0, min(ra[i][1], rb[j][1]) - max(ra[i][0], rb[j][0]))
        if ra[i][1] < rb[j][1]:
            i += 1
        else:
            j += 1
    return shared


def _compared(ma: dict, mb: dict, unit: str) -> int:
    """How many deals (games: ``unit``) both runs' finished parts hold."""
    start = "deal_start" if unit == "deals" else "game_start"
    return _overlap(_held(ma, start, unit), _held(mb, start, unit))


def _coverage_notes(ma: dict, mb: dict, unit: str) -> list[str]:
    """Only the deals (games) both runs hold are paired: a note for each run of which fewer
    are compared than it was made for, an incomplete run saying so."""
    compared = _compared(ma, mb, unit)
    notes = []
    for label, m in (("A", ma), ("B", mb)):
        total = int(m["config"][unit])
        made = _counted(total, unit[:-1])
        if m.get("state") != "complete":
            notes.append(f"run {label} is incomplete: {compared:,} of {made} compared")
        elif compared < total:
            notes.append(
                f"run {label} holds {made}: {compared:,} of them compared (those both runs hold)"
            )
    return notes


def _counted(n: int, unit: str) -> str:
    """``1 deal``, ``600 deals``: ``n`` and the singular ``unit``, plural unless one."""
    return f"{n:,} {unit}" if n == 1 else f"{n:,} {unit}s"


def _pair_fields(
    kind: str, run_a: str | os.PathLike, run_b: str | os.PathLike, ma: dict, mb: dict
) -> dict[str, Any]:
    """The fields that open both kinds of comparison document."""
    return {
        "kind": kind,
        "run_a": str(run_a),
        "run_b": str(run_b),
        "ruleset_a": _ruleset_name(ma),
        "ruleset_b": _ruleset_name(mb),
        "seed": ma["config"]["seed"],
    }


def compare_runs(run_a: str | os.PathLike, run_b: str | os.PathLike) -> dict[str, Any]:
    """Per variant and seat: mean score in A and B and the paired difference B − A (95% CI),
    over the deals both runs hold. Two game runs: see :func:`compare_games`."""
    (kind_a, ma), (kind_b, mb) = _manifest(run_a), _manifest(run_b)
    _check_two_runs(run_a, run_b)
    if kind_a != kind_b:
        raise CompareError(
            f"{run_a} is a {_KIND_WORDS[kind_a]} and {run_b} a {_KIND_WORDS[kind_b]}: compare "
            "two `run` directories or two `game` directories"
        )
    if kind_a == "games":
        return compare_games(run_a, run_b, ma, mb)
    ca, cb = ma["config"], mb["config"]
    _check_same_seed(ca, cb, "runs", "deals")
    if ca.get("dealer", 0) != cb.get("dealer", 0):
        raise CompareError("the runs have different dealers; their deals cannot be paired")
    notes = _differences(ca, cb, ("strategies",)) + _coverage_notes(ma, mb, "deals")
    ra, rb = ca.get("ruleset"), cb.get("ruleset")
    if (ra or {}).get("name") != (rb or {}).get("name") and ra is not None and rb is not None:
        opts_a = {k: v for k, v in ra.items() if k != "name"}
        opts_b = {k: v for k, v in rb.items() if k != "name"}
        if opts_a == opts_b:
            notes.append("the two rulesets have different names but the same rules")
    # in id order; a house-rules contract (bierkaart, in Domino's slot) pairs only with itself
    order = [*VARIANT_NAMES, *(n for n in variant_names(True) if n not in VARIANT_NAMES)]
    variants = [v for v in order if v in ca["contracts"] and v in cb["contracts"]]
    if not variants:
        raise CompareError("the runs have no contract variant in common")
    rows = _variant_rows(run_a, run_b, variants)
    _check_in_common(len(rows), "runs", "deal", notes)
    return {
        **_pair_fields("deals", run_a, run_b, ma, mb),
        "dealer": ca.get("dealer", 0),
        "notes": notes,
        "variants": rows,
    }


def _check_in_common(n: int, runs: str, unit: str, notes: list[str]) -> None:
    """Nothing in common is a CompareError naming the coverage notes (an empty table would
    look like a comparison that found nothing); one in common is compared, without a CI."""
    if n == 0:
        raise CompareError(
            "; ".join([f"the {runs} have no {unit} in common: nothing to compare", *notes])
        )


def _variant_rows(run_a, run_b, variants: list[str]) -> list[dict[str, Any]]:
    """Per variant, over the deals both runs hold: the count and each seat's paired means.
    One deal in common still says exactly what B changed on it; only its CI is undefined."""
    rows = []
    for v in variants:
        da, sa = _scores(run_a, v)
        db, sb = _scores(run_b, v)
        common, ia, ib = np.intersect1d(da, db, assume_unique=True, return_indices=True)
        if len(common):
            seats = [_paired(sa[ia, p], sb[ib, p]) for p in range(4)]
            rows.append({"variant": v, "n": len(common), "seats": seats})
    return rows


def to_json(doc: dict[str, Any]) -> dict[str, Any]:
    if doc["kind"] == "games":
        return _games_json(doc)
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


def _heading(doc: dict[str, Any], what: str) -> list[str]:
    """The lines that open both kinds of table: which run is subtracted from which, the
    seed and ``what`` is compared, the notes, a blank line."""
    return [
        f"B = {doc['run_b']} (ruleset {doc['ruleset_b']})  minus  "
        f"A = {doc['run_a']} (ruleset {doc['ruleset_a']})",
        f"seed {doc['seed']}, {what}",
        *(f"note: {n}" for n in doc["notes"]),
        "",
    ]


def _moves_chooser(ruleset_b: str, contract: str, paired: dict[str, Any]) -> str:
    """The line that says a significant change of the chooser's value of ``contract``."""
    e = paired["diff"]
    return (
        f"{ruleset_b} moves the chooser's {contract} value by {e.mean:+.2f} ± "
        f"{e.half_width:.2f} ({paired['a']:+.2f} -> {paired['b']:+.2f})"
    )


def to_text(doc: dict[str, Any]) -> list[str]:
    if doc["kind"] == "games":
        return _games_text(doc)
    dealer = doc["dealer"]
    roles = [ROLES[(p - dealer) % 4] for p in range(4)]
    lines = _heading(
        doc,
        "the same cards in both: mean paired difference of raw scores per deal, ± the 95% CI "
        "half-width",
    )
    if any(r["n"] < 2 for r in doc["variants"]):
        lines.append(stands_alone("deal", "differences"))
    head = f"{'variant':12s} {'deals':>8s}" + "".join(
        f" {f'seat {p} {roles[p]}':>16s}" for p in range(4)
    )
    lines.append(head)
    for r in doc["variants"]:
        cells = [f" {_diff_cell(s['diff']):>16s}" for s in r["seats"]]
        lines.append(f"{r['variant']:12s} {r['n']:>8,d}" + "".join(cells))
    lines.append("")
    chooser = (dealer + 2) % 4
    for r in doc["variants"]:
        if _significant(r["seats"][chooser]["diff"]):
            lines.append(_moves_chooser(doc["ruleset_b"], r["variant"], r["seats"][chooser]))
    return lines


def _diff_cell(e: Estimate, digits: int = 3, scale: float = 1) -> str:
    """``+1.250 ± 0.310`` (``scale`` times ``e``); the difference alone when it has no
    interval (one deal or game)."""
    mean = f"{scale * e.mean:+.{digits}f}"
    if not math.isfinite(e.half_width):
        return mean
    return f"{mean} ± {scale * e.half_width:.{digits}f}"


# --- game runs ------------------------------------------------------------------------------


def _game_files(root: str | os.PathLike, manifest: dict, key: str) -> list[str]:
    parts = sorted(manifest["parts"], key=lambda p: p["index"])
    return [os.path.join(root, p[key]) for p in parts]


def _read_games(root: str | os.PathLike, manifest: dict, key: str, cols: list[str]):
    import pyarrow.dataset as pads

    files = _game_files(root, manifest, key)
    if not files:
        raise CompareError(f"{root} holds no finished part yet")
    try:
        return pads.dataset(files, format="parquet").to_table(columns=cols)
    except (OSError, ValueError) as exc:
        raise CompareError(f"{root}: cannot read the game run's parts: {exc}") from None


def _paired(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    d = b - a
    n = len(d)
    return {
        "a": float(a.mean()),
        "b": float(b.mean()),
        "diff": mean_ci(n, int(d.sum()), int((d * d).sum())),
    }


def compare_games(
    run_a: str | os.PathLike, run_b: str | os.PathLike, ma: dict, mb: dict
) -> dict[str, Any]:
    """Two game runs of the same seed, paired game by game: per seat (and per profile) the
    change in win rate (a win is rank 1, ties included) and in mean settled total; per
    contract the change in the chooser's raw score over the deals where both runs chose the
    same variant (the same cards, the same contract). 95% normal CIs of paired differences."""
    ca, cb = ma["config"], mb["config"]
    _check_same_seed(ca, cb, "game runs", "games")
    notes = _differences(ca, cb, ("players", "order", "doubling")) + _coverage_notes(
        ma, mb, "games"
    )
    # before reading: a run that has not finished a part has no games to read
    _check_in_common(_compared(ma, mb, "games"), "game runs", "game", notes)
    cols = ["game"] + [f"total_{p}" for p in range(4)] + [f"rank_{p}" for p in range(4)]
    ga = _read_games(run_a, ma, "games_file", cols)
    gb = _read_games(run_b, mb, "games_file", cols)
    games_a, games_b = ga.column("game").to_numpy(), gb.column("game").to_numpy()
    common, ia, ib = np.intersect1d(games_a, games_b, assume_unique=True, return_indices=True)
    n = len(common)

    def col(t, name: str, idx: np.ndarray) -> np.ndarray:
        return t.column(name).to_numpy()[idx]

    players_a, players_b = list(ca["players"]), list(cb["players"])
    seats = []
    wins_a = np.stack([col(ga, f"rank_{p}", ia) == 1 for p in range(4)], axis=1)
    wins_b = np.stack([col(gb, f"rank_{p}", ib) == 1 for p in range(4)], axis=1)
    for p in range(4):
        win = _paired(wins_a[:, p], wins_b[:, p])
        total = _paired(col(ga, f"total_{p}", ia), col(gb, f"total_{p}", ib))
        seats.append(
            {
                "seat": p,
                "profile_a": players_a[p],
                "profile_b": players_b[p],
                "win": win,
                "total": total,
            }
        )
    profiles = []
    if players_a == players_b:
        for name in sorted(set(players_a)):
            mine = [p for p in range(4) if players_a[p] == name]
            w = _paired(wins_a[:, mine].sum(axis=1), wins_b[:, mine].sum(axis=1))
            k = 1 / len(mine)  # wins per game over its seats -> the win rate of one seat
            profiles.append(
                {
                    "profile": name,
                    "seats": mine,
                    "win": {"a": w["a"] * k, "b": w["b"] * k, "diff": scaled(w["diff"], k)},
                }
            )
    contracts, same_share = _chooser_values(run_a, run_b, ma, mb, common)
    return {
        **_pair_fields("games", run_a, run_b, ma, mb),
        "games": n,
        "notes": notes,
        "seats": seats,
        "profiles": profiles,
        "contracts": contracts,
        "same_choice": same_share,
    }


def _chooser_values(run_a, run_b, ma, mb, common: np.ndarray):
    from bonken_sim.rules.names import Contract

    cols = ["game", "deal", "variant", "chooser"] + [f"raw_{p}" for p in range(4)]
    da = _read_games(run_a, ma, "deals_file", cols)
    db = _read_games(run_b, mb, "deals_file", cols)

    def keyed(t):
        key = t.column("game").to_numpy().astype(np.int64) * 16 + t.column("deal").to_numpy()
        variant = np.asarray(t.column("variant").to_pylist(), dtype=object)
        chooser = t.column("chooser").to_numpy().astype(np.int64)
        raw = np.stack([t.column(f"raw_{p}").to_numpy() for p in range(4)], axis=1)
        mine = np.isin(t.column("game").to_numpy(), common)
        return key[mine], variant[mine], chooser[mine], raw[mine]

    ka, va, cha, ra = keyed(da)
    kb, vb, chb, rb = keyed(db)
    both, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    va, vb, ch = va[ia], vb[ib], cha[ia]
    ra, rb = ra[ia], rb[ib]
    same = va == vb
    rows = np.arange(len(both))
    score_a = ra[rows, ch]
    score_b = rb[rows, ch]
    label = np.array(
        [str(v).split("_")[0] if str(v).startswith("troeven") else str(v) for v in va], dtype=object
    )
    out = []
    for c in Contract:
        name = c.label
        m = same & (label == name)
        if not m.any():
            continue
        r = _paired(score_a[m], score_b[m])
        out.append({"contract": name, "deals": int(m.sum()), **r})
    return out, float(same.mean()) if len(same) else 0.0


def _games_json(doc: dict[str, Any]) -> dict[str, Any]:
    def paired(x: dict[str, Any]) -> dict[str, Any]:
        return {"mean_a": x["a"], "mean_b": x["b"], "diff": _est(x["diff"])}

    out = {k: v for k, v in doc.items() if k not in ("seats", "profiles", "contracts")}
    out["seats"] = [
        {
            "seat": s["seat"],
            "profile_a": s["profile_a"],
            "profile_b": s["profile_b"],
            "win_rate": paired(s["win"]),
            "total": paired(s["total"]),
        }
        for s in doc["seats"]
    ]
    out["profiles"] = [
        {"profile": p["profile"], "seats": p["seats"], "win_rate": paired(p["win"])}
        for p in doc["profiles"]
    ]
    out["contracts"] = [
        {"contract": c["contract"], "deals": c["deals"], "chooser": paired(c)}
        for c in doc["contracts"]
    ]
    return out


def _significant(e: Estimate) -> bool:
    return abs(e.mean) > e.half_width


def _games_text(doc: dict[str, Any]) -> list[str]:
    rb = doc["ruleset_b"]
    lines = _heading(
        doc,
        f"{_counted(doc['games'], 'game')} with the same cards in both: paired differences "
        "per game, ± the 95% CI half-width; a win is rank 1 (ties included)",
    )
    if doc["games"] < 2:
        lines.append(stands_alone("game", "differences"))
    lines.append(f"{'':26s} {'win rate':^15s} {'win rate change':>17s} {'mean total':>18s}")
    lines.append(
        f"{'seat':5s} {'profile':20s} {'A':>7s} {'B':>7s} {'(percent. points)':>17s} "
        f"{'change':>18s}"
    )
    for s in doc["seats"]:
        prof = (
            s["profile_a"]
            if s["profile_a"] == s["profile_b"]
            else (f"{s['profile_a']}->{s['profile_b']}")
        )
        w, t = s["win"], s["total"]["diff"]
        lines.append(
            f"{s['seat']:<5d} {prof:20s} {100 * w['a']:6.2f}% {100 * w['b']:6.2f}% "
            f"{_pp(w['diff']):>17s} {_diff_cell(t, 2):>18s}"
        )
    if len(doc["profiles"]) > 1:
        lines.append("")
        lines.append(
            f"{'profile':20s} {'seats':5s} {'win A':>7s} {'win B':>7s} {'change (points)':>17s}"
        )
        for p in doc["profiles"]:
            w = p["win"]
            seats = ",".join(str(x) for x in p["seats"])
            lines.append(
                f"{p['profile']:20s} {seats:5s} {100 * w['a']:6.2f}% {100 * w['b']:6.2f}% "
                f"{_pp(w['diff']):>17s}"
            )
    lines.append("")
    lines.append(
        f"the chooser's raw score per contract, over the deals where both chose the same "
        f"variant ({100 * doc['same_choice']:.1f}% of deals)"
    )
    if any(c["deals"] < 2 for c in doc["contracts"]):
        lines.append(stands_alone("deal", "differences"))
    lines.append(f"{'contract':12s} {'deals':>9s} {'A':>8s} {'B':>8s} {'change':>16s}")
    for c in doc["contracts"]:
        lines.append(
            f"{c['contract']:12s} {c['deals']:>9,d} {c['a']:+8.2f} {c['b']:+8.2f} "
            f"{_diff_cell(c['diff'], 2):>16s}"
        )
    lines.append("")
    for c in doc["contracts"]:
        if _significant(c["diff"]):
            lines.append(_moves_chooser(rb, c["contract"], c))
    for s in doc["seats"]:
        e = s["win"]["diff"]
        if _significant(e):
            lines.append(
                f"{rb} moves seat {s['seat']} ({s['profile_b']})'s win rate by "
                f"{_pp(e)} percentage points"
            )
    for p in doc["profiles"]:
        e = p["win"]["diff"]
        if len(doc["profiles"]) > 1 and _significant(e):
            lines.append(f"{rb} moves {p['profile']}'s win rate by {_pp(e)} percentage points")
    return lines


def _pp(e: Estimate) -> str:
    return _diff_cell(e, 2, 100)
