"""Game runs beside a deal run's report (``bonken-sim report RUN --games DIR``): which runs,
checked against the deal run, and their statistics pooled with the deal set as the unit.

Why several runs: in one game run every seat keeps its profile, so the profiles always sit
in the same order round the table (who doubles whom first, who plays after whom). That order
moves the differences between profiles well beyond their intervals (docs/REPORT.md), so an
honest comparison plays the same games under several seatings and pools them. ``make run``
plays the four profiles in all six circular orders.

The unit is the **deal set**: game ``g`` of a seed has the same eleven deals in every run of
that seed, whoever sits where. Per deal set, a profile's value (its share of first places,
its settled total) is the mean over every seat it held in every run of that seed; the
statistics are means over deal sets with normal 95% intervals, and a difference between two
profiles is taken per deal set (paired on the same cards) over the deal sets where both
played. Runs of other seeds add independent deal sets.

Doubling the chooser, and the chooser's score per turn, are measured on the deals as
played: the chooser picked the contract for his hand, which a deal run (every contract on
every hand) cannot show. They are ratios of sums per deal set (gain per double, score per
turn) with delta-method intervals over deal sets.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bonken_sim.report.deals.stats.run_reader import ruleset_name
from bonken_sim.report.games import stats as G
from bonken_sim.report.games.game_set.moments import CountedMoments, RatioMoments
from bonken_sim.rules.rulesets import RulesError
from bonken_sim.runs.storage import FORMAT as DEAL_RUN_FORMAT
from bonken_sim.runs.storage import VARIANT_NAMES, NotARun


@dataclass(frozen=True)
class GameRun:
    root: Path
    manifest: dict

    @property
    def seed(self) -> int:
        return int(self.manifest["config"]["seed"])

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.manifest["config"]["players"])


def find_game_runs(paths: Sequence[str | os.PathLike], deal_manifest: dict) -> list[GameRun]:
    """The complete game runs named by ``paths`` (each a game run, or a folder whose
    sub-folders hold game runs), checked against the deal run's rules and each other.
    NotARun with one line naming the bad one otherwise."""
    runs: list[GameRun] = []
    for p in paths:
        runs += _game_runs_in(Path(p))
    seen: set[Path] = set()
    for r in runs:
        if r.root.resolve() in seen:
            raise NotARun(f"--games {r.root} is given twice")
        seen.add(r.root.resolve())
    want = _rules_name(deal_manifest, "the run")
    for r in runs:
        got = _rules_name(r.manifest, str(r.root))
        if got != want:
            raise NotARun(
                f"--games {r.root} was played under the {got} rules, the run under the {want} "
                "rules; play the games under the run's rules"
            )
    first = runs[0].manifest["config"]
    for r in runs[1:]:
        cfg = r.manifest["config"]
        for key, default in (("order", "free"), ("doubling", True)):
            if cfg.get(key, default) != first.get(key, default):
                raise NotARun(
                    f"--games {r.root}: its {key} ({cfg.get(key, default)!r}) differs from "
                    f"{runs[0].root}'s ({first.get(key, default)!r}); pool only games played "
                    "alike"
                )
    return runs


def _game_runs_in(path: Path) -> list[GameRun]:
    fmt = G.manifest_format(path)
    if fmt == G.GAME_FORMAT:
        return [GameRun(path, _open(path))]
    if fmt == DEAL_RUN_FORMAT:
        raise NotARun(f"--games {path} is a deal run; --games takes game runs (bonken-sim game)")
    if not path.exists():
        raise NotARun(f"--games {path} does not exist")
    if not path.is_dir():
        raise NotARun(f"--games {path} is not a directory")
    inside = sorted(d for d in path.iterdir() if G.manifest_format(d) == G.GAME_FORMAT)
    if not inside:
        raise NotARun(
            f"--games {path} is neither a game run nor a folder of game runs (bonken-sim game)"
        )
    return [GameRun(d, _open(d)) for d in inside]


def _open(path: Path) -> dict:
    try:
        return G.open_game_run(path)
    except NotARun as exc:
        raise NotARun(f"--games: {exc}") from None


def _rules_name(manifest: dict, where: str) -> str:
    try:
        return ruleset_name(manifest, where)
    except RulesError as exc:
        raise NotARun(str(exc)) from None


# ---------------------------------------------------------------------------------------
# Pooled statistics


@dataclass
class ChooserDoubles:
    """Per chooser kind (0: chose by the fitted policy, 1: at random) and contract, on the
    deals as played, as ratios of per-deal-set sums (the deal set is the unit)."""

    #: per deal: the mean over the three others of s_d − s_chooser (every one doubles him),
    #: over deals
    always: RatioMoments = field(default_factory=lambda: RatioMoments((2, G.C)))
    #: doubles of the chooser made, over deals
    rate: RatioMoments = field(default_factory=lambda: RatioMoments((2, G.C)))
    #: the doubler's gain s_d − s_chooser, over the doubles of the chooser made
    made: RatioMoments = field(default_factory=lambda: RatioMoments((2, G.C)))
    #: doubles of the chooser that gained (s_d > s_chooser), over those made
    gained: RatioMoments = field(default_factory=lambda: RatioMoments((2, G.C)))
    #: the chooser's score minus the deal run's mean chooser score of the variant he chose
    #: (the deal run's relative score, on the contracts really chosen), over chooser turns
    relative: RatioMoments = field(default_factory=lambda: RatioMoments((2,)))


@dataclass
class GameSetStats:
    runs: list[GameRun]
    profiles: tuple[str, ...]
    deal_sets: int = 0
    games: int = 0  # games played in all
    win: CountedMoments = field(default_factory=lambda: CountedMoments((0,)))
    total: CountedMoments = field(default_factory=lambda: CountedMoments((0,)))
    #: per ordered pair (i, j): per deal set, x_i − x_j where both played
    win_pairs: CountedMoments = field(default_factory=lambda: CountedMoments((0, 0)))
    total_pairs: CountedMoments = field(default_factory=lambda: CountedMoments((0, 0)))
    seat_games: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    seatings: int = 0  # distinct circular orders of the profiles round the table
    chooser: ChooserDoubles = field(default_factory=ChooserDoubles)


def chooser_means_by_variant(variants: Sequence[str], means: np.ndarray) -> np.ndarray:
    """A deal run's mean chooser score per variant (``means`` in the order of ``variants``)
    as an array over ``VARIANT_NAMES``, NaN for the variants it did not play."""
    out = np.full(len(VARIANT_NAMES), np.nan)
    for name, mean in zip(variants, means, strict=True):
        out[VARIANT_NAMES.index(name)] = mean
    return out


def circular_order(players: Sequence[str]) -> tuple[str, ...]:
    """The seating read clockwise from its smallest name: seatings that differ only by a
    rotation (which the dealer's rotation makes equivalent) give the same order."""
    k = min(range(4), key=lambda i: tuple(players[i:]) + tuple(players[:i]))
    return tuple(players[k:]) + tuple(players[:k])


def aggregate_game_set(runs: list[GameRun], mu_chooser: np.ndarray | None = None) -> GameSetStats:
    """Pool ``runs``. ``mu_chooser``: the deal run's mean chooser score per variant (in
    ``VARIANT_NAMES`` order, NaN where it has none), for the chooser's relative score."""
    profiles = tuple(dict.fromkeys(p for r in runs for p in r.players))
    K = len(profiles)
    st = GameSetStats(runs, profiles)
    st.win, st.total = CountedMoments((K,)), CountedMoments((K,))
    st.win_pairs, st.total_pairs = CountedMoments((K, K)), CountedMoments((K, K))
    st.seat_games = np.zeros(K, np.int64)
    st.seatings = len({circular_order(r.players) for r in runs})
    by_seed: dict[int, list[GameRun]] = {}
    for r in runs:
        by_seed.setdefault(r.seed, []).append(r)
    mu = np.full(len(VARIANT_NAMES), np.nan) if mu_chooser is None else mu_chooser
    for group in by_seed.values():
        for members, blocks in lockstep(group, _game_results):
            _add_deal_sets(st, members, blocks)
        for members, blocks in lockstep(group, chooser_deals):
            _add_chooser_deals(st.chooser, members, blocks, mu)
    return st


def _game_results(run: GameRun) -> Iterator[tuple[np.ndarray, ...]]:
    """(totals, ranks) of consecutive games of ``run``."""
    return (blk[1:] for blk in G.game_blocks(run.root, run.manifest))


def chooser_deals(run: GameRun) -> Iterator[tuple[np.ndarray, ...]]:
    """(game numbers, contract, raw, doubles, variant) of consecutive games of ``run``:
    (m,), then (m, 11[, 4])."""
    start = 0
    for contract, raw, _, dbl, variant in G.deal_blocks(run.root, run.manifest, True):
        m = len(contract)
        yield np.arange(start, start + m), contract, raw, dbl, variant
        start += m


def _seat_profile(players: Sequence[str], profiles: Sequence[str]) -> np.ndarray:
    """(4, K) one-hot: seat p holds profile k."""
    m = np.zeros((4, len(profiles)))
    for p, name in enumerate(players):
        m[p, profiles.index(name)] = 1
    return m


def _add_deal_sets(st: GameSetStats, members: list[GameRun], blocks: list) -> None:
    """Fold ``m`` deal sets, each played in every run of ``members`` (``blocks``: their
    (totals, ranks) for these games), into ``st``."""
    m = len(blocks[0][0])
    K = len(st.profiles)
    wins, totals, seats = np.zeros((m, K)), np.zeros((m, K)), np.zeros(K)
    for run, (tot, rk) in zip(members, blocks, strict=True):
        onehot = _seat_profile(run.players, st.profiles)
        wins += (rk == 1).astype(np.float64) @ onehot
        totals += tot.astype(np.float64) @ onehot
        seats += onehot.sum(0)
    st.deal_sets += m
    st.games += m * len(members)
    st.seat_games += (m * seats).astype(np.int64)
    present = np.broadcast_to(seats > 0, (m, K))
    with np.errstate(invalid="ignore", divide="ignore"):
        w, t = wins / seats, totals / seats
    both = present[:, :, None] & present[:, None, :]
    for mom, pairs, x in ((st.win, st.win_pairs, w), (st.total, st.total_pairs, t)):
        mom.add(x, present)
        pairs.add(x[:, :, None] - x[:, None, :], both)


def lockstep(
    group: list[GameRun], blocks_of: Callable[[GameRun], Iterator[tuple[np.ndarray, ...]]]
) -> Iterator[tuple[list[GameRun], list[tuple[np.ndarray, ...]]]]:
    """Blocks of the same games from every run of one seed that holds them: (runs, their
    blocks from ``blocks_of``, arrays with games on the first axis), in game order. A run
    with fewer games drops out at its end."""
    streams = [(r, blocks_of(r)) for r in group]
    bufs: dict[int, list] = {i: [] for i in range(len(streams))}
    live = set(range(len(streams)))
    while live:
        for i in list(live):
            if not bufs[i]:
                nxt = next(streams[i][1], None)
                if nxt is None:
                    live.discard(i)
                else:
                    bufs[i].append(nxt)
        if not live:
            return
        n = min(sum(len(b[0]) for b in bufs[i]) for i in live)
        order = sorted(live)
        yield [streams[i][0] for i in order], [_take(bufs[i], n) for i in order]


def _take(buf: list, n: int) -> tuple[np.ndarray, ...]:
    """The first ``n`` games of a buffer of blocks; the rest stays in it."""
    whole = tuple(np.concatenate(parts) for parts in zip(*buf, strict=True))
    buf[:] = [tuple(a[n:] for a in whole)] if len(whole[0]) > n else []
    return tuple(a[:n] for a in whole)


def _add_chooser_deals(
    cd: ChooserDoubles, members: list[GameRun], blocks: list, mu: np.ndarray
) -> None:
    """The same ``m`` deal sets in every run of ``members``: per deal, the chooser, the
    contract he chose, his score relative to the deal run's mean (``mu`` per variant) and the
    doubles aimed at him; summed per deal set over the runs and folded into ``cd``."""
    from bonken_sim.engine.games import PROFILES, profile

    at_random = PROFILES["random"].choice
    m = len(blocks[0][0])
    sums = {k: np.zeros((m, 2, G.C)) for k in ("deals", "always", "n", "gain", "gained")}
    rel, turns = np.zeros((m, 2)), np.zeros((m, 2))
    for run, (game, contract, raw, dbl, variant) in zip(members, blocks, strict=True):
        random_choice = np.array([profile(p).choice == at_random for p in run.players])
        # the dealer of deal k of game g is (g + k) mod 4 (RUN_FORMAT.md); the chooser, +2
        chooser = (game[:, None] + np.arange(G.DEALS_PER_GAME) + 2) % 4
        s_c = np.take_along_axis(raw, chooser[..., None], 2)[..., 0].astype(np.float64)
        gain = raw.astype(np.float64) - s_c[..., None]  # (m, 11, 4): s_d − s_chooser
        others = np.arange(4) != chooser[..., None]
        bits = (dbl[..., None].astype(np.int64) >> (4 * np.arange(4) + chooser[..., None])) & 1
        doubled = (bits == 1) & others  # seat d doubled the chooser
        kind = random_choice[chooser].astype(np.int64)  # (m, 11)
        # each deal's cell (its deal set, the chooser's kind, the contract) as one flat index
        cell = (np.arange(m)[:, None] * 2 + kind) * G.C + contract
        per_deal = {
            "deals": np.ones((m, G.DEALS_PER_GAME)),
            "always": (gain * others).sum(2) / 3,
            "n": doubled.sum(2).astype(np.float64),
            "gain": (gain * doubled).sum(2),
            "gained": (doubled & (gain > 0)).sum(2).astype(np.float64),
        }
        for key, x in per_deal.items():
            sums[key] += np.bincount(cell.ravel(), x.ravel(), m * 2 * G.C).reshape(m, 2, G.C)
        r = s_c - mu[variant]
        known = np.isfinite(r)
        kinds = np.stack([(kind == 0) & known, (kind == 1) & known], -1)  # (m, 11, 2)
        rel += np.einsum("gk,gka->ga", np.where(known, r, 0.0), kinds)
        turns += kinds.sum(1)
    cd.always.add(sums["always"], sums["deals"])
    cd.rate.add(sums["n"], sums["deals"])
    cd.made.add(sums["gain"], sums["n"])
    cd.gained.add(sums["gained"], sums["n"])
    cd.relative.add(rel, turns)
