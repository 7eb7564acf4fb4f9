"""A seat's card-play strategy as the commands and the kernels name it: a tier (``random``,
``basic``, ``advanced``), ``expert`` (the strongest card play, the ``expert`` profile's), or an
expert with its own search settings (``expert:K:E:I:N``), parsed from the text a user gives
and turned into the kernels' codes.

``expert`` names the same card play everywhere a name is given: in ``run --strategies`` as in
``game --players``, ``bot --strategy`` and ``decide``. The expert tier at the kernel's default
settings (``Strategy.EXPERT``, 16 samples, no exact endings) is spelt ``expert:16:0``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bonken_sim._core import ids
from bonken_sim.errors import BadValue
from bonken_sim.rules.names import Strategy


def _check_setting(what: str, value: int, lo: int, hi: int, unit: str = "") -> None:
    """BadValue naming the expert's setting ``what`` unless ``lo <= value <= hi``."""
    if not lo <= value <= hi:
        raise BadValue(f"expert {what} must be {lo} to {hi}{unit}, got {value}")


@dataclass(frozen=True)
class Expert:
    """An ``expert`` seat with search settings other than the defaults: ``samples`` (K)
    deals sampled per decision, ``exact_tricks`` (E), the tricks left at which the open-hand
    solver takes over, ``infer`` (I), the candidate deals drawn per sample to weigh them by
    the plays seen (0: no inference), and ``noise`` (N), the percentage of the others' plays
    its model of them takes as random. Its ``int`` is the kernel's strategy code
    (``_core/ids.py``); its name ``expert:K:E`` (``expert:K:E:I`` with inference,
    ``expert:K:E:I:N`` with another noise) is how runs and traces spell it."""

    samples: int = ids.DEFAULT_EXPERT_SAMPLES
    exact_tricks: int = ids.DEFAULT_EXPERT_EXACT_TRICKS
    infer: int = ids.DEFAULT_EXPERT_INFER
    noise: int = ids.DEFAULT_EXPERT_NOISE

    def __post_init__(self) -> None:
        _check_setting("samples", self.samples, 1, ids.EXPERT_SAMPLES_MAX)
        _check_setting("exact tricks", self.exact_tricks, 0, ids.EXPERT_EXACT_MAX)
        _check_setting("inference candidates", self.infer, 0, ids.EXPERT_INFER_MAX)
        _check_setting("inference noise", self.noise, 1, ids.EXPERT_NOISE_MAX, " (percent)")

    @property
    def name(self) -> str:
        if self == STRONGEST_EXPERT:
            return "EXPERT"  # the bare name is the strongest card play's
        name = f"EXPERT:{self.samples}:{self.exact_tricks}"
        if self.infer or self.noise != ids.DEFAULT_EXPERT_NOISE:
            name += f":{self.infer}"
        if self.noise != ids.DEFAULT_EXPERT_NOISE:
            name += f":{self.noise}"
        return name

    def __int__(self) -> int:
        # the noise's bits stay 0 at the default, so codes without it are as they were
        noise = 0 if self.noise == ids.DEFAULT_EXPERT_NOISE else self.noise + 1
        return (
            ids.STRAT_EXPERT
            | self.samples << ids.EXPERT_SAMPLES_SHIFT
            | (self.exact_tricks + 1) << ids.EXPERT_EXACT_SHIFT
            | self.infer << ids.EXPERT_INFER_SHIFT
            | noise << ids.EXPERT_NOISE_SHIFT
        )


# A seat's card-play strategy: a tier, or an expert with its own settings.
SeatStrategy = Strategy | Expert

#: the expert whose card play reads the others' plays (docs/STRATEGIES.md, "Card play that
#: infers"): 20 samples, drawn from two candidate deals each, at about the plain expert's
#: time per decision (the adaptive rollouts pay for the inference)
INFERRING_EXPERT = Expert(20, 0, 2)
#: the expert of the whole-game profile ``expert`` (the strongest): the adaptive rollouts
#: without the inference (a model that is all noise), 24 samples at about the plain expert's
#: time: the strongest card play at that time, among three advanced players and in whole
#: games (docs/STRATEGIES.md)
ADAPTIVE_EXPERT = Expert(24, 0, 1, 100)
#: the card play the bare name ``expert`` names: the strongest one
STRONGEST_EXPERT = ADAPTIVE_EXPERT


def expert(
    samples: int | None = None,
    exact_tricks: int | None = None,
    infer: int | None = None,
    noise: int | None = None,
) -> SeatStrategy:
    """The expert strategy with these settings (``None``: the kernel's default);
    ``Strategy.EXPERT`` itself when all are the defaults (spelt ``expert:16:0``)."""
    settings = Expert(
        ids.DEFAULT_EXPERT_SAMPLES if samples is None else samples,
        ids.DEFAULT_EXPERT_EXACT_TRICKS if exact_tricks is None else exact_tricks,
        ids.DEFAULT_EXPERT_INFER if infer is None else infer,
        ids.DEFAULT_EXPERT_NOISE if noise is None else noise,
    )
    return Strategy.EXPERT if settings == Expert() else settings


def is_expert(strategy: SeatStrategy) -> bool:
    """Whether a seat plays the expert tier (with any settings)."""
    return isinstance(strategy, Expert) or strategy == Strategy.EXPERT


def with_expert_settings(
    strategies: Sequence[SeatStrategy], samples: int | None, exact_tricks: int | None
) -> tuple[SeatStrategy, ...]:
    """Every expert seat of ``strategies`` given these settings (``None`` keeps a seat's)."""
    out: list[SeatStrategy] = []
    for s in strategies:
        if is_expert(s):
            now = s if isinstance(s, Expert) else Expert()
            s = expert(
                now.samples if samples is None else samples,
                now.exact_tricks if exact_tricks is None else exact_tricks,
                now.infer,
                now.noise,
            )
        out.append(s)
    return tuple(out)


def _parse_one(item: str | int | SeatStrategy) -> SeatStrategy:
    if isinstance(item, Strategy | Expert):
        return item
    if isinstance(item, int):
        try:
            return Strategy(item)
        except ValueError:
            raise BadValue(f"unknown strategy id {item}") from None
    text = str(item).strip()
    name, _, settings = text.partition(":")
    if name.lower() == "expert" and settings:
        fields = settings.split(":")
        try:
            if len(fields) > 4:
                raise ValueError("at most four settings")
            return expert(*(int(f) if f else None for f in fields))
        except ValueError as exc:
            raise BadValue(f"bad expert settings {text!r} (expert:K:E:I:N): {exc}") from None
    if name.lower() == "expert":
        return STRONGEST_EXPERT
    try:
        return Strategy[name.upper()]
    except KeyError:
        names = ", ".join(s.name.lower() for s in Strategy)
        raise BadValue(f"unknown strategy {item!r} (expected one of: {names})") from None


def parse_strategies(
    text: str | Sequence[str | int | SeatStrategy],
) -> tuple[SeatStrategy, ...]:
    """``basic`` (all seats) or four names ``basic,random,random,random`` → per-seat
    strategies; ``expert`` is the strongest card play (``STRONGEST_EXPERT``), ``expert:K:E``
    an expert with K samples and E exact tricks,
    ``expert:K:E:I`` one that weighs I candidate deals per sample by the plays seen, and
    ``expert:K:E:I:N`` one whose model of the others' play is N percent random."""
    items = [s.strip() for s in text.split(",")] if isinstance(text, str) else list(text)
    out = [_parse_one(item) for item in items]
    if len(out) == 1:
        out *= 4
    if len(out) != 4:
        raise BadValue(f"give one strategy or four (one per seat), got {len(out)}")
    return tuple(out)


def strategy_name(strategy: SeatStrategy) -> str:
    """How commands, runs, traces and reports spell a seat's strategy: ``expert`` for the
    strongest card play, ``expert:16:0`` for the expert tier at the kernel's defaults (the
    bare name being the strongest's), a tier's or an expert's own name otherwise."""
    if strategy == Strategy.EXPERT:
        return Expert().name.lower()
    return strategy.name.lower()


def strategy_names(strategies: Sequence[SeatStrategy]) -> str:
    return ",".join(strategy_name(s) for s in strategies)


def strategy_array(strategies: Sequence[SeatStrategy]) -> np.ndarray:
    """The kernels' strategy codes, one per seat."""
    return np.array([int(s) for s in strategies], dtype=np.int64)
