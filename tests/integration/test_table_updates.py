"""The panels' tables follow changes row by row ("never a frozen window"): a new record is inserted,
a gone one removed, a changed one redrawn, and the view keeps its selection; only a change of order resets
the model. The Environments table redraws just the environment a page visit changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication, QTableView
from pytestqt.qtbot import QtBot

from app.ui.env_panel import EnvTableModel
from app.ui.table_model import ModelIndex, RowsTableModel, record_table
from plumbing.datadir import DataDir
from envs.store import EnvStore


class Rows(RowsTableModel[dict[str, Any]]):
    columns = ("Key", "Text")

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__()
        self._rows = list(rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index.row())
        if row is None or role != Qt.ItemDataRole.DisplayRole:
            return None
        return row["key"] if index.column() == 0 else row["text"]


class Signals:
    """What the model told its views."""

    def __init__(self, model: RowsTableModel[Any]) -> None:
        self.resets = 0
        self.inserted: list[int] = []
        self.removed: list[int] = []
        self.changed: list[int] = []
        model.modelReset.connect(lambda: setattr(self, "resets", self.resets + 1))
        model.rowsInserted.connect(lambda _parent, first, _last: self.inserted.append(first))
        model.rowsRemoved.connect(lambda _parent, first, _last: self.removed.append(first))
        model.dataChanged.connect(lambda top, _bottom, _roles=(): self.changed.append(top.row()))


def shown(table: QTableView) -> list[str]:
    model = table.model()
    return [f"{model.index(r, 0).data()}:{model.index(r, 1).data()}" for r in range(model.rowCount())]


def selected(table: QTableView) -> str | None:
    rows = table.selectionModel().selectedRows()
    return rows[0].data() if rows else None


def row(key: str, text: str = "") -> dict[str, Any]:
    return {"key": key, "text": text or key}


def test_new_gone_and_changed_rows_update_in_place_and_the_selection_stays(qapp: QApplication) -> None:
    model = Rows([row("b"), row("c"), row("d")])
    table = record_table(None, model, "rows")  # type: ignore[arg-type]
    table.selectRow(0)
    assert selected(table) == "b"
    signals = Signals(model)
    # A run started (new row on top), the oldest was evicted, and b ended: b stays selected.
    model.replace_rows([row("a"), row("b", "b ended"), row("c")], key=lambda r: r["key"])
    assert shown(table) == ["a:a", "b:b ended", "c:c"]
    assert selected(table) == "b"
    assert (signals.resets, signals.inserted, signals.removed, signals.changed) == (0, [0], [2], [1])
    # The same rows again (a refresh with nothing new): nothing is redrawn.
    model.replace_rows([row("a"), row("b", "b ended"), row("c")], key=lambda r: r["key"])
    assert (signals.resets, signals.inserted, signals.removed, signals.changed) == (0, [0], [2], [1])
    # Another order (a rename moved a workflow in the sorted list): one reset.
    model.replace_rows([row("c"), row("a"), row("b", "b ended")], key=lambda r: r["key"])
    assert shown(table) == ["c:c", "a:a", "b:b ended"] and signals.resets == 1
    model.replace_rows([], key=lambda r: r["key"])
    assert shown(table) == [] and model.rowCount(QModelIndex()) == 0


def test_a_visit_redraws_only_that_environments_row(qtbot: QtBot, qapp: QApplication, data_dir: Path) -> None:
    """The model follows the store's change feed on the Qt thread (app/ui/follow.py), as the panel wires it."""
    from app.ui.follow import StoreSignals

    store = EnvStore(DataDir(data_dir))
    first = store.create("First")
    second = store.create("Second")
    model = EnvTableModel(store)
    table = record_table(None, model, "environments")  # type: ignore[arg-type]
    signals = Signals(model)
    deliveries: list[Any] = []
    follow = StoreSignals(store.changes)
    follow.changed.connect(lambda changed: (deliveries.append(changed), model.follow(changed.of("envs"))))
    row_of_second = model.row_of(second.id)
    table.selectRow(model.row_of(first.id))
    assert store.record_visit(second.id, "https://shop.example/cart")
    qtbot.waitUntil(lambda: len(deliveries) == 1)
    sites = model.index(row_of_second, 2).data()
    assert sites.startswith("shop.example")
    assert (signals.resets, signals.changed) == (0, [row_of_second])
    assert model.index(model.row_of(first.id), 2).data() == ""
    # Created and deleted environments are inserted and removed; the selection stays on its environment.
    third = store.create("Third")
    qtbot.waitUntil(lambda: model.row_of(third.id) >= 0)
    assert signals.resets == 0 and signals.inserted == [model.row_of(third.id)]
    store.delete(third.id)
    qtbot.waitUntil(lambda: model.row_of(third.id) == -1)
    assert signals.resets == 0 and signals.removed
    assert model.env_at(table.selectionModel().selectedRows()[0].row()).id == first.id  # type: ignore[union-attr]
    follow.close()
    table.deleteLater()
