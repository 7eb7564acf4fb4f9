"""Benchmark of `bonken-sim serve`'s start: how soon it prints its address, and how soon a game
can start, on an empty kernel cache (the first start after an install) and on a warm one.

Each start is the command in a fresh process (`python -m bonken_sim.cli serve --port 0`),
timed from its launch:
- cold (a new temporary BONKEN_SIM_CACHE_DIR each time): the printed address; the moment
  `GET /api/status` says ready (polled every 0.2 s, its slowest answer during the compile
  kept: the server must stay responsive while the kernels compile, and while it then loads
  them); then the first new game (basic, advanced and expert seats) and the first decision;
- warm (the cache the last cold start filled): the printed address, whether the first
  `/api/status` already says ready, and the first new game.

Medians of the repeats. `--tree DIR` runs the command of another checkout (PYTHONPATH), for
an A/B against the version before (a tree without `/api/status` counts as ready when its
address is printed). Run `python benchmarks/bench_serve_start.py [--cold 2] [--warm 5]`;
the JSON result goes to benchmarks/results/bench_serve_start_<UTC time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
PLAYERS = ["you", "basic", "advanced", "expert"]
POLL = 0.2


def _call(base: str, method: str, path: str, body: dict | None = None) -> tuple[int, float, dict]:
    """(HTTP status, seconds, decoded answer) of one request."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=600) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    seconds = time.perf_counter() - t0
    try:
        return status, seconds, json.loads(raw)
    except ValueError:
        return status, seconds, {}


class Serve:
    """The command in its own process, its address read from its first line."""

    def __init__(self, tree: Path, cache: Path, state: Path) -> None:
        env = dict(os.environ, BONKEN_SIM_CACHE_DIR=str(cache), PYTHONPATH=str(tree))
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bonken_sim.cli", "serve", "--port", "0", "--state",
             str(state)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=tree,
        )  # fmt: skip
        assert self.proc.stdout is not None
        # a version that compiles first prints nothing for minutes: wait as long as it takes
        select.select([self.proc.stdout], [], [], 900)
        line = self.proc.stdout.readline()
        self.address_s = time.perf_counter() - self.t0
        if "http://" not in line:
            self.stop()
            raise SystemExit(f"serve did not start: {line!r}")
        self.base = line.split("open ", 1)[1].split()[0]

    def since(self) -> float:
        return time.perf_counter() - self.t0

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _first_game(base: str) -> dict:
    """A new game's request and the person's first decision's (the computer's replies in it)."""
    status, new_s, state = _call(base, "POST", "/api/games", {"seed": 5, "players": PLAYERS})
    assert status == 200, state
    gid, kind, legal = state["id"], state["turn"]["kind"], state["legal"]
    body = {"choose": {"contract": legal[0] if legal else None}, "double": {"targets": []},
            "play": {"card": legal[0] if legal else None}, "next": {}}.get(kind, {})  # fmt: skip
    status, act_s, _ = _call(base, "POST", f"/api/games/{gid}/{kind}", body)
    assert status == 200
    return {"new_game_s": round(new_s, 3), "first_decision_s": round(act_s, 3)}


def cold(tree: Path, work: Path) -> dict:
    serve = Serve(tree, work / "cache", work / "state")
    try:
        # the slowest answer while the second process compiles, and while this one loads
        slowest = {"compiling": 0.0, "loading": 0.0}
        parts, ready_s, state = 0, None, "compiling"
        while ready_s is None:
            status, took, st = _call(serve.base, "GET", "/api/status")
            slowest[state] = max(slowest[state], took)  # the state the request was sent in
            state = st.get("state", "compiling")
            if status == 404 or st.get("ready"):  # 404: a version that compiled first
                ready_s = serve.since()
            elif state == "failed":
                raise SystemExit(f"the compile failed: {st.get('error')}")
            else:
                parts = st.get("total", parts)
                _, page_s, _ = _call(serve.base, "GET", "/")
                slowest[state] = max(slowest[state], page_s)
                time.sleep(POLL)
        game = _first_game(serve.base)
    finally:
        serve.stop()
    return {
        "address_s": round(serve.address_s, 2),
        "ready_s": round(ready_s, 1),
        "parts": parts,
        "slowest_answer_while_compiling_s": round(slowest["compiling"], 3),
        "slowest_answer_while_loading_s": round(slowest["loading"], 3),
        **game,
    }


def warm(tree: Path, work: Path) -> dict:
    serve = Serve(tree, work / "cache", work / "state")
    try:
        status, _, st = _call(serve.base, "GET", "/api/status")
        ready_at_once = status == 404 or bool(st.get("ready"))
        game = _first_game(serve.base)
    finally:
        serve.stop()
    return {"address_s": round(serve.address_s, 2), "ready_at_once": ready_at_once, **game}


def _medians(runs: list[dict]) -> dict:
    keys = [k for k, v in runs[0].items() if isinstance(v, float | int) and not isinstance(v, bool)]
    return {k: statistics.median(r[k] for r in runs) for k in keys}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", type=int, default=2, help="starts on an empty cache")
    ap.add_argument("--warm", type=int, default=5, help="starts on the cache filled")
    ap.add_argument("--tree", type=Path, default=REPO, help="the checkout to run")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-serve-start-") as tmp:
        runs_cold, runs_warm = [], []
        for k in range(max(args.cold, 1)):
            work = Path(tmp) / f"cold{k}"
            runs_cold.append(cold(args.tree, work))
            print(f"cold {k + 1}: {runs_cold[-1]}", flush=True)
        for k in range(args.warm):
            runs_warm.append(warm(args.tree, work))  # the last cold start's cache, warm now
            print(f"warm {k + 1}: {runs_warm[-1]}", flush=True)
    doc = {
        "benchmark": "serve_start",
        "tree": str(args.tree),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "load_average_after": os.getloadavg(),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "cold": {"runs": runs_cold, "median": _medians(runs_cold)},
        "warm": {"runs": runs_warm, "median": _medians(runs_warm) if runs_warm else {}},
    }
    mc, mw = doc["cold"]["median"], doc["warm"]["median"]
    print(
        f"empty cache: address {mc['address_s']:.2f} s, ready {mc['ready_s']:.1f} s, first new "
        f"game {mc['new_game_s']:.2f} s, slowest answer while compiling "
        f"{mc['slowest_answer_while_compiling_s']:.3f} s and while loading "
        f"{mc['slowest_answer_while_loading_s']:.3f} s (medians of {len(runs_cold)})"
    )
    if mw:
        print(
            f"warm cache: address {mw['address_s']:.2f} s, first new game "
            f"{mw['new_game_s']:.2f} s, ready at once {all(r['ready_at_once'] for r in runs_warm)} "
            f"(medians of {len(runs_warm)})"
        )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"bench_serve_start_{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(doc, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
