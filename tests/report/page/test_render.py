"""The page's frame: key findings gathered from the sections at the top, and a figure's
"what this means" line under it, in HTML and Markdown alike."""

import re

from bonken_sim.report.page.render import (
    FigureItem,
    Section,
    html_page,
    inline_svg,
    key_findings,
    markdown_page,
)


def _sections() -> list[Section]:
    fig = FigureItem("f1", "A figure", "How to read it.", ["t1"], meaning="Seat 1 pays most.")
    return [
        Section("1. One", "intro one", [fig], findings=["First finding."]),
        Section("2. Two", "intro two", findings=["Second finding.", "Third finding."], key=2),
        Section("3. Hidden", "intro", findings=["Lead.", "Only in its section."]),
        Section("3. Three", "intro three"),
    ]


def test_key_findings_are_gathered_in_section_order():
    assert key_findings(_sections()) == [
        "First finding.",
        "Second finding.",
        "Third finding.",
        "Lead.",
    ]


def test_a_section_shows_all_its_findings_the_top_only_its_key_ones():
    page = html_page("T", [], [], _sections())
    top = page[: page.index("How to read")] if "How to read" in page else page
    assert "Only in its section." not in top.split("</section>")[0]
    assert page.count("Only in its section.") == 1
    assert page.index("Only in its section.") > page.index("3. Hidden")
    md = markdown_page("T", [], [], _sections())
    assert md.count("Only in its section.") == 1
    assert md.index("Only in its section.") > md.index("## 3. Hidden")


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


_SVG = """<?xml version="1.0" encoding="utf-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="792pt" height="300pt" viewBox="0 0 792 300">
 <metadata><rdf:RDF>date</rdf:RDF></metadata>
 <defs><clipPath id="p1"><rect x="0" y="0" width="10" height="10"/></clipPath></defs>
 <g id="axes_1" clip-path="url(#p1)"><use xlink:href="#m2" x="1"/></g>
</svg>
"""


def test_inline_svg_is_an_element_with_its_own_ids():
    svg = inline_svg(_SVG, "fig_a", "A <title>")
    assert svg.startswith('<svg role="img" aria-label="A &lt;title&gt;"')
    assert "<?xml" not in svg and "DOCTYPE" not in svg and "<metadata>" not in svg
    assert 'width="792pt"' not in svg and 'viewBox="0 0 792 300"' in svg
    assert 'id="fig_a-p1"' in svg and "url(#fig_a-p1)" in svg and 'href="#fig_a-m2"' in svg
    assert 'id="p1"' not in inline_svg(_SVG, "fig_b", "B")


def _folder(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "tables").mkdir()
    (tmp_path / "figures" / "f1.svg").write_text(_SVG)
    (tmp_path / "tables" / "t1.csv").write_text("a,b\n1,</script>\n")
    return tmp_path


def test_a_page_with_its_folder_inlines_figures_and_embeds_tables(tmp_path):
    page = html_page("T", [], [], _sections(), _folder(tmp_path))
    assert '<svg role="img"' in page and "data:image/png" not in page
    assert 'data-embed="csv-t1"' in page and 'data-svg="f1"' in page
    body = re.search(r'<script type="text/csv" id="csv-t1">(.*?)</script>', page, re.S)
    assert body and body.group(1).replace("<\\/", "</") == "a,b\n1,</script>\n"
    assert 'href="figures/f1.png"' not in page  # the PNG is the Markdown page's


def test_a_page_without_its_folder_falls_back_to_the_png():
    page = html_page("T", [], [], _sections())
    assert '<img src="data:image/png;base64,' in page and "<svg" not in page
