"""The manifest of a run directory (``_manifest.json``): written atomically, read with
clear errors, and the checks of a run's parts against it."""

from __future__ import annotations

import contextlib
import json
import os
import reprlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bonken_sim.errors import UserFixableError
from bonken_sim.files import NotJson, json_document
from bonken_sim.runs.files import sha256_file
from bonken_sim.runs.schema import FORMAT, SCHEMA_VERSION

MANIFEST = "_manifest.json"


class NotARun(UserFixableError, ValueError):
    """A path that is not a bonken-sim run directory (or a damaged one)."""


#: The check of each format's manifest beyond its shape, ``check(doc)`` raising ValueError
#: ``field: why``: each kind of run registers its own (``run_config.ConfigKind``), which reads
#: the config back through the parsers of the kind's options, so that a manifest is held to
#: the rules that made it and no schema is written twice.
MANIFEST_CHECKS: dict[str, Callable[[dict], None]] = {}


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
    try:
        check_shape(doc)
        check = _kind_check(fmt)
        if check is not None:
            check(doc)
    except (ValueError, TypeError) as exc:
        raise NotARun(f"{mpath} is not a valid manifest: {exc}") from None
    return doc


def _kind_check(fmt: str) -> Callable[[dict], None] | None:
    if fmt not in MANIFEST_CHECKS:
        # the kinds of run of this layer register when imported; a match registers with its
        # options (table/match_config.py), imported by the commands that read matches
        from bonken_sim.runs import deal_config, game_config  # noqa: F401
    return MANIFEST_CHECKS.get(fmt)


def short(value: Any) -> str:
    """A value of a manifest in a one-line message, cut short."""
    return reprlib.repr(value)


def check_shape(doc: dict) -> None:
    """ValueError ``field: why`` unless what every reader of a run walks has the type every
    writer gives it: the config an object, the state a word, the versions an object, the
    sessions and parts lists of objects, each part's counts whole numbers, its files paths
    inside the run and its checksums text. A key ends in what it holds (``games_file``,
    ``deals_bytes``), so one rule fits every kind of run."""
    for key in ("config", "parts"):  # every run's manifest has them from its start
        if key not in doc:
            raise ValueError(f"{key} is missing")
    for key, kind in (("config", dict), ("versions", dict), ("sessions", list), ("parts", list)):
        if key in doc and not isinstance(doc[key], kind):
            raise ValueError(f"{key}: {short(doc[key])} is not a JSON {_JSON_NAMES[kind]}")
    if not isinstance(doc.get("state", ""), str):
        raise ValueError(f"state: {short(doc['state'])} is not a word")
    for key in ("sessions", "parts"):
        for k, entry in enumerate(doc.get(key, [])):
            if not isinstance(entry, dict):
                raise ValueError(f"{key}[{k}]: {short(entry)} is not a JSON object")
    for k, part in enumerate(doc.get("parts", [])):
        for name, value in part.items():
            _check_part_value(f"parts[{k}].{name}", name, value)


_JSON_NAMES = {dict: "object", list: "list"}
_COUNT_KEYS = ("index", "rows", "bytes", "deals", "games", "faults")


def _check_part_value(where: str, name: str, value: Any) -> None:
    last = name.rsplit("_", 1)[-1]
    if name in _COUNT_KEYS or last in ("rows", "bytes", "start"):
        if type(value) is not int or value < 0:
            raise ValueError(f"{where}: {short(value)} is not a whole number")
    elif last == "file" and not _inside(value):
        raise ValueError(f"{where}: {short(value)} is not the path of a file in the run")
    elif last == "sha256" and not isinstance(value, str):
        raise ValueError(f"{where}: {short(value)} is not a checksum")


def _inside(value: Any) -> bool:
    """``value`` is a relative path that stays inside the run (what a part file is)."""
    if not isinstance(value, str) or "\x00" in value:
        return False
    path = Path(value)
    return bool(path.name) and not path.is_absolute() and ".." not in path.parts


def check_parts(parts: list[dict], required: tuple[str, ...]) -> None:
    """ValueError ``parts[k].key is missing`` unless every part entry holds ``required``."""
    for k, part in enumerate(parts):
        for key in required:
            if key not in part:
                raise ValueError(f"parts[{k}].{key} is missing")


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
