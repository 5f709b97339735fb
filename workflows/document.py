"""The workflow document (BrowserPilot 0.3.0 format: docs/workflows.md) and its validation.

`{kind: "app", version: "0.3.0", app: {name, mode: "workflow", description?, icon?}, workflow:
{environment_variables: [{name, value}], conversation_variables: [], graph: {nodes, edges}}}`.

`validate_document(raw)` is the one way in (import, save, MCP arguments). It accepts every document the
original app accepts and keeps it losslessly (unknown fields included). It refuses only what the original
refuses, raising a `DocumentError` that lists every such problem at once with its exact place: no nodes; not
exactly one `start` at the top level; a missing or duplicate node id (ids are unique across all loop levels);
a node without `data.type`; an edge whose ends are not nodes of its level; a loop without inner nodes (and a
document without `app.name`, or not in `workflow` mode). Everything else that looks wrong loads with a
**warning** (`WorkflowDocument.warnings`), in the same form:

    graph.nodes[3] (id "fill1", type fill): locator is required (a run fails if it reaches this node)
    graph.nodes[2] (id "rows", type loop): nodes[0] (id "c1", type click): needs a locator, or x and y
    graph.edges[4]: sourceHandle "maybe" is not a case_id of "check" ("true", "vip") or "false"

A node whose fields do not fit its type, or whose type is unknown, is kept as it came and fails only when a
run reaches it. Pure Python: no Qt here.
"""

from __future__ import annotations

import copy
import json
import logging
import math
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from pydantic import Field, PrivateAttr, ValidationError

from plumbing import loggers
from workflows.nodes import (FAILS, NODE_TYPES, RESERVED_HANDLE, DocumentModel, Edge, EndData, EndOutput, Graph, LoopData,
                             Node, NodeData, NonEmptyText, RawNodeData, StartData, StartVariable, Text)

log = logging.getLogger(loggers.WORKFLOWS)

FORMAT_VERSION = "0.3.0"
MAX_DEPTH = 200
"""Deepest JSON nesting accepted (about 45 levels of nested loops)."""
MAX_SHOWN_PROBLEMS = 100

__all__ = ["AppInfo", "DocumentError", "Edge", "EnvironmentVariable", "FORMAT_VERSION", "Graph", "Node",
           "WorkflowBody", "WorkflowDocument", "node_data_model", "plain_json_problem", "validate_document",
           "validation_problems"]


class DocumentError(Exception):
    """A document (or file) that cannot be used; `problems` lists every problem, each naming its place."""

    def __init__(self, problems: list[str], source: str | None = None) -> None:
        self.problems = list(problems) or ["the document is not valid"]
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        head = f"{self.source}: " if self.source else ""
        if len(self.problems) == 1:
            return head + self.problems[0]
        shown = "\n".join(f"- {p}" for p in self.problems[:MAX_SHOWN_PROBLEMS])
        more = len(self.problems) - MAX_SHOWN_PROBLEMS
        tail = f"\n- … and {more} more" if more > 0 else ""
        return f"{head}{len(self.problems)} problems:\n{shown}{tail}"


# -- the document model ------------------------------------------------------------------------------------
class AppInfo(DocumentModel):
    always_dumped: ClassVar[tuple[str, ...]] = ("mode",)
    name: NonEmptyText
    mode: Literal["workflow"] = "workflow"
    description: Text | None = None
    icon: Text | None = None


class EnvironmentVariable(DocumentModel):
    """`{name, value}`: read in templates as `{{#env.name#}}`."""

    name: Text = ""
    value: Any = ""


class WorkflowBody(DocumentModel):
    always_dumped: ClassVar[tuple[str, ...]] = ("environment_variables", "conversation_variables")
    environment_variables: list[EnvironmentVariable] = Field(default_factory=list)
    conversation_variables: list[Any] = Field(default_factory=list)
    graph: Graph


class WorkflowDocument(DocumentModel):
    """A whole workflow file. Build one with `validate_document` (or `workflows.io.parse_document`):
    `model_validate` alone checks fields but not the graph's structure."""

    always_dumped: ClassVar[tuple[str, ...]] = ("kind", "version")
    kind: Text = "app"
    version: Text = FORMAT_VERSION
    app: AppInfo
    workflow: WorkflowBody
    _warnings: list[str] = PrivateAttr(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """What loaded but looks wrong, each naming its place (see the module's docstring)."""
        return list(self._warnings)

    @property
    def name(self) -> str:
        return self.app.name

    @property
    def graph(self) -> Graph:
        return self.workflow.graph

    def start_node(self) -> Node:
        return self.graph.start_node()

    def start_variables(self) -> list[StartVariable]:
        """The inputs a run asks for (the first of each name; nameless ones are ignored)."""
        start = next((node.data for node in self.graph.nodes if isinstance(node.data, StartData)), None)
        return start.declared() if start is not None else []

    def end_outputs(self) -> list[EndOutput]:
        """The outputs of the top-level end nodes, in document order."""
        return [output for node in self.graph.nodes if isinstance(node.data, EndData) for output in node.data.outputs]

    def secret_names(self) -> list[str]:
        """Start variables declared `"type": "secret"`: masked in dialogs, redacted in records."""
        return [variable.variable for variable in self.start_variables() if variable.type == "secret"]

    def env_values(self) -> dict[str, Any]:
        return {variable.name: variable.value for variable in self.workflow.environment_variables if variable.name}

    def iter_nodes(self) -> Iterator[tuple[Node, Graph]]:
        """Every node at every level with the graph it belongs to, depth first in document order."""
        def walk(graph: Graph) -> Iterator[tuple[Node, Graph]]:
            for node in graph.nodes:
                yield node, graph
                if isinstance(node.data, LoopData):
                    yield from walk(node.data.graph)
        return walk(self.graph)

    def find_node(self, node_id: str) -> Node | None:
        """The node with this id at any level."""
        return next((node for node, _ in self.iter_nodes() if node.id == node_id), None)

    def node_count(self) -> int:
        return sum(1 for _ in self.iter_nodes())

    def to_data(self) -> dict[str, Any]:
        """The JSON-ready document: what the file said (unknown fields included) plus filled-in defaults."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def check(self) -> "WorkflowDocument":
        """Validate again (after edits in code): a new document, or DocumentError."""
        return validate_document(self.to_data())


# -- validation --------------------------------------------------------------------------------------------
def validate_document(raw: Any) -> WorkflowDocument:
    """Check a parsed JSON value as a workflow document; raise `DocumentError` with every problem that the
    original app would refuse too; everything else is in the document's `warnings`."""
    if isinstance(raw, WorkflowDocument):
        raw = raw.to_data()
    if not isinstance(raw, dict):
        raise DocumentError([f"the document must be a JSON object, not {_json_type(raw)}"])
    plain = plain_json_problem(raw)
    if plain is not None:
        raise DocumentError([plain])
    raw = copy.deepcopy(raw)
    problems: list[str] = []
    document: WorkflowDocument | None = None
    try:
        document = WorkflowDocument.model_validate(raw)
    except ValidationError as exc:
        problems += validation_problems(exc, raw)
    except RecursionError:
        raise DocumentError(["the document is nested too deeply"]) from None
    refused, _ = _structure_problems(raw)
    problems += refused
    if problems or document is None:
        raise DocumentError(problems)
    # Warnings are read from the document as it will be written, so a saved copy warns the same.
    normalized = document.to_data()
    document._warnings = _structure_problems(normalized)[1] + _node_warnings(document, normalized)
    return document


def _node_warnings(document: WorkflowDocument, raw: dict[str, Any]) -> list[str]:
    """Warnings of every node at every level: fields that do not fit (the node fails if a run reaches it),
    unknown types, and each type's own `lint`."""
    warnings: list[str] = []

    def walk(graph: Graph, loc: list[Any]) -> None:
        for index, node in enumerate(graph.nodes):
            node_loc = loc + ["nodes", index]
            data = node.data
            if isinstance(data, RawNodeData):
                if data.type not in NODE_TYPES:
                    text = f"unknown node type {_q(data.type)}: a run fails if it reaches this node"
                    warnings.append(_describe({"type": "bp", "loc": tuple(node_loc), "msg": text}, raw))
                    continue
                fields = [_describe({**error, "loc": tuple(error["loc"])}, data.model_dump(mode="json"))
                          for error in data._errors]
                data._problems = fields
                for error in data._errors:
                    inner = tuple(error["loc"])
                    message = _describe({**error, "loc": (*node_loc, "data", *inner) if inner else tuple(node_loc)}, raw)
                    warnings.append(message + FAILS)
                continue
            for text in data.lint():
                warnings.append(_describe({"type": "bp", "loc": tuple(node_loc), "msg": text}, raw))
            if isinstance(data, LoopData):
                walk(data.graph, node_loc + ["data"])

    walk(document.graph, ["workflow", "graph"])
    return warnings


def validation_problems(exc: ValidationError, raw: Any) -> list[str]:
    """A pydantic error of a model validated from `raw` as one line per problem, each naming its place."""
    return [_describe(error, raw) for error in exc.errors(include_url=False)]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def plain_json_problem(raw: Any) -> str | None:
    """Why `raw` is not plain JSON data we can store and write back (None if it is)."""
    stack: list[tuple[Any, int]] = [(raw, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"the document is nested too deeply (more than {MAX_DEPTH} levels)"
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    return "object keys must be text"
                stack.append((key, depth + 1))
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return "the document contains text that is not valid Unicode (an unpaired surrogate)"
        elif isinstance(value, float):
            if not math.isfinite(value):
                return "the document contains a number that is not finite (NaN or Infinity)"
        elif not (value is None or isinstance(value, (bool, int))):
            return f"the document contains a {type(value).__name__}, which is not JSON data"
    return None


def _get(value: Any, key: str | int) -> Any:
    if isinstance(key, str) and isinstance(value, dict):
        return value.get(key)
    if isinstance(key, int) and isinstance(value, list) and -len(value) <= key < len(value):
        return value[key]
    return None


def _raw_id(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _q(text: str) -> str:
    return json.dumps(_short(text), ensure_ascii=False)


def _node_label(node: Any) -> str:
    """` (id "fill1", type fill)` for a raw node."""
    bits: list[str] = []
    node_id = _raw_id(_get(node, "id"))
    if node_id is not None:
        bits.append(f"id {_q(node_id)}")
    kind = _get(_get(node, "data"), "type")
    if isinstance(kind, str) and kind:
        bits.append(f"type {_short(kind, 30)}")
    return f" ({', '.join(bits)})" if bits else ""


def _render(path: list[Any]) -> str:
    out = ""
    for segment in path:
        if isinstance(segment, int):
            out += f"[{segment}]"
        else:
            out += ("." if out else "") + str(segment)
    return out


def _describe(error: Any, raw: Any) -> str:
    """One pydantic error as `<place>: <field> <what is wrong>`."""
    loc = list(error["loc"])
    where = ""                 # the innermost node's place, e.g. 'graph.nodes[3] (id "fill1", type fill)'
    field: list[Any] = []      # the path below it
    current = raw
    k = 0
    if loc[:2] == ["workflow", "graph"]:
        field, current, k = ["graph"], _get(_get(raw, "workflow"), "graph"), 2
    while k < len(loc):
        segment = loc[k]
        if segment == "nodes" and k + 1 < len(loc) and isinstance(loc[k + 1], int):
            index = loc[k + 1]
            node = _get(_get(current, "nodes"), index)
            place = _render(field + ["nodes", index]) + _node_label(node)
            where = f"{where}: {place}" if where else place
            field, current, k = [], node, k + 2
            if k + 1 < len(loc) and loc[k] == "data":
                current, k = _get(node, "data"), k + 1
            continue
        field.append(segment)
        current = _get(current, segment)
        k += 1
    if error["type"] == "node_type":
        text = _node_type_problem(current)
    else:
        name = _render(field)
        phrase = _phrase(error)
        text = f"{name} {phrase}" if name else phrase
    return f"{where}: {text}" if where else text


def _node_type_problem(data: Any) -> str:
    known = ", ".join(NODE_TYPES)
    if not isinstance(data, dict):
        return "data must be an object"
    kind = data.get("type")
    if kind is None:
        return f"data.type is required (one of {known})"
    if not isinstance(kind, str):
        return "data.type must be text"
    return f"unknown node type {_q(kind)} (known: {known})"


def _phrase(error: Any) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    message = str(error.get("msg", ""))
    if kind == "bp":
        return message
    if kind == "missing":
        return "is required"
    if kind in ("string_type", "string_unicode"):
        return "must be text"
    if kind in ("bool_type", "bool_parsing"):
        return "must be true or false"
    if kind in ("list_type", "tuple_type"):
        return "must be a list"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "must be an object"
    if kind == "literal_error":
        value = error.get("input")
        got = f", not {json.dumps(value, ensure_ascii=False)}" \
            if isinstance(value, (str, int, float)) and len(str(value)) <= 40 else ""
        return f"must be {ctx.get('expected', 'one of the allowed values')}{got}"
    if kind in ("too_short", "string_too_short"):
        minimum = ctx.get("min_length", 1)
        return "must not be empty" if minimum == 1 else f"needs at least {minimum} items"
    if kind in ("value_error", "assertion_error"):
        return message.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if kind == "recursion_loop":
        return "is nested too deeply"
    return message[:1].lower() + message[1:]


# -- structure ---------------------------------------------------------------------------------------------
class _Level:
    """One graph level of the raw document: the top or a loop body."""

    def __init__(self, raw: dict[str, Any], place: str, owner: str | None) -> None:
        self.raw = raw
        self.place = place          # "graph", or the loop node's place
        self.owner = owner          # the loop's id (None at the top)
        self.nodes: dict[str, tuple[str, str | None]] = {}   # id -> (place, type)

    @property
    def top(self) -> bool:
        return self.owner is None

    def at(self, field: str) -> str:
        return f"graph.{field}" if self.top else f"{self.place}: {field}"

    @property
    def name(self) -> str:
        return "at the top level" if self.top else f'in the body of loop "{self.owner}"'


def _structure_problems(raw: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(refusals, warnings) about the graph's structure at every level."""
    refused: list[str] = []
    warnings: list[str] = _env_problems(raw)
    graph = _get(_get(raw, "workflow"), "graph")
    if not isinstance(graph, dict):
        return refused, warnings
    levels: list[_Level] = []
    first_place: dict[str, str] = {}
    where_id: dict[str, _Level] = {}

    def collect(level: _Level) -> None:
        levels.append(level)
        nodes = level.raw.get("nodes")
        for index, node in enumerate(nodes if isinstance(nodes, list) else []):
            place = level.at(f"nodes[{index}]") + _node_label(node)
            node_id = _raw_id(_get(node, "id"))
            data = _get(node, "data")
            kind = _get(data, "type")
            kind = kind if isinstance(kind, str) else None
            if node_id is not None:
                if node_id in first_place:
                    refused.append(f"{place}: id {_q(node_id)} is already used by {first_place[node_id]}")
                else:
                    first_place[node_id] = place
                    where_id[node_id] = level
                level.nodes.setdefault(node_id, (place, kind))
            if not level.top and kind == "start":
                warnings.append(f"{place}: a start node in a loop body does nothing")
            if kind == "loop" and isinstance(data, dict):
                inner = data.get("nodes")
                if not isinstance(inner, list) or not inner:
                    refused.append(f"{place}: nodes must not be empty: a loop needs a body")
                else:
                    collect(_Level(data, place, node_id or f"#{index}"))

    collect(_Level(graph, "graph", None))
    for level in levels:
        level_refused, level_warnings = _level_problems(level, where_id)
        refused += level_refused
        warnings += level_warnings
    return refused, warnings


def _env_problems(raw: dict[str, Any]) -> list[str]:
    variables = _get(_get(raw, "workflow"), "environment_variables")
    seen: dict[str, int] = {}
    problems = []
    for index, variable in enumerate(variables if isinstance(variables, list) else []):
        name = _get(variable, "name")
        if isinstance(name, str) and name.strip():
            if name in seen:
                problems.append(f"workflow.environment_variables[{index}].name {_q(name)} is already declared by "
                                f"workflow.environment_variables[{seen[name]}] (the later value is used)")
            else:
                seen[name] = index
    return problems


def _level_problems(level: _Level, where_id: dict[str, _Level]) -> tuple[list[str], list[str]]:
    refused: list[str] = []
    warnings: list[str] = []
    if not isinstance(level.raw.get("nodes", []), list):
        return refused, warnings  # reported as a field problem; nothing to check edges against
    if level.top:
        if not level.nodes and not level.raw.get("nodes"):
            refused.append("graph has no nodes: a workflow needs at least a start node")
        starts = [node_id for node_id, (_, kind) in level.nodes.items() if kind == "start"]
        if len(starts) != 1 and level.raw.get("nodes"):
            found = "none" if not starts else f"{len(starts)}: " + ", ".join(_q(s) for s in starts)
            refused.append(f"graph needs exactly one start node (found {found})")
    edges = level.raw.get("edges")
    adjacency: dict[str, list[str]] = {node_id: [] for node_id in level.nodes}
    for index, edge in enumerate(edges if isinstance(edges, list) else []):
        place = level.at(f"edges[{index}]")
        source, target = _raw_id(_get(edge, "source")), _raw_id(_get(edge, "target"))
        ok = True
        for end, value in (("source", source), ("target", target)):
            if value is not None and value not in level.nodes:
                ok = False
                elsewhere = where_id.get(value)
                hint = f" (it is {elsewhere.name})" if elsewhere is not None else ""
                refused.append(f"{place}: {end} {_q(value)} is not a node {level.name}{hint}")
        if source is None or target is None or not ok:
            continue
        adjacency[source].append(target)
        handle = _get(edge, "sourceHandle")
        if level.nodes[source][1] == "if-else":
            warnings += _handle_problem(place, source, edge, level)
        elif isinstance(handle, str) and handle not in ("", "source"):
            warnings.append(f"{place}: sourceHandle {_q(handle)} is never taken: a run leaves {_q(source)} by "
                            '"source"')
    for cycle in cycles(adjacency):
        warnings.append(f"{level.place if not level.top else 'graph'}: the edges form a cycle through "
                        + ", ".join(_q(node_id) for node_id in cycle) + " (a run fails when it reaches a node twice)")
    return refused, warnings


def _handle_problem(place: str, source: str, edge: Any, level: _Level) -> list[str]:
    handle = _get(edge, "sourceHandle")
    if handle is not None and not isinstance(handle, str):
        return []  # reported as a field problem
    cases = _get(_get(_node_raw(level, source), "data"), "cases")
    case_ids = [c.get("case_id") for c in cases if isinstance(c, dict)] if isinstance(cases, list) else []
    valid = [str(c) for c in case_ids if isinstance(c, (str, int)) and not isinstance(c, bool)]
    listed = ", ".join(_q(c) for c in valid)
    choices = f"a case_id of {_q(source)} ({listed}) or \"false\"" if valid else '"false" or a case_id'
    if handle in (None, "", "source"):  # a missing handle is filled in as "source"
        return [f"{place}: sourceHandle is missing: an edge leaving if-else {_q(source)} needs {choices} "
                "(this edge is never taken)"]
    if handle != RESERVED_HANDLE and handle not in valid:
        return [f"{place}: sourceHandle {_q(handle)} is not {choices} (this edge is never taken)"]
    return []


def _node_raw(level: _Level, node_id: str) -> Any:
    nodes = level.raw.get("nodes")
    for node in nodes if isinstance(nodes, list) else []:
        if _raw_id(_get(node, "id")) == node_id:
            return node
    return None


def cycles(adjacency: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with a cycle (Tarjan, iterative), nodes in document order."""
    order = {node_id: i for i, node_id in enumerate(adjacency)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in adjacency:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = adjacency[node]
            if child < len(successors):
                work.append((node, child + 1))
                nxt = successors[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in adjacency[node]:
                    found.append(sorted(component, key=order.__getitem__))
    return sorted(found, key=lambda c: order[c[0]])


def node_data_model(kind: str) -> type[NodeData] | None:
    """The `data` model of a node type, or None for an unknown type."""
    return NODE_TYPES.get(kind)

