"""A real `redis-server` on a free loopback port for tests (no persistence), started and stopped by the test.

`./dev.sh` installs Debian's redis-server when it is missing, so tests never skip for want of it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    def __init__(self, folder: Path, port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is missing: ./dev.sh setup installs it (Debian's redis-server package)"
        self.binary = binary
        self.folder = folder
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10) -> "RedisServer":
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"redis-server exited with {self.process.returncode}"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"redis-server did not answer on port {self.port} within {timeout} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def __enter__(self) -> "RedisServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
