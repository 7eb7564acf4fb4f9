"""The ``run --config run.toml`` file: option values for a run, read from TOML.

Its keys are the run command's option names (``chunk-size`` or ``chunk_size``), at the top
level or in a ``[run]`` table; a list stands for the comma list the command line takes. The
command line and the ``BONKEN_SIM_<OPTION>`` environment variables win over the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bonken_sim.errors import UserFixableError
from bonken_sim.files import NotToml, read_small_file, toml_document

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
#: The flags: true or false.
_FLAGS = ("resume", "force", "json", "quiet")
#: The counts and numbers: a whole number or its text (``"1e6"``, ``"0x10"``; a count may
#: also be a TOML float such as ``1e6``).
_NUMBERS = ("deals", "seed", "threads", "chunk_size", "workers")
#: The comma lists: text or a list of texts.
_LISTS = ("strategies", "contracts")
# every other key is text (out, executor, scheduler, write_parts, ruleset, rules)


class RunConfigFileError(UserFixableError, ValueError):
    """A config file that is not valid TOML, sets an unknown option or gives an option a
    value of the wrong type."""


def read_run_config(path: str | Path) -> dict[str, Any]:
    """The options ``path`` sets: {option name with underscores: value as the command line
    would give it}. An unreadable file raises OSError (``files.CannotRead`` for one that is
    not a regular file of at most 1 MiB, refused before it is read); a bad one
    RunConfigFileError."""
    raw = read_small_file(path)
    try:
        doc = toml_document(raw)
    except NotToml as exc:
        raise RunConfigFileError(str(exc)) from None
    if isinstance(doc.get("run"), dict):
        doc = doc["run"]
    options = {}
    for key, item in doc.items():
        name = key.replace("-", "_")
        if name not in RUN_CONFIG_KEYS:
            known = ", ".join(k.replace("_", "-") for k in RUN_CONFIG_KEYS)
            raise RunConfigFileError(f"unknown option {key!r} (known: {known})")
        _check_type(key, name, item)
        if isinstance(item, list):
            item = ",".join(item)
        options[name] = item
    return options


def _check_type(key: str, name: str, item: Any) -> None:
    """RunConfigFileError naming ``key`` unless ``item`` has a type its option takes (the
    value itself is checked later, as the command line's is)."""
    if name in _FLAGS:
        ok, expected = isinstance(item, bool), "true or false"
    elif name in _NUMBERS:
        number = isinstance(item, int | float) and not isinstance(item, bool)
        ok, expected = number or isinstance(item, str), "a number or its text"
    elif name in _LISTS:
        texts = isinstance(item, list) and all(isinstance(x, str) for x in item)
        ok, expected = texts or isinstance(item, str), "a text or a list of texts"
    else:
        ok, expected = isinstance(item, str), "a text"
    if not ok:
        raise RunConfigFileError(f"{key} = {item!r} is not allowed (expected {expected})")
