"""Game runs (``bonken-sim game``) in the report: streamed statistics and their tables.

What a game run is asked: who wins (win rate per profile and per seat, Wilson 95% CI; a
shared first place counts as a win for each, as ``tournament`` counts it), by how much (mean
settled total, 95% CI), where the totals come from (each contract's settled contribution per
game, its raw part and the part doubling moved), how the profiles compare on the same games
(paired per game), and what doubling does to the win rates.

The unit is the game. A profile that holds several seats gets, per game, the mean over its
seats (its share of first places, its mean total): the seats of one game share the cards and
their totals sum to 0, so they are not independent draws. Win rates are shown with Wilson
intervals over seat-games, like ``tournament``; every difference is paired per game with a
normal interval over games.

Streaming: both datasets are read in record batches (``pyarrow.dataset``); a deals batch is
cut at a game boundary (a game is 11 consecutive rows) and the rest carried to the next, so
the statistics are sums over games and memory is a few batches whatever the run's size.

The doubling comparison (``compare_doubling``): a second game run with the same seed, games,
players, contract order and house rules but the other doubling setting is read in lockstep.
Game ``g`` of both has the same 11 deals, and neither card play nor contract choice looks at
doubling, so the raw scores agree and only the settlement differs: the win-rate change is
paired per game.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonken_sim.engine.games import DEALS_PER_GAME
from bonken_sim.rules.names import Contract
from bonken_sim.runs.game_format import FORMAT, MATCH_FORMAT, game_manifest, manifest_format
from bonken_sim.runs.storage import (
    VARIANT_NAMES,
    NotARun,
    dictionary_codes,
    require_complete,
)
from bonken_sim.stats import mean_ci_array, wilson_array
from bonken_sim.table import match_config  # noqa: F401  (checks a match's manifest)

GAME_FORMAT = FORMAT  # the manifest format of a game run
#: the manifest formats whose directories are read as game runs (game runs and matches)
GAME_FORMATS = (FORMAT, MATCH_FORMAT)
CONTRACTS = tuple(c.label for c in Contract)
C = len(CONTRACTS)
BATCH = 1 << 16  # rows per record batch read

#: the per-game quantities kept as sums and sums of squares, per unit (seat or profile)
QUANTITIES = ("win", "total")
#: per contract: settled contribution, its raw part, and what doubling moved (final − raw)
PARTS = ("final", "raw", "transfer")


def open_game_run(path: str | os.PathLike) -> dict:
    """The manifest of a complete game run (or match: its tables are a game run's); NotARun
    with a one-line reason otherwise."""
    root = Path(path)
    manifest = game_manifest(root, matches=True)
    cfg = manifest.get("config", {})
    what = "match" if manifest.get("format") == MATCH_FORMAT else "game run"
    command = "match" if what == "match" else "game"
    resume = f"with the same bonken-sim {command} command and --resume --out {root}"
    require_complete(root, manifest, "games", ("deals_file", "games_file"), what, resume)
    players = cfg.get("players")
    if not (isinstance(players, list) and len(players) == 4):
        raise NotARun(f"{root}: the game run's manifest names no four players")
    return manifest


@dataclass
class Moments:
    """Count, sums and sums of squares of per-game values, one cell per (unit, …)."""

    n: int
    s1: np.ndarray
    s2: np.ndarray

    @classmethod
    def zeros(cls, *shape: int) -> Moments:
        return cls(0, np.zeros(shape), np.zeros(shape))

    def add(self, x: np.ndarray) -> None:
        """Fold (games, *shape) values in."""
        self.n += len(x)
        self.s1 += x.sum(0)
        self.s2 += (x * x).sum(0)

    def ci(self) -> tuple[np.ndarray, ...]:
        return mean_ci_array(np.full(self.s1.shape, self.n), self.s1, self.s2)


@dataclass
class GameStats:
    """Everything the game report shows, as sums over games."""

    manifest: dict
    root: str
    players: tuple[str, ...]  # profile per seat
    profiles: tuple[str, ...]  # distinct, in order of first seat
    #: per unit (4 seats, then the profiles): per-game win share and settled total
    per_game: dict[str, Moments] = field(default_factory=dict)
    #: per unit and contract: per-game settled, raw and doubling contribution
    contract: dict[str, Moments] = field(default_factory=dict)
    #: per ordered profile pair (i, j): per-game x_i − x_j of each quantity
    pairs: dict[str, Moments] = field(default_factory=dict)
    wins: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per unit
    sole_wins: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    shared_first: int = 0  # games whose first place is shared
    contract_deals: np.ndarray = field(default_factory=lambda: np.zeros(C, np.int64))
    compare: DoublingCompare | None = None

    @property
    def games(self) -> int:
        return self.per_game["total"].n

    @property
    def units(self) -> list[str]:
        return [f"seat {p}" for p in range(4)] + list(self.profiles)

    @property
    def seats_of(self) -> np.ndarray:
        """(K,) how many seats each profile holds."""
        return np.array([self.players.count(p) for p in self.profiles])


def _profile_matrix(players: tuple[str, ...], profiles: tuple[str, ...]) -> np.ndarray:
    """(4, 4 + K): per-seat values → the 4 seats followed by each profile's mean over its
    seats."""
    m = np.zeros((4, 4 + len(profiles)))
    m[:, :4] = np.eye(4)
    for j, name in enumerate(profiles):
        seats = [p for p in range(4) if players[p] == name]
        m[seats, 4 + j] = 1 / len(seats)
    return m


def _files(root: Path, manifest: dict, key: str) -> list[str]:
    return [str(root / p[key]) for p in sorted(manifest["parts"], key=lambda p: p["index"])]


def _batches(files: list[str], columns: list[str], what: str) -> Iterator[Any]:
    import pyarrow.dataset as ds

    try:
        dataset = ds.dataset(files, format="parquet")
        yield from dataset.to_batches(columns=columns, batch_size=BATCH)
    except (OSError, ValueError, KeyError) as exc:  # ArrowInvalid is a ValueError
        raise NotARun(f"cannot read the game run's {what}: {exc}") from None


def game_blocks(root: Path, manifest: dict) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(first game, settled totals (m, 4), ranks (m, 4)) of consecutive games, in order;
    checks that the games are 0, 1, 2, … and that each seat holds the manifest's profile."""
    players = manifest["config"]["players"]
    cols = ["game", *(f"profile_{p}" for p in range(4))]
    cols += [f"total_{p}" for p in range(4)] + [f"rank_{p}" for p in range(4)]
    expected = 0
    for batch in _batches(_files(root, manifest, "games_file"), cols, "games"):
        m = batch.num_rows
        if m == 0:
            continue
        game = batch.column(0).to_numpy()
        if game[0] != expected or (m > 1 and (np.diff(game) != 1).any()):
            raise NotARun(f"{root}: the games dataset is not games 0, 1, 2, … in order")
        for p in range(4):
            if not _all_equal(batch.column(1 + p), players[p]):
                raise NotARun(f"{root}: seat {p} is not always {players[p]!r} in the games")
        totals = np.stack([batch.column(5 + p).to_numpy() for p in range(4)], 1)
        ranks = np.stack([batch.column(9 + p).to_numpy() for p in range(4)], 1)
        yield expected, totals.astype(np.int64), ranks.astype(np.int64)
        expected += m
    cfg_games = manifest["config"]["games"]
    if expected != cfg_games:
        raise NotARun(f"{root}: the games dataset holds {expected:,} games, not {cfg_games:,}")


def _all_equal(col: Any, value: str) -> bool:
    """Whether every entry of a (dictionary) string column is ``value``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(col.type):
        names = col.dictionary.to_pylist()
        ok = np.array([n == value for n in names] + [False])
        return bool(ok[col.indices.fill_null(len(names)).to_numpy()].all())
    return bool(pc.all(pc.equal(col, value)).as_py())


def deal_blocks(
    root: Path, manifest: dict, for_chooser: bool = False
) -> Iterator[tuple[np.ndarray, ...]]:
    """(contract codes (m, 11), raw (m, 11, 4), final (m, 11, 4)) of whole games, in order;
    ``for_chooser``: also the doubles of each deal (m, 11), bit 4·d + t for d doubled t, and
    its variant code (m, 11) in ``VARIANT_NAMES`` order.

    A batch rarely ends on a game boundary: its last, incomplete game is carried into the
    next batch."""
    cols = ["game", "deal", "contract"] + [f"raw_{p}" for p in range(4)]
    cols += [f"final_{p}" for p in range(4)] + (["doubles", "variant"] if for_chooser else [])
    carry: list[np.ndarray] | None = None
    expected = 0
    for batch in _batches(_files(root, manifest, "deals_file"), cols, "deals"):
        if batch.num_rows == 0:
            continue
        arrays = [
            batch.column(0).to_numpy(),
            batch.column(1).to_numpy().astype(np.int64),
            dictionary_codes(batch.column(2), CONTRACTS).astype(np.int64),
            np.stack([batch.column(3 + p).to_numpy() for p in range(4)], 1),
            np.stack([batch.column(7 + p).to_numpy() for p in range(4)], 1),
        ]
        if for_chooser:
            arrays.append(batch.column(11).to_numpy())
            arrays.append(dictionary_codes(batch.column(12), VARIANT_NAMES).astype(np.int64))
        if carry is not None:
            arrays = [np.concatenate([a, b]) for a, b in zip(carry, arrays, strict=True)]
        whole = len(arrays[0]) // DEALS_PER_GAME * DEALS_PER_GAME
        carry = [a[whole:] for a in arrays]
        if whole == 0:
            continue
        game, deal, contract, raw, final, *chooser = (a[:whole] for a in arrays)
        m = whole // DEALS_PER_GAME
        want = np.repeat(np.arange(expected, expected + m), DEALS_PER_GAME)
        if (game != want).any() or (deal.reshape(m, -1) != np.arange(DEALS_PER_GAME)).any():
            raise NotARun(f"{root}: the deals dataset is not 11 deals per game, games in order")
        if (contract < 0).any():
            raise NotARun(f"{root}: a deal of the game run has no contract")
        expected += m
        shape = (m, DEALS_PER_GAME)
        block = (contract.reshape(shape), raw.reshape(*shape, 4), final.reshape(*shape, 4))
        yield block + tuple(a.reshape(shape) for a in chooser)
    if carry is not None and len(carry[0]):
        raise NotARun(f"{root}: the deals dataset ends inside a game")
    cfg_games = manifest["config"]["games"]
    if expected != manifest["config"]["games"]:
        raise NotARun(f"{root}: the deals dataset holds {expected:,} games, not {cfg_games:,}")


def aggregate_games(path: str | os.PathLike, manifest: dict | None = None) -> GameStats:
    """Stream a complete game run into a GameStats."""
    root = Path(path)
    manifest = manifest if manifest is not None else open_game_run(root)
    players = tuple(manifest["config"]["players"])
    profiles = tuple(dict.fromkeys(players))
    K = len(profiles)
    U = 4 + K
    unit = _profile_matrix(players, profiles)
    seat_of = (unit > 0).astype(np.int64)  # seat p counts towards unit u
    st = GameStats(manifest, str(root), players, profiles)
    st.per_game = {q: Moments.zeros(U) for q in QUANTITIES}
    st.pairs = {q: Moments.zeros(K, K) for q in QUANTITIES}
    st.contract = {q: Moments.zeros(U, C) for q in PARTS}
    st.wins = np.zeros(U, np.int64)
    st.sole_wins = np.zeros(U, np.int64)
    seats_total = np.zeros(4, np.int64)
    for _, totals, ranks in game_blocks(root, manifest):
        first = ranks == 1
        shared = first.sum(1) > 1
        st.shared_first += int(shared.sum())
        per_seat = {"win": first.astype(np.float64), "total": totals.astype(np.float64)}
        for q, x in per_seat.items():
            u = x @ unit  # (m, U)
            st.per_game[q].add(u)
            prof = u[:, 4:]
            st.pairs[q].add(prof[:, :, None] - prof[:, None, :])
        st.wins += first.sum(0) @ seat_of
        st.sole_wins += (first & ~shared[:, None]).sum(0) @ seat_of
        seats_total += totals.sum(0)
    onehot = np.arange(C)
    contract_total = np.zeros(4, np.int64)
    for contract, raw, final in deal_blocks(root, manifest):
        hot = (contract[:, :, None] == onehot).astype(np.float64)  # (m, 11, C)
        st.contract_deals += hot.sum((0, 1)).astype(np.int64)
        f = np.einsum("gkc,gks->gsc", hot, final.astype(np.float64))  # (m, 4, C)
        r = np.einsum("gkc,gks->gsc", hot, raw.astype(np.float64))
        contract_total += f.sum((0, 2)).astype(np.int64)
        for q, x in (("final", f), ("raw", r), ("transfer", f - r)):
            st.contract[q].add(np.einsum("gsc,su->guc", x, unit))
    if (contract_total != seats_total).any():
        raise NotARun(f"{root}: the deals and games datasets disagree on the settled totals")
    return st


# ---------------------------------------------------------------------------------------
# The doubling comparison


@dataclass
class DoublingCompare:
    """A run with doubling on against one with it off, paired per game."""

    other: str  # the second run's directory
    doubling_in_main: bool  # which of the two is the report's RUN_DIR
    games: int
    #: per unit: per-game win share and total with doubling on, off, and on − off
    on: dict[str, Moments]
    off: dict[str, Moments]
    diff: dict[str, Moments]
    wins_on: np.ndarray
    wins_off: np.ndarray
    winner_changed: int  # games whose set of first places differs


#: what must agree between the two runs (besides doubling, which must differ)
_SAME = ("seed", "games", "players", "order", "ruleset")


def check_comparable(main: dict, other: dict, other_root: Path) -> None:
    a, b = main["config"], other["config"]
    for key in _SAME:
        if a.get(key) != b.get(key):
            raise NotARun(
                f"--compare-games {other_root}: its {key} ({b.get(key)!r}) differs from the "
                f"report's run ({a.get(key)!r}); play it with the same options and the other "
                "--doubling"
            )
    if bool(a.get("doubling", True)) == bool(b.get("doubling", True)):
        state = "on" if a.get("doubling", True) else "off"
        raise NotARun(
            f"--compare-games {other_root}: both runs have doubling {state}; the comparison "
            f"needs the same games played with --doubling {'off' if state == 'on' else 'on'}"
        )


def compare_doubling(stats: GameStats, other_path: str | os.PathLike) -> DoublingCompare:
    """Read the other run's games in step with the report's run (which ``stats`` holds)."""
    other_root = Path(other_path)
    main_root = Path(stats.root)
    if other_root.resolve() == main_root.resolve():
        raise NotARun(f"--compare-games {other_root} is the report's run itself")
    if manifest_format(other_root) not in (None, GAME_FORMAT):
        raise NotARun(
            f"--compare-games {other_root} is not a game run (bonken-sim game writes those)"
        )
    other = open_game_run(other_root)
    check_comparable(stats.manifest, other, other_root)
    main_on = bool(stats.manifest["config"].get("doubling", True))
    unit = _profile_matrix(stats.players, stats.profiles)
    U = unit.shape[1]
    mom = {side: {q: Moments.zeros(U) for q in QUANTITIES} for side in ("on", "off", "diff")}
    wins = {"on": np.zeros(U, np.int64), "off": np.zeros(U, np.int64)}
    seat_of = (unit > 0).astype(np.int64)
    changed = 0
    blocks = _aligned(game_blocks(main_root, stats.manifest), game_blocks(other_root, other))
    for (t_main, r_main), (t_other, r_other) in blocks:
        if main_on:
            t_on, r_on, t_off, r_off = t_main, r_main, t_other, r_other
        else:
            t_on, r_on, t_off, r_off = t_other, r_other, t_main, r_main
        first_on, first_off = r_on == 1, r_off == 1
        changed += int((first_on != first_off).any(1).sum())
        wins["on"] += first_on.sum(0) @ seat_of
        wins["off"] += first_off.sum(0) @ seat_of
        for q, xon, xoff in (
            ("win", first_on.astype(float), first_off.astype(float)),
            ("total", t_on.astype(float), t_off.astype(float)),
        ):
            uon, uoff = xon @ unit, xoff @ unit
            mom["on"][q].add(uon)
            mom["off"][q].add(uoff)
            mom["diff"][q].add(uon - uoff)
    return DoublingCompare(
        str(other_root),
        main_on,
        mom["diff"]["win"].n,
        mom["on"],
        mom["off"],
        mom["diff"],
        wins["on"],
        wins["off"],
        changed,
    )


def _aligned(a: Iterator, b: Iterator) -> Iterator:
    """Pairs of equally long ((totals, ranks), (totals, ranks)) blocks from two streams of
    the same games cut into blocks at different places."""
    buf_a: list = []
    buf_b: list = []

    def take(buf: list, n: int) -> tuple[np.ndarray, np.ndarray]:
        t = np.concatenate([x[0] for x in buf])
        r = np.concatenate([x[1] for x in buf])
        buf[:] = [(t[n:], r[n:])] if len(t) > n else []
        return t[:n], r[:n]

    def size(buf: list) -> int:
        return sum(len(x[0]) for x in buf)

    ia, ib = iter(a), iter(b)
    while True:
        if not buf_a:
            nxt = next(ia, None)
            if nxt is not None:
                buf_a.append(nxt[1:])
        if not buf_b:
            nxt = next(ib, None)
            if nxt is not None:
                buf_b.append(nxt[1:])
        n = min(size(buf_a), size(buf_b))
        if n == 0:
            return
        yield take(buf_a, n), take(buf_b, n)


# ---------------------------------------------------------------------------------------
# Tables


def _unit_columns(stats: GameStats) -> pd.DataFrame:
    units = stats.units
    group = ["seat"] * 4 + ["profile"] * len(stats.profiles)
    profile = list(stats.players) + list(stats.profiles)
    seats = [1] * 4 + list(stats.seats_of)
    return pd.DataFrame({"group": group, "name": units, "profile": profile, "seats": seats})


def results(stats: GameStats) -> pd.DataFrame:
    """Win rate (Wilson 95% CI over seat-games) and mean settled total (95% CI over games)
    per seat and per profile."""
    out = _unit_columns(stats)
    n = stats.games
    trials = n * out["seats"].to_numpy()
    p, lo, hi = wilson_array(stats.wins, trials)
    mean, sd, tlo, thi = stats.per_game["total"].ci()
    out["games"] = n
    out["seat_games"] = trials
    out["wins"] = stats.wins
    out["sole_wins"] = stats.sole_wins
    out["win_rate"], out["win_ci_low"], out["win_ci_high"] = p, lo, hi
    out["mean_total"], out["total_sd"] = mean, sd
    out["total_ci_low"], out["total_ci_high"] = tlo, thi
    return out


def contracts(stats: GameStats) -> pd.DataFrame:
    """Per seat/profile and contract: the settled contribution to the total per game, its
    raw part and what doubling moved (final − raw), each with a 95% CI over games, and the
    settled score per deal of that contract (contribution / deals of it per game)."""
    base = _unit_columns(stats)
    per_game = stats.contract_deals / max(1, stats.games)
    rows = []
    ci = {q: stats.contract[q].ci() for q in PARTS}
    for u in range(len(base)):
        for c, name in enumerate(CONTRACTS):
            row = base.iloc[u].to_dict()
            row["contract"] = name
            row["deals_per_game"] = per_game[c]
            for q in PARTS:
                mean, sd, lo, hi = (a[u, c] for a in ci[q])
                row[f"{q}_mean"], row[f"{q}_ci_low"], row[f"{q}_ci_high"] = mean, lo, hi
            k = per_game[c]
            row["per_deal_mean"] = row["final_mean"] / k if k else np.nan
            row["per_deal_ci_low"] = row["final_ci_low"] / k if k else np.nan
            row["per_deal_ci_high"] = row["final_ci_high"] / k if k else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def head_to_head(stats: GameStats) -> pd.DataFrame:
    """Per pair of profiles a − b (a before b in seat order): the per-game difference of win
    share and of mean total, paired on the same games (95% CI over games)."""
    rows = []
    win = stats.pairs["win"].ci()
    tot = stats.pairs["total"].ci()
    K = len(stats.profiles)
    for i in range(K):
        for j in range(i + 1, K):
            rows.append(
                {
                    "profile": stats.profiles[i],
                    "versus": stats.profiles[j],
                    "games": stats.games,
                    "only_doubling_differs": only_doubling_differs(
                        stats.profiles[i], stats.profiles[j]
                    ),
                    "win_diff": win[0][i, j],
                    "win_diff_ci_low": win[2][i, j],
                    "win_diff_ci_high": win[3][i, j],
                    "total_diff": tot[0][i, j],
                    "total_diff_ci_low": tot[2][i, j],
                    "total_diff_ci_high": tot[3][i, j],
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "profile", "versus", "games", "only_doubling_differs", "win_diff",
            "win_diff_ci_low", "win_diff_ci_high", "total_diff", "total_diff_ci_low",
            "total_diff_ci_high",
        ],
    )  # fmt: skip


def only_doubling_differs(a: str, b: str) -> bool:
    """Profiles with the same card play and contract choice and different doubling."""
    d = single_difference(a, b)
    return d is not None and d[0] == "doubling"


#: what a pair of profiles that differ in one thing measures, by the thing
MEASURES = ("contract choice", "doubling", "card play")


def single_difference(a: str, b: str) -> tuple[str, bool] | None:
    """(what differs, whether ``a`` has the better of it) when profiles ``a`` and ``b``
    differ in exactly one of card play, contract choice and doubling; None otherwise. The
    better: a choice or doubling policy above the other (random or never, then fitted, then
    search: ``_core/game.py``'s ids), the higher card-play tier."""
    from bonken_sim.engine.games import PROFILES, canonical_name

    pa, pb = PROFILES.get(canonical_name(a)), PROFILES.get(canonical_name(b))
    if pa is None or pb is None:
        return None
    differs = [
        ("contract choice", pa.choice != pb.choice, pa.choice_policy > pb.choice_policy),
        ("doubling", pa.doubling != pb.doubling, pa.doubling_policy > pb.doubling_policy),
        ("card play", pa.card != pb.card, pa.card > pb.card),
    ]  # fmt: skip
    hits = [(what, better) for what, diff, better in differs if diff]
    return hits[0] if len(hits) == 1 else None


def doubling_effect(stats: GameStats) -> pd.DataFrame:
    """The comparison run: per seat and profile, win rate and mean total with doubling on
    and off (Wilson / normal 95% CI) and the paired difference on − off (95% CI over
    games)."""
    cmp = stats.compare
    assert cmp is not None
    out = _unit_columns(stats)
    trials = cmp.games * out["seats"].to_numpy()
    out["games"] = cmp.games
    for side, wins in (("on", cmp.wins_on), ("off", cmp.wins_off)):
        p, lo, hi = wilson_array(wins, trials)
        out[f"win_rate_{side}"], out[f"win_{side}_ci_low"], out[f"win_{side}_ci_high"] = p, lo, hi
        mean, _, tlo, thi = getattr(cmp, side)["total"].ci()
        out[f"mean_total_{side}"] = mean
        out[f"total_{side}_ci_low"], out[f"total_{side}_ci_high"] = tlo, thi
    for q, label in (("win", "win_diff"), ("total", "total_diff")):
        mean, _, lo, hi = cmp.diff[q].ci()
        out[label], out[f"{label}_ci_low"], out[f"{label}_ci_high"] = mean, lo, hi
    out["winner_changed"] = cmp.winner_changed / cmp.games if cmp.games else np.nan
    return out
