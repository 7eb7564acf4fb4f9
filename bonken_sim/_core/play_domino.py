"""The Domino play loop: one deal laid to the last card.

One source, compiled with and without advanced seats (a compile-time constant of each
build): advanced seats remember every pass, since a seat that passes holds none of the cards
playable at that moment, and the build without them carries none of that state. The rules
of Domino (what opens, what a laid card opens, the aces) are ``domino.py``'s.
"""

import numpy as np

from ._jit import jit
from .cards import U0, U1, kth_lowest, lowest, npop
from .domino import domino_lay, domino_opening
from .expert import make_domino_expert, record_play
from .ids import PASS, STRAT_ADVANCED, STRAT_EXPERT, STRAT_RANDOM, TIER_MASK
from .rng import scale_draw
from .ruleset import F_DOMINO_ACES, F_DOMINO_LAST_PTS, F_DOMINO_OPEN
from .strategy_advanced import adv_domino_choice, stuck_cards
from .strategy_basic import domino_choice


def _make_domino_loop(advanced, expert_choice=None):
    """The Domino loop with (``advanced``) or without advanced seats. Returns (the loop from
    a deal's start, the loop from a given ``DominoState``). With ``expert_choice`` (a
    ``make_domino_expert`` decision) the build also plays expert seats (advanced must be on)."""
    expert = expert_choice is not None

    @jit(inline="always")
    def domino_from(row, hands, strat, rnd, scores, out_order, trace, state, xs):
        """Play Domino from ``state`` to the last card; ``hands``, ``scores`` and
        ``out_order`` (0..3: the order seat p went out) are the position's and are played
        on. Returns the trace entries written in all. ``xs``: the expert's (play stream,
        workspace), read only by expert builds."""
        turn, first, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2, nh3, n, nr = state
        open_rank = row[F_DOMINO_OPEN]
        record = trace.shape[0] > 0
        while True:
            H = hands[turn]
            if H != U0:
                L = H & playable
                if L == U0:
                    if advanced:
                        nh0 |= playable if turn == 0 else U0
                        nh1 |= playable if turn == 1 else U0
                        nh2 |= playable if turn == 2 else U0
                        nh3 |= playable if turn == 3 else U0
                    if record:
                        trace[n] = PASS
                    if expert:
                        record_play(xs, n, PASS, turn)
                    n += 1
                else:
                    sp = strat[turn]
                    if first >= 0:  # the card a search evaluates
                        c = first
                        first = -1
                    elif sp == STRAT_RANDOM:
                        c = kth_lowest(L, scale_draw(rnd[nr], npop(L)))
                        nr += 1
                    elif L & (L - U1) == U0:  # a forced card: no strategy needed
                        c = lowest(L)
                    elif advanced and (sp == STRAT_ADVANCED or (sp & TIER_MASK) == STRAT_EXPERT):
                        stuck = stuck_cards(H, turn, hands, laid_mask, playable, nh0, nh1, nh2, nh3)
                        c = adv_domino_choice(H, L, open_rank, aces, playable, stuck)
                        if expert and sp != STRAT_ADVANCED:
                            know = (turn, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2,
                                    nh3, n)  # fmt: skip
                            c = expert_choice(row, hands, sp, L, c, know, scores, out_order, xs)
                    else:
                        c = domino_choice(H, L, open_rank, aces)
                    cb = U1 << np.uint64(c)
                    hands[turn] = H & ~cb
                    if advanced:
                        laid_mask |= cb
                    playable, aces = domino_lay(playable, c, open_rank, aces, hands)
                    if record:
                        trace[n] = c
                    if expert:
                        record_play(xs, n, c, turn)
                    n += 1
                    laid += 1
                    if hands[turn] == U0:
                        out_order[turn] = n_out
                        n_out += 1
                    if laid == 52:
                        scores[turn] += row[F_DOMINO_LAST_PTS]
                        return n
            turn = (turn + 1) & 3

    @jit(_nrt=False)  # allocates nothing: no reference counting on the array arguments
    def play_domino(row, hands, dealer, strat, rnd, scores, out_order, trace, xs):
        """Play Domino to the last card. ``out_order[p]`` = 0..3, the order seat p went out."""
        for p in range(4):
            scores[p] = 0
            out_order[p] = -1
        # The DominoState of a deal before its first card: (seat to act, the card to force
        # first (-1: none), the playable cards, the aces' state, cards laid, their mask,
        # seats out, the cards each seat showed it does not hold by passing, trace entries,
        # random draws used).
        # Typed values, not literals (see play_tricks.deal_start).
        none, zero = np.int64(-1), np.int64(0)
        start = ((dealer + 1) & 3, none, domino_opening(row[F_DOMINO_OPEN]),
                 row[F_DOMINO_ACES], zero, U0, zero, U0, U0, U0, U0, zero, zero)  # fmt: skip
        return domino_from(row, hands, strat, rnd, scores, out_order, trace, start, xs)

    @jit(_nrt=False)
    def play_from(row, hands, strat, rnd, scores, out_order, trace, state, xs):
        """``domino_from`` as a function of its own (the search's rollouts call it)."""
        return domino_from(row, hands, strat, rnd, scores, out_order, trace, state, xs)

    return play_domino, play_from


play_domino = _make_domino_loop(False)[0]
adv_domino, roll_domino = _make_domino_loop(True)
expert_domino = make_domino_expert(roll_domino)  # also called from a view (``decide``)
exp_domino = _make_domino_loop(True, expert_domino)[0]
