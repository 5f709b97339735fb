"""Files and robustness on real QtWebEngine pages: uploads, downloads, screenshots, PDF, JS dialogs, popups,
crashed and hung renderers. Every test checks what the server or the page saw, or the bytes on disk."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import socket
import threading
import time
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Awaitable, Iterator, TypeVar

import pytest
from pypdf import PdfReader
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QImage, QMouseEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser.capture import CaptureError, pdf, screenshot
from app.browser.downloads import DownloadError, drain_downloads, expect_download
from app.browser.health import PageCrashed, ensure_responsive
from app.browser.js import PageTimeout, run_js as page_js
from app.browser.tab import BrowserPage, BrowserTab, UploadError, upload_files
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import click_element, open_view, run_js, running_app, wait_loaded
from tests.support.raw_server import RawServer
from tests.support.server import LocalServer, Request, Response

T = TypeVar("T")


def wait_for(qtbot: QtBot, awaitable: Awaitable[T], timeout: int = 30_000) -> T:
    task = asyncio.ensure_future(awaitable)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


@pytest.fixture(params=["windowless", "windowed"])
def shell(request: pytest.FixtureRequest, qapp: QApplication, data_dir: Path) -> Iterator[BrowserPilotApp]:
    """Uploads (which need a trusted click), downloads, screenshots and PDFs work the same on both kinds of tab:
    windowless (a headless app, a batch's row) and shown in an environment window."""
    with running_app(qapp, data_dir, windows=request.param == "windowed") as app:
        yield app


def open_page(qtbot: QtBot, shell: BrowserPilotApp, url: str) -> BrowserTab:
    tab = open_view(shell, "env-default", url)
    wait_loaded(qtbot, tab)
    return tab


def page_of(tab: BrowserTab) -> BrowserPage:
    return tab.browser_page


def center_of(qtbot: QtBot, tab: BrowserTab, selector: str) -> tuple[float, float]:
    rect = run_js(qtbot, tab, f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); "
                              "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    return rect[0], rect[1]


def trusted_click(tab: BrowserTab, at: tuple[float, float]) -> None:
    """The events `click_element` sends, at a point found beforehand (usable inside a coroutine)."""
    target = tab.focusProxy() or tab
    point = QPointF(at[0] * tab.zoomFactor(), at[1] * tab.zoomFactor())
    for kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
        pressed = Qt.MouseButton.LeftButton if kind == QEvent.Type.MouseButtonPress else Qt.MouseButton.NoButton
        event = QMouseEvent(kind, point, QPointF(target.mapToGlobal(QPoint(int(point.x()), int(point.y())))),
                            Qt.MouseButton.LeftButton, pressed, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(target, event)


# -- uploads -------------------------------------------------------------------------------------------
UPLOAD_FORM = """<!doctype html><title>Upload</title>
<form id=form method=post action=/upload enctype=multipart/form-data>
  <input type=file id=one name=one style="display:block;width:300px;height:40px">
  <input type=file id=many name=many multiple style="display:block;width:300px;height:40px">
  <button id=send style="display:block;width:200px;height:40px">Send</button>
</form>
<script>window.clicks = 0; document.addEventListener('click', () => window.clicks++, true);</script>"""


def multipart_files(request: Request) -> dict[str, list[tuple[str, bytes]]]:
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + request.headers["content-type"].encode() + b"\r\n\r\n" + request.body)
    files: dict[str, list[tuple[str, bytes]]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        files.setdefault(name, []).append((part.get_filename(), part.get_payload(decode=True)))
    return files


def test_upload_sends_the_exact_bytes(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                      tmp_path: Path) -> None:
    server.route("/form", UPLOAD_FORM)
    server.route("/upload", "<title>Uploaded</title><p>thanks</p>")
    payload = os.urandom(300_000) + "naïve ✓\r\n".encode()
    first = tmp_path / "report (final).bin"
    first.write_bytes(payload)
    second = tmp_path / "notes.txt"
    second.write_text("second file\n", "utf-8")
    tab = open_page(qtbot, shell, server.url("/form"))
    page = page_of(tab)

    one, many = center_of(qtbot, tab, "#one"), center_of(qtbot, tab, "#many")
    event = wait_for(qtbot, upload_files(page, [str(first)], lambda: trusted_click(tab, one)))
    assert event.files == [str(first)] and event.mode == "single"
    event = wait_for(qtbot, upload_files(page, [first, second], lambda: trusted_click(tab, many)))
    assert event.mode == "multiple" and len(event.files) == 2
    assert run_js(qtbot, tab, "[...document.getElementById('many').files].map(f => [f.name, f.size])") == \
        [[first.name, len(payload)], ["notes.txt", 12]]
    assert not page.upload_armed

    # A single-file input given two files: nothing is chosen (as after Cancel in Chrome), and the error says why.
    with pytest.raises(UploadError, match="takes one file, but 2 were given"):
        wait_for(qtbot, upload_files(page, [first, second], lambda: trusted_click(tab, one)))
    assert run_js(qtbot, tab, "document.getElementById('one').files.length") == 0
    wait_for(qtbot, upload_files(page, [first], lambda: trusted_click(tab, one)))

    click_element(qtbot, tab, "#send")
    qtbot.waitUntil(lambda: bool(server.hits("/upload")))  # (server.wait_for would block the Qt loop)
    request = server.hits("/upload")[0]
    files = multipart_files(request)
    assert files["one"] == [(first.name, payload)]
    assert files["many"] == [(first.name, payload), ("notes.txt", b"second file\n")]


def test_bad_upload_paths_are_rejected_before_any_click(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                                       tmp_path: Path) -> None:
    server.route("/form", UPLOAD_FORM)
    tab = open_page(qtbot, shell, server.url("/form"))
    page = page_of(tab)
    one = center_of(qtbot, tab, "#one")
    good = tmp_path / "good.txt"
    good.write_text("ok")
    clicked: list[bool] = []

    for paths, message in (([tmp_path / "missing.pdf"], "missing.pdf: no such file"),
                           ([good, tmp_path], "not a regular file (a folder)"),
                           ([], "no files given")):
        with pytest.raises(UploadError, match=message.replace("(", r"\(").replace(")", r"\)")):
            wait_for(qtbot, upload_files(page, paths, lambda: clicked.append(True) or trusted_click(tab, one)))
    assert clicked == []
    assert not page.upload_armed
    assert run_js(qtbot, tab, "window.clicks") == 0
    assert run_js(qtbot, tab, "document.getElementById('one').files.length") == 0

    # A click that opens no chooser is a clear timeout, and the armed files do not linger.
    blank = (600.0, 400.0)  # below the form: nothing there opens a chooser
    with pytest.raises(PageTimeout, match="no file chooser opened"):
        wait_for(qtbot, upload_files(page, [good], lambda: trusted_click(tab, blank), timeout=0.5))
    assert not page.upload_armed


# -- downloads -----------------------------------------------------------------------------------------
def attachment(body: bytes, filename: str, mime: str = "application/octet-stream") -> Response:
    return Response(body, content_type=mime, headers=[("Content-Disposition", f'attachment; filename="{filename}"')])


def test_download_is_complete_and_byte_exact(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                             data_dir: Path) -> None:
    blob = os.urandom(2 * 1024 * 1024)
    server.route("/big.bin", lambda request: attachment(blob, "big.bin"))
    server.route("/", '<title>Files</title><a id=get href="/big.bin" '
                      'style="display:block;width:200px;height:40px">get</a>')
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    link = center_of(qtbot, tab, "#get")

    started = time.perf_counter()
    result = wait_for(qtbot, expect_download(page, lambda: trusted_click(tab, link)))
    elapsed = time.perf_counter() - started
    folder = data_dir / "downloads" / "env-default"
    assert result["path"] == str(folder / "big.bin")
    assert result["name"] == "big.bin" and result["bytes"] == len(blob)
    assert result["mime"] == "application/octet-stream"
    assert hashlib.sha256(Path(result["path"]).read_bytes()).hexdigest() == hashlib.sha256(blob).hexdigest()
    assert sorted(p.name for p in folder.iterdir()) == ["big.bin"]  # no temporary files left behind
    print(f"\n2 MB download: {elapsed * 1000:.0f} ms")

    # The same name again is kept beside the first as "big (1).bin"; a URL download works without a click.
    again = wait_for(qtbot, expect_download(page, lambda: page.download(QUrl(server.url("/big.bin")))))
    assert again["path"] == str(folder / "big (1).bin")
    assert Path(again["path"]).read_bytes() == blob
    assert [d["name"] for d in drain_downloads(page)] == ["big.bin", "big (1).bin"]
    assert drain_downloads(page) == []


def test_download_names_stay_inside_their_folder(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                                 data_dir: Path, tmp_path: Path) -> None:
    server.route("/evil", lambda request: attachment(b"evil", "../../evil.txt", "text/plain"))
    server.route("/", "<title>Files</title><p>downloads</p>")
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    folder = data_dir / "downloads" / "env-default"

    got = wait_for(qtbot, expect_download(page, lambda: page.download(QUrl(server.url("/evil")))))
    assert Path(got["path"]).parent == folder and Path(got["path"]).read_bytes() == b"evil"
    assert ".." not in got["name"] and "/" not in got["name"]

    # An operation's own folder and name (save as): the name is reduced to a base name in that folder.
    target = tmp_path / "exports"
    for expected in ("passwd", "passwd (1)"):
        got = wait_for(qtbot, expect_download(page, lambda: page.download(QUrl(server.url("/evil"))),
                                              folder=target, name="../../etc/passwd"))
        assert got["path"] == str(target / expected)
    assert sorted(p.name for p in target.iterdir()) == ["passwd", "passwd (1)"]
    got = wait_for(qtbot, expect_download(page, lambda: page.download(QUrl(server.url("/evil"))),
                                          folder=target, name="passwd", overwrite=True))
    assert got["path"] == str(target / "passwd")
    assert not (tmp_path / "etc").exists() and not (data_dir / "evil.txt").exists()


class BrokenDownloadServer(RawServer):
    """Announces 2 MB as an attachment, sends 64 KB, then hangs up (`/broken.zip`) or stalls (`/stall.zip`)."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        super().__init__()

    def answer(self, conn: socket.socket) -> None:
        stall = b"/stall.zip" in conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: 2097152\r\n"
                     b"Content-Disposition: attachment; filename=\"broken.zip\"\r\n\r\n" + b"x" * 65536)
        self.stop.wait(10 if stall else 0.2)

    def close(self) -> None:
        self.stop.set()
        super().close()


@pytest.fixture
def broken_server() -> Iterator[BrokenDownloadServer]:
    server = BrokenDownloadServer()
    yield server
    server.close()


def test_failed_downloads_give_clear_errors(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                            broken_server: BrokenDownloadServer, data_dir: Path) -> None:
    server.route("/", "<title>Files</title><p>downloads</p>")
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    url = f"http://127.0.0.1:{broken_server.port}/broken.zip"
    with pytest.raises(DownloadError, match="broken.zip failed: .*"):
        wait_for(qtbot, expect_download(page, lambda: page.download(QUrl(url)), timeout=20))
    assert not (data_dir / "downloads" / "env-default" / "broken.zip").exists()  # no partial file

    stalled = f"http://127.0.0.1:{broken_server.port}/stall.zip"
    with pytest.raises(PageTimeout, match=r"did not finish within 1 s \(.* of 2.1 MB\); it was cancelled"):
        wait_for(qtbot, expect_download(page, lambda: page.download(QUrl(stalled)), timeout=1))
    qtbot.waitUntil(lambda: not (data_dir / "downloads" / "env-default" / "broken.zip").exists())

    with pytest.raises(PageTimeout, match="no download started within 0.3 s"):
        wait_for(qtbot, expect_download(page, lambda: None, start_timeout=0.3))
    assert [d["state"] for d in drain_downloads(page)] == ["interrupted", "cancelled"]


def test_a_download_that_opens_a_new_tab_belongs_to_its_opener(qtbot: QtBot, shell: BrowserPilotApp,
                                                               server: LocalServer, tmp_path: Path) -> None:
    server.route("/file.csv", lambda request: attachment(b"a,b\n1,2\n", "file.csv", "text/csv"))
    server.route("/", '<title>Files</title><a id=get href="/file.csv" target="_blank" '
                      'style="display:block;width:200px;height:40px">get</a>')
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    link = center_of(qtbot, tab, "#get")
    got = wait_for(qtbot, expect_download(page, lambda: trusted_click(tab, link), folder=tmp_path))
    assert got["path"] == str(tmp_path / "file.csv") and got["mime"] == "text/csv"
    assert Path(got["path"]).read_bytes() == b"a,b\n1,2\n"


# -- screenshots ---------------------------------------------------------------------------------------
BANDS = """<!doctype html><title>Bands</title><style>body{margin:0} div{width:100%}</style><body>
<div style="height:100px;background:rgb(0,200,0)">top</div>
<div id=box style="height:300px;width:200px;margin-left:50px;background:rgb(250,120,0)">box</div>
<div style="height:2600px;background:rgb(0,0,230)">middle</div>
<div style="height:200px;background:rgb(230,0,230)">bottom</div></body>"""


def pixel(image: QImage, x: int, y: int) -> tuple[int, int, int]:
    color = image.pixelColor(x, y)
    return color.red(), color.green(), color.blue()


def test_screenshots_hold_the_page_pixels(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                          tmp_path: Path) -> None:
    server.route("/", BANDS)
    tab = open_page(qtbot, shell, server.url("/"))
    view_size = (tab.width(), tab.height())

    timings: dict[str, float] = {}
    started = time.perf_counter()
    shot = wait_for(qtbot, screenshot(tab, tmp_path / "view.png"))
    timings["viewport"] = time.perf_counter() - started
    image = QImage(shot["path"])
    assert (image.width(), image.height()) == view_size == (shot["width"], shot["height"])
    assert pixel(image, 600, 50) == (0, 200, 0)
    assert pixel(image, 100, 300) == (250, 120, 0)
    assert pixel(image, 600, 600) == (0, 0, 230)

    # A change is in the very next screenshot.
    run_js(qtbot, tab, "document.body.firstElementChild.style.background = 'rgb(255,255,0)'")
    shot = wait_for(qtbot, screenshot(tab, tmp_path / "changed.png"))
    assert pixel(QImage(shot["path"]), 600, 50) == (255, 255, 0)

    run_js(qtbot, tab, "window.scrollTo(0, 700)")
    started = time.perf_counter()
    shot = wait_for(qtbot, screenshot(tab, tmp_path / "full.png", full_page=True))
    timings["full page"] = time.perf_counter() - started
    image = QImage(shot["path"])
    assert (image.width(), image.height()) == (view_size[0], 3200)
    assert pixel(image, 600, 50) == (255, 255, 0)
    assert pixel(image, 600, 1500) == (0, 0, 230)
    assert pixel(image, 600, 3150) == (230, 0, 230)
    assert (tab.width(), tab.height()) == view_size  # the view is back to its size and place
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "scrollY") == 700)

    # An element: its box in CSS px (viewport coordinates), at zoom 1.5.
    run_js(qtbot, tab, "window.scrollTo(0, 0)")
    tab.setZoomFactor(1.5)
    qtbot.waitUntil(lambda: abs(run_js(qtbot, tab, "innerWidth") - view_size[0] / 1.5) < 1)
    box = run_js(qtbot, tab, "(() => { const r = document.getElementById('box').getBoundingClientRect(); "
                             "return [r.x, r.y, r.width, r.height]; })()")
    started = time.perf_counter()
    shot = wait_for(qtbot, screenshot(tab, tmp_path / "box.png", clip=tuple(box)))  # type: ignore[arg-type]
    timings["element"] = time.perf_counter() - started
    image = QImage(shot["path"])
    assert (image.width(), image.height()) == (300, 450)
    assert {pixel(image, x, y) for x in (1, 150, 298) for y in (1, 225, 448)} == {(250, 120, 0)}
    print("\nscreenshot ms: " + ", ".join(f"{k} {v * 1000:.0f}" for k, v in timings.items()))

    # A window's background tab has no picture: the error says what to do (a windowless tab is never behind).
    if shell.windows is not None:
        other = open_page(qtbot, shell, server.url("/"))
        assert other.isVisible() and not tab.isVisible()
        with pytest.raises(CaptureError, match="not shown .* activate it first"):
            wait_for(qtbot, screenshot(tab, tmp_path / "hidden.png"))


# -- PDF -----------------------------------------------------------------------------------------------
TWO_PAGES = """<!doctype html><title>Quarterly report</title>
<style>body{background:rgb(0,0,255);font:16px sans-serif} p{margin:0}</style><body>
<p>First page text</p><div style="height:600px"></div><p style="break-before:page">Second page text</p></body>"""


def pdf_text(path: str) -> tuple[PdfReader, list[str]]:
    reader = PdfReader(path)
    return reader, [page.extract_text() for page in reader.pages]


def test_pdf_text_page_numbers_background_and_orientation(qtbot: QtBot, shell: BrowserPilotApp,
                                                          server: LocalServer, tmp_path: Path) -> None:
    server.route("/report", TWO_PAGES)
    tab = open_page(qtbot, shell, server.url("/report"))
    page = page_of(tab)

    started = time.perf_counter()
    plain = wait_for(qtbot, pdf(page, tmp_path / "plain.pdf"))
    plain_ms = (time.perf_counter() - started) * 1000
    reader, texts = pdf_text(plain["path"])
    assert plain["pages"] == len(reader.pages) == 2
    assert "First page text" in texts[0] and "Second page text" in texts[1]
    assert "1 / 2" not in texts[0]
    width, height = reader.pages[0].mediabox.width, reader.pages[0].mediabox.height
    assert abs(width - 595.3) < 1.5 and abs(height - 841.9) < 1.5  # A4 portrait, in points

    started = time.perf_counter()
    headed = wait_for(qtbot, pdf(page, tmp_path / "headed.pdf", header_footer=True))
    headed_ms = (time.perf_counter() - started) * 1000
    reader, texts = pdf_text(headed["path"])
    assert len(reader.pages) == 2
    assert "1 / 2" in texts[0] and "2 / 2" in texts[1]
    assert all("Quarterly report" in text for text in texts)
    assert all(server.url("/report") in text.replace("\n", "") for text in texts)
    assert run_js(qtbot, tab, "document.adoptedStyleSheets.length") == 0  # the header/footer sheet is gone

    def has_blue_fill(path: str) -> bool:
        contents = b"".join(p.get_contents().get_data() for p in PdfReader(path).pages if p.get_contents() is not None)
        return b"0 0 1 rg" in contents

    bare = wait_for(qtbot, pdf(page, tmp_path / "bare.pdf", background=False))
    assert has_blue_fill(plain["path"]) and not has_blue_fill(bare["path"])
    assert page.settings().testAttribute(page.settings().WebAttribute.PrintElementBackgrounds)  # restored

    wide = wait_for(qtbot, pdf(page, tmp_path / "wide.pdf", paper="Letter", landscape=True))
    box = PdfReader(wide["path"]).pages[0].mediabox
    assert abs(box.width - 792) < 1.5 and abs(box.height - 612) < 1.5  # Letter landscape
    print(f"\nPDF ms: plain {plain_ms:.0f}, with header/footer {headed_ms:.0f}")

    # A strict Content-Security-Policy (no inline styles) does not keep the header and footer out.
    server.route("/strict", lambda request: Response(
        "<title>Strict</title><p>locked down</p>", headers=[("Content-Security-Policy", "default-src 'none'")]))
    strict = open_page(qtbot, shell, server.url("/strict"))
    _reader, texts = pdf_text(wait_for(qtbot, pdf(page_of(strict), tmp_path / "strict.pdf", header_footer=True))["path"])
    assert "1 / 1" in texts[0] and "Strict" in texts[0] and "locked down" in texts[0]


# -- JavaScript dialogs --------------------------------------------------------------------------------
DIALOGS = """<!doctype html><title>Dialogs</title><body>
<p id=out>-</p>
<script>
function run() {
  alert('Saved!');
  const sure = confirm('Delete everything?');
  const name = prompt('Your name?', 'Ada');
  document.getElementById('out').textContent = JSON.stringify([sure, name]);
}
</script></body>"""


def test_dialogs_never_block_and_are_reported(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/", DIALOGS)
    server.route("/next", "<title>Next</title><p>next page</p>")
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)

    run_js(qtbot, tab, "(run(), 1)")
    assert run_js(qtbot, tab, "document.getElementById('out').textContent") == "[true,\"Ada\"]"
    dialogs = page.drain_dialogs()
    assert [(d["type"], d["message"]) for d in dialogs] == [
        ("alert", "Saved!"), ("confirm", "Delete everything?"), ("prompt", "Your name?")]
    assert dialogs[1]["accepted"] is True and dialogs[2]["value"] == "Ada"
    assert page.drain_dialogs() == []

    page.dialog_policy = "dismiss"
    run_js(qtbot, tab, "(run(), 1)")
    assert run_js(qtbot, tab, "document.getElementById('out').textContent") == "[false,null]"
    page.dialog_policy = "accept"
    page.prompt_text = "Grace"
    run_js(qtbot, tab, "(run(), 1)")
    assert run_js(qtbot, tab, "document.getElementById('out').textContent") == "[true,\"Grace\"]"
    page.drain_dialogs()

    # beforeunload (only asked after the person touched the page): dismissed = stay, accepted = leave.
    run_js(qtbot, tab, "(window.onbeforeunload = (e) => { e.preventDefault(); return 'unsaved'; }, "
                       "document.addEventListener('click', () => window.touched = true), 1)")
    click_element(qtbot, tab, "#out")
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "window.touched === true"))
    page.dialog_policy = "dismiss"
    tab.open(server.url("/next"))
    qtbot.waitUntil(lambda: any(d["type"] == "beforeunload" for d in page._dialogs), timeout=5000)
    qtbot.waitUntil(lambda: not tab.loading, timeout=5000)
    assert tab.url().path() == "/"
    page.dialog_policy = "accept"
    tab.open(server.url("/next"))
    qtbot.waitUntil(lambda: tab.url().path() == "/next" and not tab.loading, timeout=5000)
    assert [(d["type"], d.get("accepted")) for d in page.drain_dialogs()] == [
        ("beforeunload", False), ("beforeunload", True)]



def test_a_navigation_asked_for_as_soon_as_the_page_was_told_to_stay_goes_through(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    """Chromium drops a "stay" navigation only once the page has answered it; a navigation asked for before
    then was dropped with it, every time (an agent's goto right after its goto was refused)."""
    server.route("/", "<title>Unsaved</title><p id=out>unsaved work</p>")
    server.route("/next", "<title>Next</title><p>next page</p>")
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    run_js(qtbot, tab, "(window.onbeforeunload = (e) => { e.preventDefault(); return 'unsaved'; }, "
                       "document.addEventListener('click', () => window.touched = true), 1)")
    click_element(qtbot, tab, "#out")
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "window.touched === true"))
    asked_again: list[bool] = []

    def leave_after_all() -> None:
        assert not tab.loading  # the tab says the refused navigation is over
        page.dialog_policy = "accept"
        tab.open(server.url("/next"))
        asked_again.append(True)

    page.navigation_cancelled.connect(leave_after_all)
    page.dialog_policy = "dismiss"
    tab.open(server.url("/next"))
    qtbot.waitUntil(lambda: bool(asked_again), timeout=5000)
    qtbot.waitUntil(lambda: tab.url().path() == "/next" and not tab.loading, timeout=5000)
    assert run_js(qtbot, tab, "document.title") == "Next"
    assert [(d["type"], d.get("accepted")) for d in page.drain_dialogs()] == [
        ("beforeunload", False), ("beforeunload", True)]

# -- popups --------------------------------------------------------------------------------------------
def test_new_tabs_are_recorded_for_the_opener(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/", '<title>Opener</title><a id=out href="/other" target="_blank" '
                      'style="display:block;width:300px;height:80px">open</a>')
    server.route("/other", "<title>Other</title><p>other</p>")
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    click_element(qtbot, tab, "#out")
    qtbot.waitUntil(lambda: len(shell.service.tabs("env-default")) == 2)
    opened = page.drain_new_pages()
    assert len(opened) == 1 and opened[0].opener is page
    qtbot.waitUntil(lambda: opened[0].url().path() == "/other")
    assert page.drain_new_pages() == []


# -- crashed and hung renderers ------------------------------------------------------------------------
HANG = """<!doctype html><title>Busy</title><body><p id=state>ready</p>
<button id=hang style="display:block;width:200px;height:40px" onclick="while (true) {}">hang</button></body>"""


def test_a_killed_renderer_is_reloaded_and_fails_the_waiting_operation(qtbot: QtBot, shell: BrowserPilotApp,
                                                                       server: LocalServer) -> None:
    server.route("/", HANG)
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    crashed: list[str] = []
    page.health.crashed.connect(crashed.append)
    pid = page.renderProcessPid()

    # An operation waiting on the page (a script that never ends) fails at once when the renderer dies.
    stuck = asyncio.ensure_future(page.health.guard(
        page_js(page, "(() => { const t = Date.now(); while (Date.now() - t < 20000); return 1; })()", timeout=30)))
    qtbot.wait(100)
    started = time.perf_counter()
    os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(stuck.done, timeout=5000)
    with pytest.raises(PageCrashed, match="the page crashed"):
        stuck.result()
    qtbot.waitUntil(lambda: not page.health.is_crashed, timeout=10_000)
    recovered_ms = (time.perf_counter() - started) * 1000
    assert crashed and "killed" in crashed[0]
    assert page.renderProcessPid() not in (0, pid)
    assert wait_for(qtbot, page_js(page, "document.getElementById('state').textContent")) == "ready"
    print(f"\nkilled renderer: recovered in {recovered_ms:.0f} ms")


def test_a_hung_renderer_is_detected_killed_and_reloaded(qtbot: QtBot, shell: BrowserPilotApp,
                                                         server: LocalServer) -> None:
    server.route("/", HANG)
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    assert wait_for(qtbot, ensure_responsive(page)) is True
    pid = page.renderProcessPid()

    click_element(qtbot, tab, "#hang")
    qtbot.wait(300)  # the renderer takes the click and starts looping
    started = time.perf_counter()
    assert wait_for(qtbot, ensure_responsive(page, timeout=1.0), timeout=15_000) is False
    elapsed = time.perf_counter() - started
    assert elapsed < 5
    assert page.renderProcessPid() not in (0, pid)
    assert wait_for(qtbot, page_js(page, "document.getElementById('state').textContent")) == "ready"
    assert wait_for(qtbot, ensure_responsive(page)) is True
    assert [e["event"] for e in page.health.events] == ["killed", "crashed", "recovered"]
    print(f"\nhung renderer: detected, killed and reloaded in {elapsed * 1000:.0f} ms")


def test_a_renderer_that_keeps_crashing_is_left_for_an_explicit_reload(qtbot: QtBot, shell: BrowserPilotApp,
                                                                       server: LocalServer) -> None:
    server.route("/", HANG)
    tab = open_page(qtbot, shell, server.url("/"))
    page = page_of(tab)
    for attempt in range(3):
        pid = page.renderProcessPid()
        os.kill(pid, signal.SIGKILL)
        qtbot.waitUntil(lambda: page.health.crash_count == attempt + 1, timeout=5000)
        if attempt < 2:
            qtbot.waitUntil(lambda: not page.health.is_crashed, timeout=10_000)
    qtbot.wait(300)
    assert page.health.is_crashed  # the third crash within a minute: no automatic reload
    with pytest.raises(PageCrashed, match="has not reloaded yet"):
        page.health.check()
    wait_for(qtbot, page.health.wait_recovered(10))  # an explicit wait (or a reload by a person) recovers it
    assert wait_for(qtbot, page_js(page, "document.getElementById('state').textContent")) == "ready"
