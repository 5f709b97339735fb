"""Streamed videos saved as one playable file: a page plays HLS (TS; fMP4 with an AES-128 key,
behind a login) or DASH (audio and video apart) through MediaSource, fetching the manifest and segments with
its own script; `page_save_media`, `page_download` on the element and the `download` node find the manifest
in the tab's traffic and save the whole stream with the environment's cookies, user agent, Referer and policy.
The saved file has both streams and the clip's duration (ffprobe). Streams are made by ffmpeg at test time
(H.264/AAC, which this QtWebEngine cannot decode: saving does not depend on the page playing)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser.mediastream import StreamTransfer
from app.browser.tab import BrowserTab
from app.wiring.shell import BrowserPilotApp
from tests.support.disk_audit import qt_thread_disk
from tests.support.documents import chain
from tests.support.qt import open_view, run_js, run_op, running_app, wait_loaded, window_of
from tests.support.server import LocalServer, Request, Response
from tests.support.streams import CLIP_SECONDS, PLAYER, ffprobe, make_streams

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None,
                                reason="ffmpeg is not installed (./dev.sh setup installs it)")

TYPES = {".m3u8": "application/vnd.apple.mpegurl", ".mpd": "application/dash+xml", ".ts": "video/mp2t",
         ".m4s": "video/iso.segment", ".mp4": "video/mp4", ".webm": "video/webm", ".bin": "application/octet-stream"}
SESSION = "session=opensesame"


class Site:
    """The streams on 127.0.0.1 (the fMP4 one under /secure/, 403 without the login cookie), a player page,
    a login page, and a copy of the TS stream whose segments live on `cdn` (127.0.0.2)."""

    def __init__(self, server: LocalServer, cdn: LocalServer, folder: Path) -> None:
        self.server, self.cdn = server, cdn
        self.hold = threading.Event()  # the app's request of the held segment (/slow/ts/seg2.ts) waits for it
        self.hold.set()
        streams = make_streams(folder)
        for path, file in streams.files().items():
            content_type = TYPES.get(file.suffix, "application/octet-stream")
            data = file.read_bytes()
            secure = path.startswith("/fmp4/")
            server.route(("/secure" + path) if secure else path,
                         self._guarded(data, content_type) if secure else data, content_type=content_type)
            cdn.route(path, data, content_type=content_type)
            if path.startswith("/ts/") and path.endswith(".ts"):  # the last segment waits for `hold`
                server.route("/slow" + path, self._held(data, content_type) if path.endswith("seg2.ts") else data,
                             content_type=content_type)
        playlist = (folder / "ts" / "index.m3u8").read_text()
        server.route("/cdn/index.m3u8", "\n".join(cdn.url("/ts/" + line) if line.endswith(".ts") else line
                                                   for line in playlist.splitlines()) + "\n",
                     content_type=TYPES[".m3u8"])
        server.route("/slow/ts/index.m3u8", playlist, content_type=TYPES[".m3u8"])
        server.route("/api/play", "\n".join("/ts/" + line if line.endswith(".ts") else line
                                              for line in playlist.splitlines()) + "\n",
                     content_type=TYPES[".m3u8"])  # a manifest whose URL does not say so
        server.route("/player", PLAYER)
        server.route("/login", "<title>Logged in</title>", headers=[("Set-Cookie", f"{SESSION}; Path=/; HttpOnly")])

    @staticmethod
    def _guarded(data: bytes, content_type: str) -> Any:
        def answer(request: Request) -> Response:
            if SESSION not in request.headers.get("cookie", ""):
                return Response("log in first", status=403, content_type="text/plain")
            return Response(data, content_type=content_type)
        return answer

    def _held(self, data: bytes, content_type: str) -> Any:
        def answer(request: Request) -> Response:
            if "sec-fetch-dest" not in request.headers:  # the app's request (the page's own goes at once)
                self.hold.wait(30)
            return Response(data, content_type=content_type)
        return answer

    def player(self, src: str, kind: str = "hls", **extra: str) -> str:
        query = "&".join(f"{k}={v}" for k, v in {"src": src, "kind": kind, **extra}.items())
        return self.server.url(f"/player?{query}")

    def fetched_by_app(self, path_prefix: str) -> list[Request]:
        """Requests the app sent itself (not the page: a page's fetch says Sec-Fetch-Dest)."""
        return [r for r in self.server.requests if r.path.startswith(path_prefix) and "sec-fetch-dest" not in r.headers]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with LocalServer() as server, LocalServer("127.0.0.2") as cdn:
        made = Site(server, cdn, tmp_path_factory.mktemp("streams"))
        yield made
        made.hold.set()


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("stream-data"), windows=True) as shell:
        yield shell


def played(qtbot: QtBot, app: BrowserPilotApp, url: str, env_id: str = "env-default") -> BrowserTab:
    """A tab whose player has fetched everything it could."""
    view = open_view(app, env_id, url)
    wait_loaded(qtbot, view)
    qtbot.waitUntil(lambda: run_js(qtbot, view, "window.done") is True, timeout=20_000)
    return view


def assert_whole(path: str, codecs: list[tuple[str, str]]) -> None:
    probe = ffprobe(path)
    assert probe["streams"] == sorted(codecs), probe
    assert abs(probe["duration"] - CLIP_SECONDS) <= 0.5, probe


def test_an_hls_ts_stream_fed_through_mediasource_is_saved_whole(qtbot: QtBot, app: BrowserPilotApp,
                                                                 site: Site) -> None:
    view = played(qtbot, app, site.player("/ts/index.m3u8"))
    assert run_js(qtbot, view, "window.failed") is None
    assert run_js(qtbot, view, "document.querySelector('video').src").startswith("blob:")
    result = run_op(qtbot, app, "page_save_media", {"tabId": view.tab_id, "locator": {"selector": "#player"}},
                    timeout=60_000)
    assert result["ok"], result
    assert result["stream"]["kind"] == "hls" and result["stream"]["manifest"] == site.server.url("/ts/index.m3u8")
    assert_whole(result["path"], [("video", "h264"), ("audio", "aac")])
    assert Path(result["path"]).parent == app.service.profiles.downloads("env-default").default_folder
    assert result["bytes"] == Path(result["path"]).stat().st_size
    # The app's own requests carried the environment's user agent and the page as Referer.
    sent = site.fetched_by_app("/ts/seg")
    assert len({r.path for r in sent}) == 3, [r.path for r in sent]
    user_agent = view.page().profile().httpUserAgent()
    assert all(r.headers.get("user-agent") == user_agent and r.headers.get("referer") == view.url().toString()
               for r in sent), [r.headers for r in sent]
    page_languages = {r.headers.get("accept-language") for r in site.server.hits("/ts/seg0.ts") if r not in sent}
    assert len(page_languages) == 1  # what the page's own requests said (here: none, as the profile has none)
    assert {r.headers.get("accept-language") for r in sent} == page_languages
    # The Downloads list of the environment's window shows it done, with its size.
    panel = window_of(app, "env-default").downloads_panel
    row = panel.row_for(result["name"])
    assert row is not None and row.record.state == "completed" and "Done" in row.meta.text()


@pytest.mark.parametrize("capturing", [True, False], ids=["captured", "resource-timing"])
def test_a_manifest_whose_url_does_not_say_so_is_found_in_the_tabs_traffic(
        qtbot: QtBot, app: BrowserPilotApp, site: Site, capturing: bool) -> None:
    """With the tab's network capture on, by its content type; without, by reading what the page fetched."""
    tab_id = run_op(qtbot, app, "tab_open", {})["tabId"]
    if capturing:
        assert run_op(qtbot, app, "net_start", {"tabId": tab_id})["ok"]
    assert run_op(qtbot, app, "page_navigate", {"tabId": tab_id, "url": site.player("/api/play")})["ok"]
    view = next(tab.view for tab in app.service.tabs() if tab.tab_id == tab_id)
    qtbot.waitUntil(lambda: run_js(qtbot, view, "window.done") is True, timeout=20_000)
    if capturing:  # the capture has the manifest's answer (its events may come a moment after the page's)
        qtbot.waitUntil(lambda: any(r["url"] == site.server.url("/api/play") and r["mimeType"] for r in
                                    run_op(qtbot, app, "net_list", {"tabId": tab_id})["requests"]), timeout=10_000)
    probes = len(site.fetched_by_app("/api/play"))
    result = run_op(qtbot, app, "page_save_media", {"tabId": tab_id, "locator": {"selector": "video"}},
                    timeout=60_000)
    assert result["ok"], result
    assert result["stream"]["manifest"] == site.server.url("/api/play")
    assert_whole(result["path"], [("video", "h264"), ("audio", "aac")])
    read = len(site.fetched_by_app("/api/play")) - probes
    assert read == (2 if capturing else 3)  # yt-dlp reads it twice; without a content type it is probed first
    if capturing:
        assert run_op(qtbot, app, "net_stop", {"tabId": tab_id})["ok"]


def test_an_encrypted_fmp4_stream_behind_a_login_is_saved_with_the_environments_cookie(
        qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    env_id = run_op(qtbot, app, "env_create", {"name": "Member"})["env"]
    player = site.player("/secure/fmp4/index.m3u8", type='video/mp4; codecs="avc1.42E01E,mp4a.40.2"')
    anonymous = played(qtbot, app, player, env_id)
    assert "403" in (run_js(qtbot, anonymous, "window.failed") or "")
    refused = run_op(qtbot, app, "page_download", {"tabId": anonymous.tab_id,
                                                   "url": site.server.url("/secure/fmp4/index.m3u8")}, timeout=60_000)
    assert not refused["ok"] and "HTTP Error 403" in refused["error"], refused
    member_files = app.service.profiles.downloads(env_id).default_folder
    assert not member_files.exists() or list(member_files.iterdir()) == []  # nothing left of the failed save

    login = open_view(app, env_id, site.server.url("/login"))
    wait_loaded(qtbot, login)
    view = played(qtbot, app, player, env_id)
    assert run_js(qtbot, view, "window.failed") is None  # the page fetched manifest, key and segments
    before = len(site.fetched_by_app("/secure/fmp4/"))
    result = run_op(qtbot, app, "page_save_media", {"tabId": view.tab_id, "locator": {"selector": "video"}},
                    timeout=60_000)
    assert result["ok"], result
    assert_whole(result["path"], [("video", "h264"), ("audio", "aac")])
    sent = site.fetched_by_app("/secure/fmp4/")[before:]
    assert {r.path for r in sent} >= {"/secure/fmp4/key.bin", "/secure/fmp4/seg0.m4s", "/secure/fmp4/init.mp4"}
    assert all(SESSION in r.headers.get("cookie", "") for r in sent)
    # The cookie stays with its host: nothing of it went to the other one.
    assert all(SESSION not in r.headers.get("cookie", "") for r in site.cdn.requests)


def test_a_dash_stream_with_audio_and_video_apart_is_merged_into_one_file(qtbot: QtBot, app: BrowserPilotApp,
                                                                          site: Site) -> None:
    view = played(qtbot, app, site.player("/dash/manifest.mpd", kind="dash"))
    assert run_js(qtbot, view, "window.failed") is None
    assert run_js(qtbot, view, "window.appended") > 0  # VP9 and Opus: this page really plays it
    result = run_op(qtbot, app, "page_download", {"tabId": view.tab_id, "locator": {"selector": "video"},
                                                  "saveAs": "lesson.mp4"}, timeout=60_000)
    assert result["ok"], result
    assert result["stream"]["kind"] == "dash" and len(result["stream"]["formats"]) == 2
    assert Path(result["path"]).stem == "lesson"
    assert_whole(result["path"], [("video", "vp9"), ("audio", "opus")])


def test_the_download_node_puts_the_stream_into_the_runs_files_off_the_qt_thread(qtbot: QtBot, app: BrowserPilotApp,
                                                               site: Site) -> None:
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "open", "data": {"type": "goto", "url": site.player("/dash/manifest.mpd", kind="dash")}},
             {"id": "ready", "data": {"type": "wait", "locator": {"selector": "body[data-played=yes]"},
                                      "state": "appear", "timeout": 20}},
             {"id": "save", "data": {"type": "download", "locator": {"selector": "video"}, "saveAs": "clip.webm"}},
             {"id": "end", "data": {"type": "end", "outputs": [{"variable": "video",
                                                                "value_selector": ["save", "path"]}]}}]
    workflow = chain("Save the lesson", *nodes)
    tab = run_op(qtbot, app, "tab_open", {})["tabId"]  # opening the environment's profile is not the run
    with qt_thread_disk([app.data.root]) as recorded:  # the stream is fetched and written on other threads
        result = run_op(qtbot, app, "workflow_run", {"workflow": workflow, "tabId": tab}, timeout=90_000)
    assert result["ok"] and result["run"]["status"] == "ok", result
    assert recorded == [], "\n".join(map(str, recorded))
    saved = result["outputs"]["video"]
    assert saved in result["files"] and Path(saved).name == "clip.webm"
    assert_whole(saved, [("video", "vp9"), ("audio", "opus")])


def test_a_stream_from_a_blocked_host_is_refused_naming_the_rule(qtbot: QtBot, app: BrowserPilotApp,
                                                                 site: Site) -> None:
    env_id = run_op(qtbot, app, "env_create", {"name": "Strict"})["env"]
    assert run_op(qtbot, app, "env_update", {"env": env_id, "blockedDomains": ["127.0.0.2"]})["ok"]
    view = played(qtbot, app, site.player("/cdn/index.m3u8"), env_id)
    assert run_js(qtbot, view, "window.failed")  # the page itself could not fetch the segments
    refused = run_op(qtbot, app, "page_save_media", {"tabId": view.tab_id, "locator": {"selector": "video"}},
                     timeout=60_000)
    assert not refused["ok"], refused
    assert "127.0.0.2" in refused["error"] and "blockedDomains: 127.0.0.2" in refused["error"], refused["error"]
    assert site.cdn.requests == []  # never sent, by the page nor by the app
    folder = app.service.profiles.downloads(env_id).default_folder
    assert not folder.exists() or list(folder.iterdir()) == []


def test_a_stream_download_shows_its_progress_and_is_cancelled_from_the_downloads_list(
        qtbot: QtBot, app: BrowserPilotApp, site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    # yt-dlp reports from up to three fragment threads at once, also while the Qt thread deletes the cancelled
    # transfer: a report must never touch the Qt object from those threads (a check-then-emit there crashed
    # the process in CI). Every report is shown on the Qt thread, and reports that keep coming from threads
    # while the transfer is cancelled and deleted do no harm.
    shown_on: set[str] = set()
    show_progress = StreamTransfer.show_progress

    def recording_show(transfer: StreamTransfer, progress: Any) -> None:
        shown_on.add(threading.current_thread().name)
        show_progress(transfer, progress)

    monkeypatch.setattr(StreamTransfer, "show_progress", recording_show)
    view = played(qtbot, app, site.player("/slow/ts/index.m3u8"))
    folder = app.service.profiles.downloads("env-default").default_folder
    folder.mkdir(parents=True, exist_ok=True)
    before = sorted(folder.iterdir())
    site.hold.clear()  # from now on the last segment waits
    panel = window_of(app, "env-default").downloads_panel
    stop = threading.Event()
    reporters: list[threading.Thread] = []
    task = asyncio.ensure_future(app.registry.call(app.ctx, "page_save_media", {
        "tabId": view.tab_id, "locator": {"selector": "video"}}))
    try:
        qtbot.waitUntil(lambda: bool(site.fetched_by_app("/slow/ts/seg2.ts"))
                        and any(r.record.state == "in progress" for r in panel.rows), timeout=15_000)
        row = next(r for r in panel.rows if r.record.state == "in progress")
        # The row tells how far it got: bytes and the fragment, while the last one is held.
        qtbot.waitUntil(lambda: row.record.bytes > 0 and "Fragment" in row.meta.text(), timeout=10_000)
        assert "of 3" in row.meta.text() and "Downloading" in row.meta.text(), row.meta.text()
        assert row.cancel_button.isVisibleTo(panel)
        transfer = row._live_request()
        assert isinstance(transfer, StreamTransfer)
        job = transfer.job

        def keep_reporting() -> None:  # as fast as fragments could (a report per millisecond, per thread)
            while not stop.wait(0.001):
                job.on_progress(job.progress)

        reporters += [threading.Thread(target=keep_reporting, name=f"reporter-{n}") for n in range(3)]
        for reporter in reporters:
            reporter.start()
        row.cancel()
    except BaseException:
        stop.set()
        raise
    finally:
        site.hold.set()
    try:
        qtbot.waitUntil(lambda: task.done() and not shiboken6.isValid(transfer), timeout=30_000)
    finally:
        stop.set()
        for reporter in reporters:
            reporter.join()
    result = task.result()
    assert not result["ok"] and "cancelled" in result["error"], result
    assert row.record.state == "cancelled" and row.state_text() == "Cancelled"
    assert shown_on == {threading.main_thread().name}, shown_on
    assert sorted(folder.iterdir()) == before  # nothing of it is left


def test_cancelling_a_run_stops_its_stream_download(qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "open", "data": {"type": "goto", "url": site.player("/slow/ts/index.m3u8")}},
             {"id": "ready", "data": {"type": "wait", "locator": {"selector": "body[data-played=yes]"},
                                      "state": "appear", "timeout": 20}},
             {"id": "save", "data": {"type": "download", "locator": {"selector": "video"}, "saveAs": "held"}},
             {"id": "end", "data": {"type": "end"}}]
    workflow = chain("Held", *nodes)
    folder = app.service.profiles.downloads("env-default").default_folder
    folder.mkdir(parents=True, exist_ok=True)
    before = sorted(folder.iterdir())
    open_view(app, "env-default", "about:blank")  # the environment's window (and its Downloads list), also alone
    panel = window_of(app, "env-default").downloads_panel
    rows_before = list(panel.rows)
    held = len(site.fetched_by_app("/slow/ts/seg2.ts"))
    site.hold.clear()
    try:
        run_id = run_op(qtbot, app, "workflow_start", {"workflow": workflow})["runId"]
        qtbot.waitUntil(lambda: len(site.fetched_by_app("/slow/ts/seg2.ts")) > held
                        and any(r not in rows_before for r in panel.rows), timeout=20_000)
        row = next(r for r in panel.rows if r not in rows_before)
        assert row.record.state == "in progress"
        assert run_op(qtbot, app, "run_cancel", {"runId": run_id})["ok"]
        qtbot.waitUntil(lambda: row.record.state == "cancelled", timeout=10_000)
    finally:
        site.hold.set()
    ended = run_op(qtbot, app, "run_wait", {"runId": run_id})
    assert not ended["ok"] and "cancelled" in ended["error"], ended
    qtbot.waitUntil(lambda: sorted(folder.iterdir()) == before, timeout=10_000)  # its parts are removed
