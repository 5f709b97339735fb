"""Versions of saved workflows: every change (save, import, update, repair, restore) keeps the document as it
became, the last 50 per workflow, so a person can see what changed (`diff`) and go back (`restore`, itself a
new version).

One file per workflow, `workflow-versions/<wf-id>.json`, written through the workflow store's saver (atomic:
a temporary file, fsync, `os.replace`), before `workflows.json` is. A SIGKILL at any moment leaves each file
whole (the old or the new one); and when `workflows.json` holds a document that the newest version does not
(the process died between the two writes, or the file predates versions), `reconcile` keeps it as a version
(`recovered`) on the next start, so no saved document is ever without its version. Pure Python.
"""

from __future__ import annotations

import difflib
import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from plumbing import loggers
from plumbing.changes import StoreChanges
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import Saver
from workflows.runs import now

log = logging.getLogger(loggers.WORKFLOWS)

KEPT = 50
Reason = Literal["save", "import", "update", "repair", "restore", "recovered", "record"]
"""Why a version was kept (a stored file may hold others: `Version.reason` stays free text when read)."""


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Version(_Model):
    version: int
    at: datetime = Field(default_factory=now)
    reason: str = "save"
    name: str
    note: str = ""
    document: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        nodes = (((self.document.get("workflow") or {}).get("graph") or {}).get("nodes")) or []
        return {"version": self.version, "at": self.at.isoformat(), "reason": self.reason, "name": self.name,
                "note": self.note, "nodes": len(nodes)}


class VersionsDocument(_Model):
    schema_version: int = Field(default=1, alias="schema_version")
    workflow_id: str = ""
    versions: list[Version] = Field(default_factory=list)


class VersionStore:
    """The versions of every workflow of a data folder (loaded per workflow when first asked)."""

    def __init__(self, folder: Path, saver: Saver, workflow_ids: list[str],
                 changes: StoreChanges | None = None) -> None:
        """Loads the versions of `workflow_ids` now (at start-up: never later on the Qt thread). Each version kept
        is published on `changes` (store `versions`, the workflow's id)."""
        self.folder = folder
        self._saver = saver
        self.changes = changes or StoreChanges()
        self._loaded: dict[str, VersionsDocument] = {}
        for workflow_id in workflow_ids:
            self._doc(workflow_id)

    def _file(self, workflow_id: str) -> JsonStore[VersionsDocument]:
        return JsonStore(self.folder / f"{workflow_id}.json", VersionsDocument, VersionsDocument)

    def _doc(self, workflow_id: str) -> VersionsDocument:
        doc = self._loaded.get(workflow_id)
        if doc is None:
            loaded = self._file(workflow_id).load() if (self.folder / f"{workflow_id}.json").exists() else None
            doc = loaded.document if loaded is not None else VersionsDocument(workflow_id=workflow_id)
            if loaded is not None and loaded.problem:
                log.warning("versions of %s: %s", workflow_id, loaded.problem)
            self._loaded[workflow_id] = doc
        return doc

    def list(self, workflow_id: str) -> list[Version]:
        """Oldest first."""
        return [v.model_copy(deep=True) for v in self._doc(workflow_id).versions]

    def get(self, workflow_id: str, version: int) -> Version:
        for v in self._doc(workflow_id).versions:
            if v.version == version:
                return v.model_copy(deep=True)
        kept = [v.version for v in self._doc(workflow_id).versions]
        span = f"{kept[0]}–{kept[-1]}" if kept else "none"
        raise LookupError(f"there is no version {version} of this workflow (kept: {span})")

    def add(self, workflow_id: str, name: str, document: dict[str, Any], reason: Reason, note: str = "") -> Version:
        """Keep `document` as the newest version (the last KEPT are kept); written through the saver."""
        doc = self._doc(workflow_id)
        number = (doc.versions[-1].version + 1) if doc.versions else 1
        version = Version(version=number, reason=reason, name=name, note=note, document=json.loads(json.dumps(document)))
        versions = [*doc.versions, version][-KEPT:]
        doc = doc.model_copy(update={"versions": versions})
        self._loaded[workflow_id] = doc
        data = doc.model_dump(mode="json", by_alias=True)
        self._saver.save(self.folder / f"{workflow_id}.json", lambda: encode_json(data))
        self.changes.publish("versions", "created", workflow_id)
        return version.model_copy(deep=True)

    def reconcile(self, workflow_id: str, name: str, document: dict[str, Any]) -> Version | None:
        """Keep the saved document as a version when the newest one is not it (see the module's docstring)."""
        versions = self._doc(workflow_id).versions
        if versions and _same(versions[-1].document, document):
            return None
        return self.add(workflow_id, name, document, "recovered")


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# -- differences -------------------------------------------------------------------------------------------------
def _nodes(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    nodes = (((document.get("workflow") or {}).get("graph") or {}).get("nodes")) or []
    return {str(n.get("id")): n for n in nodes if isinstance(n, dict)}


def _title(node: dict[str, Any]) -> str:
    data = node.get("data") or {}
    return f"{node.get('id')} ({data.get('type')}{' ' + repr(data['title']) if data.get('title') else ''})"


def diff(a: Version, b: Version) -> dict[str, Any]:
    """What changed from version `a` to `b`: one line per node added, removed or changed (with the fields that
    changed), edges and the name, and a unified diff of the two documents' JSON."""
    changes: list[str] = []
    if a.name != b.name:
        changes.append(f"renamed {a.name!r} -> {b.name!r}")
    na, nb = _nodes(a.document), _nodes(b.document)
    for node_id in nb.keys() - na.keys():
        changes.append(f"added node {_title(nb[node_id])}")
    for node_id in na.keys() - nb.keys():
        changes.append(f"removed node {_title(na[node_id])}")
    for node_id in sorted(na.keys() & nb.keys()):
        da, db = na[node_id].get("data") or {}, nb[node_id].get("data") or {}
        fields = sorted(k for k in da.keys() | db.keys() if json.dumps(da.get(k), sort_keys=True) !=
                        json.dumps(db.get(k), sort_keys=True))
        if fields:
            changes.append(f"changed node {_title(nb[node_id])}: {', '.join(fields)}")
    edges = lambda d: {(e.get("source"), e.get("target"), e.get("sourceHandle")) for e in  # noqa: E731
                       ((d.get("workflow") or {}).get("graph") or {}).get("edges") or []}
    ea, eb = edges(a.document), edges(b.document)
    if ea != eb:
        changes.append(f"edges: {len(eb - ea)} added, {len(ea - eb)} removed")
    text = lambda v: json.dumps(v.document, indent=1, sort_keys=True, ensure_ascii=False).splitlines()  # noqa: E731
    unified = "\n".join(difflib.unified_diff(text(a), text(b), f"version {a.version}", f"version {b.version}",
                                             lineterm=""))
    return {"from": a.version, "to": b.version, "changes": changes, "diff": unified}
