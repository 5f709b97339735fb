"""`workflows.json`: saved workflows by name. Saving a workflow whose name exists replaces its graph and keeps
its `wf-` id. Documents are stored in the 0.3.0 shape (`dump_document`), validated on the way in. Every save
keeps a version (workflows/versions.py).

The workflows in memory are the truth; each one's JSON data is made once when it is saved, and the file is
written by the store's saver (plumbing/savemanager.py: in the app off the Qt thread, debounced; by default at
once, a failed write leaving the store as it was). Each save and delete is published on the store's change feed
(plumbing/changes.py: store `workflows`, the workflow's id)."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from plumbing import loggers
from plumbing.changes import StoreChanges
from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import ImmediateSaver, Saver
from workflows.runs import now
from workflows.versions import Reason, VersionStore

log = logging.getLogger(loggers.WORKFLOWS)


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class SavedWorkflow(_Model):
    id: str
    name: str
    description: str = ""
    document: dict[str, Any]
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)
    node_count: int = 0


class WorkflowsDocument(_Model):
    schema_version: int = Field(default=1, alias="schema_version")
    workflows: list[SavedWorkflow] = Field(default_factory=list)


class WorkflowStore:
    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()
        self._file = JsonStore(data.root / "workflows.json", WorkflowsDocument, WorkflowsDocument)
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self._doc = loaded.document
        # Each workflow as JSON data, made once (a new dict when it changes; never changed in place).
        self._entries: dict[str, dict[str, Any]] = {wf.id: self._dump(wf) for wf in self._doc.workflows}
        self.versions = VersionStore(data.root / "workflow-versions", self._saver,
                                     [wf.id for wf in self._doc.workflows], self.changes)
        for wf in self._doc.workflows:  # a document saved without its version (see workflows/versions.py)
            self.versions.reconcile(wf.id, wf.name, wf.document)

    def list(self) -> list[SavedWorkflow]:
        return [wf.model_copy(deep=True) for wf in self._doc.workflows]

    def find(self, name_or_id: str) -> SavedWorkflow:
        for wf in self._doc.workflows:
            if name_or_id in (wf.id, wf.name):
                return wf.model_copy(deep=True)
        lowered = name_or_id.casefold()
        for wf in self._doc.workflows:
            if wf.name.casefold() == lowered:
                return wf.model_copy(deep=True)
        raise LookupError(f"there is no workflow named {name_or_id!r}; workflow_list shows the saved ones")

    def save(self, name: str, description: str, document: dict[str, Any], node_count: int, *,
             workflow_id: str | None = None, reason: Reason = "save", note: str = "") -> tuple[SavedWorkflow, bool]:
        """Insert or replace by name (or, with `workflow_id`, replace that workflow, renaming it and keeping its
        id); returns the saved workflow and whether it replaced one. The document is kept as a new version
        (`reason`: save, import, update, repair, restore, record), written before workflows.json."""
        workflows = list(self._doc.workflows)
        if workflow_id is not None:
            index = next((i for i, wf in enumerate(workflows) if wf.id == workflow_id), None)
            if index is None:
                raise LookupError(f"there is no workflow {workflow_id}")
            if any(wf.name == name and wf.id != workflow_id for wf in workflows):
                raise ValueError(f"a workflow named {name!r} exists already")
            workflows[index] = workflows[index].model_copy(update={"name": name})
        else:
            index = next((i for i, wf in enumerate(workflows) if wf.name == name), None)
        if index is None:
            saved = SavedWorkflow(id=f"wf-{secrets.token_hex(4)}", name=name, description=description,
                                  document=document, node_count=node_count)
            workflows.append(saved)
        else:
            saved = workflows[index].model_copy(update={"description": description, "document": document,
                                                        "updated_at": now(), "node_count": node_count})
            workflows[index] = saved
        self.versions.add(saved.id, name, document, reason, note)
        self._commit(workflows)
        log.info("saved workflow %s (%s)", saved.id, name)
        self.changes.publish("workflows", "updated" if index is not None else "created", saved.id)
        return saved.model_copy(deep=True), index is not None

    def delete(self, name_or_id: str) -> SavedWorkflow:
        target = self.find(name_or_id)
        self._commit([wf for wf in self._doc.workflows if wf.id != target.id])
        self.changes.publish("workflows", "deleted", target.id)
        return target

    @staticmethod
    def _dump(workflow: SavedWorkflow) -> dict[str, Any]:
        return workflow.model_dump(mode="json", by_alias=True)

    def _commit(self, workflows: list[SavedWorkflow]) -> None:
        """Hand the new list to the saver (only changed workflows are dumped), then make it current."""
        current = {wf.id: wf for wf in self._doc.workflows}
        entries = {wf.id: (self._entries[wf.id] if current.get(wf.id) is wf and wf.id in self._entries
                           else self._dump(wf)) for wf in workflows}
        snapshot = {"schema_version": self._file.schema_version, "workflows": list(entries.values())}
        self._saver.save(self._file.path, lambda: encode_json(snapshot))
        self._doc = self._doc.model_copy(update={"workflows": workflows})
        self._entries = entries
