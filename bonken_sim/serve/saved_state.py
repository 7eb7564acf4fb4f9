"""What a saved game may hold: exactly a state ``TableGame`` could have written.

A saved file is read back by every request on its game, and a file changed by hand (or by
anything else) must not make the engine play cards nobody holds. ``game_of`` checks the
fields ``TableGame.new`` writes (their types and ranges), then plays the recorded decisions
again on a fresh game of the same seed, seats and rules (every contract open, every double
allowed, every card held and legal at its turn) and asks that the result be the saved state
itself: the hands dealt from the seed, the scores the engine gives, the person's decisions.
A state that is not is refused with the first field that is wrong, and nothing is written.
"""

from __future__ import annotations

import json
from typing import Any

from bonken_sim.engine.decide import decide, legal_contracts, legal_doubles
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.models.doubling import pass_order
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.serve.table_game import DEALS_PER_GAME, STATE_VERSION, TableGame, check_players

#: the fields of a saved state and of each of its deals (TableGame.new, TableGame._start_deal)
FIELDS = ("version", "id", "seed", "game", "you", "players", "ruleset", "deals")
DEAL_FIELDS = ("k", "dealer", "hands", "contract", "doubles", "passed", "plays", "raw", "final",
               "mine")  # fmt: skip


class NotASavedGame(UserFixableError):
    """A saved state that ``TableGame`` could not have written; the message names the field."""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _whole(value: Any, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def _seat(value: Any) -> bool:
    return _whole(value, 0, 3)


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


def _check_fields(state: Any, gid: str) -> None:
    """The top fields, and the decisions of each deal, as ``TableGame`` writes them."""
    if not isinstance(state, dict):
        raise NotASavedGame(f"a JSON {type(state).__name__}, not an object")
    missing = [k for k in FIELDS if k not in state]
    if missing:
        raise NotASavedGame(f"{missing[0]} is missing")
    if state["version"] != STATE_VERSION:
        raise NotASavedGame(f"version: {_short(state['version'])} is not {STATE_VERSION}")
    if state["id"] != gid:
        raise NotASavedGame(f"id: {_short(state['id'])} is not the file's name {gid!r}")
    if not _whole(state["seed"], 0, 2**64 - 1):
        raise NotASavedGame(f"seed: {_short(state['seed'])} is not an integer 0 to 2**64-1")
    if not _whole(state["game"], 0, 2**58 - 1):
        raise NotASavedGame(f"game: {_short(state['game'])} is not an integer 0 to 2**58-1")
    if not _seat(state["you"]):
        raise NotASavedGame(f"you: {_short(state['you'])} is not a seat 0-3")
    players = state["players"]
    try:
        ok = isinstance(players, list) and check_players(players, state["you"]) == players
    except BadValue:
        ok = False
    if not ok:
        raise NotASavedGame(f"players: {_short(players)} is not 'you' and three profiles")
    deals = state["deals"]
    if not isinstance(deals, list) or not 1 <= len(deals) <= DEALS_PER_GAME:
        raise NotASavedGame(f"deals: {_short(deals)} is not a list of 1 to 11 deals")
    for k, deal in enumerate(deals):
        where = f"deals[{k}]"
        if not isinstance(deal, dict):
            raise NotASavedGame(f"{where}: {_short(deal)} is not a deal")
        missing = [f for f in DEAL_FIELDS if f not in deal]
        if missing:
            raise NotASavedGame(f"{where}.{missing[0]} is missing")
        if deal["contract"] is not None and not isinstance(deal["contract"], str):
            raise NotASavedGame(f"{where}.contract: {_short(deal['contract'])} is not a name")
        if not isinstance(deal["doubles"], list):
            raise NotASavedGame(f"{where}.doubles: {_short(deal['doubles'])} is not a list")
        for n, pair in enumerate(deal["doubles"]):
            if not (isinstance(pair, list) and len(pair) == 2 and all(map(_seat, pair))):
                raise NotASavedGame(f"{where}.doubles[{n}]: {_short(pair)} is not two seats")
        passed = deal["passed"]
        if not isinstance(passed, list) or len(passed) > 4 or not all(map(_seat, passed)):
            raise NotASavedGame(f"{where}.passed: {_short(passed)} is not up to four seats")
        if not isinstance(deal["plays"], list):
            raise NotASavedGame(f"{where}.plays: {_short(deal['plays'])} is not a list")
        for n, play in enumerate(deal["plays"]):
            if not (isinstance(play, list) and len(play) == 2 and _seat(play[0])) or not (
                isinstance(play[1], str)
            ):
                raise NotASavedGame(f"{where}.plays[{n}]: {_short(play)} is not a seat and card")


def _replay_deal(g: TableGame, saved: dict[str, Any]) -> None:
    """Deal the next deal of ``g`` and make the decisions ``saved`` records, each checked as
    the game checks the person's (a computer's are always legal)."""
    g._start_deal()
    deal, you = g.deal, g.you
    where = f"deals[{deal['k']}]"
    contract = saved["contract"]
    if contract is None:
        return  # nothing more is decided before the choice (the final comparison sees it)
    open_ = legal_contracts(g.choose_view(deal))
    if contract not in open_:
        raise NotASavedGame(f"{where}.contract: {contract!r} is not open ({', '.join(open_)})")
    if (deal["dealer"] + 2) & 3 == you:
        deal["mine"].append({"kind": "choose", "at": 0, "chosen": contract})
    deal["contract"] = contract
    doubles = saved["doubles"]
    if not g.rules.doubling and (saved["passed"] or doubles):
        raise NotASavedGame(f"{where}: doubles under rules without doubling")
    used = 0
    for n, seat in enumerate(saved["passed"]):
        if seat != pass_order(deal["dealer"])[n]:
            raise NotASavedGame(f"{where}.passed[{n}]: seat {seat} doubles out of turn")
        allowed = legal_doubles(g.double_view(deal, seat))
        targets = []
        while used < len(doubles) and doubles[used][0] == seat:
            targets.append(doubles[used][1])
            used += 1
        if len(set(targets)) != len(targets) or not set(targets) <= set(allowed):
            raise NotASavedGame(f"{where}.doubles: seat {seat} may not double {targets}")
        if seat == you and allowed:
            deal["mine"].append({"kind": "double", "at": len(deal["doubles"]), "chosen": targets})
        g._apply_doubles(seat, targets)
    if used < len(doubles):
        raise NotASavedGame(f"{where}.doubles[{used}]: {doubles[used]} is not in turn")
    if saved["plays"] and g.rules.doubling and len(deal["passed"]) < 4:
        raise NotASavedGame(f"{where}.plays: cards played before the doubling is over")
    for n, (seat, card) in enumerate(saved["plays"]):
        turn = -1 if g.deal_done(deal) else g.play_seat(deal)
        if seat != turn:
            raise NotASavedGame(f"{where}.plays[{n}]: seat {seat} plays out of turn")
        d = decide(g.play_view(deal), "basic")
        if card not in d.legal and not card == d.card == "pass":  # a Domino pass is forced
            raise NotASavedGame(f"{where}.plays[{n}]: seat {seat} may not play {_short(card)}")
        if seat == you and card != "pass":
            deal["mine"].append({"kind": "play", "at": len(deal["plays"]), "chosen": card})
        g._apply_play(seat, card)


def game_of(state: Any, gid: str) -> TableGame:
    """The game of saved state ``state`` of game ``gid``; ``NotASavedGame`` naming the first
    wrong field when ``TableGame`` could not have written it."""
    _check_fields(state, gid)
    try:
        rules = Ruleset.from_dict(state["ruleset"])
    except UserFixableError as exc:
        raise NotASavedGame(str(exc)) from None
    fresh = {k: state[k] for k in FIELDS if k != "deals"}
    made = TableGame({**fresh, "ruleset": rules.to_dict(), "deals": []})
    for k, deal in enumerate(state["deals"]):
        if k and not made.deal_done(made.deal):
            raise NotASavedGame(f"deals[{k}]: a deal after deals[{k - 1}], which is not over")
        try:
            _replay_deal(made, deal)
        except BadValue as exc:  # a view the engine refuses: the decisions cannot be right
            raise NotASavedGame(f"deals[{k}]: {exc}") from None
    found = _first_difference(state, made.state, "")
    if found:
        raise NotASavedGame(found)
    return made
