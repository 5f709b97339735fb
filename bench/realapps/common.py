"""What every application of the real-application corpus shares: where its virtual environments live, how one
is made (pinned requirements, one venv per version), free ports on 127.0.0.1 / 127.0.0.2, starting a server in
its own process group and stopping it by pid, and reading a SQLite file.

Nothing here imports the product: the corpus is usable from any checkout (bench/realapps.py --checkout DIR).
The venvs live under $BP_REALAPPS_HOME (default ~/.cache/browserpilot-realapps), outside every checkout, so
several checkouts share one install.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

log = logging.getLogger("realapps")

HOME = Path(os.environ.get("BP_REALAPPS_HOME") or Path.home() / ".cache" / "browserpilot-realapps")
HOSTS = ("127.0.0.1", "127.0.0.2")


def python_for(version: str) -> str:
    """A CPython interpreter of this minor version (`3.10`, `3.11`): on PATH (pyenv, Debian) or an error."""
    pyenv = sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"))
    found = str(pyenv[-1]) if pyenv else shutil.which(f"python{version}")
    if not found:
        raise RuntimeError(f"python{version} is not installed (pyenv install {version}, or apt-get install "
                           f"python{version}-venv)")
    return found


def venv_python(name: str) -> Path:
    return HOME / "venvs" / name / "bin" / "python"


def make_venv(name: str, python: str, requirements: Sequence[str], *, force: bool = False) -> Path:
    """Create the venv `name` with exactly these pinned requirements (once: a stamp file remembers them)."""
    folder = HOME / "venvs" / name
    stamp = folder / ".requirements"
    wanted = "\n".join(requirements) + "\n"
    if not force and stamp.exists() and stamp.read_text() == wanted:
        return folder / "bin" / "python"
    if folder.exists():
        shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([python_for(python), "-m", "venv", str(folder)], check=True)
    pip = [str(folder / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--upgrade", "pip<25", "setuptools<76", "wheel"], check=True)
    subprocess.run([*pip, "install", *requirements], check=True)
    stamp.write_text(wanted)
    return folder / "bin" / "python"


def free_port(host: str) -> int:
    """A port the OS says is free on `host` now (closed again: the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def http_status(url: str, timeout: float = 2.0) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - loopback only
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (urllib.error.URLError, OSError):
        return 0


@dataclass
class Server:
    """One application server: its own process group (it may fork workers), stopped by its pid."""

    name: str
    command: list[str]
    cwd: Path
    env: dict[str, str]
    host: str
    port: int
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, ready_path: str = "/", timeout: float = 90.0,
              ready: Callable[[int], bool] = lambda status: 200 <= status < 500) -> "Server":
        with self.log_path.open("ab") as out:
            self.process = subprocess.Popen(self.command, cwd=self.cwd, env={**os.environ, **self.env},
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: "
                                   f"{self.log_path.read_text(errors='replace')[-2000:]}")
            if ready(http_status(self.base + ready_path)):
                log.info("%s up at %s (pid %d)", self.name, self.base, self.process.pid)
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer on {self.base}{ready_path} within {timeout:.0f} s: "
                           f"{self.log_path.read_text(errors='replace')[-2000:]}")

    def stop(self) -> None:
        """SIGTERM to the server's process group (its pid is the group's id), SIGKILL after 10 s."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def rows(db: Path, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """Rows of a query on an application's SQLite file, read-only, as dicts."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(row) for row in conn.execute(sql, params)]


@contextlib.contextmanager
def temporary_env(**values: str) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def stop_group(process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """SIGTERM the process group we started (its leader's pid is the group's id), SIGKILL after `timeout`."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass
