"""What an environment keeps alive when nothing needs it: no DevTools front-end and no code engine until
they are used, and both give their renderer process back once idle. Real QtWebEngine offscreen, one app for
the module; what counts is which renderer processes exist (`psutil`), as the memory bench sees them.
"""

from __future__ import annotations

import asyncio
from typing import Any, Iterator

import psutil
import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import app.browser.cdp as cdp
from app.browser.code_sandbox import IDLE_RELEASE
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import open_view, run_js, run_op, running_app, wait_loaded
from tests.support.server import LocalServer


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("idle-memory-data")) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        local.route("/page", "<title>Page</title><h1>Page</h1><script>window.ran = 40 + 2</script>")
        yield local


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def call(qtbot: QtBot, coroutine: Any, timeout: int = 15_000) -> Any:
    task = asyncio.ensure_future(coroutine)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def test_environments_open_pages_without_devtools_pages_or_a_code_engine(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    other = app.envs.create("Second").id
    tabs = [open_view(app, env_id, site.url("/page")) for env_id in ("env-default", other)]
    for tab in tabs:
        wait_loaded(qtbot, tab)
        assert run_js(qtbot, tab, "window.ran") == 42
    pids = [tab.page().renderProcessPid() for tab in tabs]
    assert all(pid > 0 for pid in pids) and len(set(pids)) == 2  # one renderer per environment, no more
    assert app.service.cdp.frontend_count() == 0 and app.service.cdp.attached_count() == 0
    assert not app.service.code_sandbox.page_alive and app.service.code_sandbox.renderer_pid == 0


def test_the_code_engine_gives_its_renderer_back_when_idle(qtbot: QtBot, app: BrowserPilotApp) -> None:
    sandbox = app.service.code_sandbox
    sandbox.set_idle_release(0.3)
    try:
        assert call(qtbot, sandbox("return inputs.a + 1", {"a": 1}, 5)) == 2
        pid = sandbox.renderer_pid
        assert pid > 0 and not gone(pid)
        qtbot.waitUntil(lambda: not sandbox.page_alive, timeout=5_000)
        qtbot.waitUntil(lambda: gone(pid), timeout=10_000)
        assert call(qtbot, sandbox("return inputs.a * 3", {"a": 7}, 5)) == 21  # made anew on the next call
        assert sandbox.renderer_pid not in (0, pid)
    finally:
        sandbox.set_idle_release(IDLE_RELEASE)


def test_an_idle_devtools_channel_deletes_its_front_end_and_renderer(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cdp, "IDLE_DETACH", 0.3)  # read when the tab's channel is made, on first use
    tab = open_view(app, "env-default", site.url("/page"))
    wait_loaded(qtbot, tab)
    result = run_op(qtbot, app, "page_cdp", {"tabId": tab.tab_id, "method": "Runtime.evaluate",
                                             "params": {"expression": "window.ran", "returnByValue": True}})
    assert result["ok"], result
    assert result["result"]["result"]["value"] == 42
    assert app.service.cdp.frontend_count() == 1
    [frontend_pid] = app.service.cdp.frontend_pids()
    assert frontend_pid > 0 and frontend_pid != tab.page().renderProcessPid()
    qtbot.waitUntil(lambda: app.service.cdp.attached_count() == 0 and app.service.cdp.frontend_count() == 0, timeout=5_000)
    qtbot.waitUntil(lambda: gone(frontend_pid), timeout=10_000)
    assert run_js(qtbot, tab, "window.ran") == 42  # the tab itself is untouched
