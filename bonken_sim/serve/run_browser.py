"""An opened run (``bonken-sim serve DIR``): a deal run or a game run, browsed deal by deal,
any deal replayed trick by trick in any contract variant.

A deal of a run is a pure function of its seed and index, so the engine plays it again
(``engine.play.play``) with the run's card strategies, dealer and ruleset: a deal run's row
is exactly what ``bonken-sim play`` shows. A game run's deal ``k`` of game ``g`` is deal
``11·g + k`` of its seed with dealer ``(g + k) mod 4``, replayed with the seats' card tiers
and no doubles: where an advanced seat played under doubles, its cards may differ from the
game's (the run's own scores are shown beside the replay's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bonken_sim.engine.games import DEALS_PER_GAME
from bonken_sim.engine.games import profile as profile_of
from bonken_sim.engine.play import play
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.rules.names import card_str, mask_cards
from bonken_sim.rules.rulesets import as_ruleset
from bonken_sim.runs.game_format import game_dataset, game_manifest, is_game_run
from bonken_sim.runs.manifest import read_manifest
from bonken_sim.runs.readers import dataset


class RunRequestError(BadValue):
    """A deal, game or variant the opened run does not have."""


def open_run(path: Path) -> dict[str, Any]:
    """What the run is (checked now, so a directory that is no run stops the command)."""
    if is_game_run(path):
        m = game_manifest(path)
        cfg = m["config"]
        return {
            "kind": "games",
            "path": str(path),
            "seed": int(cfg["seed"]),
            "count": int(m.get("games_done", cfg["games"])),
            "players": list(cfg["players"]),
            "ruleset": cfg.get("ruleset") or as_ruleset(None).to_dict(),
        }
    m = read_manifest(path)
    cfg = m["config"]
    return {
        "kind": "deals",
        "path": str(path),
        "seed": int(cfg["seed"]),
        "count": int(m.get("deals_done", cfg["deals"])),
        "strategies": list(cfg["strategies"]),
        "dealer": int(cfg.get("dealer", 0)),
        "contracts": list(cfg["contracts"]),
        "ruleset": cfg["ruleset"],
    }


def _index(args: dict[str, Any], key: str, count: int) -> int:
    try:
        i = int(str(args.get(key, "0")))
    except ValueError:
        raise RunRequestError(f"{key} must be a whole number, got {args.get(key)!r}") from None
    if not 0 <= i < count:
        raise RunRequestError(f"{key} must be 0 to {count - 1} in this run, got {i}")
    return i


def replay_deal(seed: int, deal: int, variant: str, strategies: list[str], dealer: int,
                rules: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """One deal played again by the engine, in the shape of the page's replay view."""
    try:
        p = play(seed, deal, variant, strategies, dealer=dealer, ruleset=rules)
    except UserFixableError as exc:
        raise RunRequestError(str(exc)) from None
    rec = p.record()
    tricks = [
        {"leader": t.leader, "seats": list(t.seats), "cards": [card_str(c) for c in t.cards],
         "winner": t.winner, "points": t.points}
        for t in p.trick_results()
    ]  # fmt: skip
    return {
        "k": deal,
        "contract": p.name,
        "domino": p.is_domino,
        "hands": [[card_str(c) for c in mask_cards(h)] for h in p.hands],
        "plays": [[s, c] for s, c in zip(p.seats, rec["plays"], strict=True)],
        "tricks": tricks,
        "raw": p.scores,
        "final": p.scores,
        "record": rec,
    }


def run_deal(info: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A deal of the run: the run's own rows for it and the engine's replay of ``variant``."""
    if info["kind"] == "deals":
        i = _index(args, "deal", info["count"])
        table = dataset(info["path"]).to_table(filter=_field("deal") == i).to_pylist()
        rows = [{"variant": r["variant"], "scores": [r[f"score_{p}"] for p in range(4)]}
                for r in table]  # fmt: skip
        variant = str(args.get("variant") or info["contracts"][0])
        replay = replay_deal(info["seed"], i, variant, info["strategies"], info["dealer"],
                             info["ruleset"])  # fmt: skip
        return {"deal": i, "rows": rows, "replay": replay}
    g = _index(args, "game", info["count"])
    deals = game_dataset(info["path"], "deals").to_table(filter=_field("game") == g).to_pylist()
    deals.sort(key=lambda r: r["deal"])
    rows = [
        {"deal": int(r["deal"]), "dealer": int(r["dealer"]), "variant": r["variant"],
         "doubles": _doubles(int(r["doubles"])),
         "raw": [int(r[f"raw_{p}"]) for p in range(4)],
         "final": [int(r[f"final_{p}"]) for p in range(4)]}
        for r in deals
    ]  # fmt: skip
    k = _index(args, "k", DEALS_PER_GAME)
    row = rows[k]
    variant = str(args.get("variant") or row["variant"])
    cards = [_card_tier(name) for name in info["players"]]
    replay = replay_deal(info["seed"], DEALS_PER_GAME * g + k, variant, cards, row["dealer"],
                         info["ruleset"])  # fmt: skip
    return {"game": g, "k": k, "rows": rows, "replay": replay}


def _doubles(bits: int) -> list[list[int]]:
    """The ``doubles`` column (bit 4·d + t: seat d doubled seat t) as [d, t] pairs."""
    return [[d, t] for d in range(4) for t in range(4) if bits >> (4 * d + t) & 1]


def _card_tier(profile: str) -> str:
    """A profile's card-play tier, as ``play`` names strategies."""
    return ("random", "basic", "advanced", "expert")[min(int(profile_of(profile).card) & 0xFF, 3)]


def _field(name: str):
    import pyarrow.dataset as ds

    return ds.field(name)
