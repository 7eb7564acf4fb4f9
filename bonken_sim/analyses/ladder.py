"""The strategy ladder: is each step up measurably better, and by how much?

* **Card play**, per contract variant: one hero of the higher tier among three of the lower,
  on the same deals with the hero in each of the four seats in turn (seat-permuted, paired):
  the hero's mean score minus the seat average (the deal's total / 4), with a 95% CI. Every
  variant's total is fixed, so this is also the hero's paired gain over a lower-tier player
  in the same seat on the same deal. The expert rungs ("expert over advanced" and "expert
  over basic") search at every decision, so they run on their own, smaller number of deals
  (``expert_deals``). Gains against different lower tiers do not add up (an expert's gain
  among basic players is not the sum of advanced-among-basic and expert-among-advanced
  when its edge depends on the opponents, and it does), so how far basic play is from expert play
  is measured directly, by its own rung.
* **Contract choice**: the chooser's realised score relative to the contract's mean under the
  fitted relative-value policy, minus the same under a uniformly random choice, paired on
  the same deals (every variant is played on every deal, so both choices are observed).
* **Doubling**: on the deals where the policy chooses a contract, the fitted doubling policy's
  realised gain per double (``s_doubler − s_target``, what one double moves), its share of
  profitable doubles (Wilson CI), and the doubles made per deal: once with basic play (the
  targets ignore the doubles), once with advanced play where every seat plays each doubled
  deal stake-aware (the deal is played again with the doubles in force).
* **Whole games** (``games`` > 0; analyses/ladder_games.py): two-profile tournaments on the
  same deals, each heuristic profile against the strongest (``STRONGEST``) and each step of
  the expert's game (choice, doubling, both by search) against the plain expert.

Every CI is a normal 95% interval over deals (a deal's four seat placements are averaged
first, so they count once) or Wilson's for rates.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from bonken_sim.analyses.ladder_games import check_games, game_rungs, game_text
from bonken_sim.engine.selfplay import self_play
from bonken_sim.engine.staked import staked_scores
from bonken_sim.engine.strategies import (
    INFERRING_EXPERT,
    parse_strategies,
    strategy_array,
    strategy_names,
)
from bonken_sim.errors import BadValue
from bonken_sim.models.choice import NAMES, Models, choose, load_models
from bonken_sim.models.doubling import doubles
from bonken_sim.rules.names import N_VARIANTS, Strategy
from bonken_sim.rules.rule_table import standard_deal_totals
from bonken_sim.stats import Interval, mean_interval, wilson_interval

RUNGS = (("random", "basic"), ("basic", "advanced"))  # (lower tier, hero tier)
EXPERT_LOWERS = ("advanced", "basic")  # the expert rungs' lower tiers
RULESET = "standard"  # the ladder plays RULES.md (its totals and fitted models are those)
EXPERT_DEALS = 2_000  # the expert rung's default deals
#: the expert whose card play infers, against the plain one (``--infer-deals``)
INFERRING = strategy_names([INFERRING_EXPERT])
#: the plain expert it is measured against: the expert tier at the kernel's defaults
PLAIN = strategy_names([Strategy.EXPERT])


def hero_gains(
    deals: int, seed: int, lower: str, hero: str, threads: int | None
) -> tuple[np.ndarray, float]:
    """(per deal and variant the hero's mean gain over the seat average, seats permuted,
    the seconds its deals took)."""
    totals = standard_deal_totals().astype(np.float64)
    gains = np.zeros((deals, N_VARIANTS))
    t0 = time.perf_counter()
    for seat in range(4):
        strategies = [lower] * 4
        strategies[seat] = hero
        sp = self_play(deals, seed, ",".join(strategies), threads)
        gains += sp.scores[:, :, seat] - totals / 4.0
    return gains / 4.0, time.perf_counter() - t0


def card_play_rung(
    deals: int, seed: int, lower: str, hero: str, threads: int | None
) -> dict[str, Interval]:
    """Per variant: the hero's mean gain over the seat average, seats permuted, same deals."""
    gains = hero_gains(deals, seed, lower, hero, threads)[0]
    return {name: mean_interval(gains[:, v]) for v, name in enumerate(NAMES)}


def inference_rung(deals: int, seed: int, threads: int | None) -> dict[str, Any]:
    """Card play with inference against without: one ``INFERRING`` hero and one plain
    expert hero (``PLAIN``), each among three advanced players on the same deals, seats permuted;
    per variant the first's gain minus the second's, paired per deal, and the seconds each
    hero's deals took (the two searches compared at their time, too)."""
    plain, t_plain = hero_gains(deals, seed, "advanced", PLAIN, threads)
    infer, t_infer = hero_gains(deals, seed, "advanced", INFERRING, threads)
    return {
        "plain": PLAIN,
        "inferring": INFERRING,
        "lower": "advanced",
        "deals": deals,
        "gain": {name: mean_interval(infer[:, v] - plain[:, v]) for v, name in enumerate(NAMES)},
        "seconds": {"plain": t_plain, "inferring": t_infer},
    }


def choice_rung(sp, models: Models, seed: int) -> dict[str, Any]:
    """The fitted choice policy against random choice, paired per chooser turn."""
    mu = np.array([models.mean[v][2] for v in NAMES])
    rel = sp.scores[:, :, 2] - mu
    rows = np.arange(len(rel))
    picked = np.array([NAMES.index(v) for v in choose(models, sp.hands[:, 2])])
    rand = np.random.default_rng(seed).integers(0, 12, len(rel))
    policy = rel[rows, picked]
    random = rel[rows, rand]
    hindsight = rel.max(axis=1)
    return {
        "policy": mean_interval(policy),
        "random": mean_interval(random),
        "hindsight": mean_interval(hindsight),
        "policy_minus_random": mean_interval(policy - random),
        "picked": picked,
    }


def doubling_rung(sp, models: Models, picked: np.ndarray) -> dict[str, dict[str, Any]]:
    """Per chosen variant: the doubling policy's gain per double and its rate of profit."""
    out: dict[str, dict[str, Any]] = {}
    all_gain = []
    all_deals = 0
    for v, name in enumerate(NAMES):
        idx = np.nonzero(picked == v)[0]
        if len(idx) == 0:
            continue
        d = doubles(models, sp.hands[idx], name)
        s = sp.scores[idx, v, :].astype(np.int64)
        i, a, b = np.nonzero(d)
        gain = s[i, a] - s[i, b]
        all_gain.append(gain)
        all_deals += len(idx)
        out[name] = {
            "deals": len(idx),
            "doubles_per_deal": len(gain) / len(idx),
            "gain_per_double": mean_interval(gain),
            "profitable": wilson_interval(int((gain > 0).sum()), len(gain)),
        }
    g = np.concatenate(all_gain) if all_gain else np.zeros(0)
    out["all"] = {
        "deals": all_deals,
        "doubles_per_deal": len(g) / max(all_deals, 1),
        "gain_per_double": mean_interval(g),
        "profitable": wilson_interval(int((g > 0).sum()), len(g)),
    }
    return out


def replay_with_stakes(sp, models: Models, picked: np.ndarray, strategies: str):
    """A copy of ``sp`` whose scores in the chosen contract are those of the deals played
    again with the policy's doubles in force, by ``strategies`` (stake-aware advanced seats
    weigh them; RULES.md §5)."""
    scores = sp.scores.copy()
    strat = strategy_array(parse_strategies(strategies))
    for v, name in enumerate(NAMES):
        idx = np.nonzero(picked == v)[0]
        if len(idx) == 0:
            continue
        d = doubles(models, sp.hands[idx], name, sp.dealer).astype(np.int64)
        stake = d + d.transpose(0, 2, 1)
        hit = np.nonzero(stake.any(axis=(1, 2)))[0]
        if len(hit) == 0:
            continue
        out = staked_scores(
            sp.seed,
            sp.start + idx[hit],
            sp.dealer,
            np.full(len(hit), v, np.int64),
            strat,
            stake[hit],
        )
        scores[idx[hit], v, :] = out
    return replace(sp, scores=scores)


# The ladder keeps every deal's scores of every rung in memory (peak RSS grows by about
# 0.76 KB a deal: 187 MB at 50k deals, 454 MB at 400k), so the count is capped at about 8 GB;
# 10 million deals already give CIs a hundredth of a point wide.
MAX_DEALS = 10_000_000


def check_counts(deals: int, expert_deals: int, games: int = 0, infer_deals: int = 0) -> None:
    """A ValueError for a count of deals the ladder cannot measure with: a command checks
    them before it compiles or plays anything."""
    if deals < 2:
        raise BadValue(f"--deals must be at least 2 (a confidence interval needs two), got {deals}")
    if deals > MAX_DEALS:
        raise BadValue(
            f"--deals must be at most {MAX_DEALS:,} for the ladder (it holds every deal in "
            f"memory, about 8 GB at the most), got {deals:,}"
        )
    if expert_deals == 1 or expert_deals < 0:
        raise BadValue(
            f"--expert-deals must be 0 (no expert rung) or at least 2, got {expert_deals}"
        )
    if infer_deals == 1 or infer_deals < 0 or infer_deals > MAX_DEALS:
        raise BadValue(
            f"--infer-deals must be 0 (no inference rung) or 2 to {MAX_DEALS:,}, got {infer_deals}"
        )
    check_games(games)


def run_ladder(
    deals: int,
    seed: int,
    threads: int | None = None,
    expert_deals: int = EXPERT_DEALS,
    expert: str = "expert",
    games: int = 0,
    infer_deals: int = 0,
) -> dict[str, Any]:
    """Every rung of the ladder on ``deals`` deals of ``seed``; the expert rung (``expert``:
    its strategy name, settings included, over each tier of ``EXPERT_LOWERS``) on the first
    ``expert_deals`` of them (0: none; at most ``deals``); the whole-game rungs on ``games``
    games of ``seed`` (0: none; the game profiles' experts play with their own settings);
    card play with inference against without on ``infer_deals`` deals of ``seed`` (0:
    none)."""
    check_counts(deals, expert_deals, games, infer_deals)
    expert_deals = min(expert_deals, deals)
    models = load_models()
    rungs = {f"{lo}->{hi}": card_play_rung(deals, seed, lo, hi, threads) for lo, hi in RUNGS}
    for lo in EXPERT_LOWERS if expert_deals else ():
        rungs[f"{lo}->{expert}"] = card_play_rung(expert_deals, seed, lo, expert, threads)
    second = (seed + 1) % 2**64  # the choice and doubling rungs' deals (seeds are 64-bit)
    sp = self_play(deals, second, "basic", threads)
    ch = choice_rung(sp, models, seed)
    dbl = doubling_rung(sp, models, ch.pop("picked"))
    # The same policy against advanced seats that play the doubled deals stake-aware.
    spa = self_play(deals, second, "advanced", threads)
    picked = choice_rung(spa, models, seed)["picked"]
    dbl_aware = doubling_rung(replay_with_stakes(spa, models, picked, "advanced"), models, picked)
    out = {
        "deals": deals,
        "expert_deals": expert_deals,
        "seed": seed,
        "ruleset": RULESET,
        "card_play": rungs,
        "choice": ch,
        "doubling": dbl,
        "doubling_stake_aware": dbl_aware,
    }
    if infer_deals:
        out["card_play_inference"] = inference_rung(infer_deals, seed, threads)
    if games:
        out["games"] = game_rungs(games, seed, threads)
    return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, Interval):
        return x.as_dict()
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    return x


def to_json(result: dict[str, Any]) -> dict[str, Any]:
    return _jsonable(result)


def to_text(result: dict[str, Any]) -> str:
    lines = [f"strategy ladder: {result['deals']:,} deals, seed {result['seed']}", ""]
    for rung, per in result["card_play"].items():
        lo, hi = rung.split("->")
        n = result["expert_deals"] if hi.startswith("expert") else result["deals"]
        lines.append(f"card play: one {hi} hero among three {lo}, seats permuted, {n:,} deals")
        lines.append("  hero's mean score minus the seat average, 95% CI")
        for name, iv in per.items():
            lines.append(f"  {name:14s}{iv.text()}")
        lines.append("")
    if "card_play_inference" in result:
        lines += [*_inference_text(result["card_play_inference"]), ""]
    ch = result["choice"]
    lines.append("contract choice (basic play): chooser's score minus the contract's mean")
    for key in ("policy", "random", "hindsight", "policy_minus_random"):
        lines.append(f"  {key.replace('_', ' '):22s}{ch[key].text()}")
    lines.append("")
    titles = {
        "doubling": "doubling policy on the chosen contracts (basic play: targets do not play "
        "stake-aware)",
        "doubling_stake_aware": "doubling policy on the chosen contracts (advanced play: "
        "every seat plays the doubled deals stake-aware)",
    }
    for key, title in titles.items():
        if key not in result:
            continue
        lines.append(title)
        head = f"  {'variant':14s}{'deals':>8s}{'dbl/deal':>9s}  {'gain per double':>16s}"
        lines.append(head + "  profitable")
        for name, e in result[key].items():
            p = e["profitable"]
            prof = f"{p.mean:6.1%} [{p.lo:.1%}, {p.hi:.1%}]" if p.n else "     -"
            gain = e["gain_per_double"].text() if e["gain_per_double"].n else "        -"
            per_deal = e["doubles_per_deal"]
            lines.append(f"  {name:14s}{e['deals']:8d}{per_deal:9.2f}  {gain:>16s}  {prof}")
        lines.append("")
    if "games" in result:
        lines += [*game_text(result["games"]), ""]
    return "\n".join(lines).rstrip("\n")


def _inference_text(r: dict[str, Any]) -> list[str]:
    secs = r["seconds"]
    ratio = secs["inferring"] / secs["plain"] if secs["plain"] > 0 else float("nan")
    lines = [
        f"card play with inference against without: one {r['inferring']} hero minus one "
        f"{r['plain']} hero, each among three {r['lower']}, seats permuted, {r['deals']:,} deals",
        f"  time: {secs['inferring']:.1f} s against {secs['plain']:.1f} s ({ratio:.2f}x)",
        "  paired difference of the two heroes' mean scores, 95% CI",
    ]
    lines += [f"  {name:14s}{iv.text()}" for name, iv in r["gain"].items()]
    return lines
