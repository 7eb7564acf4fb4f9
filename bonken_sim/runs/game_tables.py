"""A game run's two tables built from a played ``GameBatch`` and encoded as Parquet bytes:
the deals table (one row per deal of each game) and the games table (one row per game).
docs/RUN_FORMAT.md describes their columns.

Building them is a handful of whole-array numpy operations (no Python loop over games or
deals), and the Parquet options are chosen per column, so that writing a part costs a small
fraction of playing it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from bonken_sim.engine.games import DEALS_PER_GAME, PAIRS, GameBatch, ranks
from bonken_sim.rules.names import TRUMPS, contract_names, variant_names
from bonken_sim.runs.schema import VARIANT_CONTRACT, VARIANT_TRUMP

#: the bonken_sim key of a part's schema metadata
METADATA_KEY = "bonken_sim"


def _pa():
    import pyarrow as pa

    return pa


def _dict(indices: np.ndarray, names, mask=None):
    """A dictionary column: int8 codes into ``names`` (null where ``mask``)."""
    pa = _pa()
    idx = pa.array(indices.astype(np.int8, copy=False), mask=mask)
    return pa.DictionaryArray.from_arrays(idx, pa.array(list(names), pa.string()))


def _with_metadata(names: list[str], columns: list, metadata: dict):
    pa = _pa()
    table = pa.Table.from_arrays(columns, names=names)
    return table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata)})


def _ruleset(rules: dict[str, Any] | None):
    """A recorded house ruleset as a Ruleset (None: the standard rules, None)."""
    if rules is None:
        return None
    from bonken_sim.rules.rulesets import Ruleset

    return Ruleset.from_dict(rules)


def deals_table(b: GameBatch, metadata: dict, rules: dict[str, Any] | None = None):
    """One row per deal of each game of the batch; ``rules``: the recorded house ruleset
    (None: RULES.md), which names the contracts (rules.variant_names)."""
    pa = _pa()
    ruleset = _ruleset(rules)
    n = b.n
    first = ((b.start + np.arange(n, dtype=np.int64)) % 4).astype(np.int8)
    k = np.arange(DEALS_PER_GAME, dtype=np.int8)
    dealer = ((first[:, None] + k) & 3).reshape(-1)  # & 3, not % 4: a third of the time
    v = b.variant.reshape(-1)
    trump = VARIANT_TRUMP[v]
    names = ["game", "deal", "dealer", "chooser", "variant", "contract", "trump", "doubles"]
    columns = [
        pa.array(np.repeat(b.start + np.arange(n, dtype=np.int64), DEALS_PER_GAME)),
        pa.array(np.tile(k, n)),
        pa.array(dealer),
        pa.array((dealer + 2) & 3),
        _dict(v, variant_names(ruleset)),
        _dict(VARIANT_CONTRACT[v], contract_names(ruleset)),
        _dict(np.maximum(trump, 0), TRUMPS, mask=trump < 0),
        pa.array(b.dbl.reshape(-1)),
    ]
    names += [f"m_{a}{c}" for a, c in PAIRS]
    columns += [pa.array(m.reshape(-1)) for m in b.pair_multiplicity()]
    # seat-major copies: one contiguous column per seat
    for label, scores in (("raw", b.raw), ("final", b.final)):
        by_seat = np.ascontiguousarray(scores.reshape(-1, 4).T)
        names += [f"{label}_{p}" for p in range(4)]
        columns += [pa.array(by_seat[p]) for p in range(4)]
    return _with_metadata(names, columns, metadata)


def games_table(b: GameBatch, players: tuple[str, ...], metadata: dict):
    """One row per game: first dealer, the profile per seat, settled totals and ranks;
    ``players`` are the profiles ``b.profiles`` indexes."""
    pa = _pa()
    n = b.n
    game = b.start + np.arange(n, dtype=np.int64)
    rk = ranks(b.totals).astype(np.int8)
    # each profile of the batch as its code in the sorted dictionary of the names
    names = sorted(set(players))
    code = np.array([names.index(p) for p in players], np.int8)
    columns = [pa.array(game), pa.array((game % 4).astype(np.int8))]
    columns += [_dict(code[b.profiles[:, p]], names) for p in range(4)]
    columns += [pa.array(np.ascontiguousarray(b.totals[:, p])) for p in range(4)]
    columns += [pa.array(np.ascontiguousarray(rk[:, p])) for p in range(4)]
    labels = ["game", "first_dealer"]
    labels += [f"{what}_{p}" for what in ("profile", "total", "rank") for p in range(4)]
    return _with_metadata(labels, columns, metadata)


#: columns stored DELTA_BINARY_PACKED without a codec (the bit-packing already compresses
#: them); every other integer column is dictionary-encoded with zstd (a few distinct values:
#: deal, dealer, chooser, doubles, first_dealer, ranks) and the strings are dictionaries with
#: zstd. Measured on a 20,000-game part: writing the deals table took 53 ms of CPU instead of
#: 87 ms with dictionaries and zstd everywhere, for files of 3.0 MB instead of 1.8 MB.
_DELTA = ("game", "m_", "raw_", "final_", "total_")
#: min/max statistics only on the game index (a filter on it skips whole row groups); on
#: every column they cost about 10% of the write time
_STATS_COLUMNS = ["game"]


def writer_options(schema) -> dict[str, Any]:
    """The ``pyarrow.parquet.write_table`` options of a game part with this schema."""
    delta = [c for c in schema.names if c.startswith(_DELTA)]
    return dict(
        compression={c: "none" if c in delta else "zstd" for c in schema.names},
        use_dictionary=[c for c in schema.names if c not in delta],
        column_encoding={c: "DELTA_BINARY_PACKED" for c in delta},
        write_statistics=[c for c in _STATS_COLUMNS if c in schema.names],
    )


def encode_table(table) -> bytes:
    """A game part's Parquet bytes (``writer_options``; one row group)."""
    pa = _pa()
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(
        table, sink, row_group_size=max(1, table.num_rows), **writer_options(table.schema)
    )
    return sink.getvalue().to_pybytes()
