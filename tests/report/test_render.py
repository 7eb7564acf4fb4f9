"""The page's frame: key findings gathered from the sections at the top, and a figure's
"what this means" line under it, in HTML and Markdown alike."""

from bonken_sim.report.render import FigureItem, Section, html_page, key_findings, markdown_page


def _sections() -> list[Section]:
    fig = FigureItem("f1", "A figure", "How to read it.", ["t1"], meaning="Seat 1 pays most.")
    return [
        Section("1. One", "intro one", [fig], findings=["First finding."]),
        Section("2. Two", "intro two", findings=["Second finding.", "Third finding."]),
        Section("3. Three", "intro three"),
    ]


def test_key_findings_are_gathered_in_section_order():
    assert key_findings(_sections()) == ["First finding.", "Second finding.", "Third finding."]


def test_html_opens_with_the_findings_and_shows_the_meaning_under_the_figure():
    page = html_page("T", [("seed", "1")], ["a guide"], _sections())
    assert page.index("Key findings") < page.index("How to read this report")
    assert page.index("First finding.") < page.index("Third finding.")
    assert "What this means:</b> Seat 1 pays most." in page
    assert page.index("Seat 1 pays most.") > page.index("A figure")


def test_markdown_opens_with_the_findings_and_shows_the_meaning():
    page = markdown_page("T", [("seed", "1")], ["a guide"], _sections())
    assert page.index("## Key findings") < page.index("## How to read this report")
    assert "- Second finding." in page
    assert "**What this means:** Seat 1 pays most." in page


def test_no_findings_no_block():
    page = html_page("T", [], [], [Section("1. One", "intro")])
    assert "Key findings" not in page
    assert "## Key findings" not in markdown_page("T", [], [], [Section("1. One", "intro")])
