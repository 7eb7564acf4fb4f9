"""One game of Bonken at the table: a person at one seat, three computer players at the
others, played in the real order of RULES.md §5-§6 (the dealer moves left each deal, the
player across from him chooses, the doubling pass goes D+3, D, D+1 and the chooser, the
player left of the dealer leads).

Every computer decision is ``engine.decide``'s from that seat's view, so a basic or advanced
seat chooses, doubles and plays exactly as the game kernel would there; the person's options
are ``decide``'s legal ones. Deal ``k`` of game ``g`` is deal ``11·g + k`` of the seed and
the first dealer is seat ``g mod 4``, as in ``bonken-sim game``.

The game's whole state is a JSON-able dict (``TableGame.state``): the game saves it after
every decision and a new process continues from it. A finished deal is a trace record that
``bonken-sim replay`` accepts; its raw scores are the engine's replay of its plays and the
settlement is RULES.md §5.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from bonken_sim.engine.decide import (
    ChooseView,
    Decision,
    DoubleView,
    PlayView,
    decide,
    legal_contracts,
    legal_doubles,
    seat_policy,
)
from bonken_sim.engine.play import (
    Playout,
    TrickResult,
    deal_hands,
    is_domino,
    replay,
    trick_winner,
)
from bonken_sim.errors import BadValue
from bonken_sim.models import doubling
from bonken_sim.models.doubling import pass_order
from bonken_sim.rules.names import (
    N_VARIANTS,
    card_str,
    contract_name,
    mask_cards,
    parse_card,
    parse_variant,
    variant_names,
)
from bonken_sim.rules.rulesets import Ruleset

DEALS_PER_GAME = 11
N_NEGATIVE = 7
STATE_VERSION = 1
#: the profiles a computer seat may play (any of engine.games.PROFILES, or expert:K:E, works)
TABLE_PROFILES = ("random", "basic", "advanced", "expert")
YOU = "you"


class GameError(BadValue):
    """A request the game refuses (a card not held or not legal, a contract not open, a
    double the rules forbid, an action out of turn); nothing changed."""


class OutOfTurn(GameError):
    """An action that is not the person's to take now."""


def _sorted_cards(mask: int) -> list[str]:
    return [card_str(c) for c in mask_cards(mask)]


def decision_seed(seed: int, deal_index: int, step: int) -> int:
    """The seed of one computer decision (a random seat's draw, an expert's samples): a pure
    function of the game's seed, the deal and the step in it."""
    return (seed * 0x9E3779B1 + deal_index * 1_000_003 + step) % (2**63)


def settle(raw: list[int], doubles: list[list[int]]) -> list[int]:
    """RULES.md §5: ``final_p = raw_p + Σ_q m_pq (raw_p − raw_q)``, ``m_pq`` the directions
    doubled between p and q."""
    doubled = np.zeros((1, 4, 4), bool)
    for a, b in doubles:
        doubled[0, a, b] = True
    final = doubling.settle(np.array([raw]), doubling.multiplicity(doubled))[0]
    return [int(x) for x in final]


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


class TableGame:
    """A game in progress or finished; ``state`` is everything it is (JSON-able)."""

    def __init__(self, state: dict[str, Any]) -> None:
        if state.get("version") != STATE_VERSION:
            raise GameError(f"not a saved game of this version: {state.get('version')!r}")
        self.state = state
        self.rules = Ruleset.from_dict(state["ruleset"])
        self.names = variant_names(self.rules)

    # -- a new game ------------------------------------------------------------------------
    @classmethod
    def new(
        cls, game_id: str, seed: int, players: list[str], you: int, rules: Ruleset, game: int = 0
    ) -> TableGame:
        seats = check_players(players, you)
        if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < 2**58:
            raise GameError(f"game must be an integer from 0 to 2**58-1, got {game!r}")
        state = {
            "version": STATE_VERSION,
            "id": game_id,
            "seed": int(seed),
            "game": int(game),
            "you": you,
            "players": seats,
            "ruleset": rules.to_dict(),
            "deals": [],
        }
        g = cls(state)
        g._start_deal()
        return g

    # -- what the state says -----------------------------------------------------------------
    @property
    def you(self) -> int:
        return int(self.state["you"])

    @property
    def deals(self) -> list[dict[str, Any]]:
        return self.state["deals"]

    @property
    def deal(self) -> dict[str, Any]:
        return self.deals[-1]

    def deal_index(self, k: int) -> int:
        """Deal ``k`` of this game as a deal of the seed."""
        return DEALS_PER_GAME * int(self.state["game"]) + k

    def _start_deal(self) -> None:
        k = len(self.deals)
        dealer = (int(self.state["game"]) + k) & 3
        hands = deal_hands(int(self.state["seed"]), self.deal_index(k))
        self.deals.append(
            {
                "k": k,
                "dealer": dealer,
                "hands": [_sorted_cards(h) for h in hands],
                "contract": None,
                "doubles": [],
                "passed": [],
                "plays": [],
                "raw": None,
                "final": None,
                "mine": [],
            }
        )

    def totals(self) -> list[int]:
        return self.totals_before(len(self.deals))

    def variant(self, deal: dict[str, Any]):
        return parse_variant(deal["contract"], ruleset=self.rules)

    def domino(self, deal: dict[str, Any]) -> bool:
        return is_domino(self.variant(deal), self.rules)

    def hand_now(self, deal: dict[str, Any], seat: int, upto: int | None = None) -> list[str]:
        """``seat``'s cards after the first ``upto`` plays (all: None)."""
        plays = deal["plays"][:upto]
        laid = {c for s, c in plays if s == seat and c != "pass"}
        return [c for c in deal["hands"][seat] if c not in laid]

    def deal_done(self, deal: dict[str, Any]) -> bool:
        return deal["contract"] is not None and sum(c != "pass" for _, c in deal["plays"]) == 52

    def over(self) -> bool:
        return len(self.deals) == DEALS_PER_GAME and self.deal_done(self.deal)

    def open_variants(self, seat: int, k: int) -> tuple[list[str], bool]:
        """(the variants still open before deal ``k``, whether ``seat`` had had his troeven
        by then)."""
        before = self.deals[:k]
        played = {self.variant(d).id for d in before}
        had = any(
            self.variant(d).id >= N_NEGATIVE and (d["dealer"] + 2) & 3 == seat for d in before
        )
        return [self.names[v] for v in range(N_VARIANTS) if v not in played], had

    def totals_before(self, k: int) -> list[int]:
        out = [0, 0, 0, 0]
        for d in self.deals[:k]:
            if d["final"] is not None:
                out = [a + b for a, b in zip(out, d["final"], strict=True)]
        return out

    def play_seat(self, deal: dict[str, Any], upto: int | None = None) -> int:
        """The seat to play after the first ``upto`` plays: the leader, the next seat
        clockwise, the last trick's winner; in Domino the next seat that still holds cards."""
        plays = deal["plays"][:upto]
        dealer = deal["dealer"]
        if not plays:
            return (dealer + 1) & 3
        if self.domino(deal):
            seat = plays[-1][0]
            for step in range(1, 5):
                q = (seat + step) & 3
                if self.hand_now(deal, q, len(plays)):
                    return q
            return -1
        if len(plays) % 4:
            return (plays[-1][0] + 1) & 3
        trick = plays[-4:]
        cards = [parse_card(c) for _, c in trick]
        return trick[trick_winner(cards, self.variant(deal).trump)][0]

    def turn(self) -> tuple[str, int]:
        """(what is to do, by which seat): choose, double or play; ``next`` (the deal is
        over, the person starts the next one) or ``over`` (seat -1)."""
        deal = self.deal
        if deal["contract"] is None:
            return "choose", (deal["dealer"] + 2) & 3
        if self.rules.doubling and len(deal["passed"]) < 4:
            return "double", pass_order(deal["dealer"])[len(deal["passed"])]
        if not self.deal_done(deal):
            return "play", self.play_seat(deal)
        return ("over", -1) if self.over() else ("next", self.you)

    # -- the views of decide -----------------------------------------------------------------
    def choose_view(self, deal: dict[str, Any]) -> ChooseView:
        chooser = (deal["dealer"] + 2) & 3
        open_, had = self.open_variants(chooser, deal["k"])
        return ChooseView(
            dealer=deal["dealer"],
            seat=chooser,
            hand=deal["hands"][chooser],
            deal=deal["k"],
            open=open_,
            had_troeven=had,
            scores=tuple(self.totals_before(deal["k"])),
            ruleset=self.rules,
        )

    def double_view(self, deal: dict[str, Any], seat: int, said: int | None = None) -> DoubleView:
        """``seat``'s view in the doubling pass, the first ``said`` doubles said before it."""
        doubles = deal["doubles"] if said is None else deal["doubles"][:said]
        return DoubleView(
            dealer=deal["dealer"],
            seat=seat,
            hand=deal["hands"][seat],
            contract=deal["contract"],
            doubles=[(a, b) for a, b in doubles],
            ruleset=self.rules,
        )

    def stake(self, deal: dict[str, Any]) -> list[list[int]]:
        m = [[0] * 4 for _ in range(4)]
        for a, b in deal["doubles"]:
            m[a][b] += 1
            m[b][a] += 1
        return m

    def play_view(self, deal: dict[str, Any], upto: int | None = None) -> PlayView:
        """The view of the seat to play after the first ``upto`` plays."""
        plays = deal["plays"][:upto]
        seat = self.play_seat(deal, len(plays))
        return PlayView(
            contract=deal["contract"],
            dealer=deal["dealer"],
            seat=seat,
            hand=self.hand_now(deal, seat, len(plays)),
            plays=[(s, c) for s, c in plays],
            ruleset=self.rules,
            stake=self.stake(deal),
            random_seats=tuple(
                q for q, name in enumerate(self.state["players"]) if name == "random"
            ),
        )

    # -- acting ------------------------------------------------------------------------------
    def legal(self) -> dict[str, Any]:
        """The person's options now: ``{"kind": ..., "options": [...]}`` (none when it is
        not his turn)."""
        kind, seat = self.turn()
        if seat != self.you:
            return {"kind": kind, "options": []}
        deal = self.deal
        if kind == "choose":
            return {"kind": kind, "options": list(legal_contracts(self.choose_view(deal)))}
        if kind == "double":
            return {"kind": kind, "options": list(legal_doubles(self.double_view(deal, seat)))}
        if kind == "play":
            return {"kind": kind, "options": list(decide(self.play_view(deal), "basic").legal)}
        return {"kind": kind, "options": []}

    def _expect(self, kind: str) -> None:
        now, seat = self.turn()
        if now == "over":
            raise OutOfTurn("the game is over")
        if seat != self.you or now != kind:
            who = "you" if seat == self.you else f"seat {seat}"
            raise OutOfTurn(f"it is not your turn to {kind}: {who} is to {now}")

    def choose(self, contract: Any) -> None:
        self._expect("choose")
        legal = legal_contracts(self.choose_view(self.deal))
        if not isinstance(contract, str) or contract not in legal:
            raise GameError(
                f"you may not choose {contract!r} now (open to you: {', '.join(legal)})"
            )
        self.deal["mine"].append({"kind": "choose", "at": 0, "chosen": contract})
        self.deal["contract"] = contract

    def double(self, targets: Any) -> None:
        self._expect("double")
        deal = self.deal
        legal = legal_doubles(self.double_view(deal, self.you))
        if not isinstance(targets, list) or any(
            isinstance(t, bool) or not isinstance(t, int) for t in targets
        ):
            raise GameError("doubles must be a list of seats")
        if len(set(targets)) != len(targets):
            raise GameError("a seat is doubled at most once")
        bad = [t for t in targets if t not in legal]
        if bad:
            allowed = ", ".join(map(str, legal)) or "nobody"
            raise GameError(f"you may not double seat {bad[0]} (you may double: {allowed})")
        deal["mine"].append({"kind": "double", "at": len(deal["doubles"]), "chosen": targets})
        self._apply_doubles(self.you, targets)

    def play(self, card: Any) -> None:
        self._expect("play")
        deal = self.deal
        legal = decide(self.play_view(deal), "basic").legal
        if not isinstance(card, str):
            raise GameError(f"not a card: {card!r}")
        try:
            text = card_str(parse_card(card))
        except BadValue as exc:
            raise GameError(str(exc)) from None
        if text not in self.hand_now(deal, self.you):
            raise GameError(f"you do not hold {text}")
        if text not in legal:
            raise GameError(f"you may not play {text} now (legal: {' '.join(legal)})")
        deal["mine"].append({"kind": "play", "at": len(deal["plays"]), "chosen": text})
        self._apply_play(self.you, text)

    def next_deal(self) -> None:
        self._expect("next")
        self._start_deal()

    def _apply_doubles(self, seat: int, targets: list[int]) -> None:
        deal = self.deal
        deal["doubles"].extend([seat, t] for t in targets)
        deal["passed"].append(seat)

    def _apply_play(self, seat: int, card: str) -> None:
        deal = self.deal
        deal["plays"].append([seat, card])
        if self.deal_done(deal):
            raw = replay(self.record(deal))
            deal["raw"] = raw
            deal["final"] = settle(raw, deal["doubles"])

    def advance(self, saved=None) -> None:
        """Play the computer seats (and the person's forced moves: a Domino pass, a doubling
        turn with nobody to double) until the person is to decide or the game is over;
        ``saved()`` after every decision."""
        while True:
            kind, seat = self.turn()
            if kind in ("next", "over"):
                return
            deal = self.deal
            step = len(deal["passed"]) + len(deal["plays"]) + (deal["contract"] is not None)
            seed = decision_seed(int(self.state["seed"]), self.deal_index(deal["k"]), step)
            if seat == self.you:
                if kind == "play":
                    d = decide(self.play_view(deal), "basic")
                    if d.card != "pass":
                        return
                    self._apply_play(seat, "pass")
                elif kind == "double" and not legal_doubles(self.double_view(deal, seat)):
                    self._apply_doubles(seat, [])
                else:
                    return
            else:
                self._computer(kind, seat, seed)
            if saved is not None:
                saved()

    def _computer(self, kind: str, seat: int, seed: int) -> None:
        profile = self.state["players"][seat]
        deal = self.deal
        if kind == "choose":
            d: Decision = decide(self.choose_view(deal), profile, seed)
            deal["contract"] = d.contract
        elif kind == "double":
            d = decide(self.double_view(deal, seat), profile, seed)
            self._apply_doubles(seat, list(d.doubles))
        else:
            d = decide(self.play_view(deal), profile, seed)
            self._apply_play(seat, str(d.card))

    # -- what a finished deal is -------------------------------------------------------------
    def record(self, deal: dict[str, Any]) -> dict[str, Any]:
        """The deal as a trace record (``bonken-sim replay``; scores once it is over)."""
        variant = self.variant(deal)
        rec = {
            "deal": self.deal_index(deal["k"]),
            "dealer": deal["dealer"],
            "contract": contract_name(variant, self.rules),
            "trump": variant.trump,
            "hands": deal["hands"],
            "plays": [c for _, c in deal["plays"]],
            "ruleset": self.rules.to_dict(),
        }
        if deal["raw"] is not None:
            rec["scores"] = deal["raw"]
        return rec

    def tricks(self, deal: dict[str, Any], upto: int | None = None) -> list[TrickResult]:
        """The completed tricks of a trick contract (none for Domino) among the first
        ``upto`` plays, as the engine's replay scored them."""
        if deal["contract"] is None or self.domino(deal):
            return []
        plays = deal["plays"][:upto]
        n = len(plays) - len(plays) % 4
        if n == 0:
            return []
        variant = self.variant(deal)
        hands = [sum(1 << parse_card(c) for c in h) for h in deal["hands"]]
        codes: list[int | None] = [parse_card(c) for _, c in plays[:n]]
        p = Playout(
            seed=int(self.state["seed"]),
            deal=self.deal_index(deal["k"]),
            dealer=deal["dealer"],
            variant=variant,
            strategies=(),
            hands=hands,
            plays=codes,
            seats=[s for s, _ in plays[:n]],
            scores=[0, 0, 0, 0],
            tricks=[0, 0, 0, 0],
            ruleset=self.rules,
        )
        return p.trick_results()

    def trace_lines(self, k: int | None = None) -> list[str]:
        """JSON lines of the finished deals' trace records (deal ``k`` alone if given)."""
        deals = [d for d in self.deals if d["raw"] is not None]
        if k is not None:
            deals = [d for d in deals if d["k"] == k]
        return [json.dumps(self.record(d)) for d in deals]


def trick_dict(t: TrickResult) -> dict[str, Any]:
    d = dataclasses.asdict(t)
    d["cards"] = [card_str(c) for c in t.cards]
    return d
