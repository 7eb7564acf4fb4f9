"""The beer card ("bierkaart") preset: a negative trick contract in Domino's place in which
whoever takes the 7♦ scores -50.

Rules files (the ``negatives`` key and its errors), records, names, the engine against the
pure-Python reference card by card, replay, the command line, runs and games.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import bonken_sim
from bonken_sim._core.ruleset import DOMINO, F_KIND, F_TOTAL, HARTENHEER, KIND_NEGATIVE
from bonken_sim.cli import main
from bonken_sim.engine.games import model_arrays, models_for_table, play_games
from bonken_sim.rules.names import VARIANT_NAMES, parse_variant, variant_name, variant_names
from bonken_sim.rules.rulesets import (
    PRESETS,
    STANDARD,
    RulesError,
    Ruleset,
    load_rules_file,
    point_keys,
)
from bonken_sim.runs.storage import read_run
from tests import reference as ref
from tests.reference.rules import Rules, deal_total

BIER = PRESETS["bierkaart"]
DEALS = max(40, int(os.environ.get("BONKEN_SIM_DIFF_DEALS", "2000")) // 10)
TABLES = {"random": (0, 0, 0, 0), "basic": (1, 1, 1, 1), "mixed": (1, 0, 1, 0)}
NEGATIVES = ["bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag"]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- the ruleset -----------------------------------------------------------------------------


def test_preset_table_row_and_points():
    assert BIER.beer_card and not STANDARD.beer_card
    row = BIER.table[DOMINO]
    assert row[F_KIND] == KIND_NEGATIVE and row[F_TOTAL] == -50
    # every other row is the standard one
    others = [v for v in range(12) if v != DOMINO]
    assert np.array_equal(BIER.table[others], STANDARD.table[others])
    assert "bierkaart.seven_of_diamonds" in BIER.point
    assert "domino.last_card" not in BIER.point
    assert "bierkaart.seven_of_diamonds" not in STANDARD.point
    assert BIER.game_total() == 0 and BIER.zero_sum


def test_standard_records_unchanged():
    """The standard ruleset's record has no negatives key and the nine point values."""
    d = STANDARD.to_dict()
    assert "negatives" not in d and list(d["points"]) == list(point_keys())
    assert len(d["points"]) == 9
    assert Ruleset.from_dict(d) == STANDARD
    rec = BIER.to_dict()
    assert rec["negatives"][-1] == "bierkaart"
    assert Ruleset.from_dict(rec) == BIER


def test_names_depend_on_the_ruleset_only_for_the_beer_card():
    assert variant_names() == variant_names(STANDARD) == VARIANT_NAMES
    for name in ("fixed-order", "double-points", "strict"):
        assert variant_names(PRESETS[name]) == VARIANT_NAMES
    names = variant_names(BIER)
    assert names[6] == "bierkaart" and names[:6] == VARIANT_NAMES[:6]
    assert names[7:] == VARIANT_NAMES[7:]
    assert variant_name(6, BIER) == "bierkaart" and variant_name(6) == "domino"
    assert parse_variant("bierkaart", BIER).id == 6
    with pytest.raises(ValueError, match="bierkaart is not played"):
        parse_variant("bierkaart")
    with pytest.raises(ValueError, match="domino is not played"):
        parse_variant("domino", BIER)


def test_describe_names_the_beer_card():
    text = "\n".join(BIER.describe())
    assert "7 of diamonds" in text and "bierkaart" in text
    assert "domino aces" not in text and "choosing domino" not in text
    assert "laatste slag, bierkaart, then four troeven" in "\n".join(
        replace(BIER, order="fixed", name="x").describe(width=200)
    )


def _rules(tmp_path, text):
    p = tmp_path / "club.toml"
    p.write_text(text)
    return p


def test_rules_file_negatives(tmp_path):
    listed = ", ".join(f'"{n}"' for n in ["bierkaart", *reversed(NEGATIVES)])  # any order
    r = load_rules_file(
        _rules(tmp_path, f"negatives = [{listed}]\n[points]\nbierkaart.seven_of_diamonds = -40\n")
    )
    assert r.beer_card and r.negatives[-1] == "bierkaart"
    assert r.point["bierkaart.seven_of_diamonds"] == -40
    assert r.options() == {
        **BIER.options(),
        "points": {**BIER.point, "bierkaart.seven_of_diamonds": -40},
    }
    # back to domino from the preset: domino's point value comes back
    listed = ", ".join(f'"{n}"' for n in [*NEGATIVES, "domino"])
    r = load_rules_file(_rules(tmp_path, f'preset = "bierkaart"\nnegatives = [{listed}]\n'))
    assert r.options() == STANDARD.options()


@pytest.mark.parametrize(
    "text, message",
    [
        ('negatives = ["bukken"]', "7 negative contracts and 4 troeven deals (11 deals), got 1"),
        (
            "negatives = ["
            + ", ".join(f'"{n}"' for n in [*NEGATIVES, "domino", "bierkaart"])
            + "]",
            "got 8",
        ),
        (
            "negatives = [" + ", ".join(f'"{n}"' for n in [*NEGATIVES, "pils"]) + "]",
            "unknown contract 'pils'",
        ),
        (
            "negatives = ["
            + ", ".join(f'"{n}"' for n in [*NEGATIVES[:-1], "bukken", "domino"])
            + "]",
            "'bukken' is listed twice",
        ),
        (
            "negatives = ["
            + ", ".join(f'"{n}"' for n in [*NEGATIVES[:-1], "domino", "bierkaart"])
            + "]",
            "domino and bierkaart share one place",
        ),
        (
            "negatives = ["
            + ", ".join(f'"{n}"' for n in [*NEGATIVES[:-1], "troeven", "domino"])
            + "]",
            "unknown contract 'troeven'",
        ),
        ('negatives = "bierkaart"', "negatives = 'bierkaart' is not allowed"),
        ('preset = "bierkaart"\n[points]\ndomino.last_card = -40', "points.domino.last_card"),
        ('preset = "bierkaart"\ndomino_ace_or_two = true', "domino_ace_or_two"),
        ("[points]\nbierkaart.seven_of_diamonds = -40", "points.bierkaart.seven_of_diamonds"),
        (
            'preset = "bierkaart"\n[points]\nbierkaart.seven_of_diamonds = 10',
            "points.bierkaart.seven_of_diamonds",
        ),
    ],
)
def test_rules_file_errors_name_the_key(tmp_path, text, message):
    p = _rules(tmp_path, text + "\n")
    with pytest.raises(RulesError) as exc:
        load_rules_file(p)
    assert str(p) in str(exc.value) and message in str(exc.value)
    assert (
        "negatives" in str(exc.value) or "points." in str(exc.value) or "domino" in str(exc.value)
    )


def test_bad_negatives_in_a_record():
    rec = {**BIER.to_dict(), "negatives": [*NEGATIVES, "pils"]}
    with pytest.raises(RulesError, match="negatives"):
        Ruleset.from_dict(rec)
    rec = {**BIER.to_dict(), "points": STANDARD.point}  # domino's points, no beer card's
    with pytest.raises(RulesError, match="points"):
        Ruleset.from_dict(rec)


# --- play: the engine against the reference ---------------------------------------------------


@pytest.mark.parametrize("table", list(TABLES))
def test_engine_matches_reference(table):
    rr = Rules.from_record(BIER.to_dict())
    strategies = TABLES[table]
    deals = DEALS if table != "mixed" else max(10, DEALS // 4)
    takers = set()
    for d in range(deals):
        dealer = d % 4
        mine = bonken_sim.play(
            seed=2024,
            deal=d,
            variant="bierkaart",
            strategies=list(strategies),
            dealer=dealer,
            ruleset=BIER,
        )
        theirs = ref.play_deal(2024, d, 6, strategies, dealer, rules=rr)
        got = ["pass" if c is None else c for c in mine.plays]
        want = theirs["plays"]
        if got != want:
            first = next(i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b)
            pytest.fail(
                f"bierkaart {table} deal {d}: play {first} (seat {theirs['seats'][first]}) "
                f"engine {got[first]} reference {want[first]}"
            )
        assert mine.scores == theirs["scores"], d
        assert mine.tricks == theirs["tricks"] and sum(mine.tricks) == 13, d
        assert sum(mine.scores) == deal_total("bierkaart", rr) == -50, d
        takers.add(mine.scores.index(-50))
        if d < 30:
            rec = mine.record()
            assert rec["contract"] == "bierkaart" and rec["trump"] is None
            assert rec["ruleset"] == BIER.to_dict()
            assert bonken_sim.replay(rec) == mine.scores == ref.replay(rec)
    assert takers == {0, 1, 2, 3}


def test_point_value_and_advanced_seats():
    r = Ruleset(
        name="t",
        negatives=BIER.negatives,
        points=tuple((k, -30 if k.startswith("bierkaart") else v) for k, v in BIER.points),
    )
    rr = Rules.from_record(r.to_dict())
    for d in range(20):
        mine = bonken_sim.play(seed=3, deal=d, variant="bierkaart", strategies="basic", ruleset=r)
        assert mine.scores == ref.play_deal(3, d, 6, (1, 1, 1, 1), 0, rules=rr)["scores"]
        assert sorted(mine.scores) == [-30, 0, 0, 0]
        adv = bonken_sim.play(
            seed=3, deal=d, variant="bierkaart", strategies="advanced", ruleset=BIER
        )
        assert sorted(adv.scores) == [-50, 0, 0, 0] and sum(adv.tricks) == 13
        assert bonken_sim.replay(adv.record()) == adv.scores == ref.replay(adv.record())


def test_basic_discards_the_seven_of_diamonds_first():
    """A basic seat void in the led suit and holding the 7♦ throws it (its top card)."""
    seen = 0
    for d in range(200):
        p = bonken_sim.play(seed=9, deal=d, variant="bierkaart", strategies="basic", ruleset=BIER)
        held = [set(c for c in range(52) if h >> c & 1) for h in p.hands]
        for t in range(13):
            cards, seats = p.plays[4 * t : 4 * t + 4], p.seats[4 * t : 4 * t + 4]
            led = cards[0] // 13
            for c, s in zip(cards[1:], seats[1:], strict=True):
                if 18 in held[s] and not any(x // 13 == led for x in held[s]):
                    assert c == 18, (d, t, s)
                    seen += 1
                held[s].discard(c)
            held[seats[0]].discard(cards[0])
    assert seen > 0


# A hand-made deal (dealer 0, so seat 1 leads): seat 0 holds the spades, seat 1 all 13
# clubs, seat 2 the diamonds, seat 3 the hearts. Seat 1 leads 2C..AC; nobody else has a
# club, so seat 1 wins all 13 tricks. Seat 2 throws the 7♦ on trick 1 (then the other
# diamonds), seats 3 and 0 their hearts and spades from the 2 up. Bierkaart: seat 1 took the
# 7♦, so [0, -50, 0, 0], and the trace may stop after trick 1. The same plays as hartenheer
# (the K♥ falls on trick 12, to seat 1): [0, -50, 0, 0]; as bukken: [0, -65, 0, 0].
def _fixture() -> dict:
    ranks = "23456789TJQKA"
    hands = [
        [r + "S" for r in ranks],
        [r + "C" for r in ranks],
        [r + "D" for r in ranks],
        [r + "H" for r in ranks],
    ]
    diamonds = ["7D"] + [r + "D" for r in ranks if r != "7"]
    plays = []
    for t, r in enumerate(ranks):
        plays += [r + "C", diamonds[t], ranks[t] + "H", ranks[t] + "S"]
    return {
        "deal": 0,
        "dealer": 0,
        "contract": "bierkaart",
        "trump": None,
        "hands": hands,
        "plays": plays,
        "scores": [0, -50, 0, 0],
        "ruleset": BIER.to_dict(),
    }


def test_fixture_deal_scores_the_beer_card():
    rec = _fixture()
    assert bonken_sim.replay(rec) == [0, -50, 0, 0] == ref.replay(rec)
    # the same plays as hartenheer under RULES.md: the K♥ (thrown in trick 12) costs seat 1
    std = {**rec, "contract": "hartenheer"}
    del std["ruleset"]
    assert bonken_sim.replay(std) == [0, -50, 0, 0] == ref.replay(std)
    # ... and as bukken each of seat 1's 13 tricks costs -5
    std["contract"] = "bukken"
    assert bonken_sim.replay(std) == [0, -65, 0, 0] == ref.replay(std)


def test_replay_rejects_the_wrong_slot_contract():
    rec = _fixture()
    wrong = {**rec, "contract": "domino"}  # domino is not played under bierkaart
    with pytest.raises(bonken_sim.IllegalPlay, match="domino"):
        bonken_sim.replay(wrong)
    with pytest.raises(ref.IllegalPlay, match="domino"):
        ref.replay(wrong)
    no_rules = dict(rec)
    del no_rules["ruleset"]  # RULES.md has no beer card
    with pytest.raises(bonken_sim.IllegalPlay, match="bierkaart"):
        bonken_sim.replay(no_rules)
    with pytest.raises(ref.IllegalPlay, match="bierkaart"):
        ref.replay(no_rules)
    short = {**rec, "plays": rec["plays"][:4]}  # the 7♦ went in trick 1: it may stop there
    assert bonken_sim.replay(short) == [0, -50, 0, 0] == ref.replay(short)
    with pytest.raises(bonken_sim.IllegalPlay):  # but not as hartenheer: the K♥ is out
        bonken_sim.replay({**short, "contract": "hartenheer", "ruleset": STANDARD.to_dict()})


# --- command line, runs and games --------------------------------------------------------------


def test_play_trace_replay_and_rules_on_the_command_line(capsys, tmp_path):
    args = ["play", "--seed", "1", "--deal", "0", "--contract", "bierkaart", "--ruleset"]
    code, out, _ = run(capsys, *args, "bierkaart")
    assert code == 0 and out.startswith("seed 1, deal 0: bierkaart,") and "-50" in out
    assert "ruleset bierkaart" in out
    code, out, _ = run(capsys, *args, "bierkaart", "--json")
    assert json.loads(out)["contract"] == "bierkaart"
    code, _, err = run(capsys, *args, "standard")
    assert code == 2 and err.startswith("bonken-sim: error: bierkaart is not played")
    code, _, err = run(capsys, *args[:-2], "domino", "--ruleset", "bierkaart")
    assert code == 2 and err.startswith("bonken-sim: error: domino is not played")
    trace = tmp_path / "t.jsonl"
    code, _, _ = run(
        capsys,
        "trace",
        "--deals",
        "3",
        "--seed",
        "4",
        "--contracts",
        "bierkaart,bukken",
        "--ruleset",
        "bierkaart",
        "--out",
        str(trace),
    )
    recs = [json.loads(line) for line in trace.read_text().splitlines()]
    assert code == 0 and [r["contract"] for r in recs] == ["bukken", "bierkaart"] * 3
    code, out, _ = run(capsys, "replay", str(trace))
    assert code == 0 and "6 legal, 0 illegal" in out
    code, out, _ = run(capsys, "rules", "bierkaart")
    assert code == 0 and "7 of diamonds" in out and "ruleset bierkaart" in out
    code, out, _ = run(capsys, "rules")
    assert "bierkaart" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('negatives = ["bukken", "bierkaart"]\n')
    code, _, err = run(capsys, "play", "--seed", "1", "--contract", "bukken", "--rules", str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("bonken-sim: error: ") and "negatives" in err and "11 deals" in err


def test_run_names_the_beer_card(capsys, tmp_path):
    out_dir = tmp_path / "run"
    code, _, _ = run(
        capsys,
        "run",
        "--deals",
        "300",
        "--seed",
        "2",
        "--ruleset",
        "bierkaart",
        "--out",
        str(out_dir),
        "--threads",
        "1",
        "--quiet",
    )
    assert code == 0
    df = pd.read_parquet(out_dir)
    assert set(df["variant"].astype(str)) == set(variant_names(BIER))
    beer = df[df["variant"] == "bierkaart"]
    assert len(beer) == 300 and (beer["contract"] == "bierkaart").all()
    assert (beer[[f"score_{p}" for p in range(4)]].sum(axis=1) == -50).all()
    code, out, _ = run(capsys, "summary", str(out_dir))
    assert code == 0 and "bierkaart" in out and "domino" not in out
    sub = tmp_path / "sub"
    code, _, _ = run(
        capsys,
        "run",
        "--deals",
        "50",
        "--seed",
        "2",
        "--ruleset",
        "bierkaart",
        "--contracts",
        "bierkaart",
        "--out",
        str(sub),
        "--threads",
        "1",
        "--quiet",
    )
    assert code == 0 and set(pd.read_parquet(sub)["variant"].astype(str)) == {"bierkaart"}
    assert read_run(sub, contracts="bierkaart").shape[0] == 50
    code, _, err = run(
        capsys,
        "run",
        "--deals",
        "50",
        "--seed",
        "2",
        "--contracts",
        "bierkaart",
        "--out",
        str(tmp_path / "x"),
        "--threads",
        "1",
        "--quiet",
    )
    assert code == 2 and "bierkaart is not played" in err


def test_the_borrowed_models_are_data(monkeypatch):
    """Which fitted models a contract without its own borrows is engine.games.BORROWED_MODEL
    (docs/HOUSE_RULES.md), read by models_for_table: another entry there gives another lender."""
    from bonken_sim._core.ruleset import VROUWEN
    from bonken_sim.engine import games
    from bonken_sim.models.choice import NAMES, load_models

    ma = model_arrays(load_models())
    monkeypatch.setitem(games.BORROWED_MODEL, "bierkaart", "vrouwen")
    mb = models_for_table(ma, BIER.table)
    for theirs, ours in ((mb.coef, ma.coef), (mb.mean, ma.mean), (mb.theta, ma.theta)):
        assert np.array_equal(theirs[DOMINO], ours[VROUWEN])
        assert np.array_equal(np.delete(theirs, DOMINO, 0), np.delete(ours, DOMINO, 0))
    assert models_for_table(ma, STANDARD.table) is ma
    assert games.played_contracts(STANDARD.table) == tuple(NAMES)
    assert games.played_contracts(BIER.table)[DOMINO] == "bierkaart"


def test_games_borrow_hartenheer_models_and_name_the_beer_card(capsys, tmp_path):
    from bonken_sim.models.choice import load_models

    ma = model_arrays(load_models())
    assert models_for_table(ma, STANDARD.table) is ma
    mb = models_for_table(ma, BIER.table)
    assert np.array_equal(mb.coef[DOMINO], ma.coef[HARTENHEER])
    assert np.array_equal(mb.mean[DOMINO], ma.mean[HARTENHEER])
    b = play_games(40, 5, np.arange(4), ["basic"] * 4, table=BIER.table, threads=1)
    assert (b.variant == DOMINO).sum(axis=1).tolist() == [1] * 40
    assert (b.raw.astype(np.int64).sum(axis=(1, 2)) == 0).all()
    out_dir = tmp_path / "games"
    code, _, err = run(
        capsys,
        "game",
        "--games",
        "40",
        "--seed",
        "5",
        "--ruleset",
        "bierkaart",
        "--out",
        str(out_dir),
        "--threads",
        "1",
    )
    assert code == 0 and "ruleset bierkaart" in err
    deals = pd.read_parquet(out_dir / "_deals")
    assert "bierkaart" in set(deals["variant"].astype(str))
    assert "domino" not in set(deals["contract"].astype(str))


def test_advise_takes_the_beer_card_by_name():
    from bonken_sim.analyses.advise import AdviseError, make_config

    hand = "AS KS 7S 2H 3H 4H 7D 8D 9D TC JC QC KC"
    cfg = make_config(hand, available="bierkaart,troeven_S", ruleset="bierkaart", deals=100)
    assert [v.id for v in cfg.variants] == [6, 10]
    with pytest.raises(AdviseError, match="domino is not played"):
        make_config(hand, available="domino", ruleset="bierkaart", deals=100)
    with pytest.raises(AdviseError, match="bierkaart is not played"):
        make_config(hand, available="bierkaart", deals=100)


def test_tournament_names_the_beer_card(capsys):
    code, out, _ = run(
        capsys,
        "tournament",
        "--games",
        "24",
        "--profiles",
        "basic,random",
        "--ruleset",
        "bierkaart",
        "--threads",
        "1",
    )
    assert code == 0 and "bierkaart" in out and "domino" not in out
