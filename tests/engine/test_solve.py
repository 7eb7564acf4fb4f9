"""engine.solve's value-only entry (what the benchmark times) and its fixed-size table."""

from __future__ import annotations

from bonken_sim.engine.solve import engine_deal, parse_hands, solve, solve_value, table_bytes
from bonken_sim.rules.names import make_variant
from bonken_sim.rules.rulesets import as_ruleset


def test_solve_value_agrees_with_solve_and_reports_its_budget():
    rules = as_ruleset(None)
    text = "AS KS 7S 2H 9D / QS 3H 9C 2D 8H / JS 4H 8C 3D TD / TS 5H 7C 4D JD"
    masks = parse_hands(text)
    for name, trump in (("vrouwen", None), ("bukken", None), ("troeven", "D")):
        variant = make_variant(name, trump)
        for seat in range(4):
            run = solve_value(masks, variant, 2, seat, rules)
            full = solve(text, name, trump, 2, seat)
            assert run.value == full.value and run.nodes >= 0 and run.seconds >= 0
    hands, leader = engine_deal(1, 0)
    out = solve_value(hands, make_variant("bukken"), leader, 0, rules, max_nodes=100)
    assert out.value is None and out.nodes >= 100  # gave up: no value


def test_the_table_keeps_its_size():
    rules = as_ruleset(None)
    hands, leader = engine_deal(1, 3)
    for bits in (12, 14):
        for seat in range(4):
            solve_value(hands, make_variant("hartenheer"), leader, seat, rules, bits, 20_000)
            assert table_bytes() == 16 + 32 * 2**bits
