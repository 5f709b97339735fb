"""Workflow and run operations: write, update, list, read, run, batch, import, export, delete, history, diff and
restore (every change keeps a version: workflows/versions.py); list, read, wait
for, follow and cancel runs. A run is a job: `workflow_start` returns its id at once, `run_events` tells what
happens (workflows.events), `run_wait` gives the end (`workflow_run` is the two in one call). Documents are BrowserPilot 0.3.0 workflow files; validation errors name the exact place.

The original BrowserPilot's forms are accepted too: `workflow_write {app, workflow}` (the document split in
two), `workflow` as a name or id wherever a workflow is named (a document is still accepted: an object, or
text that starts with `{`), and `workflow_update`'s `nodes` / `edges` upserts. Results carry the original's
names beside ours (`id`, `name`, `nodes` as a count, `params`).
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
from pathlib import Path
from typing import Any, Iterator

from pydantic import Field, model_validator

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import PathResult, RunCancelResult, RunEventsResult, RunListResult, RunReadResult, RunResult, RunTablesResult, WorkflowBatchResult, WorkflowDeleteResult, WorkflowDiffResult, WorkflowHistoryResult, WorkflowListResult, WorkflowReadResult, WorkflowRepairResult, WorkflowRepairsResult, WorkflowRestoreResult, WorkflowSaveResult, WorkflowStartResult
from plumbing import loggers
from plumbing.filenames import safe_name_with_extension
from envs.model import DEFAULT_ENV_ID
from plumbing.savemanager import in_thread
from workflows.document import FORMAT_VERSION, WorkflowDocument, validate_document
from workflows.io import dump_document, load_any, parse_json, read_file
from workflows.runs import RunRecord
from workflows.store import SavedWorkflow
from workflows.repairs import apply as apply_repair
from workflows.repairs import auto_repair_runs, current_key, target_key
from workflows.repairs import due as repair_due
from workflows.repairs import proposals as repair_proposals
from workflows.tracing import TraceMode
from workflows.versions import Reason, diff as diff_versions

log = logging.getLogger(loggers.OPS)

DOC_HELP = ("A document {kind: 'app', version: '0.3.0', app: {name}, workflow: {environment_variables, graph: "
            "{nodes, edges}}}.")
WORKFLOW_REF_HELP = "Name, wf- id or document."


def _document(raw: Any) -> WorkflowDocument:
    if isinstance(raw, str):
        raw = parse_json(raw)
    return validate_document(raw)


def _is_document_text(value: Any) -> bool:
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


def _summary(saved: SavedWorkflow, ctx: OpContext) -> dict[str, Any]:
    last = ctx.runs.list(limit=1, workflow=saved.id)
    return {"id": saved.id, "name": saved.name, "description": saved.description, "nodeCount": saved.node_count,
            "params": _params_of(saved.document), "updatedAt": saved.updated_at.isoformat(),
            "lastRun": ({"id": last[0].id, "status": last[0].status, "startedAt": last[0].started_at.isoformat()}
                        if last else None)}


def _save(ctx: OpContext, doc: WorkflowDocument, workflow_id: str | None = None, reason: Reason = "save",
          note: str = "") -> dict[str, Any]:
    """Save by name (or replace `workflow_id`, keeping its id through a rename); a new version (`reason`)."""
    saved, replaced = ctx.workflows.save(doc.name, doc.app.description or "", json.loads(dump_document(doc)),
                                         doc.node_count(), workflow_id=workflow_id, reason=reason, note=note)
    summary = _summary(saved, ctx)
    return {"workflow": summary, "replaced": replaced, "warnings": doc.warnings,
            "id": saved.id, "name": saved.name, "nodes": saved.node_count, "params": summary["params"]}


def record_view(record: RunRecord) -> dict[str, Any]:
    return record.view()


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
        if isinstance(self.workflow, str) and not _is_document_text(self.workflow):
            return self.workflow
        return _document(self.workflow).name


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


class WorkflowRunParams(Params):
    name: str | None = None
    workflow: dict[str, Any] | str | None = Field(default=None, description=WORKFLOW_REF_HELP)
    inputs: dict[str, Any] = Field(default_factory=dict, description="Values of the start variables.")
    env: str | None = None
    tab_id: str | None = Field(default=None, description="Default: env's active tab, or a new one when busy.")
    trace: TraceMode | None = Field(default=None, description="Keep a trace of every node: off, on-failure or "
                                                              "always (default: the setting).")
    video: TraceMode | None = Field(default=None, description="Keep a video of the run's tab: off, on-failure or "
                                                              "always (default: the setting).")

    @model_validator(mode="after")
    def _one(self) -> "WorkflowRunParams":
        if (self.name is None) == (self.workflow is None):
            raise ValueError("give exactly one of name or workflow")
        return self


class WorkflowBatchParams(WorkflowRunParams):
    inputs: dict[str, Any] = Field(default_factory=dict, description="Values shared by every row.")
    rows: list[dict[str, Any]] | None = Field(default=None, description="One inputs object per run.")
    rows_file: str | None = Field(default=None, description="A CSV (header row = input names) or JSON file of rows.")
    concurrency: int = Field(default=1, ge=1, le=16, description="Tabs at once (capped by the batch setting).")
    envs: list[str] | None = Field(default=None, description="Spread runs round-robin over these environments.")

    @model_validator(mode="after")
    def _rows(self) -> "WorkflowBatchParams":
        if (self.rows is None) == (self.rows_file is None):
            raise ValueError("give exactly one of rows or rowsFile")
        return self


class PathParams(Params):
    path: str = Field(description="Path of a workflow file (or a Chrome DevTools Recorder JSON recording).")


class ExportParams(WorkflowRef):
    path: str | None = Field(default=None, description="Where to write; default exports/<name>.json in the data folder.")


class RunListParams(Params):
    limit: int = Field(default=50, ge=1, le=200)
    workflow: str | None = Field(default=None, description="Only this workflow's runs.")


class RunRef(Params):
    run_id: str


class RunTablesParams(RunRef):
    table: str | None = Field(default=None, description="Only this table: its name (an exported file's name, "
                                                        "or an output's key) or its number from 1.")


# -- operations ------------------------------------------------------------------------------------------
@operation("workflow_write", WorkflowWriteParams, WorkflowSaveResult, group="core")
async def workflow_write(ctx: OpContext, params: WorkflowWriteParams) -> dict[str, Any]:
    """Save a workflow document (a name that exists is replaced, its id kept); every problem is reported with
    its place. Save steps that worked, then workflow_run them in one call."""
    if params.app is None:
        return _save(ctx, _document(params.workflow))
    body = parse_json(params.workflow) if isinstance(params.workflow, str) else params.workflow
    return _save(ctx, validate_document({"kind": params.kind or "app", "version": params.version or FORMAT_VERSION,
                                         "app": params.app, "workflow": body}))


@operation("workflow_update", WorkflowUpdateParams, WorkflowSaveResult, group="workflows")
async def workflow_update(ctx: OpContext, params: WorkflowUpdateParams) -> dict[str, Any]:
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
    apply_update(raw, params)
    return _save(ctx, validate_document(raw), workflow_id=saved.id, reason="update")


def _levels(level: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The graph level and every loop body inside it, depth first: dicts with `nodes` and `edges`."""
    level.setdefault("nodes", [])
    level.setdefault("edges", [])
    yield level
    for node in level["nodes"]:
        data = node.get("data") if isinstance(node, dict) else None
        if isinstance(data, dict) and data.get("type") == "loop":
            yield from _levels(data)


def apply_update(raw: dict[str, Any], params: WorkflowUpdateParams) -> None:
    """Apply an update to a document (raw JSON, in place); raises `OpError` for ids that do not exist."""
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
            raise OpError(f"replaceNodes names a node that does not exist: {node.get('id')}")
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
        raise OpError(f"removeNodes names nodes that do not exist: {', '.join(unknown)}")
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
    raise OpError(f"node {node.get('id')}: parent {parent!r} is not a loop node of this workflow")


def _remove_edges(graph: dict[str, Any], ids: list[str]) -> None:
    known = {edge.get("id") for level in _levels(graph) for edge in level["edges"]}
    unknown = [edge_id for edge_id in ids if edge_id not in known]
    if unknown:
        raise OpError(f"removeEdges names edges that do not exist: {', '.join(unknown)}")
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
    raise OpError(f"edge {edge.get('source')} -> {edge.get('target')}: no level of the workflow has both nodes")


@operation("workflow_list", Params, WorkflowListResult, read_only=True, group="core")
async def workflow_list(ctx: OpContext, params: Params) -> dict[str, Any]:
    """Saved workflows, with their start variables (params) and last run."""
    return {"workflows": [{**summary, "remark": summary["description"], "nodes": summary["nodeCount"]}
                          for summary in (_summary(saved, ctx) for saved in ctx.workflows.list())]}


@operation("workflow_read", WorkflowRef, WorkflowReadResult, read_only=True, group="workflows")
async def workflow_read(ctx: OpContext, params: WorkflowRef) -> dict[str, Any]:
    """The whole document of a saved workflow, plus its id."""
    saved = ctx.workflows.find(params.key())
    return {"id": saved.id, "workflow": saved.document}


async def _resolve(ctx: OpContext, params: WorkflowRunParams) -> tuple[WorkflowDocument, str | None]:
    """The document to run: a saved one by name or id (`name`, or `workflow` as text), or `workflow` itself."""
    key = params.name
    if key is None and isinstance(params.workflow, str) and not _is_document_text(params.workflow):
        key = params.workflow
    if key is not None:
        saved = ctx.workflows.find(key)
        return validate_document(saved.document), saved.id
    return _document(params.workflow), None


@operation("workflow_run", WorkflowRunParams, RunResult, needs_browser=True, group="core")
async def workflow_run(ctx: OpContext, params: WorkflowRunParams) -> dict[str, Any]:
    """Run a workflow to its end, with no model in the loop; returns its run record (status, outputs, files,
    the failed node and error, trace and video when kept)."""
    assert ctx.runner is not None
    doc, workflow_id = await _resolve(ctx, params)
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    record = await ctx.runner.run(doc, params.inputs, env_id=env_id, tab_id=params.tab_id, workflow_id=workflow_id,
                                  trigger=ctx.trigger, trace=params.trace, video=params.video)
    return run_result(record)


def run_result(record: RunRecord) -> dict[str, Any]:
    """The envelope of a finished run: `{run, tabId}` and the original app's fields; an OpError unless ok."""
    view = record_view(record)
    original = record.original_fields()  # the original app's envelope, beside ours
    if record.status != "ok":
        original.pop("ok")
        original["error"] = f"run {record.id} {record.status.replace('_', ' ')}: {record.error}"
        raise OpError(original["error"], run=view, errorShot=record.screenshot, tabId=record.tab_id,
                      **{k: v for k, v in original.items() if k != "error"})
    return {"run": view, "tabId": record.tab_id, **original}


@operation("workflow_start", WorkflowRunParams, WorkflowStartResult, needs_browser=True, group="workflows")
async def workflow_start(ctx: OpContext, params: WorkflowRunParams) -> dict[str, Any]:
    """Start a workflow run and return at once with {runId, tabId}; follow it with run_events, end it with
    run_wait (the envelope workflow_run returns) or run_cancel."""
    assert ctx.runner is not None
    doc, workflow_id = await _resolve(ctx, params)
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    record = await ctx.runner.start(doc, params.inputs, env_id=env_id, tab_id=params.tab_id, workflow_id=workflow_id,
                                    trigger=ctx.trigger, trace=params.trace, video=params.video)
    return {"runId": record.id, "tabId": record.tab_id, "workflow": workflow_id or ""}


class RunWaitParams(RunRef):
    timeout_ms: int = Field(default=600_000, ge=0, le=3_600_000, description="How long to wait (default 10 min).")


@operation("run_wait", RunWaitParams, RunResult, needs_browser=True, group="runs")
async def run_wait(ctx: OpContext, params: RunWaitParams) -> dict[str, Any]:
    """Wait for a run (from workflow_start) to end; returns what workflow_run returns."""
    assert ctx.runner is not None
    try:
        record = await ctx.runner.wait(params.run_id, params.timeout_ms / 1000)
    except asyncio.TimeoutError:
        raise OpError(f"run {params.run_id} is still running after {params.timeout_ms} ms", running=True,
                      runId=params.run_id) from None
    return run_result(record)


class RunEventsParams(RunRef):
    since: int = Field(default=0, ge=0, description="Only events after this seq (the last one you saw).")


@operation("run_events", RunEventsParams, RunEventsResult, needs_browser=True, read_only=True, group="runs")
async def run_events(ctx: OpContext, params: RunEventsParams) -> dict[str, Any]:
    """What happened in a run, in order: run_started, node_started, node_finished (status, ms, output or
    error), loop_pass, run_finished; each with a seq. `done` once the run has ended."""
    assert ctx.runner is not None
    events = ctx.runner.events
    if not events.knows(params.run_id):
        record = ctx.runs.get(params.run_id)  # unknown id -> LookupError
        return {"events": [], "done": record.status != "running", "note": "this run's events are no longer kept"}
    return {"events": [event.as_dict() for event in events.history(params.run_id, params.since)],
            "done": events.finished(params.run_id)}


def read_rows(path: str) -> list[dict[str, Any]]:
    file = Path(path).expanduser()
    data = read_file(file)
    text = data.decode("utf-8-sig")
    if file.suffix.lower() == ".json" or text.lstrip().startswith("["):
        rows = json.loads(text)
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise OpError(f"{file}: a JSON rows file must be a list of objects")
        return rows
    return [dict(row) for row in csv.DictReader(io.StringIO(text))]


@operation("workflow_batch", WorkflowBatchParams, WorkflowBatchResult, needs_browser=True, group="workflows")
async def workflow_batch(ctx: OpContext, params: WorkflowBatchParams) -> dict[str, Any]:
    """Run a workflow once per data row (rows or a CSV/JSON rowsFile), up to `concurrency` tabs at once, or
    round-robin over several environments (accounts) with `envs`. A failed row does not stop the others."""
    assert ctx.runner is not None
    doc, workflow_id = await _resolve(ctx, params)
    rows = params.rows if params.rows is not None else await in_thread(read_rows, params.rows_file or "")
    rows = [{**params.inputs, **row} for row in rows]
    envs = [ctx.envs.get(env).id for env in (params.envs or [params.env or DEFAULT_ENV_ID])]
    batch_id, progress = await ctx.runner.batch(doc, rows, envs=envs, concurrency=params.concurrency,
                                                workflow_id=workflow_id, on_progress=ctx.progress,
                                                trigger=ctx.trigger, trace=params.trace, video=params.video)
    results = [({"row": index, "status": "not run"} if record is None else
                {"row": index, "runId": record.id, "status": record.status, "error": record.error,
                 "outputs": record.outputs, "env": record.env}) for index, record in enumerate(progress.records)]
    return {"batchId": batch_id, **progress.as_dict(), "results": results}


@operation("workflow_import", PathParams, WorkflowSaveResult, group="workflows")
async def workflow_import(ctx: OpContext, params: PathParams) -> dict[str, Any]:
    """Import a workflow file (BrowserPilot 0.3.0) or a Chrome DevTools Recorder recording and save it.
    Every problem is reported at once; nothing is saved for a rejected file."""
    doc, notes = await in_thread(load_any, params.path)  # the person's file: read off the Qt thread
    result = _save(ctx, doc, reason="import")
    if notes:
        result["notes"] = notes
    return result


@operation("workflow_export", ExportParams, PathResult, read_only=True, group="workflows")
async def workflow_export(ctx: OpContext, params: ExportParams) -> dict[str, Any]:
    """Write a saved workflow to a file in the 0.3.0 shape (without the local id). Returns {path}."""
    from workflows.io import save_file

    if params.workflow is not None and not isinstance(params.workflow, str) or _is_document_text(params.workflow):
        doc = _document(params.workflow)
    else:
        doc = validate_document(ctx.workflows.find(params.key()).document)
    target = Path(params.path).expanduser() if params.path else ctx.data.exports / safe_name_with_extension(doc.name, ".json", "workflow")
    return {"path": str(await in_thread(save_file, target, doc))}


@operation("workflow_delete", WorkflowRef, WorkflowDeleteResult, destructive=True, group="workflows")
async def workflow_delete(ctx: OpContext, params: WorkflowRef) -> dict[str, Any]:
    """Delete a saved workflow (its past runs stay in the run list)."""
    deleted = ctx.workflows.delete(params.key())
    return {"deleted": {"id": deleted.id, "name": deleted.name}, "id": deleted.id, "name": deleted.name}


class HistoryParams(Params):
    name: str = Field(description="A saved workflow's name or wf- id.")


class DiffParams(HistoryParams):
    a: int = Field(description="The older version's number (workflow_history lists them).")
    b: int | None = Field(default=None, description="The newer version's number (default: the newest).")


class RestoreParams(HistoryParams):
    version: int = Field(description="The version to go back to; the restore is itself a new version.")


@operation("workflow_history", HistoryParams, WorkflowHistoryResult, read_only=True, group="workflows")
async def workflow_history(ctx: OpContext, params: HistoryParams) -> dict[str, Any]:
    """The kept versions of a saved workflow (the last 50), newest first: {version, at, reason (save, import,
    update, record, repair, restore, recovered), name, note, nodes}."""
    saved = ctx.workflows.find(params.name)
    versions = [v.summary() for v in reversed(ctx.workflows.versions.list(saved.id))]
    return {"id": saved.id, "name": saved.name, "versions": versions}


@operation("workflow_diff", DiffParams, WorkflowDiffResult, read_only=True, group="workflows")
async def workflow_diff(ctx: OpContext, params: DiffParams) -> dict[str, Any]:
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
    return {"id": saved.id, "name": saved.name, **diff_versions(older, newer)}


@operation("workflow_restore", RestoreParams, WorkflowRestoreResult, group="workflows")
async def workflow_restore(ctx: OpContext, params: RestoreParams) -> dict[str, Any]:
    """Make a kept version the workflow again (under its current id); the restore is itself a new version."""
    saved = ctx.workflows.find(params.name)
    try:
        version = ctx.workflows.versions.get(saved.id, params.version)
    except LookupError as exc:
        raise OpError(str(exc)) from None
    doc = validate_document(version.document)
    result = _save(ctx, doc, workflow_id=saved.id, reason="restore", note=f"version {version.version}")
    result["restored"] = version.version
    result["version"] = ctx.workflows.versions.list(saved.id)[-1].version
    return result


class RepairsParams(HistoryParams):
    pass


class RepairParams(Params):
    run_id: str = Field(description="The run whose heals to accept (workflow_repairs lists them).")
    node: str | None = Field(default=None, description="Only this node's repair (default: every node it healed).")


def _accept(ctx: OpContext, record: RunRecord, nodes: set[str] | None, note: str) -> dict[str, Any]:
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
    result["repaired"] = [{"node": p["node"], "from": p["from"], "to": p["to"]} for p in chosen]
    result["version"] = ctx.workflows.versions.list(saved.id)[-1].version
    return result


@operation("workflow_repairs", RepairsParams, WorkflowRepairsResult, read_only=True, group="workflows")
async def workflow_repairs(ctx: OpContext, params: RepairsParams) -> dict[str, Any]:
    """The repairs proposed by the recent successful runs of a saved workflow and not accepted yet: for each
    healed node, {runId, node, title, from (the locator that no longer found it), to (the healed element's
    locator), score, why, element, shot (a screenshot of the element)}; newest run first."""
    saved = ctx.workflows.find(params.name)
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
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
                out.append(proposal)
    return {"id": saved.id, "name": saved.name, "repairs": out,
            "autoRepair": auto_repair_runs(saved.document)}


@operation("workflow_repair", RepairParams, WorkflowRepairResult, group="workflows")
async def workflow_repair(ctx: OpContext, params: RepairParams) -> dict[str, Any]:
    """Accept the repairs a run proposes: each healed node of the run keeps the locator of the element it
    healed to (with its fingerprint), saved as a new version of the workflow (reason repair)."""
    try:
        record = await in_thread(ctx.runs.get, params.run_id)
    except LookupError as exc:
        raise OpError(str(exc)) from None
    return _accept(ctx, record, {params.node} if params.node else None, "accepted")


def auto_repair(ctx: OpContext, record: RunRecord) -> dict[str, Any] | None:
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


@operation("run_list", RunListParams, RunListResult, read_only=True, group="core")
async def run_list(ctx: OpContext, params: RunListParams) -> dict[str, Any]:
    """The latest runs, newest first."""
    runs = ctx.runs.list(limit=params.limit, workflow=params.workflow)
    return {"runs": [{"id": r.id, "workflow": r.workflow_name, "env": r.env, "status": r.status,
                      "startedAt": r.started_at.isoformat(), "durationMs": r.duration_ms, "error": r.error,
                      "batchId": r.batch_id, "rowIndex": r.row_index, "worker": r.worker,
                      "healed": len(r.healed)} for r in runs]}


@operation("run_read", RunRef, RunReadResult, read_only=True, group="core")
async def run_read(ctx: OpContext, params: RunRef) -> dict[str, Any]:
    """A run's whole record: per-node trace (timing, locator, heal; screenshots, console and requests when kept),
    video; `traceRemoved` when the disk cap deleted them."""
    record = await in_thread(ctx.runs.get, params.run_id)  # the whole record may be read from its folder
    view = record_view(record)
    if record.video or any(entry.before or entry.after for entry in record.trace):
        if not await in_thread(_trace_files_exist, record):
            view["traceRemoved"] = True
    return {"run": view}


def _trace_files_exist(record: RunRecord) -> bool:
    paths = [record.video] + [path for entry in record.trace for path in (entry.before, entry.after)]
    return any(path and Path(path).exists() for path in paths)


@operation("run_tables", RunTablesParams, RunTablesResult, read_only=True, group="runs")
async def run_tables(ctx: OpContext, params: RunTablesParams) -> dict[str, Any]:
    """A run's tables, as a spreadsheet shows them: the tables its export nodes wrote (CSV, XLSX, JSON, JSON
    Lines) and its outputs that are lists. Returns {runId, tables: [{name, source: file|output, path?,
    headers, rows, rowCount, truncated}]} (with `table`: only that one)."""
    from workflows.tables import find_table, run_tables as tables_of

    view = record_view(ctx.runs.get(params.run_id))

    def read() -> list[Any]:  # off the Qt thread: it reads the run's files
        kept = [Path(str(v["$file"])) for v in view.get("outputs", {}).values() if isinstance(v, dict) and "$file" in v]
        if any(not path.exists() for path in kept):
            ctx.saver.flush()  # a large output of a run that just ended may still wait for the save manager
        return tables_of(view)

    tables = await in_thread(read)
    if params.table is not None:
        try:
            tables = [find_table(tables, params.table)]
        except LookupError as exc:
            raise OpError(str(exc)) from None
    return {"runId": params.run_id, "tables": [table.view() for table in tables]}


@operation("run_cancel", RunRef, RunCancelResult, destructive=True, group="runs")
async def run_cancel(ctx: OpContext, params: RunRef) -> dict[str, Any]:
    """Cancel a running workflow run; its record is written with status cancelled."""
    if ctx.runner is None or not ctx.runner.cancel(params.run_id):
        ctx.runs.get(params.run_id)  # unknown id -> LookupError
        raise OpError(f"run {params.run_id} is not running")
    return {"runId": params.run_id, "cancelling": True}


OPERATIONS: tuple[Operation[Any, Any], ...] = (
    workflow_write, workflow_update, workflow_list, workflow_read, workflow_run, workflow_start, workflow_batch,
    workflow_import, workflow_export, workflow_delete, workflow_history, workflow_diff, workflow_restore,
    workflow_repairs, workflow_repair, run_list, run_read, run_wait, run_events, run_cancel, run_tables,
)
