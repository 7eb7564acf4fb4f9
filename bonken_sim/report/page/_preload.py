"""Preloaded by the forkserver of the report's worker pool, and imported nowhere else.

Importing numpy, pyarrow, pandas, bonken_sim (numba) and matplotlib costs a fresh process
about 2 s of CPU; workers forked from a server that has them loaded start in milliseconds.
Only imports: the server must stay single-threaded when it forks.
"""

import contextlib

with contextlib.suppress(Exception):  # a failure here only means workers import them later
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.backends.backend_svg  # noqa: F401
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from bonken_sim.models import features  # noqa: F401
    from bonken_sim.report.deals.stats import aggregate, policies  # noqa: F401
    from bonken_sim.report.page import figures  # noqa: F401
