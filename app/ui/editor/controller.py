"""Every edit of an open workflow, as commands on its one `QUndoStack`. The canvas, the side panel and the
menus call these methods and nothing else changes the model. An edit the runtime would refuse is not made:
the method returns (or raises `EditRefused` with) a message for the person."""

from __future__ import annotations

import copy
import json
import logging
import re
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoCommand, QUndoStack

from app.ui.editor import commands, layout, rules
from app.ui.editor.model import EditorModel, JsonDict, Level
from app.ui.node_kinds import kind_label
from plumbing import loggers
from workflows.nodes import NODE_TYPES

log = logging.getLogger(loggers.EDITOR)

CLIPBOARD_KIND = "browserpilot-nodes"
PASTE_OFFSET = 40.0


class EditRefused(Exception):
    """An edit the runtime would refuse, or that would break the document (the message says why)."""


def default_data(kind: str) -> JsonDict:
    """The `data` of a new node: its type and its required fields, empty (a loop gets its body from
    `starter_body`: the runtime refuses a loop without inner nodes)."""
    data: JsonDict = {"type": kind}
    if kind == "loop":
        return {"type": "loop", "mode": "list", "items_selector": [], "nodes": [], "edges": []}
    if kind == "if-else":
        return {"type": "if-else", "cases": [{"case_id": "true", "logical_operator": "and", "conditions": []}]}
    model = NODE_TYPES.get(kind)
    for name, field in (model.model_fields.items() if model else ()):
        if name == "type" or not field.is_required():
            continue
        data[name] = {"selector": ""} if "Locator" in str(field.annotation) else ""
    return data


def starter_body(body_id: str) -> list[JsonDict]:
    """The one node a new loop's body starts with: code that hands on the pass's item."""
    return [{"id": body_id, "data": {"type": "code", "title": "Each pass",
                                     "variables": [{"variable": "item", "value_selector": ["loop", "item"]}],
                                     "code": "return { item: inputs.item };", "outputs": {}},
             "position": {"x": 0, "y": 0}}]


def references_in(value: Any, node_id: str) -> bool:
    """Whether a node's data reads `node_id`'s output (a template or a value selector)."""
    return _reads(json.dumps(value, ensure_ascii=False), node_id)


def _reads(text: str, node_id: str) -> bool:
    """Whether a node's data, as JSON text, reads `node_id`'s output."""
    quoted = json.dumps(node_id, ensure_ascii=False)
    if quoted[1:-1] not in text:  # the id is not even mentioned (most nodes)
        return False
    return f"{{{{#{node_id}." in text or bool(re.search(r'\[\s*' + re.escape(quoted) + r'\s*[,\]]', text))


class EditorController(QObject):
    def __init__(self, model: EditorModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.stack = QUndoStack(self)
        # Every pushed command stays referenced from Python while the stack lives: PySide would otherwise
        # drop the Python half of commands held only by a macro on the C++ side.
        self._kept: list[QUndoCommand] = []

    def clear_history(self) -> None:
        self.stack.clear()
        self._kept = []

    # -- helpers --------------------------------------------------------------------------------------
    def _push(self, command: QUndoCommand) -> None:
        self._kept.append(command)
        self.stack.push(command)

    def _macro(self, text: str) -> "_Macro":
        return _Macro(self.stack, text)

    def _pin(self, level: Level) -> None:
        """Write the drawn positions of a level whose nodes have none yet, so editing keeps what is seen."""
        missing = {str(n["id"]) for n in self.model.nodes(level) if "position" not in n}
        if not missing:
            return
        shown = self.model.display_positions(level)
        self._push(commands.MoveNodes(self.model, {i: shown[i] for i in shown}))

    # -- nodes ----------------------------------------------------------------------------------------
    def add_node(self, level: Level, kind: str, position: tuple[float, float],
                 after: tuple[str, str] | None = None, data: JsonDict | None = None) -> str:
        """A new node of `kind` at `position`; with `after` (source id, handle), connected from that port."""
        if kind not in NODE_TYPES:
            raise EditRefused(self.tr("unknown node type {kind}").format(kind=repr(kind)))
        if kind == "start":
            raise EditRefused(self.tr("a workflow has exactly one start node"))
        node_id = rules.new_node_id(kind, self.model.all_ids())
        if data is None and kind == "loop":
            data = {**default_data(kind), "nodes": starter_body(rules.new_node_id("code", self.model.all_ids() | {node_id}))}
        node = {"id": node_id, "data": data or default_data(kind),
                "position": {"x": round(position[0]), "y": round(position[1])}}
        with self._macro(self.tr("Add {kind}").format(kind=kind_label(kind))):
            self._pin(level)
            self._push(commands.AddNode(self.model, level, node))
            if after is not None:
                self._connect(level, after[0], after[1], node_id)
        return node_id

    def delete(self, level: Level, node_ids: list[str], edge_ids: list[str] = (), note_ids: list[str] = ()) -> list[str]:
        """Delete nodes (with their edges), edges and notes; the start node is kept. Returns what was kept
        back and why (empty when everything went)."""
        kept = []
        doomed = []
        for node_id in node_ids:
            if self.model.node(node_id)["data"].get("type") == "start" and level == ():
                kept.append(self.tr("the start node cannot be deleted"))
            else:
                doomed.append(node_id)
        going = set(doomed)
        # the nodes' edges go first, found in one pass (a node deleted alone would look its edges up itself)
        incident = [str(e["id"]) for e in self.model.edges(level) if e.get("source") in going or e.get("target") in going]
        edges = [e for e in edge_ids if e not in set(incident)]
        if not (doomed or edges or note_ids):
            return kept
        with self._macro(self.tr("Delete")):
            for edge_id in [*edges, *incident]:
                self._push(commands.RemoveEdge(self.model, level, edge_id))
            for node_id in doomed:
                self._push(commands.RemoveNode(self.model, level, node_id))
            for note_id in note_ids:
                self._push(commands.RemoveNote(self.model, level, note_id))
        return kept

    def referenced_outputs(self, node_ids: list[str]) -> list[tuple[str, str]]:
        """(node that is deleted, node still reading its output) pairs, for the warning before a delete."""
        doomed = set(node_ids)
        out = []
        for _level, node in self.model.iter_nodes():
            reader = str(node["id"])
            if reader in doomed:
                continue
            text = json.dumps(node.get("data"), ensure_ascii=False)
            out += [(node_id, reader) for node_id in node_ids if _reads(text, node_id)]
        return out

    def move(self, positions: dict[str, tuple[float, float]]) -> None:
        if not positions:
            return
        level = self.model.level_of(next(iter(positions)))
        with self._macro(self.tr("Move")):
            self._pin(level)
            self._push(commands.MoveNodes(self.model, positions))

    def arrange(self, level: Level) -> None:
        placed = layout.left_to_right([str(n["id"]) for n in self.model.nodes(level)],
                                      [(str(e["source"]), str(e["target"])) for e in self.model.edges(level)])
        self._push(commands.MoveNodes(self.model, placed, text=self.tr("Arrange")))

    def set_field(self, node_id: str, key: str, value: Any, mergeable: bool = True, part: str = "") -> None:
        if self.model.node(node_id)["data"].get(key, commands.MISSING) == value:
            return
        self._push(commands.SetField(self.model, node_id, key, value, mergeable=mergeable, part=part))

    def set_app_field(self, key: str, value: Any) -> None:
        if (self.model.data.get("app") or {}).get(key, commands.MISSING) != value:
            self._push(commands.SetAppField(self.model, key, value))

    # -- edges ----------------------------------------------------------------------------------------
    def connection_problem(self, level: Level, source: str, handle: str, target: str) -> str | None:
        return rules.connection_problem(self.model.nodes(level), self.model.edges(level), source, handle, target)

    def _connect(self, level: Level, source: str, handle: str, target: str) -> str:
        problem = self.connection_problem(level, source, handle, target)
        if problem:
            raise EditRefused(problem)
        taken = {str(e.get("id")) for e in self.model.edges(level)}
        edge = {"id": rules.new_edge_id(source, handle, target, taken), "source": source, "target": target,
                "sourceHandle": handle, "targetHandle": "target"}
        self._push(commands.AddEdge(self.model, level, edge))
        return edge["id"]

    def connect(self, level: Level, source: str, handle: str, target: str) -> str:
        """Connect two nodes of a level; `EditRefused` with the runtime's reason when it would refuse."""
        return self._connect(level, source, handle, target)

    def insert_on_edge(self, level: Level, edge_id: str, node_id: str) -> None:
        """Put a node with no edges of its own between the two ends of an edge."""
        edge = self.model.edge(level, edge_id)
        if self.model.edges_of(level, node_id):
            raise EditRefused(self.tr("only a node without edges can be dropped onto an edge"))
        with self._macro(self.tr("Insert {node}").format(node=node_id)):
            self._push(commands.RemoveEdge(self.model, level, edge_id))
            self._connect(level, str(edge["source"]), str(edge.get("sourceHandle") or "source"), node_id)
            self._connect(level, node_id, "source", str(edge["target"]))

    # -- clipboard ------------------------------------------------------------------------------------
    def copy(self, level: Level, node_ids: list[str]) -> JsonDict:
        """The nodes (without the start node) and the edges between them, as clipboard data."""
        ids = [i for i in node_ids if self.model.node(i)["data"].get("type") != "start"]
        chosen = set(ids)
        shown = self.model.display_positions(level)
        nodes = []
        for node_id in ids:
            node = copy.deepcopy(self.model.node(node_id))
            x, y = shown.get(node_id, (0.0, 0.0))
            node["position"] = {**(node.get("position") or {}), "x": x, "y": y}
            nodes.append(node)
        edges = [copy.deepcopy(e) for e in self.model.edges(level)
                 if e.get("source") in chosen and e.get("target") in chosen]
        return {"kind": CLIPBOARD_KIND, "nodes": nodes, "edges": edges}

    def paste(self, level: Level, payload: JsonDict, offset: tuple[float, float] = (PASTE_OFFSET, PASTE_OFFSET),
              text: str | None = None) -> list[str]:
        """Add copied nodes at this level with ids made unique across every level (loop bodies included;
        templates and selectors inside the pasted nodes follow their renamed nodes)."""
        if payload.get("kind") != CLIPBOARD_KIND or not payload.get("nodes"):
            raise EditRefused(self.tr("the clipboard holds no workflow nodes"))
        taken = self.model.all_ids()
        renames: dict[str, str] = {}
        for node in _walk_nodes(payload["nodes"]):
            new = rules.unique_id(str(node["id"]), taken)
            taken.add(new)
            renames[str(node["id"])] = new
        text_data = json.dumps({"nodes": payload["nodes"], "edges": payload.get("edges", [])}, ensure_ascii=False)
        for old, new in renames.items():
            if old != new:
                text_data = text_data.replace(f"{{{{#{old}.", f"{{{{#{new}.")
                text_data = re.sub(r'(\[\s*)' + re.escape(json.dumps(old)) + r'(\s*[,\]])',
                                   lambda m: m.group(1) + json.dumps(new) + m.group(2), text_data)
        renamed = json.loads(text_data)
        for node in _walk_nodes(renamed["nodes"]):
            node["id"] = renames[str(node["id"])]
        for holder in [renamed, *(n["data"] for n in _walk_nodes(renamed["nodes"]) if n["data"].get("type") == "loop")]:
            for edge in holder.get("edges", []):
                edge["source"] = renames.get(str(edge["source"]), edge["source"])
                edge["target"] = renames.get(str(edge["target"]), edge["target"])
        edge_ids = {str(e.get("id")) for e in self.model.edges(level)}
        added = []
        with self._macro(self.tr("Paste") if text is None else text):
            self._pin(level)
            for node in renamed["nodes"]:
                position = node.get("position") or {}
                node["position"] = {**position, "x": round(float(position.get("x", 0)) + offset[0]),
                                    "y": round(float(position.get("y", 0)) + offset[1])}
                self._push(commands.AddNode(self.model, level, node))
                added.append(node["id"])
            for edge in renamed["edges"]:
                edge["id"] = rules.unique_id(str(edge.get("id") or f"e-{edge['source']}-{edge['target']}"), edge_ids)
                edge_ids.add(edge["id"])
                self._push(commands.AddEdge(self.model, level, edge))
        return added

    def duplicate(self, level: Level, node_ids: list[str]) -> list[str]:
        return self.paste(level, self.copy(level, node_ids), text=self.tr("Duplicate"))

    def cut(self, level: Level, node_ids: list[str]) -> JsonDict:
        payload = self.copy(level, node_ids)
        with self._macro(self.tr("Cut")):
            self.delete(level, [n["id"] for n in payload["nodes"]])
        return payload

    # -- loop bodies ----------------------------------------------------------------------------------
    def move_to_level(self, level: Level, node_ids: list[str], target: Level) -> None:
        """Move nodes between a level and a loop body inside it (or the level around it); their edges to
        nodes that stay behind are removed, edges among them move along."""
        if target == level:
            return
        if any(self.model.node(i)["data"].get("type") == "start" for i in node_ids):
            raise EditRefused(self.tr("the start node stays at the top level"))
        if target[:len(level)] != level and level[:len(target)] != target:
            raise EditRefused(self.tr("nodes move into a loop of their level or out to the level around it"))
        if any(i in target for i in node_ids):
            raise EditRefused(self.tr("a loop cannot be moved into its own body"))
        payload = self.copy(level, node_ids)
        with self._macro(self.tr("Move into loop") if len(target) > len(level) else self.tr("Move out of loop")):
            self._pin(target)
            for node_id in node_ids:
                self._push(commands.RemoveNode(self.model, level, node_id))
            for node in payload["nodes"]:
                self._push(commands.AddNode(self.model, target, node))
            for edge in payload["edges"]:
                self._push(commands.AddEdge(self.model, target, edge))

    # -- notes ----------------------------------------------------------------------------------------
    def add_note(self, level: Level, position: tuple[float, float], text: str | None = None) -> str:
        taken = {str(n.get("id")) for n in self.model.notes(level)}
        note_id = rules.unique_id("note_1", taken)
        text = self.tr("Note") if text is None else text
        self._push(commands.AddNote(self.model, level, {"id": note_id, "text": text,
                                                        "position": {"x": round(position[0]), "y": round(position[1])}}))
        return note_id

    def set_note(self, level: Level, note_id: str, key: str, value: Any) -> None:
        self._push(commands.SetNote(self.model, level, note_id, key, value))


class _Macro:
    def __init__(self, stack: QUndoStack, text: str) -> None:
        self.stack, self.text = stack, text

    def __enter__(self) -> None:
        self.stack.beginMacro(self.text)

    def __exit__(self, kind: Any, value: Any, trace: Any) -> None:
        self.stack.endMacro()
        if kind is not None:  # a refused step (checked before, so a bug): take back what the macro did
            self.stack.undo()


def _walk_nodes(nodes: list[JsonDict]) -> list[JsonDict]:
    out = []
    for node in nodes:
        out.append(node)
        data = node.get("data") or {}
        if data.get("type") == "loop":
            out += _walk_nodes(data.get("nodes") or [])
    return out
