"""Run a stratus server in a background thread of this process.

Used by tests, benchmarks and consoleagent's stratus adapter: a real Uvicorn server on a free
loopback port, stopped cleanly when asked.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

import uvicorn

from stratus.app import create_app
from stratus.config import Settings
from stratus.runtime import Runtime


class _ThreadedServer(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # signals belong to the main thread's owner
        pass


class _ClosingServer(uvicorn.Server):
    """Closes the runtime once connections are drained: uvicorn re-raises SIGTERM/SIGINT after
    ``serve()`` returns, so code after ``run()`` would never get to store the clock's time."""

    def __init__(self, config: uvicorn.Config, runtime: Runtime) -> None:
        super().__init__(config)
        self.runtime = runtime

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().shutdown(sockets=sockets)
        finally:
            self.runtime.close()


def serve_forever(runtime: Runtime, host: str, port: int) -> None:
    """``stratus serve``: Uvicorn in the foreground until a signal, then a clean close of the runtime."""
    _ClosingServer(uvicorn.Config(create_app(runtime=runtime), host=host, port=port, log_level="warning"), runtime).run()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class ServerHandle:
    url: str
    runtime: Runtime
    _server: _ThreadedServer
    _thread: threading.Thread

    def stop(self, timeout: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=timeout)
        self.runtime.close()


def start_in_thread(settings: Settings, host: str = "127.0.0.1", port: int | None = None,
                    startup_timeout: float = 15.0) -> ServerHandle:
    """Start ``create_app(settings)`` under Uvicorn in a daemon thread; returns once it accepts connections."""
    port = port or free_port(host)
    app = create_app(settings)
    server = _ThreadedServer(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name=f"stratus-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"stratus did not start on {host}:{port}")
        time.sleep(0.02)
    return ServerHandle(f"http://{host}:{port}", app.state.runtime, server, thread)
