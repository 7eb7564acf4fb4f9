"""`bonken-sim advise` on the command line: input errors, the table and the JSON document."""

from __future__ import annotations

import json
import re

import pytest

from bonken_sim.cli import main
from bonken_sim.engine.provenance import versions

HAND = "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C 8C"


def run(capsys, *args):
    code = main(["advise", *args])
    out, err = capsys.readouterr()
    return code, out, err


def error_of(capsys, *args) -> str:
    code, out, err = run(capsys, *args)
    assert code == 2, (code, out, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bonken-sim: error: "), err
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--hand", "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C"], "exactly 13 cards, got 12"),
        (["--hand", HAND + " 9C"], "exactly 13 cards, got 14"),
        (["--hand", "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C AS"], "card AS given twice"),
        (["--hand", "as,ks,7s,2h,3h,9d,10d,jd,qc,4c,5c,6c,TD"], "card TD given twice"),
        (["--hand", "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C 1C"], "not a card: '1C'"),
        (["--hand", "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C ZZ"], "not a card: 'ZZ'"),
        (["--hand", ""], "exactly 13 cards, got 0"),
        (["--hand", HAND, "--seat", "north"], "--seat must be one of"),
        (["--hand", HAND, "--available", "bukken,klaverjas"], "unknown contract 'klaverjas'"),
        (["--hand", HAND, "--available", "troeven_X"], "unknown trump 'X'"),
        (["--hand", HAND, "--available", "bukken,,vrouwen"], "an empty name in the list"),
        (["--hand", HAND, "--available", "bukken,Bukken"], "'Bukken' is listed twice"),
        (["--hand", HAND, "--available", "troeven", "--trump-used"], "leaves nothing to choose"),
        (["--hand", HAND, "--deals", "0"], "--deals must be positive"),
        (["--hand", HAND, "--deals", "lots"], "--deals must be a positive whole number"),
        (["--hand", HAND, "--deals", "1.5"], "--deals must be a whole number"),
        (["--hand", HAND, "--deals", "1"], "--deals must be at least 2"),
        (["--hand", HAND, "--seed", "-3"], "seed must be an integer"),
        (["--hand", HAND, "--strategies", "clever"], "unknown strategy 'clever'"),
        (["--hand", HAND, "--threads", "0"], "--threads must be a whole number"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(capsys, args, expected):
    assert expected in error_of(capsys, *args)


def test_missing_hand_is_an_error(capsys):
    assert "--hand" in error_of(capsys)


def test_cards_in_any_notation_give_the_same_advice(capsys):
    args = ["--deals", "300", "--seed", "5", "--json", "--threads", "1"]
    code, a, _ = run(capsys, "--hand", HAND, *args)
    assert code == 0
    code, b, _ = run(capsys, "--hand", "8c,6c 5C;4c  qc/jd 10d-9D 3♥️, 2H|7s ks As", *args)
    assert code == 0
    da, db = json.loads(a), json.loads(b)
    assert da["versions"] == versions() and da["version"] == versions()["bonken_sim"]
    assert da["hand"] == db["hand"]
    assert da["variants"] == db["variants"]


def test_table_starts_with_the_recommendation(capsys):
    code, out, _ = run(capsys, "--hand", HAND, "--deals", "400", "--seed", "3", "--threads", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("bonken-sim advise: you are the chooser (seat 2")
    assert "400 deals, seed 3, strategies basic, ruleset standard, 1 thread," in lines[2]
    assert lines[3] == (
        "  contract averages: simulated on deals 0..399 of the seed, as bonken-sim run plays them"
    )
    assert lines[5].startswith(">> choose ")
    assert lines[6] == "   policy: the best value relative to its average"
    assert "best negative:" in lines[7] and "best troeven:" in lines[7]
    ranked = [ln for ln in lines if re.match(r"\s+\d+  [a-z_]+[A-Z]* +[+-]\d", ln)]
    assert len(ranked) == 12 and [int(ln.split()[0]) for ln in ranked] == list(range(1, 13))
    assert any(ln.startswith("  doubling back") for ln in lines)
    assert max(len(ln) for ln in lines) <= 100  # fits a wide terminal


def test_non_chooser_table_and_drawn_seed(capsys):
    code, out, _ = run(
        capsys,
        "--hand",
        HAND,
        "--seat",
        "dealer",
        "--deals",
        "300",
        "--available",
        "bukken,troeven",
    )
    assert code == 0
    lines = out.splitlines()
    assert "(drawn)" in lines[2]
    assert lines[5].startswith(">> you would like ")
    assert "least wanted:" in lines[6]
    assert "not available: hartenjagen, herenboeren" in out
    header = next(ln for ln in lines if ln.lstrip().startswith("contract") and "vs seat" in ln)
    assert "vs seat 3 doubler" in header and "vs seat 1 leader" in header
    assert "vs seat 0" not in header  # you cannot double yourself
    assert max(len(ln) for ln in lines) <= 100


def test_json_document(capsys):
    code, out, err = run(
        capsys,
        "--hand",
        HAND,
        "--seat",
        "doubler",
        "--deals",
        "1e3",
        "--seed",
        "0x10",
        "--strategies",
        "basic,random,basic,random",
        "--trump-used",
        "--json",
    )
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["seed"] == 16 and doc["deals"] == 1000 and doc["seat"] == "doubler"
    assert doc["strategies"] == ["basic", "random", "basic", "random"]
    assert doc["trump_used"] and doc["best_troeven"] is None
    assert doc["available"] == [
        "bukken",
        "hartenjagen",
        "herenboeren",
        "vrouwen",
        "hartenheer",
        "laatste_slag",
        "domino",
    ]
    assert len(doc["hand"]) == 13
