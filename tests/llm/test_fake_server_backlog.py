"""The fake endpoint takes a burst of connections at once, as a real provider's front end does."""

from __future__ import annotations

import socket

from tests.llm.fake_openai_server import FakeOpenAIServer

BURST = 64


def test_a_burst_of_connections_is_queued_before_any_is_accepted() -> None:
    server = FakeOpenAIServer()  # listening, but not serving yet: nothing accepts
    host, port = server._httpd.server_address[:2]
    opened: list[socket.socket] = []
    try:
        for _ in range(BURST):
            # With socketserver's default backlog of 5, the kernel drops the 7th SYN and this connect times out.
            opened.append(socket.create_connection((str(host), port), timeout=0.5))
        assert len(opened) == BURST
    finally:
        for connection in opened:
            connection.close()
        server._httpd.server_close()
