"""The side panel's form for the selected node, generated from its type's model (`workflows.nodes`): one
row per field with its default as a placeholder and its description as help. Text fields complete
templates; locators get the locator editor; the nested fields of flow and code nodes get structured editors
(the structured fields their classes declare); other lists and objects are edited as JSON (applied when valid).
Each change is one `set_field` on the controller: a field not touched is never rewritten, and the fields
the model does not know are listed as kept."""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Callable, Literal, Union

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QLabel, QLineEdit, QPlainTextEdit, QVBoxLayout,
                               QWidget)

from app.ui.editor.controller import EditorController
from app.ui.editor.locator_editor import LocatorEditor
from app.ui.editor.model import MISSING
from app.ui.editor.narrow import narrow_combo, narrow_form
from app.ui.editor.structured import RecordList, spec_of
from app.ui.editor.templates import TemplateCompleter, reachable_variables
from app.ui.node_kinds import field_label, kind_label, kind_summary
from app.ui.theme import current_scheme
from workflows.nodes import NODE_TYPES, NodeLocator
from workflows.nodes.structured import Spec, from_items, to_items

MULTILINE = {"source", "code", "body", "headers", "message", "params"}
SKIPPED = {"type", "nodes", "edges"}
def invalid_style() -> str:
    """The frame of a JSON field whose text is not valid JSON, in the scheme's danger colour."""
    return f"border: 1px solid {current_scheme().danger}"


def field_kind(annotation: Any) -> tuple[str, tuple[Any, ...]]:
    """text | number | bool | choice | locator | json, and the choices of a Literal."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        kinds = [field_kind(a) for a in args]
        names = {k for k, _ in kinds}
        if names <= {"number"} or names == {"number", "text"}:
            return ("number" if names == {"number"} else "text"), ()
        if len(kinds) == 1:
            return kinds[0]
        return "json", ()
    if origin is Literal:
        return "choice", typing.get_args(annotation)
    if annotation is bool:
        return "bool", ()
    if annotation in (int, float):
        return "number", ()
    if annotation is str:
        return "text", ()
    if isinstance(annotation, type) and issubclass(annotation, NodeLocator):
        return "locator", ()
    return "json", ()


def _help(model: type, name: str, field: FieldInfo) -> str:
    if field.description:
        return field.description
    doc = (model.__doc__ or "").strip()
    return doc if name in doc else ""


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


class NodeForm(QWidget):
    """The form of one node; `refresh()` follows the model (after an undo, say) without rebuilding."""

    def __init__(self, controller: EditorController, node_id: str, parent: QWidget | None = None, *,
                 pick: Callable[..., None] | None = None, test: Callable[..., None] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("node-form")
        self.controller, self.node_id = controller, node_id
        self.model = controller.model
        self._loading = False
        self.editors: dict[str, QWidget] = {}
        self._setters: dict[str, Callable[[Any], None]] = {}
        data = self.model.node(node_id)["data"]
        kind = str(data.get("type"))
        node_model = NODE_TYPES.get(kind)
        layout = QVBoxLayout(self)
        header = QLabel(f"<b>{node_id}</b> · {kind_label(kind)}", self)
        header.setObjectName("node-form-header")
        header.setWordWrap(True)
        layout.addWidget(header)
        summary = kind_summary(kind)
        if summary:
            about = QLabel(summary, self)
            about.setWordWrap(True)
            about.setObjectName("node-form-about")
            about.setForegroundRole(QPalette.ColorRole.PlaceholderText)   # secondary text, in either scheme
            layout.addWidget(about)
        form = narrow_form(QFormLayout())
        layout.addLayout(form)
        known: set[str] = set()
        if node_model is None:
            unknown_type = QLabel(self.tr("The type {kind} is not known here: its fields are kept as they are.").format(
                kind=repr(kind)), self)
            unknown_type.setWordWrap(True)
            form.addRow(unknown_type)
        else:
            for name, field in node_model.model_fields.items():
                known.add(name)
                if name in SKIPPED:
                    continue
                editor = self._editor(kind, name, field, pick, test)
                label = QLabel(self.tr("{field}{required}:").format(
                    field=field_label(name), required="*" if field.is_required() else ""), self)
                label.setToolTip(f"{name}: {_help(node_model, name, field)}")
                editor.setToolTip(_help(node_model, name, field))
                form.addRow(label, editor)
        unknown = [key for key in data if key not in known and key not in SKIPPED]
        self.kept = QLabel(self.tr("Kept as they are: {keys}").format(keys=", ".join(unknown)) if unknown else "", self)
        self.kept.setObjectName("node-form-kept")
        self.kept.setWordWrap(True)
        layout.addWidget(self.kept)
        layout.addStretch(1)
        self.refresh()

    def _editor(self, node_type: str, name: str, field: FieldInfo, pick: Any, test: Any) -> QWidget:
        kind, choices = field_kind(field.annotation)
        default = field.default if field.default not in (PydanticUndefined, None) else None
        spec = spec_of(node_type, name)
        if spec is not None:
            editor = RecordList(spec, lambda: reachable_variables(self.model, self.node_id), self, pick=pick,
                                test=test, object_name=f"field-{name}")
            editor.changed.connect(lambda items, part, n=name, s=spec: self._apply_items(s, n, items, part))
            self._setters[name] = lambda value, e=editor, s=spec: e.set_value(
                to_items(s, None if value is MISSING else value))
            self.editors[name] = editor
            return editor
        if kind == "locator":
            editor = LocatorEditor(name, self, pick=pick, test=test)
            editor.changed.connect(lambda value, n=name: self._apply(n, MISSING if value is None else value))
            self._setters[name] = editor.set_value
        elif kind == "bool":
            editor = QCheckBox(self)
            editor.toggled.connect(lambda on, n=name: self._apply(n, on))
            self._setters[name] = lambda value, e=editor: e.setChecked(bool(value))
        elif kind == "choice":
            editor = narrow_combo(QComboBox(self))
            editor.addItem("" if default is None else self.tr("(default: {value})").format(value=default), MISSING)
            for choice in choices:
                editor.addItem(str(choice), choice)
            editor.currentIndexChanged.connect(lambda _i, n=name, e=editor: self._apply(n, e.currentData()))
            self._setters[name] = lambda value, e=editor: e.setCurrentIndex(max(0, e.findData(value))
                                                                             if value is not MISSING else 0)
        elif kind == "json":
            editor = QPlainTextEdit(self)
            editor.setMaximumHeight(110)
            editor.setPlaceholderText(self.tr("JSON (default: {value})").format(value=json.dumps(default))
                                      if default not in (None, [], {}) else self.tr("JSON"))
            editor.textChanged.connect(lambda n=name, e=editor: self._apply_json(n, e))
            self._setters[name] = lambda value, e=editor: e.setPlainText(
                "" if value is MISSING else json.dumps(value, ensure_ascii=False, indent=1))
        elif name in MULTILINE:
            editor = QPlainTextEdit(self)
            editor.setMaximumHeight(140)
            editor.textChanged.connect(lambda n=name, e=editor: self._apply_text(n, e.toPlainText(), field))
            self._setters[name] = lambda value, e=editor: e.setPlainText("" if value is MISSING else str(value))
        else:
            editor = QLineEdit(self)
            if default is not None:
                editor.setPlaceholderText(self.tr("default: {value}").format(value=default))
            editor.textChanged.connect(lambda text, n=name, k=kind: self._apply_text(n, text, field, number=k == "number"))
            self._setters[name] = lambda value, e=editor: e.setText("" if value is MISSING else str(value))
            if kind == "text":
                editor.completer_helper = TemplateCompleter(editor, lambda: reachable_variables(self.model, self.node_id))
        editor.setObjectName(f"field-{name}")
        self.editors[name] = editor
        return editor

    def refresh(self) -> None:
        """Show the model's values (without emitting edits)."""
        if not self.model.has_node(self.node_id):
            return
        data = self.model.node(self.node_id)["data"]
        self._loading = True
        try:
            for name, setter in self._setters.items():
                value = data.get(name, MISSING)
                editor = self.editors[name]
                if isinstance(editor, QLineEdit) and editor.text() == ("" if value is MISSING else str(value)):
                    continue
                if isinstance(editor, QPlainTextEdit) and editor.hasFocus():
                    continue  # the person is typing there: what they typed is the value
                setter(value)
        finally:
            self._loading = False

    def _apply(self, name: str, value: Any) -> None:
        if not self._loading:
            self.controller.set_field(self.node_id, name, value)

    def _apply_items(self, spec: Spec, name: str, items: list[dict[str, Any]], part: str) -> None:
        """A structured field's new records; an added or removed item (`part` empty) is a step of its own."""
        if not self._loading:
            value = from_items(spec, items)
            self.controller.set_field(self.node_id, name, MISSING if value is None else value,
                                      mergeable=bool(part), part=part)

    def _apply_text(self, name: str, text: str, field: FieldInfo, number: bool = False) -> None:
        if self._loading:
            return
        if not text and not field.is_required():
            value: Any = MISSING
        else:
            value = _number(text) if number and text.strip() else text
        self._apply(name, value)

    def _apply_json(self, name: str, editor: QPlainTextEdit) -> None:
        if self._loading:
            return
        text = editor.toPlainText().strip()
        if not text:
            editor.setStyleSheet("")
            self._apply(name, MISSING)
            return
        try:
            value = json.loads(text)
        except ValueError:
            editor.setStyleSheet(invalid_style())
            return
        editor.setStyleSheet("")
        self._apply(name, value)
