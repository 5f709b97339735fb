"""Structured editors for the nested fields of the side panel, instead of raw JSON: the fields a node type
declares as structured (`workflows.nodes.structured`; today if-else `cases` with their `conditions`, start
`variables`, end `outputs`, a loop's `until` condition and code/script `variables` and `outputs`). A
`RecordList` edits a list of records (one row of small editors per item, with Add and Remove); each change
emits the whole new list, which the form applies as one `set_field` (so it is undoable like any field edit).
Items are edited as copies of what is saved: only the keys a person touches change, unknown keys inside an
item survive. Value selectors are picked from the variables reachable from
the node (`templates.reachable_variables`), or typed as `node.key`. With each list goes the place that
changed (`0.value`; empty for an added or removed item), so a burst of typing merges only within one place."""

from __future__ import annotations

import copy
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QFrame, QHBoxLayout, QLineEdit, QPushButton,
                               QVBoxLayout, QWidget)

from app.ui.editor.locator_editor import LocatorEditor
from app.ui.editor.narrow import narrow_combo, narrow_form
from app.ui.node_kinds import field_label
from workflows.nodes import NODE_TYPES
from workflows.nodes.conditions import CONDITION_FIELDS
from workflows.nodes.structured import NAME_KEY, Spec, Sub


def spec_of(node_type: str, name: str) -> Spec | None:
    """The structured field `name` of a node type, as its class declares it (`NodeData.structured_fields`)."""
    model = NODE_TYPES.get(node_type)
    return model.structured_fields.get(name) if model is not None else None


def noun_label(noun: str) -> str:
    """What one record of a list is called on its buttons, in the person's language."""
    labels = {"condition": QCoreApplication.translate("RecordList", "condition"),
              "case": QCoreApplication.translate("RecordList", "case"),
              "variable": QCoreApplication.translate("RecordList", "variable"),
              "output": QCoreApplication.translate("RecordList", "output"),
              "item": QCoreApplication.translate("RecordList", "item")}
    return labels.get(noun, noun)


def selector_text(value: Any) -> str:
    return ".".join(str(part) for part in value) if isinstance(value, list) else ""


def selector_value(text: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in text.strip().split(".")] if text.strip() else []


class SelectorPicker(QComboBox):
    """A value selector: the reachable variables to pick from, or a `node.key` path typed in."""

    def __init__(self, variables: Callable[[], list[str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        narrow_combo(self)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.addItems(variables())
        self.setCurrentIndex(-1)


class RecordList(QWidget):
    changed = Signal(object, str)  # the new list of records, the place that changed ("" for add/remove)

    def __init__(self, spec: Spec, variables: Callable[[], list[str]], parent: QWidget | None = None, *,
                 pick: Any = None, test: Any = None, object_name: str = "") -> None:
        super().__init__(parent)
        self.spec, self._variables, self._pick, self._test = spec, variables, pick, test
        self.setObjectName(object_name)
        self.items: list[dict[str, Any]] = []
        self.rows: list[dict[str, QWidget]] = []
        self._loading = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.body = QVBoxLayout()
        layout.addLayout(self.body)
        self.add_button = QPushButton(self.tr("Add {noun}").format(noun=noun_label(spec.noun)), self)
        self.add_button.setObjectName(f"{object_name}-add")
        self.add_button.clicked.connect(self._add)
        layout.addWidget(self.add_button)

    def set_value(self, items: list[dict[str, Any]]) -> None:
        """Show these records (rebuilt only when they differ from what is shown, so typing keeps its place)."""
        if items == self.items and self.rows:
            return
        if items == self.items == []:
            self._update_add()
            return
        self.items = copy.deepcopy(items)
        self._rebuild()

    def _rebuild(self) -> None:
        while self.body.count():
            widget = self.body.takeAt(0).widget()
            if widget is not None:
                widget.hide()
                widget.deleteLater()
        self.rows = []
        self._loading = True
        try:
            for index, item in enumerate(self.items):
                self.body.addWidget(self._row(index, item))
        finally:
            self._loading = False
        self._update_add()

    def _update_add(self) -> None:
        self.add_button.setVisible(self.spec.max_items is None or len(self.items) < self.spec.max_items)

    def _row(self, index: int, item: dict[str, Any]) -> QWidget:
        frame = QFrame(self)
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        frame.setObjectName(f"{self.objectName()}-{index}")
        form = narrow_form(QFormLayout(frame), labels_above=True)
        editors: dict[str, QWidget] = {}
        for sub in self.spec.subs:
            editor = self._sub_editor(index, sub, item, frame)
            editor.setObjectName(f"{self.objectName()}-{index}-{sub.key.strip(chr(0))}")
            editors[sub.key] = editor
            form.addRow(self.tr("{field}:").format(field=self.tr("name") if sub.key == NAME_KEY
                                                   else field_label(sub.key)), editor)
        remove = QPushButton(self.tr("Remove {noun}").format(noun=noun_label(self.spec.noun)), frame)
        remove.setObjectName(f"{self.objectName()}-{index}-remove")
        remove.clicked.connect(lambda _=False, i=index: self._remove(i))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(remove)
        form.addRow(buttons)
        self.rows.append(editors)
        return frame

    def _sub_editor(self, index: int, sub: Sub, item: dict[str, Any], parent: QWidget) -> QWidget:
        value = item.get(sub.key)
        if sub.kind == "bool":
            box = QCheckBox(parent)
            box.setChecked(bool(sub.default if value is None else value))
            box.toggled.connect(lambda on, i=index, s=sub: self._set(i, s, on))
            return box
        if sub.kind == "choice":
            combo = narrow_combo(QComboBox(parent))
            combo.setEditable(True)
            combo.addItems(list(sub.choices))
            combo.setEditText("" if value is None else str(value))
            combo.currentTextChanged.connect(lambda text, i=index, s=sub: self._set(i, s, text))
            return combo
        if sub.kind == "selector":
            picker = SelectorPicker(self._variables, parent)
            picker.setEditText(selector_text(value))
            picker.currentTextChanged.connect(lambda text, i=index, s=sub: self._set(i, s, selector_value(text)))
            return picker
        if sub.kind == "locator":
            editor = LocatorEditor(f"{self.objectName()}-{index}", parent, pick=self._pick, test=self._test)
            editor.set_value(value if isinstance(value, dict) else None)
            editor.changed.connect(lambda located, i=index, s=sub: self._set(i, s, located))
            return editor
        if sub.kind == "conditions":
            inner = RecordList(CONDITION_FIELDS, self._variables, parent, pick=self._pick, test=self._test,
                               object_name=f"{self.objectName()}-{index}-conditions")
            inner.set_value([c if isinstance(c, dict) else {} for c in value] if isinstance(value, list) else [])
            inner.changed.connect(lambda conditions, part, i=index, s=sub: self._set(i, s, conditions, part))
            return inner
        line = QLineEdit(parent)
        if sub.kind == "options":
            line.setPlaceholderText(self.tr("comma-separated"))
            line.setText(", ".join(str(o) for o in value) if isinstance(value, list) else "")
            line.textChanged.connect(lambda text, i=index, s=sub: self._set(
                i, s, [o.strip() for o in text.split(",") if o.strip()] or None))
        else:
            line.setText("" if value is None else str(value))
            line.textChanged.connect(lambda text, i=index, s=sub: self._set(i, s, text))
        return line

    def _set(self, index: int, sub: Sub, value: Any, inner: str | None = None) -> None:
        if self._loading:
            return
        item = self.items[index]
        if sub.optional and value in (None, "", []):
            item.pop(sub.key, None)
        else:
            item[sub.key] = value
        part = "" if inner == "" else f"{index}.{sub.key}" + (f".{inner}" if inner else "")
        self.changed.emit(copy.deepcopy(self.items), part)

    def _add(self) -> None:
        self.items.append(self.spec.new_item())
        self._rebuild()
        self.changed.emit(copy.deepcopy(self.items), "")

    def _remove(self, index: int) -> None:
        del self.items[index]
        self._rebuild()
        self.changed.emit(copy.deepcopy(self.items), "")
