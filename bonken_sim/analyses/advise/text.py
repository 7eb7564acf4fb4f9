"""The terminal table of ``bonken-sim advise`` (from the document ``advise.advise`` returns)."""

from __future__ import annotations

from typing import Any

Doc = dict[str, Any]


def _pm(est: Doc, width: int = 7, digits: int = 2) -> str:
    """``+12.34 ± 0.56`` from an estimate's mean and 95% interval."""
    lo, hi = est["ci95"]
    return f"{est['mean']:+{width}.{digits}f} ± {(hi - lo) / 2:4.{digits}f}"


def _seat(seat: int, role: str) -> str:
    return f"seat {seat} {role}"


def _doubling_cell(d: Doc) -> str:
    lo, hi = d["ci95"]
    mark = {"pays": "pays", "loses": "no", "unclear": "?"}[d["verdict"]]
    ahead, behind = 100 * d["p_profit"], 100 * d["p_loss"]
    return f"{d['mean']:+6.1f} ±{(hi - lo) / 2:4.1f} {ahead:3.0f}/{behind:3.0f}% {mark:<4}"


def advice_lines(doc: Doc) -> list[str]:
    """The advice as lines of text: the recommendation first, then the tables."""
    chooser = doc["seat"] == "chooser"
    strategies = doc["strategies"]
    strat = strategies[0] if len(set(strategies)) == 1 else ",".join(strategies)
    seed = f"seed {doc['seed']}" + (" (drawn)" if doc["seed_drawn"] else "")
    threads = f"{doc['threads']} thread" + ("s" if doc["threads"] != 1 else "")
    rules = doc["ruleset"]["name"]
    turns = doc.get("turns_left")
    state = ", your troeven is used" if doc["trump_used"] and chooser else ""
    if turns is not None:
        state += f", {turns} choosing turn{'s' if turns != 1 else ''} left"
    if doc.get("reference_run"):
        averages = f"run {doc['reference_run']}"
    else:
        last = doc["deals"] - 1
        averages = f"simulated on deals 0..{last:,} of the seed, as bonken-sim run plays them"
    lines = [
        f"bonken-sim advise: you are the {doc['seat']} (seat {doc['seat_index']}; dealer seat "
        f"{doc['dealer']}){state}",
        f"  hand  {doc['hand_text']}",
        f"  {doc['deals']:,} deals, {seed}, strategies {strat}, ruleset {rules}, {threads}, "
        f"{doc['seconds']['wall']:.1f} s",
        f"  contract averages: {averages}",
        "",
        f">> {doc['recommendation']}",
    ]
    if chooser:
        lines.append(f"   policy: {doc['policy']['rule']}")
    rows = {r["variant"]: r for r in doc["variants"]}

    def best(name: str | None) -> str:
        return f"{name} {_pm(rows[name]['relative'], 0)}" if name else "none available"

    if chooser:
        lines.append(
            f"   best negative: {best(doc['best_negative'])}   "
            f"best troeven: {best(doc['best_troeven'])}"
        )
    else:
        worst = doc["variants"][-1]
        lines.append(f"   least wanted: {worst['variant']} {_pm(worst['relative'], 0)}")
        gains = [(d["mean"], r["variant"], d) for r in doc["variants"] for d in r["doubling"]]
        top_mean, top_variant, top = max(gains, key=lambda g: g[0])
        if top["verdict"] == "pays":
            lines.append(
                f"   best double: {_seat(top['target_seat'], top['target_role'])} in "
                f"{top_variant}, {top_mean:+.1f} per unit, ahead in "
                f"{100 * top['p_profit']:.0f}% of deals"
            )
    lines += [
        "",
        "  contracts ranked by your score relative to the contract's average at your seat "
        "(mean ± 95% CI)",
        f"  {'rank':>4}  {'contract':<12} {'your score':>16} {'seat average':>16} "
        f"{'relative':>16} {'model':>7}",
    ]
    for r in doc["variants"]:
        model = r.get("model_relative")
        lines.append(
            f"  {r['rank']:>4}  {r['variant']:<12} {_pm(r['expected']):>16} "
            f"{_pm(r['average']):>16} {_pm(r['relative']):>16} "
            + (f"{model:+7.2f}" if model is not None else f"{'-':>7}")
        )
    lines.append(
        "  (model: the fitted choice model's relative value for this hand, what the game "
        "profiles decide on)"
    )
    if doc["not_available"]:
        lines.append(f"  not available: {', '.join(doc['not_available'])}")
    lines += ["", *doubling_lines(doc)]
    return lines


def doubling_lines(doc: Doc) -> list[str]:
    """Per contract and target: the mean gain per unit doubled ± 95% CI, how often it is
    positive / negative, and the verdict (pays when the whole interval is above zero)."""
    chooser = doc["seat"] == "chooser"
    targets = [(d["target_seat"], d["target_role"]) for d in doc["variants"][0]["doubling"]]
    widest = max(
        (d[key][1] - d[key][0]) / 2
        for r in doc["variants"]
        for d in r["doubling"]
        for key in ("p_profit_ci95", "p_loss_ci95")
    )
    head = "doubling back (only a player who doubled you)" if chooser else "doubling"
    lines = [
        f"  {head}: a double wins your score minus the target's;",
        "  its mean ± 95% CI, the % of deals you come out ahead / behind (Wilson 95% CIs within",
        f"  ±{100 * widest:.1f} points), and whether it pays (the whole CI of the mean above 0)",
        (
            f"  {'contract':<12} " + " ".join(f"{'vs ' + _seat(s, r):<27}" for s, r in targets)
        ).rstrip(),
    ]
    for r in doc["variants"]:
        cells = " ".join(f"{_doubling_cell(d):<27}" for d in r["doubling"])
        lines.append(f"  {r['variant']:<12} {cells}".rstrip())
    lines.append(
        "  (the simulated targets do not react to a double: no redoubles, no stake-aware play)"
    )
    return lines
