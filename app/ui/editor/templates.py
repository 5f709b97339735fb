"""Template autocomplete: the variables a node can read (`sys`, `env`, `input`, `loop` inside a body, and the
outputs of the nodes that run before it — its ancestors at its level and around its loops, with the keys their
node types declare), offered while a person types `{{#` in a text field."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QLineEdit

from app.ui.editor.model import EditorModel, Level
from workflows.nodes import NODE_TYPES


def _ancestors(model: EditorModel, level: Level, node_id: str) -> list[str]:
    edges = model.edges(level)
    seen: list[str] = []
    stack = [node_id]
    while stack:
        current = stack.pop()
        for edge in edges:
            if edge.get("target") == current and str(edge.get("source")) not in seen:
                seen.append(str(edge.get("source")))
                stack.append(str(edge.get("source")))
    return seen


def reachable_variables(model: EditorModel, node_id: str) -> list[str]:
    """`namespace.key` paths readable from this node, in a useful order."""
    out = ["sys.url", "sys.title", "sys.tabId", "sys.env"]
    for variable in (model.data.get("workflow") or {}).get("environment_variables") or []:
        if isinstance(variable, dict) and variable.get("name"):
            out.append(f"env.{variable['name']}")
    start = next((n for n in model.nodes(()) if (n.get("data") or {}).get("type") == "start"), None)
    for variable in ((start or {}).get("data") or {}).get("variables") or []:
        if isinstance(variable, dict) and variable.get("variable"):
            out.append(f"input.{variable['variable']}")
    level = model.level_of(node_id)
    if level:
        out += ["loop.index", "loop.item"]
    readers: list[str] = []
    current, inner = level, node_id
    while True:
        readers += _ancestors(model, current, inner)
        if not current:
            break
        inner, current = current[-1], current[:-1]  # the loop's own predecessors (its output is not final yet)
    for reader in readers:
        out += [f"{reader}.{key}" for key in _output_keys(model.node(reader)["data"])]
    return list(dict.fromkeys(out))


def _output_keys(data: dict[str, Any]) -> list[str]:
    """What a node's output offers, as its node type declares it (`NodeData.readable_keys`)."""
    model = NODE_TYPES.get(str(data.get("type")))
    return model.readable_keys(data) if model is not None else []


class TemplateCompleter:
    """Completes `{{#path#}}` in a line edit; `variables()` is asked each time a template is begun."""

    def __init__(self, edit: QLineEdit, variables: Any) -> None:
        self.edit, self.variables = edit, variables
        self.model = QStringListModel()
        self.completer = QCompleter(self.model, edit)
        self.completer.setWidget(edit)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.activated.connect(self._insert)
        edit.textEdited.connect(self._typed)

    def _open_template(self) -> tuple[int, str] | None:
        text, cursor = self.edit.text(), self.edit.cursorPosition()
        begin = text.rfind("{{#", 0, cursor)
        if begin < 0 or "#}}" in text[begin:cursor]:
            return None
        return begin, text[begin + 3:cursor]

    def _typed(self, _text: str) -> None:
        found = self._open_template()
        if found is None:
            self.completer.popup().hide()
            return
        self.model.setStringList(self.variables())
        self.completer.setCompletionPrefix(found[1])
        self.completer.complete()

    def _insert(self, path: str) -> None:
        found = self._open_template()
        if found is None:
            return
        text, cursor = self.edit.text(), self.edit.cursorPosition()
        new = text[:found[0]] + "{{#" + path + "#}}" + text[cursor:]
        self.edit.setText(new)
        self.edit.setCursorPosition(found[0] + len(path) + 6)
        self.edit.textEdited.emit(new)
