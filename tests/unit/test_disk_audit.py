"""The Qt-thread disk audit of the tests (tests/support/disk_audit.py) sees what it is meant to see, and only that."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from plumbing.atomic import atomic_write_text
from tests.support.disk_audit import qt_thread_disk


def test_writes_moves_and_deletions_on_the_main_thread_are_recorded(tmp_path: Path) -> None:
    with qt_thread_disk() as accesses:
        atomic_write_text(tmp_path / "a.json", "{}")
        shutil.move(str(tmp_path / "a.json"), str(tmp_path / "b.json"))
        (tmp_path / "b.json").unlink()
        (tmp_path / "folder").mkdir()
    events = [access.event for access in accesses]
    assert {"tempfile.mkstemp", "os.rename", "shutil.move", "os.remove", "os.mkdir"} <= set(events)
    assert all(access.write for access in accesses)


def test_other_threads_and_reads_outside_the_watched_folders_are_not(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x", "utf-8")
    watched = tmp_path / "data"
    watched.mkdir()
    (watched / "store.json").write_text("{}", "utf-8")
    with qt_thread_disk([watched]) as accesses:
        worker = threading.Thread(target=lambda: atomic_write_text(watched / "other.json", "{}"))
        worker.start()
        worker.join()
        outside.read_text("utf-8")
        (watched / "store.json").read_text("utf-8")
    assert [(access.event, Path(access.path).name, access.write) for access in accesses] == \
        [("open", "store.json", False)]
    assert (watched / "other.json").exists()
