"""What the person at the table sees of a game: his own hand, everything played in the open,
the score sheet; never another seat's cards while a deal is being played (a finished deal's
four hands are shown: they are the review's)."""

from __future__ import annotations

from typing import Any

from bonken_sim.serve.table_game import TableGame, trick_dict


def ranks(totals: list[int]) -> list[int]:
    """RULES.md §6: rank 1 is the highest total; equal totals share the place."""
    return [1 + sum(t > mine for t in totals) for mine in totals]


def sheet_row(deal: dict[str, Any]) -> dict[str, Any]:
    """One finished deal on the score sheet: the contract, the doubles, raw and settled scores
    and what each pair's doubles moved."""
    raw, final = deal["raw"], deal["final"]
    pairs: dict[tuple[int, int], int] = {}
    for a, b in deal["doubles"]:
        key = (min(a, b), max(a, b))
        pairs[key] = pairs.get(key, 0) + 1
    transfers = [
        {"seats": [p, q], "m": m, "moved": m * (raw[p] - raw[q])}
        for (p, q), m in sorted(pairs.items())
    ]
    return {
        "k": deal["k"],
        "dealer": deal["dealer"],
        "chooser": (deal["dealer"] + 2) & 3,
        "contract": deal["contract"],
        "doubles": deal["doubles"],
        "raw": raw,
        "final": final,
        "transfers": transfers,
    }


def deal_public(g: TableGame, deal: dict[str, Any]) -> dict[str, Any]:
    """``deal`` (``TableGame.deal``) as the person sees it."""
    done = deal["done"]
    plays = deal["plays"]
    tricks = [trick_dict(t) for t in g.tricks(deal)]
    domino = deal["contract"] is not None and g.domino(deal)
    in_trick = [] if domino else plays[len(plays) - len(plays) % 4 :]
    taken = [{"tricks": 0, "points": 0} for _ in range(4)]
    for t in tricks:
        taken[t["winner"]]["tricks"] += 1
        taken[t["winner"]]["points"] += t["points"]
    on_table = not done and deal["k"] == g.state.deal
    out: dict[str, Any] = {
        "k": deal["k"],
        "dealer": deal["dealer"],
        "chooser": (deal["dealer"] + 2) & 3,
        "leader": (deal["dealer"] + 1) & 3,
        "contract": deal["contract"],
        "trump": g.variant(deal).trump if deal["contract"] else None,
        "domino": domino,
        "doubles": deal["doubles"],
        "passed": g.passed(deal),
        "hand": g.hand_now(g.you) if on_table else [],
        "plays": plays,
        "tricks": tricks,
        "trick": in_trick,
        "taken": taken,
        "counts": [len(g.hand_now(s)) if on_table else 0 for s in range(4)],
        "done": done,
        "raw": deal["raw"],
        "final": deal["final"],
    }
    if done:
        out["hands"] = deal["hands"]
    return out


def public_state(g: TableGame) -> dict[str, Any]:
    """The game as the person at seat ``g.you`` may see it, with his options now."""
    kind, seat = g.turn()
    totals = g.totals()
    s = g.state
    over = kind == "over"
    out = {
        "id": g.gid,
        "seed": s.seed,
        "game": s.game,
        "you": g.you,
        "players": g.players,
        "ruleset": g.rules.to_dict(),
        "doubling": g.rules.doubling,
        "turn": {"kind": kind, "seat": seat},
        "legal": g.legal()["options"],
        "deal": deal_public(g, g.deal(g.shown())),
        "sheet": [sheet_row(g.deal(k)) for k in range(len(s.deals))],
        "totals": totals,
        "over": over,
    }
    if over:
        r = ranks(totals)
        out["ranks"] = r
        out["winners"] = [p for p in range(4) if r[p] == 1]
    return out


def summary(g: TableGame) -> dict[str, Any]:
    """A saved game in the list of games."""
    return {
        "id": g.gid,
        "players": g.players,
        "you": g.you,
        "ruleset": g.rules.to_dict()["name"],
        "deal": g.shown() + 1,
        "over": g.over(),
        "totals": g.totals(),
    }
