"""Workflow operations: write, update, list, read, import, export and delete saved workflows; their history,
diff and restore (every change keeps a version: workflows/versions.py); the repairs their runs propose, accepted
by a person (`workflow_repair`) or by themselves (`auto_repair`). Running them is app/ops/run_ops.py. Documents
are BrowserPilot 0.3.0 workflow files; validation errors name the exact place.

The original BrowserPilot's forms are accepted too: `workflow_write {app, workflow}` (the document split in
two), `workflow` as a name or id wherever a workflow is named (a document is still accepted: an object, or
text that starts with `{`), and `workflow_update`'s `nodes` / `edges` upserts (workflows/patching.py). Results
carry the original's names beside ours (`id`, `name`, `nodes` as a count, `params`).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import PathResult, RepairProposal, WorkflowDeleteResult, WorkflowDiffResult, WorkflowHistoryResult, WorkflowListResult, WorkflowReadResult, WorkflowRepairResult, WorkflowRepairsResult, WorkflowRestoreResult, WorkflowSaveResult, WorkflowSummary, WorkflowVersionSummary, WorkflowParam
from workflows.envelope import Envelope
from plumbing import loggers
from plumbing.filenames import safe_name_with_extension
from plumbing.savemanager import in_thread
from workflows.document import FORMAT_VERSION, WorkflowDocument, validate_document
from workflows.io import dump_document, load_any, parse_json
from workflows.patching import PatchError, apply_update
from workflows.runs import RunRecord
from workflows.store import SavedWorkflow
from workflows.repairs import apply as apply_repair
from workflows.repairs import auto_repair_runs, current_key, target_key
from workflows.repairs import due as repair_due
from workflows.repairs import proposals as repair_proposals
from workflows.versions import Reason, diff as diff_versions

log = logging.getLogger(loggers.OPS)

DOC_HELP = ("A document {kind: 'app', version: '0.3.0', app: {name}, workflow: {environment_variables, graph: "
            "{nodes, edges}}}.")
WORKFLOW_REF_HELP = "Name, wf- id or document."


def document_of(raw: Any) -> WorkflowDocument:
    if isinstance(raw, str):
        raw = parse_json(raw)
    return validate_document(raw)


def is_document_text(value: Any) -> bool:
    return isinstance(value, str) and value.lstrip().startswith("{")


def _params_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The start variables of a stored document as the original lists them: name, description, type, options."""
    nodes = (((document.get("workflow") or {}).get("graph") or {}).get("nodes")) or []
    start = next((node for node in nodes if isinstance(node, dict) and (node.get("data") or {}).get("type") == "start"),
                 None)
    variables = ((start or {}).get("data") or {}).get("variables") or []
    kinds = {"number": "number", "time": "time", "select": "select", "radio": "select", "checkbox": "checkbox",
             "secret": "secret"}
    return [{"name": item["variable"], "description": item.get("label"), "type": kinds.get(item.get("type"), "text"),
             "options": [str(option) for option in item.get("options") or []]}
            for item in variables if isinstance(item, dict) and item.get("variable")]


def _summary(saved: SavedWorkflow, ctx: OpContext, *, original_names: bool = False) -> WorkflowSummary:
    """A saved workflow as the operations list it; `original_names`: with the original's `remark` and `nodes`."""
    last = ctx.runs.list(limit=1, workflow=saved.id)
    extra = {"remark": saved.description, "nodes": saved.node_count} if original_names else {}
    return WorkflowSummary(
        id=saved.id, name=saved.name, description=saved.description, node_count=saved.node_count,
        params=[WorkflowParam.model_validate(param) for param in _params_of(saved.document)],
        updated_at=saved.updated_at.isoformat(),
        last_run=({"id": last[0].id, "status": last[0].status, "startedAt": last[0].started_at.isoformat()}
                  if last else None), **extra)


def _save(ctx: OpContext, doc: WorkflowDocument, workflow_id: str | None = None, reason: Reason = "save",
          note: str = "") -> WorkflowSaveResult:
    """Save by name (or replace `workflow_id`, keeping its id through a rename); a new version (`reason`)."""
    saved, replaced = ctx.workflows.save(doc.name, doc.app.description or "", json.loads(dump_document(doc)),
                                         doc.node_count(), workflow_id=workflow_id, reason=reason, note=note)
    summary = _summary(saved, ctx)
    return WorkflowSaveResult(workflow=summary, replaced=replaced, warnings=doc.warnings, id=saved.id,
                              name=saved.name, nodes=saved.node_count, params=summary.params)


# -- parameters ------------------------------------------------------------------------------------------
class WorkflowWriteParams(Params):
    workflow: dict[str, Any] | str = Field(description=DOC_HELP + " With app: its workflow part.")
    app: dict[str, Any] | None = None
    kind: str | None = None
    version: str | None = None


class WorkflowRef(Params):
    name: str | None = Field(default=None, description="A saved workflow's name or wf- id.")
    workflow: dict[str, Any] | str | None = Field(default=None, description=WORKFLOW_REF_HELP)

    @model_validator(mode="after")
    def _one(self) -> "WorkflowRef":
        if (self.name is None) == (self.workflow is None):
            raise ValueError("give exactly one of name or workflow")
        return self

    def key(self) -> str:
        """The name or id of the workflow meant (a document: its app.name)."""
        if self.name is not None:
            return self.name
        if isinstance(self.workflow, str) and not is_document_text(self.workflow):
            return self.workflow
        return document_of(self.workflow).name


class WorkflowUpdateParams(WorkflowRef):
    rename: str | None = Field(default=None, description="New name (the id stays).")
    description: str | None = None
    nodes: list[dict[str, Any]] = Field(default_factory=list, description="Upsert by id at any level; a new node "
                                                                          "with parent (a loop id) goes into its body.")
    edges: list[dict[str, Any]] = Field(default_factory=list, description="Upsert by id, or by source, target and "
                                                                          "sourceHandle, on the level of both ends.")
    remove_nodes: list[str] = Field(default_factory=list, description="Ids of nodes to remove (with their edges).")
    remove_edges: list[str] = Field(default_factory=list, description="Ids of edges to remove.")
    environment_variables: list[dict[str, Any]] | None = Field(default=None, alias="environment_variables",
                                                               description="Replace them: [{name, value}].")
    add_nodes: list[dict[str, Any]] = Field(default_factory=list, description="Nodes to add at the top level.")
    replace_nodes: list[dict[str, Any]] = Field(default_factory=list, description="Nodes replacing those with "
                                                                                  "the same id (any level).")
    add_edges: list[dict[str, Any]] = Field(default_factory=list, description="Edges to add at the top level.")

    def changes_nothing(self) -> bool:
        return (self.rename is None and self.description is None and self.environment_variables is None
                and not any((self.nodes, self.edges, self.remove_nodes, self.remove_edges, self.add_nodes,
                             self.replace_nodes, self.add_edges)))


class PathParams(Params):
    path: str = Field(description="Path of a workflow file (or a Chrome DevTools Recorder JSON recording).")


class ExportParams(WorkflowRef):
    path: str | None = Field(default=None, description="Where to write; default exports/<name>.json in the data folder.")


# -- operations ------------------------------------------------------------------------------------------
@operation("workflow_write", WorkflowWriteParams, WorkflowSaveResult, group="core")
async def workflow_write(ctx: OpContext, params: WorkflowWriteParams) -> WorkflowSaveResult:
    """Save a workflow document (a name that exists is replaced, its id kept); every problem is reported with
    its place. Save steps that worked, then workflow_run them in one call."""
    if params.app is None:
        return _save(ctx, document_of(params.workflow))
    body = parse_json(params.workflow) if isinstance(params.workflow, str) else params.workflow
    return _save(ctx, validate_document({"kind": params.kind or "app", "version": params.version or FORMAT_VERSION,
                                         "app": params.app, "workflow": body}))


@operation("workflow_update", WorkflowUpdateParams, WorkflowSaveResult, group="workflows")
async def workflow_update(ctx: OpContext, params: WorkflowUpdateParams) -> WorkflowSaveResult:
    """Edit a saved workflow: upsert nodes and edges, remove them by id, replace its environment variables,
    rename it (the name must be free) or change its description. Unknown ids are errors."""
    if params.changes_nothing():
        raise OpError("workflow_update was given nothing to change; valid changes: nodes, edges, removeNodes, "
                      "removeEdges, environment_variables, rename, description, addNodes, replaceNodes, addEdges")
    saved = ctx.workflows.find(params.key())
    raw = json.loads(json.dumps(saved.document))
    if params.rename is not None and params.rename != saved.name:
        taken = [wf for wf in ctx.workflows.list() if wf.id != saved.id and wf.name == params.rename]
        if taken:
            raise OpError(f"cannot rename to {params.rename!r}: workflow {taken[0].id} already has that name")
    try:
        apply_update(raw, params)
    except PatchError as exc:
        raise OpError(str(exc)) from None
    return _save(ctx, validate_document(raw), workflow_id=saved.id, reason="update")


@operation("workflow_list", Params, WorkflowListResult, read_only=True, group="core")
async def workflow_list(ctx: OpContext, params: Params) -> WorkflowListResult:
    """Saved workflows, with their start variables (params) and last run."""
    return WorkflowListResult(workflows=[_summary(saved, ctx, original_names=True) for saved in ctx.workflows.list()])


@operation("workflow_read", WorkflowRef, WorkflowReadResult, read_only=True, group="workflows")
async def workflow_read(ctx: OpContext, params: WorkflowRef) -> WorkflowReadResult:
    """The whole document of a saved workflow, plus its id."""
    saved = ctx.workflows.find(params.key())
    return WorkflowReadResult(id=saved.id, workflow=saved.document)


@operation("workflow_import", PathParams, WorkflowSaveResult, group="workflows")
async def workflow_import(ctx: OpContext, params: PathParams) -> Envelope[WorkflowSaveResult]:
    """Import a workflow file (BrowserPilot 0.3.0) or a Chrome DevTools Recorder recording and save it.
    Every problem is reported at once; nothing is saved for a rejected file."""
    doc, notes = await in_thread(load_any, params.path)  # the person's file: read off the Qt thread
    return Envelope.model_construct(ok=True, data=_save(ctx, doc, reason="import"), notes=list(notes))


@operation("workflow_export", ExportParams, PathResult, read_only=True, group="workflows")
async def workflow_export(ctx: OpContext, params: ExportParams) -> PathResult:
    """Write a saved workflow to a file in the 0.3.0 shape (without the local id). Returns {path}."""
    from workflows.io import save_file

    if params.workflow is not None and not isinstance(params.workflow, str) or is_document_text(params.workflow):
        doc = document_of(params.workflow)
    else:
        doc = validate_document(ctx.workflows.find(params.key()).document)
    target = Path(params.path).expanduser() if params.path else ctx.data.exports / safe_name_with_extension(doc.name, ".json", "workflow")
    return PathResult(path=str(await in_thread(save_file, target, doc)))


@operation("workflow_delete", WorkflowRef, WorkflowDeleteResult, destructive=True, group="workflows")
async def workflow_delete(ctx: OpContext, params: WorkflowRef) -> WorkflowDeleteResult:
    """Delete a saved workflow (its past runs stay in the run list)."""
    deleted = ctx.workflows.delete(params.key())
    return WorkflowDeleteResult(deleted={"id": deleted.id, "name": deleted.name}, id=deleted.id, name=deleted.name)


class HistoryParams(Params):
    name: str = Field(description="A saved workflow's name or wf- id.")


class DiffParams(HistoryParams):
    a: int = Field(description="The older version's number (workflow_history lists them).")
    b: int | None = Field(default=None, description="The newer version's number (default: the newest).")


class RestoreParams(HistoryParams):
    version: int = Field(description="The version to go back to; the restore is itself a new version.")


@operation("workflow_history", HistoryParams, WorkflowHistoryResult, read_only=True, group="workflows")
async def workflow_history(ctx: OpContext, params: HistoryParams) -> WorkflowHistoryResult:
    """The kept versions of a saved workflow (the last 50), newest first: {version, at, reason (save, import,
    update, record, repair, restore, recovered), name, note, nodes}."""
    saved = ctx.workflows.find(params.name)
    versions = [WorkflowVersionSummary.model_validate(v.summary()) for v in reversed(ctx.workflows.versions.list(saved.id))]
    return WorkflowHistoryResult(id=saved.id, name=saved.name, versions=versions)


@operation("workflow_diff", DiffParams, WorkflowDiffResult, read_only=True, group="workflows")
async def workflow_diff(ctx: OpContext, params: DiffParams) -> WorkflowDiffResult:
    """What changed between two versions of a saved workflow: {changes: one line per node added, removed or
    changed (and which fields), diff: a unified diff of the documents}."""
    saved = ctx.workflows.find(params.name)
    store = ctx.workflows.versions
    kept = store.list(saved.id)
    try:
        older = store.get(saved.id, params.a)
        newer = store.get(saved.id, params.b) if params.b is not None else kept[-1]
    except (LookupError, IndexError) as exc:
        raise OpError(str(exc) or "this workflow has no versions") from None
    return WorkflowDiffResult.model_validate({"id": saved.id, "name": saved.name, **diff_versions(older, newer)})


@operation("workflow_restore", RestoreParams, WorkflowRestoreResult, group="workflows")
async def workflow_restore(ctx: OpContext, params: RestoreParams) -> WorkflowRestoreResult:
    """Make a kept version the workflow again (under its current id); the restore is itself a new version."""
    saved = ctx.workflows.find(params.name)
    try:
        version = ctx.workflows.versions.get(saved.id, params.version)
    except LookupError as exc:
        raise OpError(str(exc)) from None
    doc = validate_document(version.document)
    result = _save(ctx, doc, workflow_id=saved.id, reason="restore", note=f"version {version.version}")
    return WorkflowRestoreResult(**dict(result), restored=version.version,
                                 version=ctx.workflows.versions.list(saved.id)[-1].version)


class RepairsParams(HistoryParams):
    pass


class RepairParams(Params):
    run_id: str = Field(description="The run whose heals to accept (workflow_repairs lists them).")
    node: str | None = Field(default=None, description="Only this node's repair (default: every node it healed).")


def _accept(ctx: OpContext, record: RunRecord, nodes: set[str] | None, note: str) -> WorkflowRepairResult:
    """Keep the healed elements' locators of `record` in its workflow (one new version, reason repair)."""
    if not record.workflow_id:
        raise OpError(f"run {record.id} ran a workflow that is not saved: there is nothing to repair")
    chosen = [p for p in repair_proposals(record) if nodes is None or p["node"] in nodes]
    if not chosen:
        raise OpError(f"run {record.id} healed no node{' ' + ', '.join(sorted(nodes)) if nodes else ''}: "
                      "nothing to repair" + ("" if record.status == "ok" else " (only a successful run proposes repairs)"))
    saved = ctx.workflows.find(record.workflow_id)
    document = saved.document
    for proposal in chosen:
        try:
            document = apply_repair(document, proposal["node"], proposal["to"])
        except LookupError as exc:
            raise OpError(str(exc)) from None
    nodes_text = ", ".join(p["node"] for p in chosen)
    result = _save(ctx, validate_document(document), workflow_id=saved.id, reason="repair",
                   note=f"{note}: run {record.id}, node{'s' if len(chosen) > 1 else ''} {nodes_text}")
    return WorkflowRepairResult(**dict(result), repaired=[{"node": p["node"], "from": p["from"], "to": p["to"]}
                                                          for p in chosen],
                                version=ctx.workflows.versions.list(saved.id)[-1].version)


@operation("workflow_repairs", RepairsParams, WorkflowRepairsResult, read_only=True, group="workflows")
async def workflow_repairs(ctx: OpContext, params: RepairsParams) -> WorkflowRepairsResult:
    """The repairs proposed by the recent successful runs of a saved workflow and not accepted yet: for each
    healed node, {runId, node, title, from (the locator that no longer found it), to (the healed element's
    locator), score, why, element, shot (a screenshot of the element)}; newest run first."""
    saved = ctx.workflows.find(params.name)
    seen: set[tuple[str, str]] = set()
    out: list[RepairProposal] = []
    for entry in ctx.runs.list(limit=50, workflow=saved.id):
        pending = [h for h in entry.healed if (h.get("node"), h.get("key")) not in seen
                   and current_key(saved.document, str(h.get("node"))) not in (None, h.get("key"))]
        if entry.status != "ok" or not pending:
            continue
        record = await in_thread(ctx.runs.get, entry.id)   # the whole record (its trace) may be on disk
        for proposal in repair_proposals(record):
            key = (proposal["node"], target_key(proposal["to"]))
            if key not in seen and any((h.get("node"), h.get("key")) == key for h in pending):
                seen.add(key)
                out.append(RepairProposal.model_validate(proposal))
    return WorkflowRepairsResult(id=saved.id, name=saved.name, repairs=out,
                                 auto_repair=auto_repair_runs(saved.document))


@operation("workflow_repair", RepairParams, WorkflowRepairResult, group="workflows")
async def workflow_repair(ctx: OpContext, params: RepairParams) -> WorkflowRepairResult:
    """Accept the repairs a run proposes: each healed node of the run keeps the locator of the element it
    healed to (with its fingerprint), saved as a new version of the workflow (reason repair)."""
    try:
        record = await in_thread(ctx.runs.get, params.run_id)
    except LookupError as exc:
        raise OpError(str(exc)) from None
    return _accept(ctx, record, {params.node} if params.node else None, "accepted")


def auto_repair(ctx: OpContext, record: RunRecord) -> WorkflowRepairResult | None:
    """After a run ends: accept its repairs by themselves when its workflow says so (`app.autoRepair` N) and
    the same nodes healed the same way in its last N runs, all successful. None when nothing was accepted."""
    if record.status != "ok" or not record.healed or not record.workflow_id:
        return None
    try:
        saved = ctx.workflows.find(record.workflow_id)
    except LookupError:
        return None
    runs = auto_repair_runs(saved.document)
    if runs <= 0:
        return None
    history = ctx.runs.list(limit=runs, workflow=saved.id)
    nodes = {str(h["node"]) for h in record.healed
             if current_key(saved.document, str(h["node"])) not in (None, h.get("key"))
             and repair_due(history, str(h["node"]), str(h.get("key")), runs)}
    if not nodes:
        return None
    try:
        result = _accept(ctx, record, nodes, f"accepted by itself after {runs} successful runs")
    except OpError as exc:
        log.warning("auto repair of %s after run %s: %s", saved.name, record.id, exc)
        return None
    log.info("auto repair of %s after run %s: %s", saved.name, record.id, ", ".join(sorted(nodes)))
    return result


OPERATIONS: tuple[Operation[Any, Any], ...] = (
    workflow_write, workflow_update, workflow_list, workflow_read, workflow_import, workflow_export, workflow_delete,
    workflow_history, workflow_diff, workflow_restore, workflow_repairs, workflow_repair,
)
