"""The GUI follows the stores: every change a store publishes (plumbing/changes.py) reaches the Qt thread, and each
panel, list and editor that shows that store reads it again. No Refresh button, no timer per panel.

`StoreSignals` listens to the app's one change feed. A store publishes on whatever thread changed it (the Qt
thread for operations, whether they came from the GUI, MCP, a command the CLI forwarded, an agent or a
schedule; a worker thread for what the app writes off the Qt thread): the listener only notes the change under
a lock and, for the first change of a delivery, queues a call onto the Qt thread (a queued signal). There the
changes of a moment are delivered together, `DELAY_MS` after the first of them (a run writes its record when it
starts and when it ends; an environment records a visit at each page load) and, while changes keep coming (a
batch), at most once per `GAP_MS`: `changed(Changed)`. One timer for the whole GUI.

`follow(widget, stores, refresh)` is how a view follows: `refresh(changed)` is called with the delivery when
one of `stores` changed, while the widget's window is shown. A hidden window (the app in the tray) reads
nothing; the widget is refreshed when it is shown again if what it follows changed meanwhile. Views keep the
person's selection, scroll position and unsaved edits while they follow (`RowsTableModel.replace_rows`; an
editor asks before it drops unsaved edits).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QWidget

from plumbing.changes import StoreChange, StoreChanges, StoreName

DELAY_MS = 60   # after the first change of a delivery
GAP_MS = 600    # between deliveries while changes keep coming (a batch): a panel reads its list at most this often


@dataclass
class Changed:
    """What changed since the last delivery: for each store, the keys of its records that changed (None: the
    store as a whole)."""

    keys: dict[str, set[str | None]] = field(default_factory=dict)

    def __contains__(self, store: object) -> bool:
        return store in self.keys

    def of(self, store: StoreName) -> set[str | None]:
        return self.keys.get(store, set())

    def any_of(self, stores: Iterable[str]) -> bool:
        return any(store in self.keys for store in stores)

    def merge(self, other: "Changed") -> None:
        for store, keys in other.keys.items():
            self.keys.setdefault(store, set()).update(keys)


class StoreSignals(QObject):
    """The change feed brought onto the Qt thread (see the module docstring). Make it on the Qt thread."""

    changed = Signal(object)  # Changed
    _wake = Signal()

    def __init__(self, feed: StoreChanges, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._pending: dict[str, set[str | None]] = {}
        self._armed = False
        self._delivered_at = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._deliver)
        self._wake.connect(self._arm, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe = feed.subscribe(self._note)
        self.destroyed.connect(lambda *_args, stop=self._unsubscribe: stop())

    def close(self) -> None:
        """Stop listening (the app is shutting down)."""
        self._unsubscribe()
        self._timer.stop()

    def follow(self, widget: QWidget, stores: Iterable[StoreName], refresh: Callable[[Changed], None]) -> None:
        """Call `refresh(changed)` when one of `stores` changed (see the module docstring); for as long as
        `widget` lives."""
        _Follower(self, widget, frozenset(stores), refresh)

    def _note(self, change: StoreChange) -> None:
        """(Any thread.) Keep the change; ask the Qt thread to deliver if it has not been asked yet."""
        with self._lock:
            self._pending.setdefault(change.store, set()).add(change.key)
            if self._armed:
                return
            self._armed = True
        if shiboken6.isValid(self):
            self._wake.emit()

    def _arm(self) -> None:
        if not self._timer.isActive():
            since = (time.monotonic() - self._delivered_at) * 1000
            self._timer.start(max(DELAY_MS, int(GAP_MS - since)))

    def _deliver(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
            self._armed = False
        self._delivered_at = time.monotonic()
        if pending:
            self.changed.emit(Changed(pending))


def refill(combo: QComboBox, items: Iterable[tuple[str, object]]) -> None:
    """Show `items` (text, data) in the combo box instead, keeping the person's choice while it is still there."""
    chosen = combo.currentData()
    items = list(items)
    if [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())] == items:
        return
    combo.blockSignals(True)
    combo.clear()
    for text, data in items:
        combo.addItem(text, data)
    index = combo.findData(chosen)
    combo.setCurrentIndex(index if index >= 0 else 0)
    combo.blockSignals(False)
    if index < 0:
        combo.currentIndexChanged.emit(combo.currentIndex())


class _Follower(QObject):
    """One widget following some stores (a child of the widget: it goes with it)."""

    def __init__(self, signals: StoreSignals, widget: QWidget, stores: frozenset[str],
                 refresh: Callable[[Changed], None]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._stores = stores
        self._refresh = refresh
        self._missed: Changed | None = None  # what changed while the window was hidden
        signals.changed.connect(self._on_changed)
        widget.installEventFilter(self)

    def _on_changed(self, changed: Changed) -> None:
        if not changed.any_of(self._stores) or not shiboken6.isValid(self._widget):
            return
        if self._widget.window().isVisible():
            self._refresh(changed)
            return
        if self._missed is None:
            self._missed = Changed()
        self._missed.merge(changed)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Show and self._missed is not None:
            missed, self._missed = self._missed, None
            QTimer.singleShot(0, self, lambda: self._refresh(missed))  # once the show has finished
        return False
