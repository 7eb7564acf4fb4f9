"""``bonken-sim serve`` as a command: it prints the address it listens on, a port that cannot
be bound is one line and exit status 2, SIGTERM stops it."""

from __future__ import annotations

import socket

from bonken_sim.cli.main import main
from tests.serve.conftest import ServeProcess, call


def test_serve_prints_its_address_and_stops_on_sigterm(tmp_path):
    server = ServeProcess(tmp_path / "state", "--ruleset", "strict")
    try:
        status, config = call(server.base, "GET", "/api/config")
        assert status == 200 and config["default_ruleset"]["name"] == "strict"
        status, page = call(server.base, "GET", "/")
        assert status == 200 and "<title>Bonken</title>" in page
    finally:
        assert server.stop() == 143


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--port", str(port), "--state", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err == f"bonken-sim: error: cannot listen on 127.0.0.1:{port}: Address already in use"
