"""The page (its own HTML, CSS and JavaScript) and its configuration."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from flask import Blueprint, jsonify, send_from_directory

from bonken_sim.rules.presets import PRESET_NAMES, PRESET_SUMMARIES
from bonken_sim.serve.table_game import TABLE_PROFILES

if TYPE_CHECKING:
    from bonken_sim.serve.app import ServeOptions

STATIC = Path(__file__).resolve().parent / "static"


def page_routes(options: ServeOptions) -> Blueprint:
    routes = Blueprint("page", __name__)

    @routes.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @routes.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @routes.get("/api/config")
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

    return routes
