"""The deal run's tables: the Arrow schemas of its two Parquet datasets, the names behind
their dictionary columns, a played chunk's rows as Arrow tables and the writer options.

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
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bonken_sim.engine.deals import N_FEATURES, SEAT_FEATURES
from bonken_sim.rules.names import TRUMPS, VARIANTS, Contract, contract_names, variant_names

SCHEMA_VERSION = 1
FORMAT = "bonken-sim-run"
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


def writer_options(schema) -> dict:
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
