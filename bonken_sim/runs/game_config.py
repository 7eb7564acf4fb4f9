"""A game run (``bonken-sim game``) as data: its run directory (``GAME_RUN``), its options
(``GAME_CONFIG``, read by ``run_config`` as a deal run's are), ``GameConfig`` and
``make_game_config``, which validates what a user typed (or Python values) and, on
``--resume``, takes the options not given from the run's manifest and refuses the ones that
differ from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bonken_sim.engine.games import parse_profiles
from bonken_sim.rules.rulesets import STANDARD, Ruleset
from bonken_sim.runs.directory import RunKind
from bonken_sim.runs.errors import GameRunError
from bonken_sim.runs.executors import ExecutorSpec
from bonken_sim.runs.game_format import (
    DEALS_DIR,
    FORMAT,
    GAMES_DIR,
    OLD_DEALS_DIR,
    OLD_GAMES_DIR,
    PART_FILES,
    SCHEMA_VERSION,
    game_dirs,
)
from bonken_sim.runs.options import (
    default_threads,
    parse_doubling,
    parse_order,
)
from bonken_sim.runs.run_config import (
    SEED,
    ConfigKind,
    Option,
    chunk_size_option,
    count_option,
    ruleset_option,
    seats_option,
)

DEFAULT_CHUNK = 20_000
MAX_GAMES = 10**10
#: ``--resume`` in an empty or missing directory
RESUME_MISSING = "nothing to resume in {root}"

GAME_RUN = RunKind(
    name="game run",
    format=FORMAT,
    schema_version=SCHEMA_VERSION,
    part_dirs=(DEALS_DIR, GAMES_DIR),
    old_part_dirs=(OLD_DEALS_DIR, OLD_GAMES_DIR),
    layout=game_dirs,
    part_files=PART_FILES,
    default_prefix="games",
    error=GameRunError,
    hint="{root} is incomplete; run the same command with --resume to finish it",
    taken="{root} already exists; use --resume to complete it or --force to replace it",
    foreign=(
        "{root} already exists and is not a game run; choose another directory (nothing there "
        "is touched)"
    ),
    foreign_force=(
        "--force refuses to clear {root}: it is not a game run; choose another directory "
        "(nothing there is touched)"
    ),
    cannot_create="cannot create {root}: {reason}",
    cannot_write="cannot create {root}: {reason}",
    not_writable="cannot write to {root}: permission denied",
    resume_missing=RESUME_MISSING,
)


@dataclass(frozen=True)
class GameConfig:
    games: int
    seed: int
    players: tuple[str, ...] = ("basic",) * 4
    order: str = "free"
    doubling: bool = True
    threads: int = field(default_factory=default_threads)
    chunk_size: int = DEFAULT_CHUNK
    out: Path | None = None
    seed_drawn: bool = False
    executor_spec: ExecutorSpec = field(default_factory=ExecutorSpec)
    ruleset: Ruleset = STANDARD
    resume: bool = False
    force: bool = False

    def identity(self) -> dict[str, Any]:
        """What decides the bytes of the result (checked on --resume)."""
        return GAME_CONFIG.identity(self)

    @property
    def rules(self) -> dict[str, Any] | None:
        """The house ruleset as the run records it (None: RULES.md, recorded as nothing)."""
        return None if self.ruleset.is_standard else self.ruleset.to_dict()

    @property
    def n_parts(self) -> int:
        return -(-self.games // self.chunk_size)


#: a game run's options, in the order its manifest records them
GAME_OPTIONS = (
    count_option("games", MAX_GAMES),
    SEED,
    seats_option(
        "players",
        # typed as ``a,b,c,d``; a list of names from Python or a manifest alike
        lambda value: tuple(parse_profiles(value if isinstance(value, str) else ",".join(value))),
    ),
    # --order / --doubling given win over the ruleset's
    Option("order", parse_order, default=lambda values: values["ruleset"].order, load=str),
    Option(
        "doubling", parse_doubling, default=lambda values: values["ruleset"].doubling, load=bool
    ),
    chunk_size_option(DEFAULT_CHUNK, "games"),
    # only a house ruleset is recorded, so runs made before rulesets still resume
    ruleset_option(record_standard=False),
)
GAME_CONFIG = ConfigKind(GAME_RUN, GAME_OPTIONS, GameConfig, count_example="1e5, 10k or 100_000")


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
    rules_file: Any = None,
) -> GameConfig:
    """Validate every option; errors are GameRunError with a one-line message.

    ``None`` means "not given": ``players`` basic, ``order`` and ``doubling`` those of the
    ruleset (RULES.md: free, on). With ``resume`` the options not given come from the run in
    ``out``, and a given one that differs from the run's is an error naming it. With
    ``executor`` process or dask, ``threads`` is what each part task uses inside its worker
    (default 1); the executor and threads never change the result, so they are free on
    ``--resume``."""
    config: GameConfig = GAME_CONFIG.make(locals())
    return config
