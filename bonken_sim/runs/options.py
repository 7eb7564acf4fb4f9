"""Validation of user-typed values shared by the CLI and the Python API: counts and seeds,
and every option of a deal run and a game run."""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Any

from bonken_sim import processes
from bonken_sim.errors import BadValue

if TYPE_CHECKING:
    from bonken_sim.rules.rulesets import Ruleset

MAX_COUNT = 10**12

_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9, "b": 10**9}


_COUNT = re.compile(r"([0-9]*\.?[0-9]+)(?:[eE]([+]?[0-9]+))?([kKmMgGbB]?)")
#: an underscore not between two digits (``_1000``, ``1_000_``, ``1e3_``, ``1__000``)
_STRAY_UNDERSCORE = re.compile(r"(?<![0-9])_|_(?![0-9])")


def parse_count(text: str | int, what: str = "count", maximum: int = MAX_COUNT) -> int:
    """``1e6``, ``2.5M``, ``10k``, ``1_000_000`` → a positive integer; anything else is an error."""
    if isinstance(text, bool):
        raise BadValue(f"{what} must be a positive whole number, got {text!r}")
    if isinstance(text, int):
        value = text
    else:
        s = str(text).strip()
        m = None if _STRAY_UNDERSCORE.search(s) else _COUNT.fullmatch(s.replace("_", ""))
        if not m:
            raise BadValue(
                f"{what} must be a positive whole number like 1e6, 2.5M, 10k or 1_000_000, "
                f"got {text!r}"
            )
        mantissa, exp, suffix = m.groups()
        if exp is not None and int(exp) > 15:
            raise BadValue(f"{what} {text!r} is more than the supported maximum {maximum:,}")
        digits = mantissa.replace(".", "")
        decimals = len(mantissa) - mantissa.index(".") - 1 if "." in mantissa else 0
        scale = 10 ** int(exp or 0) * _SUFFIX.get(suffix.lower(), 1)
        numerator = int(digits) * scale
        if numerator % 10**decimals:
            raise BadValue(f"{what} must be a whole number, got {text!r}")
        value = numerator // 10**decimals
    if value <= 0:
        raise BadValue(f"{what} must be positive, got {text!r}")
    if value > maximum:
        raise BadValue(f"{what} {value:,} is more than the supported maximum {maximum:,}")
    return value


def parse_seed(text: str | int) -> int:
    """A seed: an integer from 0 to 2**64-1 (decimal or 0x hex), underscores only between
    digits as in Python (``1_000``, not ``1_``, ``_1`` or ``1__0``)."""
    try:
        value = int(str(text).strip(), 0)
    except ValueError:
        raise BadValue(f"seed must be an integer from 0 to 2**64-1, got {text!r}") from None
    if not 0 <= value < 2**64:
        raise BadValue(f"seed must be an integer from 0 to 2**64-1, got {text!r}")
    return value


# ---------------------------------------------------------------------------------------
# Run options: each parser takes what a user typed (or a Python value) and returns the value,
# or raises ValueError with the one-line message the command line prints. A deal run turns
# it into RunError, a game run into GameRunError.

MAX_THREADS = 256


def flag(name: str) -> str:
    """The command-line spelling of an option: ``chunk_size`` → ``--chunk-size``."""
    return "--" + name.replace("_", "-")


def default_threads() -> int:
    """The cores this process may run on: the default threads of every kind of run."""
    return processes.usable_cores()


def draw_seed() -> int:
    """The seed of a run (or an advice) given none: 63 random bits from the operating
    system, so that it also fits a signed 64-bit integer."""
    return secrets.randbits(63)


def parse_option_count(value: Any, name: str, maximum: int = MAX_COUNT) -> int:
    """A count option (``deals``, ``chunk_size``, ``games``), named in its message as a flag."""
    return parse_count(value, what=flag(name), maximum=maximum)


def parse_option_seed(value: Any) -> int:
    """``--seed`` of a run (its message names the flag)."""
    try:
        return parse_seed(value)
    except ValueError as exc:
        raise BadValue(f"--{exc}") from None


def parse_threads(value: Any) -> int:
    """``--threads`` of a run: a whole number from 1 to MAX_THREADS."""
    try:
        n = int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        n = -1
    if isinstance(value, bool) or not 1 <= n <= MAX_THREADS:
        raise BadValue(f"--threads must be a whole number from 1 to {MAX_THREADS}, got {value!r}")
    return n


def parse_strategies(value: Any) -> tuple[str, ...]:
    """``--strategies``: one strategy or four, as their names."""
    from bonken_sim.engine.strategies import parse_strategies as parse
    from bonken_sim.engine.strategies import strategy_names

    try:
        return tuple(strategy_names(parse(value)).split(","))
    except ValueError as exc:
        raise BadValue(f"--strategies: {exc}") from None


def parse_contracts(value: Any, ruleset: Ruleset | None = None) -> tuple[str, ...]:
    """``--contracts``: variant names under ``ruleset`` (rules.variant_names: bierkaart in
    Domino's slot; None: RULES.md)."""
    from bonken_sim.rules.names import parse_variants, variant_names
    from bonken_sim.rules.rulesets import STANDARD

    ruleset = STANDARD if ruleset is None else ruleset
    text = value if isinstance(value, str) else ",".join(str(v) for v in value)
    names = variant_names(ruleset)
    try:
        return tuple(names[v.id] for v in parse_variants(text, ruleset))
    except ValueError as exc:
        raise BadValue(f"--contracts: {exc}") from None


def parse_dealer(value: Any) -> int:
    """``--dealer``: a seat 0-3."""
    if str(value).strip() not in ("0", "1", "2", "3"):
        raise BadValue(f"--dealer must be a seat 0-3, got {value!r}")
    return int(str(value).strip())


def parse_ruleset(ruleset: Any, rules_file: Any) -> Ruleset:
    """``--ruleset`` (a Ruleset, a preset name or a ruleset record) or ``--rules-file``."""
    from bonken_sim.rules.rulesets import RulesError, as_ruleset, resolve

    try:
        if rules_file is not None or isinstance(ruleset, str | type(None)):
            return resolve(ruleset, rules_file)
        return as_ruleset(ruleset)
    except RulesError as exc:
        raise BadValue(str(exc)) from None


def parse_order(value: str | None) -> str:
    """``--order`` of a game run: free or fixed (None: free)."""
    order = "free" if value is None else value
    if order not in ("free", "fixed"):
        raise BadValue(f"--order must be free or fixed, got {order!r}")
    return order


def parse_doubling(value: Any) -> bool:
    """``--doubling`` of a game run: on or off, or a bool (None: on)."""
    if value is None:
        return True
    if isinstance(value, str):
        if value not in ("on", "off"):
            raise BadValue(f"--doubling must be on or off, got {value!r}")
        return value == "on"
    return bool(value)
