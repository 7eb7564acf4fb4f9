"""An opened run's deals (``GET /api/run/deal``), played again by the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Blueprint, jsonify, request

from bonken_sim.serve.store import UnknownGame

if TYPE_CHECKING:
    from bonken_sim.serve.app import ServeOptions

#: the endpoints here that call a kernel (the kernels gate holds them until compiled)
KERNEL_ENDPOINTS = ("run.run_deal",)


def run_routes(options: ServeOptions) -> Blueprint:
    routes = Blueprint("run", __name__)

    @routes.get("/api/run/deal")
    def run_deal():
        from bonken_sim.serve.run_browser import run_deal as one_deal

        if options.run is None:
            raise UnknownGame("no run is open (bonken-sim serve RUN_DIR opens one)")
        return jsonify(one_deal(options.run, dict(request.args)))

    return routes
