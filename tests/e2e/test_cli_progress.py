"""`browserpilot run --rows` draws its progress bar on a terminal: a real app process whose stderr is a
pseudo-terminal, against a local page; with --quiet the same terminal gets no bar."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import threading
from pathlib import Path

import pytest

from tests.support.app_process import app_command, app_env
from tests.support.server import LocalServer, Response

pytestmark = pytest.mark.e2e


def run_on_terminal(data_dir: Path, *args: str, timeout: float = 180) -> tuple[int, str, str]:
    """Run the command line with stderr on a pseudo-terminal; (exit status, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    process = subprocess.Popen([*app_command(), "--data-dir", str(data_dir), *args], env=app_env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:  # read while it runs, so a full terminal buffer never blocks the app
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every writer has closed the terminal
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        stdout, _ = process.communicate(timeout=timeout)
    finally:
        reader.join(timeout=10)
        os.close(master)
    return process.returncode, stdout.decode("utf-8"), b"".join(chunks).decode("utf-8", "replace")


def test_the_batch_bar_shows_on_a_terminal_and_not_with_quiet(data_dir: Path, server: LocalServer,
                                                              tmp_path: Path) -> None:
    server.route("/hello", lambda r: Response(f"<title>Hello</title><h1>Hello {r.arg('who')}</h1>"))
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "who", "type": "string"}]}},
             {"id": "open", "data": {"type": "goto", "url": server.url("/hello") + "?who={{#input.who#}}"}},
             {"id": "end", "data": {"type": "end", "outputs": []}}]
    doc = {"kind": "app", "version": "0.3.0", "app": {"name": "Hello", "mode": "workflow"},
           "workflow": {"environment_variables": [], "conversation_variables": [],
                        "graph": {"nodes": nodes, "edges": [{"source": "start", "target": "open"},
                                                            {"source": "open", "target": "end"}]}}}
    file = tmp_path / "hello.json"
    file.write_text(json.dumps(doc), "utf-8")
    rows = tmp_path / "rows.csv"
    rows.write_text("who\nAnn\nBen\nCid\n", "utf-8")

    status, stdout, terminal = run_on_terminal(data_dir, "run", str(file), "--headless", "--rows", str(rows))
    assert status == 0, terminal
    assert stdout.strip().endswith("3 ok, 0 failed of 3")
    assert "\r[" + "." * 24 + "] 0/3  ok 0  failed 0  left 3" in terminal
    assert "\r[" + "#" * 24 + "] 3/3  ok 3  failed 0  left 0" in terminal

    status, stdout, terminal = run_on_terminal(data_dir, "run", str(file), "--headless", "--rows", str(rows),
                                               "--quiet")
    assert status == 0 and stdout.strip().endswith("3 ok, 0 failed of 3")
    assert "0/3" not in terminal and "\r[" not in terminal
