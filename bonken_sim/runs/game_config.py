"""A game run's configuration: ``GameConfig`` and ``make_game_config``, which validates what a
user typed (or Python values) and, on ``--resume``, takes the options not given from the
run's manifest and refuses the ones that differ from it (as ``deal_config`` does for deal
runs)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bonken_sim.engine.games import parse_profiles
from bonken_sim.runs.errors import GameRunError
from bonken_sim.runs.executors import ExecutorError, ExecutorSpec, make_spec
from bonken_sim.runs.game_format import game_manifest
from bonken_sim.runs.manifest import NotARun
from bonken_sim.runs.options import (
    flag,
    parse_doubling,
    parse_game_threads,
    parse_option_count,
    parse_order,
    parse_seed,
)

DEFAULT_CHUNK = 20_000
MAX_GAMES = 10**10
#: ``--resume`` in an empty or missing directory
RESUME_MISSING = "nothing to resume in {root}"


@dataclass(frozen=True)
class GameConfig:
    games: int
    seed: int
    players: tuple[str, ...] = ("basic",) * 4
    order: str = "free"
    doubling: bool = True
    threads: int = 0
    chunk_size: int = DEFAULT_CHUNK
    out: Path | None = None
    seed_drawn: bool = False
    executor_spec: ExecutorSpec = field(default_factory=ExecutorSpec)
    rules: dict[str, Any] | None = None  # a house ruleset (Ruleset.to_dict); None: RULES.md

    def identity(self) -> dict[str, Any]:
        """What decides the bytes of the result (checked on --resume)."""
        return {
            "games": self.games,
            "seed": self.seed,
            "players": list(self.players),
            "order": self.order,
            "doubling": self.doubling,
            "chunk_size": self.chunk_size,
            # only a house ruleset is recorded, so runs made before rulesets still resume
            **({"ruleset": self.rules} if self.rules is not None else {}),
        }

    @property
    def n_parts(self) -> int:
        return -(-self.games // self.chunk_size)


def make_game_config(
    games: Any = None,
    seed: Any = None,
    players: Any = None,
    order: str | None = None,
    doubling: Any = None,
    threads: Any = None,
    chunk_size: Any = None,
    out: Any = None,
    executor: Any = None,
    workers: Any = None,
    scheduler: Any = None,
    write_parts: Any = None,
    ruleset: Any = None,
    resume: bool = False,
    force: bool = False,
) -> GameConfig:
    """Validate every option; errors are GameRunError with a one-line message.

    ``None`` means "not given": ``players`` basic, ``order`` and ``doubling`` those of the
    ruleset (RULES.md: free, on). With ``resume`` the options not given come from the run in
    ``out``, and a given one that differs from the run's is an error naming it. With
    ``executor`` process or dask, ``threads`` is what each part task uses inside its worker
    (default 1); the executor and threads never change the result, so they are free on
    ``--resume``."""
    if resume and force:
        raise GameRunError("--resume and --force cannot be used together")
    try:
        spec = make_spec(executor, workers, scheduler, write_parts)
    except ExecutorError as exc:
        raise GameRunError(str(exc)) from None
    try:
        given = _given(games, seed, players, order, doubling, chunk_size, ruleset)
        if threads is None:
            t = (os.cpu_count() or 1) if spec.local else 1
        else:
            t = parse_game_threads(threads)
    except ValueError as exc:
        raise GameRunError(str(exc)) from None
    out_path = Path(out) if out else None
    if resume:
        return _resumed(given, out_path, t, spec)
    if "games" not in given:
        raise GameRunError("--games is required (a count such as 1e5, 10k or 100_000)")
    n = given["games"]
    drawn = "seed" not in given
    s = int.from_bytes(os.urandom(8), "little") >> 1 if drawn else given["seed"]
    r = given.get("ruleset")
    rules = None if r is None or r.is_standard else r.to_dict()
    # --order / --doubling given win over the ruleset's
    order_ = given.get("order", parse_order(None if r is None else r.order))
    dbl = given.get("doubling", parse_doubling(None if r is None else r.doubling))
    chunk = min(given.get("chunk_size", DEFAULT_CHUNK), n)
    players_ = given.get("players", ("basic",) * 4)
    return GameConfig(n, s, players_, order_, dbl, t, chunk, out_path, drawn, spec, rules)


def _given(games, seed, players, order, doubling, chunk_size, ruleset) -> dict[str, Any]:
    """The options given (not None), parsed; ValueError with the user's message otherwise."""
    given: dict[str, Any] = {}
    if games is not None:
        given["games"] = parse_option_count(games, "games", maximum=MAX_GAMES)
    if seed is not None:
        given["seed"] = parse_seed(seed)
    if players is not None:
        given["players"] = tuple(parse_profiles(players))
    if chunk_size is not None:
        given["chunk_size"] = parse_option_count(chunk_size, "chunk_size")
    if ruleset is not None:
        from bonken_sim.rules.rulesets import as_ruleset

        given["ruleset"] = as_ruleset(ruleset)
    if order is not None:
        given["order"] = parse_order(order)
    if doubling is not None:
        given["doubling"] = parse_doubling(doubling)
    return given


def _resumed(given: dict[str, Any], out: Path | None, threads: int, spec: ExecutorSpec):
    """The configuration of the game run in ``out``; the options given must be the run's."""
    if out is None:
        raise GameRunError("--resume needs --out DIR: the run directory to complete")
    if not (out.is_dir() and any(out.iterdir())):
        raise GameRunError(RESUME_MISSING.format(root=out))
    try:
        manifest = game_manifest(out)
    except NotARun as exc:
        raise GameRunError(str(exc)) from None
    stored = manifest["config"]
    for name, value in given.items():
        _check_same(out, name, value, stored)
    return GameConfig(
        games=int(stored["games"]),
        seed=int(stored["seed"]),
        players=tuple(stored["players"]),
        order=str(stored["order"]),
        doubling=bool(stored["doubling"]),
        threads=threads,
        # the chunk size as recorded: a run of fewer games than --chunk-size records the games
        chunk_size=int(stored["chunk_size"]),
        out=out,
        seed_drawn=bool(manifest.get("seed_drawn", False)),
        executor_spec=spec,
        rules=stored.get("ruleset"),
    )


def _check_same(root: Path, name: str, value: Any, stored: dict[str, Any]) -> None:
    """GameRunError unless the option given on --resume is the one the run was made with."""
    have = stored.get(name)
    if name == "ruleset":
        from bonken_sim.rules.rulesets import STANDARD, Ruleset

        # as rulesets, not records: a record from before an option existed reads as its
        # default; a run under RULES.md records no ruleset
        if (STANDARD if have is None else Ruleset.from_dict(have, "run ruleset")) == value:
            return
        value = None if value.is_standard else value.to_dict()
    else:
        if isinstance(value, tuple):
            value = list(value)
        if name == "chunk_size":  # recorded as at most the run's games
            value = min(value, int(stored["games"]))
        if have == value:
            return
    raise GameRunError(different_run(root, name, value, have))


def same_run(cfg: GameConfig, root: Path, manifest: dict) -> None:
    """--resume completes the run only with the options it was made with; the first option
    that differs is named."""
    have, want = manifest["config"], cfg.identity()
    if have == want:
        return
    for name in (*want, *(k for k in have if k not in want)):
        if have.get(name) != want.get(name):
            break
    raise GameRunError(different_run(root, name, want.get(name), have.get(name)))


def different_run(root: Path, name: str, given: Any, stored: Any) -> str:
    """``RUN holds a different game run: --seed 2 differs from the run's 1; …``."""
    return (
        f"{root} holds a different game run: {_differs(name, given, stored)}; "
        "use the same options to resume (or leave them out), or --force to replace it"
    )


def _differs(name: str, given: Any, stored: Any) -> str:
    """``--seed 2 differs from the run's 1`` (a ruleset by its name)."""

    def show(value: Any) -> str:
        if value is None:
            return "standard" if name == "ruleset" else "none"
        if isinstance(value, dict):
            return repr(value.get("name"))
        if isinstance(value, list):
            return ",".join(str(v) for v in value)
        if isinstance(value, bool) and name == "doubling":
            return "on" if value else "off"
        return str(value)

    what = "the ruleset" if name == "ruleset" else flag(name)
    return f"{what} {show(given)} differs from the run's {show(stored)}"
