"""The command line's batch progress bar: drawn on a terminal (a real pseudo-terminal here), silent on a pipe
and with --quiet, with the rows done / failed / left and the time left."""

from __future__ import annotations

import io
import os
import select
import pty
from typing import Iterator

import pytest

from app.cli.workflows import ProgressBar


@pytest.fixture
def terminal() -> Iterator[tuple[io.TextIOWrapper, int]]:
    """The writing end of a pseudo-terminal (what stderr is in a person's shell) and the reading end."""
    master, slave = pty.openpty()
    stream = io.TextIOWrapper(os.fdopen(slave, "wb", buffering=0), encoding="utf-8", write_through=True)
    try:
        yield stream, master
    finally:
        stream.close()
        os.close(master)


def read_all(master: int) -> str:
    """Everything written to the terminal so far: one read of a pty may return only part of it."""
    chunks = []
    while select.select([master], [], [], 0)[0]:
        chunks.append(os.read(master, 65536))
    return b"".join(chunks).decode("utf-8")


def counts(done: int, ok: int, failed: int, total: int = 4) -> dict[str, int]:
    return {"total": total, "done": done, "succeeded": ok, "failed": failed}


def test_on_a_terminal_the_bar_is_redrawn_as_rows_end(terminal: tuple[io.TextIOWrapper, int]) -> None:
    stream, master = terminal
    now = [100.0]
    bar = ProgressBar(stream=stream, clock=lambda: now[0])
    assert bar.enabled
    bar(counts(0, 0, 0))
    now[0] += 10  # one row took 10 s: three left, about 30 s
    bar(counts(1, 1, 0))
    now[0] += 10
    bar(counts(2, 1, 1))
    bar(counts(4, 3, 1))
    shown = read_all(master)
    lines = shown.split("\r")[1:]
    assert lines[0].startswith("[" + "." * ProgressBar.WIDTH + "] 0/4  ok 0  failed 0  left 4")
    assert "] 1/4  ok 1  failed 0  left 3  about 30 s left" in lines[1]
    assert "] 2/4  ok 1  failed 1  left 2  about 20 s left" in lines[2]
    assert lines[3].startswith("[" + "#" * ProgressBar.WIDTH + "] 4/4  ok 3  failed 1  left 0")
    assert shown.endswith("\n")  # the last line is ended: what follows starts on its own line


def test_quiet_draws_nothing_even_on_a_terminal(terminal: tuple[io.TextIOWrapper, int]) -> None:
    stream, master = terminal
    bar = ProgressBar(quiet=True, stream=stream)
    bar(counts(1, 1, 0))
    bar.finish()
    stream.write("end")
    assert read_all(master) == "end"


def test_a_pipe_gets_no_bar() -> None:
    read, write = os.pipe()
    stream = io.TextIOWrapper(os.fdopen(write, "wb", buffering=0), encoding="utf-8", write_through=True)
    try:
        bar = ProgressBar(stream=stream)
        assert not bar.enabled
        bar(counts(1, 1, 0))
        stream.write("end")
        assert os.read(read, 100) == b"end"
    finally:
        stream.close()
        os.close(read)


def test_a_batch_that_stops_early_ends_its_line(terminal: tuple[io.TextIOWrapper, int]) -> None:
    stream, master = terminal
    bar = ProgressBar(stream=stream)
    bar(counts(1, 1, 0))
    bar.finish()
    assert read_all(master).endswith("\n")
