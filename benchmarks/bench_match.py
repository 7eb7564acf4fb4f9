"""Match benchmark: what one decision costs at a `bonken-sim match` table, a built-in seat
against an outside program, and where an outside program's round trip goes.

Run `python benchmarks/bench_match.py [--games N] [--repeats R]`. The views are every
decision of N table games of four basic players (cards, choices, doubles, as the match asks
them). Each repeat times, per view (mean µs over the views; the median over repeats is
reported):

- `builtin basic`, `builtin advanced`: a built-in seat's decision (`decide`);
- `external lowest`: an outside program's whole decision (examples/lowest_bot.py, a
  stdlib-only player that works out the legal cards itself): the request written, the answer
  read and checked against the view's legal options (``engine.legal``; the basic decision
  is asked only for a refused answer's fallback);
- its parts: `request encoded` (the view as protocol JSON), `answer decoded` (a line read
  back into a value), and `pipe round trip` (one line to a program that echoes it and back
  through `table.pipe.PlayerPipe`: the bare cost of the two pipes, the reader thread and
  the process switch);
- whole table games per second: four advanced seats, and three advanced seats with the
  outside program at the fourth.

JSON results go to benchmarks/results/.
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import bonken_sim.table.protocol as P
from bonken_sim.engine.games import GameBatch
from bonken_sim.rules.rulesets import STANDARD
from bonken_sim.table.match_game import Copy, Record, Table
from bonken_sim.table.pipe import PlayerPipe
from bonken_sim.table.players import Builtin, External

REPO = Path(__file__).resolve().parents[1]
LOWEST = f"cmd:{shlex.quote(sys.executable)} {REPO / 'examples' / 'lowest_bot.py'}"
ECHO = [sys.executable, "-c", "import sys\nfor line in sys.stdin: print(line, end='', flush=True)"]


class Recorder(Builtin):
    """A basic seat that keeps every view it is asked."""

    def __init__(self, views: list):
        super().__init__("basic")
        self.views = views

    def decide(self, kind, view, seed):
        self.views.append((kind, view))
        return super().decide(kind, view, seed)


def collect_views(games: int) -> list:
    views: list = []
    table = Table([Recorder(views) for _ in range(4)], 1, STANDARD, True)
    batch = GameBatch.empty(0, games)
    for g in range(games):
        table.play(Copy(g, g, 0), batch, g, Record())
    return views


def per_view_us(fn, views: list) -> float:
    t0 = time.perf_counter()
    for i, (kind, view) in enumerate(views):
        fn(i, kind, view)
    return (time.perf_counter() - t0) / len(views) * 1e6


def echo_threads(lines: int) -> float:
    """µs per line to a program that echoes it, through table.pipe.PlayerPipe (the
    table's pipes: a reader thread and a queue)."""
    pipe = PlayerPipe(ECHO)
    line = P.encode({"type": "play", "id": 1, "card": "QS"})
    t0 = time.perf_counter()
    for _ in range(lines):
        pipe.send(line)
        pipe.receive(10)
    us = (time.perf_counter() - t0) / lines * 1e6
    pipe.stop()
    return us


def games_per_second(players: list, games: int) -> float:
    table = Table(players, 3, STANDARD, True)
    for p in players:
        p.open(STANDARD)
    batch = GameBatch.empty(0, games + 1)
    table.play(Copy(0, 0, 0), batch, 0, Record())  # started and warm
    t0 = time.perf_counter()
    for g in range(1, games + 1):
        table.play(Copy(g, g, 0), batch, g, Record())
    rate = games / (time.perf_counter() - t0)
    for p in players:
        p.close()
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--table-games", type=int, default=20)
    args = ap.parse_args()
    views = collect_views(args.games)
    basic, advanced = Builtin("basic"), Builtin("advanced")
    external = External(LOWEST, time_limit=30)
    external.open(STANDARD)
    external.decide(*views[0], 0)  # started
    requests = [P.encode(P.request(k, i, v)) for i, (k, v) in enumerate(views)]
    answers = []
    for i, (k, v) in enumerate(views):
        d = basic.decide(k, v, 0).value
        answers.append(P.encode(P.answer(k, i, d)).encode())
    timings: dict[str, list[float]] = {}

    def run(name: str, fn) -> None:
        timings.setdefault(name, []).append(per_view_us(fn, views))

    for _ in range(args.repeats):
        run("builtin basic", lambda i, k, v: basic.decide(k, v, 0))
        run("builtin advanced", lambda i, k, v: advanced.decide(k, v, 0))
        run("external lowest", lambda i, k, v: external.decide(k, v, 0))
        run("request encoded", lambda i, k, v: P.encode(P.request(k, i, v)))
        run("answer decoded", lambda i, k, v: P.answer_from_json(k, P.decode(answers[i]), i))
        timings.setdefault("pipe round trip", []).append(echo_threads(len(views)))
    external.close()
    assert len(requests) == len(views)
    median = {name: statistics.median(xs) for name, xs in timings.items()}
    rates = {
        "4 advanced": games_per_second([Builtin("advanced") for _ in range(4)], args.table_games),
        "3 advanced + lowest": games_per_second(
            [Builtin("advanced")] * 3 + [External(LOWEST, 30)], args.table_games
        ),
    }
    kinds = {k: sum(1 for kind, _ in views if kind == k) for k in ("play", "choose", "double")}
    print(f"{len(views)} views ({kinds}), {args.repeats} repeats: µs per decision (median)")
    for name, us in median.items():
        print(f"  {name:28s}{us:9.1f}")
    print("table games per second (one thread):")
    for name, rate in rates.items():
        print(f"  {name:28s}{rate:9.2f}")
    out = REPO / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    doc = {
        "when": stamp,
        "machine": platform.processor() or platform.machine(),
        "views": len(views),
        "kinds": kinds,
        "repeats": args.repeats,
        "us_per_decision": median,
        "all": timings,
        "table_games_per_second": rates,
    }
    (out / f"bench_match-{stamp}.json").write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
