#!/usr/bin/env python3
"""A Bonken player that speaks the player protocol (docs/PROTOCOL.md) and plays its cards
with OpenSpiel's Python IS-MCTS on ``python_bonken`` (``bonken_sim.openspiel``).

Each play request becomes an OpenSpiel state whose information state, for the seat asked,
is the view's: a one-contract game of the view's contract, dealer and stake (the doubles
in force, settled as the table settles them), dealt the seat's hand (now plus the cards it
played) and hidden hands that fit every public play (the engine's sampler, each draw
checked by the replay kernel), the view's plays replayed into it. IS-MCTS then searches
from it, re-dealing the hidden hands at every simulation (``resample_from_infostate``),
with random rollouts to the end of the deal, for the seat's settled score of the deal.
Contracts and doubles it leaves to the engine's ``advanced`` profile (``bonken_sim.decide``).

    bonken-sim match --games 2 --players "cmd:python examples/ismcts_bot.py,basic,basic,basic"

Options: ``--simulations N`` (default 100), ``--seed S``, ``--log FILE`` (a line per game
with its decisions per second). Needs the openspiel extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import bonken_sim.openspiel  # noqa: F401  (registers python_bonken)
from bonken_sim import decide
from bonken_sim.engine.deal_play import PASS, resample_deal
from bonken_sim.research.core import slots_of
from bonken_sim.rules.names import card_str, parse_card
from bonken_sim.rules.rulesets import PRESETS, Ruleset


class Player:
    def __init__(self, simulations: int, seed: int, log: str | None):
        self.simulations = simulations
        self.rs = np.random.RandomState(seed)
        self.seed = seed
        self.log = log
        self.ruleset: str | None = None
        self.games: dict[tuple[str, int], pyspiel.Game] = {}
        self.decisions, self.seconds, self.fallbacks = 0, 0.0, 0

    def hello(self, msg: dict) -> dict:
        if msg.get("protocol") != 1:
            return {"type": "error", "message": "ismcts speaks protocol 1 only"}
        record = Ruleset.from_dict(msg["ruleset"])
        names = [name for name, rules in PRESETS.items() if rules.to_dict() == record.to_dict()]
        if not names:
            return {"type": "error", "message": "ismcts plays the preset rulesets only"}
        self.ruleset = names[0]
        return {"type": "hello", "protocol": 1, "name": f"ismcts-{self.simulations}"}

    def play(self, view: dict) -> str:
        start = time.perf_counter()
        try:
            state = self.state_of(view)
        except (AssertionError, RuntimeError) as exc:  # no deal found that fits the plays
            print(f"ismcts: {exc}; the advanced profile plays", file=sys.stderr, flush=True)
            self.fallbacks += 1
            return self.decide_by_profile(view, "play").card
        legal = state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        else:
            bot = ismcts.ISMCTSBot(state.get_game(), mcts.RandomRolloutEvaluator(1, self.rs),
                                   2.0, self.simulations, random_state=self.rs)  # fmt: skip
            action = bot.step(state)
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        return "pass" if action == PASS else card_str(action)

    def state_of(self, view: dict) -> pyspiel.State:
        """A state of the view's deal whose information state is the view's for its seat."""
        contract, dealer, seat = view["contract"], view["dealer"], view["seat"]
        # the stake as doubles (bit 4·doubler + target): only the directions doubled
        # between two seats count in the settlement, not who doubled first
        stake = view.get("stake") or [[0] * 4 for _ in range(4)]
        doubles = 0
        for p in range(4):
            for q in range(p + 1, 4):
                if stake[p][q] >= 1:
                    doubles |= 1 << (4 * p + q)
                if stake[p][q] == 2:
                    doubles |= 1 << (4 * q + p)
        key = (contract, dealer, doubles)
        if key not in self.games:
            params = {"ruleset": self.ruleset, "contract": contract, "first_dealer": dealer,
                      "doubles": doubles}  # fmt: skip
            self.games[key] = pyspiel.load_game("python_bonken", params)
        game = self.games[key]
        plays = [(q, PASS if c == "pass" else parse_card(c)) for q, c in view["plays"]]
        played = [0, 0, 0, 0]
        for q, c in plays:
            if c != PASS:
                played[q] |= 1 << c
        mine = played[seat] | sum(1 << parse_card(c) for c in view["hand"])
        # a first deal of the unseen cards with the right sizes; the sampler then finds one
        # that fits every play (it falls back on this one only when every draw fails)
        unseen = [c for c in range(52) if not (mine | sum(played)) >> c & 1]
        dealt = [0, 0, 0, 0]
        for q in range(4):
            if q == seat:
                dealt[q] = mine
                continue
            need = 13 - bin(played[q]).count("1")
            dealt[q] = played[q] | sum(1 << c for c in unseen[:need])
            unseen = unseen[need:]
        row = game.setup.rows[game.setup.variant]
        stream = int(self.rs.randint(2**62))
        codes = [c for _, c in plays]
        seats = [q for q, _ in plays]
        deal = resample_deal(row, dealt, dealer, codes, seat, stream, seats=seats)
        state = game.new_initial_state()
        for c in slots_of(dealer, deal):
            state.apply_action(c)
        for q, c in plays:
            assert state.current_player() == q, "the view's plays do not replay"
            state.apply_action(c)
        assert state.current_player() == seat
        return state

    def decide_by_profile(self, view: dict, kind: str):
        """The engine's ``advanced`` profile's decision in a protocol view."""
        return decide({**view, "kind": kind, "ruleset": self.ruleset}, "advanced", self.seed)

    def answer(self, msg: dict) -> dict | None:
        kind = msg["type"]
        if kind == "hello":
            return self.hello(msg)
        if kind == "game_end" and self.log:
            with open(self.log, "a", encoding="utf-8") as fh:
                rate = self.decisions / self.seconds if self.seconds else 0.0
                fh.write(f"game {msg['game']}: {self.decisions} card decisions searched, "
                         f"{self.seconds:.1f} s, {rate:.2f} decisions/s, "
                         f"{self.fallbacks} left to the profile\n")  # fmt: skip
        if "id" not in msg or kind == "error":
            return None
        reply: dict = {"type": kind, "id": msg["id"]}
        if kind == "play":
            reply["card"] = self.play(msg["view"])
        elif kind == "choose":
            reply["contract"] = self.decide_by_profile(msg["view"], kind).contract
        elif kind == "double":
            reply["doubles"] = list(self.decide_by_profile(msg["view"], kind).doubles)
        else:
            return {"type": "error", "id": msg["id"], "message": f"unknown request {kind!r}"}
        return reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log")
    args = parser.parse_args()
    if args.simulations < 1:
        parser.error("--simulations must be 1 or more")
    player = Player(args.simulations, args.seed, args.log)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = None
        try:
            msg = json.loads(line)
            if msg["type"] == "quit":
                return
            reply = player.answer(msg)
        except (ValueError, KeyError, TypeError, IndexError, AssertionError) as exc:
            reply = {"type": "error", "message": f"cannot answer: {exc!r}"}
            if isinstance(msg, dict) and "id" in msg:
                reply["id"] = msg["id"]
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
