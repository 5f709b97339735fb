"""`browserpilot worker`'s process: the headless app started on a data folder, with the Dramatiq consumer of
app/distributed/worker.py running rows through it until a signal stops it.

Here, where the app is wired, because starting the app (Qt, the instance lock, the shell) sits above the
workers' code (app/distributed builds on the operations and never imports the app that hosts it)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Any

from app.distributed.broker import safe_url
from app.distributed.rows import RowRunner
from app.distributed.worker import RowConsumer, WorkerOptions, broker_logging_to_stderr
from plumbing import loggers
from plumbing.datadir import DataDir

log = logging.getLogger(loggers.DISTRIBUTED)


def run_worker(data: DataDir, options: WorkerOptions) -> int:
    """Start the headless app on `data` and consume rows until stopped; the exit status."""
    from app.startup.qt_asyncio import start_qt, wakeup_timer
    from app.startup.instance import AlreadyRunningError, InstanceLock
    from app.startup.runtime import prepare_qt_environment

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
    from app.wiring.shell import BrowserPilotApp

    broker_logging_to_stderr()
    _app, loop = qt_app(True)
    shell = BrowserPilotApp(data, headless=True)
    if not shell.envs.exists(options.env_id):
        print(f"browserpilot: there is no environment with id {options.env_id!r} on this worker", file=sys.stderr)
        shell.shutdown()
        return 1
    runner = RowRunner(shell, options.env_id, options.hostname())
    consumer = RowConsumer(options, runner, loop)
    signals_seen = 0

    def on_signal(signum: int, frame: object) -> None:
        nonlocal signals_seen
        signals_seen += 1
        if signals_seen == 1:
            log.warning("signal %s: finishing the rows in hand, then stopping (again to requeue them now)", signum)
            consumer.stop()
        else:
            log.warning("signal %s: cancelling the rows in hand; they go back to the queue", signum)
            consumer.give_up()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    timer = wakeup_timer()

    stopped: asyncio.Future[None] = loop.create_future()
    consumer.on_done = lambda: loop.call_soon_threadsafe(lambda: stopped.done() or stopped.set_result(None))

    log.info("worker %s: broker %s", options.hostname(), safe_url(options.broker))
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
