"""A workflow batch whose rows each click a download link, with the environment window (and its Downloads
list) open: the app survives the rows' tabs closing while their downloads are still running, every file
lands on disk with the server's bytes, and the Downloads list shows each one done (it used to crash)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
import shiboken6
from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from app.ui.downloads_panel import DownloadsPanel
from app.ui.env_window import EnvWindow
from tests.support.qt import open_view, run_op, running_app, wait_loaded, window_of
from tests.support.raw_server import RawServer

ROWS = ("north", "south", "east")


def body_for(row: str) -> bytes:
    return (f"order,{row}\n".encode() + bytes(range(256))) * 400  # ~100 KiB, different per row


class HeldDownloadServer(RawServer):
    """Serves `/orders?row=R` (a page with an Export link) and `/export.csv?row=R` (an attachment): the
    download's headers and first chunk go out at once, the rest only once `release` is set, so the batch's
    tabs close while their downloads are still running."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.hold_headers = False
        super().__init__()

    def answer(self, conn: socket.socket) -> None:
        head = conn.recv(65536).decode("latin-1")
        target = head.split(" ", 2)[1] if " " in head else "/"
        row = target.partition("row=")[2] or "none"
        if target.startswith("/export.csv"):
            body = body_for(row)
            if self.hold_headers:
                self.release.wait(60)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nConnection: close\r\n"
                         + f"Content-Length: {len(body)}\r\n".encode()
                         + f'Content-Disposition: attachment; filename="orders-{row}.csv"\r\n\r\n'.encode()
                         + body[:4096])
            self.release.wait(60)
            conn.sendall(body[4096:])
        else:
            page = (f'<!doctype html><title>Orders {row}</title><h1>Orders</h1>'
                    f'<a id=export href="/export.csv?row={row}" download>Export CSV</a>').encode()
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
                         + f"Content-Length: {len(page)}\r\n\r\n".encode() + page)

    def close(self) -> None:
        self.release.set()
        super().close()


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("batch-downloads-data"), windows=True) as shell:
        yield shell


@pytest.fixture
def site() -> Iterator[HeldDownloadServer]:
    server = HeldDownloadServer()
    yield server
    server.close()


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def export_workflow(site: HeldDownloadServer) -> dict[str, Any]:
    nodes = [node("start", "start", variables=[{"variable": "row", "type": "text-input"}]),
             node("open", "goto", url=site.url("/orders?row={{#input.row#}}")),
             node("table", "wait", locator={"selector": "#export"}, state="appear", timeout=15),
             node("csv", "click", locator={"selector": "#export"}),
             node("end", "end")]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Export orders", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]}
                                                             for a, b in zip(nodes, nodes[1:])]}}}


def test_a_batch_of_downloads_survives_its_tabs_closing(qtbot: QtBot, app: BrowserPilotApp,
                                                        site: HeldDownloadServer) -> None:
    home = open_view(app, "env-default", site.url("/orders?row=home"))  # the environment window, kept open
    wait_loaded(qtbot, home)
    window = window_of(app, "env-default")
    panel = window.downloads_panel
    assert isinstance(panel, DownloadsPanel)
    folder = app.service.profiles.downloads("env-default").default_folder

    result = run_op(qtbot, app, "workflow_batch", {"workflow": export_workflow(site),
                                                   "rows": [{"row": row} for row in ROWS],
                                                   "concurrency": len(ROWS)}, timeout=90_000)
    assert result.get("ok"), result
    assert (result["total"], result["succeeded"]) == (len(ROWS), len(ROWS)), result["results"]
    qtbot.waitUntil(lambda: len(panel.rows) == len(ROWS), timeout=20_000)
    assert not any(tab.tab_id != home.tab_id for tab in window.tab_list())  # the rows' tabs are gone
    assert panel.active_count() == len(ROWS)  # ... and their downloads still running

    site.release.set()
    qtbot.waitUntil(lambda: panel.active_count() == 0, timeout=30_000)
    for row in ROWS:
        shown = panel.row_for(f"orders-{row}.csv")
        assert shown is not None, [r.record.path.name for r in panel.rows]
        assert shown.record.state == "completed", shown.record.summary()
        assert shown.state_text() == "Done" and "Done" in shown.meta.text()
        assert Path(shown.record.path).parent == folder
        assert Path(shown.record.path).read_bytes() == body_for(row)
    assert run_op(qtbot, app, "tab_list", {})["ok"]  # the app goes on


def test_a_batch_that_closes_its_window_keeps_its_downloads(qtbot: QtBot, app: BrowserPilotApp,
                                                            site: HeldDownloadServer) -> None:
    """No window is open: the rows' tabs are windowless and go while the downloads still run; they finish into
    their files, and nothing touches the gone rows."""
    for window in list(app.windows.windows.values()):
        window.close()
    qtbot.waitUntil(lambda: not app.windows.windows)
    manager = app.service.profiles.downloads("env-default")
    finished: list[str] = []
    manager.download_finished.connect(lambda record: finished.append(record.path.name))
    result = run_op(qtbot, app, "workflow_batch", {"workflow": export_workflow(site),
                                                   "rows": [{"row": f"{row}-2"} for row in ROWS],
                                                   "concurrency": len(ROWS)}, timeout=90_000)
    assert (result["total"], result["succeeded"]) == (len(ROWS), len(ROWS)), result
    assert not app.windows.windows and not app.service.tabs()  # no window, and the rows' tabs are gone
    assert len(manager.active) == len(ROWS), manager.active  # ... while the downloads still run
    site.release.set()
    qtbot.waitUntil(lambda: len(finished) == len(ROWS), timeout=30_000)
    for row in ROWS:
        assert (manager.default_folder / f"orders-{row}-2.csv").read_bytes() == body_for(f"{row}-2")
    assert run_op(qtbot, app, "tab_list", {})["ok"]


class Emitter(QObject):
    fired = Signal()


def test_a_closed_tab_outlives_download_handovers_queued_after_it_closed(qtbot: QtBot, app: BrowserPilotApp,
                                                                        site: HeldDownloadServer) -> None:
    """Qt hands a download to the profile in a queued call holding a raw pointer to the page: one queued
    after the tab was closed must still find the page alive (it crashed the app: deleteLater ran first)."""
    keep = open_view(app, "env-default", site.url("/orders?row=keep"))
    tab = open_view(app, "env-default", site.url("/orders?row=closing"))
    wait_loaded(qtbot, tab)
    page = tab.browser_page
    seen: list[bool] = []
    emitter = Emitter()
    emitter.fired.connect(lambda: seen.append(shiboken6.isValid(page)), Qt.ConnectionType.QueuedConnection)
    window_of(app, "env-default").close_tab(tab)
    emitter.fired.emit()  # queued like Qt's hand-over of a download the page started just before
    qtbot.waitUntil(lambda: bool(seen) and not shiboken6.isValid(page), timeout=5_000)
    assert seen == [True]
    assert keep in window_of(app, "env-default").tab_list()




def test_shutdown_deletes_its_windows_before_the_qt_application_goes(qtbot: QtBot, qapp: QApplication,
                                                                     tmp_path: Path,
                                                                     site: HeldDownloadServer) -> None:
    """After shutdown no window of the app is left for Python's teardown to free after the QApplication
    (a SIGTERM once crashed in libQt6Gui): environment windows with pages and downloads are gone at once."""
    def env_windows() -> int:
        return sum(1 for widget in qapp.topLevelWidgets() if isinstance(widget, EnvWindow))

    before = env_windows()  # the module's app keeps its own
    with running_app(qapp, tmp_path / "data", windows=True) as other:
        tab = open_view(other, "env-default", site.url("/orders?row=bye"))
        wait_loaded(qtbot, tab)
        window = window_of(other, "env-default")
        site.release.set()
        manager = other.service.profiles.downloads("env-default")
        done: list[str] = []
        manager.download_finished.connect(lambda record: done.append(record.state))
        tab.browser_page.download(QUrl(site.url("/export.csv?row=bye")))
        qtbot.waitUntil(lambda: done == ["completed"], timeout=20_000)
        assert window.downloads_panel.row_for("orders-bye.csv") is not None
        assert env_windows() == before + 1
    assert not shiboken6.isValid(window) and not shiboken6.isValid(tab)
    assert env_windows() == before
