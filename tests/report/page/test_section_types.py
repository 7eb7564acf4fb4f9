"""The page's parts gathered from its section builders."""

import pandas as pd
import pytest

from bonken_sim.report.page.render import Section
from bonken_sim.report.page.section_types import BuiltSection, page_parts


def _built(title: str, table: str, figure: str) -> BuiltSection:
    frame = pd.DataFrame({"x": [1]})
    return BuiltSection(Section(title, ""), {table: frame}, {figure: ("f", (frame,))})


def test_page_parts_keep_section_order_and_every_name():
    sections, draw, tabs = page_parts([_built("one", "a", "fa"), _built("two", "b", "fb")])
    assert [s.title for s in sections] == ["one", "two"]
    assert list(tabs) == ["a", "b"] and list(draw) == ["fa", "fb"]


@pytest.mark.parametrize("twice", ["table", "figure"])
def test_a_name_made_by_two_sections_is_refused(twice):
    second = _built("two", "a" if twice == "table" else "b", "fa" if twice == "figure" else "fb")
    with pytest.raises(ValueError, match="made by two sections"):
        page_parts([_built("one", "a", "fa"), second])
