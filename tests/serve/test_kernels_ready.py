"""The kernels compiled in the background: ``bonken-sim serve`` on an empty kernel cache prints
its address at once and reports the compile's progress at ``/api/status``; until the kernels
are ready, what needs one answers 503 with the progress, the rest is served; a failed compile
says why. The compile state is faked here (``Kernels`` on an empty cache folder, moved by
hand) except in the command's test, which stops the server long before the compile ends, and
in a compiling process that fails at once."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bonken_sim.serve.app import ServeOptions, create_app
from bonken_sim.serve.kernels_ready import SERVE_NEEDS, Kernels
from tests.serve.conftest import REPO, call

#: the address must come this soon on an empty cache (a compile takes one to two minutes)
ADDRESS_WITHIN = 15.0


@pytest.fixture
def compiling(tmp_path, monkeypatch):
    """A Kernels of serve's parts as on an empty cache: compiling, nothing done yet. Only the
    markers are looked up there; the kernels this process calls load from its own cache."""
    monkeypatch.setenv("BONKEN_SIM_CACHE_DIR", str(tmp_path / "empty-cache"))
    kernels = Kernels(SERVE_NEEDS)
    monkeypatch.delenv("BONKEN_SIM_CACHE_DIR")
    return kernels


def test_a_warm_app_is_ready_at_once(tmp_path):
    client = create_app(ServeOptions(state_dir=tmp_path)).test_client()
    status = client.get("/api/status").get_json()
    assert status["ready"] is True and status["state"] == "ready" and status["total"] == 0


def test_games_wait_for_the_kernels_with_a_503_and_the_progress(tmp_path, compiling):
    client = create_app(ServeOptions(state_dir=tmp_path, kernels=compiling)).test_client()
    status = client.get("/api/status").get_json()
    assert status["ready"] is False and status["state"] == "compiling"
    assert (status["done"], status["total"], status["part"]) == (0, 4, "decide (basic)")

    body = {"seed": 3, "players": ["you", "basic", "basic", "basic"]}
    refused = client.post("/api/games", json=body)
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
    assert "still being compiled" in refused.get_json()["error"]
    assert refused.get_json()["kernels"]["state"] == "compiling"
    for path in ("/api/games/0123456789ab", "/api/games/0123456789ab/hint"):
        assert client.get(path).status_code == 503
    assert client.post("/api/games/0123456789ab/play", json={"card": "2C"}).status_code == 503
    # what needs no kernel is served meanwhile: the page, its configuration, the saved games
    for path in ("/", "/static/kernels.js", "/api/config", "/api/games"):
        assert client.get(path).status_code == 200, path

    compiling.progress(2, ("decide", "expert"), 57)
    status = client.get("/api/status").get_json()
    assert (status["done"], status["part"], status["functions"]) == (2, "decide (expert)", 57)
    compiling.loading()
    assert client.get("/api/status").get_json()["state"] == "loading"
    assert client.post("/api/games", json=body).status_code == 503

    compiling.finish()
    status = client.get("/api/status").get_json()
    assert status["ready"] is True and status["done"] == 4
    started = client.post("/api/games", json=body)
    assert started.status_code == 200 and started.get_json()["turn"]


def test_a_failed_compile_is_a_clear_error(tmp_path, compiling):
    client = create_app(ServeOptions(state_dir=tmp_path, kernels=compiling)).test_client()
    compiling.fail("numba.core.errors.TypingError: Failed in nopython mode\n  pipeline")
    status = client.get("/api/status").get_json()
    assert status["state"] == "failed" and status["ready"] is False
    assert status["error"] == "numba.core.errors.TypingError: Failed in nopython mode pipeline"
    refused = client.post("/api/games", json={})
    assert refused.status_code == 503
    assert refused.get_json()["error"].startswith("compiling the kernels failed: numba.core")


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by a parent) is gone for this purpose
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def test_serve_prints_its_address_before_the_kernels_are_compiled(tmp_path):
    env = dict(
        os.environ,
        BONKEN_SIM_CACHE_DIR=str(tmp_path / "empty-cache"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), *sys.path])),
    )
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bonken_sim.cli", "serve", "--port", "0", "--state",
         str(tmp_path / "state")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stderr is not None
        readable, _, _ = select.select([proc.stdout], [], [], ADDRESS_WITHIN)
        assert readable, f"no address within {ADDRESS_WITHIN:.0f} s on an empty cache"
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, line
        base = line.split("open ", 1)[1].split()[0]
        assert time.monotonic() - t0 < ADDRESS_WITHIN

        status, page = call(base, "GET", "/")
        assert status == 200 and "<title>Bonken</title>" in page
        status, st = call(base, "GET", "/api/status")
        assert status == 200 and st["ready"] is False and st["state"] == "compiling"
        assert st["total"] == len(SERVE_NEEDS) and st["done"] < st["total"]
        status, refused = call(base, "POST", "/api/games", {"seed": 1})
        assert status == 503 and refused["kernels"]["state"] == "compiling"
        # the compiling process reports numba's progress while the server answers
        deadline = time.monotonic() + 60
        while st["functions"] == 0 and st["done"] == 0 and time.monotonic() < deadline:
            time.sleep(0.3)
            st = call(base, "GET", "/api/status")[1]
        assert st["functions"] > 0 or st["done"] > 0, st
        compilers = _children(proc.pid)
        assert compilers, "the compile runs in a second process"
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
        err = proc.stderr.read() if proc.stderr else ""
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    assert code == 143, err
    assert "compiling the computer players' kernels in the background" in err
    # stopping the server stops its compile
    deadline = time.monotonic() + 10
    while any(map(_alive, compilers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(_alive, compilers))


def test_warmup_for_serve_compiles_serves_kernels_only(monkeypatch, capsys):
    from bonken_sim.cli.main import main
    from bonken_sim.engine import warmup

    asked = []
    monkeypatch.setattr(warmup, "warm", lambda needs, progress=None: asked.append(needs) or 0.0)
    monkeypatch.setattr(warmup, "warmup", lambda progress=None: asked.append("all") or 0.0)
    assert main(["warmup", "--for", "serve"]) == 0
    assert asked == [SERVE_NEEDS] and "kernels ready" in capsys.readouterr().out
    assert main(["warmup"]) == 0 and asked[-1] == "all"
    assert main(["warmup", "--for", "nope"]) == 2


def test_the_compiling_process_failing_is_reported_with_its_traceback():
    kernels = Kernels([("no-such-part", "")])  # the second process's warm-up raises KeyError
    said: list[str] = []
    kernels.start(said.append)
    deadline = time.monotonic() + 120
    while not said and time.monotonic() < deadline:
        time.sleep(0.05)
    assert said == ["failed"]
    status = kernels.status()
    assert status["state"] == "failed" and status["error"] == "KeyError: 'no-such-part'"
    assert "Traceback" in kernels.log


def test_every_gated_endpoint_is_a_view_of_the_app(tmp_path):
    """The gate names views by their blueprint's name: a name that matches no view would leave
    that view open before the kernels are compiled."""
    from bonken_sim.serve.app import KERNEL_ENDPOINTS

    app = create_app(ServeOptions(state_dir=tmp_path / "state"))
    assert set(KERNEL_ENDPOINTS) <= set(app.view_functions)
    gated = {r.rule for r in app.url_map.iter_rules() if r.endpoint in KERNEL_ENDPOINTS}
    assert gated == {"/api/games", "/api/games/<gid>", "/api/games/<gid>/<action>",
                     "/api/games/<gid>/hint", "/api/games/<gid>/review", "/api/advise",
                     "/api/run/deal"}  # fmt: skip
