#!/usr/bin/env python3
"""A Bonken player that speaks the bonken-sim player protocol (docs/PROTOCOL.md), standard
library only: it plays its lowest legal card, chooses the first contract it may, never doubles.

It works out what is legal by itself, from the view of each request and the ruleset of the
hello: follow suit; hearts barred from the lead in hartenjagen and hartenheer (``heart_lead``);
must trump / must over-trump in troeven with a trump suit (``trump_play``); Domino rows from
their opening rank (``domino_open``), aces above the king. A ruleset whose aces may go low
(``domino_aces = "first-fixes"``) it refuses at hello.

    bonken-sim bot --check "cmd:python3 examples/lowest_bot.py"
"""

import json
import sys

RANKS, SUITS = "23456789TJQKA", "CDHS"
NEGATIVES = "bukken hartenjagen herenboeren vrouwen hartenheer laatste_slag domino".split()


def rank(card):
    return RANKS.index(card[0])


def lowest(cards):
    return min(cards, key=lambda c: (rank(c), SUITS.index(c[1])))


def legal_cards(view, rules):
    hand, plays = view["hand"], [card for _, card in view["plays"]]
    contract = view["contract"]
    if contract == "domino":
        laid = {}  # suit -> ranks on the table; a row is one run of ranks
        for card in plays:
            if card != "pass":
                laid.setdefault(card[1], []).append(rank(card))
        fits = set()
        for suit in SUITS:
            row = laid.get(suit)
            ends = [rules["domino_open"] - 2] if not row else [min(row) - 1, max(row) + 1]
            fits |= {RANKS[r] + suit for r in ends if 0 <= r <= 12}
        return [c for c in hand if c in fits]
    trick = plays[len(plays) - len(plays) % 4 :]
    trump = contract[-1] if contract[:-1] == "troeven_" else None  # not troeven_NT
    if not trick:  # a lead
        ban = rules["heart_lead"] == "banned" or (
            rules["heart_lead"] == "broken" and not any(c[1] == "H" for c in plays)
        )
        others = [c for c in hand if c[1] != "H"]
        return others if contract in ("hartenjagen", "hartenheer") and ban and others else hand
    led = trick[0][1]
    win = trick[0]
    for c in trick[1:]:
        if (c[1] == win[1] and rank(c) > rank(win)) or (c[1] == trump and win[1] != trump):
            win = c
    follow = [c for c in hand if c[1] == led]
    mode = rules["trump_play"] if trump else "optional"
    if mode == "optional":
        return follow or hand
    above = [c for c in hand if c[1] == win[1] and rank(c) > rank(win)]
    if follow:
        return (above or follow) if mode == "must-overtrump" and led == trump else follow
    trumps = [c for c in hand if c[1] == trump]
    if mode == "must-overtrump" and win[1] == trump and above:
        return above
    return trumps or hand


def legal_contracts(view, rules):
    open_, hand = view["open"], view["hand"]
    troeven = [v for v in open_ if v.startswith("troeven")]
    negatives = [v for v in open_ if v not in troeven]
    if rules["order"] == "fixed":  # deal k < 7 plays the k-th negative, then troeven
        return [rules["negatives"][view["deal"]]] if view["deal"] < 7 else troeven
    last_turn = view["deal"] + 4 > 10  # the chooser chooses again 4 deals later
    legal = negatives if view["had_troeven"] else troeven if last_turn else open_
    if rules["domino_ace_or_two"] and not any(c[0] in "A2" for c in hand) and len(legal) > 1:
        legal = [v for v in legal if v != "domino"]
    return legal


def answer(msg, rules):
    kind = msg["type"]
    if kind == "hello":
        if msg.get("protocol") != 1:
            return {"type": "error", "message": "lowest speaks protocol 1 only"}
        rules.clear()
        rules.update(msg["ruleset"])
        rules.setdefault("negatives", NEGATIVES)
        if rules.get("domino_aces", "high") != "high":
            return {"type": "error", "message": "lowest plays Domino with aces high only"}
        return {"type": "hello", "protocol": 1, "name": "lowest", "version": "1.0"}
    if "id" not in msg or kind == "error":
        return None  # a notice: nothing to answer
    reply = {"type": kind, "id": msg["id"]}
    if kind == "play":
        legal = legal_cards(msg["view"], rules)
        reply["card"] = lowest(legal) if legal else "pass"
    elif kind == "choose":
        reply["contract"] = legal_contracts(msg["view"], rules)[0]
    elif kind == "double":
        reply["doubles"] = []
    else:
        return {"type": "error", "id": msg["id"], "message": f"unknown request {kind!r}"}
    return reply


def main():
    rules = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = None
        try:
            msg = json.loads(line)
            if msg["type"] == "quit":
                return
            reply = answer(msg, rules)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            reply = {"type": "error", "message": f"cannot answer: {exc!r}"}
            if isinstance(msg, dict) and "id" in msg:
                reply["id"] = msg["id"]
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
