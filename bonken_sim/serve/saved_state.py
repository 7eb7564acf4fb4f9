"""What a saved game may hold: exactly a game ``TableGame`` could have written.

A saved file is read back by every request on its game, and a file changed by hand (or by
anything else) must not make the engine play cards nobody holds. ``game_of`` checks the
person's fields (their types and ranges) and the seed, game number and rules of the game,
then gives a fresh game of them every answer the file records, in turn, through the game
state's own check (``GameState.act``: every contract open, every double allowed, every card
held and legal at its turn), and asks that the result be the saved game itself: the hands
dealt from the seed, the scores the engine gives, the person's decisions. A file that is not
is refused with the first field that is wrong, and nothing is written.
"""

from __future__ import annotations

import json
from typing import Any

from bonken_sim.engine.games import DEALS_PER_GAME
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.serve.table_game import STATE_VERSION, TableGame, check_players, start_state

#: the person's fields of a saved game (TableGame.to_json); "game" holds the state's
FIELDS = ("version", "id", "you", "players", "seen", "mine", "game")


class NotASavedGame(UserFixableError):
    """A saved state that ``TableGame`` could not have written; the message names the field."""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _whole(value: Any, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def _first_difference(saved: Any, made: Any, where: str) -> str | None:
    """The path of the first value where ``saved`` is not ``made`` (types included: 1.0 and
    True are not 1), or None."""
    if isinstance(made, dict) and isinstance(saved, dict) and set(made) == set(saved):
        for key in made:
            found = _first_difference(saved[key], made[key], f"{where}.{key}" if where else key)
            if found:
                return found
        return None
    if isinstance(made, list) and isinstance(saved, list) and len(made) == len(saved):
        for n, (a, b) in enumerate(zip(saved, made, strict=True)):
            found = _first_difference(a, b, f"{where}[{n}]")
            if found:
                return found
        return None
    if json.dumps(saved) == json.dumps(made):
        return None
    if isinstance(made, dict) and isinstance(saved, dict):
        return f"{where or 'the state'}: the keys {sorted(saved)} are not {sorted(made)}"
    return f"{where}: {_short(saved)} is not what the game's seed and decisions give"


def _check_fields(doc: Any, gid: str) -> None:
    """The person's fields, and the game's seed, number and rules, as ``TableGame`` writes
    them (the rest is checked by playing the game again)."""
    if not isinstance(doc, dict):
        raise NotASavedGame(f"a JSON {type(doc).__name__}, not an object")
    missing = [k for k in FIELDS if k not in doc]
    if missing:
        raise NotASavedGame(f"{missing[0]} is missing")
    if doc["version"] != STATE_VERSION:
        raise NotASavedGame(f"version: {_short(doc['version'])} is not {STATE_VERSION}")
    if doc["id"] != gid:
        raise NotASavedGame(f"id: {_short(doc['id'])} is not the file's name {gid!r}")
    if not _whole(doc["you"], 0, 3):
        raise NotASavedGame(f"you: {_short(doc['you'])} is not a seat 0-3")
    players = doc["players"]
    try:
        ok = isinstance(players, list) and check_players(players, doc["you"]) == players
    except BadValue:
        ok = False
    if not ok:
        raise NotASavedGame(f"players: {_short(players)} is not 'you' and three profiles")
    if not _whole(doc["seen"], 0, DEALS_PER_GAME):
        raise NotASavedGame(f"seen: {_short(doc['seen'])} is not a number of deals 0 to 11")
    game = doc["game"]
    if not isinstance(game, dict):
        raise NotASavedGame(f"game: {_short(game)} is not a game")
    missing = [k for k in ("seed", "game", "ruleset", "deals", "plays") if k not in game]
    if missing:
        raise NotASavedGame(f"game.{missing[0]} is missing")
    if not _whole(game["seed"], 0, 2**64 - 1):
        raise NotASavedGame(f"game.seed: {_short(game['seed'])} is not an integer 0 to 2**64-1")
    if not _whole(game["game"], 0, 2**58 - 1):
        raise NotASavedGame(f"game.game: {_short(game['game'])} is not an integer 0 to 2**58-1")
    if not isinstance(game["deals"], list) or len(game["deals"]) > DEALS_PER_GAME:
        raise NotASavedGame(f"game.deals: {_short(game['deals'])} is not a list of deals")


def _deals(game: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each deal the saved game records ({"contract", "doubles", "spoken", "plays"}) with
    where it is: the finished deals, then the one being played."""
    out = []
    for k, done in enumerate(game["deals"]):
        where = f"game.deals[{k}]"
        if not isinstance(done, dict) or not isinstance(done.get("trace"), dict):
            raise NotASavedGame(f"{where}: {_short(done)} is not a finished deal")
        trace = done["trace"]
        out.append((where, {"contract": done.get("variant"), "doubles": trace.get("doubles"),
                            "spoken": 4, "plays": done.get("plays")}))  # fmt: skip
    out.append(("game", {key: game.get(key) for key in ("contract", "doubles", "spoken",
                                                        "plays")}))  # fmt: skip
    return out


def _pairs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, list) and len(x) == 2 for x in value)


def _replay(g: TableGame, where: str, deal: dict[str, Any]) -> None:
    """Give ``g``'s state the answers of one recorded deal, each through the state's check,
    the person's (but his forced passes) recorded as ``TableGame`` records them; stops where
    the record stops (the final comparison sees what is missing)."""
    state, v = g.state, deal["contract"]
    if v is None:
        return
    doubles, plays, spoken = deal["doubles"], deal["plays"], deal["spoken"]
    if not _whole(v, 0, len(state.names) - 1):
        raise NotASavedGame(f"{where}: contract {_short(v)} is not a variant")
    if not _pairs(doubles):
        raise NotASavedGame(f"{where}.doubles: {_short(doubles)} is not a list of seat pairs")
    if not _pairs(plays):
        raise NotASavedGame(f"{where}.plays: {_short(plays)} is not a list of seats and cards")
    if not _whole(spoken, 0, 4):
        raise NotASavedGame(f"{where}.spoken: {_short(spoken)} is not 0 to 4 seats")
    k = state.deal
    _act(g, state.names[v])
    while state.deal == k and state.turn().kind == "double" and state.spoken < spoken:
        seat = state.turn().seat
        _act(g, [t for q, t in doubles if q == seat])
    for n, (seat, card) in enumerate(plays):
        if state.deal != k or seat != state.turn().seat:
            raise NotASavedGame(f"{where}.plays[{n}]: seat {_short(seat)} plays out of turn")
        try:
            _act(g, card)
        except BadValue:
            raise NotASavedGame(f"{where}.plays[{n}]: seat {seat} may not play "
                                f"{_short(card)}") from None  # fmt: skip


def _act(g: TableGame, answer: Any) -> None:
    """An answer of the seat to act: the person's as his own action, else the state's."""
    state = g.state
    turn = state.turn()
    if turn.seat == g.you and state.legal() not in ((), ("pass",)):
        g.seen = len(state.deals)  # he had gone on to this deal to decide in it
        {"choose": g.choose, "double": g.double, "play": g.play}[turn.kind](answer)
    else:
        state.act(answer)


def game_of(doc: Any, gid: str) -> TableGame:
    """The game of saved ``doc`` of game ``gid``; ``NotASavedGame`` naming the first wrong
    field when ``TableGame`` could not have written it."""
    _check_fields(doc, gid)
    game = doc["game"]
    try:
        rules = Ruleset.from_dict(game["ruleset"])
    except (UserFixableError, BadValue, TypeError, KeyError, AttributeError) as exc:
        raise NotASavedGame(f"game.ruleset: {exc}") from None
    made = TableGame(gid, start_state(game["seed"], game["game"], doc["players"], rules),
                     doc["you"], doc["players"])  # fmt: skip
    for where, deal in _deals(game):
        try:
            _replay(made, where, deal)
        except NotASavedGame:
            raise
        except BadValue as exc:  # an answer the state refuses: the record cannot be right
            raise NotASavedGame(f"{where}: {exc}") from None
    # he has gone on from every finished deal but perhaps the last (it stays on the table
    # until he asks for the next); anything else is not what the game wrote
    done = len(made.state.deals)
    made.seen = doc["seen"] if _whole(doc["seen"], max(done - 1, 0), done) else -1
    found = _first_difference(doc, json.loads(json.dumps(made.to_json())), "")
    if found:
        raise NotASavedGame(found)
    return made
