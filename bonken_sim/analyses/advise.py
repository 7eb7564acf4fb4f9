"""``bonken-sim advise``: which contract to choose and whom to double, for one known hand.

Conditional Monte Carlo: the player's 13 cards stay at his seat, the other 39 are dealt at
random (``_core/conditional.py``), and every contract variant that can still be chosen is
played on the same deals with the chosen strategies. A contract is judged by its value
relative to its own average for the same seat (STRATEGIES.md §4: every contract is played
once per game, so choosing c now gains ``EV_c(hand) − μ_c``). ``μ_c`` is measured on the fly
on as many unconditional deals: deals ``0 … N−1`` of the seed exactly as ``bonken-sim run``
deals and plays them, a stream independent of the conditional one, so the relative value
is a difference of two independent means.

Doubling target t pays ``s_me − s_t`` per unit (RULES.md §5); its mean and the probability
that it is positive come from the same conditional deals. The simulated targets do not react
to being doubled (no redoubles, no stake-aware play).

Statistics are streamed: each chunk of deals is reduced to exact integer sums, so memory does
not grow with ``deals`` and the result does not depend on the thread count or chunk size.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bonken_sim import __version__
from bonken_sim.engine.play import parse_strategies, strategy_array, strategy_names
from bonken_sim.rules.names import (
    VARIANTS,
    Contract,
    Strategy,
    Variant,
    card_str,
    contract_name,
    hand_str,
    mask_cards,
    parse_hand,
    parse_variants,
    variant_name,
)
from bonken_sim.rules.rulesets import STANDARD, RulesError, Ruleset
from bonken_sim.runs.options import parse_count, parse_seed
from bonken_sim.stats import Estimate, diff_ci, mean_ci, wilson_ci

DEALER = 0  # advise always deals with seat 0 as dealer, so seats are the roles below
SEATS = {"dealer": 0, "leader": 1, "chooser": 2, "doubler": 3}
ROLE_OF = {seat: role for role, seat in SEATS.items()}
DOUBLING_ORDER = (3, 0, 1, 2)  # RULES.md §5: D+3, D, D+1, then the chooser
DEFAULT_DEALS = 100_000
CHUNK_DEALS = 4096  # small enough that two threads stay balanced and Ctrl-C is quick


class AdviseError(ValueError):
    """Bad advise input; the message names the option and the bad value."""


@dataclass(frozen=True)
class AdviseConfig:
    """A validated advise request (see ``make_config``)."""

    hand: int  # 52-bit mask of exactly 13 cards
    seat: int  # 0 dealer, 1 leader, 2 chooser, 3 doubler
    variants: tuple[Variant, ...]  # the variants that can still be chosen, by id
    trump_used: bool
    deals: int
    seed: int
    seed_drawn: bool
    strategies: tuple[Strategy, ...]
    threads: int
    ruleset: Ruleset = STANDARD
    turns_left: int | None = None  # the chooser's turns left, this one included
    reference_run: str | None = None  # a run directory whose means replace the on-the-fly ones

    @property
    def role(self) -> str:
        return ROLE_OF[self.seat]


def parse_hand13(text: str) -> int:
    """Exactly 13 distinct cards in RULES.md §1 notation, any order and separator."""
    try:
        mask = parse_hand(text)
    except ValueError as exc:
        raise AdviseError(f"--hand: {exc}") from None
    n = bin(mask).count("1")
    if n != 13:
        raise AdviseError(f"--hand must hold exactly 13 cards, got {n}: {text.strip()!r}")
    return mask


def parse_seat(text: str) -> int:
    key = str(text).strip().lower()
    if key not in SEATS:
        raise AdviseError(f"--seat must be one of {', '.join(SEATS)}, got {text!r}")
    return SEATS[key]


def choosable_variants(
    available: str, trump_used: bool, ruleset: Ruleset = STANDARD
) -> tuple[Variant, ...]:
    """The variants the chooser can still pick: ``available`` minus troeven if it is used
    (names under ``ruleset``: ``bierkaart`` where it takes Domino's place)."""
    try:
        listed = parse_variants(available, ruleset)
    except ValueError as exc:
        raise AdviseError(f"--available: {exc}") from None
    out = tuple(v for v in listed if not (trump_used and v.contract is Contract.TROEVEN))
    if not out:
        raise AdviseError(
            f"--available {available!r} with --trump-used leaves nothing to choose "
            "(a chooser who has had his troeven must choose a negative contract)"
        )
    return out


def make_config(
    hand: str,
    seat: str = "chooser",
    available: str = "all",
    trump_used: bool = False,
    deals: str | int = DEFAULT_DEALS,
    seed: str | int | None = None,
    strategies: str = "basic",
    threads: int | str | None = None,
    ruleset: str | None = None,
    rules_file: str | None = None,
    turns_left: int | str | None = None,
    reference: str | None = None,
) -> AdviseConfig:
    """Validate user input; every error is an ``AdviseError`` naming the option."""
    from bonken_sim.rules.rulesets import resolve
    from bonken_sim.runs.deals import MAX_THREADS, default_threads

    mask = parse_hand13(hand)
    seat_i = parse_seat(seat)
    try:
        rules = resolve(ruleset, rules_file)
    except RulesError as exc:
        raise AdviseError(str(exc)) from None
    variants = choosable_variants(available, trump_used, rules)
    try:
        n = parse_count(deals, what="--deals")
    except ValueError as exc:
        raise AdviseError(str(exc)) from None
    if n < 2:
        raise AdviseError(f"--deals must be at least 2 (a confidence interval needs two), got {n}")
    if seed is None:
        seed_i, drawn = secrets.randbits(63), True
    else:
        try:
            seed_i, drawn = parse_seed(seed), False
        except ValueError as exc:
            raise AdviseError(f"--{exc}") from None
    try:
        strats = parse_strategies(strategies)
    except ValueError as exc:
        raise AdviseError(f"--strategies: {exc}") from None
    if threads is None:
        n_threads = default_threads()
    else:
        try:
            n_threads = int(str(threads).strip())
        except ValueError:
            n_threads = -1
        if not 1 <= n_threads <= MAX_THREADS:
            raise AdviseError(
                f"--threads must be a whole number from 1 to {MAX_THREADS}, got {threads!r}"
            )
    turns = parse_turns_left(turns_left, seat_i)
    ref = None if reference is None else str(reference)
    return AdviseConfig(
        mask, seat_i, variants, trump_used, n, seed_i, drawn, strats, n_threads, rules, turns, ref
    )


MAX_TURNS = 3  # 11 deals, 4 players: nobody chooses more than three times in a game


def parse_turns_left(value: int | str | None, seat: int) -> int | None:
    """``--turns-left K``: the chooser's choosing turns left in the game, this one included."""
    if value is None:
        return None
    try:
        k = int(str(value).strip())
    except ValueError:
        k = 0
    if not 1 <= k <= MAX_TURNS:
        raise AdviseError(
            f"--turns-left must be a whole number from 1 to {MAX_TURNS} (this turn included), "
            f"got {value!r}"
        )
    if seat != SEATS["chooser"]:
        raise AdviseError("--turns-left is for the chooser (--seat chooser)")
    return k


# ---------------------------------------------------------------------------------------
# Playing the deals


def conditional_scores(
    hand: int,
    seat: int,
    variants: np.ndarray,
    strategies: np.ndarray,
    seed: int,
    start: int,
    n: int,
    ruleset: Ruleset = STANDARD,
) -> np.ndarray:
    """Raw scores (n, len(variants), 4) of conditional deals ``start … start+n−1``."""
    from bonken_sim._core.conditional import conditional_batch
    from bonken_sim._core.rng import seed_key

    scores = np.empty((n, len(variants), 4), np.int16)
    conditional_batch(
        seed_key(seed),
        np.uint64(hand),
        seat,
        start,
        DEALER,
        variants,
        strategies,
        ruleset.table,
        scores,
    )
    return scores


def reference_scores(
    variants: np.ndarray,
    strategies: np.ndarray,
    seed: int,
    start: int,
    n: int,
    ruleset: Ruleset = STANDARD,
) -> np.ndarray:
    """Raw scores (n, len(variants), 4) of unconditional deals ``start … start+n−1`` of the
    seed: the deals of ``bonken-sim run --seed S`` (dealer seat 0)."""
    from bonken_sim._core import kernels as K
    from bonken_sim._core.rng import seed_key

    scores = np.empty((n, len(variants), 4), np.int16)
    K.simulate_batch(
        seed_key(seed),
        start,
        DEALER,
        variants,
        strategies,
        ruleset.table,
        np.empty((n, 4), np.uint64),
        scores,
        np.empty((n, len(variants), 4), np.int8),
        np.empty((n, len(variants), 4), np.int8),
    )
    return scores


@dataclass
class Sums:
    """Exact integer sums over deals: per (variant, seat) the score's Σs and Σs²; per
    (variant, target) the doubling difference ``d = s_me − s_t``'s Σd, Σd², #(d > 0) and
    #(d < 0)."""

    n: int
    s1: np.ndarray
    s2: np.ndarray
    d1: np.ndarray
    d2: np.ndarray
    wins: np.ndarray
    losses: np.ndarray

    @classmethod
    def zeros(cls, nv: int) -> Sums:
        z = lambda: np.zeros((nv, 4), np.int64)  # noqa: E731
        return cls(0, z(), z(), z(), z(), z(), z())

    @classmethod
    def of(cls, scores: np.ndarray, me: int) -> Sums:
        s = scores.astype(np.int64)
        d = s[:, :, me : me + 1] - s
        return cls(
            s.shape[0],
            s.sum(0),
            (s * s).sum(0),
            d.sum(0),
            (d * d).sum(0),
            (d > 0).sum(0).astype(np.int64),
            (d < 0).sum(0).astype(np.int64),
        )

    def add(self, other: Sums) -> None:
        self.n += other.n
        for name in ("s1", "s2", "d1", "d2", "wins", "losses"):
            getattr(self, name).__iadd__(getattr(other, name))


def _chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(size, n - start)


@dataclass
class Played:
    """The summed results of both streams and the time they took."""

    cond: Sums
    ref: Sums
    wall_seconds: float
    cpu_seconds: dict[str, float] = field(default_factory=dict)


def play(
    cfg: AdviseConfig,
    chunk: int = CHUNK_DEALS,
    reference: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Played:
    """Play the conditional and the reference deals on ``cfg.threads`` threads.

    The two streams' chunks are made as they are needed and interleaved in one pool, at most
    two per thread in flight (memory stays bounded whatever ``cfg.deals`` is, and Ctrl-C
    cancels what has not started). ``reference=False`` plays the conditional deals only (the
    benchmark times them apart). ``progress(done, total)`` hears of every conditional chunk.
    """
    variants = np.array([v.id for v in cfg.variants], np.int64)
    strat = strategy_array(cfg.strategies)
    nv = len(variants)
    me = cfg.seat
    cpu = {"conditional": 0.0, "reference": 0.0}

    rules = cfg.ruleset

    def cond_task(start: int, n: int) -> tuple[str, Sums, float]:
        c0 = time.thread_time()
        scores = conditional_scores(cfg.hand, me, variants, strat, cfg.seed, start, n, rules)
        return "conditional", Sums.of(scores, me), time.thread_time() - c0

    def ref_task(start: int, n: int) -> tuple[str, Sums, float]:
        c0 = time.thread_time()
        scores = reference_scores(variants, strat, cfg.seed, start, n, rules)
        return "reference", Sums.of(scores, me), time.thread_time() - c0

    def tasks() -> Iterator[tuple[Callable[[int, int], tuple[str, Sums, float]], int, int]]:
        for start, n in _chunks(cfg.deals, chunk):
            yield cond_task, start, n
            if reference:
                yield ref_task, start, n

    totals = {"conditional": Sums.zeros(nv), "reference": Sums.zeros(nv)}
    _load_kernels(reference, rules)
    t0 = time.perf_counter()
    pool = ThreadPoolExecutor(cfg.threads, thread_name_prefix="bonken-advise")
    try:
        pending: list[Future[tuple[str, Sums, float]]] = []
        queue = tasks()
        for fn, start, n in queue:
            pending.append(pool.submit(fn, start, n))
            if len(pending) >= 2 * cfg.threads:
                break
        while pending:
            which, sums, seconds = pending.pop(0).result()
            totals[which].add(sums)
            cpu[which] += seconds
            if progress is not None and which == "conditional":
                progress(totals[which].n, cfg.deals)
            nxt = next(queue, None)
            if nxt is not None:
                fn, start, n = nxt
                pending.append(pool.submit(fn, start, n))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return Played(
        totals["conditional"], totals["reference"], time.perf_counter() - t0, cpu_seconds=cpu
    )


# ---------------------------------------------------------------------------------------
# From sums to advice


def _verdict(e: Estimate) -> str:
    """Does doubling pay? Only when the whole 95% interval of the mean gain is on one side."""
    if e.lo > 0:
        return "pays"
    if e.hi < 0:
        return "loses"
    return "unclear"


def _variant_doc(v: Variant, j: int, cfg: AdviseConfig, played: Played) -> dict[str, Any]:
    me, c, r = cfg.seat, played.cond, played.ref
    expected = mean_ci(c.n, c.s1[j, me], c.s2[j, me])
    average = mean_ci(r.n, r.s1[j, me], r.s2[j, me])
    relative = diff_ci(expected, c.n, average, r.n)
    doubling = []
    for t in DOUBLING_ORDER:
        if t == me:
            continue
        gain = mean_ci(c.n, c.d1[j, t], c.d2[j, t])
        ahead = wilson_ci(int(c.wins[j, t]), c.n)
        behind = wilson_ci(int(c.losses[j, t]), c.n)
        doubling.append(
            {
                "target_seat": t,
                "target_role": ROLE_OF[t],
                **gain.to_dict(),
                "p_profit": ahead.mean,
                "p_profit_ci95": [ahead.lo, ahead.hi],
                "p_loss": behind.mean,
                "p_loss_ci95": [behind.lo, behind.hi],
                "verdict": _verdict(gain),
            }
        )
    return {
        "variant": variant_name(v, cfg.ruleset),
        "contract": contract_name(v, cfg.ruleset),
        "trump": v.trump,
        "expected": expected.to_dict(),
        "average": average.to_dict(),
        "relative": {
            "mean": relative.mean,
            "se": relative.sd,
            "ci95": [relative.lo, relative.hi],
        },
        "doubling": doubling,
    }


def policy_choice(cfg: AdviseConfig, ranked: list[dict[str, Any]]) -> dict[str, Any]:
    """The contract the choice policy (STRATEGIES.md §4, ``choice.choose``) takes, applied to
    the simulated relative values.

    Without ``--turns-left`` the best relative value wins. With it, a chooser who still has
    his troeven calls it when its best option beats the best negative by more than τ_k (the
    fitted threshold for k turns left), and must call it on his last turn (RULES.md §6).
    """
    from bonken_sim.models.choice import load_models

    negatives = [r for r in ranked if r["contract"] != Contract.TROEVEN.label]
    troevens = [r for r in ranked if r["contract"] == Contract.TROEVEN.label]
    k = cfg.turns_left
    if k is None or not troevens:
        return {"variant": ranked[0]["variant"], "rule": "the best value relative to its average"}
    if k == 1 or not negatives:
        return {
            "variant": troevens[0]["variant"],
            "rule": "your last turn with troeven still to call: the best troeven"
            if k == 1
            else "only troeven is available",
        }
    tau = load_models().tau(k)
    gap = troevens[0]["relative"]["mean"] - negatives[0]["relative"]["mean"]
    call = gap > tau
    return {
        "variant": (troevens if call else negatives)[0]["variant"],
        "rule": (
            f"{k} turns left: troeven is called when its best option beats the best negative "
            f"by more than tau_{k} = {tau:.2f} points; here by {gap:+.2f}"
        ),
        "tau": tau,
        "troeven_gap": gap,
    }


def _summary_line(cfg: AdviseConfig, ranked: list[dict[str, Any]], pick: str) -> str:
    best = next(r for r in ranked if r["variant"] == pick)
    rel = best["relative"]
    half = (rel["ci95"][1] - rel["ci95"][0]) / 2
    if cfg.role == "chooser":
        head = f"choose {best['variant']}"
    else:
        head = f"you would like {best['variant']} chosen"
    return (
        f"{head}: your score {best['expected']['mean']:+.2f}, {rel['mean']:+.2f} ± {half:.2f} "
        "relative to its average"
    )


def _model_values(cfg: AdviseConfig) -> dict[str, float]:
    """The fitted choice model's relative value of the hand per variant (what the
    ``game`` profiles decide on), for comparison with the simulation."""
    from bonken_sim.models.choice import load_models, relative_values

    names = [v.name for v in cfg.variants]
    hands = np.array([cfg.hand], np.uint64)
    rel = relative_values(load_models(), hands, cfg.seat, names)[0]
    return {n: float(x) for n, x in zip(names, rel, strict=True)}


def advise(
    cfg: AdviseConfig,
    chunk: int = CHUNK_DEALS,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Simulate and return the advice as one JSON-ready document (see the README).

    ``progress(done, total)`` is called as the conditional deals are played."""
    if cfg.reference_run is not None:
        from bonken_sim.analyses.advise_reference import reference_sums

        t0 = time.perf_counter()
        ref = reference_sums(cfg)
        ref_seconds = time.perf_counter() - t0
        played = play(cfg, chunk=chunk, reference=False, progress=progress)
        played.ref = ref
        played.cpu_seconds["reference_read"] = ref_seconds
        reference = (
            f"the seat's mean over the {ref.n:,} deals of run {cfg.reference_run} "
            "(dealer seat 0, same strategies, ruleset and engine)"
        )
    else:
        played = play(cfg, chunk=chunk, progress=progress)
        reference = (
            f"the seat's mean over deals 0..{cfg.deals - 1} of the seed, unconditional, "
            "as bonken-sim run deals and plays them (dealer seat 0)"
        )
    rows = [_variant_doc(v, j, cfg, played) for j, v in enumerate(cfg.variants)]
    model = _model_values(cfg) if cfg.ruleset.is_standard else {}
    for row in rows:
        row["model_relative"] = model.get(row["variant"])
    ranked = sorted(rows, key=lambda r: -r["relative"]["mean"])
    for i, row in enumerate(ranked, 1):
        row["rank"] = i
    negatives = [r for r in ranked if r["contract"] != Contract.TROEVEN.label]
    troevens = [r for r in ranked if r["contract"] == Contract.TROEVEN.label]
    chosen = {v.id for v in cfg.variants}
    policy = policy_choice(cfg, ranked)
    return {
        "command": "advise",
        "version": __version__,
        "seed": cfg.seed,
        "seed_drawn": cfg.seed_drawn,
        "deals": cfg.deals,
        "seat": cfg.role,
        "seat_index": cfg.seat,
        "dealer": DEALER,
        "hand": [card_str(c) for c in mask_cards(cfg.hand)],
        "hand_text": hand_str(cfg.hand),
        "strategies": strategy_names(cfg.strategies).split(","),
        "ruleset": cfg.ruleset.to_dict(),
        "threads": cfg.threads,
        "trump_used": cfg.trump_used,
        "turns_left": cfg.turns_left,
        "available": [variant_name(v, cfg.ruleset) for v in cfg.variants],
        "not_available": [variant_name(v, cfg.ruleset) for v in VARIANTS if v.id not in chosen],
        "reference": reference,
        "reference_run": cfg.reference_run,
        "recommendation": _summary_line(cfg, ranked, policy["variant"]),
        "policy": policy,
        "ranking": [r["variant"] for r in ranked],
        "best": policy["variant"],
        "best_negative": negatives[0]["variant"] if negatives else None,
        "best_troeven": troevens[0]["variant"] if troevens else None,
        "variants": ranked,
        "seconds": {
            "wall": played.wall_seconds,
            "conditional_cpu": played.cpu_seconds["conditional"],
            "reference_cpu": played.cpu_seconds["reference"],
            **(
                {"reference_read": played.cpu_seconds["reference_read"]}
                if "reference_read" in played.cpu_seconds
                else {}
            ),
        },
    }


def _load_kernels(reference: bool, rules: Ruleset = STANDARD) -> None:
    """Compile or load the kernels on this thread, before the pool calls them from several."""
    variants = np.zeros(1, np.int64)
    strat = np.ones(4, np.int64)
    conditional_scores((1 << 13) - 1, 2, variants, strat, 0, 0, 1, rules)
    if reference:
        reference_scores(variants, strat, 0, 0, 1, rules)


def warm() -> None:
    """Compile (or load from the cache) every kernel advise uses."""
    from bonken_sim._core.conditional import conditional_hands

    _load_kernels(reference=True)
    conditional_hands(np.uint64(0), np.uint64((1 << 13) - 1), 2, 0, np.empty((1, 4), np.uint64))
