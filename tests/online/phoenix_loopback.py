"""``python tests/online/phoenix_loopback.py serve``: Phoenix's server with every port on 127.0.0.1.

Phoenix binds its OTLP gRPC port on all interfaces (``[::]``, in ``phoenix/server/grpc_server.py``) and has no
setting for that address, only for its HTTP host. Tests must listen on loopback only, so this launcher makes the
gRPC server it creates bind 127.0.0.1 instead, then runs Phoenix's own entry point unchanged.
"""

from __future__ import annotations

import runpy
from typing import Any

import grpc.aio

_make_server = grpc.aio.server


def _loopback_server(*args: Any, **kwargs: Any) -> Any:
    server = _make_server(*args, **kwargs)
    for name in ("add_insecure_port", "add_secure_port"):
        bind = getattr(server, name)

        def on_loopback(address: str, *rest: Any, _bind: Any = bind) -> Any:
            host, _, port = address.rpartition(":")
            if host in ("[::]", "0.0.0.0", ""):
                address = f"127.0.0.1:{port}"
            return _bind(address, *rest)

        setattr(server, name, on_loopback)
    return server


grpc.aio.server = _loopback_server

if __name__ == "__main__":
    runpy.run_module("phoenix.server.main", run_name="__main__", alter_sys=True)
