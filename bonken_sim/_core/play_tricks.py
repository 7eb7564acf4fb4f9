"""The trick-play loop: one deal of one trick contract (negative, laatste slag or troeven).

One source, compiled once per strategy family and per "has an advanced seat": the family
and the flag are compile-time constants of each build, so a build carries only its own
decision code, inlined where LLVM can see it (a generic dispatch call per card cost about
half the basic tier's time, measured), and a deal without an advanced seat runs a loop
with none of the advanced tier's code or state. The rules of a trick (legal cards, the
winner, the score) are ``trick.py``'s.

The advanced tier remembers more than the cards played: every seat's voids, the opponents
shown to hold no penalty card, and the deal's doubling stakes (``stake[p, q]``, the number
of directions doubled between seats p and q: 0, 1 or 2, RULES.md §5; all zero outside full
games).
"""

import numpy as np

from ._jit import jit
from .cards import ALL52, U0, U1, kth_lowest, lowest, npop, suit_of
from .expert import make_trick_expert, record_play
from .ids import (
    FAMILY_LAATSTE,
    FAMILY_NEGATIVE,
    FAMILY_RANDOM,
    FAMILY_TROEVEN,
    HARTENHEER,
    HEARTS_SUIT,
    STRAT_ADVANCED,
    STRAT_EXPERT,
    STRAT_RANDOM,
    TIER_MASK,
)
from .infer import make_trick_log_likelihood
from .rng import scale_draw
from .ruleset import (
    F_BAN_HEART_LEAD,
    F_CONTRACT,
    F_LAST_PTS,
    F_PEN_MASK,
    F_PTS_A,
    F_PTS_A_MASK,
    F_PTS_B,
    F_PTS_B_MASK,
    F_TOP_MASK,
    F_TRICK_PTS,
    F_TRUMP,
    F_TRUMP_PLAY,
    HEART_LEAD_FREE,
    TRUMP_OPTIONAL,
)
from .strategy_advanced import (
    adv_laatste,
    adv_neg_discard,
    adv_neg_follow,
    adv_neg_lead,
    adv_troeven_follow,
    adv_troeven_lead,
    adv_troeven_void,
)
from .strategy_basic import (
    laatste_choice,
    neg_discard,
    neg_follow,
    neg_lead,
    troeven_follow,
    troeven_lead,
    troeven_void,
)
from .trick import (
    hearts_broken,
    lay_card,
    lead_ban,
    points_left,
    seats_after,
    trick_legal,
    trick_points,
)

# The choosers: a seat's card when it has a choice, one per strategy family, for the basic
# builds (every seat basic or random) and the mixed ones (advanced seats among them). They
# share one signature, so a loop build calls the one its factory picked: ``sp`` the seat's
# tier, ``out`` the cards it has not seen, ``clean`` the seats shown to hold no penalty card,
# ``rules`` the row's (``row_rules``), ``stake`` the deal's doubles.


@jit(inline="always")
def basic_negative(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick, voids, clean,
                   trump, rules, stake):  # fmt: skip
    contract, pen, top, a_mask, a_pts, b_mask, b_pts, pen_is_top = rules
    if pos == 0:
        return neg_lead(L, out, pen)
    if L & ledm:
        return neg_follow(L, wcard, pen, pos)
    return neg_discard(H, out, pen, top, a_mask, a_pts, b_mask, b_pts)


@jit(inline="always")
def mixed_negative(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick, voids, clean,
                   trump, rules, stake):  # fmt: skip
    if sp != STRAT_ADVANCED:
        return basic_negative(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                              voids, clean, trump, rules, stake)  # fmt: skip
    contract, pen, top, a_mask, a_pts, b_mask, b_pts, pen_is_top = rules
    holder = contract == HARTENHEER and (H & top) != U0
    if pos == 0:
        risky = 15 & ~(1 << p) & ~clean if pen_is_top else 15 & ~(1 << p)
        return adv_neg_lead(H, L, out, pen, top, voids, risky, contract, holder)
    if L & ledm:
        tpen = (trick & pen) != U0
        return adv_neg_follow(H, L, out, pen, top, tpen, pos, wcard, led, holder, contract)
    stake_w = stake[p, wseat]
    return adv_neg_discard(H, out, pen, top, a_mask, a_pts, b_mask, b_pts, contract, stake_w)


@jit(inline="always")
def basic_laatste(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick, voids, clean,
                  trump, rules, stake):  # fmt: skip
    return laatste_choice(H, L, out, pos, led, wcard)


@jit(inline="always")
def mixed_laatste(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick, voids, clean,
                  trump, rules, stake):  # fmt: skip
    if sp != STRAT_ADVANCED:
        return laatste_choice(H, L, out, pos, led, wcard)
    return adv_laatste(H, L, out, pos, led, wcard)


@jit(inline="always")
def basic_troeven(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick, voids, clean,
                  trump, rules, stake):  # fmt: skip
    if pos == 0:
        return troeven_lead(H, out, trump, voids, p)
    later = seats_after(leader, pos)
    if L & ledm:
        return troeven_follow(L, out, trump, voids, pos, led, wcard, later)
    # L is H unless a trump-play rule restricts it.
    return troeven_void(L, out, trump, voids, pos, led, wcard, later)


@jit(inline="always")
def mixed_troeven(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick, voids, clean,
                  trump, rules, stake):  # fmt: skip
    if sp != STRAT_ADVANCED:
        return basic_troeven(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                             voids, clean, trump, rules, stake)  # fmt: skip
    if pos == 0:
        return adv_troeven_lead(H, out, trump, voids, p)
    later = seats_after(leader, pos)
    if L & ledm:
        return adv_troeven_follow(L, out, trump, voids, pos, led, wcard, later)
    return adv_troeven_void(L, out, trump, voids, pos, led, wcard, later, stake[p, wseat])


CHOOSERS = {
    (FAMILY_NEGATIVE, False): basic_negative,
    (FAMILY_NEGATIVE, True): mixed_negative,
    (FAMILY_LAATSTE, False): basic_laatste,
    (FAMILY_LAATSTE, True): mixed_laatste,
    (FAMILY_TROEVEN, False): basic_troeven,
    (FAMILY_TROEVEN, True): mixed_troeven,
    # the all-random build never chooses: its loop drops the call
    (FAMILY_RANDOM, False): basic_laatste,
}


@jit(inline="always")
def row_rules(row, pen_is_top):
    """What the strategies read of a row, once per deal: (contract, penalty cards, top
    penalty cards, the two penalty classes' masks and points, pen_is_top)."""
    return (
        row[F_CONTRACT],
        np.uint64(row[F_PEN_MASK]),
        np.uint64(row[F_TOP_MASK]),
        np.uint64(row[F_PTS_A_MASK]),
        row[F_PTS_A],
        np.uint64(row[F_PTS_B_MASK]),
        row[F_PTS_B],
        pen_is_top,
    )


def _make_trick_loop(family, advanced, expert_choice=None):
    """The trick-play loop for one strategy family, with (``advanced``) or without advanced
    seats, built from this one source. Returns (the loop from a deal's start, the loop from
    a given state: ``TrickState``). With ``expert_choice`` (a ``make_trick_expert``
    decision) the build also plays expert seats (advanced must be on)."""
    # Only troeven rows have a trump or a trump-play mode, and only negative rows ban heart
    # leads (ruleset.build_table); as constants the basic builds drop that code. The
    # all-random build serves every row, and the advanced builds read the row as it is.
    from_row = family == FAMILY_RANDOM or advanced
    row_trump = family == FAMILY_TROEVEN or from_row
    row_hearts = family == FAMILY_NEGATIVE or from_row
    # Voids matter to troeven's tactics and to every advanced seat; the cards played to every
    # strategy but random.
    track_voids = family == FAMILY_TROEVEN or advanced
    track_played = family != FAMILY_RANDOM
    choose = CHOOSERS[family, advanced]
    expert = expert_choice is not None

    @jit(inline="always")
    def tricks_from(row, hands, strat, rnd, scores, tricks, trace, stake, state, xs, settle):
        """Play from ``state`` (a ``TrickState``) to the end of trick ``stop`` (13: the
        deal's end, the last trick's points included); ``hands``, ``scores`` and ``tricks``
        are the position's and are played on. Returns (trace entries written in all, the
        leader of the next trick). ``xs``: the expert's (``SeatSearch``), read only by
        expert builds. With ``settle`` (a search's rollout, which reads only the scores) the
        play stops as soon as no card can change a score any more (``points_left``): the
        scores are final then, the hands, tricks and trace are not.

        An expert seat plays the advanced card without a search where no card can change a
        score: every card would score the same on every sample, and the search picks the
        advanced card then (``expert.best_card``).

        ``rnd`` holds the play stream's draws; random seats consume them in order. Only
        scalars cross into the strategy helpers (array arguments would cost atomic reference
        counting on every card).
        """
        (leader, pos0, first, t0, stop, led, ledm, wcard, wseat, trick, played, voids, clean,
         broken, n, nr) = state  # fmt: skip
        trump = row[F_TRUMP] if row_trump else -1
        tmode = row[F_TRUMP_PLAY] if row_trump else TRUMP_OPTIONAL
        hmode = row[F_BAN_HEART_LEAD] if row_hearts else HEART_LEAD_FREE
        pen = np.uint64(row[F_PEN_MASK])
        a_mask = np.uint64(row[F_PTS_A_MASK])
        a_pts = row[F_PTS_A]
        b_mask = np.uint64(row[F_PTS_B_MASK])
        b_pts = row[F_PTS_B]
        # Where every penalty card is a top card (vrouwen, hartenheer), a seat that discards
        # something else holds none: basic and advanced seats dump a top card first.
        pen_is_top = advanced and pen != U0 and pen == np.uint64(row[F_TOP_MASK])
        rules = row_rules(row, pen_is_top)
        record = trace.shape[0] > 0
        # An expert seat's knowledge beyond ``voids``: suits a seat showed it lacks by the
        # trump-play and heart-lead rules (same layout; expert builds only).
        xvoids = voids
        fixed_pts = row[F_TRICK_PTS] != 0 or row[F_LAST_PTS] != 0
        for t in range(t0, stop):
            # (at a trick's start only: a search that solves the ending, E > 0, goes on
            # from the trick boundary where the rollout stops)
            if settle and trick == U0 and not points_left(fixed_pts, pen, played, trick):
                break
            ban = lead_ban(hmode, broken)
            for pos in range(pos0, 4):
                p = (leader + pos) & 3
                H = hands[p]
                L = trick_legal(H, pos, led, ledm, ban, trump, tmode, wcard)
                sp = strat[p]
                if first >= 0:  # the card a search evaluates
                    c = first
                    first = -1
                elif family == FAMILY_RANDOM or sp == STRAT_RANDOM:
                    c = kth_lowest(L, scale_draw(rnd[nr], npop(L)))
                    nr += 1
                elif L & (L - U1) == U0:  # a forced card: no strategy needed
                    c = lowest(L)
                else:
                    out = ALL52 & ~H & ~played
                    if expert and (sp & TIER_MASK) == STRAT_EXPERT:
                        c = choose(STRAT_ADVANCED, H, L, out, pos, p, leader, led, ledm, wcard,
                                   wseat, trick, voids, clean, trump, rules, stake)  # fmt: skip
                        if points_left(fixed_pts, pen, played, trick):
                            know = (t, pos, leader, led, ledm, wcard, wseat, trick, played,
                                    voids, xvoids, clean, broken, n)  # fmt: skip
                            c = expert_choice(row, hands, sp, p, L, c, know, scores, tricks,
                                              stake, xs)  # fmt: skip
                    else:
                        c = choose(sp, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                                   voids, clean, trump, rules, stake)  # fmt: skip
                cb = U1 << np.uint64(c)
                hands[p] = H & ~cb
                trick |= cb
                if track_played:
                    played |= cb
                if record:
                    trace[n] = c
                if expert:
                    record_play(xs, n, c, p)
                n += 1
                if track_voids and pos > 0 and suit_of(c) != led:
                    voids |= 1 << (4 * p + led)
                    if pen_is_top and (cb & pen) == U0 and sp != STRAT_RANDOM:
                        clean |= 1 << p
                if expert:
                    xvoids = shown_voids(xvoids, voids, c, pos, p, led, ban, trump, tmode, H)
                led, ledm, wcard, wseat = lay_card(c, pos, p, led, ledm, wcard, wseat, trump)
            tricks[wseat] += 1
            broken = hearts_broken(broken, trick)
            scores[wseat] += trick_points(trick, row[F_TRICK_PTS], a_mask, a_pts, b_mask, b_pts)
            leader = wseat
            pos0 = 0
            led = -1
            ledm = U0  # the led suit's cards: shifted once per trick, not loaded per card
            wcard = -1
            trick = U0
        if stop == 13:
            scores[leader] += row[F_LAST_PTS]
        return n, leader

    @jit(_nrt=False)  # allocates nothing: no reference counting on the array arguments
    def play_tricks(row, hands, dealer, strat, rnd, scores, tricks, trace, stake, xs):
        """Play 13 tricks; ``hands`` is consumed. Returns the number of trace entries written."""
        for p in range(4):
            scores[p] = 0
            tricks[p] = 0
        state = deal_start(dealer)
        return tricks_from(row, hands, strat, rnd, scores, tricks, trace, stake, state, xs,
                           False)[0]  # fmt: skip

    @jit(_nrt=False)
    def play_from(row, hands, strat, rnd, scores, tricks, trace, stake, state, xs):
        """``tricks_from`` as a function of its own for the search's rollouts, which read
        only the scores: it stops once no card can change one (``settle``)."""
        return tricks_from(row, hands, strat, rnd, scores, tricks, trace, stake, state, xs,
                           True)  # fmt: skip

    return play_tricks, play_from


@jit(inline="always")
def deal_start(dealer):
    """The ``TrickState`` of a deal before its first card: (leader, place in the trick, the
    card to force first (-1: none), trick number, the trick to stop after (13: play to the
    end), led suit, its cards, winning card, winning seat, cards on the trick, cards
    played, voids, seats shown clean, hearts broken, trace entries, random draws used).

    Typed values, not literals: numba types a loop's calls first with the types its
    variables enter with, so a literal ``-1`` here made it compile every helper the loop
    calls twice (for ``Literal[int](-1)``, then for ``int64``)."""
    none, zero = np.int64(-1), np.int64(0)
    return ((dealer + 1) & 3, zero, none, zero, np.int64(13), none, U0, none, (dealer + 1) & 3,
            U0, U0, zero, zero, np.bool_(False), zero, zero)  # fmt: skip


@jit(inline="always")
def shown_voids(xvoids, voids, c, pos, p, led, ban, trump, tmode, H):
    """What the card ``c`` seat ``p`` played (from hand ``H``) shows about its voids, beyond
    not following suit: a heart led while heart leads are banned shows a hand of hearts
    only; a side card played when void under must-trump shows no trump either."""
    xvoids |= voids
    s = suit_of(c)
    if pos == 0:
        if ban and s == HEARTS_SUIT:
            xvoids |= 0xB << (4 * p)  # clubs, diamonds and spades
    elif s != led and tmode > 0 and trump >= 0 and s != trump:
        xvoids |= 1 << (4 * p + trump)
    return xvoids


# The basic builds play deals without an advanced seat; the random build, deals where every
# seat is random (any row); the advanced builds, deals with at least one advanced seat; the
# expert builds, deals with at least one expert seat (their rollouts: the advanced builds
# from a given state, every seat advanced).
tricks_random = _make_trick_loop(FAMILY_RANDOM, False)[0]
tricks_negative = _make_trick_loop(FAMILY_NEGATIVE, False)[0]
tricks_laatste = _make_trick_loop(FAMILY_LAATSTE, False)[0]
tricks_troeven = _make_trick_loop(FAMILY_TROEVEN, False)[0]
adv_tricks_negative, roll_negative = _make_trick_loop(FAMILY_NEGATIVE, True)
adv_tricks_laatste, roll_laatste = _make_trick_loop(FAMILY_LAATSTE, True)
adv_tricks_troeven, roll_troeven = _make_trick_loop(FAMILY_TROEVEN, True)
# The expert's decisions, also called on their own from a seat's view (``decide``).
# Their inference models the others as the advanced builds' own choosers.
infer_negative = make_trick_log_likelihood(mixed_negative, row_rules)
infer_laatste = make_trick_log_likelihood(mixed_laatste, row_rules)
infer_troeven = make_trick_log_likelihood(mixed_troeven, row_rules)
expert_negative = make_trick_expert(roll_negative, infer_negative)
expert_laatste = make_trick_expert(roll_laatste, infer_laatste)
expert_troeven = make_trick_expert(roll_troeven, infer_troeven)
exp_tricks_negative = _make_trick_loop(FAMILY_NEGATIVE, True, expert_negative)[0]
exp_tricks_laatste = _make_trick_loop(FAMILY_LAATSTE, True, expert_laatste)[0]
exp_tricks_troeven = _make_trick_loop(FAMILY_TROEVEN, True, expert_troeven)[0]
