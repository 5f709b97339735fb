"""A raw TCP server on a loopback address (port 0) for tests that need what an HTTP framework would not send:
held or cut-off responses, hand-written WebSocket handshakes. Each connection is answered on a thread of its
own by the subclass's `answer(conn)`; `close()` stops accepting."""

from __future__ import annotations

import socket
import threading


class RawServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.sock = socket.create_server((host, 0))
        self.port: int = self.sock.getsockname()[1]
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def answer(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def _serve(self) -> None:
        while True:
            try:
                conn, _address = self.sock.accept()
            except OSError:  # closed
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            self.answer(conn)

    def close(self) -> None:
        self.sock.close()
