"""A match (``bonken-sim match``) as data: its run directory (``MATCH_RUN``, a game run's
layout with a trace and a faults file per part), its options (``MATCH_CONFIG``, read by
``runs.run_config`` as a game run's are), ``MatchConfig`` and ``make_match_config``.

``--games N`` counts boards: the 11 deals of game index ``b`` of the seed. Duplicate (the
default) plays each board four times, the players rotated; ``--contracts`` plays each board's
deals once in each listed contract (duplicate as well). The manifest records the table games
that makes as ``games``, which is what the summary and the report count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.rules.names import parse_variants, variant_names
from bonken_sim.rules.rulesets import STANDARD, Ruleset
from bonken_sim.runs.directory import RunKind
from bonken_sim.runs.executors import ExecutorSpec
from bonken_sim.runs.game_format import (
    DEALS_DIR,
    GAMES_DIR,
    MATCH_FORMAT,
    SCHEMA_VERSION,
    game_dirs,
)
from bonken_sim.runs.options import default_threads, parse_option_count
from bonken_sim.runs.run_config import (
    SEED,
    ConfigKind,
    Option,
    chunk_size_option,
    ruleset_option,
    seats_option,
)
from bonken_sim.table.players import DEFAULT_TIME_LIMIT, is_command, parse_player

TRACES_DIR = "_traces"
FAULTS_DIR = "_faults"
#: the standard error of each outside program, appended across starts and sessions
PLAYERS_DIR = "_players"
DEFAULT_CHUNK = 100  # boards per part
MAX_BOARDS = 10**9
#: the longest time limit a decision may be given (a day)
MAX_TIME_LIMIT = 86_400.0
#: the manifest's description of the tables (its presence marks a game run's current layout)
TABLES = {
    "games": "part-*.parquet: one row per table game",
    "deals": f"{DEALS_DIR}/part-*.parquet: one row per deal of each table game",
    "traces": f"{TRACES_DIR}/part-*.jsonl: one trace record per deal (bonken-sim replay)",
    "faults": f"{FAULTS_DIR}/part-*.jsonl: one line per refused answer of an outside player",
}
PART_FILES = (
    ("deals_file", "deals_bytes", "deals_sha256"),
    ("games_file", "games_bytes", "games_sha256"),
    ("traces_file", "traces_bytes", "traces_sha256"),
    ("faults_file", "faults_bytes", "faults_sha256"),
)


class MatchError(UserFixableError, ValueError):
    """A bad option, an unusable directory or a player that cannot play: one line."""


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a match: the run is incomplete and can be resumed."""


def _match_dirs(manifest: dict) -> tuple[str, ...]:
    return (*game_dirs(manifest), TRACES_DIR, FAULTS_DIR, PLAYERS_DIR)


MATCH_RUN = RunKind(
    name="match",
    format=MATCH_FORMAT,
    schema_version=SCHEMA_VERSION,
    part_dirs=(DEALS_DIR, GAMES_DIR, TRACES_DIR, FAULTS_DIR, PLAYERS_DIR),
    layout=_match_dirs,
    part_files=PART_FILES,
    part_globs=("part-*.parquet", "part-*.jsonl", "seat-*.log"),
    default_prefix="match",
    error=MatchError,
    hint="{root} is incomplete; run the same command with --resume to finish it",
    taken="{root} already exists; use --resume to complete it or --force to replace it",
    foreign=(
        "{root} already exists and is not a match; choose another directory (nothing there "
        "is touched)"
    ),
    foreign_force=(
        "--force refuses to clear {root}: it is not a match; choose another directory "
        "(nothing there is touched)"
    ),
    cannot_create="cannot create {root}: {reason}",
    cannot_write="cannot create {root}: {reason}",
    not_writable="cannot write to {root}: permission denied",
    resume_missing="nothing to resume in {root}",
)


@dataclass(frozen=True)
class MatchConfig:
    boards: int
    seed: int
    players: tuple[str, ...] = ("basic",) * 4
    duplicate: bool = True
    contracts: tuple[str, ...] = ()
    order: str = "free"
    doubling: bool = True
    chunk_size: int = DEFAULT_CHUNK
    ruleset: Ruleset = STANDARD
    time_limit: float = DEFAULT_TIME_LIMIT
    out: Path | None = None
    seed_drawn: bool = False
    resume: bool = False
    force: bool = False
    # every kind of run's configuration carries these; a match plays on one thread
    threads: int = field(default_factory=default_threads)
    executor_spec: ExecutorSpec = field(default_factory=ExecutorSpec)

    @property
    def copies(self) -> int:
        """Table games per board and contract: 4 rotations, or 1."""
        return 4 if self.duplicate else 1

    @property
    def variants(self) -> tuple[int, ...]:
        """The variant ids of ``--contracts`` (empty: whole games)."""
        names = variant_names(self.ruleset)
        return tuple(names.index(c) for c in self.contracts)

    @property
    def per_board(self) -> int:
        """Table games per board."""
        return self.copies * max(1, len(self.contracts))

    @property
    def games(self) -> int:
        """Table games in all: what the summary and the report count."""
        return self.boards * self.per_board

    @property
    def n_parts(self) -> int:
        return -(-self.boards // self.chunk_size)

    @property
    def rules(self) -> dict[str, Any] | None:
        """The house ruleset as the run records it (None: RULES.md, recorded as nothing)."""
        return None if self.ruleset.is_standard else self.ruleset.to_dict()

    @property
    def commands(self) -> list[int]:
        """The seats an outside program plays."""
        return [p for p, spec in enumerate(self.players) if is_command(spec)]

    def identity(self) -> dict[str, Any]:
        """What the manifest records of the options, and the table games they make."""
        return {**MATCH_CONFIG.identity(self), "games": self.games}


def parse_players(value: Any) -> tuple[str, ...]:
    """``--players a,b,c,d`` (one name: every seat) or four ``--player`` values in seat order;
    each a profile or ``cmd:COMMAND``. A command holding a comma is given with ``--player``."""
    items = [s.strip() for s in value.split(",")] if isinstance(value, str) else list(value)
    if len(items) == 1:
        items *= 4
    if len(items) != 4:
        raise BadValue(
            f"give one player or four (seat 0 … 3), got {len(items)}: --players a,b,c,d or "
            "--player four times (a command with a comma in it needs --player)"
        )
    return tuple(parse_player(x) for x in items)


def parse_contracts(value: Any, ruleset: Ruleset) -> tuple[str, ...]:
    """``--contracts``: variants as ``run --contracts`` names them (``all``, ``troeven``), in
    variant order, named as the ruleset names them."""
    text = value if isinstance(value, str) else ",".join(map(str, value))
    names = variant_names(ruleset)
    return tuple(names[v.id] for v in parse_variants(text, ruleset=ruleset))


def parse_time_limit(value: Any) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise BadValue(f"--time-limit must be seconds (e.g. 10 or 0.5), got {value!r}") from None
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIME_LIMIT:
        raise BadValue(f"--time-limit must be more than 0 and at most a day, got {value!r}")
    return seconds


def parse_duplicate(value: Any) -> bool:
    if isinstance(value, str):
        if value not in ("on", "off"):
            raise BadValue(f"--duplicate must be on or off, got {value!r}")
        return value == "on"
    return bool(value)


#: a match's options, in the order its manifest records them
MATCH_OPTIONS = (
    Option(
        "boards",
        lambda value: parse_option_count(value, "games", MAX_BOARDS),
        default=None,
        load=int,
        label="--games",
    ),
    SEED,
    seats_option("players", parse_players),
    Option("duplicate", parse_duplicate, default=lambda values: True, load=bool),
    Option(
        "contracts",
        parse_contracts,
        default=lambda values: (),
        by_ruleset=True,
        store=lambda names: list(names) or None,
        load=lambda names: tuple(names or ()),
    ),
    # the ruleset's; recorded for the readers of game runs (a contract match doubles nothing)
    Option("order", str, default=lambda values: values["ruleset"].order, load=str),
    Option(
        "doubling",
        bool,
        default=lambda values: values["ruleset"].doubling and not values["contracts"],
        load=bool,
    ),
    chunk_size_option(DEFAULT_CHUNK, "boards"),
    ruleset_option(record_standard=False),
    Option(
        "time_limit",
        parse_time_limit,
        default=lambda values: DEFAULT_TIME_LIMIT,
        identity=False,
    ),
)
MATCH_CONFIG = ConfigKind(
    MATCH_RUN, MATCH_OPTIONS, MatchConfig, count_example="100, 1k or 1e3", part_count="games"
)


def make_match_config(
    games: Any = None,
    seed: Any = None,
    players: Any = None,
    duplicate: Any = None,
    contracts: Any = None,
    chunk_size: Any = None,
    time_limit: Any = None,
    out: Any = None,
    ruleset: Any = None,
    rules_file: Any = None,
    resume: bool = False,
    force: bool = False,
) -> MatchConfig:
    """Validate every option; errors are MatchError with a one-line message. ``None`` means
    "not given": ``players`` basic, ``duplicate`` on, whole games, the standard rules. With
    ``resume`` the options not given come from the match in ``out``, and a given one that
    differs from the run's is an error naming it (``time_limit`` may differ)."""
    arguments = dict(locals(), threads=1)
    arguments["boards"] = arguments.pop("games")  # typed --games; a match records boards
    config: MatchConfig = MATCH_CONFIG.make(arguments)
    return config
