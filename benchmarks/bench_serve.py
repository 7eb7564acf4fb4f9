"""Benchmark of `bonken-sim serve` against its aims: a computer player's card within 0.3 s
(random, basic, advanced) and an expert hint within 1 s, on this 2-core machine.

Plays whole games through the web app over HTTP (a server on 127.0.0.1 in this process,
kernels compiled first), the person's cards chosen at random among his legal ones, and
measures:
- each computer card: the time of ``decide`` for that seat's view, as the server calls it,
  per profile (every computer seat of a game plays the same profile);
- each request of the person's card: the HTTP round trip, which also plays the computer
  cards up to his next turn, saves the game and answers with its state;
- an expert card hint at each of the person's turns: the HTTP round trip of
  ``/api/games/<id>/hint`` (the expert with ``--hint-samples`` deals sampled, 1000 default).

Medians and 95th percentiles. Run `python benchmarks/bench_serve.py [--games 2]
[--hint-samples 1000]`; the JSON result goes to benchmarks/results/bench_serve_<UTC time>.json.
Nothing here gates a test: these machines are noisy and shared.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from bonken_sim import __version__
from bonken_sim.engine.warmup import missing, warm
from bonken_sim.serve import table_game
from bonken_sim.serve.app import ServeOptions
from bonken_sim.serve.server import address, serve_in_thread

PROFILES = ("random", "basic", "advanced")
AIMS = {"computer card": 0.3, "expert hint": 1.0}
RESULTS = Path(__file__).resolve().parent / "results"


def _call(base: str, method: str, path: str, body: dict | None = None) -> tuple[float, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as resp:
        answer = json.loads(resp.read())
    return time.perf_counter() - t0, answer


class _Timed:
    """``decide`` as the game calls it, timed per computer card (a PlayView of a seat that is
    not the person's)."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self.inner = table_game.decide
        self.timing = False

    def __call__(self, view, strategy="basic", seed=0, explain=False):
        t0 = time.perf_counter()
        d = self.inner(view, strategy, seed, explain)
        computer = getattr(view, "seat", 0) != 0  # the person sits at seat 0
        if (
            self.timing
            and computer
            and getattr(view, "kind", "") == "play"
            and strategy in PROFILES
        ):
            self.samples.append(time.perf_counter() - t0)
        return d


def _stats(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"n": 0}
    xs = sorted(xs)
    return {
        "n": len(xs),
        "median_ms": round(1000 * statistics.median(xs), 3),
        "p95_ms": round(1000 * xs[int(0.95 * (len(xs) - 1))], 3),
        "max_ms": round(1000 * xs[-1], 3),
    }


def bench_profile(base: str, timed: _Timed, profile: str, games: int, seed: int):
    rng = random.Random(seed)
    requests, hints = [], []
    timed.samples = []
    for g in range(games):
        players = ["you", profile, profile, profile]
        _, state = _call(base, "POST", "/api/games", {"seed": seed, "game": g, "players": players})
        gid = state["id"]
        while not state["over"]:
            kind = state["turn"]["kind"]
            if kind == "play":
                dt, _ = _call(base, "GET", f"/api/games/{gid}/hint")
                hints.append(dt)
                body = {"card": rng.choice(state["legal"])}
                dt, state = _call(base, "POST", f"/api/games/{gid}/play", body)
                requests.append(dt)
            elif kind == "choose":
                _, state = _call(base, "POST", f"/api/games/{gid}/choose",
                                 {"contract": rng.choice(state["legal"])})  # fmt: skip
            elif kind == "double":
                _, state = _call(base, "POST", f"/api/games/{gid}/double", {"targets": []})
            else:
                _, state = _call(base, "POST", f"/api/games/{gid}/next", {})
    return {
        "computer card (decide)": _stats(timed.samples),
        "person's card request (with the computer cards after it)": _stats(requests),
        "expert hint request": _stats(hints),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2, help="games per profile")
    ap.add_argument("--hint-samples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    needs = [("decide", "basic"), ("decide", "advanced"), ("decide", "expert"), ("replay", "")]
    warm(missing(needs))
    timed = _Timed()
    table_game.decide = timed  # the game's own calls, timed
    with tempfile.TemporaryDirectory() as tmp:
        options = ServeOptions(state_dir=Path(tmp), hint_samples=args.hint_samples)
        server, thread = serve_in_thread(options)
        base = address(server)
        bench_profile(base, timed, "basic", 1, args.seed + 99)  # first calls: caches, imports
        timed.timing = True
        results = {p: bench_profile(base, timed, p, args.games, args.seed) for p in PROFILES}
        server.shutdown()
        thread.join(10)
    doc = {
        "benchmark": "serve",
        "version": __version__,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "games_per_profile": args.games,
        "hint_samples": args.hint_samples,
        "aims_seconds": AIMS,
        "results": results,
    }
    for p, r in results.items():
        card, req, hint = r.values()
        print(
            f"{p:9s} computer card median {card['median_ms']:.3f} ms (p95 {card['p95_ms']:.3f}); "
            f"your card's request {req['median_ms']:.1f} ms (p95 {req['p95_ms']:.1f}); "
            f"expert hint {hint['median_ms']:.1f} ms (p95 {hint['p95_ms']:.1f})"
        )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"bench_serve_{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(doc, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
