"""``bonken-sim report``: a run directory turned into figures, tables and a report page.

``aggregate`` streams the run into histograms, ``tables`` turns them into the tables behind
the figures, ``figures`` draws them, ``render`` writes the HTML and Markdown pages and
``build`` puts it all in the report folder.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ReportError", "ReportResult", "write_report"]


def __getattr__(name: str) -> Any:
    # lazy: ``report.pool`` must import without matplotlib and pandas (see pool.py)
    if name in __all__:
        from bonken_sim.report import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
