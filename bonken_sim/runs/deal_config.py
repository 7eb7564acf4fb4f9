"""A deal run's configuration: ``RunConfig`` and ``make_config``, which validates what a user
typed (or Python values) and, on ``--resume``, takes the options not given from the run's
manifest and refuses the ones that differ from it."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.rules.names import VARIANT_NAMES, variant_names
from bonken_sim.rules.rulesets import STANDARD, RulesError, Ruleset
from bonken_sim.runs.errors import RunError
from bonken_sim.runs.executors import ExecutorError, ExecutorSpec, make_spec
from bonken_sim.runs.manifest import NotARun, read_manifest
from bonken_sim.runs.options import (
    default_threads,
    flag,
    parse_contracts,
    parse_dealer,
    parse_option_count,
    parse_option_seed,
    parse_ruleset,
    parse_strategies,
    parse_threads,
)

DEFAULT_CHUNK = 100_000
MAX_CHUNK = 1_000_000
IDENTITY_OPTIONS = ("deals", "seed", "strategies", "contracts", "chunk_size", "dealer")
# Runs written before house rules have no "ruleset" in their manifest: they are RULES.md.
LEGACY_RULESET = STANDARD.to_dict()


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
        return {
            "deals": self.deals,
            "seed": self.seed,
            "strategies": list(self.strategies),
            "contracts": list(self.contracts),
            "dealer": self.dealer,
            "chunk_size": self.chunk_size,
            "ruleset": self.ruleset.to_dict(),
        }

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
        from bonken_sim.engine.play import parse_strategies, strategy_array

        return tuple(int(s) for s in strategy_array(parse_strategies(list(self.strategies))))

    @property
    def n_chunks(self) -> int:
        return -(-self.deals // self.chunk_size)


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
    try:
        spec = make_spec(executor, workers, scheduler, write_parts)
    except ExecutorError as exc:
        raise RunError(str(exc)) from None
    out_path = Path(os.path.expanduser(str(out))) if out is not None and str(out) != "" else None
    try:
        given = _given(deals, seed, strategies, chunk_size, dealer, ruleset, rules_file)
        if contracts is not None:
            names_rules = given.get("ruleset", STANDARD)
            if resume and "ruleset" not in given and out_path is not None:
                names_rules = _stored_ruleset(out_path)
            given["contracts"] = parse_contracts(contracts, names_rules)
        # with worker processes, --threads is what each task uses inside its worker (default 1)
        if threads is not None:
            n_threads = parse_threads(threads)
        else:
            n_threads = default_threads() if spec.local else 1
    except ValueError as exc:
        raise RunError(str(exc)) from None
    if resume and force:
        raise RunError("--resume and --force exclude each other: resume a run or overwrite it")
    if resume:
        return _resumed(given, out_path, n_threads, spec)
    if "deals" not in given:
        raise RunError("--deals is required (a count such as 1e6, 2.5M, 10k or 1_000_000)")
    drawn = "seed" not in given
    return RunConfig(
        deals=given["deals"],
        seed=given["seed"] if not drawn else secrets.randbits(63),
        strategies=given.get("strategies", ("basic",) * 4),
        contracts=given.get("contracts", variant_names(given.get("ruleset", STANDARD))),
        chunk_size=given.get("chunk_size", DEFAULT_CHUNK),
        dealer=given.get("dealer", 0),
        threads=n_threads,
        out=out_path,
        force=bool(force),
        seed_drawn=drawn,
        executor_spec=spec,
        ruleset=given.get("ruleset", STANDARD),
    )


def _given(deals, seed, strategies, chunk_size, dealer, ruleset, rules_file) -> dict[str, Any]:
    """The options given (not None), parsed; ValueError with the user's message otherwise."""
    given: dict[str, Any] = {}
    if deals is not None:
        given["deals"] = parse_option_count(deals, "deals")
    if seed is not None:
        given["seed"] = parse_option_seed(seed)
    if strategies is not None:
        given["strategies"] = parse_strategies(strategies)
    if chunk_size is not None:
        given["chunk_size"] = parse_option_count(chunk_size, "chunk_size", MAX_CHUNK)
    if dealer is not None:
        given["dealer"] = parse_dealer(dealer)
    if ruleset is not None or rules_file is not None:
        given["ruleset"] = parse_ruleset(ruleset, rules_file)
    return given


def _resumed(
    given: dict[str, Any], out: Path | None, threads: int, spec: ExecutorSpec
) -> RunConfig:
    """The configuration of the run in ``out``; the options given must be the run's."""
    if out is None:
        raise RunError("--resume needs --out DIR: the run directory to complete")
    try:
        manifest = read_manifest(out)
    except NotARun as exc:
        raise RunError(f"--resume: {exc}") from None
    stored = manifest["config"]
    for name, value in given.items():
        _check_same(name, value, stored)
    values = {k: stored[k] for k in IDENTITY_OPTIONS}
    return RunConfig(
        deals=int(values["deals"]),
        seed=int(values["seed"]),
        strategies=tuple(values["strategies"]),
        contracts=tuple(values["contracts"]),
        chunk_size=int(values["chunk_size"]),
        dealer=int(values["dealer"]),
        threads=threads,
        out=out,
        resume=True,
        seed_drawn=bool(stored.get("seed_drawn", False)),
        executor_spec=spec,
        ruleset=Ruleset.from_dict(stored.get("ruleset", LEGACY_RULESET), "run ruleset"),
    )


def _check_same(name: str, value: Any, stored: dict[str, Any]) -> None:
    """RunError unless the option given on --resume is the one the run was made with."""
    if name == "ruleset":
        have = stored.get(name, LEGACY_RULESET)
        # as rulesets, not records: a record from before an option existed lacks its key and
        # reads as its default
        if Ruleset.from_dict(have, "run ruleset") != value:
            raise RunError(
                f"--resume: the ruleset {value.name!r} differs from the run's ruleset "
                f"{have.get('name')!r}; resume with the run's ruleset (or leave it out), or "
                f"start a new run"
            )
        return
    have = stored.get(name)
    if isinstance(value, tuple):
        value = list(value)
    if have != value:
        raise RunError(
            f"--resume: {flag(name)} {_show(value)} differs from the run's {_show(have)}; "
            f"resume with the run's options (or leave them out), or start a new run"
        )


def _stored_ruleset(out: Path) -> Ruleset:
    """The ruleset of the run at ``out`` (RULES.md if it cannot be read: resume says why)."""
    try:
        stored = read_manifest(out)["config"].get("ruleset", LEGACY_RULESET)
        return Ruleset.from_dict(stored, "run ruleset")
    except (NotARun, RulesError, KeyError, TypeError):
        return STANDARD


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if isinstance(value, int):
        return f"{value:,}" if value >= 10_000 else str(value)
    return repr(value)
