"""What the class experiment's tests share."""

from __future__ import annotations

import pytest


@pytest.fixture
def round_trips(monkeypatch):
    """The round trips to Redis this process makes: one per command sent alone, per pipeline,
    per script."""
    import redis

    sent: list[object] = []
    send = redis.connection.AbstractConnection.send_packed_command

    def counted(self, command, *args, **kwargs):
        sent.append(command)
        return send(self, command, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
    return sent
