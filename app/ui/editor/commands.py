"""One `QUndoCommand` per kind of edit. Each calls the model's primitives in `redo` and their inverse in
`undo`, so undo and redo emit the same change signals as the edit itself. Compound edits are macros or
commands with children (Qt runs children in order on redo and in reverse on undo): removing a node first
removes its edges as child commands, and undo puts the node back, then the edges at their old places."""

from __future__ import annotations

import copy
import time
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QUndoCommand

from app.ui.editor.model import MISSING, EditorModel, JsonDict, Level
from app.ui.node_kinds import field_label

MERGE_WINDOW_S = 2.0
FIELD_ID = 1201


class AddNode(QUndoCommand):
    def __init__(self, model: EditorModel, level: Level, node: JsonDict, index: int | None = None,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Add {kind}").format(kind=node["data"].get("type")), parent)
        self.model, self.level, self.node = model, level, copy.deepcopy(node)
        self.index = index

    def redo(self) -> None:
        index = len(self.model.nodes(self.level)) if self.index is None else self.index
        self.model.insert_node(self.level, index, self.node)
        super().redo()

    def undo(self) -> None:
        super().undo()
        self.model.remove_node(self.level, self.node["id"])


class RemoveEdge(QUndoCommand):
    def __init__(self, model: EditorModel, level: Level, edge_id: str, parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Remove edge"), parent)
        self.model, self.level, self.edge_id = model, level, edge_id
        self.index = 0
        self.edge: JsonDict = {}

    def redo(self) -> None:
        self.index, self.edge = self.model.remove_edge(self.level, self.edge_id)

    def undo(self) -> None:
        self.model.insert_edge(self.level, self.index, self.edge)


class RemoveNode(QUndoCommand):
    """Removes a node; its edges go first, as child commands (restored after the node, in order)."""

    def __init__(self, model: EditorModel, level: Level, node_id: str, parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Delete {node}").format(node=node_id), parent)
        self.model, self.level, self.node_id = model, level, node_id
        # Kept referenced: PySide would otherwise drop the Python side of the children.
        self.children = [RemoveEdge(model, level, str(edge["id"]), self) for edge in model.edges_of(level, node_id)]
        self.index = 0
        self.node: JsonDict = {}

    def redo(self) -> None:
        super().redo()  # the edges
        self.index, self.node = self.model.remove_node(self.level, self.node_id)

    def undo(self) -> None:
        self.model.insert_node(self.level, self.index, self.node)
        super().undo()


class AddEdge(QUndoCommand):
    def __init__(self, model: EditorModel, level: Level, edge: JsonDict, index: int | None = None,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Connect {source} → {target}").format(source=edge["source"],
                                                                                         target=edge["target"]), parent)
        self.model, self.level, self.edge, self.index = model, level, copy.deepcopy(edge), index

    def redo(self) -> None:
        index = len(self.model.edges(self.level)) if self.index is None else self.index
        self.model.insert_edge(self.level, index, self.edge)

    def undo(self) -> None:
        self.model.remove_edge(self.level, self.edge["id"])


class SetField(QUndoCommand):
    """One field of a node's data; consecutive edits of the same field within a moment (a burst of
    typing) merge into one step; `part` names the place inside a nested field (`cases[0].value`), so a
    burst merges only within one place."""

    def __init__(self, model: EditorModel, node_id: str, key: str, value: Any, parent: QUndoCommand | None = None,
                 mergeable: bool = True, part: str = "") -> None:
        title = model.node(node_id)["data"].get("title") if model.has_node(node_id) else None
        super().__init__(QCoreApplication.translate("EditorCommands", "Edit {field} of “{node}”").format(
            field=field_label(key), node=title or node_id), parent)
        self.model, self.node_id, self.key = model, node_id, key
        self.value = copy.deepcopy(value)
        self.old: Any = MISSING
        self.mergeable, self.part = mergeable, part
        self.at = time.monotonic()

    def id(self) -> int:
        return FIELD_ID if self.mergeable else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, SetField) or (other.node_id, other.key, other.part) != (self.node_id, self.key, self.part):
            return False
        if other.at - self.at > MERGE_WINDOW_S:
            return False
        self.value, self.at = other.value, other.at
        return True

    def redo(self) -> None:
        self.old = self.model.set_field(self.node_id, self.key, self.value)

    def undo(self) -> None:
        self.model.set_field(self.node_id, self.key, self.old)


class MoveNodes(QUndoCommand):
    def __init__(self, model: EditorModel, positions: dict[str, tuple[float, float]],
                 parent: QUndoCommand | None = None, text: str | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Move") if text is None else text, parent)
        self.model, self.positions = model, dict(positions)
        self.old: dict[str, tuple[float, float] | None] = {}

    def redo(self) -> None:
        self.old = self.model.set_positions(self.positions)

    def undo(self) -> None:
        self.model.set_positions(dict(reversed(list(self.old.items()))))


class SetAppField(QUndoCommand):
    def __init__(self, model: EditorModel, key: str, value: Any, parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Edit {field}").format(field=field_label(key)),
                         parent)
        self.model, self.key, self.value, self.old = model, key, value, MISSING

    def redo(self) -> None:
        self.old = self.model.set_app_field(self.key, self.value)

    def undo(self) -> None:
        self.model.set_app_field(self.key, self.old)


class AddNote(QUndoCommand):
    def __init__(self, model: EditorModel, level: Level, note: JsonDict, parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Add note"), parent)
        self.model, self.level, self.note = model, level, copy.deepcopy(note)

    def redo(self) -> None:
        self.model.insert_note(self.level, len(self.model.notes(self.level)), self.note)

    def undo(self) -> None:
        self.model.remove_note(self.level, self.note["id"])


class RemoveNote(QUndoCommand):
    def __init__(self, model: EditorModel, level: Level, note_id: str, parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Delete note"), parent)
        self.model, self.level, self.note_id = model, level, note_id
        self.index, self.note = 0, {}

    def redo(self) -> None:
        self.index, self.note = self.model.remove_note(self.level, self.note_id)

    def undo(self) -> None:
        self.model.insert_note(self.level, self.index, self.note)


class SetNote(QUndoCommand):
    def __init__(self, model: EditorModel, level: Level, note_id: str, key: str, value: Any,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(QCoreApplication.translate("EditorCommands", "Edit note"), parent)
        self.model, self.level, self.note_id, self.key, self.value = model, level, note_id, key, value
        self.old: Any = MISSING

    def redo(self) -> None:
        self.old = self.model.set_note(self.level, self.note_id, self.key, self.value)

    def undo(self) -> None:
        self.model.set_note(self.level, self.note_id, self.key, self.old)
