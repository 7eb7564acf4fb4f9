"""Start the web app on 127.0.0.1 (or the ``--host`` given): a free port or the one asked for,
its address printed, until Ctrl-C or SIGTERM."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import socketserver
import threading
from collections.abc import Callable

from werkzeug.serving import BaseWSGIServer, make_server

from bonken_sim.errors import UserFixableError
from bonken_sim.serve.app import ServeOptions, create_app
from bonken_sim.serve.guard import GUARD_KEY


class PortInUse(UserFixableError, OSError):
    """The port asked for cannot be bound."""


def start(options: ServeOptions, port: int = 0) -> BaseWSGIServer:
    """The server bound to the guard's host and ``port`` (0: a free port), not yet serving."""
    # werkzeug logs every request on stderr; the address line is all a user needs
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app(options)
    host = options.guard.host
    _check_bind(host, port)
    return make_server(host, port, app, threaded=True)


def _check_bind(host: str, port: int) -> None:
    """PortInUse now for an address and port that cannot be bound (werkzeug would print its
    own lines and exit the process instead)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            raise PortInUse(f"cannot listen on {where}: {exc.strerror or exc}") from None


def address(server: BaseWSGIServer) -> str:
    """The address to open: on this machine, or (listening on every address) the one other
    machines reach it by; with the token when the server wants one."""
    host = server.host
    if host in ("0.0.0.0", "::"):
        host = _outward_address(host)
    shown = f"[{host}]" if ":" in host else host
    guard = server.app.extensions[GUARD_KEY]  # type: ignore[attr-defined]
    token = "" if guard.token is None else f"?token={guard.token}"
    return f"http://{shown}:{server.server_port}/{token}"


def _outward_address(wildcard: str) -> str:
    """This machine's address on its network (the one a route out leaves from: no packet is
    sent), else its name."""
    family = socket.AF_INET6 if wildcard == "::" else socket.AF_INET
    probe = "2001:db8::1" if family == socket.AF_INET6 else "192.0.2.1"  # documentation nets
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.connect((probe, 9))
        found = sock.getsockname()[0]
        if not ipaddress.ip_address(found).is_unspecified:
            return str(found)
    return socket.gethostname()


def serve(options: ServeOptions, port: int = 0, ready: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted; ``ready(address)`` once the port is bound."""
    server = start(options, port)
    if ready is not None:
        ready(address(server))
    try:
        # socketserver's loop, not werkzeug's: werkzeug's swallows the KeyboardInterrupt of
        # Ctrl-C and SIGTERM, and the command would end as if nothing had stopped it
        socketserver.BaseServer.serve_forever(server, poll_interval=0.2)
    finally:
        server.server_close()


def serve_in_thread(
    options: ServeOptions, port: int = 0
) -> tuple[BaseWSGIServer, threading.Thread]:
    """The server on a daemon thread (tests, benchmarks); ``server.shutdown()`` stops it."""
    server = start(options, port)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
    )
    thread.start()
    return server, thread
