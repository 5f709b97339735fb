"""In-process helpers for Qt tests: the app shell on the qasync loop, page JavaScript, trusted clicks."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from collections.abc import Coroutine
from typing import Any, Iterator, TypeVar

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser.tab import BrowserTab
from app.startup.qt_asyncio import asyncio_inside_qt
from app.wiring.shell import BrowserPilotApp
from app.ui.env_window import EnvWindow
from plumbing.datadir import DataDir

T = TypeVar("T")


def call(qtbot: QtBot, coro: Coroutine[Any, Any, T], timeout: int = 20_000) -> T:
    """Run a coroutine on the app's loop (driven by Qt events) and return its result or raise its error."""
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def fails(qtbot: QtBot, coro: Coroutine[Any, Any, Any], kind: type[Exception]) -> str:
    """Run a coroutine that must raise `kind`; return the message."""
    with pytest.raises(kind) as caught:
        call(qtbot, coro)
    return str(caught.value)


def run_js(qtbot: QtBot, tab: BrowserTab, source: str, timeout: int = 10_000) -> Any:
    """Evaluate an expression in the page and return its JSON value."""
    box: list[Any] = []
    tab.page().runJavaScript(f"JSON.stringify({source})", 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=timeout)
    return json.loads(box[0]) if box[0] not in ("", None) else None


def wait_loaded(qtbot: QtBot, tab: BrowserTab, timeout: int = 15_000) -> None:
    qtbot.waitUntil(lambda: not tab.loading and run_js(qtbot, tab, "document.readyState") == "complete",
                    timeout=timeout)


def click_element(qtbot: QtBot, tab: BrowserTab, selector: str) -> None:
    """Click the centre of an element with fresh mouse events, as a person would."""
    rect = run_js(qtbot, tab, f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                              ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    target = tab.focusProxy() or tab
    point = QPointF(rect[0] * tab.zoomFactor(), rect[1] * tab.zoomFactor())
    for kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
        event = QMouseEvent(kind, point, QPointF(target.mapToGlobal(QPoint(int(point.x()), int(point.y())))),
                            Qt.MouseButton.LeftButton,
                            Qt.MouseButton.LeftButton if kind == QEvent.Type.MouseButtonPress else Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(target, event)


@contextlib.contextmanager
def running_app(qapp: QApplication, folder: Path, headless: bool = True,
                windows: bool | None = None) -> Iterator[BrowserPilotApp]:
    """The app in this process (`headless=False`: as a person starts it, with its windows, offscreen;
    `windows=True`: headless, but its tabs shown in environment windows, offscreen). As in production, asyncio
    runs inside Qt's event processing (app/startup/qt_asyncio.py): the loop counts as running, and qtbot's waits (which
    process Qt events) drive coroutines."""
    with asyncio_inside_qt(qapp):
        app = BrowserPilotApp(DataDir(folder), headless=headless, windows=windows)
        app.start([])
        try:
            yield app
        finally:
            app.shutdown()


@pytest.fixture
def shell(qapp: QApplication, data_dir: Any) -> Iterator[BrowserPilotApp]:
    """The app with a data folder of its own, for one test: headless, its tabs windowless."""
    with running_app(qapp, data_dir) as app:
        yield app


@pytest.fixture
def windowed_shell(qapp: QApplication, data_dir: Any) -> Iterator[BrowserPilotApp]:
    """The app with a data folder of its own, for one test: headless, its tabs shown in environment windows."""
    with running_app(qapp, data_dir, windows=True) as app:
        yield app


def open_view(app: BrowserPilotApp, env_id: str, url: str, control: str = "shared") -> BrowserTab:
    """A new tab of the environment (shown in its window when the app has windows), loading `url`: its view."""
    return app.service.new_tab(env_id, url, control=control).view  # type: ignore[arg-type]


def view_of(app: BrowserPilotApp, tab_id: str) -> BrowserTab:
    return app.service.get(tab_id).view


def views(app: BrowserPilotApp) -> list[BrowserTab]:
    return [tab.view for tab in app.service.tabs()]


def window_of(app: BrowserPilotApp, env_id: str) -> EnvWindow:
    assert app.windows is not None, "this app has no environment windows (running_app(..., windows=True))"
    return app.windows.windows[env_id]


def saved(qtbot: QtBot, app: BrowserPilotApp, timeout: int = 10_000) -> None:
    """Wait until the app's save manager has written every change: the stores write off the Qt thread, so a
    test that reads a store's file waits for it as a person's next start would find it."""
    qtbot.waitUntil(lambda: not app.saves.dirty(), timeout=timeout)


def run_op(qtbot: QtBot, app: BrowserPilotApp, name: str, params: dict[str, Any], timeout: int = 30_000) -> dict[str, Any]:
    """Call an operation through the registry, the way the GUI does, and wait for its envelope."""
    task = asyncio.ensure_future(app.registry.call(app.ctx, name, params))
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()
