"""The game state (``engine.game_state``) and legality (``engine.legal``): a game walked through
the state plays, replays, settles and totals as ``game``'s kernel does; its JSON goes on the
same way; every refused answer says why; the views show a seat only its own cards; and the
legal answers of a view are those ``decide`` finds there, for every kind and ruleset."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView, decide
from bonken_sim.engine.game_state import GameState, Refused, bits_of
from bonken_sim.engine.games import DEALS_PER_GAME, play_games
from bonken_sim.engine.legal import check, legal
from bonken_sim.engine.play import deal_hands, replay
from bonken_sim.rules.doubling import settle
from bonken_sim.rules.names import card_str, mask_cards
from bonken_sim.rules.presets import PRESETS
from bonken_sim.rules.ruleset import Ruleset
from bonken_sim.rules.rulesets import STANDARD, preset

SEED = 11
RULESETS = {
    **PRESETS,
    "domino-ace-or-two": Ruleset(name="ace-or-two", domino_ace_or_two=True),
    "chooser-doubles": Ruleset(name="chooser-doubles", chooser_doubles=True),
    "no-doubling": Ruleset(name="no-doubling", doubling=False),
    "aces-either": Ruleset(name="aces-either", domino_aces="first-fixes"),
}


def _random_answer(state: GameState, rng: np.random.Generator):
    kind, options = state.turn().kind, state.legal()
    if kind == "double":
        return tuple(int(t) for t in options if rng.random() < 0.5)
    return options[int(rng.integers(len(options)))]


def _basic_answer(view):
    d = decide(view, "basic")
    if view.kind == "play":
        return d.card
    if view.kind == "choose":
        return d.contract
    return tuple(sorted(d.doubles))


def _walk(state: GameState, answer, steps: int | None = None) -> GameState:
    """Answer every turn of ``state`` (``steps`` turns at most) with ``answer(state)``."""
    while state.turn().kind != "over" and steps != 0:
        state.act(answer(state))
        steps = None if steps is None else steps - 1
    return state


@pytest.mark.parametrize("name", ["standard", "fixed-order", "strict", "bierkaart"])
def test_basic_seats_through_the_state_play_games_tables(name):
    """Four basic seats answering through the state: the game kernel's tables, deal by deal."""
    rules = preset(name)
    games = 3
    b = play_games(games, SEED, np.zeros(4, np.int64), ["basic"], fixed_order=rules.order ==
                   "fixed", doubling=rules.doubling, table=rules.table, threads=1)  # fmt: skip
    for g in range(games):
        state = _walk(GameState.start(SEED, g, rules), lambda s: _basic_answer(s.view()))
        done = state.deals
        assert [d["variant"] for d in done] == b.variant[g].tolist()
        assert [bits_of(d["trace"]["doubles"]) for d in done] == b.dbl[g].tolist()
        assert [d["trace"]["scores"] for d in done] == b.raw[g].tolist()
        assert [d["trace"]["final"] for d in done] == b.final[g].tolist()
        assert state.totals == b.totals[g].tolist()


@pytest.mark.parametrize("name", ["standard", "strict", "domino-ace-or-two", "no-doubling"])
def test_random_legal_answers_make_a_game_of_the_rules(name):
    """A game of random legal answers: the kernel's deals, every deal replays to its raw
    scores and settles to its final ones, the totals add up, and the contracts are a game's
    (each negative once, each seat's troeven once), as in a random-seat game of the kernel."""
    rules = RULESETS[name]
    rng = np.random.default_rng(5)
    kernel = play_games(4, SEED, np.zeros(4, np.int64), ["random"], doubling=rules.doubling,
                        table=rules.table, threads=1)  # fmt: skip
    for g in range(4):
        state = _walk(GameState.start(SEED, g, rules), lambda s: _random_answer(s, rng))
        totals = np.zeros(4, np.int64)
        for k, d in enumerate(state.deals):
            trace = d["trace"]
            board = deal_hands(SEED, DEALS_PER_GAME * g + k)
            assert trace["hands"] == [[card_str(c) for c in mask_cards(int(h))] for h in board]
            assert trace["dealer"] == (g + k) % 4 and trace["game_deal"] == k
            assert replay(trace) == trace["scores"]
            stake = np.zeros((4, 4), np.int64)
            for a, t in trace["doubles"]:
                stake[a, t] += 1
                stake[t, a] += 1
            assert trace["final"] == settle(np.array([trace["scores"]]), stake[None])[0].tolist()
            totals += trace["final"]
        assert state.totals == totals.tolist()
        for variants in (np.array([d["variant"] for d in state.deals]), kernel.variant[g]):
            assert sorted(variants[variants < 7].tolist()) == list(range(7))
            trumps = [(g + k + 2) % 4 for k in range(DEALS_PER_GAME) if variants[k] >= 7]
            assert sorted(trumps) == [0, 1, 2, 3]
            assert len(set(variants[variants >= 7].tolist())) == 4


@pytest.mark.parametrize("steps", [0, 1, 3, 30, 200, 333])
def test_json_round_trip_goes_on_the_same_way(steps):
    """A state saved as JSON at any turn (a choice, a double, mid-trick) and read back plays
    on exactly as the one kept in memory."""
    rng = np.random.default_rng(steps)
    state = _walk(GameState.start(SEED, 6, STANDARD), lambda s: _random_answer(s, rng), steps)
    saved = json.loads(json.dumps(state.to_json()))
    again = GameState.from_json(saved)
    assert again.turn() == state.turn() and again.view() == state.view()
    assert again.legal() == state.legal()
    rng_a, rng_b = copy.deepcopy(rng), copy.deepcopy(rng)
    _walk(state, lambda s: _random_answer(s, rng_a))
    _walk(again, lambda s: _random_answer(s, rng_b))
    assert again.to_json() == state.to_json()
    assert again.traces() == state.traces()


def _refused(state: GameState, answer) -> str:
    before = state.to_json()
    with pytest.raises(Refused) as exc:
        state.act(answer)
    assert state.to_json() == before  # a refused answer changes nothing
    return exc.value.reason


def _to(state: GameState, kind: str, rng: np.random.Generator, when=lambda s: True):
    while not (state.turn().kind == kind and when(state)):
        state.act(_random_answer(state, rng))
    return state


def test_every_refused_answer_says_why():
    rng = np.random.default_rng(1)
    state = GameState.start(SEED, 0, STANDARD)
    view = state.view()
    assert isinstance(view, ChooseView)
    assert _refused(state, "QS").startswith(f"seat {view.seat}: QS may not be chosen (legal: ")
    assert "may not be chosen" in _refused(state, "nonsense")
    state.act("bukken")
    assert "bukken may not be chosen" in _refused(_to(state, "choose", rng), "bukken")
    d = _to(state, "double", rng).turn().seat
    assert f"may not double seat {d} (may double: " in _refused(state, (d,))
    other = (d + 1) % 4
    assert f"doubles seat {other} twice" in _refused(state, (other, other))
    assert "doubles must be a list of seats" in _refused(state, "QS")
    chooser = _to(state, "double", rng, lambda s: s.turn().seat == s.chooser)
    said = {a for a, t in chooser.doubles if t == chooser.chooser}
    lone = next(t for t in range(4) if t != chooser.chooser and t not in said)
    assert f"may not double seat {lone}" in _refused(chooser, (lone,))
    _to(state, "play", rng)
    options = state.legal()
    seat = state.turn().seat
    held = state.hand(seat)
    if len(options) < len(held):
        bad = next(c for c in held if c not in options)
        reason = _refused(state, bad)
        assert reason == f"seat {seat}: {bad} is not legal there (legal: {' '.join(options)})"
    other_card = next(card_str(c) for c in range(52) if card_str(c) not in held)
    assert "is not legal there" in _refused(state, other_card)
    assert "a pass where cards are playable" in _refused(state, "pass")
    # Domino: a seat that can lay nothing must pass, and nothing else
    dom = GameState.start(SEED, 2, STANDARD, variant=6)
    _to(dom, "play", rng, lambda s: s.legal() == ("pass",))
    card = dom.hand(dom.turn().seat)[0]
    assert f"{card} played where only a pass is legal" in _refused(dom, card)
    over = _walk(GameState.start(SEED, 1, STANDARD, variant=0), lambda s: _random_answer(s, rng))
    over.deal = DEALS_PER_GAME
    assert _refused(over, "2C") == "the game is over: nothing more is asked"


def test_views_show_a_seat_only_its_own_cards_and_the_double_view_its_chooser():
    """At every turn the view holds the seat's own cards now and no other seat's; a
    doubling view carries the deal, the contracts open before the choice and whether the
    chooser had had troeven."""
    rng = np.random.default_rng(2)
    state = GameState.start(SEED, 3, STANDARD)
    doubles_seen = 0
    while (turn := state.turn()).kind != "over":
        view = state.view()
        assert view.seat == turn.seat
        own = set(view.hand)
        assert own == set(state.hand(turn.seat))
        for p in range(4):
            if p != turn.seat:
                assert not own & set(state.hand(p))
        fields = {k: v for k, v in vars(view).items() if k not in ("hand", "plays", "ruleset")}
        assert not any(c in json.dumps(fields) for c in state.hand((turn.seat + 1) % 4))
        if isinstance(view, DoubleView):
            doubles_seen += 1
            assert view.deal == state.deal
            assert view.open is not None and view.contract in view.open
            # the chooser's earlier deals: every fourth one before this
            earlier = [d["variant"] for d in state.deals[state.deal % 4 :: 4]]
            assert state.contract is not None
            had = state.contract < 7 and any(v >= 7 for v in earlier)
            assert view.chooser_had_troeven == had
            decide(view, "basic")  # a view the engine takes whole
        if isinstance(view, PlayView):
            assert (view.stake is None) == (not state.doubles)
        state.act(_random_answer(state, rng))
    assert doubles_seen == 4 * DEALS_PER_GAME


@pytest.mark.parametrize("name", list(RULESETS))
def test_legal_is_what_decide_finds(name):
    """``legal(view)``, computed from the rules, and the state's own legal answers are the
    options ``decide``'s kernels find, at every turn of random games (cards, contracts and
    doubles); ``check`` takes every legal answer."""
    rules = RULESETS[name]
    rng = np.random.default_rng(3)
    kinds = set()
    for g in range(2):
        state = GameState.start(SEED + 1, g, rules)
        while (turn := state.turn()).kind != "over":
            view = state.view()
            options = legal(view)
            assert options == state.legal()
            if turn.kind == "play":
                d = decide(view, "basic")
                assert options == (("pass",) if d.card == "pass" else d.legal)
            elif turn.kind == "choose":
                assert options == decide(view, "random").legal
            else:
                assert options == decide(view, "basic").legal
            answer = _random_answer(state, rng)
            assert check(view, answer) is None
            kinds.add(turn.kind)
            state.act(answer)
    assert kinds == ({"choose", "play", "double"} if rules.doubling else {"choose", "play"})
