"""Headless Chromium for the tests that open report.html as a reader would.

`make test` installs Chromium where it can (scripts/ensure_chromium.sh); in CI a missing
browser fails the test instead of skipping it, so that CI never passes without opening the
page."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

import pytest

# The flags a closed network needs: without the background-networking ones Chromium keeps
# trying (and failing) to reach its update and sync hosts.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium() -> str:
    """The browser's path; skips the test (fails it under CI=true) when there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    message = "no Chromium installed (Debian: apt-get install chromium)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", *args]
        return subprocess.run(cmd, capture_output=True, timeout=120, **kwargs)


def figures_shown(page: str) -> tuple[str, str]:
    """Load ``page`` (a file URI) and return the page script's (shown, total) figure count."""
    dom = _run(["--dump-dom", page], text=True).stdout
    shown = re.search(r'data-figures-shown="(\d+)/(\d+)"', dom)
    assert shown, "the page's load script did not run"
    return shown.group(1), shown.group(2)


def screenshot(page: str, path) -> None:
    """A 1200x2400 screenshot of ``page`` at ``path``."""
    _run(["--window-size=1200,2400", f"--screenshot={path}", page])
