"""Who may use the web app: its user's browser, not a page of another site.

A page on any site can make the browser send requests to a local server: a cross-site form
or ``fetch`` posts to ``http://127.0.0.1:PORT/api/games``, and through DNS rebinding (a name of
the attacker's that resolves to 127.0.0.1) it can even read the answers. Three checks refuse
that, each with a 403 and one JSON line (as Jupyter and other local servers do):

- **Host**: the request must name the server by an address it serves: ``127.0.0.1``,
  ``localhost``, the ``--host`` given, or (when it listens on other addresses) an IP address
  as such. A rebinding name (``evil.example``) is refused, so no other site reads an answer.
- **Origin**: a request that changes something (any method but GET, HEAD and OPTIONS) sent by
  a browser must come from the app's own page: its ``Origin`` (which browsers send with every
  such request) must be the address it was sent to, and ``Sec-Fetch-Site`` must not say it
  came from another site. A program that is not a browser (curl, a script) sends neither.
- **Token**: when the app listens on more than the loopback (``serve --host ADDRESS``), every
  request must carry the secret printed with the address (``?token=...``, which the page then
  keeps in a cookie of this server's, or a ``Authorization: token ...`` header); other
  machines on the network reach it, and only the one who has the address may use it.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from flask import Flask, Request, jsonify, redirect, request
from werkzeug.wrappers import Response as ResponseBase

from bonken_sim.errors import BadValue

DEFAULT_HOST = "127.0.0.1"
LOOPBACK_NAMES = (DEFAULT_HOST, "localhost")
GUARD_KEY = "bonken_guard"  # where the app keeps its guard (app.extensions)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
TOKEN_PARAM = "token"
HOST_NAME = re.compile(
    r"(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*"
)


class Refused(Exception):
    """A request the guard refuses; the message is one line for the user."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine's loopback only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def guard_for(host: str) -> Guard:
    """The guard of ``serve --host host``: a token when it listens beyond the loopback;
    BadValue for a host that is neither an IP address nor a host name."""
    bare = _bare(host.strip())
    if not (_is_ip(bare) or HOST_NAME.fullmatch(bare)):
        raise BadValue(f"--host must be an IP address or a host name, got {host!r}")
    return Guard(bare, None if is_loopback(bare) else new_token())


def new_token() -> str:
    """A secret for one launch: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Guard:
    """What the server listens on and the secret it wants, if any (``token`` None: the
    loopback only, no secret)."""

    host: str = DEFAULT_HOST
    token: str | None = None
    names: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", frozenset((*LOOPBACK_NAMES, _bare(self.host))))

    def cookie_name(self, port: int | None) -> str:
        # cookies do not tell ports apart: two servers on one machine keep a cookie each
        return f"bonken_token_{port or 0}"

    # -- the checks ------------------------------------------------------------------------
    def check_host(self, req: Request) -> None:
        name, _ = _split_host(req.host)
        if name in self.names:
            return
        if not is_loopback(self.host) and _is_ip(name):
            return  # listening on other addresses: the one the user typed is an address
        raise Refused(f"refused: this server does not answer to the host name {name!r}")

    def check_origin(self, req: Request) -> None:
        if req.method in SAFE_METHODS:
            return
        if req.headers.get("Sec-Fetch-Site", "") in ("cross-site", "same-site"):
            raise Refused("refused: a request from another site")
        origin = req.headers.get("Origin")
        if origin is None:
            return  # not sent by a browser
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() != req.host.lower():
            raise Refused(f"refused: a request from another origin ({origin[:80]})")

    def check_token(self, req: Request, port: int | None) -> None:
        if self.token is None:
            return
        given = (
            req.args.get(TOKEN_PARAM)
            or _bearer(req.headers.get("Authorization", ""))
            or req.cookies.get(self.cookie_name(port))
        )
        if not given or not hmac.compare_digest(given.encode(), self.token.encode()):
            raise Refused(
                "refused: this server wants the token it printed (open the address it printed)"
            )

    def install(self, app: Flask) -> None:
        """Check every request of ``app`` before it is served; the token given in the
        address is kept in a cookie and taken out of the address."""
        app.extensions[GUARD_KEY] = self

        @app.before_request
        def _guard() -> ResponseBase | None:
            port = request.server[1] if request.server else None
            try:
                self.check_host(request)
                self.check_token(request, port)
                self.check_origin(request)
            except Refused as exc:
                resp = jsonify({"error": str(exc)})
                resp.status_code = 403
                return resp
            if self.token is not None and TOKEN_PARAM in request.args and request.path == "/":
                page = redirect("/", code=303)
                page.set_cookie(
                    self.cookie_name(port),
                    self.token,
                    httponly=True,
                    samesite="Lax",
                    path="/",
                )
                return page
            return None


def _bare(host: str) -> str:
    """A host as the Host header names it: lower case, an IPv6 address without brackets."""
    return host.strip("[]").lower()


def _split_host(value: str) -> tuple[str, str]:
    """(name, port) of a Host header; an IPv6 address in brackets loses them."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        return name, rest.lstrip(":")
    name, _, port = value.rpartition(":") if value.count(":") == 1 else (value, "", "")
    return name, port


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _bearer(header: str) -> str:
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() in ("token", "bearer") else ""
