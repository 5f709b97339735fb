"""Workflow and run operations: write, update, list, read, run, batch, import, export, delete; list, read and
cancel runs. Documents are BrowserPilot 0.3.0 workflow files; validation errors name the exact place."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from envs.filenames import safe_name_with_extension
from envs.model import DEFAULT_ENV_ID
from workflows.document import WorkflowDocument, validate_document
from workflows.io import dump_document, load_any, parse_json, read_file
from workflows.runs import RunRecord
from workflows.store import SavedWorkflow

DOC_HELP = ("A BrowserPilot 0.3.0 workflow: {kind: 'app', version: '0.3.0', app: {name, mode: 'workflow'}, "
            "workflow: {environment_variables: [], conversation_variables: [], graph: {nodes, edges}}}. Nodes are "
            "{id, data: {type, ...}}: start, end, if-else, loop, goto, click, fill, select, press, scroll, swipe, "
            "upload, wait, extract, export, script, code, cdp, http-request, download, handoff, captcha. Page nodes "
            "take locator: {selector} or {xpath}, optionally with alternatives; text fields take {{#node.key#}} "
            "templates (namespaces sys, env, input, loop and node ids).")


def _document(raw: Any) -> WorkflowDocument:
    if isinstance(raw, str):
        raw = parse_json(raw)
    return validate_document(raw)


def _summary(saved: SavedWorkflow, ctx: OpContext) -> dict[str, Any]:
    last = ctx.runs.list(limit=1, workflow=saved.id)
    return {"id": saved.id, "name": saved.name, "description": saved.description, "nodeCount": saved.node_count,
            "updatedAt": saved.updated_at.isoformat(),
            "lastRun": ({"id": last[0].id, "status": last[0].status, "startedAt": last[0].started_at.isoformat()}
                        if last else None)}


def _save(ctx: OpContext, doc: WorkflowDocument) -> dict[str, Any]:
    saved, replaced = ctx.workflows.save(doc.name, doc.app.description or "", json.loads(dump_document(doc)),
                                         doc.node_count())
    return {"workflow": _summary(saved, ctx), "replaced": replaced}


def record_view(record: RunRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", by_alias=True, exclude_none=True)


# -- parameters ------------------------------------------------------------------------------------------
class WorkflowWriteParams(Params):
    workflow: dict[str, Any] | str = Field(description=DOC_HELP + " Saving a name that exists replaces its graph "
                                                                  "and keeps its id.")


class WorkflowRef(Params):
    name: str = Field(description="Workflow name or wf- id.")


class WorkflowUpdateParams(WorkflowRef):
    rename: str | None = Field(default=None, description="New name.")
    description: str | None = None
    add_nodes: list[dict[str, Any]] = Field(default_factory=list, description="Nodes to add at the top level.")
    replace_nodes: list[dict[str, Any]] = Field(default_factory=list, description="Nodes replacing those with "
                                                                                  "the same id (any level).")
    remove_nodes: list[str] = Field(default_factory=list, description="Ids of nodes to remove (with their edges).")
    add_edges: list[dict[str, Any]] = Field(default_factory=list, description="Edges {source, target, "
                                                                              "sourceHandle?} to add at the top level.")
    remove_edges: list[str] = Field(default_factory=list, description="Ids of edges to remove.")


class WorkflowRunParams(Params):
    name: str | None = Field(default=None, description="A saved workflow's name or id.")
    workflow: dict[str, Any] | str | None = Field(default=None, description="Or an unsaved workflow document.")
    inputs: dict[str, Any] = Field(default_factory=dict, description="Values for the start variables.")
    env: str | None = Field(default=None, description="Environment id (default env-default).")
    tab_id: str | None = Field(default=None, description="Tab to run in (default: the environment's active "
                                                         "tab, or a new one when that is busy).")

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
    workflow: str | None = Field(default=None, description="Only runs of this workflow (name or id).")


class RunRef(Params):
    run_id: str = Field(description="A run- id from workflow_run or run_list.")


# -- operations ------------------------------------------------------------------------------------------
@operation("workflow_write", WorkflowWriteParams)
async def workflow_write(ctx: OpContext, params: WorkflowWriteParams) -> dict[str, Any]:
    """Validate and save a workflow document (by its app.name). Every problem is reported at once with its
    exact place. Use after a sequence of page_* steps worked, so later you can call workflow_run once."""
    return _save(ctx, _document(params.workflow))


@operation("workflow_update", WorkflowUpdateParams)
async def workflow_update(ctx: OpContext, params: WorkflowUpdateParams) -> dict[str, Any]:
    """Edit a saved workflow by node and edge ids: add, replace or remove nodes and edges, rename it."""
    saved = ctx.workflows.find(params.name)
    raw = json.loads(json.dumps(saved.document))
    graph = raw["workflow"]["graph"]
    replacements = {node.get("id"): node for node in params.replace_nodes}

    def edit(level: dict[str, Any]) -> None:
        level["nodes"] = [replacements.pop(node.get("id"), node) for node in level.get("nodes", [])
                          if node.get("id") not in params.remove_nodes]
        removed = set(params.remove_nodes)
        level["edges"] = [edge for edge in level.get("edges", []) if edge.get("id") not in params.remove_edges
                          and edge.get("source") not in removed and edge.get("target") not in removed]
        for node in level["nodes"]:
            data = node.get("data", {})
            if isinstance(data, dict) and data.get("type") == "loop":
                edit(data)

    edit(graph)
    if replacements:
        raise OpError(f"replaceNodes names nodes that do not exist: {', '.join(map(str, replacements))}")
    graph["nodes"].extend(params.add_nodes)
    graph["edges"].extend(params.add_edges)
    if params.rename is not None:
        raw["app"]["name"] = params.rename
    if params.description is not None:
        raw["app"]["description"] = params.description
    doc = validate_document(raw)
    if params.rename is not None and params.rename != saved.name:
        ctx.workflows.delete(saved.id)
    result = _save(ctx, doc)
    return result


@operation("workflow_list", Params, read_only=True)
async def workflow_list(ctx: OpContext, params: Params) -> dict[str, Any]:
    """List saved workflows: id, name, description, node count, last run."""
    return {"workflows": [_summary(saved, ctx) for saved in ctx.workflows.list()]}


@operation("workflow_read", WorkflowRef, read_only=True)
async def workflow_read(ctx: OpContext, params: WorkflowRef) -> dict[str, Any]:
    """The whole document of a saved workflow, plus its id."""
    saved = ctx.workflows.find(params.name)
    return {"id": saved.id, "workflow": saved.document}


async def _resolve(ctx: OpContext, params: WorkflowRunParams) -> tuple[WorkflowDocument, str | None]:
    if params.name is not None:
        saved = ctx.workflows.find(params.name)
        return validate_document(saved.document), saved.id
    return _document(params.workflow), None


@operation("workflow_run", WorkflowRunParams, needs_browser=True)
async def workflow_run(ctx: OpContext, params: WorkflowRunParams) -> dict[str, Any]:
    """Run a workflow to its end, deterministically (no model in the loop), and return its run record:
    status ok | failed | cancelled | taken_over, outputs, files, the node it stopped at, error, failure
    screenshot, HAR, per-node trace."""
    assert ctx.runner is not None
    doc, workflow_id = await _resolve(ctx, params)
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    record = await ctx.runner.run(doc, params.inputs, env_id=env_id, tab_id=params.tab_id, workflow_id=workflow_id)
    view = record_view(record)
    if record.status != "ok":
        raise OpError(f"run {record.id} {record.status.replace('_', ' ')}: {record.error}", run=view,
                      errorShot=record.screenshot, tabId=record.tab_id)
    return {"run": view, "tabId": record.tab_id}


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


@operation("workflow_batch", WorkflowBatchParams, needs_browser=True)
async def workflow_batch(ctx: OpContext, params: WorkflowBatchParams) -> dict[str, Any]:
    """Run a workflow once per data row (rows or a CSV/JSON rowsFile), up to `concurrency` tabs at once, or
    round-robin over several environments (accounts) with `envs`. A failed row does not stop the others."""
    assert ctx.runner is not None
    doc, workflow_id = await _resolve(ctx, params)
    rows = params.rows if params.rows is not None else read_rows(params.rows_file or "")
    rows = [{**params.inputs, **row} for row in rows]
    envs = [ctx.envs.get(env).id for env in (params.envs or [params.env or DEFAULT_ENV_ID])]
    batch_id, progress = await ctx.runner.batch(doc, rows, envs=envs, concurrency=params.concurrency,
                                                workflow_id=workflow_id, on_progress=ctx.progress)
    results = [({"row": index, "status": "not run"} if record is None else
                {"row": index, "runId": record.id, "status": record.status, "error": record.error,
                 "outputs": record.outputs, "env": record.env}) for index, record in enumerate(progress.records)]
    return {"batchId": batch_id, **progress.as_dict(), "results": results}


@operation("workflow_import", PathParams)
async def workflow_import(ctx: OpContext, params: PathParams) -> dict[str, Any]:
    """Import a workflow file (BrowserPilot 0.3.0) or a Chrome DevTools Recorder recording and save it.
    Every problem is reported at once; nothing is saved for a rejected file."""
    doc, notes = load_any(params.path)
    result = _save(ctx, doc)
    if notes:
        result["notes"] = notes
    return result


@operation("workflow_export", ExportParams, read_only=True)
async def workflow_export(ctx: OpContext, params: ExportParams) -> dict[str, Any]:
    """Write a saved workflow to a file in the 0.3.0 shape (without the local id). Returns {path}."""
    from workflows.io import save_file

    saved = ctx.workflows.find(params.name)
    doc = validate_document(saved.document)
    target = Path(params.path).expanduser() if params.path else ctx.data.exports / safe_name_with_extension(saved.name, ".json", "workflow")
    return {"path": str(save_file(target, doc))}


@operation("workflow_delete", WorkflowRef, destructive=True)
async def workflow_delete(ctx: OpContext, params: WorkflowRef) -> dict[str, Any]:
    """Delete a saved workflow (its past runs stay in the run list)."""
    deleted = ctx.workflows.delete(params.name)
    return {"deleted": {"id": deleted.id, "name": deleted.name}}


@operation("run_list", RunListParams, read_only=True)
async def run_list(ctx: OpContext, params: RunListParams) -> dict[str, Any]:
    """The latest runs, newest first: id, workflow, environment, status, start, duration, error."""
    runs = ctx.runs.list(limit=params.limit, workflow=params.workflow)
    return {"runs": [{"id": r.id, "workflow": r.workflow_name, "env": r.env, "status": r.status,
                      "startedAt": r.started_at.isoformat(), "durationMs": r.duration_ms, "error": r.error,
                      "batchId": r.batch_id, "rowIndex": r.row_index} for r in runs]}


@operation("run_read", RunRef, read_only=True)
async def run_read(ctx: OpContext, params: RunRef) -> dict[str, Any]:
    """A whole run record: inputs (secrets redacted), status, outputs, files, screenshot, HAR, trace."""
    return {"run": record_view(ctx.runs.get(params.run_id))}


@operation("run_cancel", RunRef, destructive=True)
async def run_cancel(ctx: OpContext, params: RunRef) -> dict[str, Any]:
    """Cancel a running workflow run; its record is written with status cancelled."""
    if ctx.runner is None or not ctx.runner.cancel(params.run_id):
        ctx.runs.get(params.run_id)  # unknown id -> LookupError
        raise OpError(f"run {params.run_id} is not running")
    return {"runId": params.run_id, "cancelling": True}


OPERATIONS: tuple[Operation[Any], ...] = (
    workflow_write, workflow_update, workflow_list, workflow_read, workflow_run, workflow_batch,
    workflow_import, workflow_export, workflow_delete, run_list, run_read, run_cancel,
)
