"""The exact solver's search frames: one ply (one card) per stack level, a row of int64
fields and a row of uint64 fields, in two caller-allocated arrays (``new_stack``)."""

import numpy as np

# int64 fields: the position (place in the trick, leader, led suit, the trick's winning
# card and seat), the window as searched and as opened, the best value and card so far,
# the ordering groups' flags, the table's card to try first, P's points of the trick the
# card completed, the seat to move and the node count at opening.
I_POS, I_LEADER, I_LED, I_WCARD, I_WSEAT, I_ALPHA, I_BETA, I_A0, I_B0 = range(9)
I_BEST, I_BEST_CARD, I_H1, I_H2, I_FIRST, I_GAIN, I_MOVER, I_NODES0 = range(9, 17)
N_I = 17
# uint64 fields: the trick's cards, the ordering groups, the exact table key, the mover's
# hand, the relevant cards (partition search) of the frame, of its trick and of its best
# card, and the quasi-symmetry key and class planes (solver_quasi).
U_TRICK, U_G1, U_G2, U_KEY, U_HAND, U_KEY2, U_REL, U_TREL, U_RBEST = range(9)
U_QKEY, U_QCHECK, U_QA, U_QB = range(9, 13)
N_U = 13
STACK = 54  # plies: 52 cards and the position after the last


def new_stack():
    """Scratch for the search: (int64 frames, uint64 frames)."""
    return np.zeros((STACK, N_I), np.int64), np.zeros((STACK, N_U), np.uint64)
