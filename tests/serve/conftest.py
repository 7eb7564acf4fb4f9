"""A server of the web app for the tests: in a thread (``served``), or as the command
``bonken-sim serve`` in its own process (``ServeProcess``), each on a free port of 127.0.0.1
with its own state directory."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bonken_sim.serve.app import ServeOptions
from bonken_sim.serve.server import address, serve_in_thread

REPO = Path(__file__).resolve().parents[2]


def call(base: str, method: str, path: str, body=None, raw: bytes | None = None):
    """(status, decoded JSON or text) of one request."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


@pytest.fixture
def served(tmp_path):
    """The base address of a server in this process, saving under ``tmp_path/state``."""
    server, thread = serve_in_thread(ServeOptions(state_dir=tmp_path / "state", hint_samples=200))
    try:
        yield address(server)
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


class ServeProcess:
    """``bonken-sim serve --port 0 --state DIR`` in its own process; ``base`` once it listens."""

    def __init__(self, state: Path, *extra: str) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), *sys.path])))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bonken_sim.cli", "serve", "--port", "0", "--state",
             str(state), "--hint-samples", "200", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
        )  # fmt: skip
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if not found:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            self.proc.kill()
            raise AssertionError(f"serve did not start: {line!r} {err!r}")
        self.base = found.group(1)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        finally:
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream:
                    stream.close()
