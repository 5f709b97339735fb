"""Traces and videos of tabs: the browser's side of a run's trace (workflows/tracing.py `TracePort`), and the
videos `screen_start` / `screen_stop` and `page_record_video` record on demand.

- `Tracing` (one per browser service) keeps a `TabWatch` per tab being recorded: its pictures
  (app/browser/tabpictures.py), the run recording acting in it, the videos filming it. The watch is the tab's
  `core.tracer` while anything records it, so the tab's parts tell it when they act (and on which element) and
  when a secret is about to be typed (the field is masked from then on).
- `RunRecording` is one run's trace and video. A step is a node: when it starts, the previous step's console
  messages and page errors (the page's own console, `BrowserPage.console_journal`) are closed, and its "after"
  picture is taken once what it did has reached Qt's picture (`TabPictures.painted`, and `document_shown` when it
  began a document; a step that ends sooner, a wait or a script, shares that picture with the step before it), at
  most AFTER_WAIT later. When a node acts, before its input is sent: if the tab began a document Qt does not show yet
  (a page just loaded shows the page before it, or a blank one, until its first frame is drawn), the node waits for
  it, at most AFTER_WAIT once per document; then one picture is the after picture still waited for and the node's
  "before" picture (the element outlined in red). Requests: the tab's own traffic, as the page's
  request interceptor sees each one leave (method, address, kind: documents, form posts, fetch/XHR, scripts, images,
  beacons; QtWebEngine calls it for this page only, and only while a trace records it), completed from the page's
  resource timing (status, duration, size: read at each step without waiting for the answer), each given to the step
  during which the page asked for it (its resource timing's start: the interceptor hears a click's fetch a moment
  later, at times once the next node began; else when it was heard); while network capture runs on the tab
  (`net_start`), its entries are used instead, with the request and response bodies it kept (cut to 4 KB). The
  pictures go to one writer thread per run (app/browser/shotfiles.py), which scales them (at most 800 px wide) and
  writes them as numbered JPEG files in the run's `trace/` folder: as they come when the trace is `always` (a crash
  keeps the steps so far); with `on-failure`, the newest pictures (up to 48 MB) are held as they are and encoded
  only when the run does not end ok, so a run that ends ok encodes nothing and writes nothing.
- A run's video films whichever tab the run acts in (app/browser/tabvideo.py), its nodes as chapters.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets as random
import shutil
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtGui import QImage
from PySide6.QtWebEngineCore import QWebEngineUrlRequestInfo, QWebEngineUrlRequestInterceptor

from app.browser import locators
from app.browser.framepipe import Launcher, VideoError, find_encoder
from app.browser.js import APP_WORLD, PageError, run_js
from app.browser.policy import _TYPES as RESOURCE_TYPES  # QtWebEngine's resource types, named as in HAR
from app.browser.shotfiles import Frame, ShotFiles, outline_frame
from app.browser.tabpictures import Box, Picture, TabPictures, masked, same
from app.browser.tabvideo import TabVideo, VideoResult
from plumbing import loggers
from plumbing.savemanager import in_thread
from workflows.tracing import TRACE_FOLDER, VIDEO_STEM, StepTrace, TraceRequest, TraceResult

if TYPE_CHECKING:
    from app.browser.parts.tab import Tab

log = logging.getLogger(loggers.BROWSER)

SHOT_WIDTH = 800
SHOT_QUEUE = 24        # screenshots queued for the writer (full-size pictures); beyond, the backlog
HELD_BYTES = 48 * 1024 * 1024  # on-failure: the newest pictures kept (unencoded) until the run ends
BACKLOG = 16           # always: pictures waiting beyond the writer's queue, at most
AFTER_WAIT = 0.4       # seconds a step's after picture waits for what the step did to be painted
MAX_CONSOLE = 100      # messages per step
CONSOLE_JOURNAL = 1000  # messages a page keeps between two steps
MAX_TEXT = 2000        # characters of one message
MAX_REQUESTS = 200     # requests per step
BODY_LIMIT = 4096      # characters of a captured body in a trace
HEARD_LATE = 1.0       # seconds the interceptor may hear a request after the page asked for it
_SEEN = f"__bpSeen{random.token_hex(4)}"  # per document, in our isolated world: resource entries read so far

_RESOURCES = """(() => {
  const seen = window[SEEN] || 0, origin = performance.timeOrigin;
  const all = performance.getEntriesByType('resource');
  const row = (e, type) => [e.name, type || e.initiatorType, origin + e.startTime, e.duration, e.responseStatus || 0,
                            e.transferSize || 0];
  const out = all.slice(seen).map((e) => row(e));
  if (!seen && !window[SEEN + 'n']) {
    window[SEEN + 'n'] = true;
    const nav = performance.getEntriesByType('navigation')[0];
    if (nav) out.unshift(row(nav, 'document'));
  }
  window[SEEN] = all.length;
  return out;
})()""".replace("SEEN", json.dumps(_SEEN))


class _RequestLog(QWebEngineUrlRequestInterceptor):
    """The requests one page makes, as they leave: (epoch seconds, method, url, kind). On the Qt thread."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: deque[tuple[float, str, str, str]] = deque(maxlen=5000)

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:  # noqa: N802 (Qt's name)
        self.rows.append((time.time(), bytes(info.requestMethod().data()).decode("latin-1"),
                          info.requestUrl().toString(), RESOURCE_TYPES.get(info.resourceType(), "other")))


def _look_up_ffmpeg() -> None:
    try:
        find_encoder()
    except VideoError as exc:
        log.info("no video recording here: %s", exc)


class TabWatch:
    """What records one tab: its pictures, the run acting in it, the videos filming it (`core.tracer`)."""

    def __init__(self, tab: "Tab") -> None:
        self.tab = tab
        self.pictures = TabPictures(tab.view)
        self.run: RunRecording | None = None
        self.videos: set[TabVideo] = set()
        self.requests: _RequestLog | None = None  # while a run's trace records the tab

    @property
    def idle(self) -> bool:
        return self.run is None and not self.videos

    # -- what the tab's parts say (app/browser/parts/core.py ActingWatcher) ---------------------------------
    async def acting(self, target: locators.ClickTarget | None) -> None:
        if self.run is not None:
            await self.run.acting(self, target)

    def names_secret(self, text: str) -> bool:
        return self.run is not None and self.run.names_secret(text)

    async def typing_secret(self) -> None:
        await self.pictures.mask_focused(self.run.secret_values() if self.run is not None else [])


class Tracing:
    """The browser service's recordings, keyed by tab id (TracePort for the run manager)."""

    def __init__(self, tab_of: Callable[[str], "Tab | None"]) -> None:
        self._tab_of = tab_of
        self._watches: dict[str, TabWatch] = {}
        self.launcher = Launcher()  # starts the encoders' writer threads (never the Qt thread's wait)
        # Which ffmpeg, and its encoders, looked up once now: a run's first pictures need not wait for it.
        self.launcher.start(_look_up_ffmpeg, "browserpilot-video")
        self.screens: dict[str, TabVideo] = {}  # tab id -> its on-demand video (screen_start)

    def watch(self, tab_id: str) -> TabWatch | None:
        """The tab's watch (made, and hooked into the tab, on first use); None when the tab is gone."""
        watch = self._watches.get(tab_id)
        if watch is not None and watch.tab.view is not None and shiboken6.isValid(watch.tab.view):
            return watch
        tab = self._tab_of(tab_id)
        if tab is None:
            self._watches.pop(tab_id, None)
            return None
        watch = self._watches[tab_id] = TabWatch(tab)
        tab.core.tracer = watch
        return watch

    def release(self, watch: TabWatch) -> None:
        """Unhook a watch nobody uses any more."""
        if not watch.idle or self._watches.get(watch.tab.tab_id) is not watch:
            return
        del self._watches[watch.tab.tab_id]
        watch.tab.core.tracer = None
        watch.pictures.release()
        if shiboken6.isValid(watch.tab.view):
            watch.tab.page.console_journal = None
            if watch.requests is not None:
                watch.tab.page.setUrlRequestInterceptor(None)
        watch.requests = None

    # -- TracePort ---------------------------------------------------------------------------------------------
    def start(self, request: TraceRequest) -> "RunRecording | None":
        watch = self.watch(request.tab_id)
        if watch is None:
            return None
        return RunRecording(self, request, watch)

    # -- on-demand videos (screen_start / screen_stop, page_record_video) ---------------------------------
    async def start_video(self, tab_id: str, target: Path, *, crop: Box | None = None,
                          max_seconds: float | None = None) -> None:
        """Start filming the tab into `target` (its suffix is the encoder's); a `PageError` when it is filmed
        already, a VideoError when there is no ffmpeg."""
        if tab_id in self.screens:
            raise PageError(f"tab {tab_id} is being recorded already; screen_stop ends that recording",
                            code="already_recording")
        watch = self.watch(tab_id)
        if watch is None:
            raise LookupError(f"there is no open tab with id {tab_id!r}")
        try:
            await in_thread(find_encoder, name="browserpilot-video")  # no ffmpeg: say so now, not at the end
        except BaseException:
            self.release(watch)
            raise
        if tab_id in self.screens:  # another call started one meanwhile
            raise PageError(f"tab {tab_id} is being recorded already; screen_stop ends that recording",
                            code="already_recording")
        options: dict[str, Any] = {"crop": crop}
        if max_seconds is not None:
            options["max_seconds"] = max_seconds
        video = TabVideo(lambda: self._pictures_of(tab_id), target, self.launcher, **options)
        watch.videos.add(video)
        self.screens[tab_id] = video
        video.start()

    async def stop_video(self, tab_id: str) -> VideoResult | None:
        """End the tab's on-demand video and return it (LookupError when it is not filmed)."""
        video = self.screens.pop(tab_id, None)
        if video is None:
            raise LookupError(f"tab {tab_id} is not being recorded; screen_start starts a recording")
        try:
            return await video.stop(True)
        finally:
            watch = self._watches.get(tab_id)
            if watch is not None:
                watch.videos.discard(video)
                self.release(watch)

    def _pictures_of(self, tab_id: str) -> TabPictures | None:
        watch = self._watches.get(tab_id)
        return watch.pictures if watch is not None and watch.pictures.usable() else None

    def tab_closed(self, tab_id: str) -> None:
        """A closed tab: what films it repeats its last picture until stopped (screen_stop still returns it)."""
        watch = self._watches.pop(tab_id, None)
        if watch is not None:
            watch.tab.core.tracer = None
            watch.pictures.release()

    async def stop_all(self) -> None:
        """The app is quitting: end the on-demand videos (kept)."""
        for tab_id in list(self.screens):
            try:
                await self.stop_video(tab_id)
            except (VideoError, OSError) as exc:
                log.warning("the video of %s could not be finished: %s", tab_id, exc)


@dataclass(eq=False)
class _Shot:
    """A step's picture: its image until it is handed to the writer, then the path of the file it writes."""

    image: QImage | None
    outline: Frame | None = None
    path: str | None = None


@dataclass
class _PendingAfter:
    """Steps whose after picture waits for what they did to be painted (`RunRecording._painted`)."""

    watch: TabWatch
    steps: list["_Step"]
    since: float                 # time.monotonic() when the first of them ended
    painting: "asyncio.Future[None]"  # what they did is painted (`RunRecording._painted`): their picture is taken


@dataclass
class _Step:
    index: int
    tab_id: str
    title: str
    started: float                                   # epoch seconds
    at_ms: float
    before: "_Shot | None" = None
    after: "_Shot | None" = None
    box: Box | None = None
    element: str | None = None
    console: list[dict[str, Any]] = field(default_factory=list)
    page_errors: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)


def _matching(rows: list[list[Any]] | None, when: float) -> list[Any] | None:
    """The resource timing row (taken out of `rows`) of a request that left at `when` (epoch seconds): the same
    address, started within 5 s of it."""
    for index, row in enumerate(rows or []):
        if abs(float(row[2]) / 1000 - when) <= 5.0:
            return rows.pop(index)  # type: ignore[union-attr]
    return None


class RunRecording:
    """One run's trace and video (workflows/tracing.py RunTrace)."""

    def __init__(self, tracing: Tracing, request: TraceRequest, watch: TabWatch) -> None:
        self.tracing = tracing
        self.request = request
        self.folder = request.folder / TRACE_FOLDER
        self.started = time.time()
        self.steps: dict[int, _Step] = {}
        self.current: _Step | None = None
        self.watch: TabWatch | None = None
        self.watches: list[TabWatch] = []
        self.video: TabVideo | None = None
        self.notes: list[str] = []
        self._requests: list[tuple[str, list[Any]]] = []    # (tab id, resource timing row)
        self._reads: set[asyncio.Future[Any]] = set()      # reads of the page (requests, masked pictures)
        self._painting: set[asyncio.Future[Any]] = set()   # waits for a step's effect to be painted
        self._shots: ShotFiles | None = None                 # the steps' screenshots: numbered JPEG files
        self._shot_count = 0
        self._last_shot: dict[str, tuple[QImage, _Shot]] = {}  # tab id -> (its last picture, its screenshot)
        self._held: deque[_Shot] = deque()                   # on-failure: pictures not encoded yet, oldest first
        self._held_bytes = 0
        self._backlog: deque[_Shot] = deque()                # always: pictures the writer could not take yet
        self._left_out = 0
        self._pending_after: _PendingAfter | None = None  # the steps whose after picture waits to be painted
        self._after_timer: asyncio.TimerHandle | None = None
        self._attach(watch)
        if request.video:
            self.video = TabVideo(self._video_source, request.folder / VIDEO_STEM, tracing.launcher)
            self.video.start()

    # -- the engine's side (workflows/tracing.py RunTrace) -----------------------------------------------------
    def step(self, index: int, tab_id: str, title: str) -> None:
        now = time.time()
        self._close_step()
        if self.watch is None or self.watch.tab.tab_id != tab_id:
            watch = self.tracing.watch(tab_id)
            if watch is not None:
                self._attach(watch)
        self.current = self.steps[index] = _Step(index, tab_id, title, now, round((now - self.started) * 1000, 1))
        if self.video is not None:
            self.video.chapter(title)

    async def finish(self, keep_trace: bool, keep_video: bool) -> TraceResult:
        pending = self._pending_after
        if pending is not None and keep_trace:  # what the last steps did reaches their picture (a click, the end)
            await asyncio.wait({pending.painting}, timeout=max(0.0, AFTER_WAIT - (time.monotonic() - pending.since)))
        self._close_step(last=True)
        self.current = None
        for painting in list(self._painting):  # nothing waits for a picture any more (nor did: steps acted since)
            painting.cancel()
        result = TraceResult(notes=self.notes)
        try:
            await self._reads_done()
            keep = keep_trace and self.request.screenshots
            shots = asyncio.ensure_future(self._finish_shots(keep))
            result.video = await self._finish_video(keep_video)
            await shots
            if keep:
                self._add_captured_requests()
                result.steps = self._step_traces()
        finally:
            for watch in self.watches:
                if watch.run is self:
                    watch.run = None
                self.tracing.release(watch)
        return result

    # -- what the tab says ---------------------------------------------------------------------------------------
    async def acting(self, watch: TabWatch, target: locators.ClickTarget | None) -> None:
        """The moment before a node acts: its before picture (the element outlined), taken before the input is sent.
        When the tab began a document Qt's picture may not show yet (a page just loaded shows the page before it,
        or a blank one, until its first frame is drawn), the node waits for it first, at most AFTER_WAIT once per
        document (`TabPictures.document_shown`). Then one picture of this moment serves as the after picture of the
        steps still waiting for theirs, and as this step's before (what they did within the page may not be drawn
        yet: a node acting at once is not slowed down for it)."""
        step = self.current
        if step is None or step.before is not None or not self.request.screenshots:
            self._after_now()
            return
        if target is not None and target.box is not None:
            box = target.box
            step.box = (box.x, box.y, box.width, box.height)
            step.element = target.description
        await watch.pictures.document_shown(AFTER_WAIT)
        pending = self._take_pending_after()
        if pending is not None and pending.watch is not watch:
            self._picture(pending.watch, pending.steps, "after", None)
            pending = None
        picture = watch.pictures.grab() if not watch.pictures.masking else await watch.pictures.picture()
        for waiting in pending.steps if pending is not None else []:
            self._shoot(watch, picture, waiting, "after", None)
        self._shoot(watch, picture, step, "before", step.box)

    def names_secret(self, text: str) -> bool:
        return any(value in text for value in self.request.secrets)

    def secret_values(self) -> list[str]:
        return list(self.request.secrets)

    # -- steps ---------------------------------------------------------------------------------------------------
    def _attach(self, watch: TabWatch) -> None:
        if self.watch is not None and self.watch is not watch and self.request.screenshots:
            self._drain_console(self.watch, self.current)
        self.watch = watch
        watch.run = self
        if watch not in self.watches:
            self.watches.append(watch)
        page = watch.tab.page
        if self.request.screenshots and page.console_journal is None:  # (each page its own)
            page.console_journal = deque(maxlen=CONSOLE_JOURNAL)
        if self.request.screenshots and watch.requests is None:
            watch.requests = _RequestLog()
            page.setUrlRequestInterceptor(watch.requests)

    def _close_step(self, last: bool = False) -> None:
        step, watch = self.current, self.watch
        if step is None or watch is None or not self.request.screenshots:
            return
        if last:  # the run has ended and settled: what its last node did is painted by now
            self._after_now()
            self._picture(watch, [step], "after", None)
        else:  # its picture once what it did is painted (or AFTER_WAIT later, or when another is needed first)
            now = time.monotonic()
            pending = self._pending_after
            if pending is not None and pending.watch is watch and now - pending.since < AFTER_WAIT:
                # The step before still waits for what it did to be painted (this one took less than a frame: a
                # wait, a script): one picture, once what both did is painted, serves both. Taken now, it showed
                # the page before the step before had any effect.
                self._take_pending_after()
                steps, since = [*pending.steps, step], pending.since
            else:
                self._after_now()
                steps, since = [step], now
            painting = asyncio.ensure_future(self._painted(watch))
            self._painting.add(painting)
            painting.add_done_callback(self._painting.discard)
            waiting = self._pending_after = _PendingAfter(watch, steps, since, painting)
            painting.add_done_callback(lambda _: self._after_now() if self._pending_after is waiting else None)
            self._after_timer = asyncio.get_running_loop().call_later(max(0.0, AFTER_WAIT - (now - since)),
                                                                      self._after_now)
        self._drain_console(watch, step)
        self._read_requests(watch)

    @staticmethod
    async def _painted(watch: TabWatch) -> None:
        """What the tab shows now has reached Qt's picture, and so has the document it began last (within
        AFTER_WAIT)."""
        began = time.monotonic()
        await watch.pictures.painted(AFTER_WAIT)
        await watch.pictures.document_shown(AFTER_WAIT - (time.monotonic() - began))

    def _after_now(self) -> None:
        """Take the picture of the step that ended last, if it still waits for one: now the page has drawn a frame
        since (what the step did shows), or AFTER_WAIT passed, or something else needs a picture of the tab."""
        pending = self._take_pending_after()
        if pending is not None:
            self._picture(pending.watch, pending.steps, "after", None)

    def _take_pending_after(self) -> "_PendingAfter | None":
        """The steps that still wait for their after picture, if any; from now on they wait no more."""
        pending, self._pending_after = self._pending_after, None
        if self._after_timer is not None:
            self._after_timer.cancel()
            self._after_timer = None
        return pending

    def _drain_console(self, watch: TabWatch, step: _Step | None) -> None:
        page = watch.tab.page if shiboken6.isValid(watch.tab.view) else None
        journal = page.console_journal if page is not None else None
        if not journal:
            return
        messages = list(journal)
        journal.clear()
        if step is None:
            return
        for when, level, text, source, line in messages:
            item = {"level": level, "text": text[:MAX_TEXT], "source": source, "line": line,
                    "atMs": round((when - self.started) * 1000, 1)}
            if level == "error" and text.startswith("Uncaught"):
                step.page_errors.append({k: v for k, v in item.items() if k != "level"})
            elif len(step.console) < MAX_CONSOLE:
                step.console.append(item)

    def _picture(self, watch: TabWatch, steps: list[_Step], kind: str, outline: Box | None) -> None:
        """The steps' `kind` (before or after) picture, taken now (a masked one: after a quick read of the page);
        a thread writes it (app/browser/shotfiles.py)."""
        pictures = watch.pictures
        if not pictures.masking:
            picture = pictures.grab()
            for step in steps:
                self._shoot(watch, picture, step, kind, outline)
            return

        async def masked_picture() -> None:
            picture = await pictures.picture()
            for step in steps:
                self._shoot(watch, picture, step, kind, outline)

        task = asyncio.ensure_future(masked_picture())
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    def _shoot(self, watch: TabWatch, picture: Picture | None, step: _Step, kind: str, outline: Box | None) -> None:
        """The picture as the step's: the last screenshot again when it shows the same pixels and there is no
        element to outline, else a new one."""
        if picture is None:
            return
        image = masked(picture)
        last = self._last_shot.get(watch.tab.tab_id)
        if outline is None and last is not None and same(last[0], image):
            setattr(step, kind, last[1])
            return
        # the outline is drawn on the picture as written (scaled down to SHOT_WIDTH), by the writer
        written_scale = picture.scale * min(1.0, SHOT_WIDTH / max(1, image.width()))
        shot = _Shot(image, outline_frame(outline, written_scale) if outline is not None else None)
        setattr(step, kind, shot)
        if outline is None:
            self._last_shot[watch.tab.tab_id] = (image, shot)
        if self.request.trace_always:
            self._send_in_turn(shot)
            return
        # on-failure: held until the run's end, the newest up to HELD_BYTES (most runs end ok: nothing encoded)
        self._held.append(shot)
        self._held_bytes += shot.image.sizeInBytes()
        while self._held_bytes > HELD_BYTES and len(self._held) > 1:
            dropped = self._held.popleft()
            self._held_bytes -= dropped.image.sizeInBytes()
            dropped.image = None
            self._left_out += 1

    def _send(self, shot: _Shot, limit: int | None = SHOT_QUEUE) -> bool:
        """Hand a picture to the writer (started with the first one), which writes it as the next numbered JPEG
        file; False when `limit` pictures wait for it already (the picture waits in the backlog)."""
        image = shot.image
        if image is None:
            return True
        if self._shots is None:
            self._shots = ShotFiles(self.folder, SHOT_WIDTH, self.tracing.launcher, name="browserpilot-trace")
        path = self.folder / f"{self._shot_count + 1:04d}.jpg"
        if not self._shots.send(image, shot.outline, path, limit):
            return False
        shot.image = None
        self._shot_count += 1
        shot.path = str(path)
        return True

    def _send_in_turn(self, shot: _Shot) -> None:
        """Send the pictures waiting for the writer, then this one; what it cannot take yet waits, in order."""
        self._send_backlog()
        if self._backlog or not self._send(shot):
            self._backlog.append(shot)
            while len(self._backlog) > BACKLOG:  # the writer far behind: the oldest waiting picture is left out
                self._backlog.popleft().image = None
                self._left_out += 1

    def _send_backlog(self, limit: int | None = SHOT_QUEUE) -> None:
        while self._backlog and self._send(self._backlog[0], limit):
            self._backlog.popleft()

    # -- requests ------------------------------------------------------------------------------------------------
    def _read_requests(self, watch: TabWatch) -> None:
        """Read the tab's new resource timing entries, without waiting for the answer."""
        if not watch.pictures.usable():
            return
        tab_id = watch.tab.tab_id
        task = asyncio.ensure_future(self._read(watch, tab_id))
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def _read(self, watch: TabWatch, tab_id: str) -> None:
        try:
            rows = await run_js(watch.tab.page, _RESOURCES, timeout=5.0, world=APP_WORLD)
        except PageError:
            return  # between documents: the next document's entries are read at the next step
        self._requests.extend((tab_id, row) for row in rows or [] if isinstance(row, list) and len(row) >= 6)

    async def _reads_done(self) -> None:
        """Wait for the reads of the page under way (the last step's closing started the last one)."""
        if self._reads:
            await asyncio.wait(set(self._reads), timeout=5.0)

    def _step_at(self, tab_id: str, epoch: float) -> _Step | None:
        chosen = None
        for step in self.steps.values():
            if step.tab_id == tab_id and step.started <= epoch:
                if chosen is None or step.started >= chosen.started:
                    chosen = step
        return chosen

    def _add_captured_requests(self) -> None:
        """Each request to the step it started in: from the network capture of the tab while one runs (method,
        status, bodies), else from the page's resource timing."""
        captured: set[str] = set()
        for watch in self.watches:
            net = watch.tab.core.net
            capture = net.captures.get(watch.tab.tab_id) if net is not None else None
            if capture is None or not capture.entries:
                continue
            captured.add(watch.tab.tab_id)
            for entry in list(capture.entries.values()):
                step = self._step_at(watch.tab.tab_id, entry.started_wall)
                if step is None or len(step.requests) >= MAX_REQUESTS:
                    continue
                item: dict[str, Any] = {"method": entry.method, "url": entry.url, "type": entry.type,
                                        "status": entry.status, "atMs": round((entry.started_wall - self.started) * 1000, 1)}
                if entry.end_ts is not None and entry.started_ts:
                    item["ms"] = round((entry.end_ts - entry.started_ts) * 1000, 1)
                if entry.error:
                    item["error"] = entry.error
                if entry.post_data:
                    item["requestBody"] = entry.post_data[:BODY_LIMIT]
                if entry.body is not None and not entry.body_base64:
                    item["responseBody"] = entry.body[:BODY_LIMIT]
                step.requests.append(item)
        timings: dict[str, list[list[Any]]] = {}
        for tab_id, row in self._requests:
            if row[0]:
                timings.setdefault(f"{tab_id} {row[0]}", []).append(row)
        for watch in self.watches:
            tab_id = watch.tab.tab_id
            if tab_id in captured or watch.requests is None:
                continue
            for heard, method, url, kind in list(watch.requests.rows):
                if url.startswith(("data:", "blob:")):
                    continue
                timing = _matching(timings.get(f"{tab_id} {url}"), heard)
                # When the page asked for it, by its own clock: the interceptor hears it a moment later, sometimes
                # once the step that caused it has ended (a click's fetch, heard during the next node).
                asked = float(timing[2]) / 1000 if timing is not None else heard
                when = asked if heard - HEARD_LATE <= asked <= heard else heard
                step = self._step_at(tab_id, when)
                if step is None or len(step.requests) >= MAX_REQUESTS:
                    continue
                # The keys in the order of the captured requests' (and of `TraceRequestView`, workflows/runs.py).
                seen: dict[str, Any] = {"method": method, "url": url, "type": kind}
                if timing is not None and timing[4]:
                    seen["status"] = int(timing[4])
                seen["atMs"] = round((when - self.started) * 1000, 1)
                if timing is not None:
                    _name, _kind, _start, duration, _status, size = timing[:6]
                    seen["ms"] = round(float(duration), 1)
                    if size:
                        seen["bytes"] = int(size)
                step.requests.append(seen)
        for step in self.steps.values():
            step.requests.sort(key=lambda item: item.get("atMs", 0))

    # -- the video -----------------------------------------------------------------------------------------------

    def _video_source(self) -> TabPictures | None:
        watch = self.watch
        return watch.pictures if watch is not None and watch.pictures.usable() else None

    async def _finish_video(self, keep: bool) -> str | None:
        video, self.video = self.video, None
        if video is None:
            return None
        try:
            result = await video.stop(keep)
        except (VideoError, OSError) as exc:
            log.warning("run %s: no video: %s", self.request.run_id, exc)
            self.notes.append(f"no video: {exc}")
            return None
        return result.path if result is not None else None

    # -- the end ----------------------------------------------------------------------------------------------
    async def _finish_shots(self, keep: bool) -> None:
        """Wait for the writer to write the screenshots (kept: the held ones and the backlog are sent now), or
        stop it and remove them. A picture it could not write is left out of the steps."""
        held, self._held = list(self._held), deque()
        if keep:
            self._send_backlog(None)
            for shot in held:
                self._send(shot, None)
            if self._left_out:
                self.notes.append(f"{self._left_out} screenshot(s) of the trace were left out (on-failure keeps the "
                                  f"latest {HELD_BYTES // (1024 * 1024)} MB of pictures; always: the writer was far "
                                  "behind)")
        self._backlog.clear()
        shots, self._shots = self._shots, None
        if shots is None:
            return
        if keep:
            shots.close()
        else:
            shots.kill()
        written = await asyncio.wrap_future(shots.done)
        if not keep:
            await in_thread(shutil.rmtree, self.folder, True, name="browserpilot-trace")
            return
        if shots.error is not None:
            log.warning("run %s: the trace's screenshots could not all be written: %s", self.request.run_id,
                        shots.error)
            self.notes.append(f"the trace's screenshots could not all be written: {shots.error}")
        for step in self.steps.values():
            if step.before is not None and step.before.path not in written:
                step.before = None
            if step.after is not None and step.after.path not in written:
                step.after = None

    def _step_traces(self) -> dict[int, StepTrace]:
        steps: dict[int, StepTrace] = {}
        for index, step in self.steps.items():
            box = ({"x": step.box[0], "y": step.box[1], "width": step.box[2], "height": step.box[3]}
                   if step.box else None)
            steps[index] = StepTrace(at_ms=step.at_ms, before=step.before.path if step.before else None,
                                     after=step.after.path if step.after else None, box=box,
                                     element=step.element, console=step.console, page_errors=step.page_errors,
                                     requests=step.requests)
        return steps
