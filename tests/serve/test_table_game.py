"""The game at the table plays Bonken as the game kernel does: a table of fitted profiles
(the person's seat played by ``decide`` for the same profile) gives exactly the contracts,
doubles and scores of ``bonken-sim game``; a refused action changes nothing; a finished
deal is a trace record the engine replays to the sheet's scores."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from bonken_sim.engine.decide import decide
from bonken_sim.engine.games import play_games
from bonken_sim.engine.play import replay
from bonken_sim.rules.names import variant_names
from bonken_sim.rules.rulesets import STANDARD, preset
from bonken_sim.serve.table_game import GameError, OutOfTurn, TableGame
from bonken_sim.serve.table_state import public_state, ranks
from tests.serve.table_driver import settle


def play_through(g: TableGame, profile: str) -> None:
    """The person's seat decides as ``profile`` would, through the game's own actions."""
    g.advance()
    while True:
        kind, seat = g.turn()
        if kind == "over":
            return
        if kind == "next":
            g.next_deal()
        elif kind == "choose":
            g.choose(decide(g.state.view(), profile).contract)
        elif kind == "double":
            g.double(list(decide(g.state.view(), profile).doubles))
        else:
            g.play(decide(g.state.view(), profile).card)
        g.advance()


@pytest.mark.parametrize(
    ("game", "profiles", "you", "rules"),
    [
        (0, ["basic", "basic", "basic", "basic"], 0, "standard"),
        (5, ["advanced", "basic", "advanced", "basic"], 2, "standard"),
        (2, ["basic", "advanced", "basic", "basic"], 1, "fixed-order"),
        (3, ["basic", "basic", "advanced", "basic"], 3, "bierkaart"),
    ],
)
def test_a_table_of_fitted_profiles_plays_the_game_kernels_game(game, profiles, you, rules):
    seed = 2026
    ruleset = preset(rules)
    players = ["you" if s == you else p for s, p in enumerate(profiles)]
    g = TableGame.new("a" * 12, seed, players, you, ruleset, game)
    play_through(g, profiles[you])
    b = play_games(
        1, seed, np.arange(4), profiles, start=game, threads=1,
        fixed_order=ruleset.order == "fixed", table=ruleset.table,
    )  # fmt: skip
    names = variant_names(ruleset)
    deals = [g.deal(k) for k in range(len(g.state.deals))]
    assert [d["contract"] for d in deals] == [names[v] for v in b.variant[0]]
    for k, d in enumerate(deals):
        bits = sum(1 << (4 * a + t) for a, t in d["doubles"])
        assert bits == int(b.dbl[0, k]), f"deal {k}"
        assert d["raw"] == b.raw[0, k].tolist(), f"deal {k}"
        assert d["final"] == b.final[0, k].tolist(), f"deal {k}"
    assert g.totals() == b.totals[0].tolist()
    assert g.over()


def test_every_finished_deal_is_a_trace_record_the_engine_replays_to_its_scores():
    g = TableGame.new("b" * 12, 11, ["random", "you", "random", "basic"], 1, preset("strict"))
    play_through(g, "random")
    lines = g.trace_lines()
    assert len(lines) == 11
    for d, line in zip(map(g.deal, range(11)), lines, strict=True):
        record = json.loads(line)
        assert replay(record) == record["scores"] == d["raw"]
        assert d["final"] == settle(d["raw"], d["doubles"])
    assert sum(g.totals()) == 0


def test_settlement_is_rules_md_section_5():
    # RULES.md's example: bukken, tricks 4, 3, 5, 1; m(0,1)=1, m(0,2)=2, m(1,3)=1, m(2,3)=2
    raw = [-20, -15, -25, -5]
    doubles = [[0, 1], [0, 2], [2, 0], [1, 3], [2, 3], [3, 2]]
    assert settle(raw, doubles) == [-15, -20, -75, 45]
    assert ranks([10, 30, 30, -70]) == [3, 1, 1, 4]


def fresh_game(players=("you", "basic", "basic", "basic"), you=0, seed=4) -> TableGame:
    g = TableGame.new("c" * 12, seed, list(players), you, STANDARD)
    g.advance()
    return g


def refused(g: TableGame, action, *args, error=GameError) -> None:
    before = copy.deepcopy(g.to_json())
    with pytest.raises(error):
        action(*args)
    assert g.to_json() == before


def to_play(g: TableGame) -> TableGame:
    """Drive the person to his first card of a deal."""
    while g.turn()[0] != "play" or g.turn()[1] != g.you:
        kind, _ = g.turn()
        if kind == "choose":
            g.choose(g.legal()["options"][0])
        elif kind == "double":
            g.double([])
        g.advance()
    return g


def test_refused_actions_change_nothing():
    g = fresh_game(seed=9)
    kind, seat = g.turn()
    # whatever the person must do first, the other actions are out of turn
    for other in ("choose", "double", "play"):
        if other != kind:
            arg = {"choose": "bukken", "double": [], "play": "2C"}[other]
            refused(g, getattr(g, other), arg, error=OutOfTurn)
    refused(g, g.next_deal, error=OutOfTurn)
    if kind == "choose":
        refused(g, g.choose, "no-such-contract")
        refused(g, g.choose, 7)
    to_play(g)
    hand = g.hand_now(g.you)
    legal = g.legal()["options"]
    not_held = g.hand_now((g.you + 1) % 4)[-1]
    refused(g, g.play, not_held)
    refused(g, g.play, "XX")
    refused(g, g.play, None)
    illegal = [c for c in hand if c not in legal]
    if illegal:
        refused(g, g.play, illegal[0])
    g.play(legal[0])
    assert g.state.plays[-1] == (g.you, legal[0])


def test_doubles_the_rules_forbid_are_refused():
    # deal 0 of game 0: dealer 0, the person at seat 2 chooses and is last in the pass, where
    # he may only double back; the pass before him as a computer seat could have said it
    g = fresh_game(players=("basic", "basic", "you", "basic"), you=2, seed=5)
    assert g.turn() == ("choose", 2)
    g.choose(g.legal()["options"][0])
    for said in ([2], [1], []):
        g.state.act(said)
    assert g.state.doubles == [(3, 2), (0, 1)]
    assert g.turn() == ("double", 2)
    assert g.legal()["options"] == [3]
    for bad in ([0], [1], [2], [3, 3], "3", [True], [3, 0], None):
        refused(g, g.double, bad)
    g.double([3])
    assert g.state.doubles[-1] == (2, 3) and g.turn()[0] == "play"
    # a seat before the chooser may double anyone but itself
    h = fresh_game(players=("you", "basic", "basic", "basic"), you=0, seed=5)
    while h.turn() != ("double", 0):
        kind = h.turn()[0]
        assert kind in ("choose", "double"), kind
        h.advance()
    assert h.legal()["options"] == [1, 2, 3]
    refused(h, h.double, [0])
    refused(h, h.double, [4])


def test_the_person_sees_no_other_hand_while_a_deal_is_played():
    g = to_play(fresh_game(seed=3))
    state = public_state(g)
    text = json.dumps(state)
    assert "hands" not in state["deal"]
    for seat in range(4):
        if seat == g.you:
            continue
        unseen = set(g.hand_now(seat))
        # a card of another seat still in its hand is named nowhere in what the person gets
        assert not any(f'"{c}"' in text for c in unseen)
    assert state["deal"]["hand"] == g.hand_now(g.you)


def test_a_saved_state_continues_the_same_game():
    g = to_play(fresh_game(seed=12))
    again = TableGame.from_json(json.loads(json.dumps(g.to_json())))
    card = g.legal()["options"][0]
    g.play(card)
    g.advance()
    again.play(card)
    again.advance()
    assert again.to_json() == g.to_json()


def test_a_hint_depends_only_on_what_the_person_can_see():
    from bonken_sim.serve.coach import hint

    # game 3: the first dealer is seat 3, so the person at seat 0 leads deal 0's first trick
    g = TableGame.new("d" * 12, 17, ["you", "basic", "basic", "basic"], 0, STANDARD, game=3)
    g.state.act("hartenjagen")
    for _ in range(4):
        g.state.act([])
    assert g.turn() == ("play", 0)
    swapped = TableGame.from_json(g.to_json())
    hands = swapped.state.dealt()  # the state's own list of this deal's hands
    hands[1], hands[2], hands[3] = hands[3], hands[1], hands[2]
    assert swapped.state.hand(1) == g.state.hand(3)
    assert hint(g, samples=300) == hint(swapped, samples=300)
