"""The manifest of a run directory (``_manifest.json``): written atomically, read with
clear errors, and the checks of a run's parts against it."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bonken_sim.errors import UserFixableError
from bonken_sim.files import NotJson, json_document
from bonken_sim.runs.files import sha256_file
from bonken_sim.runs.schema import FORMAT, SCHEMA_VERSION

MANIFEST = "_manifest.json"


class NotARun(UserFixableError, ValueError):
    """A path that is not a bonken-sim run directory (or a damaged one)."""


def manifest_tmp(root: Path) -> Path:
    """The hidden temporary file the manifest is written to before its rename."""
    return root / f".{MANIFEST}.tmp"


def write_manifest(root: Path, manifest: Mapping[str, Any]) -> None:
    """Replace ``_manifest.json`` atomically (temporary file, fsync, rename)."""
    path = root / MANIFEST
    tmp = manifest_tmp(root)
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
        doc = json_document(mpath.read_bytes())
    except (OSError, NotJson) as exc:
        raise NotARun(f"{mpath} is not a valid manifest: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise NotARun(f"{mpath} is not a bonken-sim {kind} manifest")
    if doc.get("schema_version") != schema_version:
        raise NotARun(
            f"{mpath}: schema version {doc.get('schema_version')} is not supported "
            f"by this bonken-sim (schema version {schema_version})"
        )
    parts = doc.get("parts", [])
    if not isinstance(doc.get("config", {}), dict) or not isinstance(parts, list):
        raise NotARun(f"{mpath} is not a valid manifest: config or parts of the wrong type")
    if not all(isinstance(part, dict) for part in parts):
        raise NotARun(f"{mpath} is not a valid manifest: a part entry is not an object")
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
