"""Starting and stopping the app: environment for QtWebEngine, the instance lock, Qt + asyncio (qasync).

Nothing imports Qt before `prepare_qt_environment` has run, because QtWebEngine reads its variables once.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from app.instance import AlreadyRunningError, InstanceLock
from app.runtime import NoDisplayError, prepare_qt_environment
from envs.datadir import DataDir
from envs.jsonstore import StoreError

log = logging.getLogger("browserpilot.app")


def run_app(data: DataDir, *, headless: bool, open_urls: list[tuple[str, str]], debug: bool = False) -> int:
    """Start the GUI (or the windowless app) on a data folder; return the process exit status."""
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
        return _run_locked(data, headless=headless, open_urls=open_urls)
    except StoreError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return 1
    finally:
        lock.release()


def _run_locked(data: DataDir, *, headless: bool, open_urls: list[tuple[str, str]]) -> int:
    import qasync
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from app.resources import APP_ICON, APP_STYLE

    from app.qtlog import install_qt_message_handler
    from app.shell import BrowserPilotApp

    install_qt_message_handler()
    app = QApplication([sys.argv[0] if sys.argv else "browserpilot"])
    app.setApplicationName("BrowserPilot")
    app.setDesktopFileName("browserpilot")
    app.setQuitOnLastWindowClosed(not headless)
    app.setWindowIcon(QIcon(str(APP_ICON)))
    if APP_STYLE.exists():
        app.setStyleSheet(APP_STYLE.read_text("utf-8"))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    shell = BrowserPilotApp(data, headless=headless)
    shell.install_quit_signals()
    app.aboutToQuit.connect(shell.shutdown)
    shell.start(open_urls)
    with loop:
        loop.run_forever()
    log.info("stopped")
    return shell.exit_status
