"""`workflow_distribute`: a batch whose rows run on remote workers, recorded in this app's runs store.

The operation resolves the workflow as `workflow_batch` does, reads the rows, optionally exports a login
(`shipLogin`, the env_export format), and runs a `BatchSubmitter` on a plain thread (never the loop's
executor: under qasync that starts QThreads). Each row's result is stored here, on the loop's thread, as a run
of one batch: the worker's record with the worker's name and timings (`worker`, `remote`), its files landed
in this run's folder (those over the size limit stay on the worker; `remote.filesOnWorker` says where).
Cancelling the operation (Ctrl-C) revokes the rows not started and waits for the running ones; cancelling it
again stops waiting.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from app.distributed.defaults import DEFAULT_FILE_LIMIT, DEFAULT_QUEUE, DEFAULT_ROW_TIME_LIMIT
from app.distributed.models import BatchCounts, RowTask
from app.distributed.shipping import land_files, relocate
from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, operation
from app.ops.workflow_ops import WorkflowRunParams, _resolve, read_rows
from workflows.runs import RunRecord

log = logging.getLogger("browserpilot.distributed")


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
        return self


async def _export_login(ctx: OpContext, env: str) -> dict[str, Any]:
    from app.ops.env_transfer_ops import EnvExportParams, env_export

    if ctx.browser is None:
        raise OpError("shipLogin needs the running app (its browser holds the cookies)")
    exported = await env_export.func(ctx, EnvExportParams(env=env))
    path = Path(exported["path"])
    try:
        return dict(json.loads(path.read_text("utf-8")))
    finally:
        path.unlink(missing_ok=True)  # the login now lives in memory and in the broker only


def store_outcome(ctx: OpContext, outcome: Any, row: RowTask, workflow_name: str) -> RunRecord:
    """The record of one row in this app's store (files landed in its run folder)."""
    if outcome.result is None:
        record = RunRecord(id=f"run-{secrets.token_hex(5)}", workflow_id=row.workflow_id, workflow_name=workflow_name,
                           env="(remote)", batch_id=row.batch_id, row_index=row.row_index, inputs=row.inputs,
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
    record.remote = {**result.timings(), "attempts": result.attempt, "filesOnWorker": left}
    return ctx.runs.save(record)


@operation("workflow_distribute", WorkflowDistributeParams)
async def workflow_distribute(ctx: OpContext, params: WorkflowDistributeParams) -> dict[str, Any]:
    """Run a workflow once per data row on remote workers (`browserpilot worker`) through a Redis broker. The
    workflow document travels with each row; each row's result (with the worker's name and timings) is stored
    here as a run of one batch. Delivery is at least once."""
    from app.distributed.submitter import BatchSubmitter, RowOutcome, SubmitterCallbacks

    doc, workflow_id = await _resolve(ctx, params)
    rows = params.rows if params.rows is not None else read_rows(params.rows_file or "")
    if not rows:
        raise OpError("there are no rows to run")
    login = await _export_login(ctx, ctx.envs.get(params.ship_login).id) if params.ship_login else None
    batch_id = f"batch-{secrets.token_hex(4)}"
    document = doc.to_data()
    now = time.time()
    tasks = [RowTask(batch_id=batch_id, row_index=index, total=len(rows), workflow_id=workflow_id, document=document,
                     inputs={**params.inputs, **row}, time_limit=params.row_time_limit, file_limit=params.file_limit,
                     retries=params.retries, login=login, submitted_at=now) for index, row in enumerate(rows)]
    loop = asyncio.get_running_loop()
    records: list[RunRecord | None] = [None] * len(rows)
    finished: asyncio.Future[None] = loop.create_future()
    counts = BatchCounts(total=len(rows), queued=len(rows))

    def outcome(item: RowOutcome) -> None:
        records[item.row_index] = store_outcome(ctx, item, tasks[item.row_index], doc.name)

    def progress(latest: BatchCounts) -> None:
        nonlocal counts
        counts = latest
        if ctx.progress is not None:
            ctx.progress(latest.as_progress())

    def notice(text: str) -> None:
        log.error("batch %s: %s", batch_id, text)  # an error line: the command line shows it (quiet mode)

    callbacks = SubmitterCallbacks(on_outcome=lambda item: loop.call_soon_threadsafe(outcome, item),
                                   on_counts=lambda latest: loop.call_soon_threadsafe(progress, latest),
                                   on_notice=lambda text: loop.call_soon_threadsafe(notice, text))
    submitter = BatchSubmitter(params.broker, tasks, callbacks, queue=params.queue)

    def follow() -> None:
        try:
            submitter.run()
        except BaseException as exc:  # tell the loop, whatever happened
            log.exception("batch %s: the submitter stopped", batch_id)
            failure = OpError(str(exc))  # bound now: `exc` is unset once this block ends, before the loop runs
            loop.call_soon_threadsafe(lambda: finished.done() or finished.set_exception(failure))
        else:
            loop.call_soon_threadsafe(lambda: finished.done() or finished.set_result(None))

    log.info("batch %s: %d row(s) of %s to %s (queue %s)", batch_id, len(rows), doc.name, params.broker.split("@")[-1],
             params.queue)
    threading.Thread(target=follow, name=f"browserpilot-submit-{batch_id}", daemon=True).start()
    try:
        await asyncio.shield(finished)
    except asyncio.CancelledError:
        log.warning("batch %s cancelled: revoking the rows not started, waiting for the running ones", batch_id)
        submitter.cancel()
        try:
            await asyncio.shield(finished)
        except asyncio.CancelledError:
            submitter.abandon()
            raise
        raise
    await asyncio.sleep(0)  # let the last results queued by the thread be stored
    results = [({"row": index, "status": "not run"} if record is None else
                {"row": index, "runId": record.id, "status": record.status, "error": record.error,
                 "outputs": record.outputs, "env": record.env, "worker": record.worker})
               for index, record in enumerate(records)]
    ok = sum(1 for record in records if record is not None and record.status == "ok")
    return {"batchId": batch_id, "total": len(rows), "done": sum(r is not None for r in records), "succeeded": ok,
            "failed": len(rows) - ok, "running": counts.running, "queued": counts.queued, "results": results}


OPERATIONS: tuple[Operation[Any], ...] = (workflow_distribute,)
