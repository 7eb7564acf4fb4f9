"""What every route of the web app shares: a request body read as one JSON object (at most
``MAX_BODY`` bytes), the error it is refused with, and the one-line JSON of a refusal."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from bonken_sim.errors import BadValue
from bonken_sim.files import NotJson, json_document

#: the largest request body read (a rules file, a hand): anything longer is refused
MAX_BODY = 64 * 1024


class BadRequest(BadValue):
    """A request body that is not what the endpoint reads."""


def error(message: str, status: int) -> Response:
    resp = jsonify({"error": " ".join(str(message).split())})
    resp.status_code = status
    return resp


def body() -> dict[str, Any]:
    raw = request.get_data(cache=True)
    if len(raw) > MAX_BODY:
        raise BadRequest(f"request body over {MAX_BODY // 1024} kB")
    if not raw.strip():
        return {}
    try:
        doc = json_document(raw, allow_nan=False)
    except NotJson as exc:
        raise BadRequest(f"malformed JSON body: {exc.why}") from None
    if not isinstance(doc, dict):
        raise BadRequest("the body must be a JSON object")
    return doc
