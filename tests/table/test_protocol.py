"""The player protocol's messages: lines, views to and from JSON, requests, answers, hello."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView, Weighed, decide
from bonken_sim.rules.rulesets import PRESETS, STANDARD, preset
from bonken_sim.table import protocol as P

CLUBS = ("2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC")
HAND = ("2C", "9C", "AD", "3H", "QH", "KH", "4S", "QS", "TS", "5D", "7D", "8H", "JC")

PLAY = PlayView("hartenjagen", dealer=3, seat=1, hand=HAND, plays=((0, "3C"),),
                stake=((0, 1, 0, 0), (1, 0, 0, 0), (0, 0, 0, 2), (0, 0, 2, 0)))  # fmt: skip
CHOOSE = ChooseView(dealer=1, seat=3, hand=HAND, deal=4,
                    open=("bukken", "domino", "troeven_C", "troeven_NT"), had_troeven=False,
                    scores=(10, -20, 5, 5))  # fmt: skip
DOUBLE = DoubleView(dealer=1, seat=1, hand=HAND, contract="vrouwen", doubles=((0, 3),))
DOUBLE_SEARCHED = DoubleView(dealer=1, seat=1, hand=HAND, contract="vrouwen", doubles=((0, 3),),
                             deal=5, open=("bukken", "vrouwen", "troeven_S"),
                             chooser_had_troeven=True)  # fmt: skip


# -- lines --------------------------------------------------------------------------------
def test_encode_is_one_compact_line_and_decodes_back():
    msg = {"type": "play", "id": 7, "card": "QS", "note": "ü"}
    line = P.encode(msg)
    assert line.endswith("\n") and line.count("\n") == 1
    assert " " not in line and line.isascii()
    assert P.decode(line) == msg
    assert P.decode(line.encode()) == msg  # bytes too


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"id": 3}', "no 'type'"),
        ('{"type": 3}', "'type' must be a text"),
        ('{"type": "play", "x": NaN}', "NaN is not a JSON number"),
        ('{"type": "play", "x": Infinity}', "Infinity is not a JSON number"),
        (b'{"type": "\xff"}', "not UTF-8"),
        ('{"type": "play", "pad": "' + "x" * P.MAX_LINE + '"}', "longer than"),
    ],
)
def test_decode_refuses_what_is_not_a_message(line, words):
    with pytest.raises(P.ProtocolError, match=words) as info:
        P.decode(line)
    assert "\n" not in str(info.value)


def test_encode_refuses_what_json_cannot_hold():
    with pytest.raises(P.ProtocolError, match="cannot be written as JSON"):
        P.encode({"type": "x", "value": float("nan")})
    with pytest.raises(P.ProtocolError, match="an object with a type"):
        P.encode({"id": 3})


def test_needs_answer():
    assert P.needs_answer({"type": "hello"})
    assert P.needs_answer({"type": "play", "id": 1})
    assert P.needs_answer({"type": "a later request", "id": 1})
    assert not P.needs_answer({"type": "error", "id": 1, "message": "refused"})
    assert not P.needs_answer({"type": "game_start", "game": 1})
    assert not P.needs_answer(P.QUIT)


# -- views --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "view", [PLAY, CHOOSE, DOUBLE, DOUBLE_SEARCHED], ids=["play", "choose", "double", "searched"]
)
@pytest.mark.parametrize("rules", ["standard", "strict"])
def test_view_round_trips_and_decides_the_same(view, rules):
    kind = P.view_kind(view)
    view = type(view)(**{**view.__dict__, "ruleset": preset(rules)})
    msg = P.decode(P.encode(P.request(kind, 12, view)))
    assert msg["type"] == kind and msg["id"] == 12
    assert "ruleset" not in msg["view"]
    back = P.view_from_json(kind, msg["view"], preset(rules).to_dict())
    assert type(back) is type(view)
    assert P.view_to_json(back) == msg["view"]
    assert back.ruleset == preset(rules)
    assert decide(back, "basic") == decide(view, "basic")


def test_view_json_is_the_spec_shape():
    assert P.view_to_json(PLAY) == {
        "contract": "hartenjagen",
        "dealer": 3,
        "seat": 1,
        "hand": list(HAND),
        "plays": [[0, "3C"]],
        "stake": [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 2, 0]],
    }
    assert P.view_to_json(CHOOSE) == {
        "dealer": 1, "seat": 3, "hand": list(HAND), "deal": 4,
        "open": ["bukken", "domino", "troeven_C", "troeven_NT"], "had_troeven": False,
        "scores": [10, -20, 5, 5],
    }  # fmt: skip
    assert P.view_to_json(DOUBLE) == {
        "dealer": 1, "seat": 1, "hand": list(HAND), "contract": "vrouwen", "doubles": [[0, 3]],
        "chooser_had_troeven": False,
    }  # fmt: skip
    assert P.view_to_json(DOUBLE_SEARCHED) == {
        "dealer": 1, "seat": 1, "hand": list(HAND), "contract": "vrouwen", "doubles": [[0, 3]],
        "deal": 5, "open": ["bukken", "vrouwen", "troeven_S"], "chooser_had_troeven": True,
    }  # fmt: skip


@pytest.mark.parametrize("view_type", [PlayView, ChooseView, DoubleView])
def test_every_field_of_a_view_type_is_in_its_json(view_type):
    """A field added to a view type is in the protocol without an edit here: the JSON
    fields are the type's, the ruleset (the hello's) apart."""
    view = {PlayView: PLAY, ChooseView: CHOOSE, DoubleView: DOUBLE_SEARCHED}[view_type]
    names = [f.name for f in dataclasses.fields(view_type) if f.name != "ruleset"]
    written = P.view_to_json(view)
    assert [n for n in names if n in written] == list(written)
    assert set(names) - set(written) <= {"random_seats"}  # only where there are any
    back = P.view_from_json(P.view_kind(view), written, STANDARD)
    assert P.view_to_json(back) == written


def test_a_view_field_without_a_codec_is_plain_json():
    @dataclasses.dataclass(frozen=True)
    class Later(DoubleView):
        hint: tuple[int, ...] = ()

    schema = P._schema(Later)
    assert [f.name for f in schema][-1] == "hint"
    codec = schema[-1].codec
    assert codec.write((1, (2, 3))) == [1, [2, 3]]
    assert codec.read([1, [2, 3]], "view.hint", STANDARD) == (1, (2, 3))


def test_a_double_view_from_an_earlier_table_manager_lacks_the_search_fields():
    older = {"dealer": 1, "seat": 1, "hand": list(HAND), "contract": "vrouwen", "doubles": []}
    view = P.view_from_json("double", older, None)
    assert (view.deal, view.open, view.chooser_had_troeven) == (None, None, False)
    nulls = P.view_from_json("double", {**older, "deal": None, "open": None}, None)
    assert (nulls.deal, nulls.open) == (None, None)
    assert "deal" not in P.view_to_json(view) and "open" not in P.view_to_json(view)


def test_view_to_json_writes_cards_as_the_cli_does():
    view = PlayView("domino", dealer=0, seat=1, hand="10h qs 2♣", plays=[(0, "pass")])
    out = P.view_to_json(view)
    assert out["hand"] == ["2C", "TH", "QS"] and out["plays"] == [[0, "pass"]]
    assert out["stake"] == [[0] * 4] * 4  # no doubles: zeros, always there
    assert "random_seats" not in out
    with_random = PlayView("bukken", 0, 1, CLUBS, random_seats=(3, 2))
    assert P.view_to_json(with_random)["random_seats"] == [2, 3]


def test_view_from_json_fills_the_optional_fields():
    play = P.view_from_json("play", {"contract": "bukken", "dealer": 0, "seat": 1,
                                     "hand": list(CLUBS), "future": 1}, None)  # fmt: skip
    assert play.plays == () and play.stake is None and play.random_seats == ()
    assert play.ruleset == STANDARD
    choose = P.view_from_json("choose", {"dealer": 0, "seat": 2, "hand": list(CLUBS),
                                         "deal": 0, "open": ["bukken"]}, None)  # fmt: skip
    assert choose.had_troeven is False and tuple(choose.scores) == (0, 0, 0, 0)
    double = P.view_from_json("double", {"dealer": 0, "seat": 3, "hand": list(CLUBS),
                                         "contract": "bukken"}, None)  # fmt: skip
    assert double.doubles == ()


def _play(**change):
    return {**P.view_to_json(PLAY), **change}


@pytest.mark.parametrize(
    ("kind", "obj", "field"),
    [
        ("play", _play(hand=["2C", "XX"]), "view.hand[1]"),
        ("play", _play(hand=["qs"]), "view.hand[0]"),
        ("play", _play(hand=["2C", "2C"]), "view.hand holds 2C twice"),
        ("play", _play(hand="2C 3C"), "view.hand must be a list"),
        ("play", _play(seat=4), "view.seat"),
        ("play", _play(seat=True), "view.seat"),
        ("play", _play(dealer="0"), "view.dealer"),
        ("play", _play(contract="troeven"), "view.contract"),
        ("play", _play(contract="bierkaart"), "view.contract"),
        ("play", _play(plays=[[0, "3C", 1]]), "view.plays[0]"),
        ("play", _play(plays=[["0", "3C"]]), "view.plays[0][0]"),
        ("play", _play(plays=[[0, "nope"]]), "view.plays[0][1]"),
        ("play", _play(stake=[[0, 0, 0, 0]] * 3), "view.stake"),
        ("play", _play(stake=[[0, 0, 0, 3]] * 4), "view.stake[0][3]"),
        ("play", _play(random_seats=[7]), "view.random_seats[0]"),
        ("play", {k: v for k, v in _play().items() if k != "contract"}, "view.contract is missing"),
        ("play", [1, 2], "view must be an object"),
        ("choose", {**P.view_to_json(CHOOSE), "deal": 11}, "view.deal"),
        ("choose", {**P.view_to_json(CHOOSE), "open": ["nope"]}, "view.open[0]"),
        ("choose", {**P.view_to_json(CHOOSE), "had_troeven": 0}, "view.had_troeven"),
        ("choose", {**P.view_to_json(CHOOSE), "scores": [1, 2, 3]}, "view.scores"),
        ("choose", {**P.view_to_json(CHOOSE), "scores": [1, 2, 3, 4.5]}, "view.scores[3]"),
        ("double", {**P.view_to_json(DOUBLE), "doubles": [[0, 9]]}, "view.doubles[0][1]"),
        ("double", {**P.view_to_json(DOUBLE), "doubles": [0, 3]}, "view.doubles[0]"),
        ("double", {**P.view_to_json(DOUBLE), "deal": 11}, "view.deal"),
        ("double", {**P.view_to_json(DOUBLE), "open": ["vrouwen", "nope"]}, "view.open[1]"),
        ("double", {**P.view_to_json(DOUBLE), "open": "vrouwen"}, "view.open"),
        (
            "double",
            {**P.view_to_json(DOUBLE), "chooser_had_troeven": 1},
            "view.chooser_had_troeven",
        ),
        ("choose", {**P.view_to_json(CHOOSE), "deal": None}, "view.deal"),
        ("bid", P.view_to_json(DOUBLE), "no view for a 'bid' message"),
    ],
)
def test_view_from_json_names_the_bad_field(kind, obj, field):
    with pytest.raises(P.ProtocolError, match=re.escape(field)):
        P.view_from_json(kind, obj, None)


def test_view_from_json_reads_names_under_the_ruleset():
    beer = preset("bierkaart")
    view = P.view_from_json("play", _play(contract="bierkaart"), beer.to_dict())
    assert view.contract == "bierkaart"
    with pytest.raises(P.ProtocolError, match="view.contract"):
        P.view_from_json("play", _play(contract="domino"), beer)
    with pytest.raises(P.ProtocolError, match="unknown ruleset"):
        P.view_from_json("play", _play(), "no-such-rules")


def test_request_kind_must_fit_the_view():
    with pytest.raises(P.ProtocolError, match="cannot carry a choose view"):
        P.request("play", 1, CHOOSE)
    with pytest.raises(P.ProtocolError, match="id must be"):
        P.request("play", -1, PLAY)


# -- answers ------------------------------------------------------------------------------
def test_answers_round_trip():
    weighed = (Weighed("QS", -3.25, 0.5), Weighed("2C", -4.0))
    msg = P.decode(P.encode(P.answer("play", 7, "QS", weighed)))
    assert msg["card"] == "QS" and msg["weighed"] == [
        {"option": "QS", "value": -3.25, "se": 0.5},
        {"option": "2C", "value": -4.0, "se": None},
    ]
    assert P.answer_from_json("play", msg, 7) == ("QS", weighed)
    assert P.answer_from_json("play", {"type": "play", "id": 7, "card": "pass"}, 7) == ("pass", ())
    choose = P.answer("choose", 8, "troeven_H")
    assert P.answer_from_json("choose", choose, 8, STANDARD) == ("troeven_H", ())
    double = P.answer("double", 9, (3, 1))
    assert double["doubles"] == [1, 3]
    assert P.answer_from_json("double", {"type": "double", "id": 9, "doubles": [3, 1]}, 9) == (
        (1, 3), ())  # fmt: skip
    assert P.answer_from_json("double", {"type": "double", "id": 9, "doubles": []}, 9) == ((), ())


def test_weighed_not_finite_is_written_null():
    msg = P.answer("play", 1, "2C", (Weighed("2C", float("inf"), float("nan")),))
    assert msg["weighed"] == [{"option": "2C", "value": None, "se": None}]
    P.encode(msg)


@pytest.mark.parametrize(
    ("kind", "msg", "words"),
    [
        ("play", {"type": "choose", "id": 7, "contract": "bukken"}, "the answer a 'choose'"),
        ("play", {"type": "play", "card": "QS"}, "has no id"),
        ("play", {"type": "play", "id": 6, "card": "QS"}, "has id 6"),
        ("play", {"type": "play", "id": True, "card": "QS"}, "has id True"),
        ("play", {"type": "play", "id": "7", "card": "QS"}, "has id '7'"),
        ("play", {"type": "play", "id": 7}, "no card"),
        ("play", {"type": "play", "id": 7, "card": "qs"}, "card must be a card"),
        ("play", {"type": "play", "id": 7, "card": "10S"}, "card must be a card"),
        ("play", {"type": "play", "id": 7, "card": 12}, "card must be a card"),
        ("choose", {"type": "choose", "id": 7}, "no contract"),
        ("choose", {"type": "choose", "id": 7, "contract": "troeven"}, "contract must be"),
        ("double", {"type": "double", "id": 7}, "no doubles"),
        ("double", {"type": "double", "id": 7, "doubles": 1}, "doubles must be a list"),
        ("double", {"type": "double", "id": 7, "doubles": [4]}, r"doubles\[0\]"),
        ("double", {"type": "double", "id": 7, "doubles": [1, 1]}, "a seat twice"),
        ("play", {"type": "play", "id": 7, "card": "QS", "weighed": {}}, "weighed must be"),
        (
            "play",
            {"type": "play", "id": 7, "card": "QS", "weighed": [{"value": 1}]},
            r"weighed\[0\].option",
        ),  # fmt: skip
        (
            "play",
            {"type": "play", "id": 7, "card": "QS", "weighed": [{"option": "QS", "value": "1"}]},
            r"weighed\[0\].value",
        ),  # fmt: skip
        ("bid", {"type": "bid", "id": 7}, "no answer to a 'bid'"),
    ],
)
def test_answer_from_json_refuses_a_malformed_answer(kind, msg, words):
    with pytest.raises(P.ProtocolError, match=words):
        P.answer_from_json(kind, msg, 7)


def test_an_error_answer_is_a_refusal():
    with pytest.raises(P.PlayerRefused, match="cannot answer request 7: 'no idea'"):
        P.answer_from_json("play", {"type": "error", "id": 7, "message": "no idea"}, 7)


def test_legality_is_not_checked_here():
    # the seat holds no QS: the table manager's check, not the protocol's
    assert P.answer_from_json("play", {"type": "play", "id": 1, "card": "QS"}, 1)[0] == "QS"
    assert P.answer_from_json("double", {"type": "double", "id": 1, "doubles": [0]}, 1)[0] == (0,)


def test_choose_answer_names_under_the_ruleset():
    msg = {"type": "choose", "id": 1, "contract": "bierkaart"}
    assert P.answer_from_json("choose", msg, 1)[0] == "bierkaart"  # some ruleset has it
    assert P.answer_from_json("choose", msg, 1, preset("bierkaart"))[0] == "bierkaart"
    with pytest.raises(P.ProtocolError, match="contract must be"):
        P.answer_from_json("choose", msg, 1, STANDARD)


# -- hello and notices --------------------------------------------------------------------
@pytest.mark.parametrize("name", list(PRESETS))
def test_hello_carries_the_ruleset(name):
    msg = P.decode(P.encode(P.hello(name)))
    assert msg["type"] == "hello" and msg["protocol"] == P.PROTOCOL_VERSION == 1
    assert P.ruleset_from_hello(msg) == preset(name)


def test_hello_refusals():
    with pytest.raises(P.ProtocolError, match="protocol 2 is not spoken"):
        P.ruleset_from_hello({**P.hello(None), "protocol": 2})
    with pytest.raises(P.ProtocolError, match="hello.ruleset"):
        P.ruleset_from_hello({**P.hello(None), "ruleset": {"heart_lead": "sometimes"}})
    with pytest.raises(P.ProtocolError, match="unknown ruleset"):
        P.hello("nope")


def test_player_hello():
    msg = P.player_hello("lowest", "1.0")
    assert msg == {"type": "hello", "protocol": 1, "name": "lowest", "version": "1.0"}
    assert P.hello_from_json(msg) == ("lowest", "1.0")
    assert P.hello_from_json({"type": "hello", "protocol": 1, "name": "x"}) == ("x", "")
    with pytest.raises(P.ProtocolError, match="speaks protocol 2"):
        P.hello_from_json({**msg, "protocol": 2})
    with pytest.raises(P.ProtocolError, match="must give a name"):
        P.hello_from_json({**msg, "name": ""})
    with pytest.raises(P.ProtocolError, match="is a 'play' message"):
        P.hello_from_json({"type": "play"})
    with pytest.raises(P.PlayerRefused, match="refused the hello"):
        P.hello_from_json({"type": "error", "message": "not my rules"})


def test_notices():
    players = ["basic", "me", "x", "y"]
    start = {"type": "game_start", "game": 12, "seat": 2, "players": players}
    assert P.game_start(12, 2, players) == start
    end = P.deal_end(12, 4, "domino", [(1 << 13) - 1, "QS TH", ["2D"], ()],
                     [(1, 0), (2, None), (3, "AS")], [0, -50, 0, 0], [0, -60, 10, 0],
                     [(0, 1)])  # fmt: skip
    assert end["hands"] == [list(CLUBS), ["TH", "QS"], ["2D"], []]
    assert end["plays"] == [[1, "2C"], [2, "pass"], [3, "AS"]]
    assert end["doubles"] == [[0, 1]] and end["final"] == [0, -60, 10, 0]
    assert P.game_end(12, [1, 2, 3, -6]) == {
        "type": "game_end",
        "game": 12,
        "totals": [1, 2, 3, -6],
    }
    assert P.QUIT == {"type": "quit"}
    for msg in (end, P.game_start(1, 0, ["a"] * 4), P.QUIT, P.error("x\ny", 3)):
        assert json.loads(P.encode(msg)) == msg
    assert P.error("x\ny", 3) == {"type": "error", "id": 3, "message": "x y"}
