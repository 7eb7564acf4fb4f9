"""What every command shares: the one-line user error (``UserError``, ``call_or_fail``)
and printing lines and JSON."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

import click

from bonken_sim.errors import UserFixableError


class UserError(click.ClickException):
    """A bad input: printed as one line, exit status 2."""

    exit_code = 2


def call_or_fail(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``; the error the user can fix that it raises (a bad value, a file
    that cannot be read) becomes a UserError with the same message. Any other error passes
    through: it is a bug, not the user's mistake (``main.internal_error``)."""
    try:
        return fn(*args, **kwargs)
    except UserFixableError as exc:
        raise UserError(str(exc)) from None


def echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)


# --- JSON output --------------------------------------------------------------------------


def _finite(x: Any) -> bool:
    return not isinstance(x, float) or math.isfinite(x)


def json_ready(x: Any) -> Any:
    """``x`` with every number JSON cannot hold made None (``null``): a NaN is a value that
    could not be computed (the interval or spread of a single sample, the mean of none), and
    an interval (a ``ci95`` key, or one ending in ``_ci95``) with such a bound is None as a
    whole. Tuples become lists."""
    if isinstance(x, dict):
        return {k: _json_value(k, v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [json_ready(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _json_value(key: Any, value: Any) -> Any:
    is_interval = isinstance(key, str) and (key == "ci95" or key.endswith("_ci95"))
    if is_interval and isinstance(value, list | tuple) and not all(map(_finite, value)):
        return None
    return json_ready(value)


def json_text(doc: Any, indent: int | None = None) -> str:
    """``doc`` as a JSON document (``json_ready``: no NaN or Infinity, which JSON has not)."""
    return json.dumps(json_ready(doc), indent=indent, allow_nan=False)


def echo_json(doc: Any, indent: int | None = None) -> None:
    """Print ``doc`` as one JSON document on stdout (``json_text``)."""
    click.echo(json_text(doc, indent))
