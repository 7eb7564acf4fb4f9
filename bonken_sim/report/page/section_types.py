"""The two maps every section builder fills: the report's tables by CSV name, and how to
draw each figure by figure name."""

from __future__ import annotations

import pandas as pd

from bonken_sim.report.page.figures import FigureSpec

#: the tables of a report by CSV name, and how to draw each figure by figure name
Tables = dict[str, pd.DataFrame]
Drawings = dict[str, FigureSpec]
