"""Reading a complete run for the report: its manifest, its layout, and each part's
scores (results) with its deals, checked against the manifest as they are read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.report.deals.stats.histograms import REL_OFFSET, SCORE_MIN, SCORE_STEP
from bonken_sim.rules.names import BEER_CARD_NAME
from bonken_sim.runs.storage import (
    VARIANT_NAMES,
    NotARun,
    dictionary_codes,
    read_manifest,
    require_complete,
)


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
    from bonken_sim.rules.rulesets import RulesError, Ruleset
    from bonken_sim.rules.totals import max_abs_deal_score, point_values

    try:
        rules = Ruleset.from_dict(record, "run ruleset")
    except RulesError as exc:
        raise NotARun(f"{root}: {exc}") from None
    bound = max_abs_deal_score(rules)
    steps = np.array(point_values(rules))
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
    # as runs.storage.dictionary_codes reads it; the report's metadata says so.
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


def ruleset_name(manifest: Mapping[str, Any], where: str) -> str:
    """The ruleset a run was played under, by name (``standard`` for the rules of
    docs/RULES.md); a manifest whose ruleset cannot be read raises ``RulesError``."""
    from bonken_sim.rules.rulesets import Ruleset

    record = manifest.get("config", {}).get("ruleset")
    if record is None:
        return "standard"
    rules = Ruleset.from_dict(record, f"{where}'s ruleset")
    return "standard" if rules.is_standard else rules.name
