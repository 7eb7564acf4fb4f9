"""What a game run directory (``bonken-sim game``) is on disk, for its writer and its readers:
the manifest format, where its two tables live, and reading them. Imports no kernels, so a
reader of game runs stays light.

A game run reads like a deal run: the directory itself is its main table (one row per game,
``part-*.parquet`` at the top) and the per-deal table is under ``_deals/``, which Parquet
readers skip when given the directory (names starting with ``_`` or ``.``). So
``pandas.read_parquet(RUN)`` is the games table, and ``pandas.read_parquet(RUN/_deals)`` the
deals. Game runs written before this layout keep theirs (``games/`` and ``deals/``) when
read and when resumed; their manifest has no ``tables`` entry.
"""

from __future__ import annotations

import os
from pathlib import Path

from bonken_sim.errors import BadValue
from bonken_sim.files import NotJson, json_document
from bonken_sim.runs.manifest import MANIFEST, NotARun, read_manifest

FORMAT = "bonken-sim-games"
SCHEMA_VERSION = 1
KIND = "game run"  # what NotARun calls it
#: a match (``bonken-sim match``): a game run's tables and layout, its own manifest format
#: (so ``game --resume`` or ``--force`` never takes one for a game run), read by the
#: summary and the report as a game run (docs/RUN_FORMAT.md)
MATCH_FORMAT = "bonken-sim-match"
MATCH_KIND = "match"

GAMES_DIR = ""  # the games table: the run directory itself
DEALS_DIR = "_deals"
#: where game runs of the first layout keep their tables (both are read by a dataset reader
#: given the run directory, which merged them into one frame of nulls)
OLD_GAMES_DIR = "games"
OLD_DEALS_DIR = "deals"
#: the manifest's description of the tables; its presence marks the layout above
TABLES = {
    "games": "part-*.parquet: one row per game",
    "deals": f"{DEALS_DIR}/part-*.parquet: one row per deal of each game",
}
#: the files of a part, in the order a part task encodes them: (file, bytes, sha256) keys
PART_FILES = (
    ("deals_file", "deals_bytes", "deals_sha256"),
    ("games_file", "games_bytes", "games_sha256"),
)
#: the manifest's part entry key naming each table's file
FILE_KEYS = {"games": "games_file", "deals": "deals_file"}


def manifest_format(path: str | os.PathLike) -> str | None:
    """The ``format`` of a directory's manifest; None when it has no readable one."""
    try:
        doc = json_document((Path(path) / MANIFEST).read_bytes())
    except (OSError, NotJson):
        return None
    fmt = doc.get("format") if isinstance(doc, dict) else None
    return fmt if isinstance(fmt, str) else None


def game_manifest(path: str | os.PathLike, matches: bool = False) -> dict:
    """The manifest of the game run in ``path`` (``matches``: or of a match, whose tables
    read alike); NotARun with a one-line reason otherwise."""
    if matches and manifest_format(path) == MATCH_FORMAT:
        return read_manifest(path, MATCH_FORMAT, SCHEMA_VERSION, kind=MATCH_KIND)
    return read_manifest(path, FORMAT, SCHEMA_VERSION, kind=KIND)


def is_game_run(path: str | os.PathLike, matches: bool = False) -> bool:
    """Whether ``path`` holds a game run's manifest (``matches``: or a match's), by its
    format alone: what else is wrong with it, ``game_manifest`` says."""
    return manifest_format(path) in ((FORMAT, MATCH_FORMAT) if matches else (FORMAT,))


def game_dirs(manifest: dict) -> tuple[str, str]:
    """(deals directory, games directory) of a game run, from its manifest: the layout above,
    or the first one for a run written before it."""
    if "tables" in manifest:
        return DEALS_DIR, GAMES_DIR
    return OLD_DEALS_DIR, OLD_GAMES_DIR


def game_part_files(path: str | os.PathLike, table: str = "games") -> list[str]:
    """The files of one table (``games`` or ``deals``) of the game run (or match) in
    ``path``: its finished parts in order, whatever the run's layout."""
    if table not in FILE_KEYS:
        raise BadValue(f"table must be 'games' or 'deals', got {table!r}")
    root = Path(path)
    parts = sorted(game_manifest(root, matches=True)["parts"], key=lambda p: p["index"])
    return [str(root / p[FILE_KEYS[table]]) for p in parts]


def game_dataset(path: str | os.PathLike, table: str = "games"):
    """A ``pyarrow.dataset`` over one table of the game run (or match) in ``path`` (its
    finished parts, either layout); ``.to_table().to_pandas()`` for a frame."""
    import pyarrow.dataset as ds

    files = game_part_files(path, table)
    if not files:
        raise NotARun(f"{path}: the game run has no finished part yet")
    try:
        return ds.dataset(files, format="parquet")
    except (OSError, ValueError) as exc:
        raise NotARun(f"{path}: cannot read the game run's parts: {exc}") from None
