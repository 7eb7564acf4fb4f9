"""Advice for a hand without playing: the page's form read into ``advise``'s own options,
and its answer exactly as ``bonken-sim advise`` gives it (the JSON document and the lines
the command prints)."""

from __future__ import annotations

import math
from typing import Any

from bonken_sim.analyses.advise import AdviseError, make_config
from bonken_sim.analyses.advise import advise as run_advise
from bonken_sim.analyses.advise.text import advice_lines
from bonken_sim.errors import BadValue

#: the page's default: a few seconds on two cores, intervals well under a point
DEFAULT_DEALS = 20_000
MAX_DEALS = 1_000_000


class AdviceRequestError(BadValue):
    """A field of the advice form that is not a value advise takes."""


def _text(body: dict[str, Any], key: str, default: str) -> str:
    value = body.get(key, default)
    if value is None:
        return default
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if not isinstance(value, str | int):
        raise AdviceRequestError(f"{key} must be text, got {value!r}")
    return str(value)


def advise_request(body: dict[str, Any]) -> dict[str, Any]:
    """``{"doc": <advise --json>, "text": <its lines>}`` for the form's ``hand``, ``seat``,
    ``available``, ``trump_used``, ``turns_left``, ``deals``, ``seed``, ``strategies`` and
    ``ruleset`` (a preset name; standard when absent)."""
    deals = body.get("deals", DEFAULT_DEALS)
    try:
        n = int(deals)
    except (TypeError, ValueError):
        raise AdviceRequestError(f"deals must be a whole number, got {deals!r}") from None
    if not 2 <= n <= MAX_DEALS:
        raise AdviceRequestError(f"deals must be 2 to {MAX_DEALS:,} here, got {n:,}")
    trump_used = body.get("trump_used", False)
    if not isinstance(trump_used, bool):
        raise AdviceRequestError(f"trump_used must be true or false, got {trump_used!r}")
    ruleset = body.get("ruleset")
    try:
        cfg = make_config(
            hand=_text(body, "hand", ""),
            seat=_text(body, "seat", "chooser"),
            available=_text(body, "available", "all") or "all",
            trump_used=trump_used,
            deals=n,
            seed=body.get("seed") if body.get("seed") not in ("", None) else None,
            strategies=_text(body, "strategies", "basic"),
            ruleset=ruleset if ruleset not in (None, "") else None,
            turns_left=body.get("turns_left") if body.get("turns_left") not in ("", None) else None,
        )
    except AdviseError as exc:
        raise AdviceRequestError(str(exc)) from None
    doc = run_advise(cfg)
    return {"doc": finite(doc), "text": advice_lines(doc)}


def finite(x: Any) -> Any:
    """``x`` with every number JSON cannot hold (a NaN: an interval of one sample) None."""
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x
