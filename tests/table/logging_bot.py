#!/usr/bin/env python3
"""A player for the match tests: examples/lowest_bot.py, that also appends every message it
receives to a file, one JSON line each, so that a test sees what an outside program is sent.

    logging_bot.py FILE
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))

import lowest_bot  # noqa: E402


def main() -> None:
    rules: dict = {}
    with open(sys.argv[1], "a") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            msg = json.loads(line)
            if msg["type"] == "quit":
                return
            reply = lowest_bot.answer(msg, rules)
            if reply is not None:
                print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
