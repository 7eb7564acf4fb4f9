"""A chunk task whose worker process dies, for tests/test_executors.py. Its own small module,
so the worker processes that unpickle it by name import nothing heavy (``tests/`` is on
their path as on the test process's)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from bonken_sim.runs.deals import ChunkTask, play_chunk


def dying_play_chunk(task: ChunkTask):
    """``play_chunk``, but the worker process running chunk 2 kills itself (SIGKILL) as the
    task starts: only the first time if ``task.root``'s parent holds ``die-once``, otherwise
    every time. ``died`` is touched there when it happens."""
    if task.index == 2:
        assert task.root is not None
        here = Path(task.root).parent
        if not (here / "died").exists() or not (here / "die-once").exists():
            (here / "died").touch()
            os.kill(os.getpid(), signal.SIGKILL)
    return play_chunk(task)
