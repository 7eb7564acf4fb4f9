#!/usr/bin/env python3
"""A player for the match tests: examples/lowest_bot.py, with a fault now and then.

    faulty_bot.py MODE N

MODE is what goes wrong: ``crash`` (exits at its N-th request of each start), ``hang``
(sleeps at its N-th request of each start), ``garbage`` (every N-th answer is not JSON),
``deep`` (every N-th answer is 50,000 ``[``, nested deeper than a JSON parser goes),
``illegal`` (every N-th card is one it does not hold), ``refuse`` (every N-th request is
answered with an error), ``twice`` (every N-th answer is written twice), ``nohello`` (exits
before its hello), ``badhello`` (refuses the hello), ``fail-env`` (crashes at every request
of game FAULTY_BOT_FAIL_FROM and later while the environment has FAULTY_BOT_FAIL=1: a player
that cannot go on), ``never`` (plays like lowest_bot). Standard library only, so it starts fast.

With FAULTY_BOT_CHILDREN=FILE in the environment, each start first starts a child that sleeps
holding the player's pipes (stdin, stdout, stderr), and appends its pid to FILE: a player whose
children would outlive it if only the player were ended.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))

import lowest_bot  # noqa: E402

CARDS = [r + s for s in "CDHS" for r in "23456789TJQKA"]


def main() -> None:
    mode, n = sys.argv[1], int(sys.argv[2])
    children = os.environ.get("FAULTY_BOT_CHILDREN")
    if children:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(children, "a") as fh:
            fh.write(f"{child.pid}\n")
    if mode == "nohello":
        return
    rules: dict = {}
    asked = 0
    game = 0
    fail_from = int(os.environ.get("FAULTY_BOT_FAIL_FROM", "0"))
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "quit":
            return
        if msg["type"] == "game_start":
            game = msg["game"]
        if msg["type"] == "hello" and mode == "badhello":
            print(json.dumps({"type": "error", "message": "I play no such rules"}), flush=True)
            continue
        reply = lowest_bot.answer(msg, rules)
        if reply is None:
            continue
        if "id" in msg:
            asked += 1
            failing = os.environ.get("FAULTY_BOT_FAIL") == "1" and game >= fail_from
            if mode == "fail-env" and failing:
                sys.exit(4)
            if mode == "crash" and asked == n:
                sys.exit(3)
            if mode == "hang" and asked == n:
                time.sleep(3600)
            if asked % n == 0:
                if mode == "garbage":
                    print("this is not an answer", flush=True)
                    continue
                if mode == "deep":
                    print("[" * 50_000, flush=True)
                    continue
                if mode == "illegal" and msg["type"] == "play":
                    reply["card"] = next(c for c in CARDS if c not in msg["view"]["hand"])
                if mode == "refuse":
                    reply = {"type": "error", "id": msg["id"], "message": "no idea"}
                if mode == "twice":
                    print(json.dumps(reply), flush=True)
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
