"""Drawing the report's figures on the worker pool and in this process at once.

Each figure is drawn into its PNG and SVG files by ``figures.render_figure``; the queue
here keeps the pool's workers and this process busy until the last one is drawn.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait

from bonken_sim.processes import stop_workers
from bonken_sim.report.page.figures import FigureSpec, render_figure

# Figures that take longest to draw go first, so two workers finish together.
DRAW_ORDER = (
    "hand_features",
    "score_distribution",
    "doubling_by_hcp",
    "doubling_win_rate",
    "doubling_mean",
    "best_contract",
)


def _cost_rank(name: str) -> int:
    return DRAW_ORDER.index(name) if name in DRAW_ORDER else 99


def by_cost(names: Iterable[str]) -> list[str]:
    """Figure names, the most expensive to draw first."""
    return sorted(names, key=_cost_rank)


class FigureQueue:
    """Figures to draw, most expensive first, shared by the pool and this process.

    A thread keeps exactly one figure per worker in the pool (a figure waiting in the
    executor's own queue could not be taken back), and this process takes the cheapest ones
    left from the other end, so neither side idles while the other has a backlog."""

    def __init__(self, pool: Executor, slots: int) -> None:
        self.pool, self.slots = pool, slots
        self.lock = threading.Lock()
        self.todo: list[tuple[str, FigureSpec, str]] = []
        self.running: dict[Future, str] = {}
        self.finished: dict[str, Future] = {}
        self.names: set[str] = set()
        self.closed = False
        self.thread = threading.Thread(target=self._feed, name="report-figures", daemon=True)
        self.thread.start()

    def add(self, jobs: list[tuple[str, FigureSpec, str]]) -> None:
        with self.lock:
            self.todo += jobs
            self.names.update(n for n, _, _ in jobs)
            self.todo.sort(key=lambda j: _cost_rank(j[0]))

    def take_cheapest(self) -> tuple[str, FigureSpec, str] | None:
        with self.lock:
            return self.todo.pop() if self.todo else None

    def _feed(self) -> None:
        try:
            self._loop()
        except Exception:  # noqa: BLE001 - the pool was shut down under us (a failed report)
            with self.lock:
                self.closed = True

    def abort(self) -> None:
        """Submit nothing more, and stop the workers: they write into the report's folder,
        which is removed next (a worker ignores Ctrl-C, and one killed by SIGTERM may leave
        the pool waiting for its figure for ever; see ``processes``)."""
        with self.lock:
            self.closed = True
            self.todo.clear()
        stop_workers(self.pool)
        self.thread.join()

    def _loop(self) -> None:
        while True:
            with self.lock:
                while len(self.running) < self.slots and self.todo and not self.closed:
                    name, spec, path = self.todo.pop(0)
                    self.running[self.pool.submit(render_figure, spec, path)] = name
                if self.closed and not self.running:
                    return
                busy = list(self.running)
            # the timeout: jobs added meanwhile are submitted within 50 ms
            done = wait(busy, timeout=0.05, return_when=FIRST_COMPLETED).done if busy else ()
            if not busy:
                time.sleep(0.02)
            with self.lock:
                for fut in done:
                    self.finished[self.running.pop(fut)] = fut

    def drawn(self) -> int:
        """How many of the pool's figures are drawn."""
        with self.lock:
            return len(self.finished)

    def finish(self, on_wait: Callable[[int], None] | None = None) -> dict[str, bytes]:
        """Wait for the pool's figures: name → PNG bytes (a worker's error is raised).
        ``on_wait(drawn)`` is called every 0.1 s while waiting."""
        with self.lock:
            self.closed = True  # nothing is left to submit: take_cheapest emptied todo
        while self.thread.is_alive():
            if on_wait is not None:
                on_wait(self.drawn())
            self.thread.join(0.1)
        return {name: fut.result() for name, fut in self.finished.items()}
