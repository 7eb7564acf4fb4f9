"""The player protocol, version 1: one JSON object per line, both ways (docs/PROTOCOL.md).

The table manager (TM) sends a player ``hello`` (the ruleset), notices (``game_start``,
``deal_end``, ``game_end``, a refused answer's ``error``) and requests (``play``, ``choose``,
``double``, each with an ``id`` and the seat's whole view); the player answers ``hello`` and
every request, echoing its type and id. This module builds and reads those messages and
nothing else: it checks that an answer is well formed (a card, a variant, seats), not that it
is legal, which is the table manager's business (``decide``'s ``legal``).

Cards are written as the command line writes them (``QS``, ``TH``, ``2C``) and nothing else;
a Domino pass is ``"pass"``. Every error is a ``ProtocolError``: one line naming the field.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView, Weighed
from bonken_sim.engine.views import VIEW_KINDS
from bonken_sim.errors import BadValue
from bonken_sim.files import NotJson, json_document
from bonken_sim.rules.names import BEER_CARD_NAME, VARIANT_NAMES, card_str, parse_hand
from bonken_sim.rules.names import variant_names as ruleset_variant_names
from bonken_sim.rules.rulesets import RulesError, Ruleset, as_ruleset

PROTOCOL_VERSION = 1
MAX_LINE = 64 * 1024  # bytes of one message, its newline left out
REQUESTS = ("play", "choose", "double")  # the messages a player answers (besides hello)
NOTICES = ("game_start", "deal_end", "game_end", "error")  # the TM's messages without an answer
QUIT = {"type": "quit"}

CARDS = tuple(card_str(c) for c in range(52))  # the 52 cards as the protocol writes them
PASS = "pass"
_CARD_SET = frozenset(CARDS)
_ALL_VARIANTS = frozenset((*VARIANT_NAMES, BEER_CARD_NAME))

View = PlayView | ChooseView | DoubleView


class ProtocolError(BadValue):
    """A message that breaks the protocol; the message (one line) names the field."""


class PlayerRefused(ProtocolError):
    """A player answered a request with ``{"type": "error", ...}``: it cannot answer it."""


# -- lines -----------------------------------------------------------------------------------
def encode(msg: Mapping[str, Any]) -> str:
    """One message as one line: compact JSON (ASCII, so any reader takes it as UTF-8) and a
    newline."""
    if not isinstance(msg, Mapping) or not isinstance(msg.get("type"), str):
        raise ProtocolError(f"a message is an object with a type, got {msg!r}")
    try:
        text = json.dumps(dict(msg), separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"{msg.get('type')} message cannot be written as JSON: {exc}") from None
    if len(text) > MAX_LINE:
        raise ProtocolError(f"{msg['type']} message is longer than {MAX_LINE} bytes")
    return text + "\n"


def decode(line: str | bytes) -> dict[str, Any]:
    """One line (its newline optional) as a message: a JSON object with a ``type`` text."""
    raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
    raw = raw.rstrip(b"\r\n")
    if len(raw) > MAX_LINE:
        raise ProtocolError(f"a line is longer than {MAX_LINE} bytes ({len(raw)})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("a line is not UTF-8 text") from None
    try:
        msg = json_document(text, allow_nan=False)
    except NotJson as exc:
        shown = raw[:60].decode("utf-8", "replace")
        raise ProtocolError(f"not JSON ({exc.why}): {shown!r}") from None
    if not isinstance(msg, dict):
        raise ProtocolError(f"a message must be a JSON object, got {type(msg).__name__}")
    if "type" not in msg:
        raise ProtocolError("a message has no 'type'")
    if not isinstance(msg["type"], str):
        raise ProtocolError(f"'type' must be a text, got {msg['type']!r}")
    return msg


def needs_answer(msg: Mapping[str, Any]) -> bool:
    """Whether a player must answer ``msg``: hello and every request (a message with an
    ``id``, whatever its type, error notices apart); notices and quit get no answer."""
    kind = msg.get("type")
    return kind == "hello" or (kind != "error" and "id" in msg)


# -- values ----------------------------------------------------------------------------------
def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(x: Any, field: str, lo: int, hi: int | None = None) -> int:
    if not _is_int(x) or x < lo or (hi is not None and x > hi):
        want = f"an integer {lo}-{hi}" if hi is not None else f"an integer {lo} or more"
        raise ProtocolError(f"{field} must be {want}, got {x!r}")
    return int(x)


def _seat(x: Any, field: str) -> int:
    return _int(x, field, 0, 3)


def _list(x: Any, field: str, size: int | None = None) -> list[Any]:
    if not isinstance(x, list):
        raise ProtocolError(f"{field} must be a list, got {x!r}")
    if size is not None and len(x) != size:
        raise ProtocolError(f"{field} must hold {size} entries, got {len(x)}")
    return x


def _card(x: Any, field: str, allow_pass: bool = False) -> str:
    if isinstance(x, str) and (x in _CARD_SET or (allow_pass and x == PASS)):
        return x
    also = ' or "pass"' if allow_pass else ""
    raise ProtocolError(
        f"{field} must be a card (rank 2-9 T J Q K A, suit C D H S){also}, got {x!r}"
    )


def _cards(x: Any, field: str) -> list[str]:
    cards = [_card(c, f"{field}[{i}]") for i, c in enumerate(_list(x, field))]
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise ProtocolError(f"{field} holds {twice} twice")
    return cards


def _variant(x: Any, field: str, ruleset: Ruleset | None) -> str:
    names = _ALL_VARIANTS if ruleset is None else ruleset_variant_names(ruleset)
    if not isinstance(x, str) or x not in names:
        raise ProtocolError(f"{field} must be a variant name ({', '.join(names)}), got {x!r}")
    return x


def _plays(x: Any, field: str) -> list[tuple[int, str]]:
    out = []
    for i, item in enumerate(_list(x, field)):
        pair = _list(item, f"{field}[{i}]", 2)
        out.append((_seat(pair[0], f"{field}[{i}][0]"), _card(pair[1], f"{field}[{i}][1]", True)))
    return out


def _pairs(x: Any, field: str) -> list[tuple[int, int]]:
    out = []
    for i, item in enumerate(_list(x, field)):
        pair = _list(item, f"{field}[{i}]", 2)
        out.append((_seat(pair[0], f"{field}[{i}][0]"), _seat(pair[1], f"{field}[{i}][1]")))
    return out


def _stake(x: Any, field: str) -> list[list[int]]:
    rows = _list(x, field, 4)
    return [
        [_int(v, f"{field}[{p}][{q}]", 0, 2) for q, v in enumerate(_list(row, f"{field}[{p}]", 4))]
        for p, row in enumerate(rows)
    ]


def _scores(x: Any, field: str) -> list[int]:
    out = []
    for i, v in enumerate(_list(x, field, 4)):
        if not _is_int(v):
            raise ProtocolError(f"{field}[{i}] must be an integer, got {v!r}")
        out.append(int(v))
    return out


def _bool(x: Any, field: str) -> bool:
    if not isinstance(x, bool):
        raise ProtocolError(f"{field} must be true or false, got {x!r}")
    return x


# -- views -----------------------------------------------------------------------------------
def view_kind(view: Any) -> str:
    """``play``, ``choose`` or ``double``: the request a view belongs to."""
    if isinstance(view, PlayView):
        return "play"
    if isinstance(view, ChooseView):
        return "choose"
    if isinstance(view, DoubleView):
        return "double"
    raise ProtocolError(f"not a view: {view!r}")


def _hand_out(hand: str | Sequence[str]) -> list[str]:
    """A view's hand as protocol cards (a text hand in card order, a list as given)."""
    try:
        if isinstance(hand, str):
            mask = parse_hand(hand)
            return [card_str(c) for c in range(52) if mask >> c & 1]
        # cards already written as the protocol writes them pass as they are (the table's
        # views are; parsing each again cost more than the rest of a request)
        return [
            c if isinstance(c, str) and c in _CARD_SET else card_str(parse_hand_card(c))
            for c in hand
        ]
    except BadValue as exc:
        raise ProtocolError(f"view.hand: {exc}") from None


def parse_hand_card(text: Any) -> int:
    """One card of a hand written in any notation the command line takes."""
    mask = parse_hand(str(text))
    if mask == 0 or mask & (mask - 1):
        raise BadValue(f"not one card: {text!r}")
    return mask.bit_length() - 1


def _card_out(card: Any) -> str:
    if isinstance(card, str) and card in _CARD_SET:
        return card
    if card is None or (isinstance(card, str) and card.strip().lower() == PASS):
        return PASS
    if _is_int(card):
        return card_str(int(card))
    return card_str(parse_hand_card(card))


def _is_none(value: Any) -> bool:
    return value is None


@dataclass(frozen=True)
class _Codec:
    """How one view field is written (``write``: the value as JSON) and read back (``read``:
    the JSON value, the field's name for errors, the hello's ruleset); ``left_out``: a value
    the JSON leaves out (the reader then takes the field's default)."""

    write: Callable[[Any], Any]
    read: Callable[[Any, str, Ruleset], Any]
    left_out: Callable[[Any], bool] = _is_none


def _as_json(value: Any) -> Any:
    """A value of a field without a codec of its own, as JSON (tuples as lists)."""
    if isinstance(value, tuple | list):
        return [_as_json(x) for x in value]
    return value


def _from_json(value: Any, field: str, rules: Ruleset) -> Any:
    """A field without a codec of its own, read as given (lists as tuples): the view's own
    checks (``decide``'s) judge it."""
    if isinstance(value, list):
        return tuple(_from_json(x, field, rules) for x in value)
    return value


def _stake_out(stake: Any) -> list[list[int]]:
    rows = stake if stake is not None else [[0] * 4 for _ in range(4)]
    return [[int(v) for v in row] for row in rows]


#: the fields written otherwise than as plain JSON (by name: a name means the same in every
#: view); every other field of a view type is written and read as it is (``_as_json``)
_CODECS: dict[str, _Codec] = {
    "contract": _Codec(str, lambda x, f, rules: _variant(x, f, rules)),
    "dealer": _Codec(int, lambda x, f, rules: _seat(x, f)),
    "seat": _Codec(int, lambda x, f, rules: _seat(x, f)),
    "hand": _Codec(lambda h: _hand_out(h), lambda x, f, rules: tuple(_cards(x, f))),
    "plays": _Codec(
        lambda plays: [[int(s), _card_out(c)] for s, c in plays],
        lambda x, f, rules: tuple(_plays(x, f)),
    ),
    # no doubles in force is written as a matrix of zeros, read back as given
    "stake": _Codec(
        _stake_out,
        lambda x, f, rules: tuple(map(tuple, _stake(x, f))),
        lambda stake: False,
    ),
    "random_seats": _Codec(
        lambda seats: sorted(int(q) for q in seats),
        lambda x, f, rules: tuple(_seat(q, f"{f}[{i}]") for i, q in enumerate(_list(x, f))),
        lambda seats: not seats,  # only where there are any
    ),
    "deal": _Codec(int, lambda x, f, rules: _int(x, f, 0, 10)),
    "open": _Codec(
        lambda names: [str(v) for v in names],
        lambda x, f, rules: tuple(
            _variant(v, f"{f}[{i}]", rules) for i, v in enumerate(_list(x, f))
        ),
    ),
    "had_troeven": _Codec(bool, lambda x, f, rules: _bool(x, f)),
    "chooser_had_troeven": _Codec(bool, lambda x, f, rules: _bool(x, f)),
    "scores": _Codec(
        lambda scores: [int(v) for v in scores], lambda x, f, rules: tuple(_scores(x, f))
    ),
    "doubles": _Codec(
        lambda doubles: [[int(d), int(t)] for d, t in doubles],
        lambda x, f, rules: tuple(_pairs(x, f)),
    ),
}
_PLAIN = _Codec(_as_json, _from_json)
#: a view's fields the JSON leaves out: the ruleset is the hello's
_NOT_SENT = frozenset({"ruleset"})


@dataclass(frozen=True)
class _Field:
    name: str
    codec: _Codec
    required: bool  # the dataclass has no default: the JSON must hold it
    default: Any  # else what an absent field is


def _schema(view_type: type) -> tuple[_Field, ...]:
    """The JSON fields of a view type, in its fields' order (walked at every request: built
    once)."""
    out = []
    for f in dataclasses.fields(view_type):
        if f.name in _NOT_SENT:
            continue
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        out.append(_Field(f.name, _CODECS.get(f.name, _PLAIN), required, default))
    return tuple(out)


_SCHEMAS: dict[str, tuple[_Field, ...]] = {
    kind: _schema(view_type) for kind, view_type in VIEW_KINDS.items()
}


def view_to_json(view: View) -> dict[str, Any]:
    """The ``view`` object of a request for ``view``: each field of its type through its
    codec (the ruleset is the hello's, not here)."""
    out: dict[str, Any] = {}
    for f in _SCHEMAS[view_kind(view)]:
        value = getattr(view, f.name)
        if not f.codec.left_out(value):
            out[f.name] = f.codec.write(value)
    return out


def view_from_json(kind: str, obj: Any, ruleset: Ruleset | str | dict | None) -> View:
    """The view of a ``kind`` request (its ``view`` object) under the hello's ruleset; every
    field's type checked (``ProtocolError`` naming it). A field that is absent, or null
    where the view type allows None, is the type's default (a table manager of an earlier
    release sends fewer fields). Whether the view can arise under the rules is ``decide``'s
    check, not this one's. Unknown fields are ignored."""
    if kind not in _SCHEMAS:
        raise ProtocolError(f"no view for a {kind!r} message (expected {', '.join(REQUESTS)})")
    if not isinstance(obj, dict):
        raise ProtocolError(f"view must be an object, got {obj!r}")
    try:
        rules = as_ruleset(ruleset)
    except RulesError as exc:
        raise ProtocolError(str(exc)) from None
    values: dict[str, Any] = {"ruleset": rules}
    for f in _SCHEMAS[kind]:
        value = obj.get(f.name)
        if value is None and (f.name not in obj or f.default is None):
            if f.required:
                raise ProtocolError(f"view.{f.name} is missing")
            values[f.name] = f.default
        else:
            values[f.name] = f.codec.read(value, f"view.{f.name}", rules)
    return VIEW_KINDS[kind](**values)


# -- requests and answers --------------------------------------------------------------------
def request(kind: str, id: int, view: View) -> dict[str, Any]:
    """The ``kind`` request numbered ``id`` for ``view``."""
    if view_kind(view) != kind:
        raise ProtocolError(f"a {kind} request cannot carry a {view_kind(view)} view")
    return {"type": kind, "id": _int(id, "id", 0), "view": view_to_json(view)}


def weighed_to_json(weighed: Sequence[Weighed]) -> list[dict[str, Any]]:
    """An answer's optional ``weighed`` list (a value that is not finite is written null)."""

    def number(x: float | None) -> float | None:
        return None if x is None or not math.isfinite(x) else float(x)

    return [
        {"option": str(w.option), "value": number(w.value), "se": number(w.se)} for w in weighed
    ]


def _number(x: Any, field: str, nullable: bool) -> float | None:
    if x is None and nullable:
        return None
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ProtocolError(f"{field} must be a number, got {x!r}")
    return float(x)


def _weighed(x: Any) -> tuple[Weighed, ...]:
    out = []
    for i, item in enumerate(_list(x, "weighed")):
        if not isinstance(item, dict):
            raise ProtocolError(f"weighed[{i}] must be an object, got {item!r}")
        option = item.get("option")
        if not isinstance(option, str):
            raise ProtocolError(f"weighed[{i}].option must be a text, got {option!r}")
        value = _number(item.get("value"), f"weighed[{i}].value", nullable=True)
        se = _number(item.get("se"), f"weighed[{i}].se", nullable=True)
        out.append(Weighed(option, math.nan if value is None else value, se))
    return tuple(out)


def answer(kind: str, id: int, value: Any, weighed: Sequence[Weighed] = ()) -> dict[str, Any]:
    """A player's answer to request ``id``: ``value`` a card (or "pass"), a variant or the
    seats doubled."""
    msg: dict[str, Any] = {"type": kind, "id": id}
    if kind == "play":
        msg["card"] = str(value)
    elif kind == "choose":
        msg["contract"] = str(value)
    elif kind == "double":
        msg["doubles"] = sorted(int(q) for q in value)
    else:
        raise ProtocolError(f"no answer to a {kind!r} message")
    if weighed:
        msg["weighed"] = weighed_to_json(weighed)
    return msg


def answer_from_json(
    kind: str, msg: Mapping[str, Any], request_id: int, ruleset: Ruleset | None = None
) -> tuple[str | tuple[int, ...], tuple[Weighed, ...]]:
    """The value of a player's answer to the ``kind`` request ``request_id``: a card or
    "pass", a variant name (of ``ruleset`` when given), or the seats doubled (sorted); and
    what the player weighed, if it said. ``PlayerRefused`` when it answered an error,
    ``ProtocolError`` for anything malformed. Legality is not checked here."""
    got = msg.get("type")
    if got == "error":
        said = msg.get("message")
        raise PlayerRefused(f"the player cannot answer request {request_id}: {said!r}")
    if got != kind:
        raise ProtocolError(f"request {request_id} is a {kind} request, the answer a {got!r}")
    if "id" not in msg:
        raise ProtocolError(f"the answer to request {request_id} has no id")
    if not _is_int(msg["id"]) or msg["id"] != request_id:
        raise ProtocolError(f"the answer to request {request_id} has id {msg['id']!r}")
    value: str | tuple[int, ...]
    if kind == "play":
        if "card" not in msg:
            raise ProtocolError("the play answer has no card")
        value = _card(msg["card"], "card", allow_pass=True)
    elif kind == "choose":
        if "contract" not in msg:
            raise ProtocolError("the choose answer has no contract")
        value = _variant(msg["contract"], "contract", ruleset)
    elif kind == "double":
        if "doubles" not in msg:
            raise ProtocolError("the double answer has no doubles")
        seats = [_seat(q, f"doubles[{i}]") for i, q in enumerate(_list(msg["doubles"], "doubles"))]
        if len(set(seats)) != len(seats):
            raise ProtocolError(f"doubles names a seat twice: {seats}")
        value = tuple(sorted(seats))
    else:
        raise ProtocolError(f"no answer to a {kind!r} message")
    weighed = _weighed(msg["weighed"]) if msg.get("weighed") is not None else ()
    return value, weighed


def error(message: str, id: int | None = None) -> dict[str, Any]:
    """An error: a player's to a request it cannot answer (with its id), or to a line it
    cannot read (without); the TM's notice of a refused answer."""
    msg: dict[str, Any] = {"type": "error"}
    if id is not None:
        msg["id"] = id
    msg["message"] = " ".join(str(message).split())
    return msg


# -- hello and notices -----------------------------------------------------------------------
def hello(ruleset: Ruleset | str | dict | None) -> dict[str, Any]:
    """The TM's hello: the protocol version and the ruleset every request is played under."""
    try:
        rules = as_ruleset(ruleset)
    except RulesError as exc:
        raise ProtocolError(str(exc)) from None
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "ruleset": rules.to_dict()}


def player_hello(name: str, version: str = "") -> dict[str, Any]:
    """A player's answer to hello."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": version}


def ruleset_from_hello(msg: Mapping[str, Any]) -> Ruleset:
    """The ruleset of the TM's hello; ``ProtocolError`` for another protocol version or a
    ruleset record that is not one."""
    if msg.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolError(
            f"protocol {msg.get('protocol')!r} is not spoken here (this is {PROTOCOL_VERSION})"
        )
    try:
        return Ruleset.from_dict(msg.get("ruleset"), where="hello.ruleset")
    except RulesError as exc:
        raise ProtocolError(str(exc)) from None


def hello_from_json(msg: Mapping[str, Any]) -> tuple[str, str]:
    """A player's hello: its (name, version); ``PlayerRefused`` when it answered an error,
    ``ProtocolError`` for another protocol version or a malformed answer."""
    got = msg.get("type")
    if got == "error":
        raise PlayerRefused(f"the player refused the hello: {msg.get('message')!r}")
    if got != "hello":
        raise ProtocolError(f"the answer to hello is a {got!r} message")
    if msg.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolError(
            f"the player speaks protocol {msg.get('protocol')!r}, not {PROTOCOL_VERSION}"
        )
    name, version = msg.get("name"), msg.get("version", "")
    if not isinstance(name, str) or not name.strip():
        raise ProtocolError(f"the player's hello must give a name, got {name!r}")
    if not isinstance(version, str):
        raise ProtocolError(f"the player's hello version must be a text, got {version!r}")
    return name, version


def game_start(game: int, seat: int, players: Sequence[str]) -> dict[str, Any]:
    """A game begins: its number, the player's seat, the four players' names by seat."""
    return {"type": "game_start", "game": int(game), "seat": int(seat), "players": list(players)}


def deal_end(
    game: int,
    deal: int,
    contract: str,
    hands: Sequence[Any],
    plays: Sequence[tuple[int, Any]],
    raw: Sequence[int],
    final: Sequence[int],
    doubles: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """A deal is over: every hand as dealt (card lists, hand texts or card masks), every play
    as (seat, card or "pass"), the raw and the settled scores, the doubles said."""

    def hand(h: Any) -> list[str]:
        if _is_int(h):
            return [card_str(c) for c in range(52) if int(h) >> c & 1]
        return _hand_out(h)

    return {
        "type": "deal_end",
        "game": int(game),
        "deal": int(deal),
        "contract": str(contract),
        "hands": [hand(h) for h in hands],
        "plays": [[int(s), _card_out(c)] for s, c in plays],
        "raw": [int(v) for v in raw],
        "final": [int(v) for v in final],
        "doubles": [[int(d), int(t)] for d, t in doubles],
    }


def game_end(game: int, totals: Sequence[int]) -> dict[str, Any]:
    """A game is over: the four players' totals."""
    return {"type": "game_end", "game": int(game), "totals": [int(v) for v in totals]}
