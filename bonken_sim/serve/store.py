"""Saved games: one JSON file per game under the state directory, written after every
decision to a temporary file beside it and renamed over it, so a crash or a stopped server
leaves the last whole state and a restart continues from it."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.files import CannotWrite, NotJson, json_document, write_atomic
from bonken_sim.serve.saved_state import NotASavedGame, game_of
from bonken_sim.serve.table_game import TableGame

_ID = re.compile(r"[0-9a-f]{12}")


def _digest(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


def default_state_dir() -> Path:
    """``$XDG_DATA_HOME/bonken-sim/serve`` (``~/.local/share`` without it)."""
    import os

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "bonken-sim" / "serve"


class UnknownGame(BadValue):
    """A game id with no saved game."""


class GameStore:
    """The saved games under ``root``; one lock per game serialises its requests."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).expanduser()
        self.games_dir = self.root / "games"
        try:
            self.games_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CannotWrite(self.games_dir, exc.strerror or str(exc)) from None
        self._locks: dict[str, threading.Lock] = {}
        # the digest of each file as this store last wrote or checked it: a file changed by
        # anything else is checked again (game_of replays its decisions, a tenth of a second
        # for a whole game, too long for every request)
        self._checked: dict[str, bytes] = {}
        self._guard = threading.Lock()

    def new_id(self) -> str:
        while True:
            gid = secrets.token_hex(6)
            if not self.path(gid).exists():
                return gid

    def path(self, gid: str) -> Path:
        if not isinstance(gid, str) or not _ID.fullmatch(gid):
            raise UnknownGame(f"no game {gid!r} (a game id is 12 hex digits)")
        return self.games_dir / f"{gid}.json"

    def save(self, game: TableGame) -> None:
        text = json.dumps(game.to_json())
        write_atomic(self.path(game.gid), [text])
        self._checked[game.gid] = _digest((text + "\n").encode())

    def load(self, gid: str) -> TableGame:
        path = self.path(gid)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise UnknownGame(f"no game {gid!r}") from None
        except OSError as exc:
            raise UserFixableError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            state = json_document(raw)
            if self._checked.get(gid) == _digest(raw):
                return TableGame.from_json(state)
            game = game_of(state, gid)
        except (NotJson, NotASavedGame) as exc:
            raise UserFixableError(f"{path} is not a saved game: {exc}") from None
        self._checked[gid] = _digest(raw)
        return game

    @contextmanager
    def locked(self, gid: str) -> Iterator[None]:
        self.path(gid)
        with self._guard:
            lock = self._locks.setdefault(gid, threading.Lock())
        with lock:
            yield

    def ids(self) -> list[str]:
        files = sorted(self.games_dir.glob("*.json"), key=lambda p: -p.stat().st_mtime)
        return [p.stem for p in files if _ID.fullmatch(p.stem)]
