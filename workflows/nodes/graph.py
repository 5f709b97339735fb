"""Nodes, edges and graphs of a workflow document (one level: the top, or a loop's body).

`Node.data` is validated as the class its `type` names (`workflows.nodes.base.NODE_TYPES`); data that does
not fit, or an unknown type, is kept as `RawNodeData` (the document reports a warning; the node fails only
when a run reaches it). A node without an id or without `data.type` is refused. Edge defaults are filled when
missing or empty: `e<i>-<source>-<target>`, `source`, `target`. Pure Python: no Qt here.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BeforeValidator, Field, PlainValidator, SerializeAsAny, ValidationError, \
    model_validator

from workflows.nodes.base import NODE_TYPES, NodeData, RawNodeData
from workflows.nodes.values import DocumentModel, Number, Text, _non_blank, problem

RESERVED_HANDLE = "false"
"""The `sourceHandle` of an if-else's else branch."""
DEFAULT_HANDLE = "source"


def _node_id(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


NodeId = Annotated[str, BeforeValidator(_node_id), AfterValidator(_non_blank)]


def _node_data(value: Any) -> NodeData:
    if isinstance(value, NodeData):
        return value
    if not isinstance(value, dict):
        raise problem("must be an object with a type")
    kind = value.get("type")
    if not isinstance(kind, str) or not kind.strip():
        raise problem(f"type is required (one of {', '.join(NODE_TYPES)})")
    model = NODE_TYPES.get(kind)
    if model is None:
        return RawNodeData.with_problems(value, [f"unknown node type {kind!r}"])
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raw = RawNodeData.with_problems(value, [])
        raw._errors = exc.errors(include_url=False)
        return raw


class Position(DocumentModel):
    x: Number
    y: Number


class Node(DocumentModel):
    id: NodeId
    data: Annotated[SerializeAsAny[NodeData], PlainValidator(_node_data)]
    position: Position | None = None

    @property
    def type(self) -> str:
        return self.data.type

    @property
    def title(self) -> str:
        return self.data.title or self.id


class Edge(DocumentModel):
    """`{id?, source, target, sourceHandle?, targetHandle?}`; missing or empty ones are filled with
    `e<i>-<source>-<target>`, `source` and `target` (i: the edge's index in its list)."""

    id: Text | None = None
    source: NodeId
    target: NodeId
    sourceHandle: Text | None = None
    targetHandle: Text | None = None

    @property
    def handle(self) -> str:
        return self.sourceHandle or DEFAULT_HANDLE


def fill_edge_defaults(edges: list[Edge]) -> None:
    for index, edge in enumerate(edges):
        if not edge.id:
            edge.id = f"e{index}-{edge.source}-{edge.target}"
        if not edge.sourceHandle:
            edge.sourceHandle = DEFAULT_HANDLE
        if not edge.targetHandle:
            edge.targetHandle = "target"


class Graph(DocumentModel):
    """One level of a workflow: the top level, or a loop's body. Structure (ids, edge ends) is checked by
    `workflows.document.validate_document`."""

    always_dumped: ClassVar[tuple[str, ...]] = ("nodes", "edges")
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)

    @model_validator(mode="after")
    def _defaults(self) -> "Graph":
        fill_edge_defaults(self.edges)
        return self

    def get(self, node_id: str) -> Node | None:
        return next((node for node in self.nodes if node.id == node_id), None)

    def node(self, node_id: str) -> Node:
        """The node with this id at this level; KeyError if there is none."""
        found = self.get(node_id)
        if found is None:
            raise KeyError(f'no node "{node_id}" here')
        return found

    def entry_nodes(self) -> list[Node]:
        """Nodes no edge leads to, in document order (a loop body's passes walk each of them in turn)."""
        targets = {edge.target for edge in self.edges}
        return [node for node in self.nodes if node.id not in targets]

    def start_node(self) -> Node:
        """The `start` node at the top level; in a loop body, its first entry node."""
        start = next((node for node in self.nodes if node.type == "start"), None)
        if start is not None:
            return start
        entries = self.entry_nodes()
        if not entries:
            raise KeyError("this graph has no entry node")
        return entries[0]

    def outgoing(self, node_id: str, handle: str = DEFAULT_HANDLE) -> list[str]:
        """Targets of the edges leaving `node_id` by `handle`, in document order (the original's rule: an
        edge without a sourceHandle leaves by "source"; an if-else leaves by its matching case_id or "false")."""
        return [edge.target for edge in self.edges if edge.source == node_id and edge.handle == handle]

    def successors(self, node_id: str, handle: str | None = None) -> list[str]:
        """Targets of the edges leaving `node_id`, in document order without repeats; with a `handle`, only
        the edges leaving by it."""
        out: list[str] = []
        for edge in self.edges:
            if edge.source == node_id and (handle is None or edge.handle == handle) and edge.target not in out:
                out.append(edge.target)
        return out

    def predecessors(self, node_id: str) -> list[str]:
        out: list[str] = []
        for edge in self.edges:
            if edge.target == node_id and edge.source not in out:
                out.append(edge.source)
        return out
