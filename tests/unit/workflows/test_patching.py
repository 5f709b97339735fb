"""Changing a workflow document in place (workflows/patching.py), without the app: what `workflow_update` does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from workflows.patching import PatchError, apply_update


@dataclass
class Changes:
    rename: str | None = None
    description: str | None = None
    environment_variables: list[dict[str, Any]] | None = None
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    remove_nodes: list[str] = field(default_factory=list)
    remove_edges: list[str] = field(default_factory=list)
    add_nodes: list[dict[str, Any]] = field(default_factory=list)
    replace_nodes: list[dict[str, Any]] = field(default_factory=list)
    add_edges: list[dict[str, Any]] = field(default_factory=list)


def document() -> dict[str, Any]:
    loop = {"id": "loop", "data": {"type": "loop", "nodes": [{"id": "inner", "data": {"type": "click"}}],
                                   "edges": []}}
    return {"app": {"name": "w", "description": ""}, "workflow": {"environment_variables": [], "graph": {
        "nodes": [{"id": "start", "data": {"type": "start"}}, loop, {"id": "end", "data": {"type": "end"}}],
        "edges": [{"id": "e1", "source": "start", "target": "loop"}, {"id": "e2", "source": "loop", "target": "end"}]}}}


def test_a_node_with_a_parent_goes_into_that_loops_body_and_an_edge_joins_its_level() -> None:
    raw = document()
    apply_update(raw, Changes(nodes=[{"id": "typed", "parent": "loop", "data": {"type": "type"}}],
                              edges=[{"source": "inner", "target": "typed"}]))
    body = raw["workflow"]["graph"]["nodes"][1]["data"]
    assert [node["id"] for node in body["nodes"]] == ["inner", "typed"]
    assert "parent" not in body["nodes"][1]
    assert body["edges"] == [{"source": "inner", "target": "typed"}]


def test_removing_a_node_removes_its_edges_at_every_level_and_rename_and_description_land() -> None:
    raw = document()
    apply_update(raw, Changes(remove_nodes=["loop"], rename="new", description="d"))
    graph = raw["workflow"]["graph"]
    assert [node["id"] for node in graph["nodes"]] == ["start", "end"] and graph["edges"] == []
    assert raw["app"] == {"name": "new", "description": "d"}


@pytest.mark.parametrize("changes, says", [
    (Changes(remove_nodes=["nope"]), "removeNodes names nodes that do not exist: nope"),
    (Changes(remove_edges=["e9"]), "removeEdges names edges that do not exist: e9"),
    (Changes(replace_nodes=[{"id": "nope"}]), "replaceNodes names a node that does not exist: nope"),
    (Changes(nodes=[{"id": "x", "parent": "start"}]), "parent 'start' is not a loop node"),
    (Changes(edges=[{"source": "inner", "target": "end"}]), "no level of the workflow has both nodes"),
])
def test_what_the_document_does_not_have_is_refused_by_name(changes: Changes, says: str) -> None:
    with pytest.raises(PatchError, match=says.replace("(", r"\(")):
        apply_update(document(), changes)
