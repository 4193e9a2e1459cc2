"""The tests' own Redis servers are never shared: CI once saw a test take the server
another test process had just started on the same port, then lose it when that test ended."""

from __future__ import annotations

import pytest

from tests.redis_helpers import RedisServer

pytestmark = pytest.mark.redis


def test_a_port_another_test_redis_holds_is_not_taken_for_ones_own(tmp_path):
    first = RedisServer(tmp_path / "first").start()
    second = RedisServer(tmp_path / "second")
    second.port = first.port  # as when two processes pick the same free port at once
    try:
        second.start()
        assert second.port != first.port
        answering = int(second.client().info("server")["process_id"])
        assert second.proc is not None and answering == second.proc.pid
    finally:
        second.kill()
        first.kill()


def test_a_restart_keeps_the_port_its_clients_know(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    try:
        port = server.port
        server.client().set("k", "v")
        server.shutdown_nosave()
        server.start()
        assert server.port == port and server.client().get("k") is None
    finally:
        server.kill()
