"""A real HTTP server on 127.0.0.1 (port 0) for tests: routes are functions, every request is recorded. A route
that answers with a `Takeover` writes the rest of the exchange itself (a WebSocket, an event stream)."""

from __future__ import annotations

import select
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    connection: socket.socket | None = field(default=None, repr=False, compare=False)

    def arg(self, name: str, default: str = "") -> str:
        return self.query.get(name, [default])[0]

    def client_waiting(self) -> bool:
        """Whether the client still waits for the answer (its end of the connection is open), as a server that
        rolls back what a request did when its client goes away would ask before committing."""
        if self.connection is None:
            return True
        try:
            readable, _w, _x = select.select([self.connection], [], [], 0)
            return not readable or self.connection.recv(1, socket.MSG_PEEK) != b""
        except OSError:
            return False


@dataclass
class Response:
    body: bytes | str = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Takeover:
    """The route answers on the connection itself: `run(request, reader, writer)` (a WebSocket after its
    handshake, an event stream that stays open); the connection closes when it returns."""

    run: Callable[[Request, Any, Any], None]


Route = Callable[[Request], "Response | Takeover"]


class LocalServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def _handle(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(self.command, parts.path, parse_qs(parts.query),
                                  {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length),
                                  self.connection)
                with server._lock:
                    server.requests.append(request)
                route = server.routes.get(parts.path)
                response = route(request) if route else Response("not found", status=404, content_type="text/plain")
                if isinstance(response, Takeover):
                    self.close_connection = True
                    response.run(request, self.rfile, self.wfile)
                    return
                body = response.body.encode("utf-8") if isinstance(response.body, str) else response.body
                self.send_response(response.status)
                self.send_header("Content-Type", response.content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for name, value in response.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _handle

            def __getattr__(self, name: str) -> Any:  # any other method (PUT, PATCH, PROPFIND, …)
                if name.startswith("do_"):
                    return self._handle
                raise AttributeError(name)

        self._httpd = ThreadingHTTPServer((host, 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.host = host
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def ignore_disconnects(self) -> None:
        """Say nothing when a client goes away mid-request (a page whose renderer or process was killed)."""
        default = self._httpd.handle_error

        def handle_error(request: Any, address: Any) -> None:
            if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
                default(request, address)

        self._httpd.handle_error = handle_error  # type: ignore[method-assign]

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def route(self, path: str, body: bytes | str | Route, **kwargs: object) -> None:
        if callable(body):
            self.routes[path] = body
        else:
            response = Response(body, **kwargs)  # type: ignore[arg-type]
            self.routes[path] = lambda request: response

    def hits(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def wait_for(self, path: str, count: int = 1, timeout: float = 20.0) -> list[Request]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.hits(path)
            if len(found) >= count:
                return found
            time.sleep(0.02)
        raise AssertionError(f"the server did not receive {count} request(s) for {path} within {timeout} s; "
                             f"it saw {[r.path for r in self.requests]}")

    def __enter__(self) -> "LocalServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
