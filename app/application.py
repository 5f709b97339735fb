"""Starting and stopping the app: environment for QtWebEngine, the instance lock, Qt + asyncio (qasync).

Nothing imports Qt before `prepare_qt_environment` has run, because QtWebEngine reads its variables once.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from typing import Any, Callable

from app.instance import AlreadyRunningError, InstanceLock
from app.runtime import NoDisplayError, prepare_qt_environment
from envs.datadir import DataDir
from envs.jsonstore import StoreError

log = logging.getLogger("browserpilot.app")


def run_app(data: DataDir, *, headless: bool, open_urls: list[tuple[str, str]], debug: bool = False,
            minimized: bool = False) -> int:
    """Start the GUI (or the windowless app) on a data folder; return the process exit status. `minimized`:
    in the tray (start at login), or minimised where the desktop has none."""
    gc.disable()  # until the app has started (`BrowserPilotApp.start` freezes what it made and enables it)
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


def _qt_app(headless: bool) -> Any:
    """The QApplication with the app's identity, and asyncio running on its loop (qasync); Chromium started.

    Made before the app's own modules are imported: Chromium's start (its browser threads, and the zygote
    process renderers are forked from) then runs on the other cores while this thread imports them (~0.5 s),
    instead of when the first page is made; a cold `browserpilot mcp`'s first call waited for both
    (bench/mcp_latency.py)."""
    import PySide6.QtWebEngineWidgets  # noqa: F401 (QtWebEngine must be loaded before the QApplication exists)
    import qasync
    from PySide6.QtWebEngineCore import QWebEngineProfile
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from app import rendering
    from app.i18n import install_translations
    from app.qtlog import install_qt_message_handler
    from app.resources import APP_ICON
    from app.ui.theme import apply_theme

    install_qt_message_handler()
    app = QApplication([sys.argv[0] if sys.argv else "browserpilot"])
    app.setApplicationName("BrowserPilot")
    app.setDesktopFileName("browserpilot")
    app.setQuitOnLastWindowClosed(not headless)
    app.setWindowIcon(QIcon(str(APP_ICON)))
    install_translations(app)  # Chinese for a Chinese locale, English otherwise (BROWSERPILOT_LANG overrides)
    if not headless:  # no one sees a headless app's widgets: skip the stylesheet's cost at start and per widget
        apply_theme(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    rendering.choose(headless)  # GPU or software drawing, before Chromium and any Qt Quick window start
    QWebEngineProfile.defaultProfile()  # starts Chromium; off the record, it keeps nothing on disk
    return app, loop


def run_operation(data: DataDir, name: str, params: dict[str, Any], *, headless: bool,
                  progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Start the app for one operation that needs the browser (a workflow run from the command line), run it,
    shut down in order and return its envelope. Ctrl-C cancels the operation (a run is recorded as cancelled).
    Raises NoDisplayError, AlreadyRunningError or StoreError."""
    prepare_qt_environment(headless)
    with InstanceLock(data.lock_file):
        app, loop = _qt_app(headless)
        from app.shell import BrowserPilotApp

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
        timer = _wakeup_timer()
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


def _wakeup_timer() -> Any:
    """Let the interpreter run now and then, so it notices signals while Qt's loop waits in C++."""
    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.timeout.connect(lambda: None)
    timer.start(200)
    return timer


def _run_locked(data: DataDir, *, headless: bool, open_urls: list[tuple[str, str]], minimized: bool = False) -> int:
    app, loop = _qt_app(headless)
    from app.shell import BrowserPilotApp

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
