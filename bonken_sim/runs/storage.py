"""Run directories: the Arrow schema, the streaming Parquet writer, the manifest and readers.

A run directory holds two Parquet datasets and a manifest::

    RUN/
      _manifest.json              resolved config, seed, versions, parts and checksums, state
      part-000000.parquet …       results: one row per (deal, contract variant)
      _deals/part-000000.parquet  deals: one row per deal (the four hands and hand features)

Part ``k`` holds deals ``[k * chunk_size, (k + 1) * chunk_size)``. Inside a results part the
rows run variant by variant (one row group per variant), each variant's rows in deal order.
Readers skip names starting with ``_`` or ``.``, so ``pandas.read_parquet(RUN)`` and
``pyarrow.dataset.dataset(RUN)`` read the results and ``RUN/_deals`` the deals.

Why two tables: the hands and features are the same for all twelve variants of a deal;
repeating them on every results row made writing ~4x slower (measured; see the README).

Every file is written under a hidden temporary name and renamed when complete, so a killed
run never leaves a file that looks finished.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim._core.features import KH_ROW, N_FEATURES, SEAT_FEATURES
from bonken_sim.rules.names import (
    TRUMPS,
    VARIANT_NAMES,
    VARIANTS,
    Contract,
    contract_names,
    variant_names,
)

SCHEMA_VERSION = 1
FORMAT = "bonken-sim-run"
MANIFEST = "_manifest.json"
DEALS_DIR = "_deals"
METADATA_KEY = b"bonken_sim"

CONTRACT_NAMES = tuple(c.label for c in Contract)
TRUMP_NAMES = TRUMPS
#: per variant id: its index in CONTRACT_NAMES and in TRUMP_NAMES (-1: no trump)
VARIANT_CONTRACT = np.array([int(v.contract) for v in VARIANTS], np.int8)
VARIANT_TRUMP = np.array([TRUMPS.index(v.trump) if v.trump else -1 for v in VARIANTS], np.int8)

SEATS = range(4)
RESULT_VALUE_COLUMNS = tuple(f"{name}_{p}" for name in ("score", "tricks", "out") for p in SEATS)
RESULT_COLUMNS = ("deal", "variant", "contract", "trump", *RESULT_VALUE_COLUMNS)
FEATURE_COLUMNS = tuple(f"{name}_{p}" for name in SEAT_FEATURES for p in SEATS) + ("kh_seat",)
DEAL_COLUMNS = ("deal", *(f"hand_{p}" for p in SEATS), *FEATURE_COLUMNS)

# Writing (measured on this machine, see the README): the three string columns are
# dictionary-encoded with zstd; the deal index, scores, tricks and hand features are
# DELTA_BINARY_PACKED, whose bit-packing already compresses them (zstd on top cost ~30% more
# write time for files ~1/3 smaller), so they are stored without a codec; the hands (random
# bits) and the Domino out order (mostly -1) are PLAIN with zstd. Every reader supports these
# encodings (BYTE_STREAM_SPLIT on integers was ~10% faster but older DuckDB and Polars
# cannot read it).
_COMPRESSION_LEVEL = 1
_DICT_COLUMNS = ("variant", "contract", "trump")
_PLAIN_PREFIXES = ("out_", "hand_")
# min/max statistics only for the deal index: on the dictionary columns they cost ~20% of
# the write time; a contract filter still works (it reads the small dictionary column).
_STATS_COLUMNS = ("deal",)


def part_name(index: int) -> str:
    return f"part-{index:06d}.parquet"


def _pa():
    import pyarrow as pa

    return pa


def _dict_type():
    pa = _pa()
    return pa.dictionary(pa.int8(), pa.string())


def results_schema(metadata: Mapping[str, Any] | None = None):
    """The schema of a results part (one row per deal and contract variant)."""
    pa = _pa()
    fields = [
        pa.field("deal", pa.int64(), nullable=False),
        pa.field("variant", _dict_type(), nullable=False),
        pa.field("contract", _dict_type(), nullable=False),
        pa.field("trump", _dict_type(), nullable=True),
    ]
    fields += [pa.field(f"score_{p}", pa.int16(), nullable=False) for p in SEATS]
    fields += [pa.field(f"tricks_{p}", pa.int8(), nullable=False) for p in SEATS]
    fields += [pa.field(f"out_{p}", pa.int8(), nullable=False) for p in SEATS]
    return pa.schema(fields, metadata=_schema_metadata(metadata, "results"))


def deals_schema(metadata: Mapping[str, Any] | None = None):
    """The schema of a deals part (one row per deal: hands and per-seat hand features)."""
    pa = _pa()
    fields = [pa.field("deal", pa.int64(), nullable=False)]
    fields += [pa.field(f"hand_{p}", pa.uint64(), nullable=False) for p in SEATS]
    fields += [pa.field(name, pa.int8(), nullable=False) for name in FEATURE_COLUMNS]
    return pa.schema(fields, metadata=_schema_metadata(metadata, "deals"))


def _schema_metadata(metadata: Mapping[str, Any] | None, table: str) -> dict[bytes, bytes]:
    doc = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "table": table}
    if metadata:
        doc.update(metadata)
    return {METADATA_KEY: json.dumps(doc, sort_keys=True).encode()}


def schema_metadata(schema) -> dict:
    """The bonken-sim metadata stored in a part's schema (a dict; empty if none)."""
    raw = (schema.metadata or {}).get(METADATA_KEY)
    return json.loads(raw) if raw else {}


# ---------------------------------------------------------------------------------------
# Chunks → Arrow tables


@dataclass
class Chunk:
    """One chunk of played deals in column layout (what the worker tasks produce)."""

    start: int  # first deal index
    variants: np.ndarray  # (nv,) int64 variant ids
    hands: np.ndarray  # (n, 4) uint64
    features: np.ndarray  # (N_FEATURES, n) int8
    scores: np.ndarray  # (4, nv, n) int16
    tricks: np.ndarray  # (4, nv, n) int8
    order: np.ndarray  # (4, nv, n) int8
    beer_card: bool = False  # variant 6 is the beer card: its rows are named bierkaart

    @property
    def n(self) -> int:
        return int(self.hands.shape[0])


def _from_numpy(values: np.ndarray, mask: np.ndarray | None = None):
    """A zero-copy Arrow array over a 1-d numpy array (``mask``: True where null).

    ``pa.array(ndarray)`` would import pandas (~0.35 s here) just to ask whether the input
    is a pandas object."""
    pa = _pa()
    values = np.ascontiguousarray(values)
    validity = None
    nulls = 0
    if mask is not None and mask.any():
        nulls = int(mask.sum())
        validity = pa.py_buffer(np.packbits(~mask, bitorder="little"))
    return pa.Array.from_buffers(
        pa.from_numpy_dtype(values.dtype), len(values), [validity, pa.py_buffer(values)], nulls
    )


def _dictionary(indices: np.ndarray, names: Sequence[str], mask: np.ndarray | None = None):
    pa = _pa()
    return pa.DictionaryArray.from_arrays(
        _from_numpy(indices.astype(np.int8, copy=False), mask), _strings(tuple(names))
    )


def _strings(names: tuple[str, ...]):
    """A string array built from buffers (``pa.array(list)`` imports pandas too)."""
    pa = _pa()
    data = [n.encode() for n in names]
    offsets = np.zeros(len(data) + 1, np.int32)
    offsets[1:] = np.cumsum([len(d) for d in data])
    return pa.Array.from_buffers(
        pa.string(), len(data), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    )


def _names_of(chunk: Chunk, names) -> tuple[str, ...]:
    """The variant or contract names of a chunk's rows (rules.variant_names of its ruleset)."""
    return names(chunk.beer_card)


def results_table(chunk: Chunk, schema):
    """The results rows of a chunk: variant by variant, deals in order within each."""
    pa = _pa()
    n, nv = chunk.n, len(chunk.variants)
    vids = chunk.variants.astype(np.int8)
    trump_idx = np.repeat(VARIANT_TRUMP[chunk.variants], n)
    columns = [
        _from_numpy(np.tile(np.arange(chunk.start, chunk.start + n, dtype=np.int64), nv)),
        _dictionary(np.repeat(vids, n), _names_of(chunk, variant_names)),
        _dictionary(
            np.repeat(VARIANT_CONTRACT[chunk.variants], n), _names_of(chunk, contract_names)
        ),
        _dictionary(trump_idx, TRUMP_NAMES, mask=trump_idx < 0 if (trump_idx < 0).any() else None),
    ]
    for arr in (chunk.scores, chunk.tricks, chunk.order):
        columns += [_from_numpy(arr[p].reshape(-1)) for p in SEATS]
    return pa.Table.from_arrays(columns, schema=schema)


def deals_table(chunk: Chunk, schema):
    """The deals rows of a chunk: deal index, four hands, per-seat features."""
    pa = _pa()
    columns = [_from_numpy(np.arange(chunk.start, chunk.start + chunk.n, dtype=np.int64))]
    columns += [_from_numpy(chunk.hands[:, p]) for p in SEATS]
    columns += [_from_numpy(chunk.features[r]) for r in range(N_FEATURES)]
    return pa.Table.from_arrays(columns, schema=schema)


def _writer_options(schema) -> dict:
    encodings: dict[str, str] = {}
    compression: dict[str, str] = {}
    for name in schema.names:
        if name in _DICT_COLUMNS:
            compression[name] = "zstd"
        elif name.startswith(_PLAIN_PREFIXES):
            encodings[name] = "PLAIN"
            compression[name] = "zstd"
        else:
            encodings[name] = "DELTA_BINARY_PACKED"
            compression[name] = "none"
    return dict(
        compression=compression,
        compression_level={c: _COMPRESSION_LEVEL for c, z in compression.items() if z == "zstd"},
        use_dictionary=[c for c in _DICT_COLUMNS if c in schema.names],
        column_encoding=encodings,
        write_statistics=[c for c in _STATS_COLUMNS if c in schema.names],
    )


@dataclass
class PartFile:
    """A written Parquet file: its name inside the run directory, rows, bytes and SHA-256."""

    file: str
    rows: int
    bytes: int
    sha256: str


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def tmp_name(path: Path) -> Path:
    """The hidden temporary name a file is written under before its rename."""
    return path.with_name(f".{path.name}.tmp")


def write_parquet(path: Path, table, row_group_size: int, root: Path) -> PartFile:
    """Write ``table`` to ``path`` through a hidden temporary file renamed when complete."""
    import pyarrow.parquet as pq

    tmp = tmp_name(path)
    try:
        with pq.ParquetWriter(tmp, table.schema, **_writer_options(table.schema)) as writer:
            writer.write_table(table, row_group_size=max(1, row_group_size))
        digest = sha256_file(tmp)
        size = tmp.stat().st_size
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return PartFile(path.relative_to(root).as_posix(), table.num_rows, size, digest)


def _timed(fn, *args):
    import time

    c0 = time.thread_time()
    out = fn(*args)
    return out, time.thread_time() - c0


def write_chunk(
    root: Path,
    index: int,
    chunk: Chunk,
    metadata: Mapping[str, Any],
    cpu: list[float] | None = None,
    side_by_side: bool = True,
) -> dict:
    """Write chunk ``index`` as a results part and a deals part; the manifest entry.

    ``cpu``, if given, gets the CPU seconds of the helper thread appended. ``side_by_side``
    False writes the two files one after the other in this thread (a one-thread run)."""
    from concurrent.futures import ThreadPoolExecutor

    meta = dict(metadata, part=index, deal_start=chunk.start, deals=chunk.n)

    def write_deals() -> PartFile:
        table = deals_table(chunk, deals_schema(meta))
        return write_parquet(root / DEALS_DIR / part_name(index), table, chunk.n, root)

    def write_results() -> PartFile:
        table = results_table(chunk, results_schema(meta))
        return write_parquet(root / part_name(index), table, chunk.n, root)

    if side_by_side:
        # the last part of a run is not overlapped with any playing, and writing its two
        # files side by side shortens it by the deals file's time
        with ThreadPoolExecutor(1) as side:
            deals_future = side.submit(_timed, write_deals)
            try:
                results = write_results()
            finally:
                deals, side_cpu = deals_future.result()
        if cpu is not None:
            cpu.append(side_cpu)
    else:
        deals = write_deals()
        results = write_results()
    return {
        "index": index,
        "deal_start": chunk.start,
        "deals": chunk.n,
        "file": results.file,
        "rows": results.rows,
        "bytes": results.bytes,
        "sha256": results.sha256,
        "deals_file": deals.file,
        "deals_bytes": deals.bytes,
        "deals_sha256": deals.sha256,
    }


# ---------------------------------------------------------------------------------------
# Parts encoded in memory (for worker tasks: written where they run, or sent to the driver)


def encode_parquet(table, row_group_size: int) -> bytes:
    """``table`` as the bytes of a Parquet file: exactly the bytes ``write_parquet`` writes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, table.schema, **_writer_options(table.schema)) as writer:
        writer.write_table(table, row_group_size=max(1, row_group_size))
    return sink.getvalue().to_pybytes()


@dataclass
class EncodedPart:
    """A Parquet file in memory: its name inside the run directory, rows, SHA-256, bytes."""

    file: str
    rows: int
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def encode_chunk(
    index: int, chunk: Chunk, metadata: Mapping[str, Any]
) -> tuple[EncodedPart, EncodedPart]:
    """Chunk ``index`` as its results part and its deals part, in memory (same bytes as
    ``write_chunk`` writes)."""
    meta = dict(metadata, part=index, deal_start=chunk.start, deals=chunk.n)
    results = results_table(chunk, results_schema(meta))
    deals = deals_table(chunk, deals_schema(meta))
    return (
        EncodedPart(part_name(index), results.num_rows, encode_parquet(results, chunk.n)),
        EncodedPart(
            f"{DEALS_DIR}/{part_name(index)}", deals.num_rows, encode_parquet(deals, chunk.n)
        ),
    )


def part_entry(index: int, deal_start: int, deals: int, results: PartFile, dl: PartFile) -> dict:
    """A run manifest's entry for one chunk."""
    return {
        "index": index,
        "deal_start": deal_start,
        "deals": deals,
        "file": results.file,
        "rows": results.rows,
        "bytes": results.bytes,
        "sha256": results.sha256,
        "deals_file": dl.file,
        "deals_bytes": dl.bytes,
        "deals_sha256": dl.sha256,
    }


def write_bytes(
    root: Path, name: str, data: bytes, rows: int, sha256: str | None = None
) -> PartFile:
    """Write ``data`` as ``root/name`` through a hidden temporary file unique to this writer
    (``.part-000007-<random>.parquet.tmp``), renamed when complete; ``sha256`` (if given) is
    checked first. Two writers of the same part (a task run twice) never share a temporary
    file, and both rename identical bytes into place."""
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ValueError(f"{name}: the received bytes do not match their SHA-256")
    path = root / name
    stem, dot, suffix = path.name.partition(".")
    tmp = path.with_name(f".{stem}-{os.urandom(6).hex()}{dot}{suffix}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return PartFile(name, rows, len(data), digest)


# ---------------------------------------------------------------------------------------
# Manifest


class NotARun(ValueError):
    """A path that is not a bonken-sim run directory (or a damaged one)."""


def write_manifest(root: Path, manifest: Mapping[str, Any]) -> None:
    """Replace ``_manifest.json`` atomically (temporary file, fsync, rename)."""
    path = root / MANIFEST
    tmp = tmp_name(path)
    data = json.dumps(manifest, indent=1, sort_keys=False).encode()
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def is_run_dir(path: Path) -> bool:
    return (Path(path) / MANIFEST).is_file()


def read_manifest(
    path: str | os.PathLike,
    fmt: str = FORMAT,
    schema_version: int = SCHEMA_VERSION,
    kind: str = "run",
) -> dict:
    """The manifest of run directory ``path`` (of format ``fmt``, e.g. a game run's);
    NotARun with a clear message otherwise."""
    root = Path(path)
    if not root.exists():
        raise NotARun(f"{root} does not exist")
    if not root.is_dir():
        raise NotARun(f"{root} is not a directory (expected a bonken-sim {kind} directory)")
    mpath = root / MANIFEST
    if not mpath.is_file():
        raise NotARun(f"{root} is not a bonken-sim {kind} directory (no {MANIFEST})")
    try:
        doc = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotARun(f"{mpath} is not a valid manifest: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise NotARun(f"{mpath} is not a bonken-sim {kind} manifest")
    if doc.get("schema_version") != schema_version:
        raise NotARun(
            f"{mpath}: schema version {doc.get('schema_version')} is not supported "
            f"by this bonken-sim (schema version {schema_version})"
        )
    return doc


def require_complete(
    root: Path, manifest: dict, unit: str, file_keys: tuple[str, ...], kind: str, resume: str
) -> None:
    """NotARun with a one-line reason unless the run in ``root`` is complete and every part
    file its manifest names is there. ``unit`` is what parts count ("deals", "games"),
    ``file_keys`` the part entries naming files, ``resume`` how to complete the run."""
    if manifest.get("state") != "complete":
        done = sum(int(p.get(unit, 0)) for p in manifest.get("parts", []))
        total = manifest.get("config", {}).get(unit, "?")
        total_txt = f"{total:,}" if isinstance(total, int) else str(total)
        raise NotARun(
            f"{root} is an incomplete {kind} ({done:,} of {total_txt} {unit}); complete it {resume}"
        )
    parts = manifest.get("parts") or []
    if not parts:
        raise NotARun(f"{root}: the {kind} has no parts")
    for part in parts:
        for key in file_keys:
            if not (root / str(part.get(key, ""))).is_file():
                raise NotARun(f"{root}: part file {part.get(key)} is missing")


def verify_run(path: str | os.PathLike) -> list[str]:
    """Check every listed part's size and SHA-256; the list of problems (empty: all good)."""
    root = Path(path)
    manifest = read_manifest(root)
    problems = []
    for part in manifest.get("parts", []):
        for key, sha in (("file", "sha256"), ("deals_file", "deals_sha256")):
            f = root / part[key]
            if not f.is_file():
                problems.append(f"{part[key]}: missing")
            elif sha256_file(f) != part[sha]:
                problems.append(f"{part[key]}: checksum mismatch")
    return problems


# ---------------------------------------------------------------------------------------
# Readers


def _part_paths(root: Path, manifest: dict, key: str) -> list[str]:
    return [str(root / p[key]) for p in sorted(manifest["parts"], key=lambda p: p["index"])]


def dataset(path: str | os.PathLike, table: str = "results"):
    """A ``pyarrow.dataset`` over the run's completed parts (``table``: results or deals)."""
    import pyarrow.dataset as ds

    root = Path(path)
    manifest = read_manifest(root)
    if table not in ("results", "deals"):
        raise ValueError(f"table must be 'results' or 'deals', got {table!r}")
    files = _part_paths(root, manifest, "file" if table == "results" else "deals_file")
    schema = None
    if not files:
        schema = (results_schema() if table == "results" else deals_schema()).remove_metadata()
    try:
        return ds.dataset(files, format="parquet", schema=schema)
    except (OSError, ValueError) as exc:
        raise NotARun(f"{root}: cannot read the run's parts: {exc}") from None


def _run_names_rules(manifest: Mapping[str, Any]) -> bool:
    """What rules.variant_names needs of the ruleset a run's manifest records: whether it
    plays the beer card."""
    negatives = (manifest.get("config", {}).get("ruleset") or {}).get("negatives") or ()
    return "bierkaart" in negatives


def _run_variant_names(manifest: Mapping[str, Any]) -> tuple[str, ...]:
    """The variant names of a run by id, under the ruleset its manifest records."""
    return variant_names(_run_names_rules(manifest))


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
        rules = _run_names_rules(read_manifest(path))
        names = [variant_names(rules)[v.id] for v in parse_variants(text, rules)]
        filt = pc.field("variant").isin(names)
    cols = list(columns) if columns is not None else None
    if cols is not None and deals and "deal" not in cols:
        cols = ["deal", *cols]
    table = dataset(path, "results").to_table(columns=cols, filter=filt)
    frame = table.to_pandas()
    if deals:
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
    pa = _pa()
    if not pa.types.is_dictionary(col.type):
        col = col.dictionary_encode()
    remap = np.array([_code(names, x) for x in col.dictionary.to_pylist()] + [-1], np.int8)
    idx = col.indices.fill_null(len(remap) - 1).to_numpy().astype(np.int64)
    return remap[idx]


def iter_batches(
    path: str | os.PathLike, columns: Sequence[str], batch_size: int = 1 << 20
) -> Iterator:
    """Record batches of the run's results (only ``columns``), streamed part by part."""
    yield from dataset(path, "results").to_batches(columns=list(columns), batch_size=batch_size)


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
    for batch in iter_batches(path, ["variant", *(f"score_{p}" for p in seats)]):
        vid = dictionary_codes(batch.column(0), VARIANT_NAMES).astype(np.int64)
        xs = [batch.column(1 + k).to_numpy().astype(np.int64) for k in range(len(seats))]
        if len(vid) and vid[0] == vid[-1] and (vid == vid[0]).all():
            # run writes one variant per row group, so most batches hold one variant
            count[vid[0]] += len(vid)
            for k, x in enumerate(xs):
                s1[vid[0], k] += x.sum()
                s2[vid[0], k] += (x * x).sum()
            continue
        count += np.bincount(vid, minlength=nv)
        for k, x in enumerate(xs):
            # Scores are small integers, so float64 bincount sums are exact here.
            s1[:, k] += np.bincount(vid, weights=x, minlength=nv).astype(np.int64)
            s2[:, k] += np.bincount(vid, weights=x * x, minlength=nv).astype(np.int64)
    return count, s1, s2


def summarize(path: str | os.PathLike) -> dict:
    """Mean raw score per contract variant and seat with a 95% CI (normal approximation),
    streamed over the dataset in record batches: memory does not grow with the run."""
    manifest = read_manifest(path)
    names = _run_variant_names(manifest)
    count, sums, sumsq = score_sums(path)
    rows = []
    for v in range(len(VARIANTS)):
        n = int(count[v])
        if n == 0:
            continue
        seats = []
        for p in SEATS:
            mean = sums[v, p] / n
            var_ = max(0.0, (sumsq[v, p] - n * mean * mean) / (n - 1)) if n > 1 else 0.0
            half = 1.959963984540054 * math.sqrt(var_ / n) if n > 1 else float("nan")
            seats.append({"mean": mean, "ci95": [mean - half, mean + half], "sd": math.sqrt(var_)})
        rows.append({"variant": names[v], "n": n, "seats": seats})
    return {
        "run": str(path),
        "state": manifest.get("state"),
        "seed": manifest["config"]["seed"],
        "deals": manifest["config"]["deals"],
        "deals_done": sum(p["deals"] for p in manifest.get("parts", [])),
        "strategies": manifest["config"]["strategies"],
        "variants": rows,
    }


__all__ = [
    "CONTRACT_NAMES",
    "DEAL_COLUMNS",
    "FEATURE_COLUMNS",
    "KH_ROW",
    "MANIFEST",
    "RESULT_COLUMNS",
    "SCHEMA_VERSION",
    "Chunk",
    "NotARun",
    "dataset",
    "deals_schema",
    "read_manifest",
    "read_run",
    "result_digest",
    "results_schema",
    "summarize",
    "verify_run",
]
