"""Reading a deal run: its datasets, pandas frames, a canonical digest, dictionary codes
and the streamed per-variant score summary."""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.errors import BadValue
from bonken_sim.rules.names import (
    BEER_CARD_NAME,
    VARIANT_NAMES,
    VARIANTS,
    contract_names,
    variant_names,
)
from bonken_sim.runs.lock import writer_record
from bonken_sim.runs.manifest import NotARun, read_manifest
from bonken_sim.runs.schema import (
    CONTRACT_NAMES,
    DEAL_COLUMNS,
    RESULT_COLUMNS,
    SEATS,
    TRUMP_NAMES,
    deals_schema,
    results_schema,
)
from bonken_sim.stats import Z95, Estimate, Moments


def _part_paths(root: Path, manifest: dict, key: str) -> list[str]:
    return [str(root / p[key]) for p in sorted(manifest["parts"], key=lambda p: p["index"])]


def dataset(path: str | os.PathLike, table: str = "results"):
    """A ``pyarrow.dataset`` over the run's completed parts (``table``: results or deals)."""
    import pyarrow.dataset as ds

    root = Path(path)
    manifest = read_manifest(root)
    if table not in ("results", "deals"):
        raise BadValue(f"table must be 'results' or 'deals', got {table!r}")
    files = _part_paths(root, manifest, "file" if table == "results" else "deals_file")
    schema = None
    if not files:
        schema = (results_schema() if table == "results" else deals_schema()).remove_metadata()
    try:
        return ds.dataset(files, format="parquet", schema=schema)
    except (OSError, ValueError) as exc:
        raise NotARun(f"{root}: cannot read the run's parts: {exc}") from None


@contextlib.contextmanager
def parts_read(path: str | os.PathLike) -> Iterator[None]:
    """Around reading a run's parts: a part that is missing, truncated or not Parquet (which
    pyarrow finds only when it reads it, not when the dataset is made) is NotARun naming the
    run, a mistake the user can fix (finish or replay the run), not a bug."""
    import pyarrow as pa

    try:
        yield
    except (OSError, pa.ArrowException) as exc:
        raise NotARun(f"{Path(path)}: cannot read the run's parts: {exc}") from None


def run_names_rules(manifest: Mapping[str, Any]) -> bool:
    """What rules.variant_names needs of the ruleset a run's manifest records: whether it
    plays the beer card."""
    negatives = (manifest.get("config", {}).get("ruleset") or {}).get("negatives") or ()
    return BEER_CARD_NAME in negatives


def _run_variant_names(manifest: Mapping[str, Any]) -> tuple[str, ...]:
    """The variant names of a run by id, under the ruleset its manifest records."""
    return variant_names(run_names_rules(manifest))


def read_run(
    path: str | os.PathLike,
    contracts: str | Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    deals: bool = False,
):
    """The run's results as a pandas DataFrame, optionally only some contract variants and
    columns; ``deals=True`` joins each deal's hands and hand features onto its rows."""
    import pyarrow.compute as pc

    from bonken_sim.rules.names import parse_variants

    filt = None
    if contracts is not None:
        text = contracts if isinstance(contracts, str) else ",".join(contracts)
        rules = run_names_rules(read_manifest(path))
        names = [variant_names(rules)[v.id] for v in parse_variants(text, rules)]
        filt = pc.field("variant").isin(names)
    cols = list(columns) if columns is not None else None
    if cols is not None and deals and "deal" not in cols:
        cols = ["deal", *cols]
    with parts_read(path):
        table = dataset(path, "results").to_table(columns=cols, filter=filt)
    frame = table.to_pandas()
    if deals:
        with parts_read(path):
            extra = dataset(path, "deals").to_table().to_pandas()
        frame = frame.merge(extra, on="deal", how="left", sort=False)
    return frame


def result_digest(path: str | os.PathLike) -> str:
    """SHA-256 of the run's data in canonical order (by deal, then variant id).

    Covers every results column and every deals column, so it is the same for any thread
    count and any chunk size, and changes whenever any stored result changes.
    """
    import pyarrow.parquet as pq

    root = Path(path)
    manifest = read_manifest(root)
    hashes = {name: hashlib.sha256() for name in (*RESULT_COLUMNS, *DEAL_COLUMNS[1:])}
    names_of = {"variant": VARIANT_NAMES, "contract": CONTRACT_NAMES, "trump": TRUMP_NAMES}
    for part in sorted(manifest["parts"], key=lambda p: p["index"]):
        n = part["deals"]
        res = pq.ParquetFile(root / part["file"]).read()
        nv = res.num_rows // n
        for name in RESULT_COLUMNS:
            col = res.column(name).combine_chunks()
            if name in names_of:
                arr = dictionary_codes(col, names_of[name])
            else:
                arr = col.to_numpy()
            hashes[name].update(np.ascontiguousarray(arr.reshape(nv, n).T).tobytes())
        dl = pq.ParquetFile(root / part["deals_file"]).read()
        for name in DEAL_COLUMNS[1:]:
            hashes[name].update(dl.column(name).to_numpy().tobytes())
    total = hashlib.sha256()
    for name, h in hashes.items():
        total.update(name.encode() + b"=" + h.digest())
    return total.hexdigest()


def _code(names: Sequence[str], x: str) -> int:
    """The index of ``x`` in ``names``; a house-rules name stands for the standard name of
    its slot (the beer card's rows count as variant and contract 6, Domino's slot)."""
    if x not in names and x in _SLOT_ALIASES and _SLOT_ALIASES[x] in names:
        x = _SLOT_ALIASES[x]
    return list(names).index(x)


_SLOT_ALIASES = {
    new: old
    for alias in (variant_names, contract_names)
    for new, old in zip(alias(True), alias(None), strict=True)
    if new != old
}


def dictionary_codes(col, names: Sequence[str]) -> np.ndarray:
    """A dictionary column as int8 codes into ``names`` (-1 for null), whatever the file's
    own dictionary order. The beer card's name (a run under the bierkaart ruleset) reads as
    the code of Domino's slot, which it takes."""
    import pyarrow as pa

    if not pa.types.is_dictionary(col.type):
        col = col.dictionary_encode()
    remap = np.array([_code(names, x) for x in col.dictionary.to_pylist()] + [-1], np.int8)
    idx = col.indices.fill_null(len(remap) - 1).to_numpy().astype(np.int64)
    return remap[idx]


def iter_batches(
    path: str | os.PathLike, columns: Sequence[str], batch_size: int = 1 << 20
) -> Iterator:
    """Record batches of the run's results (only ``columns``), streamed part by part."""
    with parts_read(path):
        yield from dataset(path, "results").to_batches(columns=list(columns), batch_size=batch_size)


def variant_scores(
    path: str | os.PathLike, seats: Sequence[int] = SEATS
) -> Iterator[tuple[int, list[np.ndarray]]]:
    """``(variant id, [int64 scores of each seat of seats])`` for groups of the run's rows,
    streamed over its record batches (reading only those seats' columns); a variant may
    come in many groups."""
    for batch in iter_batches(path, ["variant", *(f"score_{p}" for p in seats)]):
        vid = dictionary_codes(batch.column(0), VARIANT_NAMES).astype(np.int64)
        xs = [batch.column(1 + k).to_numpy().astype(np.int64) for k in range(len(seats))]
        if len(vid) and vid[0] == vid[-1] and (vid == vid[0]).all():
            # run writes one variant per row group, so most batches hold one variant
            yield int(vid[0]), xs
            continue
        for v in np.unique(vid):
            rows = vid == v
            yield int(v), [x[rows] for x in xs]


def score_sums(
    path: str | os.PathLike, seats: Sequence[int] = SEATS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per variant id: the row count, and per seat of ``seats`` the exact integer Σs and Σs²
    of the raw scores — (V,), (V, len(seats)), (V, len(seats)) int64 — streamed over the
    run's record batches, reading only those seats' columns."""
    nv = len(VARIANTS)
    count = np.zeros(nv, np.int64)
    s1 = np.zeros((nv, len(seats)), np.int64)
    s2 = np.zeros((nv, len(seats)), np.int64)
    for v, xs in variant_scores(path, seats):
        count[v] += len(xs[0])
        for k, x in enumerate(xs):
            s1[v, k] += x.sum()
            s2[v, k] += (x * x).sum()
    return count, s1, s2


def seat_summary(total: int, moments: Moments) -> dict[str, Any]:
    """One seat's mean (from the exact sum), sd and normal 95% CI. The variance comes from
    merged centred moments, not from Σx² − n·mean², which cancels catastrophically when the
    values are large next to their spread.

    The same Estimate as a game run's means (stats.mean_ci): one deal, like one game, has
    no sd and no interval (NaN here, null in JSON), not an sd of 0."""
    n = moments.n
    mean = total / n
    sd = math.sqrt(moments.variance)  # NaN below two values
    half = Z95 * sd / math.sqrt(n)
    return Estimate(mean, sd, mean - half, mean + half).to_dict()


def summarize(path: str | os.PathLike) -> dict:
    """Mean raw score per contract variant and seat with a 95% CI (normal approximation),
    streamed over the dataset in record batches: memory does not grow with the run."""
    manifest = read_manifest(path)
    names = _run_variant_names(manifest)
    nv = len(VARIANTS)
    sums = np.zeros((nv, len(SEATS)), np.int64)
    moments = [[Moments() for _ in SEATS] for _ in range(nv)]
    for v, xs in variant_scores(path):
        for p, x in enumerate(xs):
            sums[v, p] += x.sum()
            moments[v][p] = moments[v][p].merge(Moments.of(x))
    rows = []
    for v in range(nv):
        n = moments[v][0].n
        if n == 0:
            continue
        seats = [seat_summary(sums[v, p], moments[v][p]) for p in SEATS]
        rows.append({"variant": names[v], "n": n, "seats": seats})
    return {
        "run": str(path),
        "state": manifest.get("state"),
        "writer": writer_record(Path(path)),
        "seed": manifest["config"]["seed"],
        "deals": manifest["config"]["deals"],
        "deals_done": sum(p["deals"] for p in manifest.get("parts", [])),
        "strategies": manifest["config"]["strategies"],
        "variants": rows,
    }
