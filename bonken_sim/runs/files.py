"""Files written atomically (a hidden temporary file renamed when complete) and their
SHA-256: a killed run never leaves a file that looks finished."""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path


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


#: where a part is written before its rename: a hidden directory beside it. No reader of the
#: dataset looks there (pyarrow and pandas skip names starting with "." or "_", and a glob
#: such as RUN/*.parquet or RUN/deals/* does not descend), so what a killed writer leaves
#: never passes for data; --resume removes it and a finished session removes the directory.
TMP_DIR = ".tmp"


def tmp_name(path: Path) -> Path:
    """The temporary name a part is written under before its rename (in ``TMP_DIR``)."""
    return path.parent / TMP_DIR / f"{path.name}.tmp"


@dataclass
class EncodedPart:
    """A Parquet file in memory: its name inside the run directory, rows, SHA-256, bytes."""

    file: str
    rows: int
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def write_bytes(
    root: Path, name: str, data: bytes, rows: int, sha256: str | None = None
) -> PartFile:
    """Write ``data`` as ``root/name`` through a hidden temporary file unique to this writer
    (``.tmp/part-000007-<random>.parquet.tmp``), renamed when complete; ``sha256`` (if given) is
    checked first. Two writers of the same part (a task run twice) never share a temporary
    file, and both rename identical bytes into place."""
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ValueError(f"{name}: the received bytes do not match their SHA-256")
    path = root / name
    stem, dot, suffix = path.name.partition(".")
    tmp = path.parent / TMP_DIR / f"{stem}-{os.urandom(6).hex()}{dot}{suffix}.tmp"
    try:
        tmp.parent.mkdir(exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return PartFile(name, rows, len(data), digest)
