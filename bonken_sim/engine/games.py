"""Full games of Bonken: player profiles, the models as kernel arrays, and batches of games.

A **profile** bundles card play, contract choice and doubling (``PROFILES``). The numba
kernel ``_core.game.play_games`` plays whole games; this module prepares its inputs and
turns its outputs into numpy arrays, on all cores (game ``g`` is a pure function of the seed
and ``g``, so the thread count never changes a result).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bonken_sim import processes
from bonken_sim._core import game as G
from bonken_sim._core.ids import BEER_CARD_NAME, N_VARIANTS, STRAT_EXPERT
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import DOMINO, F_KIND, KIND_DOMINO, standard_table
from bonken_sim.engine.strategies import ADAPTIVE_EXPERT
from bonken_sim.errors import BadValue
from bonken_sim.models.choice import NAMES, Models, load_models
from bonken_sim.models.doubling import thresholds
from bonken_sim.models.features import BASE_FEATURES, TRUMP_FEATURES, VARIANT_FEATURES

FULL_FEATURES = ("const", *BASE_FEATURES, *TRUMP_FEATURES)  # the kernel's feature order
DEALS_PER_GAME = G.DEALS_PER_GAME
PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


@dataclass(frozen=True)
class Profile:
    """A player: card-play strategy id, contract-choice policy, doubling policy."""

    name: str
    card: int  # 0 random, 1 basic, 2 advanced, 3 expert (docs/ENGINE.md)
    choice: int  # G.CHOICE_RANDOM / G.CHOICE_FITTED / G.CHOICE_SEARCH (+ samples << 8)
    doubling: int  # G.DOUBLE_NEVER / G.DOUBLE_FITTED / G.DOUBLE_SEARCH (+ samples << 8)
    description: str

    @property
    def choice_policy(self) -> int:
        """The choice policy without its settings: random 0 < fitted 1 < search 2."""
        return self.choice & G.POLICY_MASK

    @property
    def doubling_policy(self) -> int:
        """The doubling policy without its settings: never 0 < fitted 1 < search 2."""
        return self.doubling & G.POLICY_MASK


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "random",
            0,
            G.CHOICE_RANDOM,
            G.DOUBLE_NEVER,
            "random legal cards, a uniformly random legal contract (then trump option), "
            "never doubles",
        ),
        Profile(
            "basic",
            1,
            G.CHOICE_FITTED,
            G.DOUBLE_FITTED,
            "basic card play, the fitted relative-value contract choice with the τ_k trump "
            "call, the fitted doubling thresholds",
        ),
        Profile(
            "advanced",
            2,
            G.CHOICE_FITTED,
            G.DOUBLE_FITTED,
            "advanced card play (stake-aware under doubles), the fitted relative-value "
            "contract choice with the τ_k trump call, the fitted doubling thresholds",
        ),
        Profile(
            "expert",
            int(ADAPTIVE_EXPERT),
            G.CHOICE_SEARCH,
            G.DOUBLE_SEARCH,
            "the strongest: expert card play with 24 samples spent where the decision is "
            "close (adaptive rollouts); contract choice and doubling by search: sampled deals "
            "of its hand played out by advanced seats (docs/STRATEGIES.md)",
        ),
        Profile(
            "expert-fitted",
            STRAT_EXPERT,
            G.CHOICE_FITTED,
            G.DOUBLE_FITTED,
            "expert card play (determinized search with advanced rollouts, stake-aware), the "
            "fitted relative-value contract choice with the τ_k trump call, the fitted "
            "doubling thresholds (faster than expert, and weaker)",
        ),
        Profile(
            "expert-choice",
            STRAT_EXPERT,
            G.CHOICE_SEARCH,
            G.DOUBLE_FITTED,
            "as expert-fitted, but chooses by search (to measure the choice search alone)",
        ),
        Profile(
            "expert-double",
            STRAT_EXPERT,
            G.CHOICE_FITTED,
            G.DOUBLE_SEARCH,
            "as expert-fitted, but doubles by search (to measure the doubling search alone)",
        ),
        Profile(
            "expert-nodouble",
            int(ADAPTIVE_EXPERT),
            G.CHOICE_SEARCH,
            G.DOUBLE_NEVER,
            "as expert, but never doubles (to measure what doubling is worth under strong play)",
        ),
        Profile(
            "expert-randomchoice",
            int(ADAPTIVE_EXPERT),
            G.CHOICE_RANDOM,
            G.DOUBLE_SEARCH,
            "as expert, but chooses contracts at random (to measure what choice is worth under "
            "strong play)",
        ),
        Profile(
            "basic-nodouble",
            1,
            G.CHOICE_FITTED,
            G.DOUBLE_NEVER,
            "as basic, but never doubles (to measure what doubling is worth)",
        ),
        Profile(
            "basic-randomchoice",
            1,
            G.CHOICE_RANDOM,
            G.DOUBLE_FITTED,
            "as basic, but chooses contracts at random (to measure what choice is worth)",
        ),
    )
}


#: other names a profile answers to: ``expert-search`` was the strongest player's name before
#: it became ``expert`` (a name runs, traces and scripts may still give)
PROFILE_ALIASES = {"expert-search": "expert"}


def parse_profiles(text: str, seats: int = 4) -> list[str]:
    """``basic`` (every seat) or ``a,b,c,d`` → four profile names; errors name the bad one."""
    names = [s.strip().lower() for s in str(text).split(",")]
    if len(names) == 1:
        names = names * seats
    if len(names) != seats:
        raise BadValue(f"give one profile or {seats}, comma-separated; got {text!r}")
    return [profile_name(n) for n in names]


def canonical_name(text: str) -> str:
    """``text`` as a profile's own name: trimmed, lower case, another name of a profile
    (``PROFILE_ALIASES``) resolved; not checked to be a profile (``profile_name`` is)."""
    name = str(text).strip().lower()
    return PROFILE_ALIASES.get(name, name)


def profile_name(text: str) -> str:
    """The profile ``text`` names (its other names, ``PROFILE_ALIASES``, resolved), or a
    ``BadValue`` that lists the profiles."""
    name = canonical_name(text)
    if name not in PROFILES:
        raise BadValue(f"unknown profile {text!r} (choose from {', '.join(PROFILES)})")
    return name


def profile(text: str) -> Profile:
    """The profile ``text`` names, by any of its names (``profile_name``)."""
    return PROFILES[profile_name(text)]


@dataclass
class ModelArrays:
    coef: np.ndarray  # (12, 4, N_FULL) float64
    mean: np.ndarray  # (12, 4)
    bonus: np.ndarray  # (12,)
    tau: np.ndarray  # (4,): tau[k] for k chooser turns left (k <= 1: the call is forced)
    theta: np.ndarray  # (12, 4): doubling.thresholds per variant (inf: never)


def model_arrays(models: Models) -> ModelArrays:
    coef = np.zeros((N_VARIANTS, 4, len(FULL_FEATURES)))
    for v, name in enumerate(NAMES):
        cols = [FULL_FEATURES.index(f) for f in ("const", *VARIANT_FEATURES[name])]
        for rel in range(4):
            coef[v, rel, cols] = models.coef(name, rel)
    mean = np.array([[models.mean[n][r] for r in range(4)] for n in NAMES], dtype=np.float64)
    bonus = np.array([models.choice.get("selection_bonus", {}).get(n, 0.0) for n in NAMES])
    tau = np.array([-np.inf, -np.inf, models.tau(2), models.tau(3)])
    theta = np.full((N_VARIANTS, 4), np.inf)
    for v, name in enumerate(NAMES):
        if models.doubling.get(name):
            theta[v] = thresholds(models, name)
    return ModelArrays(coef, mean, bonus, tau, theta)


# The contract whose fitted choice and doubling models a house-rules contract borrows until
# one is fitted for it (docs/HOUSE_RULES.md): the beer card (bierkaart, in Domino's slot)
# borrows hartenheer's, the other negative trick contract in which one card costs -50.
BORROWED_MODEL = {BEER_CARD_NAME: "hartenheer"}


def played_contracts(table: np.ndarray) -> tuple[str, ...]:
    """The contract each variant slot of ``table`` plays, by name: the variants' own, but
    the beer card in Domino's slot when its row is played as a trick contract (the beer
    card's row, docs/ENGINE.md)."""
    beer = table[DOMINO, F_KIND] != KIND_DOMINO
    return tuple(BEER_CARD_NAME if v == DOMINO and beer else name for v, name in enumerate(NAMES))


def models_for_table(ma: ModelArrays, table: np.ndarray) -> ModelArrays:
    """``ma`` with every slot whose contract has no fitted models of its own given those it
    borrows (``BORROWED_MODEL``); ``ma`` itself when no slot borrows."""
    borrowed = {
        slot: NAMES.index(BORROWED_MODEL[name])
        for slot, name in enumerate(played_contracts(table))
        if name in BORROWED_MODEL
    }
    if not borrowed:
        return ma
    out = ModelArrays(ma.coef.copy(), ma.mean.copy(), ma.bonus.copy(), ma.tau, ma.theta.copy())
    for arr in (out.coef, out.mean, out.bonus, out.theta):
        for slot, lender in borrowed.items():
            arr[slot] = arr[lender]
    return out


@dataclass
class GameBatch:
    """Games ``start … start + n − 1``; arrays indexed [game, deal, seat]."""

    start: int
    variant: np.ndarray  # (n, 11) int8
    dbl: np.ndarray  # (n, 11) int16: bit 4·d + t set when seat d doubled seat t
    raw: np.ndarray  # (n, 11, 4) int16
    final: np.ndarray  # (n, 11, 4) int16
    totals: np.ndarray  # (n, 4) int32
    profiles: np.ndarray  # (n, 4) int8, index into the profile list of the batch

    @classmethod
    def empty(cls, start: int, n: int) -> GameBatch:
        """Games ``start … start + n − 1`` before they are played: every array zero (each
        seat's profile index 0), filled in place by whoever plays them."""
        return cls(
            start,
            np.zeros((n, DEALS_PER_GAME), np.int8),
            np.zeros((n, DEALS_PER_GAME), np.int16),
            np.zeros((n, DEALS_PER_GAME, 4), np.int16),
            np.zeros((n, DEALS_PER_GAME, 4), np.int16),
            np.zeros((n, 4), np.int32),
            np.zeros((n, 4), np.int8),
        )

    @property
    def n(self) -> int:
        return len(self.totals)

    def doubled(self) -> np.ndarray:
        """(n, 11, 4, 4) bool: [game, deal, d, t] = seat d doubled seat t."""
        bits = np.arange(16, dtype=np.int16).reshape(4, 4)
        return ((self.dbl[:, :, None, None] >> bits) & 1).astype(bool)

    def multiplicity(self) -> np.ndarray:
        """(n, 11, 6) int8: m for each seat pair of ``PAIRS`` (0, 1 or 2 directions), read
        from the doubling bits directly."""
        return np.stack(self.pair_multiplicity(), axis=-1)

    def pair_multiplicity(self) -> list[np.ndarray]:
        """``multiplicity()`` as one (n, 11) int8 array per pair of ``PAIRS``: a game run
        writes one column per pair for every deal, and these need no transposing."""
        d = self.dbl
        return [
            (((d >> (4 * a + b)) & 1) + ((d >> (4 * b + a)) & 1)).astype(np.int8) for a, b in PAIRS
        ]


class GameError(RuntimeError):
    """The core found a game that breaks RULES.md (never expected; never a silent row)."""


def _seat_arrays(seating: np.ndarray, profiles: list[Profile]):
    """Per game and seat: the card strategy, choice and doubling policy ids of the profile.

    One table lookup each: a Python loop per game cost as much as playing the games. The
    results are C-ordered whatever the seating's layout (a broadcast seating gave
    Fortran-ordered ones, and numba compiles a kernel again for each layout)."""
    idx = np.asarray(seating, dtype=np.int64)
    return tuple(
        np.ascontiguousarray(np.array([int(getattr(p, f)) for p in profiles], np.int64)[idx])
        for f in ("card", "choice", "doubling")
    )


class GamePlayer:
    """What every game of a batch shares, prepared once: the profiles' policy ids, the
    ruleset's table, the models as kernel arrays and the seed's key. ``play(b, lo, hi)``
    plays rows ``lo … hi − 1`` of a batch (games ``b.start + lo …``); threads may play
    disjoint rows of one batch at once (the kernel releases the GIL)."""

    def __init__(
        self,
        seed: int,
        profiles: list[str],
        *,
        fixed_order: bool = False,
        doubling: bool = True,
        models: Models | None = None,
        table: np.ndarray | None = None,
    ):
        self.profiles = [PROFILES[p] for p in profiles]
        self.fixed_order = fixed_order
        self.doubling = doubling
        self.table = (
            standard_table() if table is None else np.ascontiguousarray(table, dtype=np.int64)
        )
        self.models = models_for_table(model_arrays(models or load_models()), self.table)
        self.key = seed_key(seed)

    def batch(self, start: int, games: int, seating: np.ndarray) -> GameBatch:
        """An empty batch of games ``start … start + games − 1``; ``seating[i, p]`` indexes
        the profiles for seat p of game i (a (4,) seating applies to every game)."""
        b = GameBatch.empty(start, games)
        b.profiles[:] = np.asarray(seating, dtype=np.int64)  # a (4,) seating broadcasts
        return b

    def play(self, b: GameBatch, lo: int, hi: int) -> None:
        """Play rows ``lo … hi − 1`` of ``b`` in place; GameError if the core finds a game
        that breaks the rules."""
        card, choice, dbl = _seat_arrays(b.profiles[lo:hi], self.profiles)
        ma = self.models
        error = G.play_games(
            self.key,
            b.start + lo,
            card,
            choice,
            dbl,
            self.fixed_order,
            self.doubling,
            self.table,
            ma.coef,
            ma.mean,
            ma.bonus,
            ma.tau,
            ma.theta,
            b.variant[lo:hi],
            b.dbl[lo:hi],
            b.raw[lo:hi],
            b.final[lo:hi],
            b.totals[lo:hi],
        )
        if error == G.ERR_NOT_ZERO:
            raise GameError(
                "a game's settled totals do not sum to its contracts' totals (a bug: please "
                "report it)"
            )
        if error == G.ERR_NO_CONTRACT:
            raise GameError("a chooser had no legal contract (a bug: please report it)")

    def slices(self, games: int, threads: int) -> list[tuple[int, int]]:
        """Rows ``(lo, hi)`` cutting ``games`` into four slices per thread (so threads that
        finish early take more)."""
        step = max(1, -(-games // (4 * max(1, threads))))
        return [(lo, min(games, lo + step)) for lo in range(0, games, step)]

    def play_all(self, b: GameBatch, threads: int) -> None:
        """Play every row of ``b`` on ``threads`` threads."""
        with ThreadPoolExecutor(max(1, threads)) as pool:
            list(pool.map(lambda rows: self.play(b, *rows), self.slices(b.n, threads)))


def play_games(
    games: int,
    seed: int,
    seating: np.ndarray,
    profiles: list[str],
    *,
    start: int = 0,
    fixed_order: bool = False,
    doubling: bool = True,
    threads: int | None = None,
    models: Models | None = None,
    table: np.ndarray | None = None,
) -> GameBatch:
    """Play games ``start … start + games − 1``; ``seating[i, p]`` indexes ``profiles`` for
    seat p of game i (a (4,) seating applies to every game). ``table``: a house ruleset's
    table (``Ruleset.table``); the standard rules by default. The choice and doubling models
    are the shipped ones, fitted under the standard rules."""
    threads = threads or processes.usable_cores()
    player = GamePlayer(
        seed, profiles, fixed_order=fixed_order, doubling=doubling, models=models, table=table
    )
    b = player.batch(start, games, seating)
    player.play_all(b, threads)
    return b


def ranks(totals: np.ndarray) -> np.ndarray:
    """Rank 1 = highest total; ties share the better place (1 + seats strictly ahead)."""
    t = np.asarray(totals)
    seats = [np.ascontiguousarray(t[:, p]) for p in range(t.shape[1])]
    out = np.empty(t.shape, np.int64)
    for p, mine in enumerate(seats):  # one compare per pair of seats: no (n, 4, 4) cube
        ahead = np.ones(len(t), np.int64)
        for q, theirs in enumerate(seats):
            if q != p:
                ahead += theirs > mine
        out[:, p] = ahead
    return out
