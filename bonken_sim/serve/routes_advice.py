"""Advice for a hand from the page's form (``POST /api/advise``)."""

from __future__ import annotations

import threading

from flask import Blueprint, jsonify

from bonken_sim.serve.requests import body

#: the endpoints here that call a kernel (the kernels gate holds them until compiled)
KERNEL_ENDPOINTS = ("advice.advise",)


def advice_routes() -> Blueprint:
    routes = Blueprint("advice", __name__)
    lock = threading.Lock()

    @routes.post("/api/advise")
    def advise():
        from bonken_sim.serve.advice import advise_request

        doc = body()
        with lock:  # one at a time: it takes every core
            return jsonify(advise_request(doc))

    return routes
