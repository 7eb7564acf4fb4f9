"""One game of Bonken at the web app's table: a person at one seat, computer players at the
others, on the game state (``engine.game_state.GameState``), which deals, says whose turn it
is, gives each seat its view, checks and applies every answer and settles each deal.

What is the person's, and only that, lives here: which seat is his, the computer seats'
profiles, the computer turns run (``advance``: ``decide`` for the seat to act, from its view,
with a seed of the game's seed, the deal and the step), the person's actions (an answer the
state refuses is a ``GameError`` with the state's reason; an action out of turn
``OutOfTurn``), the finished deals he has gone on from (``seen``: a finished deal stays on
the table until he asks for the next) and his own decisions (``mine``, what the review
weighs). A basic or advanced seat decides exactly as in ``bonken-sim game``.

The whole game is JSON (``TableGame.to_json``): the state's JSON and the person's fields; the
web app saves it after every decision and a new process continues from it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from bonken_sim.engine.decide import decide, seat_policy
from bonken_sim.engine.game_state import GameState, Refused
from bonken_sim.engine.games import DEALS_PER_GAME
from bonken_sim.engine.play import Playout, TrickResult, is_domino
from bonken_sim.errors import BadValue
from bonken_sim.rules.doubling import pass_order
from bonken_sim.rules.names import Variant, card_str, parse_card, parse_variant
from bonken_sim.rules.rulesets import Ruleset

#: 2: the game state's JSON under "game" (1 held the deals as the web app replayed them)
STATE_VERSION = 2
#: the profiles a computer seat may play (any of engine.games.PROFILES, or expert:K:E, works)
TABLE_PROFILES = ("random", "basic", "advanced", "expert")
YOU = "you"


class GameError(BadValue):
    """A request the game refuses (a card not held or not legal, a contract not open, a
    double the rules forbid, an action out of turn); nothing changed."""


class OutOfTurn(GameError):
    """An action that is not the person's to take now."""


def decision_seed(seed: int, deal_index: int, step: int) -> int:
    """The seed of one computer decision (a random seat's draw, an expert's samples): a pure
    function of the game's seed, the deal and the step in it."""
    return (seed * 0x9E3779B1 + deal_index * 1_000_003 + step) % (2**63)


def check_players(players: list[str], you: int) -> list[str]:
    """Four seats: ``you`` at the person's seat, a profile at each other (checked by
    ``decide``'s own parser)."""
    if isinstance(you, bool) or not isinstance(you, int) or not 0 <= you <= 3:
        raise GameError(f"your seat must be 0-3, got {you!r}")
    if not isinstance(players, list) or len(players) != 4:
        raise GameError("players must be four entries, one per seat")
    out = []
    for seat, name in enumerate(players):
        if seat == you:
            out.append(YOU)
            continue
        if not isinstance(name, str) or name.strip().lower() == YOU:
            raise GameError(f"seat {seat} needs a computer profile, got {name!r}")
        out.append(seat_policy(name).name)
    return out


def start_state(seed: int, game: int, players: list[str], rules: Ruleset) -> GameState:
    """A new game's state; the random seats named so that their views say so."""
    random_seats = tuple(q for q, name in enumerate(players) if name == "random")
    return GameState.start(seed, game, rules, random_seats=random_seats)


class TableGame:
    """A game in progress or finished: ``state`` (the game), ``gid``, ``you``, ``players``
    (``"you"`` at the person's seat), ``seen`` and ``mine`` (his decisions, a list per deal
    up to the last he decided in)."""

    def __init__(self, gid: str, state: GameState, you: int, players: list[str], seen: int = 0,
                 mine: list[list[dict[str, Any]]] | None = None) -> None:  # fmt: skip
        self.gid = gid
        self.state = state
        self.you = you
        self.players = players
        self.seen = seen
        self.mine: list[list[dict[str, Any]]] = [] if mine is None else mine

    @classmethod
    def new(cls, game_id: str, seed: int, players: list[str], you: int, rules: Ruleset,
            game: int = 0) -> TableGame:  # fmt: skip
        seats = check_players(players, you)
        if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < 2**58:
            raise GameError(f"game must be an integer from 0 to 2**58-1, got {game!r}")
        return cls(game_id, start_state(int(seed), game, seats, rules), you, seats)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "id": self.gid,
            "you": self.you,
            "players": list(self.players),
            "seen": self.seen,
            "mine": self.mine,
            "game": self.state.to_json(),
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> TableGame:
        """A game from ``to_json``'s data (checked data: ``saved_state.game_of``)."""
        if doc.get("version") != STATE_VERSION:
            raise GameError(f"not a saved game of this version: {doc.get('version')!r}")
        state = GameState.from_json(doc["game"])
        return cls(doc["id"], state, doc["you"], doc["players"], doc["seen"], doc["mine"])

    # -- where the game is -------------------------------------------------------------------
    @property
    def rules(self) -> Ruleset:
        return self.state.ruleset

    def deal_index(self, k: int) -> int:
        """Deal ``k`` of this game as a deal of the seed."""
        return DEALS_PER_GAME * self.state.game + k

    def over(self) -> bool:
        return self.state.turn().kind == "over"

    def turn(self) -> tuple[str, int]:
        """(what is to do, by which seat): choose, double or play; ``next`` (a deal is over,
        the person starts the next one) or ``over`` (seat -1)."""
        turn = self.state.turn()
        if turn.kind == "over":
            return "over", -1
        if self.seen < len(self.state.deals):
            return "next", self.you
        return turn.kind, turn.seat

    def shown(self) -> int:
        """The deal on the table: the one being played, else the last finished."""
        on_table = self.turn()[0] not in ("next", "over")
        return self.state.deal if on_table else len(self.state.deals) - 1

    def deal(self, k: int) -> dict[str, Any]:
        """Deal ``k`` (finished or being played) as the page and the review read it."""
        s = self.state
        if k < len(s.deals):
            done = s.deals[k]
            trace = done["trace"]
            return {"k": k, "dealer": trace["dealer"], "contract": s.names[done["variant"]],
                    "doubles": trace["doubles"], "spoken": 4 if s.doubling else 0,
                    "plays": done["plays"], "hands": trace["hands"], "raw": trace["scores"],
                    "final": trace["final"], "done": True}  # fmt: skip
        return {"k": k, "dealer": s.dealer,
                "contract": None if s.contract is None else s.names[s.contract],
                "doubles": [list(x) for x in s.doubles], "spoken": s.spoken,
                "plays": [list(x) for x in s.plays], "hands": None, "raw": None,
                "final": None, "done": False}  # fmt: skip

    def passed(self, deal: dict[str, Any]) -> list[int]:
        """The seats through the doubling pass of ``deal``."""
        return list(pass_order(deal["dealer"])[: deal["spoken"]])

    def hand_now(self, seat: int) -> list[str]:
        """``seat``'s cards now in the deal being played (none once it is over)."""
        return list(self.state.hand(seat)) if self.turn()[0] not in ("next", "over") else []

    def variant(self, deal: dict[str, Any]) -> Variant:
        return parse_variant(deal["contract"], ruleset=self.rules)

    def domino(self, deal: dict[str, Any]) -> bool:
        return is_domino(self.variant(deal), self.rules)

    def totals(self) -> list[int]:
        return list(self.state.totals)

    # -- acting ------------------------------------------------------------------------------
    def legal(self) -> dict[str, Any]:
        """The person's options now: ``{"kind": ..., "options": [...]}`` (none when it is
        not his turn); the seats to double as integers."""
        kind, seat = self.turn()
        if seat != self.you or kind not in ("choose", "double", "play"):
            return {"kind": kind, "options": []}
        options = self.state.legal()
        return {"kind": kind, "options": [int(t) for t in options] if kind == "double"
                else list(options)}  # fmt: skip

    def _expect(self, kind: str) -> None:
        now, seat = self.turn()
        if now == "over":
            raise OutOfTurn("the game is over")
        if seat != self.you or now != kind:
            who = "you" if seat == self.you else f"seat {seat}"
            raise OutOfTurn(f"it is not your turn to {kind}: {who} is to {now}")

    def _act(self, kind: str, answer: Any) -> None:
        """The person's answer, through the state's check; his decision recorded."""
        self._expect(kind)
        s = self.state
        at = {"choose": 0, "double": len(s.doubles), "play": len(s.plays)}[kind]
        k = s.deal
        try:
            s.act(answer)
        except Refused as exc:
            raise GameError(exc.reason) from None
        self._record(k, kind, at, answer)

    def _record(self, k: int, kind: str, at: int, answer: Any) -> None:
        while len(self.mine) <= k:
            self.mine.append([])
        self.mine[k].append({"kind": kind, "at": at, "chosen": answer})

    def choose(self, contract: Any) -> None:
        self._act("choose", contract)

    def double(self, targets: Any) -> None:
        # a list of seats is the state's answer; anything else its refusal says why
        self._act("double", list(targets) if isinstance(targets, list) else targets)

    def play(self, card: Any) -> None:
        if isinstance(card, str):
            try:
                card = card_str(parse_card(card))
            except BadValue:
                pass  # the state's refusal names it
        self._act("play", card)

    def next_deal(self) -> None:
        self._expect("next")
        self.seen = len(self.state.deals)

    def advance(self, saved: Callable[[], None] | None = None) -> None:
        """Play the computer seats (and the person's forced moves: a Domino pass, a doubling
        turn with nobody to double) until the person is to decide or the game is over;
        ``saved()`` after every decision."""
        s = self.state
        while True:
            kind, seat = self.turn()
            if kind in ("next", "over"):
                return
            if seat == self.you:
                forced = {"play": ("pass",), "double": ()}.get(kind)
                if forced is None or s.legal() != forced:
                    return
                s.act("pass" if kind == "play" else [])
            else:
                step = s.spoken + len(s.plays) + (s.contract is not None)
                seed = decision_seed(s.seed, self.deal_index(s.deal), step)
                d = decide(s.view(), self.players[seat], seed)
                s.act({"choose": d.contract, "double": d.doubles, "play": d.card}[kind])
            if saved is not None:
                saved()

    # -- what a finished deal is -------------------------------------------------------------
    def tricks(self, deal: dict[str, Any], upto: int | None = None) -> list[TrickResult]:
        """The completed tricks of a trick contract (none for Domino) among the first
        ``upto`` plays, as the engine's replay scored them."""
        if deal["contract"] is None or self.domino(deal):
            return []
        plays = deal["plays"][:upto]
        n = len(plays) - len(plays) % 4
        if n == 0:
            return []
        k = deal["k"]
        hands = (self.state.dealt() if k == self.state.deal
                 else [sum(1 << parse_card(c) for c in h) for h in deal["hands"]])  # fmt: skip
        codes: list[int | None] = [parse_card(c) for _, c in plays[:n]]
        p = Playout(
            seed=self.state.seed,
            deal=self.deal_index(k),
            dealer=deal["dealer"],
            variant=self.variant(deal),
            strategies=(),
            hands=list(hands),
            plays=codes,
            seats=[s for s, _ in plays[:n]],
            scores=[0, 0, 0, 0],
            tricks=[0, 0, 0, 0],
            ruleset=self.rules,
        )
        return p.trick_results()

    def trace_lines(self, k: int | None = None) -> list[str]:
        """JSON lines of the finished deals' trace records (deal ``k`` alone if given)."""
        traces = self.state.traces()
        picked = traces if k is None else traces[k : k + 1] if 0 <= k else []
        return [json.dumps(_replay_record(t)) for t in picked]

    def my_views(self, k: int) -> list[tuple[dict[str, Any], Any]]:
        """Each of the person's decisions of deal ``k`` (``mine``) with his view there: a
        fresh game given this game's answers up to each."""
        s, mine = self.state, self.mine[k] if k < len(self.mine) else []
        again = start_state(s.seed, s.game, self.players, self.rules)
        out: list[tuple[dict[str, Any], Any]] = []
        for d in range(k + 1):
            deal = self.deal(d)
            todo = {(m["kind"], m["at"]): m for m in mine} if d == k else {}
            while again.deal == d:
                turn = again.turn()
                if turn.kind == "choose":
                    answer: Any = deal["contract"]
                    at = 0
                elif turn.kind == "double":
                    answer = [t for q, t in deal["doubles"] if q == turn.seat]
                    at = len(again.doubles)
                else:
                    at = len(again.plays)
                    answer = deal["plays"][at][1]
                if turn.seat == self.you and (turn.kind, at) in todo:
                    out.append((todo[turn.kind, at], again.view()))
                again.act(answer)
        return out


def _replay_record(trace: dict[str, Any]) -> dict[str, Any]:
    """A finished deal's trace record as ``bonken-sim replay`` reads it."""
    keys = ("deal", "dealer", "contract", "trump", "hands", "plays", "ruleset", "scores")
    return {key: trace[key] for key in keys}


def trick_dict(t: TrickResult) -> dict[str, Any]:
    d = dataclasses.asdict(t)
    d["cards"] = [card_str(c) for c in t.cards]
    return d
