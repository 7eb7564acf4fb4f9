"""``bonken-sim report``: a run directory turned into figures, tables and a report page.

``aggregate`` streams the run into histograms, ``tables`` turns them into the tables behind
the figures, ``figures`` draws them, ``render`` writes the HTML and Markdown pages and
``build`` puts it all in the report folder.
"""

from .build import ReportError, ReportResult, write_report

__all__ = ["ReportError", "ReportResult", "write_report"]
