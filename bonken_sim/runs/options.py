"""Validation of user-typed values shared by the CLI and the Python API."""

from __future__ import annotations

import re

MAX_COUNT = 10**12

_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9, "b": 10**9}


def parse_count(text: str | int, what: str = "count", maximum: int = MAX_COUNT) -> int:
    """``1e6``, ``2.5M``, ``10k``, ``1_000_000`` → a positive integer; anything else is an error."""
    if isinstance(text, bool):
        raise ValueError(f"{what} must be a positive whole number, got {text!r}")
    if isinstance(text, int):
        value = text
    else:
        s = str(text).strip().replace("_", "")
        m = re.fullmatch(r"([0-9]*\.?[0-9]+)(?:[eE]([+]?[0-9]+))?([kKmMgGbB]?)", s)
        if not m:
            raise ValueError(
                f"{what} must be a positive whole number like 1e6, 2.5M, 10k or 1_000_000, "
                f"got {text!r}"
            )
        mantissa, exp, suffix = m.groups()
        if exp is not None and int(exp) > 15:
            raise ValueError(f"{what} {text!r} is more than the supported maximum {maximum:,}")
        digits = mantissa.replace(".", "")
        decimals = len(mantissa) - mantissa.index(".") - 1 if "." in mantissa else 0
        scale = 10 ** int(exp or 0) * _SUFFIX.get(suffix.lower(), 1)
        numerator = int(digits) * scale
        if numerator % 10**decimals:
            raise ValueError(f"{what} must be a whole number, got {text!r}")
        value = numerator // 10**decimals
    if value <= 0:
        raise ValueError(f"{what} must be positive, got {text!r}")
    if value > maximum:
        raise ValueError(f"{what} {value:,} is more than the supported maximum {maximum:,}")
    return value


def parse_seed(text: str | int) -> int:
    """A seed: an integer from 0 to 2**64-1 (decimal or 0x hex)."""
    try:
        value = int(str(text).strip().replace("_", ""), 0)
    except ValueError:
        raise ValueError(f"seed must be an integer from 0 to 2**64-1, got {text!r}") from None
    if not 0 <= value < 2**64:
        raise ValueError(f"seed must be an integer from 0 to 2**64-1, got {text!r}")
    return value
