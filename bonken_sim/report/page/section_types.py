"""What a section builder makes: the section of the page, and beside it the tables it
computed (written as CSV, by name) and how to draw each of its figures (by figure name)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from bonken_sim.report.page.figures import FigureSpec
from bonken_sim.report.page.render import Section

#: the tables of a report by CSV name, and how to draw each figure by figure name
Tables = dict[str, pd.DataFrame]
Drawings = dict[str, FigureSpec]


@dataclass
class BuiltSection:
    """One section of the page with its tables and drawings."""

    section: Section
    tables: Tables = field(default_factory=dict)
    drawings: Drawings = field(default_factory=dict)


def page_parts(built: Sequence[BuiltSection]) -> tuple[list[Section], Drawings, Tables]:
    """The sections in order, and the drawings and tables of them all, each map in section
    order. A figure or table name is made by one section only: its file would be overwritten."""
    draw: Drawings = {}
    tabs: Tables = {}
    for b in built:
        for made, into in ((b.drawings, draw), (b.tables, tabs)):
            twice = set(made) & set(into)
            if twice:
                raise ValueError(f"{sorted(twice)} made by two sections of the page")
            into.update(made)
    return [b.section for b in built], draw, tabs
