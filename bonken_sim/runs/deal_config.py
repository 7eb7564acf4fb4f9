"""A deal run (``bonken-sim run``) as data: its run directory (``DEAL_RUN``), its options
(``DEAL_CONFIG``, read by ``run_config``), ``RunConfig`` and ``make_config``, which validates
what a user typed (or Python values) and, on ``--resume``, takes the options not given from
the run's manifest and refuses the ones that differ from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.rules.names import VARIANT_NAMES, variant_names
from bonken_sim.rules.rulesets import STANDARD, Ruleset
from bonken_sim.runs.directory import RunKind, now
from bonken_sim.runs.errors import RunError
from bonken_sim.runs.executors import ExecutorSpec
from bonken_sim.runs.options import (
    default_threads,
    parse_contracts,
    parse_dealer,
    parse_option_count,
    parse_strategies,
)
from bonken_sim.runs.run_config import (
    SEED,
    ConfigKind,
    Option,
    count_option,
    load_names,
    ruleset_option,
    seats_option,
)
from bonken_sim.runs.schema import DEALS_DIR, FORMAT, SCHEMA_VERSION

DEFAULT_CHUNK = 100_000
MAX_CHUNK = 1_000_000


def _totals(manifest: dict) -> None:
    """The derived fields of a deal run's manifest, refreshed before every save."""
    manifest["deals_done"] = sum(p["deals"] for p in manifest["parts"])
    manifest["rows"] = sum(p["rows"] for p in manifest["parts"])
    manifest["updated"] = now()


_NOT_A_RUN = (
    "--out {root} exists and is not empty, and it is not a bonken-sim run directory; choose "
    "a new directory (nothing there is touched)"
)
DEAL_RUN = RunKind(
    name="run",
    format=FORMAT,
    schema_version=SCHEMA_VERSION,
    part_dirs=("", DEALS_DIR),
    part_files=(("file", "bytes", "sha256"), ("deals_file", "deals_bytes", "deals_sha256")),
    default_prefix="run",
    error=RunError,
    hint="bonken-sim run --resume --out {root}",
    taken=(
        "--out {root} already holds a run; use --force to overwrite it or --resume to complete it"
    ),
    foreign=_NOT_A_RUN,
    foreign_force=_NOT_A_RUN,
    cannot_create="cannot create --out {root}: {reason}",
    cannot_write="cannot write in --out {root}: {reason}",
    not_writable="cannot write in --out {root}: Permission denied",
    resume_prefix="--resume: ",
    totals=_totals,
)


@dataclass(frozen=True)
class RunConfig:
    """A resolved, validated run configuration."""

    deals: int
    seed: int
    strategies: tuple[str, ...] = ("basic",) * 4
    contracts: tuple[str, ...] = VARIANT_NAMES
    chunk_size: int = DEFAULT_CHUNK
    threads: int = field(default_factory=default_threads)
    out: Path | None = None
    resume: bool = False
    force: bool = False
    dealer: int = 0
    seed_drawn: bool = False
    executor_spec: ExecutorSpec = field(default_factory=ExecutorSpec)
    ruleset: Ruleset = STANDARD

    def identity(self) -> dict[str, Any]:
        """What determines the stored bytes; must match on --resume."""
        return DEAL_CONFIG.identity(self)

    @property
    def variant_ids(self) -> np.ndarray:
        names = variant_names(self.ruleset)
        return np.array(
            [names.index(c) if c in names else VARIANT_NAMES.index(c) for c in self.contracts],
            np.int64,
        )

    @property
    def strategy_ids(self) -> tuple[int, ...]:
        """The four seats' kernel codes, as a task carries them."""
        from bonken_sim.engine.strategies import parse_strategies, strategy_array

        return tuple(int(s) for s in strategy_array(parse_strategies(list(self.strategies))))

    @property
    def n_chunks(self) -> int:
        return -(-self.deals // self.chunk_size)


def _list(value: tuple) -> list:
    return list(value)


#: a deal run's options, in the order its manifest records them
DEAL_OPTIONS = (
    count_option("deals"),
    SEED,
    seats_option("strategies", parse_strategies),
    Option(
        "contracts",
        parse_contracts,
        default=lambda values: variant_names(values["ruleset"]),
        by_ruleset=True,  # bierkaart is a name under the beer-card ruleset only
        store=_list,
        load=load_names,
    ),
    Option("dealer", parse_dealer, default=lambda values: 0, load=int),
    Option(
        "chunk_size",
        lambda value: parse_option_count(value, "chunk_size", MAX_CHUNK),
        default=lambda values: DEFAULT_CHUNK,
        load=int,
    ),
    ruleset_option(record_standard=True),
)
DEAL_CONFIG = ConfigKind(
    DEAL_RUN,
    DEAL_OPTIONS,
    RunConfig,
    count_example="1e6, 2.5M, 10k or 1_000_000",
    part_keys=("rows",),
)
#: the options of a deal run's identity besides its ruleset
IDENTITY_OPTIONS = tuple(o.name for o in DEAL_OPTIONS if o.identity and o.name != "ruleset")


def make_config(
    deals: Any = None,
    seed: Any = None,
    strategies: Any = None,
    contracts: Any = None,
    threads: Any = None,
    chunk_size: Any = None,
    out: Any = None,
    resume: bool = False,
    force: bool = False,
    dealer: Any = None,
    executor: Any = None,
    workers: Any = None,
    scheduler: Any = None,
    write_parts: Any = None,
    ruleset: Any = None,
    rules_file: Any = None,
) -> RunConfig:
    """Validate user values (strings like ``"1e6"`` or Python values) into a RunConfig.

    ``ruleset`` is a Ruleset, a preset name or a ruleset record, ``rules_file`` a TOML rules
    file (at most one of them; default RULES.md).

    ``None`` means "not given". With ``resume`` the options not given come from the run's
    manifest, and the ones given must equal the manifest's (RunError otherwise). The
    executor options (``executor`` = local, process or dask; ``workers``; ``scheduler``;
    ``write_parts``) never change the results, so a run may be resumed with any of them.
    """
    config: RunConfig = DEAL_CONFIG.make(locals())
    return config
