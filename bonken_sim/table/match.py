"""``bonken-sim match``: built-in profiles and outside programs play Bonken at one table, into
a run directory that reads like a game run (docs/RUN_FORMAT.md, "A match").

The match plays its boards in order, one part (``chunk_size`` boards) at a time, on this
process's one thread (``match_game.Table``; an outside program runs in its own process).
A finished part is written as four files, each under a temporary name renamed when complete
(``runs.files.write_bytes``): the games table (the run directory's ``part-*.parquet``), the
deals table (``_deals/``), the trace of every deal (``_traces/part-*.jsonl``) and the faults
(``_faults/part-*.jsonl``), and the manifest then lists it with their sizes and SHA-256.
A killed match leaves every finished part; ``--resume`` plays the others.

The tables are ``game``'s (``runs.game_tables``), so ``match --no-duplicate`` with built-in
seats writes exactly ``game``'s tables; duplicate and contract matches add the columns
``board`` and ``rotation`` to both.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.engine.games import DEALS_PER_GAME, GameBatch
from bonken_sim.runs.directory import (
    RunDir,
    now,
    resumable_session,
)
from bonken_sim.runs.files import PartFile, write_bytes
from bonken_sim.runs.game_format import DEALS_DIR
from bonken_sim.runs.game_tables import deals_table, encode_table, games_table
from bonken_sim.table.match_config import (
    FAULTS_DIR,
    MATCH_CONFIG,
    MATCH_RUN,
    PLAYERS_DIR,
    TABLES,
    TRACES_DIR,
    MatchConfig,
    MatchError,
    MatchInterrupted,
)
from bonken_sim.table.match_game import Copy, Record, Table, copies
from bonken_sim.table.players import Player, PlayerFailed, make_player

ProgressFn = Callable[[int, int], None]
FORMAT_NAME = MATCH_RUN.format


@dataclass
class MatchRunResult:
    out: Path
    seed: int
    seed_drawn: bool
    games: int  # table games in all
    played: int  # table games played in this session
    parts: int
    wall_seconds: float
    play_seconds: float
    faults: int  # faults in this session
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "seed": self.seed,
            "seed_drawn": self.seed_drawn,
            "games": self.games,
            "played": self.played,
            "parts": self.parts,
            "wall_seconds": self.wall_seconds,
            "play_seconds": self.play_seconds,
            "games_per_second": self.played / self.play_seconds if self.play_seconds else None,
            "faults": self.faults,
        }


def part_copies(cfg: MatchConfig, index: int) -> list[Copy]:
    """The table games of part ``index``, in game order: its boards, each in every listed
    contract (whole games: none), each in every rotation."""
    lo = index * cfg.chunk_size
    hi = min(cfg.boards, lo + cfg.chunk_size)
    variants: tuple[int | None, ...] = cfg.variants or (None,)
    out: list[Copy] = []
    for b in range(lo, hi):
        for c, v in enumerate(variants):
            unit = b * len(variants) + c
            out.extend(copies(unit, b, cfg.duplicate, v))
    return out


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows).encode()


def encode_part(
    cfg: MatchConfig, index: int, batch: GameBatch, played: list[Copy], record: Record
) -> list[tuple[str, int, bytes]]:
    """Part ``index`` as its four files (name, rows, bytes): deals, games, traces, faults."""
    meta = {"format": FORMAT_NAME, "schema_version": 1, "config": cfg.identity()}
    part_meta = {**meta, "part": index, "game_start": batch.start, "games": batch.n}
    deals = deals_table(batch, part_meta, cfg.rules)
    games = games_table(batch, cfg.players, part_meta)
    if cfg.duplicate or cfg.contracts:
        # which board each table game plays, turned how: a game run has neither
        import pyarrow as pa

        board = np.array([c.board for c in played], np.int64)
        rotation = np.array([c.rotation for c in played], np.int8)
        games = games.append_column("board", pa.array(board))
        games = games.append_column("rotation", pa.array(rotation))
        deals = deals.append_column("board", pa.array(np.repeat(board, DEALS_PER_GAME)))
        deals = deals.append_column("rotation", pa.array(np.repeat(rotation, DEALS_PER_GAME)))
    name = f"part-{index:06d}"
    return [
        (f"{DEALS_DIR}/{name}.parquet", batch.n * DEALS_PER_GAME, encode_table(deals)),
        (f"{name}.parquet", batch.n, encode_table(games)),
        (f"{TRACES_DIR}/{name}.jsonl", len(record.traces), _jsonl(record.traces)),
        (f"{FAULTS_DIR}/{name}.jsonl", len(record.faults), _jsonl(record.faults)),
    ]


def part_entry(index: int, batch: GameBatch, files: list[PartFile], faults: int) -> dict:
    entry: dict[str, Any] = {"index": index, "game_start": batch.start, "games": batch.n}
    for prefix, f in zip(("deals", "games", "traces", "faults"), files, strict=True):
        entry.update(
            {
                f"{prefix}_file": f.file,
                f"{prefix}_rows": f.rows,
                f"{prefix}_bytes": f.bytes,
                f"{prefix}_sha256": f.sha256,
            }
        )
    entry["faults"] = faults
    return entry


def _new_manifest(cfg: MatchConfig) -> dict:
    return MATCH_CONFIG.games_manifest(cfg, TABLES)


def run_match(cfg: MatchConfig, progress: ProgressFn | None = None) -> MatchRunResult:
    """Play the configured match into its run directory (outside programs start in the
    current directory). MatchError (one line, the directory left resumable) when a player
    cannot play or a directory cannot be written; MatchInterrupted after Ctrl-C or SIGTERM."""
    t0 = time.perf_counter()
    rundir = MATCH_CONFIG.open_dir(cfg, _new_manifest)
    try:
        session = _Session(cfg, rundir, progress)
        session.play()
        return session.finish(time.perf_counter() - t0)
    finally:
        rundir.release()


class _Session:
    """One session of a match: its players, the parts still to play, played in order."""

    def __init__(self, cfg: MatchConfig, rundir: RunDir, progress: ProgressFn | None):
        self.cfg, self.rundir, self.progress = cfg, rundir, progress
        self.todo = rundir.todo(cfg.n_parts)
        rundir.manifest["state"] = "incomplete"
        self.session: dict[str, Any] = {"start": now(), "time_limit": cfg.time_limit}
        rundir.manifest["sessions"].append(self.session)
        rundir.save()
        logs = rundir.root / PLAYERS_DIR
        self.players: list[Player] = [
            make_player(spec, cfg.time_limit, logs / f"seat-{p}.log")
            for p, spec in enumerate(cfg.players)
        ]
        self.table = Table(self.players, cfg.seed, cfg.ruleset, cfg.doubling)
        self.done = sum(p["games"] for p in rundir.parts)
        self.played = 0
        self.faults = 0
        self.play_seconds = 0.0

    def play(self) -> None:
        root = self.rundir.root
        with resumable_session(MATCH_RUN, root, self._stop, MatchInterrupted):
            try:
                for p in self.players:
                    p.open(self.cfg.ruleset)
                for index in self.todo:
                    self._part(index)
            except PlayerFailed as exc:  # the session stops the match as this leaves it
                raise MatchError(f"{exc}; the match stops: {MATCH_RUN.resume_hint(root)}") from None
        self._close_players()

    def _part(self, index: int) -> None:
        cfg = self.cfg
        played = part_copies(cfg, index)
        start = played[0].game
        batch = GameBatch.empty(start, len(played))
        record = Record()
        t0 = time.perf_counter()
        for row, copy in enumerate(played):
            self.table.play(copy, batch, row, record)
            self.played += 1
            if self.progress is not None:
                self.progress(self.done + self.played, cfg.games)
        self.play_seconds += time.perf_counter() - t0
        root = self.rundir.root
        files = [write_bytes(root, name, data, rows) for name, rows, data in encode_part(
            cfg, index, batch, played, record
        )]  # fmt: skip
        self.faults += len(record.faults)
        self.rundir.record(part_entry(index, batch, files, len(record.faults)))

    def _close_players(self) -> None:
        for p in self.players:
            with contextlib.suppress(Exception):
                p.close()
        self.session["starts"] = [p.starts for p in self.players]

    def _stop(self) -> None:
        """After an interrupt or an error: the players closed, the manifest saved as
        incomplete (every finished part is in it already)."""
        self._close_players()
        self.rundir.manifest["state"] = "incomplete"
        self._session_totals()
        with contextlib.suppress(MatchError):
            self.rundir.save()
        self.rundir.tidy()

    def _session_totals(self) -> None:
        self.session.update(
            games_played=self.played,
            faults=self.faults,
            play_seconds=round(self.play_seconds, 3),
        )

    def finish(self, wall: float) -> MatchRunResult:
        manifest = self.rundir.manifest
        manifest["state"] = "complete"
        self._session_totals()
        self.rundir.save()
        self.rundir.tidy()
        files = [
            p[f"{t}_file"]
            for p in manifest["parts"]
            for t in ("deals", "games", "traces", "faults")
        ]
        return MatchRunResult(
            self.rundir.root,
            self.cfg.seed,
            self.cfg.seed_drawn,
            self.cfg.games,
            self.played,
            len(manifest["parts"]),
            wall,
            self.play_seconds,
            self.faults,
            files,
        )
