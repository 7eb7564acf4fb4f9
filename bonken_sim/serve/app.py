"""The web app: the page (its own HTML, CSS and JavaScript, nothing from elsewhere) and a JSON
API over the game, the hints, the review, advise and an opened run.

Every refused request is an HTTP 4xx with one JSON line ``{"error": "..."}`` and changes
nothing: a malformed body or a value the rules forbid 400, a game id with no game 404, an
action out of turn 409. A game is saved after every decision (``store``)."""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, request, send_from_directory

from bonken_sim.errors import BadValue, UserFixableError, internal_error_log
from bonken_sim.files import NotJson, json_document
from bonken_sim.rules.presets import PRESET_NAMES, PRESET_SUMMARIES
from bonken_sim.rules.rulesets import STANDARD, RulesError, Ruleset, load_rules_file, preset
from bonken_sim.runs.options import draw_seed, parse_seed
from bonken_sim.serve import coach
from bonken_sim.serve.guard import Guard
from bonken_sim.serve.kernels_ready import Kernels
from bonken_sim.serve.store import GameStore, UnknownGame
from bonken_sim.serve.table_game import TABLE_PROFILES, GameError, OutOfTurn, TableGame
from bonken_sim.serve.table_state import public_state, summary

STATIC = Path(__file__).resolve().parent / "static"
#: the largest request body read (a rules file, a hand): anything longer is refused
MAX_BODY = 64 * 1024


@dataclass
class ServeOptions:
    """What ``bonken-sim serve`` was started with."""

    state_dir: Path
    ruleset: Ruleset = STANDARD
    hint_samples: int = coach.DEFAULT_HINT_SAMPLES
    run: dict[str, Any] | None = None  # the opened run (run_browser.open_run)
    guard: Guard = field(default_factory=Guard)  # the address served, its token if any
    kernels: Kernels = field(default_factory=Kernels)  # compiled yet? (serve compiles them)


class BadRequest(BadValue):
    """A request body that is not what the endpoint reads."""


def _error(message: str, status: int) -> Response:
    resp = jsonify({"error": " ".join(str(message).split())})
    resp.status_code = status
    return resp


def _body() -> dict[str, Any]:
    raw = request.get_data(cache=True)
    if len(raw) > MAX_BODY:
        raise BadRequest(f"request body over {MAX_BODY // 1024} kB")
    if not raw.strip():
        return {}
    try:
        body = json_document(raw, allow_nan=False)
    except NotJson as exc:
        raise BadRequest(f"malformed JSON body: {exc.why}") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    return body


def _ruleset(body: dict[str, Any], default: Ruleset) -> Ruleset:
    """A new game's rules: ``rules`` (the text of a TOML rules file, as ``--rules`` reads it),
    else ``ruleset`` (a preset name), else the server's."""
    text, name = body.get("rules"), body.get("ruleset")
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


def create_app(options: ServeOptions) -> Flask:
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    options.guard.install(app)
    store = GameStore(options.state_dir)
    advise_lock = threading.Lock()
    app.extensions["bonken_store"] = store

    @app.errorhandler(UnknownGame)
    def _unknown(exc):
        return _error(str(exc), 404)

    @app.errorhandler(OutOfTurn)
    def _out_of_turn(exc):
        return _error(str(exc), 409)

    @app.errorhandler(UserFixableError)
    def _user(exc):
        return _error(str(exc), 400)

    @app.errorhandler(404)
    def _not_found(exc):
        return _error(f"no such page: {request.path}", 404)

    @app.errorhandler(405)
    def _method(exc):
        return _error(f"{request.method} is not allowed on {request.path}", 405)

    @app.errorhandler(413)
    def _too_large(exc):
        return _error(f"request body over {MAX_BODY // 1024} kB", 413)

    @app.errorhandler(Exception)
    def _internal(exc):
        if hasattr(exc, "code") and isinstance(getattr(exc, "code", None), int):
            return _error(str(exc), exc.code)
        log = internal_error_log(exc, ["serve", request.method, request.path])
        return _error(f"internal error: {type(exc).__name__}: {exc} (traceback in {log})", 500)

    # -- the page ---------------------------------------------------------------------------
    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/config")
    def config():
        return jsonify(
            {
                "profiles": list(TABLE_PROFILES),
                "rulesets": [{"name": n, "summary": PRESET_SUMMARIES[n]} for n in PRESET_NAMES],
                "default_ruleset": options.ruleset.to_dict(),
                "hint_samples": options.hint_samples,
                "run": options.run,
            }
        )

    # -- games ------------------------------------------------------------------------------
    @app.get("/api/games")
    def list_games():
        out = []
        for gid in store.ids()[:50]:
            try:
                out.append(summary(store.load(gid)))
            except UserFixableError:
                continue  # a file that is not a game of this version is left alone
        return jsonify(out)

    @app.post("/api/games")
    def new_game():
        body = _body()
        rules = _ruleset(body, options.ruleset)
        seed = body.get("seed")
        try:
            seed_i = draw_seed() if seed in (None, "") else parse_seed(str(seed))
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        players = body.get("players", ["you", "basic", "basic", "basic"])
        you = body.get("you", 0)
        game = body.get("game", 0)
        gid = store.new_id()
        with store.locked(gid):
            g = TableGame.new(gid, seed_i, players, you, rules, game)
            store.save(g)
            g.advance(saved=lambda: store.save(g))
            store.save(g)
        return jsonify(public_state(g))

    @app.get("/api/games/<gid>")
    def get_game(gid: str):
        with store.locked(gid):
            return jsonify(public_state(store.load(gid)))

    @app.post("/api/games/<gid>/<action>")
    def act(gid: str, action: str):
        if action not in ("choose", "double", "play", "next"):
            raise UnknownGame(f"no action {action!r} (choose, double, play or next)")
        body = _body()
        with store.locked(gid):
            g = store.load(gid)
            if action == "choose":
                g.choose(body.get("contract"))
            elif action == "double":
                g.double(body.get("targets"))
            elif action == "play":
                g.play(body.get("card"))
            else:
                g.next_deal()
            store.save(g)
            g.advance(saved=lambda: store.save(g))
            return jsonify(public_state(g))

    @app.get("/api/games/<gid>/hint")
    def get_hint(gid: str):
        with store.locked(gid):
            g = store.load(gid)
        return jsonify(coach.hint(g, options.hint_samples))

    @app.get("/api/games/<gid>/review")
    def get_review(gid: str):
        with store.locked(gid):
            g = store.load(gid)
        deal = request.args.get("deal")
        if deal in (None, "", "all"):
            return jsonify(coach.review_game(g, options.hint_samples))
        try:
            k = int(deal)
        except ValueError:
            raise BadRequest(f"deal must be 0-10 or all, got {deal!r}") from None
        return jsonify(coach.review_deal(g, k, options.hint_samples))

    @app.get("/api/games/<gid>/trace")
    def get_trace(gid: str):
        with store.locked(gid):
            g = store.load(gid)
        deal = request.args.get("deal")
        k = None
        if deal not in (None, ""):
            try:
                k = int(deal)
            except ValueError:
                raise BadRequest(f"deal must be 0-10, got {deal!r}") from None
        lines = g.trace_lines(k)
        if not lines:
            raise GameError("no finished deal to download yet")
        name = f"bonken-{gid}" + ("" if k is None else f"-deal{k}") + ".jsonl"
        return Response(
            "".join(line + "\n" for line in lines),
            mimetype="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    # -- advice for a hand ------------------------------------------------------------------
    @app.post("/api/advise")
    def advise():
        from bonken_sim.serve.advice import advise_request

        body = _body()
        with advise_lock:  # one at a time: it takes every core
            return jsonify(advise_request(body))

    # -- an opened run ----------------------------------------------------------------------
    @app.get("/api/run/deal")
    def run_deal():
        from bonken_sim.serve.run_browser import run_deal as one_deal

        if options.run is None:
            raise UnknownGame("no run is open (bonken-sim serve RUN_DIR opens one)")
        return jsonify(one_deal(options.run, dict(request.args)))

    # the views that call a kernel answer 503 until the kernels are compiled (the page, its
    # configuration, the list of saved games and a trace call none)
    options.kernels.install(
        app, ("new_game", "get_game", "act", "get_hint", "get_review", "advise", "run_deal")
    )
    return app
