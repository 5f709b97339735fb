"""The searchable add-node menu (`Space`, a double-click on empty canvas, or a drag from a port to empty
canvas): type to filter the 22 types by name or group, Enter or a click adds the highlighted one."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from app.ui.node_kinds import kind_with_name
from workflows.nodes import NODE_TYPES



def group_name(category: str) -> str:
    """A node category as the menu shows it, in the person's language."""
    names = {"flow": QCoreApplication.translate("NodeMenu", "Flow"),
             "page": QCoreApplication.translate("NodeMenu", "Page"),
             "wait & extract": QCoreApplication.translate("NodeMenu", "Wait & extract"),
             "data & debug": QCoreApplication.translate("NodeMenu", "Data & debug"),
             "people": QCoreApplication.translate("NodeMenu", "People")}
    return names.get(category, category)


class NodeMenu(QFrame):
    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("node-menu")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.search = QLineEdit(self)
        self.search.setObjectName("node-menu-search")
        self.search.setPlaceholderText(self.tr("Add a node: type to search…"))
        self.list = QListWidget(self)
        self.list.setObjectName("node-menu-list")
        for kind, model in NODE_TYPES.items():
            if kind == "start":
                continue
            doc = (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else ""
            item = QListWidgetItem(f"{kind_with_name(kind)}    — {group_name(model.category)}")
            item.setData(Qt.ItemDataRole.UserRole, kind)
            item.setToolTip(doc)
            self.list.addItem(item)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search)
        layout.addWidget(self.list)
        self.resize(280, 360)
        self.search.textChanged.connect(self._filter)
        self.search.installEventFilter(self)
        self.list.itemActivated.connect(self._pick)
        self.list.itemClicked.connect(self._pick)

    def popup(self, at: QPoint) -> None:
        self.search.clear()
        self._filter("")
        self.move(at)
        self.show()
        self.search.setFocus()

    def _filter(self, text: str) -> None:
        words = text.casefold().split()
        first = None
        for row in range(self.list.count()):
            item = self.list.item(row)
            hidden = not all(w in item.text().casefold() for w in words)
            item.setHidden(hidden)
            if not hidden and first is None:
                first = item
        if first is not None:
            self.list.setCurrentItem(first)

    def eventFilter(self, watched: object, event: object) -> bool:
        if isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                item = self.list.currentItem()
                if item is not None and not item.isHidden():
                    self._pick(item)
                return True
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                self.list.keyPressEvent(event)
                return True
        return False

    def _pick(self, item: QListWidgetItem) -> None:
        self.hide()
        self.chosen.emit(str(item.data(Qt.ItemDataRole.UserRole)))
