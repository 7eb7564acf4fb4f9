"""``bonken-sim report``: a run directory turned into figures, tables and a report page.

By what it reads: ``deals`` (a deal run: its streamed statistics, tables, figures and
sections), ``games`` (a game run's own report, and game runs beside a deal run), ``ladder``
(a strategy ladder beside a run); ``page`` is the page itself: ``build`` puts it all in the
report folder, ``render`` writes the HTML and Markdown, ``drawing`` draws the figures.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ReportError", "ReportResult", "write_report"]


def __getattr__(name: str) -> Any:
    # lazy: ``report.page.pool`` must import without matplotlib and pandas (see page/pool.py)
    if name in __all__:
        from bonken_sim.report.page import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
