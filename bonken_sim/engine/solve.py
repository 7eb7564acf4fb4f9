"""Exact open-hand values of trick contracts (``bonken-sim solve``): check the position,
allocate the search's table once, call the numba solver (``_core.solver``).

A position is four hands of equal length at the beginning of a trick and the seat to lead;
the last of its tricks is trick 13. The value for a seat is the score it can make sure of in
the remaining tricks when the other three play together against it (docs/SOLVER.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bonken_sim._core import solver as S
from bonken_sim.engine.play import check_dealer, deal_hands, is_domino
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.processes import interruptible
from bonken_sim.rules.names import (
    VARIANTS,
    Variant,
    card_str,
    make_variant,
    mask_cards,
    parse_hand,
    variant_name,
)
from bonken_sim.rules.rulesets import Ruleset, as_ruleset

HandLike = int | str | Sequence[int | str]
DEFAULT_TABLE_BITS = 20  # 2**20 entries of 32 bytes, 32 MiB
# The search stops after this many nodes (a few million a second on one core): a solve
# returns or fails within seconds instead of running for hours on a full deal.
DEFAULT_MAX_NODES = 50_000_000


class NotSolved(UserFixableError, RuntimeError):
    """The search ran out of its node budget before it had the value."""

    def __init__(self, nodes: int, seconds: float) -> None:
        self.nodes = nodes
        self.seconds = seconds
        super().__init__(self.describe("max_nodes"))

    def describe(self, budget: str) -> str:
        """The message, naming the ``budget`` to raise (an argument or an option)."""
        return (
            f"not solved within {self.nodes:,} nodes ({self.seconds:.1f} s); the search grows "
            f"steeply with the cards a seat: try an ending with fewer cards or raise {budget}"
        )


@dataclass(frozen=True)
class SolveResult:
    """The value of a position for one seat, and of every card the leader may play."""

    seat: int
    leader: int
    value: int
    cards: dict[str, int]  # card text -> value for ``seat`` after the leader plays it
    nodes: int
    seconds: float

    @property
    def best(self) -> list[str]:
        """The leader's best cards: the highest values if the leader is ``seat``, else the
        lowest (the others play against ``seat``)."""
        return [c for c, v in self.cards.items() if v == self.value]

    def record(self) -> dict:
        """The ``--json`` document."""
        return {
            "seat": self.seat,
            "leader": self.leader,
            "value": self.value,
            "best": self.best,
            "cards": dict(self.cards),
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }


def _hand_mask(hand: HandLike, seat: int) -> int:
    if isinstance(hand, bool):
        raise BadValue(f"hand of seat {seat}: not a hand: {hand!r}")
    if isinstance(hand, int | np.integer):
        mask = int(hand)
        if not 0 <= mask < 1 << 52:
            raise BadValue(f"hand of seat {seat}: not a mask of 52 cards")
        return mask
    if isinstance(hand, str):
        return parse_hand(hand)
    return parse_hand(" ".join(card_str(c) if isinstance(c, int) else str(c) for c in hand))


def parse_hands(hands: str | Sequence[HandLike]) -> list[int]:
    """Four hands (seat 0 to 3; as text separated by ``/``, or a sequence of masks, card
    texts or card lists) as masks; checks they are disjoint and of one length 1 to 13."""
    items = hands.split("/") if isinstance(hands, str) else list(hands)
    if len(items) != 4:
        raise BadValue(f"give four hands (seat 0 to 3, separated by '/'), got {len(items)}")
    masks = [_hand_mask(h, s) for s, h in enumerate(items)]
    for s in range(4):
        for t in range(s):
            both = masks[s] & masks[t]
            if both:
                card = card_str(mask_cards(both)[0])
                raise BadValue(f"card {card} is in the hands of seat {t} and seat {s}")
    counts = [bin(m).count("1") for m in masks]
    if len(set(counts)) != 1:
        raise BadValue(f"the hands must be of equal length, got {counts} cards")
    if not 1 <= counts[0] <= 13:
        raise BadValue(f"a hand must hold 1 to 13 cards, got {counts[0]}")
    return masks


def _check_seat(seat: int, what: str) -> int:
    if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
        raise BadValue(f"{what} must be a seat 0-3, got {seat!r}")
    return int(seat)


def trick_variant(contract: str | Variant, trump: str | None, rules: Ruleset) -> Variant:
    """The variant to solve; Domino is refused (a row-building race, not tricks)."""
    variant = contract if isinstance(contract, Variant) else make_variant(contract, trump, rules)
    if is_domino(variant, rules):
        raise BadValue(
            "domino cannot be solved: it is a race to empty the hand, not a trick contract "
            "(see docs/SOLVER.md)"
        )
    return variant


class _Scratch:
    """The search's table and stack, allocated once per size (nothing grows across solves);
    one solve at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bits = -1
        self.table = S.new_table(0)
        self.ctx = np.zeros(S.N_CTX, np.int64)
        self.si, self.su = S.new_stack()
        self.values = np.zeros(52, np.int64)

    def ensure(self, bits: int) -> None:
        if bits != self.bits:
            self.table = S.new_table(bits)
            self.table.fill(0)  # touch the pages now, not inside the first timed solve
            self.bits = bits


_SCRATCH = _Scratch()


def solve(
    hands: str | Sequence[HandLike],
    contract: str | Variant,
    trump: str | None,
    leader: int,
    seat: int,
    ruleset: Ruleset | str | dict | None = None,
    table_bits: int = DEFAULT_TABLE_BITS,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> SolveResult:
    """The value for ``seat`` of the position ``hands`` with ``leader`` to lead, in
    ``contract`` (``trump`` for troeven) under ``ruleset`` (default RULES.md).

    >>> r = solve("AS / KS / QS / JS", "troeven", "S", leader=0, seat=0)
    >>> r.value, r.cards
    (10, {'AS': 10})

    Raises ValueError for a bad position, seat, contract or Domino, and NotSolved when the
    search needs more than ``max_nodes`` nodes.
    """
    rules = as_ruleset(ruleset)
    variant = trick_variant(contract, trump, rules)
    masks = parse_hands(hands)
    leader = _check_seat(leader, "the leader")
    seat = _check_seat(seat, "the seat")
    if not 10 <= int(table_bits) <= 28:
        raise BadValue(f"table bits must be 10 to 28, got {table_bits!r}")
    if isinstance(max_nodes, bool) or not 1 <= int(max_nodes) < 2**62:
        raise BadValue(f"the node budget must be a positive number, got {max_nodes!r}")
    row = rules.table[variant.id]
    h = np.array(masks, dtype=np.uint64)
    sc = _SCRATCH

    def locked_solve() -> SolveResult:
        # The lock is taken in the solving thread: an interrupted caller leaves the scratch
        # to the search still running, and the next solve waits for it.
        with sc.lock:
            sc.ensure(int(table_bits))
            start = time.perf_counter()
            value = S.solve_cards(
                h, leader, seat, row, sc.table, sc.ctx, sc.si, sc.su, sc.values, int(max_nodes)
            )
            seconds = time.perf_counter() - start
            nodes = int(sc.ctx[S.C_NODES])
            if sc.ctx[S.C_ABORTED]:
                raise NotSolved(nodes, seconds)
            cards = {
                card_str(c): int(sc.values[c])
                for c in sorted(range(52), key=lambda c: (-(c % 13), -(c // 13)))
                if sc.values[c] != S.NO_VALUE
            }
        return SolveResult(seat, leader, int(value), cards, nodes, seconds)

    # interruptible: a large node budget can mean hours, and Ctrl-C must stop it
    return interruptible(locked_solve)


def trick_variants(ruleset: Ruleset | str | dict | None = None) -> tuple[Variant, ...]:
    """Every contract ``solve`` takes under ``ruleset``, in the game's order: the negative
    contracts (bierkaart where it takes Domino's place, Domino left out) and the troeven."""
    rules = as_ruleset(ruleset)
    return tuple(v for v in VARIANTS if not is_domino(v, rules))


@dataclass(frozen=True)
class ContractSolve:
    """One contract of ``solve_deal``: the seats' results, or ``unsolved`` (the NotSolved of
    the seat whose search ran out of the contract's budget, counting the seats before it)."""

    variant: Variant
    name: str
    results: tuple[SolveResult, ...]
    unsolved: NotSolved | None


def solve_seats(
    hands: str | Sequence[HandLike],
    variant: Variant,
    leader: int,
    seats: Sequence[int],
    rules: Ruleset,
    table_bits: int = DEFAULT_TABLE_BITS,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> tuple[list[SolveResult], NotSolved | None]:
    """``solve`` for each seat of ``seats`` in turn under one budget of ``max_nodes`` nodes
    (each seat gets what the seats before it left): (the results of the seats solved, and
    the NotSolved of the seat whose search ran out, counting the seats before it; None when
    every seat was solved)."""
    results: list[SolveResult] = []
    for seat in seats:
        left = int(max_nodes) - sum(r.nodes for r in results)
        try:
            if left < 1:
                raise NotSolved(0, 0.0)
            results.append(solve(hands, variant, None, leader, seat, rules, table_bits, left))
        except NotSolved as exc:
            exc.nodes += sum(r.nodes for r in results)
            exc.seconds += sum(r.seconds for r in results)
            return results, exc
    return results, None


def solve_deal(
    hands: str | Sequence[HandLike],
    leader: int,
    seats: Sequence[int] = (0, 1, 2, 3),
    ruleset: Ruleset | str | dict | None = None,
    variants: Sequence[Variant] | None = None,
    table_bits: int = DEFAULT_TABLE_BITS,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> list[ContractSolve]:
    """``solve`` for every seat of ``seats`` in every contract of ``variants`` (default:
    trick_variants) of one position; each contract has its own budget of ``max_nodes``
    nodes, shared by its seats. A contract that runs out is reported (``unsolved``) and the
    next one is solved all the same."""
    rules = as_ruleset(ruleset)
    out = []
    for variant in trick_variants(rules) if variants is None else variants:
        results, unsolved = solve_seats(hands, variant, leader, seats, rules, table_bits, max_nodes)
        out.append(ContractSolve(variant, variant_name(variant, rules), tuple(results), unsolved))
    return out


@dataclass(frozen=True)
class ValueRun:
    """One value-only solve (``solve_value``): the value, or None when the node budget ran
    out first."""

    value: int | None
    nodes: int
    seconds: float


def solve_value(
    hands: Sequence[int],
    variant: Variant,
    leader: int,
    seat: int,
    rules: Ruleset,
    table_bits: int = DEFAULT_TABLE_BITS,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> ValueRun:
    """The value alone for ``seat`` (no card values) of the position of four hand masks, as
    other kernels get it from the numba entry point; the benchmark times this. Checks
    nothing: give a position ``parse_hands`` accepts and a trick variant."""
    h = np.array(hands, dtype=np.uint64)
    row = rules.table[variant.id]
    sc = _SCRATCH
    with sc.lock:
        sc.ensure(int(table_bits))
        start = time.perf_counter()
        value = S.solve_value(h, leader, seat, row, sc.table, sc.ctx, sc.si, sc.su, max_nodes)
        seconds = time.perf_counter() - start
        solved = not sc.ctx[S.C_ABORTED]
        return ValueRun(int(value) if solved else None, int(sc.ctx[S.C_NODES]), seconds)


def table_bytes() -> int:
    """Bytes of the solver's transposition table now allocated (fixed per ``table_bits``)."""
    return int(_SCRATCH.table.nbytes)


def engine_deal(seed: int, deal: int, dealer: int = 0) -> tuple[list[int], int]:
    """The four hands of deal ``deal`` of ``seed`` and the seat that leads it (dealer + 1)."""
    return deal_hands(seed, deal), (check_dealer(dealer) + 1) % 4
