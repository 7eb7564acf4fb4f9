"""Start the web app on 127.0.0.1: a free port or the one asked for, its address printed, until
Ctrl-C or SIGTERM."""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
from collections.abc import Callable

from werkzeug.serving import BaseWSGIServer, make_server

from bonken_sim.errors import UserFixableError
from bonken_sim.serve.app import ServeOptions, create_app

HOST = "127.0.0.1"


class PortInUse(UserFixableError, OSError):
    """The port asked for cannot be bound."""


def start(options: ServeOptions, port: int = 0) -> BaseWSGIServer:
    """The server bound to ``HOST:port`` (0: a free port), not yet serving."""
    # werkzeug logs every request on stderr; the address line is all a user needs
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app(options)
    if port:
        _check_port(port)
    return make_server(HOST, port, app, threaded=True)


def _check_port(port: int) -> None:
    """PortInUse now for a port that cannot be bound (werkzeug would print its own lines
    and exit the process instead)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError as exc:
            raise PortInUse(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from None


def address(server: BaseWSGIServer) -> str:
    return f"http://{HOST}:{server.server_port}/"


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
