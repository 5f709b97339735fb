"""Sending a batch's rows to the broker and following their results, on one plain Python thread.

`BatchSubmitter.run` (the thread) publishes one task per row (task id `<batch>-r<row>`, so a row sent twice
is still one row), then reads the result backend (one `MGET` per round) until every row has ended. It reports
to the caller through callbacks, which the caller marshals to its own loop: a row's result, the counts
(done, failed, running, queued) and notices (the broker is unreachable: retrying in N s). An unreachable
broker never loses a row: publishing and reading retry with back-off (1 s doubling to 30 s) until the broker
is back or the caller cancels. `cancel` revokes the rows that have not started; the rows already running
still come back. No Qt, no asyncio.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from app.distributed.defaults import DEFAULT_QUEUE
from app.distributed.models import BatchCounts, RowResult, RowTask
from app.distributed.tasks import TASK_NAME, make_celery, result_reader

log = logging.getLogger("browserpilot.distributed")

POLL_SECONDS = 0.25
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
QUEUED_STATES = {"PENDING", "RECEIVED", "RETRY"}


@dataclass
class RowOutcome:
    row_index: int
    result: RowResult | None = None
    error: str | None = None
    """Why there is no result: the task raised (the worker gave up), or it was revoked."""
    revoked: bool = False


@dataclass
class SubmitterCallbacks:
    on_outcome: Callable[[RowOutcome], None]
    on_counts: Callable[[BatchCounts], None] = lambda counts: None
    on_notice: Callable[[str], None] = lambda text: None


@dataclass
class BatchSubmitter:
    broker: str
    rows: list[RowTask]
    callbacks: SubmitterCallbacks
    queue: str = DEFAULT_QUEUE
    _stop: threading.Event = field(default_factory=threading.Event)
    _cancel: threading.Event = field(default_factory=threading.Event)

    def task_id(self, row: RowTask) -> str:
        return f"{row.batch_id}-r{row.row_index}"

    def cancel(self) -> None:
        """Revoke the rows that have not started (from any thread); running rows still report."""
        self._cancel.set()

    def abandon(self) -> None:
        """Stop following at once (the rows still run on the workers; their results stay in the backend)."""
        self._cancel.set()
        self._stop.set()

    def run(self) -> None:
        limit = max((row.time_limit for row in self.rows), default=600.0)
        celery = make_celery(self.broker, row_time_limit=limit)
        try:
            pending = self._publish(celery)
            self._follow(celery, pending)
        finally:
            celery.close()

    # -- publishing ------------------------------------------------------------------------------------
    def _retrying(self, what: str, action: Callable[[], Any], cancellable: bool = False) -> tuple[bool, Any]:
        """Run `action` until it works, telling about each failure; (False, None) when stopped meanwhile
        (or cancelled, when `cancellable`)."""
        from kombu.exceptions import OperationalError
        from redis.exceptions import RedisError

        delay = BACKOFF_FIRST
        while not self._stop.is_set() and not (cancellable and self._cancel.is_set()):
            try:
                return True, action()
            except (OperationalError, RedisError, OSError) as exc:
                self.callbacks.on_notice(f"cannot reach the broker to {what} ({exc}); retrying in {delay:g} s")
                if (self._cancel if cancellable else self._stop).wait(delay) or self._stop.is_set():
                    break
                delay = min(BACKOFF_MAX, delay * 2)
        return False, None

    def _publish(self, celery: Any) -> dict[str, RowTask]:
        pending: dict[str, RowTask] = {}
        for row in self.rows:
            if self._cancel.is_set():
                self.callbacks.on_outcome(RowOutcome(row.row_index, error="cancelled before it was sent",
                                                     revoked=True))
                continue
            task_id = self.task_id(row)
            payload = row.model_dump(mode="json", by_alias=True)

            def send(payload: dict[str, Any] = payload, task_id: str = task_id) -> Any:
                return celery.send_task(TASK_NAME, kwargs={"row": payload}, task_id=task_id, queue=self.queue,
                                        retry=False)

            sent, _ = self._retrying(f"send row {row.row_index}", send, cancellable=True)
            if not sent:
                self.callbacks.on_outcome(RowOutcome(row.row_index, error="cancelled before it was sent",
                                                     revoked=True))
                continue
            pending[task_id] = row
        return pending

    # -- following -------------------------------------------------------------------------------------
    def _follow(self, celery: Any, pending: dict[str, RowTask]) -> None:
        backend = result_reader(celery, self.broker)
        counts = BatchCounts(total=len(self.rows), queued=len(pending))
        self.callbacks.on_counts(counts.model_copy())
        revoked_sent = False
        while pending and not self._stop.is_set():
            ids = list(pending)
            ok, raw = self._retrying("read results", lambda: backend.client.mget(
                [backend.get_key_for_task(task_id) for task_id in ids]))
            if not ok:
                break
            states: dict[str, dict[str, Any]] = {}
            for task_id, value in zip(ids, raw):
                states[task_id] = backend.decode_result(value) if value else {"status": "PENDING"}
            if self._cancel.is_set() and not revoked_sent:
                revoked_sent = self._revoke(celery, pending, states)
            running = queued = 0
            for task_id, meta in states.items():
                status = str(meta.get("status"))
                row = pending[task_id]
                if status == "SUCCESS":
                    result = RowResult.model_validate(meta["result"])
                    self.callbacks.on_outcome(RowOutcome(row.row_index, result=result))
                    del pending[task_id]
                    counts.done += result.record.get("status") == "ok"
                    counts.failed += result.record.get("status") != "ok"
                elif status in ("FAILURE", "REVOKED") or (revoked_sent and status in QUEUED_STATES):
                    self.callbacks.on_outcome(RowOutcome(row.row_index, error=_failure_text(meta, status),
                                                         revoked=status != "FAILURE"))
                    del pending[task_id]
                    counts.failed += 1
                elif status == "STARTED":
                    running += 1
                else:
                    queued += 1
            counts.running, counts.queued = running, queued
            self.callbacks.on_counts(counts.model_copy())
            if pending:
                self._stop.wait(POLL_SECONDS)

    def _revoke(self, celery: Any, pending: dict[str, RowTask], states: dict[str, dict[str, Any]]) -> bool:
        waiting = [task_id for task_id, meta in states.items() if meta.get("status") in QUEUED_STATES]
        if not waiting:
            return True
        ok, _ = self._retrying("revoke the rows not started", lambda: celery.control.revoke(waiting))
        if ok:
            log.info("revoked %d row(s) that had not started", len(waiting))
        return ok


def _failure_text(meta: dict[str, Any], status: str) -> str:
    if status != "FAILURE":
        return "revoked before it started"
    result = meta.get("result")
    if isinstance(result, dict):
        return f"{result.get('exc_type', 'error')}: {result.get('exc_message')}"
    return str(result)
