"""The games: the list and a new game, a game's state and the person's actions, the hint, the
review and the trace file. Each game's requests hold its lock (``store.locked``); a game is
saved after every decision."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, jsonify, request

from bonken_sim.errors import UserFixableError
from bonken_sim.rules.rulesets import RulesError, Ruleset, load_rules_file, preset
from bonken_sim.runs.options import draw_seed, parse_seed
from bonken_sim.serve import coach
from bonken_sim.serve.requests import BadRequest, body
from bonken_sim.serve.store import GameStore, UnknownGame
from bonken_sim.serve.table_game import GameError, TableGame
from bonken_sim.serve.table_state import public_state, summary

if TYPE_CHECKING:
    from bonken_sim.serve.app import ServeOptions

#: the endpoints here that call a kernel (the kernels gate holds them until compiled; the
#: list of saved games and a trace call none)
KERNEL_ENDPOINTS = ("games.new_game", "games.get_game", "games.act", "games.get_hint",
                    "games.get_review")  # fmt: skip


def _ruleset(doc: dict[str, Any], default: Ruleset) -> Ruleset:
    """A new game's rules: ``rules`` (the text of a TOML rules file, as ``--rules`` reads it),
    else ``ruleset`` (a preset name), else the server's."""
    text, name = doc.get("rules"), doc.get("ruleset")
    if text not in (None, ""):
        if not isinstance(text, str):
            raise BadRequest("rules must be the text of a TOML rules file")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "house-rules.toml"
            path.write_text(text, "utf-8")
            try:
                return load_rules_file(path)
            except RulesError as exc:
                raise BadRequest(str(exc).replace(str(path), "the rules file")) from None
    if name in (None, ""):
        return default
    if not isinstance(name, str):
        raise BadRequest(f"ruleset must be a name, got {name!r}")
    try:
        return preset(name)
    except RulesError as exc:
        raise BadRequest(str(exc)) from None


def _deal_arg(allowed: str) -> int | None:
    """The ``deal`` argument: None when absent (or ``all`` where ``allowed`` says so)."""
    deal = request.args.get("deal")
    if deal in (None, "", "all" if "all" in allowed else ""):
        return None
    try:
        return int(deal)
    except ValueError:
        raise BadRequest(f"deal must be {allowed}, got {deal!r}") from None


def games_routes(options: ServeOptions, store: GameStore) -> Blueprint:
    routes = Blueprint("games", __name__)

    @routes.get("/api/games")
    def list_games():
        out = []
        for gid in store.ids()[:50]:
            try:
                out.append(summary(store.load(gid)))
            except UserFixableError:
                continue  # a file that is not a game of this version is left alone
        return jsonify(out)

    @routes.post("/api/games")
    def new_game():
        doc = body()
        rules = _ruleset(doc, options.ruleset)
        seed = doc.get("seed")
        try:
            seed_i = draw_seed() if seed in (None, "") else parse_seed(str(seed))
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        players = doc.get("players", ["you", "basic", "basic", "basic"])
        gid = store.new_id()
        with store.locked(gid):
            g = TableGame.new(gid, seed_i, players, doc.get("you", 0), rules, doc.get("game", 0))
            store.save(g)
            g.advance(saved=lambda: store.save(g))
            store.save(g)
        return jsonify(public_state(g))

    @routes.get("/api/games/<gid>")
    def get_game(gid: str):
        with store.locked(gid):
            return jsonify(public_state(store.load(gid)))

    @routes.post("/api/games/<gid>/<action>")
    def act(gid: str, action: str):
        if action not in ("choose", "double", "play", "next"):
            raise UnknownGame(f"no action {action!r} (choose, double, play or next)")
        doc = body()
        with store.locked(gid):
            g = store.load(gid)
            if action == "choose":
                g.choose(doc.get("contract"))
            elif action == "double":
                g.double(doc.get("targets"))
            elif action == "play":
                g.play(doc.get("card"))
            else:
                g.next_deal()
            store.save(g)
            g.advance(saved=lambda: store.save(g))
            return jsonify(public_state(g))

    @routes.get("/api/games/<gid>/hint")
    def get_hint(gid: str):
        with store.locked(gid):
            g = store.load(gid)
        return jsonify(coach.hint(g, options.hint_samples))

    @routes.get("/api/games/<gid>/review")
    def get_review(gid: str):
        with store.locked(gid):
            g = store.load(gid)
        k = _deal_arg("0-10 or all")
        if k is None:
            return jsonify(coach.review_game(g, options.hint_samples))
        return jsonify(coach.review_deal(g, k, options.hint_samples))

    @routes.get("/api/games/<gid>/trace")
    def get_trace(gid: str):
        with store.locked(gid):
            g = store.load(gid)
        k = _deal_arg("0-10")
        lines = g.trace_lines(k)
        if not lines:
            raise GameError("no finished deal to download yet")
        name = f"bonken-{gid}" + ("" if k is None else f"-deal{k}") + ".jsonl"
        return Response(
            "".join(line + "\n" for line in lines),
            mimetype="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    return routes
