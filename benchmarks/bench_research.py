"""The research adapters' speed (docs/RESEARCH.md): random legal actions through whole
games, one core, in CPU seconds of this process (the machine is shared; CPU time moves
less than wall time with other load).

- OpenSpiel: ``apply_action`` calls per CPU-second of ``python_bonken`` (standard rules,
  whole games of 11 deals, the deal's chance nodes included) beside OpenSpiel's own C++
  ``hearts`` driven from Python the same way (``legal_actions``, a random pick,
  ``apply_action``), timed in turns; their ratio (aim: at least 0.1).
- PettingZoo: ``step`` calls per CPU-second of the raw AEC environment and of ``env()``
  (the classic wrappers), the agent's ``last()`` and a random action from its mask at every
  step (aim: at least 20,000 for the raw environment).

``--profile`` adds where the time goes: cProfile's top functions of one more run of each.

    python benchmarks/bench_research.py [--games 6] [--hearts-games 60] [--repeats 5]

JSON results go to benchmarks/results/.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import platform
import pstats
import random
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyspiel

import bonken_sim.openspiel  # noqa: F401  (registers python_bonken)
import bonken_sim.pettingzoo as bp

REPO = Path(__file__).resolve().parents[1]


def openspiel_games(name: str, games: int, seed: int) -> tuple[int, float]:
    """(apply_action calls, CPU seconds) of ``games`` random games of ``name``."""
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    actions = 0
    start = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    return actions, time.process_time() - start


def pettingzoo_games(games: int, seed: int, wrapped: bool) -> tuple[int, float]:
    """(step calls, CPU seconds) of ``games`` random whole games in the AEC environment."""
    env = bp.env() if wrapped else bp.raw_env()
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for _ in range(games):
        env.reset()
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask = obs["action_mask"]
            env.step(rng.choice(np.flatnonzero(mask).tolist()))
            steps += 1
    return steps, time.process_time() - start


def profile(run, top: int = 14) -> str:
    prof = cProfile.Profile()
    prof.enable()
    run()
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
    return "\n".join(line for line in text.getvalue().splitlines() if line.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="whole Bonken games per repeat")
    parser.add_argument("--hearts-games", type=int, default=60, help="hearts games per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    # warm: the replay kernel loaded from the cache, OpenSpiel's game registered
    openspiel_games("python_bonken", 1, 0)
    pettingzoo_games(1, 0, False)
    rates: dict[str, list[float]] = {"hearts": [], "python_bonken": [], "pettingzoo": [],
                                     "pettingzoo_wrapped": []}  # fmt: skip
    for r in range(args.repeats):  # in turns, so that load drift hits all alike
        for key, (n, cpu) in (
            ("hearts", openspiel_games("hearts", args.hearts_games, r)),
            ("python_bonken", openspiel_games("python_bonken", args.games, r)),
            ("pettingzoo", pettingzoo_games(args.games, r, False)),
            ("pettingzoo_wrapped", pettingzoo_games(args.games, r, True)),
        ):
            rates[key].append(n / cpu)
    median = {k: statistics.median(v) for k, v in rates.items()}
    ratios = [b / h for b, h in zip(rates["python_bonken"], rates["hearts"], strict=True)]
    print(f"{args.repeats} repeats, median per CPU-second (range):")
    for key, unit in (("hearts", "apply_action"), ("python_bonken", "apply_action"),
                      ("pettingzoo", "step"), ("pettingzoo_wrapped", "step")):  # fmt: skip
        print(f"  {key:20s}{median[key]:12,.0f} {unit}/s  "
              f"({min(rates[key]):,.0f}-{max(rates[key]):,.0f})")  # fmt: skip
    print(f"  python_bonken / hearts: {statistics.median(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f}; aim >= 0.1)")  # fmt: skip
    print(f"  pettingzoo raw steps/s: {median['pettingzoo']:,.0f} (aim >= 20,000)")
    profiles = {}
    if args.profile:
        profiles["python_bonken"] = profile(lambda: openspiel_games("python_bonken", 3, 9))
        profiles["pettingzoo"] = profile(lambda: pettingzoo_games(3, 9, False))
        for key, text in profiles.items():
            print(f"\nwhere {key}'s time goes (cProfile, 3 games, by own time):\n{text}")
    out = REPO / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    doc = {"when": stamp, "machine": platform.processor() or platform.machine(),
           "games": args.games, "hearts_games": args.hearts_games, "repeats": args.repeats,
           "median": median, "all": rates, "bonken_over_hearts": ratios,
           "profiles": profiles}  # fmt: skip
    (out / f"bench_research-{stamp}.json").write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
