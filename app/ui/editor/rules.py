"""The runtime's rules for edges, as the editor checks them before it connects, and new ids.

`connection_problem` says why the runtime would refuse (or fail on) an edge, or None: no self-loops, no
duplicate edge, no cycle, both ends on the same level, and a second input only where the walk can never
reach the node twice (the inputs come from different branches of an if-else). No widgets: only the
messages go through Qt's translation."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QCoreApplication

JsonDict = dict[str, Any]


def _handle(edge: JsonDict) -> str:
    return str(edge.get("sourceHandle") or "source")


def _successors(edges: list[JsonDict]) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for edge in edges:
        out.setdefault(str(edge.get("source")), []).append((_handle(edge), str(edge.get("target"))))
    return out


def reachable(edges: list[JsonDict], start: str) -> set[str]:
    """Every node a walk from `start` can reach (start included)."""
    succ = _successors(edges)
    seen = {start}
    stack = [start]
    while stack:
        for _handle_name, nxt in succ.get(stack.pop(), []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _exclusive(nodes: dict[str, JsonDict], edges: list[JsonDict], a: str, b: str) -> bool:
    """Whether a walk can reach at most one of `a` and `b`: some if-else reaches them only through
    different handles."""
    succ = _successors(edges)
    for node_id, node in nodes.items():
        if (node.get("data") or {}).get("type") != "if-else":
            continue
        via_a = {h for h, t in succ.get(node_id, []) if a in reachable(edges, t)} | ({"self"} if node_id == a else set())
        via_b = {h for h, t in succ.get(node_id, []) if b in reachable(edges, t)} | ({"self"} if node_id == b else set())
        if via_a and via_b and not via_a & via_b and "self" not in via_a | via_b:
            return True
    return False


def connection_problem(level_nodes: list[JsonDict], edges: list[JsonDict], source: str, handle: str,
                       target: str) -> str | None:
    nodes = {str(n.get("id")): n for n in level_nodes}
    if source not in nodes or target not in nodes:
        return QCoreApplication.translate("EditorRules", "both ends must be nodes of the same level (an edge cannot "
                                                         "cross into or out of a loop body)")
    if source == target:
        return QCoreApplication.translate("EditorRules", "a node cannot be connected to itself")
    if any(str(e.get("source")) == source and str(e.get("target")) == target and _handle(e) == handle
           for e in edges):
        return QCoreApplication.translate("EditorRules", '"{source}" is already connected to "{target}" there').format(
            source=source, target=target)
    if (nodes[target].get("data") or {}).get("type") == "start":
        return QCoreApplication.translate("EditorRules", "nothing can lead into the start node")
    if source in reachable(edges, target):
        return QCoreApplication.translate("EditorRules", 'connecting "{source}" to "{target}" would make a cycle (a '
                                                         'run fails when it reaches a node twice)').format(
            source=source, target=target)
    inputs = {str(e.get("source")) for e in edges if str(e.get("target")) == target}
    source_is_branch = (nodes[source].get("data") or {}).get("type") == "if-else"
    for other in inputs:
        if other == source and source_is_branch:
            continue  # another case of the same if-else: only one of them is taken
        if other == source or not _exclusive(nodes, edges, other, source):
            return QCoreApplication.translate("EditorRules", '"{target}" already has an input from "{other}": a '
                                                             "second one is only allowed from another branch of an "
                                                             "if-else (otherwise a run reaches it twice)").format(
                target=target, other=other)
    return None


def new_node_id(kind: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_]", "_", kind) or "node"
    number = 1
    while f"{base}{number}" in taken:
        number += 1
    return f"{base}{number}"


def unique_id(wanted: str, taken: set[str]) -> str:
    if wanted not in taken:
        return wanted
    stem = re.sub(r"_\d+$", "", wanted)
    number = 2
    while f"{stem}_{number}" in taken:
        number += 1
    return f"{stem}_{number}"


def new_edge_id(source: str, handle: str, target: str, taken: set[str]) -> str:
    wanted = f"e-{source}-{target}" if handle == "source" else f"e-{source}-{handle}-{target}"
    return unique_id(wanted, taken)
