"""Terminal output of the run commands: the progress bar (and the stage line of a report),
the run summary, the score table.

Progress goes to stderr and only when it is a terminal; everything here is plain text.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import IO, Any

from bonken_sim.runs.summary_text import being_written, has_interval, stands_alone


def _duration(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):
        return "?"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


class _InPlace:
    """A line of stderr redrawn in place (from a carriage return), wiped by ``clear``."""

    def __init__(self, stream: IO[str] | None):
        self.stream = stream if stream is not None else sys.stderr
        self._shown = ""

    def _draw(self, text: str) -> None:
        self.stream.write(f"\r{text}")
        self.stream.flush()
        self._shown = text

    def clear(self) -> None:
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = ""


class ProgressBar(_InPlace):
    """``done/total deals [=====>    ] 41%  105,000 deals/s  ETA 6s`` redrawn in place."""

    def __init__(self, stream: IO[str] | None = None, width: int = 24, unit: str = "deals"):
        super().__init__(stream)
        self.unit = unit
        self.width = width
        self.t0: float | None = None
        self.start_done = 0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.t0 is None:
            self.t0 = now
            self.start_done = done
        elapsed = now - self.t0
        rate = (done - self.start_done) / elapsed if elapsed > 0.2 else 0.0
        frac = done / total if total else 1.0
        fill = int(frac * self.width)
        bar = "=" * fill + (">" if fill < self.width else "") + " " * max(0, self.width - fill - 1)
        eta = _duration((total - done) / rate) if rate > 0 else "?"
        rate_txt = f"{rate:,.0f} {self.unit}/s" if rate > 0 else "starting"
        self._draw(f"{done:,}/{total:,} {self.unit} [{bar}] {frac:4.0%}  {rate_txt}  ETA {eta}  ")


class StageLine(_InPlace):
    """``report: drawing figures 7/24`` redrawn in place: a long call's stages, each with
    its count when it has one (``total`` 0: none)."""

    def __init__(self, prefix: str, stream: IO[str] | None = None):
        super().__init__(stream)
        self.prefix = prefix

    def __call__(self, stage: str, done: int, total: int) -> None:
        text = f"{self.prefix}: {stage}" + (f" {done}/{total}" if total else "")
        # a line longer than the terminal wraps, and \r then redraws only its last row
        text = text[: max(20, shutil.get_terminal_size().columns - 1)]
        if text != self._shown.removesuffix("\033[K"):
            self._draw(f"{text}\033[K")


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def run_summary(result: Any) -> list[str]:
    """The human summary of a RunResult (see ``bonken_sim.runs.deals.RunResult``)."""
    r = result
    seed = f"seed {r.seed}" + (" (drawn)" if r.seed_drawn else "")
    strategies = r.strategies[0] if len(set(r.strategies)) == 1 else ",".join(r.strategies)
    lines = [
        f"bonken-sim run: {r.deals:,} deals x {len(r.contracts)} contract variants, {seed}, "
        f"strategies {strategies}",
    ]
    if r.resumed and r.deals_this_session == 0:
        lines.append("  the run was already complete; nothing to do")
    elif r.resumed:
        lines.append(f"  resumed: played the {r.deals_this_session:,} missing deals")
    parts = "1 part" if r.parts == 1 else f"{r.parts} parts"
    lines.append(f"  {r.rows:,} rows in {parts} (+ the deals parts), {_mb(r.bytes)}, in {r.out}")
    if r.deals_this_session:
        on = f"{r.threads} thread{'s' if r.threads != 1 else ''}"
        executor = getattr(r, "executor", "local")
        if executor != "local":
            on = f"{executor} executor, {r.workers} slots x {on} per task"
            if getattr(r, "restarts", 0):
                on += f", pool recreated {r.restarts}x after lost workers"
        lines.append(
            f"  wall {r.wall_seconds:.1f} s (compile {r.compile_seconds:.1f} s), "
            f"{r.deals_per_second:,.0f} deals/s on {on}; CPU: simulate "
            f"{r.simulate_cpu_seconds:.1f} s, write {r.write_cpu_seconds:.1f} s "
            + (
                f"(overlapped; last write {r.write_tail_seconds:.1f} s)"
                if executor == "local"
                else "(in the tasks)"
            )
        )
    lines += [
        f"  read it: pandas.read_parquet({str(r.out)!r}); per-deal hands and features in "
        f"{r.out}/_deals; scores: bonken-sim summary {r.out}",
    ]
    return lines


def score_table(summary: dict) -> list[str]:
    """The mean raw score per variant and seat with 95% CIs (from ``io.summarize``)."""
    s = summary
    state = s["state"]
    done = s["deals_done"]
    head = f"{s['run']}: {state}, {done:,} of {s['deals']:,} deals, seed {s['seed']}"
    strategies = s["strategies"]
    strat = strategies[0] if len(set(strategies)) == 1 else ",".join(strategies)
    lines = [
        head + f", strategies {strat}",
        *being_written(s.get("writer")),
        "mean raw score per deal with 95% CI; dealer seat 0, leader 1, chooser 2",
    ]
    if any(row["n"] < 2 for row in s["variants"]):
        lines.append(stands_alone("deal", "scores"))
    lines.append(
        f"{'variant':<13}{'deals':>11}" + "".join(f"{'seat ' + str(p):>18}" for p in range(4))
    )
    for row in s["variants"]:
        cells = []
        for seat in row["seats"]:
            if has_interval(seat):
                lo, hi = seat["ci95"]
                cells.append(f"{seat['mean']:.2f} ±{(hi - lo) / 2:5.2f}")
            else:
                cells.append(f"{seat['mean']:.2f}")
        lines.append(f"{row['variant']:<13}{row['n']:>11,}" + "".join(f"{c:>18}" for c in cells))
    return lines
