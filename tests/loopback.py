"""Loopback HTTP servers for tests: the stand-ins (OpenAI-protocol servers, a webhook
receiver, a squatter on port 4200) share how they are served and how they answer."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, TypeVar

Server = TypeVar("Server", bound=HTTPServer)


@contextlib.contextmanager
def serving(server: Server) -> Iterator[Server]:
    """Serve on a daemon thread for the block; shut down and closed after it."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def reply_json(handler: BaseHTTPRequestHandler, payload: Any, status: int = 200) -> None:
    """Answer the request with `payload` as a JSON body."""
    body = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
