"""The ``run --config run.toml`` file: option values for a run, read from TOML.

Its keys are the run command's option names (``chunk-size`` or ``chunk_size``), at the top
level or in a ``[run]`` table; a list stands for the comma list the command line takes. The
command line and the ``BONKEN_SIM_<OPTION>`` environment variables win over the file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

#: Every option a run config file may set, in the order ``unknown option`` lists them.
RUN_CONFIG_KEYS = (
    "deals",
    "seed",
    "strategies",
    "contracts",
    "threads",
    "chunk_size",
    "out",
    "resume",
    "force",
    "json",
    "quiet",
    "executor",
    "workers",
    "scheduler",
    "write_parts",
    "ruleset",
    "rules",
)


class RunConfigFileError(ValueError):
    """A config file that is not valid TOML or sets an unknown option."""


def read_run_config(path: str | Path) -> dict[str, Any]:
    """The options ``path`` sets: {option name with underscores: value as the command line
    would give it}. An unreadable file raises OSError; a bad one RunConfigFileError."""
    with open(path, "rb") as fh:
        try:
            doc = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise RunConfigFileError(f"not valid TOML: {exc}") from None
    if isinstance(doc.get("run"), dict):
        doc = doc["run"]
    options = {}
    for key, item in doc.items():
        name = key.replace("-", "_")
        if name not in RUN_CONFIG_KEYS:
            known = ", ".join(k.replace("_", "-") for k in RUN_CONFIG_KEYS)
            raise RunConfigFileError(f"unknown option {key!r} (known: {known})")
        if isinstance(item, list):
            item = ",".join(str(x) for x in item)
        options[name] = item
    return options
