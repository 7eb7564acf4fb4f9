"""What a game run directory (``bonken-sim game``) is on disk, for its writer and its readers:
the manifest format and reading it. Imports no kernels, so a reader of game runs stays
light."""

from __future__ import annotations

import os

from bonken_sim.runs.manifest import MANIFEST, read_manifest

FORMAT = "bonken-sim-games"
SCHEMA_VERSION = 1
KIND = "game run"  # what NotARun calls it


def game_manifest(path: str | os.PathLike) -> dict:
    """The manifest of the game run in ``path``; NotARun with a one-line reason otherwise."""
    return read_manifest(path, FORMAT, SCHEMA_VERSION, kind=KIND)


def is_game_run(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a game run's manifest (by its format alone: what else is wrong
    with it, ``game_manifest`` says)."""
    import json
    from pathlib import Path

    try:
        doc = json.loads((Path(path) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("format") == FORMAT
