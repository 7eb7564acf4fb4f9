"""The doubling rule (docs/STRATEGIES.md, "Doubling"), written once for the fitted estimates
(``game.doubling_step``) and the searched ones (``game_search.doubles_from_search``).

A seat doubles another when its estimate of the bet a double makes (its own expected score
minus that seat's) beats the threshold θ (θ_back to double back) by more than a margin: none
for the fitted estimate, z standard errors for a searched one. It doubles at most two seats
unless every estimate clears θ_back; the chooser only doubles back unless a house rule lets
him start.
"""

import numpy as np

from ._jit import jit

NO_MARGIN = (0.0, 0.0, 0.0, 0.0)


@jit(_nrt=False, inline="always")
def doubles_by_rule(d, v, chooser, bits, theta, starts, est, margin):
    """The seats ``d`` doubles in variant ``v``, as bits (bit t: d doubles t): ``est[t]`` its
    estimate against seat t, ``margin[t]`` what it must clear on top of the threshold,
    ``bits`` the doubles said before it (bit 4·t + d: t doubled d), ``starts`` whether it
    may double a seat that did not double it. Bitwise, not ``and``/``or``: in the game
    kernel's pass these outcomes are unpredictable branches."""
    th_back = theta[v, 2] if d == chooser else theta[v, 3]
    ok = 0
    n_ok = 0
    all_zaal = True
    for t in range(4):
        if t == d:
            continue
        back = (bits >> (4 * t + d)) & 1 != 0
        need = th_back if back else (theta[v, 0] if t == chooser else theta[v, 1])
        yes = (est[t] - need - margin[t] > 0) & (back | starts)
        all_zaal = all_zaal & (est[t] - th_back - margin[t] > 0)
        n_ok += yes
        ok |= np.int64(yes) << t
    if starts and n_ok == 3 and not all_zaal:
        # at most two doubles: the one with the least margin goes (rare: found only now)
        weakest = -1
        least = np.inf
        for t in range(4):
            if t == d:
                continue
            back = (bits >> (4 * t + d)) & 1 != 0
            need = th_back if back else (theta[v, 0] if t == chooser else theta[v, 1])
            if est[t] - need - margin[t] < least:
                least = est[t] - need - margin[t]
                weakest = t
        ok &= ~(1 << weakest)
    return ok
