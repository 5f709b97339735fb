"""`browserpilot worker`: the app, headless, with a Dramatiq worker that runs rows from a Redis broker (the
process itself is started where the app is wired: app/wiring/worker.py).

Threads: Qt and asyncio (qasync) own the main thread, as in every BrowserPilot process. Dramatiq's `Worker`
(embedded, not the `dramatiq` program, which forks and wants the main thread's signals) runs its consumer
threads and N slot threads beside it. A slot hands its row to the app's loop with
`asyncio.run_coroutine_threadsafe` and blocks until the row has ended; so Qt objects are only touched on the
main thread, and the consumers keep polling the broker (and so sending the worker's heartbeat,
app.distributed.broker) whatever the pages do. A worker that is killed or hangs stops its heartbeat; the
live workers then put its rows back in the queue within the heartbeat timeout (15 s by default).

A row (the actor, on a slot thread): its claim in the batch's ledger is checked first (a row the submitter
revoked, or one that already delivered its result, is dropped); each run of it is announced (`started`),
run in a fresh tab (app.distributed.rows), run again up to the row's `retries` when the workflow failed,
and its result written to the ledger before the broker's acknowledgement. A row whose app lost its
renderer or hung goes back to the queue (the consumer's own requeue, as Dramatiq's warm shutdown does),
at most `MAX_RECOVERIES` times, then it is reported as failed. Nothing a row raises escapes the actor:
Dramatiq would move the message to its dead-letter set, and the row would have no outcome.

Stopping: the first SIGINT/SIGTERM is a warm shutdown (no new rows; rows in hand finish and are
acknowledged; rows fetched but not started go back to the queue). A second one cancels the rows in hand,
which go back to the queue for another worker.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from app.distributed.broker import ACTOR, POLL_MS, make_broker, retrying
from app.distributed.defaults import DEFAULT_HEARTBEAT_TIMEOUT, DEFAULT_QUEUE, DEFAULT_ROW_TIME_LIMIT
from app.distributed.ledger import BatchLedger
from app.distributed.models import RowResult, RowTask
from app.distributed.rows import AppFault, RowRunner
from plumbing import loggers

log = logging.getLogger(loggers.DISTRIBUTED)

MAX_RECOVERIES = 2
"""Times a row goes back to the queue after its app lost its renderer or hung (then it is reported failed)."""

T = TypeVar("T")


@dataclass(frozen=True)
class WorkerOptions:
    broker: str
    concurrency: int = 1
    env_id: str = "env-default"
    queue: str = DEFAULT_QUEUE
    name: str = ""
    row_time_limit: float = DEFAULT_ROW_TIME_LIMIT
    heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT

    def hostname(self) -> str:
        return self.name or f"bp-{socket.gethostname()}-{os.getpid()}"


class RowConsumer:
    """Dramatiq's worker in this process, running each row on the app's loop."""

    def __init__(self, options: WorkerOptions, runner: RowRunner, loop: asyncio.AbstractEventLoop) -> None:
        self.options = options
        self.runner = runner
        self.loop = loop
        self.name = options.hostname()
        self.broker = make_broker(options.broker, consuming=True, heartbeat_timeout=options.heartbeat_timeout)
        self.cancelling = False
        self.error: BaseException | None = None
        self.on_done: Callable[[], None] | None = None
        self.done = threading.Event()
        self._stopping = threading.Event()  # a warm shutdown was asked for
        self._giving_up = threading.Event()  # the second signal: stop waiting for the broker too
        self._worker: Any = None
        self._lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._start, name="browserpilot-worker-start", daemon=True).start()

    def _start(self) -> None:
        import dramatiq

        try:
            reached, _ = retrying("start consuming", self.broker.client.ping, stop=self._stopping,
                                  notice=lambda text: log.warning("worker %s: %s", self.name, text))
            with self._lock:
                if not reached or self._stopping.is_set():
                    self._finish()
                    return
                dramatiq.actor(self._run_row, broker=self.broker, actor_name=ACTOR, queue_name=self.options.queue)
                worker = dramatiq.Worker(self.broker, queues={self.options.queue},
                                         worker_threads=self.options.concurrency, worker_timeout=POLL_MS)
                worker.queue_prefetch = self.options.concurrency  # fetch a row only for a free slot
                worker.delay_prefetch = 1  # rows are never delayed; that consumer only polls (and heartbeats)
                worker.start()
                self._worker = worker
        except BaseException as exc:  # the app must hear why the worker cannot run
            log.exception("the worker could not start")
            self.error = exc
            self._finish()
            return
        log.warning("worker %s ready: queue %s, %d slot(s), environment %s, row time limit %g s, heartbeat "
                    "timeout %g s", self.name, self.options.queue, self.options.concurrency, self.options.env_id,
                    self.options.row_time_limit, self.options.heartbeat_timeout)

    def stop(self) -> None:
        """Warm shutdown, from any thread: finish the rows in hand, put back what was fetched and not started."""
        self._stopping.set()
        threading.Thread(target=self._stop, name="browserpilot-worker-stop", daemon=True).start()

    def _stop(self) -> None:
        with self._lock:
            worker = self._worker
        if worker is None:
            self._finish()  # not started yet: `_start` sees the flag (or already has)
            return
        try:
            worker.stop(timeout=int((self.options.row_time_limit + 60) * 1000))
        except Exception:  # the broker went away meanwhile: fetched rows come back when our heartbeat lapses
            log.exception("the worker did not stop cleanly")
        self._finish()

    def give_up(self) -> None:
        """The second signal: cancel the rows in hand (they go back to the queue) and stop waiting for the broker."""
        self.cancelling = True
        self._giving_up.set()
        self.loop.call_soon_threadsafe(self.runner.cancel_all)

    def _finish(self) -> None:
        if self.done.is_set():
            return
        self.done.set()
        if self.on_done is not None:
            self.on_done()

    # -- a row (on a slot thread) ----------------------------------------------------------------------
    def _broker_call(self, what: str, action: Callable[[], T]) -> T | None:
        """A call to the broker that waits out an outage (saying so); None after the second signal."""
        _ok, value = retrying(what, action, stop=self._giving_up,
                              notice=lambda text: log.warning("worker %s: %s", self.name, text))
        return value

    def _run_row(self, row: dict[str, Any]) -> None:
        from dramatiq.middleware import CurrentMessage
        from pydantic import ValidationError

        message = CurrentMessage.get_current_message()
        try:
            parsed = RowTask.model_validate(row)
        except ValidationError as exc:  # not a row of ours: nothing to report it to, so it is dropped
            log.error("a message on queue %s is not a row (%s); dropped", self.options.queue, exc)
            return
        index = parsed.row_index
        ledger = BatchLedger(self.broker.client, parsed.batch_id)
        claim = self._broker_call(f"claim row {index}", lambda: ledger.claim(index))
        if claim is None:  # stopping while the broker is away: the row stays unacknowledged, so it comes back
            return
        if claim != "go":
            log.info("row %s of batch %s skipped: %s", index, parsed.batch_id,
                     "revoked by its submitter" if claim == "revoked" else "it already has its result")
            return
        parsed = parsed.model_copy(update={"time_limit": min(parsed.time_limit, self.options.row_time_limit)})
        try:
            result = self._run_with_retries(parsed, ledger)
        except AppFault as exc:
            recoveries = self._broker_call(f"count the recoveries of row {index}", lambda: ledger.recovered(index))
            if recoveries is not None and recoveries <= MAX_RECOVERIES:
                log.warning("row %s: %s; it goes back to the queue (%d of %d)", index, exc, recoveries, MAX_RECOVERIES)
                self._requeue(message)
                return
            log.error("row %s: %s; giving up after %d recoveries", index, exc, MAX_RECOVERIES)
            self._finished(ledger, index, error=f"{exc} (it went back to the queue {MAX_RECOVERIES} times)")
            return
        except (asyncio.CancelledError, concurrent.futures.CancelledError, Exception) as exc:
            if self.cancelling:
                log.warning("row %s cancelled by the worker's shutdown; it goes back to the queue", index)
                self._requeue(message)
                return
            log.exception("row %s could not be run", index)
            self._finished(ledger, index, error=f"the worker could not run the row: {exc!r}")
            return
        self._finished(ledger, index, result=result)

    def _run_with_retries(self, row: RowTask, ledger: BatchLedger) -> RowResult:
        """The row's runs on this worker: once, and again while the workflow fails, up to `row.retries` more."""
        runs = 0
        while True:
            attempt = self._broker_call(f"announce row {row.row_index}",
                                        lambda: ledger.started(row.row_index, self.name, time.time()))
            log.info("row %s of %s (batch %s, attempt %s)", row.row_index, row.total, row.batch_id, attempt)
            result = asyncio.run_coroutine_threadsafe(self.runner.run(row), self.loop).result()
            result.attempt = attempt or runs + 1
            runs += 1
            if result.record.get("status") == "ok" or runs > row.retries:
                return result
            log.info("row %s failed (%s); running it again (%d of %d)", row.row_index, result.record.get("error"),
                     runs, row.retries)

    def _finished(self, ledger: BatchLedger, index: int, result: RowResult | None = None,
                  error: str | None = None) -> None:
        self._broker_call(f"report row {index}", lambda: ledger.finished(index, self.name, result=result, error=error))

    def _requeue(self, message: Any) -> None:
        """Put the row's own message back at the end of the queue (unacknowledged: the acknowledgement that
        follows then finds nothing to remove)."""
        consumer = self._worker.consumers[message.queue_name]
        try:
            self._broker_call("put the row back in the queue", lambda: consumer.requeue_messages([message]))
        except Exception:  # acknowledged without an outcome: its submitter finds it lost and sends it again
            log.exception("could not put row %s back in the queue; its submitter will send it again",
                          message.kwargs.get("row", {}).get("rowIndex"))


def broker_logging_to_stderr() -> None:
    """Dramatiq's and redis's warnings (broker unreachable, consumer restarts) on stderr next to ours."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    for name in ("dramatiq", "redis"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False
