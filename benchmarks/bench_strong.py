"""The strongest play's speed: deals per CPU-second with four of the strongest card players
(every variant of each deal, as ``bonken-sim run --strategies`` plays them) and whole games
per CPU-second with four seats of the strongest whole-game profile, on one thread.

The strongest profile is found in ``PROFILES`` (card play by the adaptive expert, contract
choice and doubling by search), not by its name; its card play is ``ADAPTIVE_EXPERT``. Each
measure is the median of ``--repeats`` timings in the process's CPU time, after a warm-up,
on deals and games of a fixed seed, so two versions of the core can be compared by running
this script from each tree in turn (``PYTHONPATH``, as in benchmarks/README.md) and taking
the medians. One JSON line goes to stdout.

    python benchmarks/bench_strong.py [--deals 40] [--games 20] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from bonken_sim._core import game as G
from bonken_sim.engine.games import PROFILES, GamePlayer
from bonken_sim.engine.selfplay import self_play
from bonken_sim.engine.strategies import ADAPTIVE_EXPERT


def strongest_profile() -> str:
    """The profile that plays cards as ``ADAPTIVE_EXPERT`` and chooses and doubles by search."""
    for name, p in PROFILES.items():
        searched = p.choice & 0xFF == G.CHOICE_SEARCH and p.doubling & 0xFF == G.DOUBLE_SEARCH
        if p.card == int(ADAPTIVE_EXPERT) and searched:
            return name
    raise SystemExit("no profile plays the adaptive expert with choice and doubling by search")


def deals_per_second(deals: int, seed: int, start: int) -> float:
    """Deals (all twelve variants each) per CPU-second of the process, four adaptive experts,
    one thread."""
    card = ADAPTIVE_EXPERT.name.lower()
    t = time.process_time()
    self_play(deals, seed, card, threads=1, start=start)
    return deals / (time.process_time() - t)


def games_per_second(player: GamePlayer, games: int, start: int) -> float:
    """Whole games per CPU-second, four seats of the strongest profile, one thread."""
    b = player.batch(start, games, np.zeros(4, np.int64))
    t = time.process_time()
    player.play(b, 0, games)
    return games / (time.process_time() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=40, help="deals per timing")
    ap.add_argument("--games", type=int, default=20, help="games per timing")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    profile = strongest_profile()
    player = GamePlayer(args.seed, [profile])
    deals_per_second(1, args.seed, 0)  # load the kernels
    games_per_second(player, 1, 0)
    deal_rates = [deals_per_second(args.deals, args.seed, 1000) for _ in range(args.repeats)]
    game_rates = [games_per_second(player, args.games, 1000) for _ in range(args.repeats)]
    print(json.dumps({
        "profile": profile,
        "card_play": ADAPTIVE_EXPERT.name.lower(),
        "deals_per_cpu_s": round(statistics.median(deal_rates), 3),
        "games_per_cpu_s": round(statistics.median(game_rates), 3),
        "deal_rates": [round(r, 3) for r in deal_rates],
        "game_rates": [round(r, 3) for r in game_rates],
    }))  # fmt: skip


if __name__ == "__main__":
    main()
