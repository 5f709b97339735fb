"""Atomic file writes (a same-folder temporary file, fsync, `os.replace`, fsync of the folder), moving an
unusable file aside, and moving a file into a folder. Plain Python without pydantic, so the command line's
light paths (`browserpilot mcp` writing `mcp.json`) load nothing heavy; `plumbing.jsonstore` builds its stores on
these. They block on the disk: in the app they run on a worker thread (plumbing/savemanager.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from plumbing.errors import StoreError


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (same-folder temp file, fsync, os.replace, fsync of the folder)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically (same-folder temp file, fsync, os.replace, fsync of the folder)."""
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except OSError as exc:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def move_aside(path: Path) -> Path:
    """Rename an unusable store to `<name>.corrupt-<UTC timestamp>` and return the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
        counter += 1
    os.replace(path, target)
    return target


def move_file(source: Path, target: Path) -> None:
    """Move a file to `target`, making its folder first (to another file system too, as `shutil.move` does)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(source), str(target))
