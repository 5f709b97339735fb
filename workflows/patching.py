"""Changing a workflow document in place, as `workflow_update` asks (pure Python, no Qt): upsert nodes and edges
at any level (a loop's body is a level), remove them by id, replace the environment variables, rename, describe.
The original BrowserPilot's `addNodes` / `replaceNodes` / `addEdges` are taken too. The document is its raw JSON;
it is validated after the change (workflows/document.py), not here."""

from __future__ import annotations

from typing import Any, Iterator, Protocol


class PatchError(ValueError):
    """The change names a node, an edge or a parent the document does not have."""


class DocumentChanges(Protocol):
    """What one update asks of a document (app/ops/workflow_ops.py `WorkflowUpdateParams`)."""

    rename: str | None
    description: str | None
    environment_variables: list[dict[str, Any]] | None
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    remove_nodes: list[str]
    remove_edges: list[str]
    add_nodes: list[dict[str, Any]]
    replace_nodes: list[dict[str, Any]]
    add_edges: list[dict[str, Any]]


def _levels(level: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The graph level and every loop body inside it, depth first: dicts with `nodes` and `edges`."""
    level.setdefault("nodes", [])
    level.setdefault("edges", [])
    yield level
    for node in level["nodes"]:
        data = node.get("data") if isinstance(node, dict) else None
        if isinstance(data, dict) and data.get("type") == "loop":
            yield from _levels(data)


def apply_update(raw: dict[str, Any], params: DocumentChanges) -> None:
    """Apply `params` to a document (raw JSON, in place); a `PatchError` for ids that do not exist."""
    graph = raw["workflow"]["graph"]
    if params.description is not None:
        raw["app"]["description"] = params.description
    if params.rename is not None:
        raw["app"]["name"] = params.rename
    if params.environment_variables is not None:
        raw["workflow"]["environment_variables"] = params.environment_variables
    _remove_nodes(graph, params.remove_nodes)
    for node in params.replace_nodes:
        if not _replace_node(graph, node):
            raise PatchError(f"replaceNodes names a node that does not exist: {node.get('id')}")
    for node in params.nodes:
        _upsert_node(graph, node)
    graph["nodes"].extend(params.add_nodes)
    _remove_edges(graph, params.remove_edges)
    for edge in params.edges:
        _upsert_edge(graph, edge)
    graph["edges"].extend(params.add_edges)


def _remove_nodes(graph: dict[str, Any], ids: list[str]) -> None:
    known = {node.get("id") for level in _levels(graph) for node in level["nodes"]}
    unknown = [node_id for node_id in ids if node_id not in known]
    if unknown:
        raise PatchError(f"removeNodes names nodes that do not exist: {', '.join(unknown)}")
    removed = set(ids)
    for level in _levels(graph):
        level["nodes"] = [node for node in level["nodes"] if node.get("id") not in removed]
        level["edges"] = [edge for edge in level["edges"]
                          if edge.get("source") not in removed and edge.get("target") not in removed]


def _replace_node(graph: dict[str, Any], node: dict[str, Any]) -> bool:
    for level in _levels(graph):
        for index, existing in enumerate(level["nodes"]):
            if existing.get("id") == node.get("id"):
                level["nodes"][index] = node
                return True
    return False


def _upsert_node(graph: dict[str, Any], patch: dict[str, Any]) -> None:
    node = {key: value for key, value in patch.items() if key != "parent"}
    if _replace_node(graph, node):
        return
    parent = patch.get("parent")
    if parent is None:
        graph["nodes"].append(node)
        return
    for level in _levels(graph):
        for owner in level["nodes"]:
            data = owner.get("data") or {}
            if owner.get("id") == parent and data.get("type") == "loop":
                data.setdefault("nodes", []).append(node)
                return
    raise PatchError(f"node {node.get('id')}: parent {parent!r} is not a loop node of this workflow")


def _remove_edges(graph: dict[str, Any], ids: list[str]) -> None:
    known = {edge.get("id") for level in _levels(graph) for edge in level["edges"]}
    unknown = [edge_id for edge_id in ids if edge_id not in known]
    if unknown:
        raise PatchError(f"removeEdges names edges that do not exist: {', '.join(unknown)}")
    for level in _levels(graph):
        level["edges"] = [edge for edge in level["edges"] if edge.get("id") not in set(ids)]


def _upsert_edge(graph: dict[str, Any], edge: dict[str, Any]) -> None:
    if edge.get("id") is not None:
        for level in _levels(graph):
            for index, existing in enumerate(level["edges"]):
                if existing.get("id") == edge["id"]:
                    level["edges"][index] = {**existing, **edge}
                    return
    handle = edge.get("sourceHandle") or "source"
    for level in _levels(graph):
        ids = {node.get("id") for node in level["nodes"]}
        if edge.get("source") not in ids or edge.get("target") not in ids:
            continue
        for index, existing in enumerate(level["edges"]):
            if (existing.get("source"), existing.get("target"), existing.get("sourceHandle") or "source") == \
                    (edge.get("source"), edge.get("target"), handle):
                level["edges"][index] = {**existing, **edge}
                return
        level["edges"].append(edge)
        return
    raise PatchError(f"edge {edge.get('source')} -> {edge.get('target')}: no level of the workflow has both nodes")
