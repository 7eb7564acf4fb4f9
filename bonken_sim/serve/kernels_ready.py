"""Whether the kernels the web app's computer players need are compiled, and compiling them in
the background while the page is already served.

``serve`` binds its port and prints its address at once. On an empty kernel cache (after an
install, or after the engine changed) a second process compiles the kernels into numba's
on-disk cache, reporting its progress one JSON line at a time, and this process then loads
them from there. A second process rather than a thread: numba holds the GIL for most of a
compile, and a thread of the server's would stall the page and every request for seconds at
a time. Until the kernels are ready, the endpoints that need one answer 503 with the progress
(``install``), and the page shows it (``GET /api/status``) and asks again once they are. A
warm cache is ready at once: nothing is started.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from flask import Flask, jsonify, request

from bonken_sim.engine.warmup import Need, describe_need

#: what the computer players, hints, the review and the replays call: ``engine.decide`` at
#: every tier (the basic one also gives the person's legal cards) and the replay kernel
SERVE_NEEDS: tuple[Need, ...] = (
    ("decide", "basic"),
    ("decide", "advanced"),
    ("decide", "expert"),
    ("replay", ""),
)
STATUS_PATH = "/api/status"
#: the longest pause between two progress lines of the compiling process
_LINE_EVERY = 0.25

# The compiling process: this package's warm-up of the parts given as part:level, its
# progress on stdout (the package path first, so that it compiles the same checkout).
_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from bonken_sim.serve.kernels_ready import compile_and_report
compile_and_report(sys.argv[2:])
"""


class Kernels:
    """The compile state of ``needs``: compiling (parts done of all, the part compiling,
    numba's functions compiled so far), loading, ready or failed. ``Kernels()`` is ready: an
    app made without it (the tests', the benchmarks') loads its kernels when first used, as
    a warm cache does."""

    def __init__(self, needs: Iterable[Need] = ()) -> None:
        from bonken_sim.engine.warmup import missing

        self.needs = list(dict.fromkeys(needs))
        self.todo = missing(self.needs)  # a few file look-ups: no kernel is loaded here
        self._lock = threading.Lock()
        self._state = "compiling" if self.todo else "ready"
        self._done, self._part, self._functions = 0, self.todo[0] if self.todo else None, 0
        self._error: str | None = None
        self.log = ""  # what the compiling process wrote on stderr (a traceback)
        self._started = time.monotonic()
        self._seconds: float | None = None
        self._proc: subprocess.Popen | None = None
        self._stopping = False

    # -- the state -------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return self._state == "ready"

    def status(self) -> dict[str, Any]:
        """What ``GET /api/status`` answers."""
        with self._lock:
            return {
                "ready": self._state == "ready",
                "state": self._state,
                "done": self._done,
                "total": len(self.todo),
                "part": None if self._part is None else describe_need(self._part),
                "functions": self._functions,
                "seconds": round(
                    (self._seconds if self._seconds is not None else self._elapsed()), 1
                ),
                "error": self._error,
            }

    def _elapsed(self) -> float:
        return time.monotonic() - self._started

    def progress(self, done: int, part: Need | None, functions: int) -> None:
        with self._lock:
            if self._state == "compiling":
                self._done, self._part, self._functions = done, part, functions

    def loading(self) -> None:
        with self._lock:
            self._state, self._done = "loading", len(self.todo)

    def finish(self) -> None:
        with self._lock:
            self._state, self._done, self._part = "ready", len(self.todo), None
            self._seconds = self._elapsed()

    def fail(self, message: str) -> None:
        with self._lock:
            self._state, self._error = "failed", " ".join(message.split())
            self._seconds = self._elapsed()

    # -- the compiling process -------------------------------------------------------------
    def start(self, said: Callable[[str], None] | None = None) -> None:
        """Compile what is missing in a second process, then load it here; ``said(event)``
        (``"done"`` or ``"failed"``) from the thread that watches it, when it ends. Nothing
        when the cache is warm."""
        if not self.todo or self._proc is not None:
            return
        package = str(Path(__file__).resolve().parent.parent.parent)
        errors = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD, package, *(f"{p}:{lv}" for p, lv in self.todo)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
            )
        except OSError as exc:
            errors.close()
            self.fail(f"cannot start the process that compiles them: {exc}")
            if said is not None:
                said("failed")
            return
        threading.Thread(
            target=self._watch, args=(self._proc, errors, said), name="kernels", daemon=True
        ).start()

    def _watch(
        self, proc: subprocess.Popen, errors: IO[str], said: Callable[[str], None] | None
    ) -> None:
        """Follow the compiling process's lines; once it ends, load the kernels here."""
        from bonken_sim.engine.warmup import compile_part, missing

        assert proc.stdout is not None
        with errors:
            for line in proc.stdout:
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    event = json.loads(line)
                    part = event.get("part")
                    need = (str(part[0]), str(part[1])) if part else None
                    self.progress(int(event["done"]), need, int(event["functions"]))
            code = proc.wait()
            if self._stopping:
                return
            if code != 0:
                errors.seek(0)
                self.log = errors.read()
                self.fail(_last_line(self.log) or f"the compiling process ended ({code})")
            elif missing(self.todo):
                self.fail("the compiling process ended without caching every kernel")
            else:
                # the kernels from the cache into this process now, not at the first card
                self.loading()
                try:
                    for need in self.needs:
                        compile_part(need)
                except Exception as exc:  # a broken cache entry, say: the page must say so
                    self.fail(f"{type(exc).__name__}: {exc}")
                else:
                    self.finish()
        if said is not None:
            said("done" if self.ready else "failed")

    def stop(self) -> None:
        """The server stops: so does the compile (SIGINT: the warm-up then stops the process
        it started for the loops, as after Ctrl-C)."""
        proc, self._stopping = self._proc, True
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(OSError):
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    # -- the app ---------------------------------------------------------------------------
    def install(self, app: Flask, endpoints: Iterable[str]) -> None:
        """``GET /api/status``, and a 503 with the status for ``endpoints`` (the app's names
        of the views that call a kernel) until the kernels are ready."""
        gated = frozenset(endpoints)

        @app.get(STATUS_PATH)
        def kernel_status():
            return jsonify(self.status())

        @app.before_request
        def kernels_first():
            if self.ready or request.endpoint not in gated:
                return None
            status = self.status()
            if status["state"] == "failed":
                message = f"compiling the kernels failed: {status['error']}"
            else:
                message = "the computer players are still being compiled (first start only)"
            resp = jsonify({"error": message, "kernels": status})
            resp.status_code = 503
            resp.headers["Retry-After"] = "1"
            return resp


def _last_line(text: str) -> str:
    """The error a traceback ends with."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def compile_and_report(args: list[str]) -> None:
    """The compiling process: warm the parts given as ``part:level``, printing the progress
    as JSON lines (``done``, ``part``, ``functions``) as it moves, at most every
    ``_LINE_EVERY`` seconds within a part."""
    from bonken_sim.engine.warmup import warm

    needs = [(p, lv) for p, _, lv in (a.partition(":") for a in args)]
    last: list[Any] = [None, 0.0]

    def progress(done: int, total: int, need: Need, compiles: Any) -> None:
        now = time.monotonic()
        if (done, need) == last[0] and now - last[1] < _LINE_EVERY:
            return
        last[:] = [(done, need), now]
        line = {"done": done, "total": total, "part": list(need), "functions": compiles.finished}
        print(json.dumps(line), flush=True)

    warm(needs, progress)
