"""The locator editor of a page node: the primary `selector` / `xpath` and the ordered `alternatives`, with
**Pick** (click an element in an environment window: `page_hit` describes it with a locator and ranked
alternatives) and **Test** (`page_query` on the front tab: the match count, and the matches outlined in the
page for a moment). Only the keys a person edits change; everything else in the locator is kept."""

from __future__ import annotations

import copy
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QPushButton, QVBoxLayout, QWidget)

from app.ui.editor.narrow import narrow_combo, narrow_form

ALTERNATIVE_KINDS = ("role", "testid", "label", "text", "placeholder", "selector", "xpath", "name")


def alternative_label(alternative: dict[str, Any]) -> str:
    if "role" in alternative:
        name = alternative.get("name")
        return f'role={alternative["role"]}' + (f' name="{name}"' if name else "")
    for kind in ALTERNATIVE_KINDS:
        if kind in alternative:
            return f"{kind}={alternative[kind]}"
    return str(alternative)


class LocatorEditor(QWidget):
    changed = Signal(object)      # the new locator dict (or None when cleared)

    def __init__(self, field_name: str, parent: QWidget | None = None, *,
                 pick: Callable[[Callable[[dict[str, Any]], None]], None] | None = None,
                 test: Callable[[dict[str, Any], Callable[[str], None]], None] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"locator-{field_name}")
        self.value: dict[str, Any] = {}
        self._pick, self._test = pick, test
        self._loading = False
        self.selector = QLineEdit(self)
        self.selector.setObjectName("locator-selector")
        self.selector.setPlaceholderText("CSS, text=…, role=button[name=\"…\"], label=…")
        self.xpath = QLineEdit(self)
        self.xpath.setObjectName("locator-xpath")
        self.xpath.setPlaceholderText("/html/body/…")
        self.alternatives = QListWidget(self)
        self.alternatives.setObjectName("locator-alternatives")
        self.alternatives.setMaximumHeight(96)
        self.alternatives.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.alternatives.setTextElideMode(Qt.TextElideMode.ElideMiddle)   # a long one shown in full as a tooltip
        self.alternatives.setToolTip(self.tr("Tried in this order when the selector and XPath do not find the element"))
        self.new_kind = narrow_combo(QComboBox(self))
        self.new_kind.addItems(ALTERNATIVE_KINDS[:-1])
        self.new_value = QLineEdit(self)
        self.new_value.setPlaceholderText(self.tr("value of a new alternative"))
        add = QPushButton(self.tr("Add"), self)
        add.clicked.connect(self._add_alternative)
        remove = QPushButton(self.tr("Remove"), self)
        remove.setObjectName("locator-remove-alternative")
        remove.clicked.connect(self._remove_alternative)
        self.pick_button = QPushButton(self.tr("Pick"), self)
        self.pick_button.setObjectName("locator-pick")
        self.pick_button.setToolTip(self.tr("Click an element in an environment window to fill this locator"))
        self.pick_button.clicked.connect(self._start_pick)
        self.pick_button.setEnabled(pick is not None)
        self.test_button = QPushButton(self.tr("Test"), self)
        self.test_button.setObjectName("locator-test")
        self.test_button.setToolTip(self.tr("Count the matches on the front tab and outline them for a moment"))
        self.test_button.clicked.connect(self._start_test)
        self.test_button.setEnabled(test is not None)
        self.result = QLabel(self)
        self.result.setObjectName("locator-result")
        self.result.setWordWrap(True)
        form = narrow_form(QFormLayout())
        form.addRow(self.tr("Selector:"), self.selector)
        form.addRow(self.tr("XPath:"), self.xpath)
        adding = QHBoxLayout()   # the new alternative's kind and value; under them, Add and Remove
        adding.addWidget(self.new_kind)
        adding.addWidget(self.new_value, 2)
        editing = QHBoxLayout()
        editing.addWidget(add)
        editing.addWidget(remove)
        editing.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.pick_button)
        buttons.addWidget(self.test_button)
        buttons.addWidget(self.result, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(QLabel(self.tr("Alternatives:"), self))
        layout.addWidget(self.alternatives)
        layout.addLayout(adding)
        layout.addLayout(editing)
        layout.addLayout(buttons)
        self.selector.textChanged.connect(lambda text: self._edit("selector", text))
        self.xpath.textChanged.connect(lambda text: self._edit("xpath", text))

    def set_value(self, value: Any) -> None:
        self._loading = True
        self.value = copy.deepcopy(value) if isinstance(value, dict) else \
            ({"selector": value} if isinstance(value, str) else {})
        for edit, key in ((self.selector, "selector"), (self.xpath, "xpath")):
            text = str(self.value.get(key) or "")
            if edit.text() != text:
                edit.setText(text)
        self.alternatives.clear()
        for alternative in self.value.get("alternatives") or []:
            item = QListWidgetItem(alternative_label(alternative) if isinstance(alternative, dict) else str(alternative))
            item.setToolTip(item.text())
            self.alternatives.addItem(item)
        self._loading = False

    def _emit(self) -> None:
        self.changed.emit(copy.deepcopy(self.value) if self.value else None)

    def _edit(self, key: str, text: str) -> None:
        if self._loading:
            return
        if text:
            self.value[key] = text
        else:
            self.value.pop(key, None)
        self._emit()

    def _add_alternative(self) -> None:
        text = self.new_value.text().strip()
        if not text:
            return
        kind = self.new_kind.currentText()
        alternative = {"role": text.split(" ", 1)[0], "name": text.split(" ", 1)[1]} if kind == "role" and " " in text \
            else {kind: text}
        self.value = {**self.value, "alternatives": [*(self.value.get("alternatives") or []), alternative]}
        self.new_value.clear()
        self._emit()

    def _remove_alternative(self) -> None:
        row = self.alternatives.currentRow()
        alternatives = list(self.value.get("alternatives") or [])
        if 0 <= row < len(alternatives):
            alternatives.pop(row)
            if alternatives:
                self.value["alternatives"] = alternatives
            else:
                self.value.pop("alternatives", None)
            self._emit()

    def _start_pick(self) -> None:
        if self._pick is None:
            return
        self.result.setText(self.tr("Click the element in an environment window…"))
        self._pick(self.apply_picked)

    def apply_picked(self, locator: dict[str, Any]) -> None:
        """Fill from a picked element's locator (`page_hit`'s): its selector, XPath, alternatives and fingerprint
        (what replay heals with); a `prefer` chose among the old alternatives, so it goes."""
        taken = ("selector", "xpath", "alternatives", "fingerprint")
        kept = {k: v for k, v in self.value.items() if k not in (*taken, "prefer")}
        self.value = {**kept, **{k: v for k, v in locator.items() if k in taken and v}}
        self.set_value(self.value)
        self.result.setText(self.tr("Picked."))
        self._emit()

    def _start_test(self) -> None:
        if self._test is not None and self.value:
            self.result.setText(self.tr("Testing…"))
            self._test(self.value, self.result.setText)
