"""`browserpilot worker`: the app, headless, with a Celery consumer that runs rows from a Redis broker.

Threads: Qt and asyncio (qasync) own the main thread, as in every BrowserPilot process. Celery's
`WorkController` (not the `celery worker` program, which wants the main thread for its signal handlers and
would fork) runs on one plain Python thread with its `threads` pool of N slots. A slot hands its row to the
app's loop with `asyncio.run_coroutine_threadsafe` and blocks until the row has ended; so Qt objects are only
touched on the main thread, and the consumer keeps its broker connection, heartbeats and acknowledgements on
its own thread, whatever the pages do. (A solo pool would run one row at a time; a prefork pool cannot share
one app.)

Stopping: the first SIGINT/SIGTERM is a warm shutdown (no new rows; rows in hand finish and are acknowledged;
rows prefetched but not started go back to the queue). A second one cancels the rows in hand, which are then
rejected with requeue, so another worker runs them. SIGKILL leaves rows unacknowledged: Redis delivers them
again after the visibility timeout (app.distributed.tasks).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import sys
import threading
from dataclasses import dataclass
from typing import Any

from app.distributed.defaults import DEFAULT_QUEUE
from app.distributed.models import RowTask
from app.distributed.rows import AppFault, RowRunner
from app.distributed.tasks import make_celery, visibility_timeout
from envs.datadir import DataDir

log = logging.getLogger("browserpilot.distributed")

MAX_RECOVERIES = 2
"""Times a row is delivered again after its app lost its renderer or hung (then it is recorded as failed)."""


@dataclass(frozen=True)
class WorkerOptions:
    broker: str
    concurrency: int = 1
    env_id: str = "env-default"
    queue: str = DEFAULT_QUEUE
    name: str = ""
    row_time_limit: float = 600.0

    def hostname(self) -> str:
        return self.name or f"bp-{socket.gethostname()}-{os.getpid()}"


class CeleryConsumer:
    """Celery's worker machinery on one plain thread, running each row on the app's loop."""

    def __init__(self, options: WorkerOptions, runner: RowRunner, loop: asyncio.AbstractEventLoop) -> None:
        self.options = options
        self.runner = runner
        self.loop = loop
        self.cancelling = False
        self.error: BaseException | None = None
        def run_row(task: Any, row: dict[str, Any]) -> dict[str, Any]:  # Celery passes the bound task first
            return self._run_row(task, row)

        self.celery = make_celery(options.broker, row_time_limit=options.row_time_limit, run_row=run_row)
        # Celery's thread pool finds tasks through the process's default app (its threads have no current
        # app of their own); a worker process has this one app only.
        self.celery.set_default()
        self.on_done: Any = None
        self._thread = threading.Thread(target=self._main, name="browserpilot-celery", daemon=True)
        self.done = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def _main(self) -> None:
        from celery.worker import WorkController

        consumer = self

        class Controller(WorkController):  # type: ignore[misc]
            def on_consumer_ready(self, _consumer: Any) -> None:
                log.warning("worker %s ready: queue %s, %d slot(s), environment %s, row time limit %g s",
                            consumer.options.hostname(), consumer.options.queue, consumer.options.concurrency,
                            consumer.options.env_id, consumer.options.row_time_limit)

        try:
            controller = Controller(
                app=self.celery, hostname=self.options.hostname(), pool_cls="threads",
                concurrency=self.options.concurrency, queues=[self.options.queue], without_gossip=True,
                without_mingle=True, optimization="fair", prefetch_multiplier=1)
            controller.start()
        except BaseException as exc:  # the consumer's thread must tell the app why it stopped
            log.exception("the Celery consumer stopped")
            self.error = exc
        finally:
            self.done.set()
            if self.on_done is not None:
                self.on_done()

    def stop(self) -> None:
        """Warm shutdown, from any thread: finish the rows in hand, put back what was not started.

        As Celery's own signal handlers do, this only raises the worker's shutdown flag; the consumer's thread
        sees it at its next turn of the event loop (or of a connection retry, at most a second away) and
        stops there. Calling `WorkController.stop` from another thread closed the broker's sockets under the
        loop that polls them: the loop could then block for good in a read on a pub/sub socket (seen in CI).
        """
        from celery.platforms import EX_OK
        from celery.worker import state as worker_state

        worker_state.should_stop = EX_OK
        if not self._thread.is_alive():  # never started, or already ended: nothing will report the end
            self.done.set()
            if self.on_done is not None:
                self.on_done()

    # -- the task (on a slot thread of the pool) --------------------------------------------------------
    def _run_row(self, task: Any, row: dict[str, Any]) -> dict[str, Any]:
        from celery.exceptions import Reject

        parsed = RowTask.model_validate(row)
        log.info("row %s of %s (batch %s, attempt %d)", parsed.row_index, parsed.total, parsed.batch_id,
                 parsed.attempt + 1)
        limit = min(parsed.time_limit, self.options.row_time_limit)
        parsed = parsed.model_copy(update={"time_limit": limit})
        future = asyncio.run_coroutine_threadsafe(self.runner.run(parsed), self.loop)
        try:
            result = future.result()
        except AppFault as exc:
            if parsed.recoveries >= MAX_RECOVERIES:
                log.error("row %s: %s; giving up after %d deliveries", parsed.row_index, exc, parsed.attempt + 1)
                raise
            log.warning("row %s: %s; delivering it again", parsed.row_index, exc)
            again = parsed.model_copy(update={"attempt": parsed.attempt + 1, "recoveries": parsed.recoveries + 1})
            raise task.retry(kwargs={"row": again.model_dump(mode="json", by_alias=True)}, countdown=0.5)
        except (asyncio.CancelledError, Exception) as exc:
            if self.cancelling:
                log.warning("row %s cancelled by the worker's shutdown; it goes back to the queue", parsed.row_index)
                raise Reject(reason="worker shutting down", requeue=True) from exc
            raise
        failed = result.record.get("status") != "ok"
        workflow_runs = parsed.attempt - parsed.recoveries + 1
        if failed and workflow_runs <= parsed.retries:
            log.info("row %s failed (%s); retrying (%d of %d)", parsed.row_index, result.record.get("error"),
                     workflow_runs, parsed.retries)
            again = parsed.model_copy(update={"attempt": parsed.attempt + 1})
            raise task.retry(kwargs={"row": again.model_dump(mode="json", by_alias=True)}, countdown=0.5)
        return result.model_dump(mode="json", by_alias=True)


def _quiet_celery_logging() -> None:
    """Celery's and kombu's warnings (broker unreachable, retries) on stderr next to ours."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    for name in ("celery", "kombu"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def run_worker(data: DataDir, options: WorkerOptions) -> int:
    """Start the headless app on `data` and consume rows until stopped; the exit status."""
    from app.qt_asyncio import start_qt, wakeup_timer
    from app.instance import AlreadyRunningError, InstanceLock
    from app.runtime import prepare_qt_environment

    prepare_qt_environment(True)
    lock = InstanceLock(data.lock_file)
    try:
        lock.acquire()
    except AlreadyRunningError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return 1
    try:
        return _run_locked(data, options, start_qt, wakeup_timer)
    finally:
        lock.release()


def _run_locked(data: DataDir, options: WorkerOptions, qt_app: Any, wakeup_timer: Any) -> int:
    from app.shell import BrowserPilotApp

    _quiet_celery_logging()
    _app, loop = qt_app(True)
    shell = BrowserPilotApp(data, headless=True)
    if not shell.envs.exists(options.env_id):
        print(f"browserpilot: there is no environment with id {options.env_id!r} on this worker", file=sys.stderr)
        shell.shutdown()
        return 1
    runner = RowRunner(shell, options.env_id, options.hostname())
    consumer = CeleryConsumer(options, runner, loop)
    signals_seen = 0

    def on_signal(signum: int, frame: object) -> None:
        nonlocal signals_seen
        signals_seen += 1
        if signals_seen == 1:
            log.warning("signal %s: finishing the rows in hand, then stopping (again to requeue them now)", signum)
            consumer.stop()
        else:
            log.warning("signal %s: cancelling the rows in hand; they go back to the queue", signum)
            consumer.cancelling = True
            loop.call_soon_threadsafe(runner.cancel_all)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    timer = wakeup_timer()

    stopped: asyncio.Future[None] = loop.create_future()
    consumer.on_done = lambda: loop.call_soon_threadsafe(lambda: stopped.done() or stopped.set_result(None))

    log.info("worker %s: broker %s, visibility timeout %g s", options.hostname(), _safe_url(options.broker),
             visibility_timeout(options.row_time_limit))
    consumer.start()
    try:
        with loop:
            loop.run_until_complete(stopped)
    finally:
        timer.stop()
        shell.shutdown()
    if consumer.error is not None:
        print(f"browserpilot: the worker stopped: {consumer.error}", file=sys.stderr)
        return 1
    log.warning("worker %s stopped", options.hostname())
    return 0


def _safe_url(url: str) -> str:
    """The broker URL without its password, for logs."""
    from kombu.utils.url import maybe_sanitize_url

    return str(maybe_sanitize_url(url))
