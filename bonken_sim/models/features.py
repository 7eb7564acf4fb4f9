"""Hand features for the contract-choice and doubling models, computed from hand bitmasks.

Everything is vectorised numpy over an array of hands (uint64, bit ``13*suit + rank``), so a
million hands take well under a second. The features follow STRATEGIES.md §4; each contract
variant uses the subset listed in ``VARIANT_FEATURES``, so its fitted weights read like the
hand rules players already know ("a void is worth +20 in vrouwen").
"""

from __future__ import annotations

import numpy as np

from bonken_sim.rules.names import VARIANTS, Contract

_SUIT = np.uint64(0x1FFF)


def _rank_mask(ranks) -> np.uint64:
    return np.uint64(sum(1 << (13 * s + r) for s in range(4) for r in ranks))


_ACES = _rank_mask([12])
_KINGS = _rank_mask([11])
_QUEENS = _rank_mask([10])
_JACKS = _rank_mask([9])
_TENS = _rank_mask([8])
_EIGHTS = _rank_mask([6])
_TWOS = _rank_mask([0])
_LOW = _rank_mask(range(4))  # 2-5
_KH = np.uint64(1 << (26 + 11))
_AH = np.uint64(1 << (26 + 12))
_HONOURS = np.uint64(0x1FFF & ~((1 << 9) - 1))  # J, Q, K, A of one suit's 13-bit field
_HIGH = np.uint64(0x1FFF & ~((1 << 8) - 1))  # T and up


# The features' names in the order base_features and trump_features return them, which is
# also the column order of the game kernel's model arrays (engine/games.py FULL_FEATURES).
BASE_FEATURES = (
    "aces",
    "kings",
    "queens",
    "jacks",
    "tens",
    "low",
    "twos",
    "eights",
    "voids",
    "singletons",
    "longest",
    "hearts",
    "hearts_high",
    "kh",
    "ah",
    "k_unguarded",
    "q_unguarded",
    "j_unguarded",
)
TRUMP_FEATURES = (
    "trump_len",
    "trump_honours",
    "side_aces",
    "side_kings",
    "side_voids",
    "side_singletons",
)


def _count(m: np.ndarray) -> np.ndarray:
    return np.bitwise_count(m).astype(np.int16)


def suit_fields(hands: np.ndarray) -> np.ndarray:
    """(n, 4) uint64: each suit's 13-bit rank field."""
    h = np.asarray(hands, dtype=np.uint64)
    return np.stack([(h >> np.uint64(13 * s)) & _SUIT for s in range(4)], axis=1)


def _unguarded(fields: np.ndarray, rank: int) -> np.ndarray:
    """Cards of ``rank`` with at most one lower card of their suit beside them."""
    has = (fields >> np.uint64(rank)) & np.uint64(1)
    lower = _count(fields & np.uint64((1 << rank) - 1))
    return ((has == 1) & (lower <= 1)).sum(axis=1).astype(np.int16)


def base_features(hands: np.ndarray) -> dict[str, np.ndarray]:
    """Per-hand features that do not depend on the contract (each an int16 array)."""
    h = np.asarray(hands, dtype=np.uint64)
    f = suit_fields(h)
    lengths = _count(f)
    return {
        "aces": _count(h & _ACES),
        "kings": _count(h & _KINGS),
        "queens": _count(h & _QUEENS),
        "jacks": _count(h & _JACKS),
        "tens": _count(h & _TENS),
        "low": _count(h & _LOW),
        "twos": _count(h & _TWOS),
        "eights": _count(h & _EIGHTS),
        "voids": (lengths == 0).sum(axis=1).astype(np.int16),
        "singletons": (lengths == 1).sum(axis=1).astype(np.int16),
        "longest": lengths.max(axis=1).astype(np.int16),
        "hearts": lengths[:, 2],
        "hearts_high": _count(f[:, 2] & _HIGH),
        "kh": ((h & _KH) != 0).astype(np.int16),
        "ah": ((h & _AH) != 0).astype(np.int16),
        "k_unguarded": _unguarded(f, 11),
        "q_unguarded": _unguarded(f, 10),
        "j_unguarded": _unguarded(f, 9),
    }


def trump_features(hands: np.ndarray, suit: int) -> dict[str, np.ndarray]:
    """Features of a hand relative to trump ``suit`` (0-3): the trump holding and the side suits."""
    f = suit_fields(hands)
    lengths = _count(f)
    side = np.ones(4, dtype=bool)
    side[suit] = False
    return {
        "trump_len": lengths[:, suit],
        "trump_honours": _count(f[:, suit] & _HONOURS),
        "side_aces": ((f[:, side] >> np.uint64(12)) & np.uint64(1)).sum(axis=1).astype(np.int16),
        "side_kings": ((f[:, side] >> np.uint64(11)) & np.uint64(1)).sum(axis=1).astype(np.int16),
        "side_voids": (lengths[:, side] == 0).sum(axis=1).astype(np.int16),
        "side_singletons": (lengths[:, side] == 1).sum(axis=1).astype(np.int16),
    }


# The negative contracts weigh every base feature but those of Domino and of a long suit.
_NEGATIVE = tuple(f for f in BASE_FEATURES if f not in ("twos", "eights", "longest"))
_DOMINO = ("twos", "aces", "kings", "eights", "low", "voids", "singletons")
_TRUMP = (*TRUMP_FEATURES, "queens", "low")
_NO_TRUMP = ("aces", "kings", "queens", "jacks", "longest", "voids", "singletons", "low")

VARIANT_FEATURES: dict[str, tuple[str, ...]] = {}
for _v in VARIANTS:
    if _v.contract is Contract.DOMINO:
        VARIANT_FEATURES[_v.name] = _DOMINO
    elif _v.contract is not Contract.TROEVEN:
        VARIANT_FEATURES[_v.name] = _NEGATIVE
    elif _v.trump == "NT":
        VARIANT_FEATURES[_v.name] = _NO_TRUMP
    else:
        VARIANT_FEATURES[_v.name] = _TRUMP

TRUMP_SUITS = {"C": 0, "D": 1, "H": 2, "S": 3}


class FeatureCache:
    """The features of one array of hands, computed once and shared by every variant."""

    def __init__(self, hands: np.ndarray) -> None:
        self.hands = np.asarray(hands, dtype=np.uint64)
        self.base = base_features(self.hands)
        self._trump: dict[int, dict[str, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.hands)

    def design(self, variant: str) -> np.ndarray:
        """(n, 1 + k) float64: a constant column, then ``VARIANT_FEATURES[variant]``."""
        names = VARIANT_FEATURES[variant]
        cols = dict(self.base)
        trump = variant.rsplit("_", 1)[-1] if variant.startswith("troeven_") else None
        if trump in TRUMP_SUITS:
            s = TRUMP_SUITS[trump]
            if s not in self._trump:
                self._trump[s] = trump_features(self.hands, s)
            cols.update(self._trump[s])
        # filled feature by feature into rows, then transposed: writing the columns of an
        # (n, k) array directly strides through memory and took twice as long
        x = np.empty((1 + len(names), len(self.hands)), dtype=np.float64)
        x[0] = 1.0
        for j, name in enumerate(names):
            x[1 + j] = cols[name]
        return np.ascontiguousarray(x.T)
