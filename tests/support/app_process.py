"""Running the real app (`browserpilot`) as a subprocess on a temporary data folder."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import psutil


def app_command() -> list[str]:
    script = Path(sys.executable).with_name("browserpilot")
    return [str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]


def app_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BROWSERPILOT_HOME", "QT_QPA_PLATFORM")}
    env.update(extra)
    return env


def run_cli(data_dir: Path, *args: str, timeout: float = 60, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*app_command(), "--data-dir", str(data_dir), *args], capture_output=True, text=True,
                          timeout=timeout, env=env or app_env(), stdin=subprocess.DEVNULL)


@contextlib.contextmanager
def app_on_desktop(data_dir: Path, desktop_env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The app with its windows on a test desktop (tests/support/desktop.py), its output in `log`; ended
    (SIGTERM, then SIGKILL after 30 s) when the block ends."""
    with log.open("wb") as output:
        process = subprocess.Popen([*app_command(), "--data-dir", str(data_dir)], stdout=output, stderr=output,
                                   stdin=subprocess.DEVNULL, env=app_env(**desktop_env, QTWEBENGINE_DISABLE_SANDBOX="1",
                                                                         BROWSERPILOT_LANG="en"))
    try:
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class AppProcess:
    """`browserpilot --headless` on a data folder; `stop()` ends it the way a desktop session would (SIGTERM)."""

    def __init__(self, data_dir: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [*app_command(), "--data-dir", str(data_dir), "--headless", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=app_env(), stdin=subprocess.DEVNULL,
        )

    def children(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def stop(self, timeout: float = 30) -> tuple[int, str]:
        """SIGTERM, wait, and check that no renderer or helper process outlived the app."""
        children = self.children()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            _out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _out, err = self.process.communicate()
            raise AssertionError(f"the app did not stop within {timeout} s after SIGTERM:\n{err}")
        _gone, alive = psutil.wait_procs(children, timeout=5)
        alive = [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
        assert not alive, f"processes left behind after the app stopped: {[p.cmdline()[:1] for p in alive]}"
        return self.process.returncode, err

    def __enter__(self) -> "AppProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@contextmanager
def serving_app(data_dir: Path) -> Iterator[Path]:
    """`browserpilot --headless` on `data_dir` (made here) until the block ends, its MCP endpoint up; then it must
    stop cleanly (exit 0, no traceback, mcp.json saying nobody serves it)."""
    from app.mcp.client import wait_for_endpoint
    from plumbing.datadir import DataDir

    data_dir.mkdir(parents=True)
    with AppProcess(data_dir) as app:
        wait_for_endpoint(DataDir(data_dir), timeout=90)
        yield data_dir
        rc, err = app.stop()
    assert rc == 0, err
    assert "Traceback" not in err, err
    assert json.loads((data_dir / "mcp.json").read_text())["pid"] is None

