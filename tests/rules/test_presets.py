"""The named rulesets (bonken_sim/rules/presets.py): one list of names for every text."""

from __future__ import annotations

from bonken_sim.rules.presets import PRESET_NAMES, PRESET_SUMMARIES, PRESETS, RULESET_HELP


def test_every_preset_is_named_in_the_help_and_summarised():
    assert PRESET_NAMES == tuple(PRESETS)
    for name in PRESETS:
        assert name in RULESET_HELP
        assert PRESETS[name].name == name
    assert set(PRESET_SUMMARIES) == set(PRESETS)
    assert RULESET_HELP == (
        "A named ruleset (house rules): standard, fixed-order, double-points, bierkaart, strict."
    )
