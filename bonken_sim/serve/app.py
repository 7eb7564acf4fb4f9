"""The web app: the page (its own HTML, CSS and JavaScript, nothing from elsewhere) and a JSON
API over the game, the hints, the review, advise and an opened run.

Every refused request is an HTTP 4xx with one JSON line ``{"error": "..."}`` and changes
nothing: a malformed body or a value the rules forbid 400, a game id with no game 404, an
action out of turn 409. A game is saved after every decision (``store``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, request

from bonken_sim.errors import UserFixableError, internal_error_log
from bonken_sim.rules.rulesets import STANDARD, Ruleset
from bonken_sim.serve import coach, routes_advice, routes_games, routes_run
from bonken_sim.serve.guard import Guard
from bonken_sim.serve.kernels_ready import Kernels
from bonken_sim.serve.requests import MAX_BODY, error
from bonken_sim.serve.routes_page import page_routes
from bonken_sim.serve.store import GameStore, UnknownGame
from bonken_sim.serve.table_game import OutOfTurn

#: the views that call a kernel, by their blueprint's name: they answer 503 until the kernels
#: are compiled (the page, its configuration, the list of saved games and a trace call none)
KERNEL_ENDPOINTS = (*routes_games.KERNEL_ENDPOINTS, *routes_advice.KERNEL_ENDPOINTS,
                    *routes_run.KERNEL_ENDPOINTS)  # fmt: skip


@dataclass
class ServeOptions:
    """What ``bonken-sim serve`` was started with."""

    state_dir: Path
    ruleset: Ruleset = STANDARD
    hint_samples: int = coach.DEFAULT_HINT_SAMPLES
    run: dict[str, Any] | None = None  # the opened run (run_browser.open_run)
    guard: Guard = field(default_factory=Guard)  # the address served, its token if any
    kernels: Kernels = field(default_factory=Kernels)  # compiled yet? (serve compiles them)


def create_app(options: ServeOptions) -> Flask:
    """The app: the guard first, the routes by area, the kernels gate, the error handlers."""
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    options.guard.install(app)
    store = GameStore(options.state_dir)
    app.extensions["bonken_store"] = store
    app.register_blueprint(page_routes(options))
    app.register_blueprint(routes_games.games_routes(options, store))
    app.register_blueprint(routes_advice.advice_routes())
    app.register_blueprint(routes_run.run_routes(options))
    options.kernels.install(app, KERNEL_ENDPOINTS)
    _error_handlers(app)
    return app


def _error_handlers(app: Flask) -> None:
    """Every refusal one JSON line with its status; anything else a 500 naming its log."""
    app.register_error_handler(UnknownGame, lambda exc: error(str(exc), 404))
    app.register_error_handler(OutOfTurn, lambda exc: error(str(exc), 409))
    app.register_error_handler(UserFixableError, lambda exc: error(str(exc), 400))
    app.register_error_handler(404, lambda exc: error(f"no such page: {request.path}", 404))
    app.register_error_handler(
        405, lambda exc: error(f"{request.method} is not allowed on {request.path}", 405)
    )
    app.register_error_handler(
        413, lambda exc: error(f"request body over {MAX_BODY // 1024} kB", 413)
    )

    @app.errorhandler(Exception)
    def _internal(exc):
        if hasattr(exc, "code") and isinstance(getattr(exc, "code", None), int):
            return error(str(exc), exc.code)
        log = internal_error_log(exc, ["serve", request.method, request.path])
        return error(f"internal error: {type(exc).__name__}: {exc} (traceback in {log})", 500)
