"""Workflow documents for tests, written the way a file holds them: nodes, a chain of them, an envelope check."""

from __future__ import annotations

from typing import Any


def ok(result: dict[str, Any]) -> dict[str, Any]:
    """An operation's envelope that must have succeeded (the whole envelope in the failure's message)."""
    assert result["ok"], result
    return result


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def chain(name: str, *nodes: dict[str, Any]) -> dict[str, Any]:
    """A BrowserPilot 0.3.0 document whose nodes run one after the other, in the order given."""
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"graph": {"nodes": list(nodes), "edges": edges}}}
