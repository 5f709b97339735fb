"""`workflow_distribute`, `batch_resume` and `batch_list`: batches whose rows run on remote workers, recorded
in this app's runs store and in its own batch record (`batches/<id>.json`, app.distributed.batches).

`workflow_distribute` resolves the workflow as `workflow_batch` does, reads the rows, optionally exports a
login (`shipLogin`, the env_export format), writes the batch's record and follows it with a
`BatchSubmitter` on a plain thread (never the loop's executor: under qasync that starts QThreads).
`batch_resume` follows a batch on file again (its submitter was killed or cancelled off): it collects the
outcomes that arrived meanwhile and sends only the rows the broker no longer has. Both store each row's
kept outcome here, on the loop's thread, as a run of one batch: the worker's record with the worker's name
and timings (`worker`, `remote`), its files landed in this run's folder (those over the size limit stay on
the worker; `remote.filesOnWorker` says where). A later outcome of a row is added to the kept record's
`remote.duplicates`. Cancelling the operation (Ctrl-C) revokes the rows not started and waits for the
running ones; cancelling it again stops waiting (the batch can be resumed).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import threading
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from app.distributed.batches import BatchFiles, BatchState, Duplicate, RowState
from app.distributed.broker import safe_url
from app.distributed.defaults import DEFAULT_FILE_LIMIT, DEFAULT_QUEUE, DEFAULT_ROW_TIME_LIMIT
from app.distributed.models import BatchCounts
from app.distributed.shipping import land_files, relocate
from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import BatchListResult, BatchRowResult, DistributedBatchResult, DistributedBatchSummary
from app.ops.run_ops import WorkflowRunParams, read_rows, resolve_workflow
from plumbing import loggers
from workflows.runs import RunRecord

log = logging.getLogger(loggers.DISTRIBUTED)

QUEUE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9._-]*")


class WorkflowDistributeParams(WorkflowRunParams):
    broker: str = Field(description="The Redis broker: redis://[:password@]host:6379/0 or rediss:// (TLS).")
    queue: str = Field(default=DEFAULT_QUEUE, description="The queue the workers consume.")
    rows: list[dict[str, Any]] | None = Field(default=None, description="One inputs object per run.")
    rows_file: str | None = Field(default=None, description="A CSV (header row = input names) or JSON file of rows.")
    retries: int = Field(default=0, ge=0, le=20, description="Runs again of a row that failed for a workflow reason.")
    row_time_limit: float = Field(default=DEFAULT_ROW_TIME_LIMIT, gt=0, le=24 * 3600,
                                  description="Seconds a row may take on a worker.")
    file_limit: int = Field(default=DEFAULT_FILE_LIMIT, ge=0, description="Bytes of files per row shipped back.")
    ship_login: str | None = Field(default=None, description="Send this environment's cookies with the batch "
                                                             "(the broker then carries session cookies).")

    @model_validator(mode="after")
    def _rows(self) -> "WorkflowDistributeParams":
        if (self.rows is None) == (self.rows_file is None):
            raise ValueError("give exactly one of rows or rowsFile")
        if not self.broker.startswith(("redis://", "rediss://", "redis+socket://")):
            raise ValueError(f"the broker must be a redis:// or rediss:// URL, not {self.broker!r}")
        if not QUEUE_NAME.fullmatch(self.queue):
            raise ValueError(f"a queue name is letters, digits, '.', '-' and '_', starting with a letter, "
                             f"not {self.queue!r}")
        return self


class BatchResumeParams(Params):
    batch_id: str = Field(description="The batch's id (batch-…), as workflow_distribute and batch_list give it.")


async def _export_login(ctx: OpContext, env: str) -> dict[str, Any]:
    from app.ops.env_transfer_ops import EnvExportParams, env_export

    if ctx.browser is None:
        raise OpError("shipLogin needs the running app (its browser holds the cookies)")
    exported = await env_export.func(ctx, EnvExportParams(env=env))
    path = Path(exported.path)
    try:
        return dict(json.loads(path.read_text("utf-8")))
    finally:
        path.unlink(missing_ok=True)  # the login now lives in memory and in the broker only


def store_outcome(ctx: OpContext, outcome: Any, state: BatchState) -> RunRecord:
    """The record of one row's kept outcome in this app's store (files landed in its run folder)."""
    row = state.rows[outcome.row_index]
    if outcome.result is None:
        record = RunRecord(id=f"run-{secrets.token_hex(5)}", workflow_id=state.workflow_id,
                           workflow_name=state.workflow_name, env="(remote)", batch_id=state.id,
                           row_index=outcome.row_index, inputs=row.inputs,
                           status="cancelled" if outcome.revoked else "failed", error=outcome.error)
        record.ended_at = record.started_at
        return ctx.runs.save(record)
    result = outcome.result
    run_id = str(result.record["id"])
    moved, left = land_files(result.files, ctx.runs.folder(run_id))
    data = relocate(result.record, moved)
    record = RunRecord.model_validate(data)
    record.env = f"{record.env}@{result.worker}"
    record.worker = result.worker
    record.remote = {**result.timings(), "attempts": result.attempt, "filesOnWorker": left, "duplicates": []}
    return ctx.runs.save(record)


def store_duplicate(ctx: OpContext, run_id: str, duplicate: Duplicate) -> None:
    """A later outcome of a row, added to the kept record's `remote.duplicates`."""
    try:
        record = ctx.runs.get(run_id)
    except LookupError:
        log.warning("run %s is no longer in the store; its duplicate from %s is only in the batch record", run_id,
                    duplicate.worker)
        return
    remote = dict(record.remote or {})
    remote["duplicates"] = [*remote.get("duplicates", []), duplicate.model_dump(mode="json", by_alias=True)]
    ctx.runs.save(record.model_copy(update={"remote": remote}))


async def follow_batch(ctx: OpContext, state: BatchState, login: dict[str, Any] | None) -> DistributedBatchResult:
    """Run a batch's submitter on a thread until every row has an outcome (or the caller cancels), storing
    outcomes and duplicates here; the batch's summary."""
    from app.distributed.submitter import BatchSubmitter, RowOutcome, SubmitterCallbacks

    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()
    record_ids = {index: row.run_id for index, row in enumerate(state.rows) if row.run_id}
    counts = BatchCounts(total=len(state.rows), queued=len(state.rows))

    def outcome(item: RowOutcome) -> None:
        record_ids[item.row_index] = store_outcome(ctx, item, state).id

    def duplicate(index: int, item: Duplicate) -> None:
        if index in record_ids:
            store_duplicate(ctx, record_ids[index], item)

    def progress(latest: BatchCounts) -> None:
        nonlocal counts
        counts = latest
        if ctx.progress is not None:
            ctx.progress(latest.as_progress())

    def notice(text: str) -> None:
        log.error("batch %s: %s", state.id, text)  # an error line: the command line shows it (quiet mode)

    # The submitter's thread owns `state` until it ends; the loop only reads it afterwards.
    callbacks = SubmitterCallbacks(on_outcome=lambda item: loop.call_soon_threadsafe(outcome, item),
                                   on_duplicate=lambda index, item: loop.call_soon_threadsafe(duplicate, index, item),
                                   on_counts=lambda latest: loop.call_soon_threadsafe(progress, latest),
                                   on_notice=lambda text: loop.call_soon_threadsafe(notice, text))
    submitter = BatchSubmitter(state, BatchFiles(ctx.data), callbacks, login)

    def run() -> None:
        try:
            submitter.run()
        except BaseException as exc:  # tell the loop, whatever happened
            log.exception("batch %s: the submitter stopped", state.id)
            failure = OpError(str(exc) if isinstance(exc, LookupError) else
                              f"{exc} (the batch is on file: browserpilot batch resume {state.id})")
            loop.call_soon_threadsafe(lambda: finished.done() or finished.set_exception(failure))
        else:
            loop.call_soon_threadsafe(lambda: finished.done() or finished.set_result(None))

    log.warning("batch %s: %d row(s) of %s on %s, queue %s (if this process stops: browserpilot batch resume %s)",
                state.id, len(state.rows), state.workflow_name, safe_url(state.broker), state.queue, state.id)
    threading.Thread(target=run, name=f"browserpilot-submit-{state.id}", daemon=True).start()
    try:
        await asyncio.shield(finished)
    except asyncio.CancelledError:
        log.warning("batch %s cancelled: revoking the rows not started, waiting for the running ones", state.id)
        submitter.cancel()
        try:
            await asyncio.shield(finished)
        except asyncio.CancelledError:
            submitter.abandon()
            raise
        raise
    await asyncio.sleep(0)  # let the last outcomes queued by the thread be stored
    return summary(ctx, state, record_ids)


def summary(ctx: OpContext, state: BatchState, record_ids: dict[int, str]) -> DistributedBatchResult:
    results = [_row_summary(ctx, index, row, record_ids.get(index)) for index, row in enumerate(state.rows)]
    counts = state.counts()
    return DistributedBatchResult(
        batch_id=state.id, status=state.status, total=len(state.rows), done=counts["done"] + counts["failed"],
        succeeded=counts["done"], failed=len(state.rows) - counts["done"], running=counts["running"],
        queued=counts["queued"], duplicates=sum(len(row.duplicates) for row in state.rows), results=results)


def _row_summary(ctx: OpContext, index: int, row: RowState, run_id: str | None) -> BatchRowResult:
    if row.outcome is None:
        return BatchRowResult(row=index, status="not run")
    item = BatchRowResult(row=index, run_id=run_id, status=row.outcome, error=row.error, worker=row.worker,
                          duplicates=len(row.duplicates))
    if run_id is not None:
        try:
            record = ctx.runs.get(run_id)
        except LookupError:
            return item
        item = BatchRowResult(**{**dict(item), "status": record.status, "outputs": record.outputs, "env": record.env})
    return item


@operation("workflow_distribute", WorkflowDistributeParams, DistributedBatchResult, group="workers")
async def workflow_distribute(ctx: OpContext, params: WorkflowDistributeParams) -> DistributedBatchResult:
    """Run a workflow once per data row on remote workers (`browserpilot worker`) through a Redis broker. The
    workflow document travels with each row; each row's result (with the worker's name and timings) is stored
    here as a run of one batch. Delivery is at least once: a row whose worker died runs again elsewhere; its
    first outcome is kept, later ones are listed as duplicates. The batch is also on file (batch_resume)."""
    if params.trace or params.video:
        raise OpError("a batch on workers cannot keep traces or videos yet; run the rows here (workflow_batch) "
                      "to keep them")
    doc, workflow_id = await resolve_workflow(ctx, params)
    rows = params.rows if params.rows is not None else read_rows(params.rows_file or "")
    if not rows:
        raise OpError("there are no rows to run")
    ship_login = ctx.envs.get(params.ship_login).id if params.ship_login else None
    login = await _export_login(ctx, ship_login) if ship_login else None
    state = BatchState(id=f"batch-{secrets.token_hex(4)}", workflow_id=workflow_id, workflow_name=doc.name,
                       document=doc.to_data(), broker=params.broker, queue=params.queue, retries=params.retries,
                       row_time_limit=params.row_time_limit, file_limit=params.file_limit, ship_login=ship_login,
                       rows=[RowState(inputs={**params.inputs, **row}) for row in rows])
    return await follow_batch(ctx, state, login)


@operation("batch_resume", BatchResumeParams, DistributedBatchResult, group="workers")
async def batch_resume(ctx: OpContext, params: BatchResumeParams) -> DistributedBatchResult:
    """Follow a distributed batch again (its submitter was killed, or stopped waiting): collect the outcomes
    the workers reported meanwhile, send again only the rows the broker no longer has, and wait for the rest.
    On a batch that has ended, it collects late duplicates."""
    state = BatchFiles(ctx.data).load(params.batch_id)
    login = None
    if state.ship_login and state.open_rows():
        login = await _export_login(ctx, ctx.envs.get(state.ship_login).id)
    return await follow_batch(ctx, state, login)


@operation("batch_list", Params, BatchListResult, read_only=True, group="workers")
async def batch_list(ctx: OpContext, params: Params) -> BatchListResult:
    """The distributed batches this app submitted, newest first: status (running = not every row has an
    outcome yet: resume it with batch_resume), counts and duplicates."""
    batches = []
    for state in BatchFiles(ctx.data).list():
        counts = state.counts()
        batches.append(DistributedBatchSummary(
            batch_id=state.id, workflow=state.workflow_name, status=state.status, broker=safe_url(state.broker),
            queue=state.queue, total=counts["total"], succeeded=counts["done"], failed=counts["failed"],
            open=len(state.open_rows()), duplicates=sum(len(r.duplicates) for r in state.rows),
            submitted_at=state.submitted_at))
    return BatchListResult(batches=batches)


OPERATIONS: tuple[Operation[Any, Any], ...] = (workflow_distribute, batch_resume, batch_list)
