"""Preloaded by the forkserver of bonken-sim's process pools, and imported nowhere else.

It loads the kernels a worker task calls (from the on-disk cache: the driver has compiled
them before the pool starts), so every worker process forked from the server starts with
them loaded: a pool (or a pool recreated after a lost worker) is ready in milliseconds
instead of the ~1 s a fresh process spends importing numba and loading the kernels. The
server is single-threaded when it forks (the thread ``play_games`` uses is joined here).
"""

import contextlib

with contextlib.suppress(Exception):  # a failure here only means workers load them later
    import numpy as np

    from bonken_sim.engine.games import play_games
    from bonken_sim.runs.deals import warm_kernels

    warm_kernels()
    play_games(2, 0, np.arange(4), ["basic", "random", "basic", "random"], threads=1)
