"""The solve command: text, the JSON shape, and every bad input as one line with exit 2."""

from __future__ import annotations

import json

import pytest

from bonken_sim.cli import main

HANDS = "AS KS 7S 2H / QS 3H 9C 2D / JS 4H 8C 3D / TS 5H 7C 4D"


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_text(capsys):
    code, out, _ = run(
        capsys, "solve", "--contract", "vrouwen", "--hands", HANDS, "--leader", "1", "--seat", "2"
    )
    assert code == 0
    assert "seat 2 makes sure of" in out and "every card: QS" in out and "nodes" in out


def test_solve_json_shape(capsys):
    code, out, _ = run(
        capsys,
        "solve",
        "--contract",
        "troeven",
        "--trump",
        "H",
        "--hands",
        HANDS,
        "--leader",
        "1",
        "--seat",
        "0",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    assert {"value", "cards", "nodes", "seconds", "seat", "leader", "best"} <= set(doc)
    assert set(doc["cards"]) == {"QS", "3H", "9C", "2D"}
    assert doc["value"] == min(doc["cards"].values())  # seat 1 leads against seat 0
    code, out, _ = run(
        capsys,
        "solve",
        "--contract",
        "bukken",
        "--hands",
        HANDS,
        "--leader",
        "0",
        "--seat",
        "all",
        "--json",
    )
    docs = json.loads(out)
    assert code == 0 and [d["seat"] for d in docs] == [0, 1, 2, 3]
    assert all(d["value"] <= 0 for d in docs)


def test_solve_seed_deal_is_the_engine_deal(capsys):
    from bonken_sim.engine.solve import engine_deal

    masks, leader = engine_deal(1, 7, dealer=2)
    assert leader == 3 and sum(bin(m).count("1") for m in masks) == 52
    code, _, err = run(capsys, "solve", "--seed", "1", "--hands", HANDS, "--contract", "bukken")
    assert code == 2 and "not both" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hands", "AS / KS / QS", "--leader", "0"], "four hands"),
        (["--hands", "AS / AS / QS / JS", "--leader", "0"], "card AS is in the hands"),
        (["--hands", "AS 2C / KS / QS / JS", "--leader", "0"], "equal length"),
        (["--hands", "AS / KS / QS / JS", "--leader", "0", "--trump", "H"], "not a trump"),
        (["--hands", "AS / KS / QS / JS", "--leader", "0", "--seat", "5"], "--seat must be"),
        (["--hands", "AS / KS / QS / JS", "--leader", "4"], "leader must be a seat"),
        (["--hands", "AS / KS / QS / JS"], "needs --leader"),
        ([], "give the position: --hands (with --leader) or --seed (with --deal)"),
        (["--leader", "0"], "give the position: --hands (with --leader) or --seed (with --deal)"),
        (["--seed", "1", "--deal", str(2**63)], "--deal must be an integer from 0 to 2**63-1"),
        (["--seed", "1", "--deal", "-1"], "--deal must be an integer from 0 to 2**63-1"),
        (["--hands", "AS / KS / QS / JS", "--leader", "0", "--deal", "2"], "go with --seed"),
        (["--hands", "ZZ / KS / QS / JS", "--leader", "0"], "not a card"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, args, message):
    code, out, err = run(capsys, "solve", "--contract", "bukken", *args)
    assert code == 2 and out == ""
    assert err.startswith("bonken-sim: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "contract",
    [["troeven_S"], ["troeven_S", "--trump", "S"], ["Troeven-s", "--trump", "s"]],
    ids=["name", "name-and-trump", "spelling"],
)
def test_solve_takes_a_troeven_variant_as_the_contract(capsys, contract):
    """``--contract troeven_S`` (the name play and --contracts take) solves what ``--contract
    troeven --trump S`` solves; a --trump that agrees may be given too."""
    args = ["solve", "--hands", HANDS, "--leader", "1", "--seat", "all", "--json", "--contract"]

    def values(out):
        return [(d["value"], d["best"], d["cards"]) for d in json.loads(out)]

    code, expected, err = run(capsys, *args, "troeven", "--trump", "S")
    assert code == 0, err
    code, out, err = run(capsys, *args, *contract)
    assert code == 0 and err == "" and values(out) == values(expected)


def test_a_trump_that_disagrees_with_the_variant_is_one_line_exit_2(capsys):
    args = ["--contract", "troeven_S", "--trump", "H", "--hands", HANDS, "--leader", "1"]
    code, out, err = run(capsys, "solve", *args)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err == (
        "bonken-sim: error: --contract troeven_S has trump S, but --trump is H; "
        "give the trump once\n"
    )


def test_the_beer_card_is_labelled_by_its_name(capsys):
    """Under the beer-card ruleset variant 6 is bierkaart: the output says so, not domino."""
    args = ["--contract", "bierkaart", "--hands", HANDS, "--leader", "1", "--seat", "all"]
    code, out, err = run(capsys, "solve", "--ruleset", "bierkaart", *args)
    assert code == 0 and err == ""
    assert [ln.split(":")[0] for ln in out.splitlines() if "makes sure of" in ln] == [
        "bierkaart"
    ] * 4


def test_domino_is_refused(capsys):
    code, _, err = run(
        capsys, "solve", "--contract", "domino", "--hands", "AS / KS / QS / JS", "--leader", "0"
    )
    assert code == 2 and "domino cannot be solved" in err


def test_node_budget_is_one_line_exit_2(capsys):
    code, out, err = run(
        capsys, "solve", "--contract", "bukken", "--seed", "1", "--max-nodes", "1k"
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("bonken-sim: error: not solved within 1,000 nodes (")
    assert err.rstrip().endswith("try an ending with fewer cards or raise --max-nodes")


def test_every_contract_of_a_deal_in_one_command(capsys):
    """``--contract all``: every trick contract of the ruleset (no domino; bierkaart under its
    ruleset), each seat's value the same as the contract's own command gives."""
    args = ["solve", "--hands", HANDS, "--leader", "1", "--seat", "all", "--json"]
    code, out, err = run(capsys, *args, "--contract", "all")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert list(doc) == [
        "bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag",
        "troeven_C", "troeven_D", "troeven_H", "troeven_S", "troeven_NT",
    ]  # fmt: skip
    for name in ("vrouwen", "troeven_H"):
        code, one, _ = run(capsys, *args, "--contract", name)
        assert [d["value"] for d in doc[name]] == [d["value"] for d in json.loads(one)]
    code, out, err = run(capsys, "solve", "--ruleset", "bierkaart", *args[1:], "--contract", "all")
    assert code == 0 and "bierkaart" in json.loads(out) and "domino" not in json.loads(out)
    code, out, _ = run(capsys, *args[:-1], "--contract", "all")
    assert out.count("makes sure of") == 44 and out.startswith("bukken: seat 0 makes sure of")


def test_contract_all_names_what_ran_out_and_exits_2(capsys):
    args = ["solve", "--hands", HANDS, "--leader", "1", "--contract", "all", "--max-nodes", "3"]
    code, out, err = run(capsys, *args)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("bonken-sim: error: not solved within 3 nodes a contract")
    assert "bukken:" in out and "not solved within" in out
    code, _, err = run(capsys, *args[:-2], "--trump", "H")
    assert code == 2 and "--trump goes with one troeven contract" in err
