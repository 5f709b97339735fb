"""Qt with asyncio running on its event loop (qasync): the one start-up of the app, the worker, the tests and the
benchmarks.

- `qt_application(headless, theme)`: the QApplication with the app's identity, its theme (the windows' own,
  app/ui/theme.py, given by whoever shows windows), Chromium started.
- `start_qt(headless, theme)`: that, and asyncio's loop on Qt's (the current event loop). The caller runs the loop:
  `with loop: loop.run_forever()` (the app) or `loop.run_until_complete(...)` (the command line's one
  operation, the worker).
- `run_in_qt(main)`: a benchmark's process: `start_qt`, run one coroutine to its end, close the loop.
- `asyncio_inside_qt(app)`: asyncio running inside Qt's event processing that someone else drives (pytest-qt's
  waits, a benchmark that processes events itself): while the block lasts, the loop counts as running, so a
  coroutine started in it advances whenever Qt's events are processed.
- `wakeup_timer()`: lets Python notice signals (Ctrl-C) while Qt's loop waits in C++.
- `collect_garbage_on_qt_thread(app)` (done by `start_qt` and `asyncio_inside_qt`): Python's cyclic garbage
  collector runs only on the Qt thread. Left automatic, it runs in whichever thread allocates when a threshold
  is crossed — the save manager's, an `in_thread` worker's — and destroys the QObjects of unreachable cycles (a
  closed window's, a finished tab's) there, where Qt cannot unregister their timers: the Qt thread then
  crashed delivering a timer event to a freed object (QTimerInfoList::activateTimers).

`app.startup.runtime.prepare_qt_environment` must have run before: QtWebEngine reads its variables once, when loaded.
No private asyncio call is made here: qasync marks its loop as running (and unmarks it when it stops).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator, TypeVar

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from qasync import QEventLoop

T = TypeVar("T")
GC_INTERVAL_MS = 250
"""How often the Qt thread looks whether a generation of the garbage collector is due."""


def qt_application(headless: bool, theme: "Callable[[QApplication], None] | None" = None) -> "QApplication":
    """The QApplication (the one there is, or a new one) with the app's identity, translations and `theme` (the
    windows' style, app/ui/theme.py `apply_theme`: the caller that shows windows gives it; start-up sits below
    the windows), its way of drawing chosen and Chromium started.

    Made before the app's own modules are imported: Chromium's start (its browser threads, and the zygote
    process renderers are forked from) then runs on the other cores while this thread imports them (~0.5 s),
    instead of when the first page is made; a cold `browserpilot mcp`'s first call waited for both
    (bench/mcp_latency.py)."""
    import PySide6.QtWebEngineWidgets  # noqa: F401 (QtWebEngine must be loaded before the QApplication exists)
    from PySide6.QtGui import QIcon
    from PySide6.QtWebEngineCore import QWebEngineProfile
    from PySide6.QtWidgets import QApplication

    from app.startup import rendering
    from app.startup.i18n import install_translations
    from app.startup.qtlog import install_qt_message_handler
    from app.startup.resources import APP_ICON

    install_qt_message_handler()
    existing = QApplication.instance()
    argv = [sys.argv[0] if sys.argv else "browserpilot"]
    app = existing if isinstance(existing, QApplication) else QApplication(argv)
    app.setApplicationName("BrowserPilot")
    app.setDesktopFileName("browserpilot")
    app.setQuitOnLastWindowClosed(not headless)
    app.setWindowIcon(QIcon(str(APP_ICON)))
    install_translations(app)  # Chinese for a Chinese locale, English otherwise (BROWSERPILOT_LANG overrides)
    if theme is not None and not headless:  # no one sees a headless app's widgets: skip the stylesheet's cost
        theme(app)
    rendering.choose(headless)  # GPU or software drawing, before Chromium and any Qt Quick window start
    QWebEngineProfile.defaultProfile()  # starts Chromium; off the record, it keeps nothing on disk
    return app


def start_qt(headless: bool, theme: "Callable[[QApplication], None] | None" = None
             ) -> tuple["QApplication", "QEventLoop"]:
    """`qt_application` (with `theme`), and asyncio's loop on Qt's (qasync), set as the current event loop; the
    caller runs it."""
    import qasync

    app = qt_application(headless, theme)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    collect_garbage_on_qt_thread(app)
    return app, loop


def run_in_qt(main: Callable[[], Awaitable[T]], *, headless: bool = True) -> T:
    """Prepare Qt's environment, start Qt and asyncio as the app does, run `main()` to its end and close the
    loop (while the Qt objects behind it still exist)."""
    from app.startup.runtime import prepare_qt_environment

    prepare_qt_environment(headless)
    _app, loop = start_qt(headless)
    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()
        asyncio.set_event_loop(None)


class _NestedEventLoop:
    """The application as qasync sees it while someone else processes Qt's events: running the loop (only to
    leave the running state, see `asyncio_inside_qt`) runs a nested Qt event loop of its own, and stopping it
    quits that one. Never the application's own `exec`/`exit`: `QApplication.exit()` emits `aboutToQuit`, on
    which QtWebEngine shuts down for good."""

    def __init__(self, app: "QApplication") -> None:
        self._app = app
        self.aboutToQuit = app.aboutToQuit  # qasync connects its clean-up to it
        self._loop: Any = None

    def exec(self) -> int:
        from PySide6.QtCore import QEventLoop as QtEventLoop

        self._loop = QtEventLoop()
        try:
            return int(self._loop.exec())
        finally:
            self._loop = None

    def exit(self, code: int = 0) -> None:
        if self._loop is not None:
            self._loop.exit(code)

    def eventDispatcher(self) -> Any:  # noqa: N802 (Qt's name: qasync calls it)
        return self._app.eventDispatcher()


@contextlib.contextmanager
def asyncio_inside_qt(app: "QApplication") -> Iterator["QEventLoop"]:
    """asyncio on Qt's loop while someone else drives Qt's event processing (pytest-qt's waits): qasync marks
    the loop as running (`already_running`), so `asyncio.get_running_loop()`, tasks and futures work in the
    block and advance whenever Qt's events are processed. On the way out the loop runs once, nested, and
    stops: that is how a loop stops counting as running, with asyncio's public calls only. Then it is closed:
    what was still scheduled on it is dropped rather than run later, in someone else's block."""
    import qasync

    loop = qasync.QEventLoop(_NestedEventLoop(app), already_running=True)
    asyncio.set_event_loop(loop)
    automatic = gc.isenabled()
    collector = collect_garbage_on_qt_thread(app)
    try:
        yield loop
    finally:
        loop.stop()  # qasync's "already running" ends ...
        loop.call_soon(loop.stop)
        loop.run_forever()  # ... and one nested pass later asyncio no longer sees a running loop
        loop.close()
        asyncio.set_event_loop(None)
        collector.stop()
        collector.deleteLater()
        gc.collect()  # what the block left is freed here, on the Qt thread
        if automatic:
            gc.enable()


def collect_garbage_on_qt_thread(app: "QApplication") -> "QTimer":
    """Switch Python's automatic garbage collection off and collect from a timer on the Qt thread instead,
    by the same thresholds (`gc.get_threshold()`); the timer belongs to `app`."""
    from PySide6.QtCore import QTimer

    gc.disable()
    timer = QTimer(app)
    timer.setObjectName("browserpilot-gc")
    timer.timeout.connect(_collect_when_due)
    timer.start(GC_INTERVAL_MS)
    return timer


def _collect_when_due() -> None:
    """The generation the automatic collector would pick by the counts and thresholds, looked at every
    `GC_INTERVAL_MS` (so a young generation is collected in fewer, larger passes; CPython's extra rule that puts
    off a full pass while few objects are new to the oldest generation is not visible from Python, so a full
    pass comes every 100 young ones). bench/ui_stall.py, this against the automatic collector on otherwise the
    same code, 2 reps each: p99 81 against 109 ms, Qt-thread CPU 3.82 against 4.69 s."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if counts[0] <= thresholds[0]:
        return
    generation = 0
    while generation < 2 and counts[generation + 1] > thresholds[generation + 1]:
        generation += 1
    gc.collect(generation)


def wakeup_timer() -> "QTimer":
    """Let the interpreter run now and then, so it notices signals while Qt's loop waits in C++."""
    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.timeout.connect(lambda: None)
    timer.start(200)
    return timer
