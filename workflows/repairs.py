"""Proposed repairs: a node whose element was healed during a run (no locator found it; its fingerprint did)
proposes that the workflow keep the healed element's locator instead. A person accepts it (the Runs panel, the
editor, `workflow_repair`); a workflow whose `app.autoRepair` is N (ours; default off) accepts a deterministic
repair by itself once the same node healed to the same element in its last N runs, all successful. An accepted
repair is saved as a new version (reason `repair`). A heal by the model is only ever accepted by a person. Pure
Python.
"""

from __future__ import annotations

import copy
from typing import Any, Iterator

from workflows.runs import RunRecord


def target_key(locator: dict[str, Any] | None) -> str:
    """What names a healed element, to compare heals of different runs: its new primary."""
    locator = locator or {}
    return str(locator.get("selector") or locator.get("xpath") or "")


def proposals(record: RunRecord) -> list[dict[str, Any]]:
    """The repairs a finished, successful run proposes: one per healed node, `{runId, node, title, from, to,
    score, why, element, shot?}`."""
    if record.status != "ok":
        return []
    out = []
    for entry in record.trace:
        if entry.healed and entry.ok and target_key(entry.healed.get("to")):
            out.append({"runId": record.id, "node": entry.node, "title": entry.title, **entry.healed})
    return out


def _levels(graph: dict[str, Any]) -> Iterator[list[dict[str, Any]]]:
    nodes = graph.get("nodes") or []
    yield nodes
    for node in nodes:
        data = node.get("data") or {}
        if data.get("type") == "loop":
            yield from _levels(data)


def apply(document: dict[str, Any], node_id: str, locator: dict[str, Any]) -> dict[str, Any]:
    """A copy of `document` with node `node_id`'s locator (at any level) replaced by `locator`."""
    out = copy.deepcopy(document)
    for nodes in _levels((out.get("workflow") or {}).get("graph") or {}):
        for node in nodes:
            if node.get("id") == node_id and isinstance(node.get("data"), dict):
                node["data"]["locator"] = copy.deepcopy(locator)
                return out
    raise LookupError(f"the workflow has no node {node_id!r} any more")


def current_key(document: dict[str, Any], node_id: str) -> str | None:
    """The primary of node `node_id`'s locator now (None when the node is gone)."""
    for nodes in _levels((document.get("workflow") or {}).get("graph") or {}):
        for node in nodes:
            if node.get("id") == node_id:
                return target_key((node.get("data") or {}).get("locator"))
    return None


def auto_repair_runs(document: dict[str, Any]) -> int:
    """`app.autoRepair`: after how many successful runs healing a node the same way its repair is accepted by
    itself (0: never, the default)."""
    value = (document.get("app") or {}).get("autoRepair")
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def due(history: list[RunRecord], node_id: str, key: str, runs: int) -> bool:
    """Whether the newest `runs` runs (newest first, their index entries) all succeeded and each healed
    `node_id` to the element `key`."""
    if runs <= 0 or len(history) < runs:
        return False
    return all(r.status == "ok" and any(h.get("node") == node_id and h.get("key") == key and not h.get("byModel")
                                        for h in r.healed)
               for r in history[:runs])
