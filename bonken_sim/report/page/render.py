"""HTML and Markdown pages of the report, from sections of figures and tables.

The HTML is one self-contained file that works when copied alone: each figure is its SVG
inlined (sharp on any screen, and smaller than the PNG at the page's size), the CSS is
inline, and the CSV behind each figure is embedded as text, so its download link (and the
figure's SVG link) hands the file over from the page itself, folder or not. Without the
report's folder (``files``) the figures fall back to their PNG bytes, inlined as base64.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass
class FigureItem:
    name: str  # file stem: figures/<name>.png|svg
    title: str
    caption: str  # how to read it: plain text, paragraphs split on blank lines
    tables: Sequence[str]  # CSV stems behind it: tables/<stem>.csv
    png: bytes = b""
    #: one line of "what this means", computed from the run's numbers (never typed in)
    meaning: str = ""


@dataclass
class Section:
    title: str
    intro: str
    figures: list[FigureItem] = field(default_factory=list)
    #: small tables shown in the page itself: (caption, frame already formatted as text)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    note: str = ""
    #: sentences for the page's "Key findings", computed from the run's numbers, in the
    #: order they should be read; the page gathers them from every section at its top
    findings: list[str] = field(default_factory=list)
    #: how many of its leading findings the page's "Key findings" lift to the top (the
    #: section itself opens with all of them)
    key: int = 1


def key_findings(sections: Sequence[Section]) -> list[str]:
    """The leading findings of every section (``key`` of each), in section order: the few
    sentences a reader should take away, each section's others stay in the section."""
    return [f for s in sections for f in s.findings[: s.key]]


def _anchor(title: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-")


def _paras(text: str) -> str:
    return "".join(f"<p>{html.escape(p.strip())}</p>" for p in text.split("\n\n") if p.strip())


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;
 background:#fafafa;line-height:1.45}
main{max-width:1120px;margin:0 auto;padding:1.5rem 2rem 4rem;background:#fff}
h1{margin:.2rem 0 .3rem;overflow-wrap:anywhere}
h2{margin-top:2.6rem;border-bottom:2px solid #ddd;padding-bottom:.2rem}
h3{margin-top:1.8rem}
table{border-collapse:collapse;font-size:.88rem;margin:.6rem 0 1rem}
th,td{border:1px solid #ddd;padding:.25rem .55rem;text-align:right}
th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}
figure{margin:1rem 0 2rem}figure img,figure svg{width:100%;height:auto;border:1px solid #eee}
.plot{overflow-x:auto}.plot svg{min-width:720px}
table{display:block;overflow-x:auto;max-width:100%}
@media (max-width:600px){main{padding:1rem .6rem 3rem}td{white-space:nowrap}}
figcaption{font-size:.92rem;color:#333}figcaption p{margin:.35rem 0}
.files{font-size:.85rem;color:#555}.meta td{text-align:left}
.guide{background:#f5f8fc;border-left:4px solid #1f77b4;padding:.4rem 1rem;margin:1rem 0}
.note{color:#8a5300}
.findings{background:#f3faf3;border-left:4px solid #2ca02c;padding:.3rem 1rem;margin:1rem 0}
.findings h2{margin-top:.6rem;border:0}.findings li{margin:.3rem 0}
.section-findings{background:#f7f7f2;padding:.5rem 1rem .5rem 2rem;margin:.6rem 0 1rem}
.meaning{color:#222}
"""


def _table_html(frame: pd.DataFrame, cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    c = f' class="{cls}"' if cls else ""
    return f"<table{c}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _items(texts: Sequence[str]) -> str:
    """Plain texts as escaped list items."""
    return "".join(f"<li>{html.escape(t)}</li>" for t in texts)


def _findings_html(findings: Sequence[str]) -> list[str]:
    if not findings:
        return []
    items = _items(findings)
    head = '<section class="findings" id="key-findings"><h2>Key findings</h2>'
    return [f"{head}<ul>{items}</ul></section>"]


def html_page(
    title: str,
    meta: Sequence[tuple[str, str]],
    guide: Sequence[str],
    sections: list[Section],
    files: Path | None = None,
) -> str:
    """The page. ``files``: the report's folder, whose figures/<name>.svg are inlined and
    tables/<name>.csv embedded (without it: the PNG bytes, and links to the folder)."""
    embedded: dict[str, str] = {}
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>{html.escape(title)}</h1>",
        *_findings_html(key_findings(sections)),
        _table_html(pd.DataFrame(meta, columns=["run", ""]), "meta"),
        '<div class="guide"><h3>How to read this report</h3><ul>',
        _items(guide),
        "</ul></div>",
        "<nav><h3>Contents</h3><ol>",
        *(f'<li><a href="#{_anchor(s.title)}">{html.escape(s.title)}</a></li>' for s in sections),
        "</ol></nav>",
    ]
    for s in sections:
        parts.append(f'<h2 id="{_anchor(s.title)}">{html.escape(s.title)}</h2>')
        parts.append(_paras(s.intro))
        if s.findings:
            parts.append(f'<ul class="section-findings">{_items(s.findings)}</ul>')
        if s.note:
            parts.append(f'<p class="note">{html.escape(s.note)}</p>')
        for caption, frame in s.tables:
            parts.append(f"<h3>{html.escape(caption)}</h3>")
            parts.append(_table_html(frame))
        for f in s.figures:
            parts.append(_figure_html(f, files, embedded))
    # Records on <body> how many figures the browser decoded: a headless browser's
    # --dump-dom then shows whether the page rendered (the screenshot test reads it).
    parts.append(_SCRIPT)
    parts += [_embedded_csv(name, text) for name, text in embedded.items()]
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


# Records on <body> how many figures the browser drew (an inline SVG with a size, or a
# decoded image): a headless browser's --dump-dom then shows whether the page rendered (the
# screenshot test reads it). Then a click on a download link of an embedded file hands over
# the page's own copy, so the links work when the page is copied without its folder.
_SCRIPT = r"""<script>
addEventListener('load',()=>{const f=[...document.querySelectorAll('figure')];
const ok=f.filter(x=>{const e=x.querySelector('svg,img');if(!e)return false;
if(e.tagName==='IMG'&&!(e.complete&&e.naturalWidth>0))return false;
return e.getBoundingClientRect().width>0});
document.body.dataset.figuresShown=ok.length+'/'+f.length});
document.addEventListener('click',ev=>{const a=ev.target.closest('a[data-embed],a[data-svg]');
if(!a)return;ev.preventDefault();let text,type;
if(a.dataset.embed){text=document.getElementById(a.dataset.embed).textContent
.replaceAll('<\\/','</');type='text/csv'}
else{const s=document.getElementById(a.dataset.svg).querySelector('svg');
text='<?xml version="1.0" encoding="utf-8"?>\n'+s.outerHTML;type='image/svg+xml'}
const u=URL.createObjectURL(new Blob([text],{type}));const l=document.createElement('a');
l.href=u;l.download=a.getAttribute('download');document.body.append(l);l.click();l.remove();
setTimeout(()=>URL.revokeObjectURL(u),1000)});
</script>"""


def _figure_html(f: FigureItem, files: Path | None, embedded: dict[str, str]) -> str:
    """A figure with its title, "what this means", caption and download links; the CSVs
    it links to are added to ``embedded`` (name → text) when ``files`` has them."""
    svg_file = files / "figures" / f"{f.name}.svg" if files is not None else None
    if svg_file is not None and svg_file.is_file():
        # a narrow screen scrolls the figure rather than shrinking its text out of reach
        image = (
            f'<div class="plot">{inline_svg(svg_file.read_text("utf-8"), f.name, f.title)}</div>'
        )
        links = [
            f'<a href="figures/{f.name}.svg" download="{f.name}.svg" data-svg="{f.name}">SVG</a>'
        ]
    else:
        data = base64.b64encode(f.png).decode("ascii")
        image = f'<img src="data:image/png;base64,{data}" alt="{html.escape(f.title)}">'
        links = [
            f'<a href="figures/{f.name}.svg">SVG</a>',
            f'<a href="figures/{f.name}.png">PNG</a>',
        ]
    for t in f.tables:
        csv = files / "tables" / f"{t}.csv" if files is not None else None
        if csv is not None and csv.is_file():
            embedded.setdefault(t, csv.read_text("utf-8"))
            links.append(
                f'<a href="tables/{t}.csv" download="{t}.csv" data-embed="csv-{t}">{t}.csv</a>'
            )
        else:
            links.append(f'<a href="tables/{t}.csv">{t}.csv</a>')
    meaning = (
        f'<p class="meaning"><b>What this means:</b> {html.escape(f.meaning)}</p>'
        if f.meaning
        else ""
    )
    return "\n".join(
        [
            f'<figure id="{f.name}"><h3>{html.escape(f.title)}</h3>',
            image,
            f"<figcaption>{meaning}{_paras(f.caption)}",
            f'<p class="files">Files: {" · ".join(links)}</p></figcaption></figure>',
        ]
    )


def _embedded_csv(name: str, text: str) -> str:
    # a script element's text ends at "</": escaped here, restored by the page's script
    safe = text.replace("</", "<\\/")
    return f'<script type="text/csv" id="csv-{name}">{safe}</script>'


_SVG_HEAD = re.compile(r"\A.*?<svg\b", re.S)
_SVG_SIZE = re.compile(r'\s(width|height)="[^"]*pt"')
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_IDS = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')


def inline_svg(svg: str, name: str, title: str) -> str:
    """A matplotlib SVG file as an element of the page: without its XML prologue, metadata
    and fixed size (the page's CSS scales it to the column), its ids prefixed with
    ``name`` so that figures sharing the page cannot take each other's clip paths."""
    svg = _METADATA.sub("", _SVG_HEAD.sub("<svg", svg, count=1), count=1)
    head_end = svg.index(">")
    svg = _SVG_SIZE.sub("", svg[:head_end], count=2) + svg[head_end:]
    svg = _IDS.sub(lambda m: f"{m.group(1)}{name}-{m.group(2)}", svg)
    label = f' role="img" aria-label="{html.escape(title)}"'
    return svg.replace("<svg", "<svg" + label, 1)


def _md_table(frame: pd.DataFrame) -> str:
    def cell(v) -> str:
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(cell(c) for c in frame.columns) + " |"
    sep = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join([head, sep, *rows])


def markdown_page(
    title: str, meta: Sequence[tuple[str, str]], guide: Sequence[str], sections: list[Section]
) -> str:
    out = [f"# {title}", ""]
    findings = key_findings(sections)
    if findings:
        out += ["## Key findings", ""] + [f"- {f}" for f in findings] + [""]
    out += [_md_table(pd.DataFrame(meta, columns=["run", ""])), ""]
    out += ["## How to read this report", ""] + [f"- {g}" for g in guide] + [""]
    for s in sections:
        out += [f"## {s.title}", "", s.intro.strip(), ""]
        out += [f"- {f}" for f in s.findings] + ([""] if s.findings else [])
        if s.note:
            out += [f"*{s.note}*", ""]
        for caption, frame in s.tables:
            out += [f"### {caption}", "", _md_table(frame), ""]
        for f in s.figures:
            files = ", ".join(
                [f"[SVG](figures/{f.name}.svg)"] + [f"[{t}.csv](tables/{t}.csv)" for t in f.tables]
            )
            out += [
                f"### {f.title}",
                "",
                f"![{f.title}](figures/{f.name}.png)",
                "",
                *([f"**What this means:** {f.meaning}", ""] if f.meaning else []),
                *(p.strip() + "\n" for p in f.caption.split("\n\n") if p.strip()),
                f"Files: {files}",
                "",
            ]
    return "\n".join(out).rstrip() + "\n"
