"""The exact solver's benchmark: per trick contract, the time and nodes of one (position,
contract, seat) value, on one core, for short endings and for full 13-card deals.

Positions come from the engine's deals of ``seed``: deal ``d`` as dealt (full deals), or each
seat keeping ``cards`` random cards of its hand (endings, a fixed draw per deal). Seat 1
leads (the leader under dealer 0); the valued seat turns with the deal (``d % 4``). Each
solve has a node budget: a position that runs out counts as "gave up" and its time and nodes
(the budget's) still enter the statistics, which are then lower bounds.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from bonken_sim.engine.solve import engine_deal, solve_value
from bonken_sim.rules.names import VARIANTS, Variant
from bonken_sim.rules.rulesets import as_ruleset

TRICK_VARIANTS: tuple[Variant, ...] = tuple(v for v in VARIANTS if v.name != "domino")
LEADER = 1  # dealer 0's leader


def ending(seed: int, deal: int, cards: int) -> list[int]:
    """The hands of deal ``deal`` of ``seed``, each cut to ``cards`` of its cards (13: all)."""
    hands, _ = engine_deal(seed, deal)
    if cards >= 13:
        return hands
    rng = random.Random(f"{seed}:{deal}:{cards}")
    kept = [rng.sample([c for c in range(52) if m >> c & 1], cards) for m in hands]
    return [sum(1 << c for c in h) for h in kept]


@dataclass(frozen=True)
class SolverStats:
    """One contract's solves of one kind of position."""

    positions: int
    median_ms: float
    p90_ms: float
    max_ms: float
    median_nodes: int
    max_nodes: int
    gave_up: int
    solves: tuple[dict, ...] = ()  # per position: deal, seat, value (None: gave up), nodes, ms

    def record(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted values (nearest rank, the value at or above q)."""
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def time_contract(
    variant: Variant, positions: int, cards: int, seed: int, max_nodes: int, table_bits: int
) -> SolverStats:
    """Solve ``positions`` positions of ``cards`` cards a seat in ``variant``."""
    rules = as_ruleset(None)
    ms: list[float] = []
    nodes: list[int] = []
    gave_up = 0
    solves = []
    for d in range(positions):
        run = solve_value(
            ending(seed, d, cards), variant, LEADER, d % 4, rules, table_bits, max_nodes
        )
        ms.append(1e3 * run.seconds)
        nodes.append(run.nodes)
        gave_up += run.value is None
        solves.append(
            {"deal": d, "seat": d % 4, "value": run.value, "nodes": run.nodes, "ms": ms[-1]}
        )
    ms.sort()
    return SolverStats(
        positions,
        statistics.median(ms),
        percentile(ms, 0.9),
        ms[-1],
        int(statistics.median(nodes)),
        max(nodes),
        gave_up,
        tuple(solves),
    )


def run_solver_bench(
    endings: int = 50,
    deals: int = 1,
    cards: int = 5,
    max_nodes: int = 1_000_000,
    table_bits: int = 20,
    seed: int = 1,
    variants: tuple[Variant, ...] = TRICK_VARIANTS,
    echo=print,
) -> dict:
    """Time the solver per contract on ``endings`` endings of ``cards`` cards a seat and on
    ``deals`` full deals (0 skips a kind); print a table with ``echo``; return the document."""
    kinds = [(f"{cards}-card endings", cards, endings), ("full deals", 13, deals)]
    kinds = [k for k in kinds if k[2] > 0]
    doc: dict = {
        "seed": seed,
        "leader": LEADER,
        "max_nodes": max_nodes,
        "table_bits": table_bits,
        "kinds": {name: {"cards": c, "positions": n, "contracts": {}} for name, c, n in kinds},
    }
    if not kinds:
        return doc
    solve_value(ending(seed, 0, 1), variants[0], LEADER, 0, as_ruleset(None), table_bits, 1)
    for name, c, n in kinds:
        echo("")
        echo(
            f"solver, {name} ({n} per contract, seed {seed}, seat {LEADER} leads, the valued "
            f"seat turns with the deal): one value on one core; gives up after {max_nodes:,} "
            "nodes"
        )
        echo(
            f"{'contract':14s}{'median ms':>11s}{'p90 ms':>10s}{'max ms':>10s}"
            f"{'median nodes':>14s}{'max nodes':>13s}{'gave up':>9s}"
        )
        for v in variants:
            st = time_contract(v, n, c, seed, max_nodes, table_bits)
            doc["kinds"][name]["contracts"][v.name] = st.record()
            echo(
                f"{v.name:14s}{st.median_ms:11.2f}{st.p90_ms:10.2f}{st.max_ms:10.2f}"
                f"{st.median_nodes:14,d}{st.max_nodes:13,d}{st.gave_up:9d}"
            )
    return doc
