"""Writing a deal run's parts: a played chunk as its results part and its deals part, on
disk through the streaming Parquet writer or in memory for worker tasks (the same bytes),
and the manifest entry of a chunk. Also the one import place of the run storage API: the
schema (``schema.py``), atomic files (``files.py``), the manifest (``manifest.py``) and the
readers (``readers.py``) are re-exported here.

Every file is written under a hidden temporary name and renamed when complete, so a killed
run never leaves a file that looks finished.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bonken_sim.engine.deals import KH_ROW
from bonken_sim.rules.names import VARIANT_NAMES
from bonken_sim.runs.files import (
    TMP_DIR,
    EncodedPart,
    PartFile,
    sha256_file,
    tmp_name,
    write_bytes,
)
from bonken_sim.runs.manifest import (
    MANIFEST,
    NotARun,
    is_run_dir,
    read_manifest,
    require_complete,
    verify_run,
    write_manifest,
)
from bonken_sim.runs.readers import (
    dataset,
    dictionary_codes,
    iter_batches,
    read_run,
    result_digest,
    score_sums,
    summarize,
)
from bonken_sim.runs.schema import (
    CONTRACT_NAMES,
    DEAL_COLUMNS,
    DEALS_DIR,
    FEATURE_COLUMNS,
    FORMAT,
    METADATA_KEY,
    RESULT_COLUMNS,
    RESULT_VALUE_COLUMNS,
    SCHEMA_VERSION,
    SEATS,
    TRUMP_NAMES,
    VARIANT_CONTRACT,
    VARIANT_TRUMP,
    Chunk,
    deals_schema,
    deals_table,
    part_name,
    results_schema,
    results_table,
    schema_metadata,
    writer_options,
)


def write_parquet(path: Path, table, row_group_size: int, root: Path) -> PartFile:
    """Write ``table`` to ``path`` through a hidden temporary file renamed when complete."""
    import pyarrow.parquet as pq

    tmp = tmp_name(path)
    try:
        tmp.parent.mkdir(exist_ok=True)
        with pq.ParquetWriter(tmp, table.schema, **writer_options(table.schema)) as writer:
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
    with pq.ParquetWriter(sink, table.schema, **writer_options(table.schema)) as writer:
        writer.write_table(table, row_group_size=max(1, row_group_size))
    return sink.getvalue().to_pybytes()


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


__all__ = [
    "CONTRACT_NAMES",
    "DEAL_COLUMNS",
    "DEALS_DIR",
    "FEATURE_COLUMNS",
    "FORMAT",
    "KH_ROW",
    "MANIFEST",
    "METADATA_KEY",
    "RESULT_COLUMNS",
    "RESULT_VALUE_COLUMNS",
    "SCHEMA_VERSION",
    "SEATS",
    "TMP_DIR",
    "TRUMP_NAMES",
    "VARIANT_CONTRACT",
    "VARIANT_NAMES",
    "VARIANT_TRUMP",
    "Chunk",
    "EncodedPart",
    "NotARun",
    "PartFile",
    "dataset",
    "deals_schema",
    "deals_table",
    "dictionary_codes",
    "encode_chunk",
    "encode_parquet",
    "is_run_dir",
    "iter_batches",
    "part_entry",
    "part_name",
    "read_manifest",
    "read_run",
    "require_complete",
    "result_digest",
    "results_schema",
    "results_table",
    "schema_metadata",
    "score_sums",
    "sha256_file",
    "summarize",
    "tmp_name",
    "verify_run",
    "write_bytes",
    "write_chunk",
    "write_manifest",
    "write_parquet",
]
