"""Starting and stopping the app: environment for QtWebEngine, the instance lock, Qt + asyncio (app.startup.qt_asyncio).

Nothing imports Qt before `prepare_qt_environment` has run, because QtWebEngine reads its variables once.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from typing import Any, Callable

from app.startup.instance import AlreadyRunningError, InstanceLock
from app.startup.qt_asyncio import start_qt, wakeup_timer
from app.startup.runtime import NoDisplayError, prepare_qt_environment
from plumbing import loggers
from plumbing.datadir import DataDir
from plumbing.jsonstore import StoreError

log = logging.getLogger(loggers.APP)


def run_app(data: DataDir, *, headless: bool, open_urls: list[tuple[str, str]], debug: bool = False,
            minimized: bool = False) -> int:
    """Start the GUI (or the windowless app) on a data folder; return the process exit status. `minimized`:
    in the tray (start at login), or minimised where the desktop has none."""
    gc.disable()  # until the app has started; then it runs on the Qt thread only (app/startup/qt_asyncio.py)
    try:
        prepare_qt_environment(headless)
    except NoDisplayError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return 1
    lock = InstanceLock(data.lock_file)
    try:
        lock.acquire()
    except AlreadyRunningError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return 1
    try:
        return _run_locked(data, headless=headless, open_urls=open_urls, minimized=minimized)
    except StoreError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return 1
    finally:
        lock.release()


def run_operation(data: DataDir, name: str, params: dict[str, Any], *, headless: bool,
                  progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Start the app for one operation that needs the browser (a workflow run from the command line), run it,
    shut down in order and return its envelope. Ctrl-C cancels the operation (a run is recorded as cancelled).
    Raises NoDisplayError, AlreadyRunningError or StoreError."""
    prepare_qt_environment(headless)
    with InstanceLock(data.lock_file):
        app, loop = start_qt(headless, None if headless else windows_theme())
        from app.wiring.shell import BrowserPilotApp

        shell = BrowserPilotApp(data, headless=headless)
        shell.ctx.progress = progress

        async def operation_then_settle() -> dict[str, Any]:
            result = await shell.registry.call(shell.ctx, name, params)
            # Before the process ends: what the last action started (an agent's click that posted an order)
            # lands, at most the settle time. A workflow run has waited for its own tabs already.
            pending = await shell.settle_all()
            if pending:
                result.setdefault("pendingAtExit", pending)
            return result

        task = loop.create_task(operation_then_settle())

        def interrupt(signum: int, frame: object) -> None:
            log.info("signal %s: cancelling %s", signum, name)
            loop.call_soon_threadsafe(task.cancel)

        previous = signal.signal(signal.SIGINT, interrupt)
        signal.signal(signal.SIGTERM, interrupt)
        timer = wakeup_timer()
        try:
            with loop:
                try:
                    return loop.run_until_complete(task)
                except asyncio.CancelledError:
                    runs = shell.ctx.runs.list(limit=1)
                    return {"ok": False, "control": None, "error": "cancelled", "cancelled": True,
                            **({"run": runs[0].model_dump(mode="json", by_alias=True)} if runs else {})}
                finally:
                    shell.shutdown()
        finally:
            timer.stop()
            signal.signal(signal.SIGINT, previous)


def windows_theme() -> Callable[[Any], None]:
    """The windows' style (imported here, after `prepare_qt_environment`: it imports Qt)."""
    from app.ui.theme import apply_theme

    return apply_theme


def _run_locked(data: DataDir, *, headless: bool, open_urls: list[tuple[str, str]], minimized: bool = False) -> int:
    app, loop = start_qt(headless, None if headless else windows_theme())
    from app.wiring.shell import BrowserPilotApp

    shell = BrowserPilotApp(data, headless=headless)
    shell.unattended.start_minimized = minimized
    shell.install_quit_signals()
    app.aboutToQuit.connect(shell.shutdown)
    shell.start(open_urls)
    shell.start_mcp()
    with loop:
        loop.run_forever()
    log.info("stopped")
    return shell.exit_status
