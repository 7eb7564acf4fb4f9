"""The tables of the games beside a deal run (``game_set``): the profiles' win rates and
totals, the pairs of profiles that isolate one skill (contract choice, doubling, card play),
and the doubles of the chooser per contract on the deals as played."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.games import stats as G
from bonken_sim.report.games.game_set.stats import GameSetStats

CHOOSER_KINDS = ("fitted", "random")  # how the chooser chose: ChooserDoubles' first axis


def profile_table(st: GameSetStats) -> pd.DataFrame:
    """Per profile: win rate and mean settled total per game, mean over deal sets (95% CI
    over deal sets). Drawn by ``figures_games.game_results``."""
    w, _, wlo, whi = st.win.ci()
    t, _, tlo, thi = st.total.ci()
    seats = np.maximum(1, np.rint(st.seat_games / max(1, st.games))).astype(int)
    return pd.DataFrame(
        {
            "group": "profile",
            "name": list(st.profiles),
            "profile": list(st.profiles),
            "seats": seats,
            "deal_sets": st.win.n,
            "seat_games": st.seat_games,
            "win_rate": w, "win_ci_low": wlo, "win_ci_high": whi,
            "mean_total": t, "total_ci_low": tlo, "total_ci_high": thi,
        }
    )  # fmt: skip


def value_table(st: GameSetStats) -> pd.DataFrame:
    """Every pair of profiles that played the same deal sets, per deal set ``profile`` −
    ``versus`` (95% CI over deal sets). A pair that differs in one skill is oriented with the
    better side first, and ``measures`` names the skill; those rows come first."""
    w, _, wlo, whi = st.win_pairs.ci()
    t, _, tlo, thi = st.total_pairs.ci()
    names = st.profiles
    rows = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if st.win_pairs.n[i, j] == 0:
                continue
            diff = G.single_difference(names[i], names[j])
            a, b = (j, i) if diff is not None and not diff[1] else (i, j)
            rows.append(
                {
                    "measures": "" if diff is None else diff[0],
                    "profile": names[a], "versus": names[b],
                    "deal_sets": int(st.win_pairs.n[a, b]),
                    "win_diff": w[a, b], "win_diff_ci_low": wlo[a, b],
                    "win_diff_ci_high": whi[a, b],
                    "total_diff": t[a, b], "total_diff_ci_low": tlo[a, b],
                    "total_diff_ci_high": thi[a, b],
                }
            )  # fmt: skip
    order = {m: k for k, m in enumerate(G.MEASURES)}
    frame = pd.DataFrame(rows, columns=_VALUE_COLUMNS)
    rank = frame["measures"].map(lambda m: order.get(m, len(order)))
    return frame.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)


_VALUE_COLUMNS = [
    "measures", "profile", "versus", "deal_sets", "win_diff", "win_diff_ci_low",
    "win_diff_ci_high", "total_diff", "total_diff_ci_low", "total_diff_ci_high",
]  # fmt: skip


def chooser_doubles_table(st: GameSetStats) -> pd.DataFrame:
    """Per chooser kind (fitted or random choice) and contract, on the deals as played:
    ``always_*`` the mean of s_d − s_chooser over the three others (what a double of the
    chooser gains, if every one doubled him); ``doubles_per_deal`` the doubles of the chooser
    the players made; ``gain_per_double`` and ``share_gained`` over those doubles. Every
    interval is taken over deal sets (a deal's doubles, and a deal set's seatings, are not
    independent)."""
    cd = st.chooser
    deals = cd.always.sum[cd.always.cells :].reshape(cd.always.shape)
    doubles = cd.made.sum[cd.made.cells :].reshape(cd.made.shape)
    a, alo, ahi = cd.always.ratio_ci()
    d, dlo, dhi = cd.rate.ratio_ci()
    g, glo, ghi = cd.made.ratio_ci()
    s, slo, shi = cd.gained.ratio_ci()
    rows = []
    for k, kind in enumerate(CHOOSER_KINDS):
        for c, name in enumerate(G.CONTRACTS):
            rows.append(
                {
                    "chooser_choice": kind, "contract": name, "deals": int(deals[k, c]),
                    "always_mean": a[k, c], "always_ci_low": alo[k, c],
                    "always_ci_high": ahi[k, c],
                    "doubles_per_deal": d[k, c], "doubles_ci_low": dlo[k, c],
                    "doubles_ci_high": dhi[k, c],
                    "doubles": int(doubles[k, c]),
                    "gain_per_double": g[k, c], "gain_ci_low": glo[k, c],
                    "gain_ci_high": ghi[k, c],
                    "share_gained": s[k, c], "share_ci_low": slo[k, c],
                    "share_ci_high": shi[k, c],
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def choice_turn_table(st: GameSetStats) -> pd.DataFrame:
    """Per chooser kind, his score per chooser turn minus the deal run's mean chooser score of
    the variant he chose, and fitted − random; 95% CIs over deal sets."""
    rel = st.chooser.relative
    mean, lo, hi = rel.ratio_ci()
    turns = rel.sum[rel.cells :].astype(np.int64)
    diff, dlo, dhi = rel.diff_ci(0, 1)
    return pd.DataFrame(
        {
            "chooser_choice": [*CHOOSER_KINDS, "fitted − random"],
            "turns": [int(turns[0]), int(turns[1]), int(turns.sum())],
            "relative_mean": [mean[0], mean[1], diff],
            "relative_ci_low": [lo[0], lo[1], dlo],
            "relative_ci_high": [hi[0], hi[1], dhi],
        }
    )
