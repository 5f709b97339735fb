"""Disk access made on the Qt thread (the main thread), caught with Python's audit hooks (`sys.addaudithook`).

`qt_thread_disk(watched)` records, while its block runs, every file write, deletion, move, folder creation or
removal that Python code makes on the main thread (`open` for writing or creating, `os.rename`/`replace` (both
audited as `os.rename`)/`remove`/`mkdir`/`rmdir`/`chmod`/`truncate`, `shutil.move`/`copy*`/`rmtree`,
`tempfile.mkstemp`/`mkdtemp`), anywhere; and every file *read* there under the `watched` folders (the data
folder, a file being imported). Allowed, and not recorded: reads elsewhere (the app's code and resources such as resources/js, /proc, the
system's files), bytecode caches (`__pycache__`), and what other threads do (the save manager's writer, a
thread of `in_thread`). What Qt and Chromium do in C++ is not audited.

An audit hook cannot be removed: one is installed, once, and does nothing while no block records.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
WRITING_EVENTS = {"os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.truncate",
                  "os.link", "os.symlink", "shutil.move", "shutil.copyfile", "shutil.copytree", "shutil.rmtree",
                  "tempfile.mkstemp", "tempfile.mkdtemp"}


@dataclass(frozen=True)
class Access:
    event: str
    path: str
    write: bool

    def __str__(self) -> str:
        return f"{'write' if self.write else 'read'} {self.event} {self.path}"


class _Recording:
    def __init__(self, watched: Sequence[Path]) -> None:
        self.watched = [str(Path(folder).resolve()) for folder in watched]
        self.accesses: list[Access] = []


_recordings: list[_Recording] = []
_installed = False


def _path(value: Any) -> str | None:
    if isinstance(value, int):  # an fd: its open was seen already
        return None
    try:
        text = os.fsdecode(value)
    except TypeError:
        return None
    return os.path.abspath(text)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _recordings or threading.current_thread() is not threading.main_thread():
        return
    if event == "open":
        path = _path(args[0])
        mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
        write = bool(mode and any(c in str(mode) for c in "wax+"))
        write = write or bool(isinstance(flags, int) and flags & WRITE_FLAGS)
    elif event in WRITING_EVENTS:
        path = _path(args[0]) if args else None
        write = True
    else:
        return
    if path is None or "__pycache__" in path:
        return
    for recording in _recordings:
        if write or any(path == root or path.startswith(root + os.sep) for root in recording.watched):
            recording.accesses.append(Access(event, path, write))


@contextlib.contextmanager
def qt_thread_disk(watched: Sequence[Path] = ()) -> Iterator[list[Access]]:
    """The disk access the main thread makes in the block (see the module docstring)."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    recording = _Recording(watched)
    _recordings.append(recording)
    try:
        yield recording.accesses
    finally:
        _recordings.remove(recording)
