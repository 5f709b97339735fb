"""Issue 35: the GUI's one way of following the stores (app/ui/follow.py): a store changed on any thread reaches
the Qt thread, a burst of changes comes as one delivery, and a window that is hidden reads nothing until it is
shown again. Real Qt (offscreen), no app: the feed and the bridge alone."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.ui.follow import Changed, StoreSignals
from plumbing.changes import StoreChanges


def test_changes_from_a_worker_thread_arrive_on_the_qt_thread_together(qtbot: QtBot, qapp: QApplication) -> None:
    feed = StoreChanges()
    signals = StoreSignals(feed)
    deliveries: list[tuple[str, Changed]] = []
    signals.changed.connect(lambda changed: deliveries.append((threading.current_thread().name, changed)))

    def write() -> None:
        for n in range(200):
            feed.publish("runs", "updated", f"run-{n}")
        feed.publish("settings", "updated")

    worker = threading.Thread(target=write, name="a-worker")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(deliveries) and "settings" in deliveries[-1][1], timeout=5_000)
    assert {name for name, _changed in deliveries} == {threading.main_thread().name}
    assert len(deliveries) <= 2  # a burst is delivered together, not once per change
    runs = set().union(*(changed.of("runs") for _name, changed in deliveries))
    assert runs == {f"run-{n}" for n in range(200)}
    assert deliveries[-1][1].of("settings") == {None}
    signals.close()


def test_a_hidden_window_reads_when_it_is_shown_again(qtbot: QtBot, qapp: QApplication) -> None:
    feed = StoreChanges()
    signals = StoreSignals(feed)
    window = QWidget()
    qtbot.addWidget(window)
    reads: list[Changed] = []
    seen: list[Any] = []
    signals.follow(window, ("workflows",), reads.append)
    signals.changed.connect(seen.append)
    window.show()
    qtbot.waitExposed(window)
    feed.publish("workflows", "created", "wf-1")
    feed.publish("runs", "created", "run-1")  # not followed here
    qtbot.waitUntil(lambda: len(reads) == 1)
    assert reads[0].of("workflows") == {"wf-1"}
    window.hide()
    feed.publish("workflows", "deleted", "wf-1")
    feed.publish("workflows", "created", "wf-2")
    qtbot.waitUntil(lambda: len(seen) == 2)
    assert len(reads) == 1  # hidden: nothing is read
    window.show()
    qtbot.waitUntil(lambda: len(reads) == 2)
    assert reads[1].of("workflows") == {"wf-1", "wf-2"}
    signals.close()
