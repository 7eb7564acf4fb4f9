"""The searching expert's time: whole games with four seats of one profile (seconds per game
on one core), and decisions per second of each searched decision kind.

- games: ``expert-fitted`` (card search, fitted choice and doubling) and ``expert`` (also
  choice and doubling by search, the strongest), four seats of the profile, ``--games`` games on one
  thread, timed in the thread's CPU time after a warm-up game;
- choice: ``decide_game.decide_choice_search`` (the game kernel's own search) on fresh deals,
  the chooser at deal 0 with every contract open (twelve options: the most a choice weighs);
- doubling: ``decide_game.decide_doubles_search`` for the first doubler (D+3) in a negative
  contract, the chooser's samples fitted to the choice (as in a game).

Each kernel call allocates its workspace, which the game kernel does once per batch: the
decision rates are a little below what a game spends. Card decisions per second are
``bench_expert.py``'s.

    python benchmarks/bench_game_search.py --games 40 --decisions 200

JSON goes to benchmarks/results/game_search.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bonken_sim._core import decide_game as DG
from bonken_sim._core.deal import deal_into
from bonken_sim._core.playout import kernel_table
from bonken_sim._core.rng import deal_state, seed_key
from bonken_sim._core.ruleset import standard_table
from bonken_sim._core.seat_value import value_tables
from bonken_sim.engine.games import PROFILES, GamePlayer, model_arrays
from bonken_sim.models.choice import load_models

REPO = Path(__file__).resolve().parent.parent


def game_seconds(profile: str, games: int) -> float:
    """CPU seconds per game of one thread, four seats of ``profile``."""
    player = GamePlayer(1, [profile])
    seats = np.zeros(4, np.int64)
    player.play(player.batch(0, 1, seats), 0, 1)  # load the kernel
    b = player.batch(1000, games, seats)
    t = time.thread_time()
    player.play(b, 0, games)
    return (time.thread_time() - t) / games


def decision_rates(n: int) -> dict[str, float]:
    """Searched choices and doubles per CPU second of one thread."""
    ma = model_arrays(load_models())
    vt = value_tables(ma.coef)
    table = kernel_table(standard_table())
    key = seed_key(2)
    deck, dealt = np.empty(52, np.int64), np.empty(4, np.uint64)
    free = ((1 << 7) - 1, 31, True)
    choose = np.int64(PROFILES["expert"].choice)
    double = np.int64(PROFILES["expert"].doubling)
    relv, stats, est, se = np.zeros(12), np.zeros((2, 12)), np.zeros(4), np.zeros(4)
    model = (True, 0, free, False, False, (ma.mean, ma.tau, vt))
    rules = (ma.theta, False)

    def one_choice(i):
        ds = np.uint64(deal_state(key, i))
        deal_into(ds, deck, dealt)
        DG.decide_choice_search(table, ds, 0, dealt[2], 0, (False, False), free,
                                (ma.mean, ma.bonus, ma.tau), choose, relv, stats)  # fmt: skip

    def one_double(i):
        ds = np.uint64(deal_state(key, i))
        deal_into(ds, deck, dealt)
        DG.decide_doubles_search(table, ds, i % 7, 3, 0, dealt[3], 0, rules, model, double,
                                 est, se)  # fmt: skip

    out = {}
    for name, fn in (("choice", one_choice), ("doubling", one_double)):
        fn(0)  # load the kernel
        t = time.thread_time()
        for i in range(1, n + 1):
            fn(i)
        out[name] = n / (time.thread_time() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--decisions", type=int, default=200)
    args = ap.parse_args()
    result = {
        "seconds_per_game": {p: game_seconds(p, args.games) for p in ("expert-fitted", "expert")},
        "decisions_per_second": decision_rates(args.decisions),
        "games": args.games,
        "decisions": args.decisions,
    }
    for p, s in result["seconds_per_game"].items():
        print(f"{p:15s} {s:.3f} s per game (four seats, one core)")
    for k, r in result["decisions_per_second"].items():
        print(f"{k:15s} {r:,.0f} searched decisions per second (one core)")
    out = REPO / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "game_search.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
