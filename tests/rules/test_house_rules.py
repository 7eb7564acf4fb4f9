"""House rules: the Ruleset model, presets, rules files, the table, and the option fixtures."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import bonken_sim
from bonken_sim import IllegalPlay
from bonken_sim._core.ruleset import (
    ACES_EITHER,
    F_DOMINO_ACES,
    F_DOMINO_NEEDS,
    F_TOTAL,
    build_table,
    standard_table,
)
from bonken_sim.rules.names import parse_variant
from bonken_sim.rules.rulesets import (
    PRESETS,
    STANDARD,
    RulesError,
    Ruleset,
    load_rules_file,
    preset,
    resolve,
)
from tests import reference as ref
from tests.reference.replay import replay_detail
from tests.reference.rules import Rules, deal_total
from tests.rules.fixtures_house_rules import OPTION_FIXTURES

IDS = [f["name"] for f in OPTION_FIXTURES]


# --- the model -----------------------------------------------------------------------------
def test_standard_ruleset_is_the_standard_table_bit_for_bit():
    assert np.array_equal(STANDARD.table, standard_table())
    assert np.array_equal(build_table(), standard_table())
    assert STANDARD.is_standard and STANDARD.zero_sum
    assert PRESETS["fixed-order"].table.tobytes() == standard_table().tobytes()


def test_presets():
    assert set(PRESETS) >= {"standard", "fixed-order", "double-points", "strict"}
    assert preset("fixed_order").order == "fixed"
    dbl = preset("double-points")
    assert np.array_equal(dbl.table[:, F_TOTAL], 2 * standard_table()[:, F_TOTAL])
    assert dbl.zero_sum
    with pytest.raises(RulesError, match="unknown ruleset 'klaverjas'"):
        preset("klaverjas")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_only_the_rows_whose_play_loop_reads_a_rule_set_it(name):
    """The negative and laatste_slag play loops take trump and trump play as constants, the
    troeven loop the heart-lead mode (playout._make_trick_loop): every table must agree."""
    from bonken_sim._core.ruleset import (
        F_BAN_HEART_LEAD,
        F_KIND,
        F_TRUMP,
        F_TRUMP_PLAY,
        HEART_LEAD_FREE,
        KIND_NEGATIVE,
        KIND_TROEVEN,
        LAATSTE_SLAG,
        TRUMP_OPTIONAL,
    )

    t = PRESETS[name].table
    assert t[LAATSTE_SLAG, F_BAN_HEART_LEAD] == HEART_LEAD_FREE
    not_troeven = t[:, F_KIND] != KIND_TROEVEN
    assert (t[not_troeven, F_TRUMP] == -1).all()
    assert (t[not_troeven, F_TRUMP_PLAY] == TRUMP_OPTIONAL).all()
    assert (t[t[:, F_KIND] != KIND_NEGATIVE, F_BAN_HEART_LEAD] == HEART_LEAD_FREE).all()
    strict = build_table(heart_lead=2, trump_play=2)
    assert (strict[strict[:, F_KIND] != KIND_NEGATIVE, F_BAN_HEART_LEAD] == 0).all()
    assert strict[LAATSTE_SLAG, F_BAN_HEART_LEAD] == 0
    assert (strict[strict[:, F_KIND] != KIND_TROEVEN, F_TRUMP_PLAY] == 0).all()


def test_round_trip_through_the_record():
    for r in PRESETS.values():
        assert Ruleset.from_dict(r.to_dict()) == r


@pytest.mark.parametrize(
    "change, key",
    [
        ({"heart_lead": "sometimes"}, "heart_lead"),
        ({"trump_play": "never"}, "trump_play"),
        ({"domino_open": 6}, "domino_open"),
        ({"domino_aces": "low"}, "domino_aces"),
        ({"domino_ace_or_two": 1}, "domino_ace_or_two"),
        ({"chooser_doubles": "yes"}, "chooser_doubles"),
        ({"order": "random"}, "order"),
        ({"doubling": "yes"}, "doubling"),
        ({"name": ""}, "name"),
    ],
)
def test_impossible_option_values_name_the_key(change, key):
    with pytest.raises(RulesError, match=key):
        Ruleset(**change)


# A value of the wrong type for each option: refused with the key named, never looked up
# (a list or table is unhashable) or taken as a number (7.0 == 7).
WRONG_TYPES = {
    "name": ('["x"]', "{ a = 1 }", "5", "2020-01-01"),
    "heart_lead": ('["free"]', "{ a = 1 }", "5", "true"),
    "trump_play": ('["x"]', "{ a = 1 }", "1.5", "true"),
    "domino_open": ("[7]", "{ a = 1 }", "7.0", "true"),
    "domino_aces": ('["x"]', "{ a = 1 }", "1", "false"),
    "domino_ace_or_two": ("[true]", "{ a = 1 }", "1", '"true"'),
    "order": ('["free"]', "{ a = 1 }", "0", "true"),
    "doubling": ("[true]", "{ a = 1 }", "1", '"on"'),
    "chooser_doubles": ("[true]", "{ a = 1 }", "0.0", '"yes"'),
}


@pytest.mark.parametrize(
    "key, value", [(k, v) for k, values in WRONG_TYPES.items() for v in values]
)
def test_a_value_of_the_wrong_type_names_the_file_and_key(tmp_path, key, value):
    p = tmp_path / "q.toml"
    p.write_text(f"{key} = {value}\n")
    with pytest.raises(RulesError) as err:
        load_rules_file(p)
    assert str(err.value).startswith(f"rules file {p}: {key} = ")
    assert "is not allowed (expected " in str(err.value)


@pytest.mark.parametrize(
    "change, key",
    [
        ({"heart_lead": ["free"]}, "heart_lead"),
        ({"trump_play": {"a": 1}}, "trump_play"),
        ({"domino_aces": ["high"]}, "domino_aces"),
        ({"order": ["free"]}, "order"),
        ({"domino_open": 7.0}, "domino_open"),
        ({"points": 5}, "points"),
        ({"points": ((1, 2, 3),)}, "points"),
    ],
)
def test_a_record_value_of_the_wrong_type_names_the_key(change, key):
    with pytest.raises(RulesError, match=f"ruleset: {key} = "):
        Ruleset(**change)
    record = {**STANDARD.to_dict(), **change}
    if key != "points":  # a record's points are read as a table first
        with pytest.raises(RulesError, match=f"record: {key} = "):
            Ruleset.from_dict(record, where="record")


def test_record_errors_name_the_key():
    d = STANDARD.to_dict()
    with pytest.raises(RulesError, match="unknown key 'extra'"):
        Ruleset.from_dict({**d, "extra": 1})
    d2 = dict(d)
    del d2["order"]
    with pytest.raises(RulesError, match="missing key 'order'"):
        Ruleset.from_dict(d2)
    d3 = copy.deepcopy(d)
    del d3["points"]["vrouwen.queen"]
    with pytest.raises(RulesError, match="points.vrouwen.queen"):
        Ruleset.from_dict(d3)


def test_records_from_before_the_domino_options_still_read():
    d = STANDARD.to_dict()
    del d["domino_aces"], d["domino_ace_or_two"]
    assert Ruleset.from_dict(d) == STANDARD
    assert Rules.from_record(d) == Rules.from_record(STANDARD.to_dict())


def test_chooser_doubles_in_the_table_the_record_and_in_words(tmp_path):
    from bonken_sim._core.ruleset import F_CHOOSER_STARTS
    from bonken_sim.rules.rulesets import load_rules_file

    path = tmp_path / "r.toml"
    path.write_text('preset = "standard"\nname = "club"\nchooser-doubles = true\n')
    r = load_rules_file(path)
    assert r.chooser_doubles and not r.is_standard
    assert np.all(r.table[:, F_CHOOSER_STARTS] == 1)
    assert np.all(STANDARD.table[:, F_CHOOSER_STARTS] == 0)
    assert r.to_dict()["chooser_doubles"] is True and "chooser_doubles" not in STANDARD.to_dict()
    assert Ruleset.from_dict(r.to_dict()) == r
    words = " ".join(r.describe(width=1000))
    assert "the chooser may start doubles, like the other players  (changed)" in words
    assert "the chooser only doubles back" in " ".join(STANDARD.describe(width=1000))


def test_domino_options_in_the_table_and_in_words():
    r = Ruleset(name="x", domino_aces="first-fixes", domino_ace_or_two=True)
    std = STANDARD.table
    assert np.all(r.table[:, F_DOMINO_ACES] == ACES_EITHER) and np.all(std[:, F_DOMINO_ACES] == 0)
    assert np.all(r.table[:, F_DOMINO_NEEDS] == 1) and np.all(std[:, F_DOMINO_NEEDS] == 0)
    words = " ".join(r.describe(width=1000))
    assert "domino aces (first-fixes): the first ace laid fixes where aces go" in words
    assert "only a chooser holding an ace or a 2 may choose it" in words
    assert "(changed)" in words.split("domino aces")[1]


def test_domino_rows_grow_to_the_ace_in_words():
    # RULES.md §4: a row runs 2 … A (the ace above the king); "up to the king" was wrong.
    words = " ".join(STANDARD.describe(width=1000))
    assert "domino: rows open with the 8s and grow one rank at a time up to the ace and " in words
    assert "up to the king" not in words.split("domino aces")[0]
    assert "domino aces (high): an ace goes above the king only" in words


def test_a_game_that_does_not_sum_to_zero_is_allowed_and_reported():
    pts = dict(STANDARD.point, **{"troeven.trick": 12})
    r = Ruleset(name="x", points=tuple(pts.items()))
    assert not r.zero_sum and r.game_total() == 4 * 13 * 2
    assert any("does not sum to zero" in line for line in r.describe())
    assert r.table[7, F_TOTAL] == 13 * 12


# --- rules files -----------------------------------------------------------------------------
def _write(tmp_path, text):
    p = tmp_path / "club.toml"
    p.write_text(text)
    return p


def test_rules_file_preset_plus_overrides(tmp_path):
    p = _write(
        tmp_path,
        'preset = "fixed-order"\nheart-lead = "broken"\ntrump_play = "must-trump"\n'
        'domino_open = 7\ndoubling = false\ndomino-aces = "First_Fixes"\n'
        "domino_ace_or_two = true\n\n[points]\nvrouwen.queen = -25\n"
        "[points.herenboeren]\nking = -15\n",
    )
    r = load_rules_file(p)
    assert r.name == "club"
    assert (r.order, r.heart_lead, r.trump_play, r.domino_open, r.doubling) == (
        "fixed",
        "broken",
        "must-trump",
        7,
        False,
    )
    assert r.point["vrouwen.queen"] == -25 and r.point["herenboeren.king"] == -15
    assert r.point["herenboeren.jack"] == -10
    assert (r.domino_aces, r.domino_ace_or_two) == ("first-fixes", True)
    assert resolve(rules_file=p) == r


def test_rules_file_in_a_rules_table_with_a_name(tmp_path):
    p = _write(tmp_path, '[rules]\npreset = "strict"\nname = "our club"\n')
    r = load_rules_file(p)
    assert r.name == "our club" and r.options() == PRESETS["strict"].options()


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('heart_leads = "free"\n', "unknown key 'heart_leads'"),
        ('heart_lead = "sometimes"\n', "heart_lead = 'sometimes'"),
        ("domino_open = 9\n", "domino_open = 9"),
        ('domino_aces = "low"\n', "domino_aces = 'low'"),
        ('domino_ace_or_two = "yes"\n', "domino_ace_or_two = 'yes'"),
        ("chooser_doubles = 1\n", "chooser_doubles = 1"),
        ("[points]\nvrouwen.queens = -25\n", "points.vrouwen.queens"),
        ("[points]\nvrouwen.queen = 25\n", "points.vrouwen.queen = 25"),
        ("[points]\ntroeven.trick = -1\n", "points.troeven.trick = -1"),
        ("[points]\nbukken.trick = -5000\n", "points.bukken.trick = -5000"),
        ('[points]\nbukken.trick = "five"\n', "points.bukken.trick = 'five'"),
        ('preset = "klaverjas"\n', "preset: unknown ruleset 'klaverjas'"),
        ("heart_lead = \n", "not valid TOML"),
    ],
)
def test_bad_rules_files_name_the_key(tmp_path, text, fragment):
    p = _write(tmp_path, text)
    with pytest.raises(RulesError) as err:
        load_rules_file(p)
    assert fragment in str(err.value)
    assert str(p) in str(err.value)


def test_a_rules_file_not_utf8_or_nested_too_deeply_names_the_file(tmp_path):
    p = tmp_path / "q.toml"
    p.write_bytes(b"\xff\xfe")
    with pytest.raises(RulesError) as err:
        load_rules_file(p)
    assert (
        str(err.value) == f"rules file {p}: not valid TOML: not UTF-8 text (byte 0xff at offset 0)"
    )
    p.write_text("heart_lead = " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(RulesError) as err:
        load_rules_file(p)
    assert str(err.value) == f"rules file {p}: not valid TOML: lists or tables nested too deeply"


def test_a_rules_file_must_be_a_small_regular_file(tmp_path):
    with pytest.raises(RulesError) as err:
        load_rules_file("/dev/zero")  # read whole, it would fill the memory
    assert str(err.value) == "cannot read rules file /dev/zero: not a regular file"
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(RulesError) as err:
        load_rules_file(big)
    assert str(err.value) == (
        f"cannot read rules file {big}: 1,048,579 bytes, more than the 1 MiB allowed"
    )


def test_missing_rules_file_and_both_options():
    with pytest.raises(RulesError, match="cannot read rules file"):
        load_rules_file("/nonexistent/x.toml")
    with pytest.raises(RulesError, match="not both"):
        resolve("standard", "x.toml")


# --- the fixtures: each option changes the outcome ------------------------------------------
def _record(fx: dict) -> dict:
    rules = Ruleset(name=fx["name"]).to_dict()
    for k, v in fx["rules"].items():
        if k == "points":
            rules["points"] = {**rules["points"], **v}
        else:
            rules[k] = v
    return {
        "dealer": fx["dealer"],
        "contract": fx["contract"],
        "trump": fx["trump"],
        "hands": fx["hands"],
        "plays": fx["plays"],
        "ruleset": rules,
    }


@pytest.mark.parametrize("fx", OPTION_FIXTURES, ids=IDS)
def test_fixture_replays_to_its_hand_worked_scores(fx):
    rec = _record(fx)
    assert bonken_sim.replay(rec) == fx["scores"]
    assert ref.replay(rec) == fx["scores"]
    assert replay_detail(rec)["tricks"] == fx["expected_tricks"]
    r = Ruleset.from_dict(rec["ruleset"])
    assert sum(fx["scores"]) == r.table[parse_variant(_vname(fx)).id, F_TOTAL]
    assert sum(fx["scores"]) == deal_total(fx["contract"], Rules.from_record(rec["ruleset"]))


def _vname(fx: dict) -> str:
    return fx["contract"] + (f"_{fx['trump']}" if fx["trump"] else "")


@pytest.mark.parametrize("fx", OPTION_FIXTURES, ids=IDS)
def test_fixture_breaks_the_rules_it_was_not_played_under(fx):
    rec = _record(fx)
    if "points" in fx["rules"]:  # the same plays score differently under RULES.md
        rec.pop("ruleset")
        assert bonken_sim.replay(rec) != fx["scores"]
        return
    (option,) = fx["rules"]
    for value, where in fx["illegal_under"].items():
        other = copy.deepcopy(rec)
        other["ruleset"][option] = int(value) if value.isdigit() else value
        with pytest.raises(IllegalPlay) as err:
            bonken_sim.replay(other)
        assert str(err.value).startswith(where), (value, str(err.value))
        with pytest.raises(ref.IllegalPlay):
            ref.replay(other)
