"""Run operations: run a workflow to its end (`workflow_run`) or start it as a job (`workflow_start`, then
`run_events` to follow it, `run_wait` for its end, `run_cancel`), run it once per data row (`workflow_batch`), and
read the run store (`run_list`, `run_read` with the trace, `run_tables`). A run's record is workflows/runs.py's
`RunRecord`; the runner that plays documents is the engine behind `OpContext.runner`."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import BatchRowResult, RunCancelResult, RunEventsResult, RunEventView, RunListResult, RunReadResult, RunResult, RunRow, RunTablesResult, RunTableView, WorkflowBatchResult, WorkflowStartResult
from app.ops.workflow_ops import WORKFLOW_REF_HELP, document_of, is_document_text
from envs.model import DEFAULT_ENV_ID
from plumbing.savemanager import in_thread
from workflows.document import WorkflowDocument, validate_document
from workflows.io import read_file
from workflows.envelope import Envelope
from workflows.runs import RunRecord, RunView
from workflows.tracing import TraceMode


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


class RunListParams(Params):
    limit: int = Field(default=50, ge=1, le=200)
    workflow: str | None = Field(default=None, description="Only this workflow's runs.")


class RunRef(Params):
    run_id: str


class RunTablesParams(RunRef):
    table: str | None = Field(default=None, description="Only this table: its name (an exported file's name, "
                                                        "or an output's key) or its number from 1.")


async def resolve_workflow(ctx: OpContext, params: WorkflowRunParams) -> tuple[WorkflowDocument, str | None]:
    """The document to run: a saved one by name or id (`name`, or `workflow` as text), or `workflow` itself."""
    key = params.name
    if key is None and isinstance(params.workflow, str) and not is_document_text(params.workflow):
        key = params.workflow
    if key is not None:
        saved = ctx.workflows.find(key)
        return validate_document(saved.document), saved.id
    return document_of(params.workflow), None


@operation("workflow_run", WorkflowRunParams, RunResult, needs_browser=True, group="core")
async def workflow_run(ctx: OpContext, params: WorkflowRunParams) -> Envelope[RunResult]:
    """Run a workflow to its end, with no model in the loop; returns its run record (status, outputs, files,
    the failed node and error, trace and video when kept)."""
    assert ctx.runner is not None
    doc, workflow_id = await resolve_workflow(ctx, params)
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    record = await ctx.runner.run(doc, params.inputs, env_id=env_id, tab_id=params.tab_id, workflow_id=workflow_id,
                                  trigger=ctx.trigger, trace=params.trace, video=params.video)
    return run_result(record)


def run_result(record: RunRecord) -> Envelope[RunResult]:
    """The envelope of a finished run: `{run, tabId}` and the original app's fields; an OpError unless ok."""
    view = record.view()
    original = record.original_fields()  # the original app's envelope, beside ours
    if record.status != "ok":
        original.pop("ok")
        original["error"] = f"run {record.id} {record.status.replace('_', ' ')}: {record.error}"
        raise OpError(original["error"], run=view, errorShot=record.screenshot, tabId=record.tab_id,
                      **{k: v for k, v in original.items() if k != "error"})
    return Envelope.model_construct(ok=True, tab_id=record.tab_id, taken_over=record.taken_over, data=RunResult(
        run=RunView.model_validate(view), workflow=original["workflow"], title=original["title"],
        files=original["files"], outputs=original["outputs"]))


@operation("workflow_start", WorkflowRunParams, WorkflowStartResult, needs_browser=True, group="workflows")
async def workflow_start(ctx: OpContext, params: WorkflowRunParams) -> Envelope[WorkflowStartResult]:
    """Start a workflow run and return at once with {runId, tabId}; follow it with run_events, end it with
    run_wait (the envelope workflow_run returns) or run_cancel."""
    assert ctx.runner is not None
    doc, workflow_id = await resolve_workflow(ctx, params)
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    record = await ctx.runner.start(doc, params.inputs, env_id=env_id, tab_id=params.tab_id, workflow_id=workflow_id,
                                    trigger=ctx.trigger, trace=params.trace, video=params.video)
    return Envelope.model_construct(ok=True, tab_id=record.tab_id,
                                         data=WorkflowStartResult(run_id=record.id, workflow=workflow_id or ""))


class RunWaitParams(RunRef):
    timeout_ms: int = Field(default=600_000, ge=0, le=3_600_000, description="How long to wait (default 10 min).")


@operation("run_wait", RunWaitParams, RunResult, needs_browser=True, group="runs")
async def run_wait(ctx: OpContext, params: RunWaitParams) -> Envelope[RunResult]:
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
async def run_events(ctx: OpContext, params: RunEventsParams) -> RunEventsResult:
    """What happened in a run, in order: run_started, node_started, node_finished (status, ms, output or
    error), loop_pass, run_finished; each with a seq. `done` once the run has ended."""
    assert ctx.runner is not None
    events = ctx.runner.events
    if not events.knows(params.run_id):
        record = ctx.runs.get(params.run_id)  # unknown id -> LookupError
        return RunEventsResult(events=[], done=record.status != "running",
                               note="this run's events are no longer kept")
    return RunEventsResult(events=[RunEventView.model_validate(event.as_dict())
                                   for event in events.history(params.run_id, params.since)],
                           done=events.finished(params.run_id))


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
async def workflow_batch(ctx: OpContext, params: WorkflowBatchParams) -> WorkflowBatchResult:
    """Run a workflow once per data row (rows or a CSV/JSON rowsFile), up to `concurrency` tabs at once, or
    round-robin over several environments (accounts) with `envs`. A failed row does not stop the others."""
    assert ctx.runner is not None
    doc, workflow_id = await resolve_workflow(ctx, params)
    rows = params.rows if params.rows is not None else await in_thread(read_rows, params.rows_file or "")
    rows = [{**params.inputs, **row} for row in rows]
    envs = [ctx.envs.get(env).id for env in (params.envs or [params.env or DEFAULT_ENV_ID])]
    batch_id, progress = await ctx.runner.batch(doc, rows, envs=envs, concurrency=params.concurrency,
                                                workflow_id=workflow_id, on_progress=ctx.progress,
                                                trigger=ctx.trigger, trace=params.trace, video=params.video)
    results = [(BatchRowResult(row=index, status="not run") if record is None else
                BatchRowResult(row=index, run_id=record.id, status=record.status, error=record.error,
                               outputs=record.outputs, env=record.env))
               for index, record in enumerate(progress.records)]
    return WorkflowBatchResult(batch_id=batch_id, **progress.as_dict(), results=results)


@operation("run_list", RunListParams, RunListResult, read_only=True, group="core")
async def run_list(ctx: OpContext, params: RunListParams) -> RunListResult:
    """The latest runs, newest first."""
    runs = ctx.runs.list(limit=params.limit, workflow=params.workflow)
    return RunListResult(runs=[RunRow(id=r.id, workflow=r.workflow_name, env=r.env, status=r.status,
                                      started_at=r.started_at.isoformat(), duration_ms=r.duration_ms, error=r.error,
                                      batch_id=r.batch_id, row_index=r.row_index, worker=r.worker,
                                      healed=len(r.healed)) for r in runs])


@operation("run_read", RunRef, RunReadResult, read_only=True, group="core")
async def run_read(ctx: OpContext, params: RunRef) -> RunReadResult:
    """A run's whole record: per-node trace (timing, locator, heal; screenshots, console and requests when kept),
    video; `traceRemoved` when the disk cap deleted them."""
    record = await in_thread(ctx.runs.get, params.run_id)  # the whole record may be read from its folder
    view = record.view()
    if record.video or any(entry.before or entry.after for entry in record.trace):
        if not await in_thread(_trace_files_exist, record):
            view["traceRemoved"] = True
    return RunReadResult(run=RunView.model_validate(view))


def _trace_files_exist(record: RunRecord) -> bool:
    paths = [record.video] + [path for entry in record.trace for path in (entry.before, entry.after)]
    return any(path and Path(path).exists() for path in paths)


@operation("run_tables", RunTablesParams, RunTablesResult, read_only=True, group="runs")
async def run_tables(ctx: OpContext, params: RunTablesParams) -> RunTablesResult:
    """A run's tables, as a spreadsheet shows them: the tables its export nodes wrote (CSV, XLSX, JSON, JSON
    Lines) and its outputs that are lists. Returns {runId, tables: [{name, source: file|output, path?,
    headers, rows, rowCount, truncated}]} (with `table`: only that one)."""
    from workflows.tables import find_table, run_tables as tables_of

    view = ctx.runs.get(params.run_id).view()

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
    return RunTablesResult(run_id=params.run_id, tables=[RunTableView.model_validate(table.view()) for table in tables])


@operation("run_cancel", RunRef, RunCancelResult, destructive=True, group="runs")
async def run_cancel(ctx: OpContext, params: RunRef) -> RunCancelResult:
    """Cancel a running workflow run; its record is written with status cancelled."""
    if ctx.runner is None or not ctx.runner.cancel(params.run_id):
        ctx.runs.get(params.run_id)  # unknown id -> LookupError
        raise OpError(f"run {params.run_id} is not running")
    return RunCancelResult(run_id=params.run_id, cancelling=True)


OPERATIONS: tuple[Operation[Any, Any], ...] = (
    workflow_run, workflow_start, workflow_batch, run_list, run_read, run_wait, run_events, run_cancel, run_tables,
)
