"""Hypothesis strategies for what a user or an outside program may hand a decoder: JSON
values of any shape, nesting deeper than any parser takes, documents cut short, text in
other encodings, bytes of no format at all. The property tests of every decoder draw from
here, so that each meets the same hostile inputs."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from hypothesis import strategies as st

#: The examples each property draws: Hypothesis's own default, which meets every strategy
#: here (each draws from a few alternatives per level), few enough that the decoders' tests
#: take seconds in ``make test`` (at 200 they were about 5% of the suite's time, most of it
#: Hypothesis building the nested documents).
EXAMPLES = 100

_KEYS = st.sampled_from(
    ["type", "id", "view", "format", "state", "config", "parts", "seat", "hand", "ruleset",
     "name", "protocol", "card", "contract", "doubles", "schema_version", "deals", "games",
     "", "\u00e9", "\x00"]
)  # fmt: skip
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["QS", "pass", "bukken", "standard", "complete", "bonken-sim-run"])
)


def json_values(max_leaves: int = 30) -> st.SearchStrategy[Any]:
    """Any JSON value: scalars, lists and objects nested a few levels, with the keys and
    words bonken-sim's documents use, so that some values are nearly right."""
    return st.recursive(
        _SCALARS,
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_KEYS | st.text(), inner),
        max_leaves=max_leaves,
    )


def json_objects(max_leaves: int = 30) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object (what most decoders want at the top) with values of any shape."""
    return st.dictionaries(_KEYS, json_values(max_leaves), max_size=8)


@st.composite
def deep_nesting(draw: st.DrawFn) -> str:
    """Lists or objects nested from a few dozen to tens of thousands of levels, closed or
    not: deeper than Python's parser (or ``repr``) can follow."""
    depth = draw(st.integers(min_value=60, max_value=60_000) | st.sampled_from([65, 999, 1000]))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}"), ('[{"x":', "}]")]))
    closed = draw(st.booleans())
    return opener * depth + ("1" + closer * depth if closed else "")


@st.composite
def cut_json(draw: st.DrawFn) -> str:
    """A JSON document cut short (a file truncated by a full disk, a line half written)."""
    text = json.dumps(draw(json_values()))
    return text[: draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))]


@st.composite
def other_encodings(draw: st.DrawFn) -> bytes:
    """A JSON document in an encoding other than UTF-8, or UTF-8 with a byte broken."""
    text = json.dumps(draw(json_objects()), ensure_ascii=False) + "\u00e9"
    how = draw(st.sampled_from(["utf-16", "utf-32", "latin-1", "bom", "broken"]))
    if how == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    if how == "broken":
        data = bytearray(text.encode())
        data[draw(st.integers(0, len(data) - 1))] = draw(st.sampled_from([0x80, 0xC3, 0xFF]))
        return bytes(data)
    return text.encode(how, "replace")


def byte_soups(max_size: int = 300) -> st.SearchStrategy[bytes]:
    """Bytes of no format."""
    return st.binary(max_size=max_size)


def hostile_texts() -> st.SearchStrategy[str]:
    """JSON text that is wrong in any way text can be: any value, nested too deeply, cut
    short, not JSON, ``NaN`` and numbers of thousands of digits."""
    return st.one_of(
        json_values().map(json.dumps),
        deep_nesting(),
        cut_json(),
        st.text(max_size=100),
        st.sampled_from(["NaN", "[Infinity]", '{"id": -Infinity}', "1" * 5000, "", " ", "null"]),
    )


def hostile_bytes() -> st.SearchStrategy[bytes]:
    """Any of ``hostile_texts`` as UTF-8, or bytes in another encoding, or of no format."""
    return st.one_of(
        hostile_texts().map(lambda t: t.encode("utf-8", "surrogatepass")),
        other_encodings(),
        byte_soups(),
    )


def json_paths(value: Any, at: tuple = ()) -> list[tuple]:
    """Every path to a value inside a JSON document (keys and list indices), ``()`` first."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += json_paths(item, (*at, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            found += json_paths(item, (*at, k))
    return found


@st.composite
def mutated(draw: st.DrawFn, doc: dict | list, max_depth: int | None = None) -> tuple[Any, str]:
    """A real document with the value at one path replaced by any JSON value, or the key
    removed: (the copy, what was done, for ``note``). The rest stays right, so a decoder
    meets a value wrong in one place only. ``max_depth``: only paths that short (a document
    of long lists has most of its paths in them)."""
    doc = copy.deepcopy(doc)
    paths = [p for p in json_paths(doc)[1:] if max_depth is None or len(p) <= max_depth]
    path = draw(st.sampled_from(paths))
    parent = functools.reduce(lambda v, k: v[k], path[:-1], doc)
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
        return doc, f"del {path}"
    parent[path[-1]] = draw(json_values(max_leaves=8))
    return doc, f"set {path}"


def toml_text(doc: dict[str, Any]) -> str:
    """``doc`` written as TOML (every table inline, every key quoted): a tiny writer for
    the tests, where tomli_w is not a dependency. A value TOML cannot hold (a lone
    surrogate) gives a document the parser refuses, which is one more hostile input."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float | str):
            return json.dumps(v) if not isinstance(v, float) or v == v else "nan"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"

    return "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in doc.items())


_TOML_SCALARS = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
)


@st.composite
def toml_documents(draw: st.DrawFn, keys: list[str], words: list[Any]) -> dict[str, Any]:
    """A TOML document (as ``tomllib`` reads it) of some of the real ``keys`` (a few
    unknown ones too), each with a value of any type: one of the real ``words`` (so that
    many documents are nearly right), a scalar, a list or a table."""
    scalars = st.sampled_from(words) | _TOML_SCALARS
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=6,
    )
    names = st.sampled_from(keys) | st.text(max_size=10)
    return draw(st.dictionaries(names, values, max_size=6))
