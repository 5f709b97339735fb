"""The document model the editor edits: the workflow as its JSON data (`WorkflowDocument.to_data()`), so every
field the editor does not understand (unknown keys, locator alternatives, positions of other tools) stays as
it came. A *level* is the top graph `()` or a loop's body `(loop_id, inner_loop_id, ...)`.

Only primitive changes live here; each emits a signal the canvas and the panels follow. Undo/redo
(`commands`) call the same primitives, so they emit the same signals as the original edit. No view state.
"""

from __future__ import annotations

import copy
import json
import logging
from typing import Any, Iterator

from PySide6.QtCore import QObject, Signal

from app.ui.editor import layout
from plumbing import loggers

log = logging.getLogger(loggers.EDITOR)

Level = tuple[str, ...]
JsonDict = dict[str, Any]


class _Missing:
    """A field that is not in the data (setting it removes the key)."""

    def __repr__(self) -> str:
        return "MISSING"

    def __copy__(self) -> "_Missing":
        return self

    def __deepcopy__(self, memo: Any) -> "_Missing":
        return self


MISSING: Any = _Missing()


class EditorModel(QObject):
    node_added = Signal(tuple, str)      # level, node id
    node_removed = Signal(tuple, str)
    node_changed = Signal(str)           # node id: a data field changed
    nodes_moved = Signal(list)           # node ids (one signal for a move of many)
    edge_added = Signal(tuple, str)      # level, edge id
    edge_removed = Signal(tuple, str)
    note_added = Signal(tuple, str)
    note_removed = Signal(tuple, str)
    note_changed = Signal(tuple, str)
    app_changed = Signal()
    reset = Signal()                     # the whole document was replaced (reload)
    changed = Signal()                   # after any of the above

    def __init__(self, data: JsonDict, parent: QObject | None = None, *, owned: bool = False) -> None:
        """`owned`: the caller hands `data` over (a fresh copy of its own) instead of having it copied."""
        super().__init__(parent)
        self._data = data if owned else json_copy(data)
        self._index: dict[str, tuple[Level, JsonDict]] | None = None
        self._layout_cache: dict[Level, dict[str, tuple[float, float]]] = {}

    # -- reading ---------------------------------------------------------------------------------------
    @property
    def data(self) -> JsonDict:
        """The document as it would be written (callers must not change it)."""
        return self._data

    def snapshot(self) -> JsonDict:
        return copy.deepcopy(self._data)

    @property
    def name(self) -> str:
        return str((self._data.get("app") or {}).get("name") or "")

    def level_data(self, level: Level) -> JsonDict:
        """The dict holding `nodes` and `edges` of a level (the graph, or the loop's `data`)."""
        current = self._data["workflow"]["graph"]
        for loop_id in level:
            node = next(n for n in current.get("nodes", []) if n.get("id") == loop_id)
            current = node["data"]
        current.setdefault("nodes", [])
        current.setdefault("edges", [])
        return current

    def nodes(self, level: Level) -> list[JsonDict]:
        return self.level_data(level)["nodes"]

    def edges(self, level: Level) -> list[JsonDict]:
        return self.level_data(level)["edges"]

    def notes(self, level: Level) -> list[JsonDict]:
        return self.level_data(level).get("notes") or []

    def _build_index(self) -> dict[str, tuple[Level, JsonDict]]:
        if self._index is None:
            self._index = {}
            _walk(self._index, (), self._data["workflow"]["graph"].get("nodes") or [])
        return self._index

    def _indexed(self, level: Level, node: JsonDict) -> None:
        """A node (and its body) came: the index follows without being made again."""
        if self._index is not None:
            _walk(self._index, level, [node])

    def _unindexed(self, node: JsonDict) -> None:
        """A node (and its body) went."""
        if self._index is None:
            return
        gone: dict[str, tuple[Level, JsonDict]] = {}
        _walk(gone, (), [node])
        for node_id, (_level, removed) in gone.items():
            if node_id in self._index and self._index[node_id][1] is removed:
                del self._index[node_id]
            else:
                self._index = None  # an id met twice: made again on next use
                return

    def node(self, node_id: str) -> JsonDict:
        return self._build_index()[node_id][1]

    def has_node(self, node_id: str) -> bool:
        return node_id in self._build_index()

    def level_of(self, node_id: str) -> Level:
        return self._build_index()[node_id][0]

    def all_ids(self) -> set[str]:
        return set(self._build_index())

    def iter_nodes(self) -> Iterator[tuple[Level, JsonDict]]:
        for node_id, (level, node) in self._build_index().items():
            yield level, node

    def edge(self, level: Level, edge_id: str) -> JsonDict:
        return next(e for e in self.edges(level) if e.get("id") == edge_id)

    def edges_of(self, level: Level, node_id: str) -> list[JsonDict]:
        return [e for e in self.edges(level) if node_id in (e.get("source"), e.get("target"))]

    def is_level(self, level: Level) -> bool:
        try:
            self.level_data(level)
        except (StopIteration, KeyError, TypeError):
            return False
        return True

    def laid_out(self, level: Level) -> bool:
        """Whether the level is drawn by the auto-layout (a node of it has no position)."""
        return not all(_has_position(n) for n in self.nodes(level))

    def display_positions(self, level: Level) -> dict[str, tuple[float, float]]:
        """Where each node of a level is drawn: its stored positions when every node has one, else a
        left-to-right layout of the level (nothing is written until a person moves or adds something)."""
        nodes = self.nodes(level)
        stored = {str(n["id"]): (float(n["position"]["x"]), float(n["position"]["y"]))
                  for n in nodes if _has_position(n)}
        if len(stored) == len(nodes):
            return stored
        cached = self._layout_cache.get(level)
        if cached is None or set(cached) != {str(n["id"]) for n in nodes}:
            cached = layout.left_to_right([str(n["id"]) for n in nodes],
                                          [(str(e["source"]), str(e["target"])) for e in self.edges(level)])
            self._layout_cache[level] = cached
        return dict(cached)

    # -- primitive changes (commands call these) ----------------------------------------------------------
    def _touched(self, structure: bool = False) -> None:
        """After a change: `structure` when nodes came or went (the id index is made again on next use)."""
        if structure:
            self._index = None
        self.changed.emit()

    def insert_node(self, level: Level, index: int, node: JsonDict) -> None:
        added = copy.deepcopy(node)
        self.nodes(level).insert(index, added)
        self._indexed(level, added)
        self.node_added.emit(level, str(node["id"]))
        self._touched()

    def remove_node(self, level: Level, node_id: str) -> tuple[int, JsonDict]:
        nodes = self.nodes(level)
        index = next(i for i, n in enumerate(nodes) if n.get("id") == node_id)
        node = nodes.pop(index)
        self._unindexed(node)
        self.node_removed.emit(level, node_id)
        self._touched()
        return index, node

    def insert_edge(self, level: Level, index: int, edge: JsonDict) -> None:
        self.edges(level).insert(index, copy.deepcopy(edge))
        self.edge_added.emit(level, str(edge["id"]))
        self._touched()

    def remove_edge(self, level: Level, edge_id: str) -> tuple[int, JsonDict]:
        edges = self.edges(level)
        index = next(i for i, e in enumerate(edges) if e.get("id") == edge_id)
        edge = edges.pop(index)
        self.edge_removed.emit(level, edge_id)
        self._touched()
        return index, edge

    def set_field(self, node_id: str, key: str, value: Any) -> Any:
        """Set (or with MISSING remove) one key of a node's `data`; returns the old value (or MISSING)."""
        data = self.node(node_id)["data"]
        old = copy.deepcopy(data.get(key, MISSING))
        if value is MISSING:
            data.pop(key, None)
        else:
            data[key] = copy.deepcopy(value)
        if key == "nodes":
            self._index = None  # a loop's body was replaced
        self.node_changed.emit(node_id)
        self._touched(structure=key == "nodes")
        return old

    def set_positions(self, positions: dict[str, tuple[float, float] | None]) -> dict[str, tuple[float, float] | None]:
        """Move nodes (None: back to the auto-layout); one `nodes_moved`, then one `changed`. Returns the
        old positions."""
        old: dict[str, tuple[float, float] | None] = {}
        for node_id, position in positions.items():
            node = self.node(node_id)
            old[node_id] = (float(node["position"]["x"]), float(node["position"]["y"])) if _has_position(node) else None
            if position is None:
                node.pop("position", None)
            else:
                kept = node.get("position") if isinstance(node.get("position"), dict) else {}
                node["position"] = {**kept, "x": _plain(position[0]), "y": _plain(position[1])}
        self.nodes_moved.emit(list(positions))
        self._touched()
        return old

    def set_app_field(self, key: str, value: Any) -> Any:
        app = self._data.setdefault("app", {})
        old = copy.deepcopy(app.get(key, MISSING))
        if value is MISSING:
            app.pop(key, None)
        else:
            app[key] = value
        self.app_changed.emit()
        self._touched()
        return old

    def insert_note(self, level: Level, index: int, note: JsonDict) -> None:
        holder = self.level_data(level)
        holder.setdefault("notes", []).insert(index, copy.deepcopy(note))
        self.note_added.emit(level, str(note["id"]))
        self._touched()

    def remove_note(self, level: Level, note_id: str) -> tuple[int, JsonDict]:
        holder = self.level_data(level)
        notes = holder.get("notes") or []
        index = next(i for i, n in enumerate(notes) if n.get("id") == note_id)
        note = notes.pop(index)
        if not notes:
            holder.pop("notes", None)
        self.note_removed.emit(level, note_id)
        self._touched()
        return index, note

    def set_note(self, level: Level, note_id: str, key: str, value: Any) -> Any:
        note = next(n for n in self.notes(level) if n.get("id") == note_id)
        old = copy.deepcopy(note.get(key, MISSING))
        if value is MISSING:
            note.pop(key, None)
        else:
            note[key] = copy.deepcopy(value)
        self.note_changed.emit(level, note_id)
        self._touched()
        return old

    def replace_all(self, data: JsonDict) -> None:
        """Load another version of the document (a reload); the undo stack is cleared by the owner."""
        self._data = json_copy(data)
        self._index = None
        self._layout_cache.clear()
        self.reset.emit()
        self.changed.emit()


def _walk(index: dict[str, tuple[Level, JsonDict]], level: Level, nodes: list[JsonDict]) -> None:
    """Index nodes by id with their level, loop bodies included (the first of a repeated id wins)."""
    for node in nodes:
        index.setdefault(str(node.get("id")), (level, node))
        data = node.get("data") or {}
        if data.get("type") == "loop" and isinstance(data.get("nodes"), list):
            _walk(index, level + (str(node["id"]),), data["nodes"])


def json_copy(data: JsonDict) -> JsonDict:
    """A deep copy of JSON data (several times faster than `copy.deepcopy` on a big document)."""
    return json.loads(json.dumps(data, ensure_ascii=False))


def shape_problem(data: Any) -> str | None:
    """Why the editor could not walk this document (levels, nodes, edges, notes), or None. A stored
    workflow was checked when it was written, so this is all the editor needs before it draws one; the
    full check (`validate_document`) then fills the validation list."""
    if not isinstance(data, dict) or not isinstance(data.get("workflow"), dict) \
            or not isinstance(data["workflow"].get("graph"), dict):
        return "the document has no workflow graph"
    levels = [data["workflow"]["graph"]]
    while levels:
        holder = levels.pop()
        nodes, edges, notes = holder.get("nodes", []), holder.get("edges", []), holder.get("notes", [])
        if not isinstance(nodes, list) or not isinstance(edges, list) or not isinstance(notes, list):
            return "a level's nodes, edges or notes are not lists"
        for node in nodes:
            if not isinstance(node, dict) or not isinstance(node.get("data"), dict) or "id" not in node:
                return "a node is not an object with an id and data"
            if node["data"].get("type") == "loop":
                levels.append(node["data"])
        if any(not isinstance(e, dict) or "id" not in e or "source" not in e or "target" not in e for e in edges) \
                or any(not isinstance(n, dict) or "id" not in n for n in notes):
            return "an edge or a note is not an object with its ids"
    return None


def _has_position(node: JsonDict) -> bool:
    position = node.get("position")
    return isinstance(position, dict) and isinstance(position.get("x"), (int, float)) \
        and isinstance(position.get("y"), (int, float))


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(float(value), 2)
