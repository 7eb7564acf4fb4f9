"""benchmarks/callgrind_play.py's split of an instruction count by compiled function: the
callgrind output is read position by position, and each address lands in the function
whose span holds it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "callgrind_play.py"


@pytest.fixture(scope="module")
def cg():
    spec = importlib.util.spec_from_file_location("callgrind_play", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Two functions; relative and repeated positions; a call whose inclusive cost (900) must not
# count at the call site; a second position column (the line), as --dump-instr=yes writes.
CALLGRIND_OUT = """\
# callgrind format
version: 1
positions: instr line
events: Ir
summary: 0

ob=(1) ???
fn=(1) 0x0000000000001000
0x1000 0 5
+4 * 7
+4 * 1
calls=3 0x2000 0
* * 900
-2 0 2
fn=(2) 0x0000000000002000
0x2000 0 300
+1 * 600
0x9000 0 11
totals: 1826
"""

FUNCTION_MAP = (
    "1000 10 _ZN10bonken_sim5_core11play_tricks16_make_trick_loop12_3clocals_3e11play_tricksB2v1\n"
    "2000 8 _ZN10bonken_sim5_core14strategy_basic12troeven_leadB20v8093768766457254938\n"
)


def test_costs_follow_relative_positions_and_skip_a_calls_inclusive_cost(cg):
    costs = cg.instruction_costs(CALLGRIND_OUT)
    assert costs == {0x1000: 5, 0x1004: 7, 0x1008: 1, 0x1006: 2, 0x2000: 300, 0x2001: 600,
                     0x9000: 11}  # fmt: skip


def test_each_address_counts_in_the_function_that_spans_it(cg):
    split = cg.by_function(cg.instruction_costs(CALLGRIND_OUT), FUNCTION_MAP)
    assert split == {
        "play_tricks._make_trick_loop.<locals>.play_tricks": 15,
        "strategy_basic.troeven_lead": 900,
        "(outside the compiled core)": 11,
    }


def test_names_are_the_mangled_parts(cg):
    assert cg.short_name("_ZN10bonken_sim5_core4deal9deal_intoB19v148327958071757605") == (
        "deal.deal_into"
    )
    assert cg.short_name("plain_symbol") == "plain_symbol"


def test_a_workloads_playouts(cg):
    assert cg.playouts("all12", 10) == 120
    assert cg.playouts("troeven", 10) == 50
    assert cg.playouts("games", 10) == 110
