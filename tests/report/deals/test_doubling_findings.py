"""The doubling section's words: the rule "a double pays from x high-card points up" is read
from the histograms, so it moves when the data move."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.deals.sections import doubling_findings as DF
from bonken_sim.report.deals.stats.histograms import DIFF_VALUES, Hists, RunStats

VARIANTS = ("bukken", "troeven_H")


def _stats(trump_from: int, negative_up_to: int, count: int = 200) -> RunStats:
    """Every pair's double gains +10 in troeven_H from ``trump_from`` points up (−10 below),
    and +5 in bukken up to ``negative_up_to`` points (−5 above), ``count`` deals a point."""
    h = Hists.empty(len(VARIANTS), [])
    at = {x: int(np.flatnonzero(DIFF_VALUES == x)[0]) for x in (-10, -5, 5, 10)}
    for hcp in range(21):
        h.double["all"][hcp, :, 1, at[10 if hcp >= trump_from else -10]] = count
        h.double["all"][hcp, :, 0, at[5 if hcp <= negative_up_to else -5]] = count
    h.deals = 21 * count
    return RunStats({}, VARIANTS, 0, h)


def test_the_rule_is_read_from_the_data():
    table = DF.break_even(_stats(14, 8))
    trump = table[table["family"] == "troeven"]
    assert (trump["rule"] == "from").all() and (trump["low"] == 14).all()
    negative = table[table["family"] == "the negative contracts"]
    assert (negative["rule"] == "up to").all() and (negative["high"] == 8).all()
    assert np.allclose(trump["mean_gain_there"], 10) and np.allclose(
        negative["share_of_hands"], 9 / 21
    )
    [finding] = DF.rule_findings(table)  # both groups agree: one sentence
    assert "in troeven from 14 high-card points up (33% of hands)" in finding
    assert "in the negative contracts with at most 8 high-card points (43% of hands)" in finding


def test_the_findings_change_when_the_data_change():
    a = DF.rule_findings(DF.break_even(_stats(14, 8)))
    b = DF.rule_findings(DF.break_even(_stats(11, 6)))
    assert a != b and "from 11 high-card points up" in b[0] and "at most 6" in b[0]
    assert DF.hcp_meaning(DF.break_even(_stats(11, 6))) != DF.hcp_meaning(
        DF.break_even(_stats(14, 8))
    )


def test_too_few_deals_give_no_rule():
    assert DF.break_even(_stats(14, 8, count=3)).empty
    assert "too small" in DF.hcp_meaning(pd.DataFrame())


def test_groups_that_disagree_get_a_sentence_each():
    stats = _stats(14, 8)
    chooser_pairs = DF.OPENING_GROUPS["a non-chooser doubling the chooser"]
    at = int(np.flatnonzero(DIFF_VALUES == 10)[0])
    stats.hists.double["all"][:, chooser_pairs, 1, :] = 0
    stats.hists.double["all"][:21, chooser_pairs, 1, at] = 200  # doubling the chooser always pays
    findings = DF.rule_findings(DF.break_even(stats))
    assert len(findings) == 2
    assert "in troeven with any hand" in findings[0] and "from 14" in findings[1]


def test_meanings_count_the_cells_that_pay():
    t = pd.DataFrame(
        {
            "variant": ["bukken", "bukken", "troeven_H"],
            "doubler": ["leader", "chooser", "dealer"],
            "target": ["chooser", "leader", "leader"],
            "n": [500, 500, 500],
            "mean": [2.0, -2.0, -1.0],
            "ci_low": [1.0, -3.0, -1.5],
            "ci_high": [3.0, -1.0, -0.5],
            "p_positive": [0.5, 0.3, 0.2],
            "p_tie": [0.2, 0.2, 0.6],
            "p_negative": [0.3, 0.5, 0.2],
        }
    )
    # the chooser's double back mirrors the first row and dealer → leader is the mirror of
    # leader → dealer: only the first row counts
    text = DF.mean_meaning(t)
    assert "pays in 1 of 1 pair–contract cells" in text and "loses in 0" in text
    assert "Ties are most common in bukken: 20%" in DF.rates_meaning(t)
