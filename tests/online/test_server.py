"""Under a real ASGI server (uvicorn): requests submit on the server's event loop, scoring happens elsewhere."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import httpx
import pytest

from ragmetrics_core.online import CallbackEmitter, EvaluationRecord, OnlinePipeline, SamplingDecision
from ragmetrics_core.online.types import Origin
from tests.online.conftest import paris_draft
from tests.online.judges import ScriptedJudge
from tests.servers import free_port

uvicorn = pytest.importorskip("uvicorn", reason="uvicorn comes with the e2e extra: pip install -e '.[e2e]'")
pytestmark = pytest.mark.slow

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def test_submissions_from_an_asgi_app_are_scored_off_its_event_loop(
    make_online: Callable[..., OnlinePipeline],
) -> None:
    records: list[EvaluationRecord] = []
    online = make_online(
        judge=ScriptedJudge(delay_s=0.25), emitters=[CallbackEmitter(records.append)], concurrency=40
    )
    handler_times: list[float] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        started = time.perf_counter()
        decision = online.submit(paris_draft(), Origin(framework="asgi", run_id=scope["path"].strip("/")))
        handler_times.append(time.perf_counter() - started)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": decision.value.encode()})

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)

        async def hit_concurrently() -> list[str]:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
                responses = await asyncio.gather(*(client.get(f"/req-{i}") for i in range(40)))
            return [response.text for response in responses]

        answers = asyncio.run(hit_concurrently())
    finally:
        server.should_exit = True
        thread.join(10)
    assert answers == [SamplingDecision.EVALUATED.value] * 40
    # Every handler returned before a single evaluation (two 250 ms judge calls) could have finished.
    assert max(handler_times) < 0.25
    assert online.flush(30)
    assert sorted(r.sample_id or "" for r in records) == sorted(f"req-{i}" for i in range(40))
    stats = online.stats()
    assert (stats.submitted, stats.completed) == (40, 40) and stats.balanced
