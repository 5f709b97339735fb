"""Pictures of a tab for traces and videos: taken now and cheaply, with the fields a secret was typed into masked.

- `TabPictures.picture()` grabs the picture Qt holds of the page (`capture._grab`: the page's pixels, no overlay or
  banner; a few ms on the Qt thread, windowless or shown) and does not wait for a new frame, unlike a screenshot
  (`capture.settle_frame`): a trace takes one or two per step and a video several a second, and neither may slow the
  run down. Qt's picture changes only when Qt draws the page: until it draws again (or the view is resized or zoomed),
  `grab` hands out the last grab again, no new copy of the pixels. `painted()` waits, off the run's path, until what
  the page shows now has reached that picture: the page has begun two animation frames since (it says so on its
  console at the second), and Qt has drawn the page's picture since the second began (the first frame holds what the
  page showed when asked; until the second begins, Qt may still be drawing frames from before the first: a drawing
  heard between the two was the page before a click in 1 of 6 to 10 runs of tests/integration/test_traces.py). Qt
  draws it when the view's render widget (a QQuickWidget) gets its update timer's event, which an event filter
  counts: no Qt Quick bindings are needed (the bundle leaves them out). When Qt has not drawn since, the first
  frame's picture reached Qt before the second began, or there was nothing new to draw (a still page): `painted`
  then waits for the page's third frame (Chromium begins it only once the first one's picture was drawn: in 150
  tries, unloaded and under three busy loops, the first frame's picture was drawn by Qt 7 ms or more before the page
  said its third frame began), and then `UPDATE_GRACE` for Qt's drawing (Qt draws 5 ms after a picture arrives),
  at most `DELIVERY_WAIT` in all (a page that stops its frames, or a render widget that is not a QQuickWidget: the
  bound). It waited `DELIVERY_WAIT` after the second frame before: ~25 ms more on a still page, which every run's
  end paid (bench/replay.py --traces). A fixed 30 ms after the two animation frames was not enough: on a loaded
  machine the picture of a click that repainted a big block still showed it as it was before
  (tests/integration/test_traces.py, the after picture).
  `document_shown(bound)`: waits until Qt's picture shows the document the tab began last (until its first frame is
  drawn, Qt shows the page before it, or a blank one): the new document answers (not the one before it, which
  answers until the new one commits), reports its first paint (which it knows a moment after Qt drew it, and says
  so on its console), and Qt drew since. `same(a, b)`: whether two pictures show the same pixels (a still page:
  the trace reuses its last screenshot, the video sends nothing new).
- Secrets: `mask_focused(values)` marks the focused field (through open shadow roots and same-origin frames; a
  cross-origin frame holding the focus is marked whole) in our isolated world, before a secret is typed into it,
  and keeps the secrets' values there too, never in the page's own world. From then on every picture of the tab
  is masked: the marked elements, and any input or text area of the document (or a same-origin frame) whose
  value holds a secret or a part of one (a field the page rendered again, a secret half typed), each covered by
  an opaque box. Their boxes are read just before and just after the grab and both are covered (padded), so a
  field that moved in between is still hidden. A page that does not answer (hung, or between two documents while
  Qt still shows the one before) gets the boxes it said last covered; one that never said gets no picture. What
  the page shows of a secret elsewhere (echoed in a heading) is not known, and not masked.
- `masked` covers the masks in the picture itself (a few rectangles, on the Qt thread); the element a step acted
  on is framed in red where the picture is scaled and encoded (a trace's writer thread, app/browser/shotfiles.py;
  a video's ffmpeg, app/browser/framepipe.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets as random
import time
from dataclasses import dataclass, field

import shiboken6
from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWebEngineCore import QWebEnginePage
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from app.browser import capture
from app.browser.health import PageHealth
from app.browser.js import APP_WORLD, PageError, run_js
from app.browser.windowless import is_windowless
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

Box = tuple[float, float, float, float]  # x, y, width, height in CSS px of the top-level viewport
MASK_PADDING = 4.0
DELIVERY_WAIT = 0.05  # seconds `painted` waits for Qt to draw the page once the page has begun its second frame
UPDATE_GRACE = 0.006  # seconds it waits for Qt's drawing once the page has begun its third (Qt draws 5 ms later)
FIRST_FRAME_WAIT = 0.4  # seconds a new document answers without a first paint before it counts as shown
# QtWebEngine tells the page a frame was presented a few ms after Qt drew it (1-7 ms measured, unloaded): the first
# paint's time is that moment, so Qt's drawing of it comes up to this much before
PRESENTED_AFTER_DRAWN = 0.03
MASK_COLOUR = QColor(38, 38, 38)
KEY = f"__bpMask{random.token_hex(4)}"  # where the isolated world keeps the marked fields and the values

# Mark the focused element (see the module docstring) and keep the secrets' values; returns its description.
_MARK = """(() => {
  const state = window[KEY] || (window[KEY] = {elements: [], values: []});
  for (const value of VALUES) if (value && !state.values.includes(value)) state.values.push(value);
  let el = document.activeElement;
  for (;;) {
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (!el || !/^(IFRAME|FRAME)$/.test(el.tagName)) break;
    let inner = null;
    try { inner = el.contentDocument && el.contentDocument.activeElement; } catch (e) { inner = null; }
    if (!inner || inner === el.contentDocument.body) break;   // another site's frame: the frame is masked
    el = inner;
  }
  if (el && el !== document.body && el !== document.documentElement && !state.elements.includes(el))
    state.elements.push(el);
  return el ? el.tagName.toLowerCase() : null;
})()"""

# When the document began (epoch ms), and how long ago (ms) its first paint was, or null before it. Its paint timing
# entry comes a moment after Qt drew that paint (once the frame is presented), and Qt may draw nothing more: until it
# comes, the page says on its console when it does, with the same two numbers (once per document: no second question).
_FIRST_PAINT_AGE = """(() => { const first = performance.getEntriesByType('paint')[0];
  if (!first && !window[WATCHING]) {
    window[WATCHING] = true;
    new PerformanceObserver((list, observer) => {
      observer.disconnect();
      console.debug(SAY + ' ' + performance.timeOrigin + ' ' + (performance.now() - list.getEntries()[0].startTime));
    }).observe({type: 'paint'});
  }
  return [performance.timeOrigin, first ? performance.now() - first.startTime : null]; })()"""
NAVIGATION_LEAD = 0.1  # seconds a document's time origin may come before Qt says its loading started

# The boxes to cover: the marked elements that are still in a document, and the fields holding a secret.
_BOXES = """(() => {
  const state = window[KEY];
  if (!state) return [];
  const boxes = [];
  const offset = (el) => {
    let x = 0, y = 0, win = el.ownerDocument.defaultView;
    while (win && win !== window) {
      const frame = win.frameElement;
      if (!frame) return null;
      const r = frame.getBoundingClientRect();
      x += r.left + frame.clientLeft; y += r.top + frame.clientTop;
      win = win.parent;
    }
    return [x, y];
  };
  const add = (el) => {
    if (!el || !el.isConnected) return;
    const at = offset(el);
    if (!at) return;
    for (const r of el.getClientRects()) if (r.width && r.height) boxes.push([r.left + at[0], r.top + at[1], r.width, r.height]);
  };
  state.elements.forEach(add);
  if (state.values.length) {
    const docs = [document];
    for (const frame of document.querySelectorAll('iframe, frame')) {
      try { if (frame.contentDocument) docs.push(frame.contentDocument); } catch (e) {}
    }
    for (const doc of docs)
      for (const field of doc.querySelectorAll('input, textarea'))
        if (field.value && state.values.some((v) => field.value.includes(v) || v.includes(field.value)))
          add(field);  // a secret, or a part of one being typed
  }
  return boxes;
})()"""


@dataclass
class Picture:
    """The page's pixels at one moment, and what to cover in them."""

    image: QImage
    scale: float                                   # image px per CSS px (zoom times device pixel ratio)
    masks: list[Box] = field(default_factory=list)
    covered: bool = False                          # the masks are painted into the image


class _Waiters:
    """Futures done at the next time something happens (`wake`); one that stops waiting leaves (`forget`)."""

    def __init__(self) -> None:
        self._waiting: list[asyncio.Future[None]] = []

    def next(self) -> "asyncio.Future[None]":
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        return future

    def forget(self, future: "asyncio.Future[None]") -> None:
        if future in self._waiting:
            self._waiting.remove(future)

    def wake(self) -> None:
        waiting, self._waiting = self._waiting, []
        for future in waiting:
            if not future.done():
                future.set_result(None)


class _Renders(QObject):
    """Counts Qt's drawings of the page: a QQuickWidget renders its scene when its update timer fires (a frame of
    the page arrived), on the timer's event, which this filter sees just before. It listens to every render widget
    the view gets, from the moment Qt makes it (a navigation to another site makes a new one, which draws the new
    page at once): a drawing missed there would leave a new page's first paint looking undrawn."""

    def __init__(self, view: QWebEngineView) -> None:
        super().__init__()
        self.count = 0
        self.last_at = 0.0  # time.monotonic() of Qt's last drawing
        self.widgets_made = 0  # the render widgets heard so far (another one: another picture, whatever its address)
        self._drawings = _Waiters()
        self._view = view
        self._widgets: list[QWidget] = []
        view.installEventFilter(self)  # its children as they come
        for child in view.findChildren(QWidget, "", Qt.FindChildOption.FindDirectChildrenOnly):
            self.listen(child)

    def listen(self, widget: QWidget) -> None:
        """Count the drawings of `widget` too, if it is a render widget."""
        if not widget.inherits("QQuickWidget") or any(known is widget for known in self._widgets):
            return
        self._widgets = [known for known in self._widgets if shiboken6.isValid(known)]
        widget.installEventFilter(self)
        self._widgets.append(widget)
        self.widgets_made += 1

    def next(self) -> "asyncio.Future[None]":
        """Done at Qt's next drawing (its callbacks run after the drawing itself)."""
        return self._drawings.next()

    def forget(self, future: "asyncio.Future[None]") -> None:
        """`future` (from `next`) waits no more."""
        self._drawings.forget(future)

    def stop(self) -> None:
        for watched in [self._view, *self._widgets]:
            if shiboken6.isValid(watched):
                watched.removeEventFilter(self)
        self._widgets = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind == QEvent.Type.ChildPolished and watched is self._view:
            child = event.child()  # type: ignore[attr-defined]
            if isinstance(child, QWidget):
                self.listen(child)
        elif kind == QEvent.Type.Timer and watched is not self._view:
            self.count += 1
            self.last_at = time.monotonic()
            self._drawings.wake()
        return False


class TabPictures:
    """The pictures of one tab (its view); `masking` once a secret was typed into it."""

    def __init__(self, view: QWebEngineView) -> None:
        self.view = view
        self.masking = False
        self._token = f"__bpPainted{random.token_hex(6)}:"  # what `painted`'s script says on the console
        self._painting = 0
        self._said: dict[str, asyncio.Future[int]] = {}  # `painted`'s waits: Qt's drawings at its 2nd, 3rd frames
        self._first_paint_said = f"{self._token}first paint"
        self._news = _Waiters()  # `document_shown`'s: the page says its first paint came, or a wait found it shown
        self._renders = _Renders(view)
        self._rendering: QWidget | None = None  # the view's render widget now
        self.documents = 0  # the documents the tab began loading since it is pictured
        self._drawn = 0     # ... and how many of them Qt's picture has shown (`document_shown`)
        self._document_began = 0.0  # time.time() when the last one began
        self._answered_at: float | None = None  # time.monotonic() when it first answered
        self._first_painted_at: float | None = None  # time.monotonic() of its first paint, at most, once known
        self._last_grab: tuple[tuple[object, ...], QImage, float] | None = None  # (`_moment()`, image, scale)
        self._said_boxes: list[Box] | None = None  # where the page said the fields to mask were, last time
        view.loadStarted.connect(self._new_document)
        self._counting_documents = True

    async def painted(self, timeout: float = 1.0) -> None:
        """Return once what the page shows now has reached Qt's picture (the module's docstring); at most
        `timeout` for the page to speak (a page that navigated says nothing)."""
        if not self.usable():
            return
        page = self.view.page()
        watching = self._watch_renders()
        self._painting += 1
        second, third = f"{self._token}{self._painting}", f"{self._token}{self._painting}+"
        loop = asyncio.get_running_loop()
        said_second: asyncio.Future[int] = loop.create_future()
        said_third: asyncio.Future[int] = loop.create_future()
        self._said[second], self._said[third] = said_second, said_third
        self._hear_console(page)
        page.runJavaScript(f"requestAnimationFrame(() => requestAnimationFrame(() => {{ "
                           f"console.debug({json.dumps(second)}); "
                           f"requestAnimationFrame(() => console.debug({json.dumps(third)})); }}))", APP_WORLD)
        drawing: asyncio.Future[None] | None = None
        try:
            drawn_then = await asyncio.wait_for(said_second, timeout)  # Qt's drawings so far, at the second frame
            if not watching:  # no drawing to hear: as long as one may take
                await asyncio.sleep(DELIVERY_WAIT)
            elif self._renders.count <= drawn_then:  # not drawn since: its next drawing, or the third frame
                bound = loop.time() + DELIVERY_WAIT
                drawing = self._renders.next()
                await asyncio.wait({drawing, said_third}, timeout=DELIVERY_WAIT, return_when=asyncio.FIRST_COMPLETED)
                if not drawing.done() and said_third.done():
                    await asyncio.wait({drawing}, timeout=max(0.0, min(UPDATE_GRACE, bound - loop.time())))
        except asyncio.TimeoutError:
            pass
        finally:
            self._said.pop(second, None)
            self._said.pop(third, None)
            if drawing is not None:
                self._renders.forget(drawing)

    async def document_shown(self, bound: float) -> None:
        """Return once Qt's picture shows the document the tab began last (until its first frame is drawn, Qt shows
        the page before it, or a blank one), at most `bound` seconds later. Shown: the new document answers (its
        time origin is not older than the loading: until it commits, the one before answers), its paint timing has
        its first paint, and Qt has drawn since that moment or just before it (`PRESENTED_AFTER_DRAWN`; the page
        says how long ago it was). That Qt drew after the page began its frames is not enough: a new tab's first
        drawings can be blank, and pictures showed a white page before a click. A document found shown, or one
        that answered without a first paint for `FIRST_FRAME_WAIT` (it paints nothing), is not asked again. One
        quick read of the page per try until its first paint is known; the next try when there is news: Qt drew,
        the page says its first paint's timing came, with that timing (it comes after Qt drew it, and Qt may draw
        nothing more; no second read), or another wait found it shown."""
        if self.documents <= self._drawn or not self.usable():
            return
        documents = self.documents
        deadline = time.monotonic() + max(0.0, bound)
        while self._drawn < documents:
            drawings = self._renders.count
            news = self._news.next()  # (before asking: the page may say its first paint came while it answers)
            try:
                shown = await self._first_paint_drawn()
                if self.documents != documents:
                    return  # another one began: its own wait
                answered = self._answered_at
                if shown or (answered is not None and time.monotonic() - answered >= FIRST_FRAME_WAIT):
                    self._drawn = documents
                    self._news.wake()
                    return
                left = deadline - time.monotonic()
                if left <= 0 or not self._watch_renders():
                    return
                if self._renders.count != drawings:
                    continue  # Qt drew while the page answered: ask again
                await asyncio.wait({news, self._renders.next()}, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self._news.forget(news)  # (no news: a page that never answers adds none up)

    async def _first_paint_drawn(self) -> bool:
        if not self.usable():
            return True
        if self._first_painted_at is None:  # (known: the page said it, or answered it before; Qt may have drawn since)
            script = _FIRST_PAINT_AGE.replace("WATCHING", json.dumps(f"{KEY}paint")).replace(
                "SAY", json.dumps(self._first_paint_said))
            page = self.view.page()
            self._hear_console(page)
            try:
                origin, age = await run_js(page, script, timeout=0.5, world=APP_WORLD)
                if not self._of_this_document(float(origin), None if age is None else float(age)):
                    return False  # the document before it answered: the new one is not there yet
            except (PageError, TypeError, ValueError):
                return False  # between documents
        if self._first_painted_at is None:
            return False
        return not self._watch_renders() or self._renders.last_at >= self._first_painted_at - PRESENTED_AFTER_DRAWN

    def _of_this_document(self, origin: float, age: float | None) -> bool:
        """What the page said (its time origin, epoch ms; how long ago it painted first, ms, or None: not yet) is
        of the document the tab began last: it answered, and `_first_painted_at` is when it painted first, at most
        (the answer took a moment to arrive). False: the document before it said it."""
        if origin / 1000 < self._document_began - NAVIGATION_LEAD:
            return False
        if self._answered_at is None:
            self._answered_at = time.monotonic()
        if age is not None:
            self._first_painted_at = time.monotonic() - age / 1000
        return True

    def _new_document(self) -> None:
        self.documents += 1
        self._document_began = time.time()
        self._answered_at = None
        self._first_painted_at = None

    def _watch_renders(self) -> bool:
        """Whether Qt's drawings of the page can be heard (the view's render widget, its focus proxy, is a
        QQuickWidget); `_rendering` is that widget."""
        widget = self.view.focusProxy() if shiboken6.isValid(self.view) else None
        if widget is None or not widget.inherits("QQuickWidget"):
            return False
        self._renders.listen(widget)  # (heard already, unless Qt made it some other way)
        self._rendering = widget
        return True

    def _hear_console(self, page: QWebEnginePage) -> None:
        """What the page says on its console for us (`painted`'s frames, its first paint) reaches `_on_console`."""
        if self._on_console not in page.console_listeners:  # type: ignore[attr-defined]
            page.console_listeners.append(self._on_console)  # type: ignore[attr-defined]

    def _on_console(self, message: str) -> bool:
        if not message.startswith(self._token):
            return False
        if message.startswith(self._first_paint_said):
            try:
                origin, age = (float(number) for number in message[len(self._first_paint_said):].split())
                self._of_this_document(origin, age)
            except ValueError:
                log.debug("a first paint said unclearly: %r", message)
            self._news.wake()
            return True
        said = self._said.get(message)
        if said is not None and not said.done():
            said.set_result(self._renders.count)
        return True

    def release(self) -> None:
        """Nothing records the tab any more."""
        self._said.clear()
        self._news.wake()
        self._last_grab = None
        if self._counting_documents and shiboken6.isValid(self.view):
            self.view.loadStarted.disconnect(self._new_document)
        self._counting_documents = False
        self._renders.stop()
        self._rendering = None
        if shiboken6.isValid(self.view):
            listeners = self.view.page().console_listeners
            if self._on_console in listeners:
                listeners.remove(self._on_console)

    def usable(self) -> bool:
        view = self.view
        if not shiboken6.isValid(view):
            return False
        if PageHealth.of(view.page()).is_crashed:
            return False
        return view.isVisible() or is_windowless(view)

    def grab(self) -> Picture | None:
        """The picture Qt holds of the page now; None when the tab cannot be pictured. Not while `masking`:
        `picture` covers the secrets first. Qt's picture changes only when Qt draws the page (or the view is
        resized or zoomed): until then the last grab is the picture, and is handed out again (a grab costs a
        few ms of the Qt thread and 4 MB of fresh memory at 1280 px; a trace often wants one moment twice)."""
        if not self.usable():
            return None
        view = self.view
        moment = self._moment()
        if moment is not None and self._last_grab is not None and self._last_grab[0] == moment:
            return Picture(QImage(self._last_grab[1]), self._last_grab[2])  # (shares its pixels until painted on)
        image = capture._grab(view).toImage()
        if image.isNull() or image.width() == 0:
            return None
        scale = view.page().zoomFactor() * image.devicePixelRatio()
        self._last_grab = (moment, image, scale) if moment is not None else None
        return Picture(QImage(image), scale)  # (masks painted into it later copy its pixels first: ours stay)

    def _moment(self) -> tuple[object, ...] | None:
        """What Qt's picture of the page depends on: its render widget, how often Qt drew it, its place and size,
        the zoom; None when Qt's drawings cannot be heard (every grab is then a new one)."""
        if not self._watch_renders() or self._rendering is None:
            return None
        widget, view = self._rendering, self.view
        area, size = widget.geometry(), view.size()
        return (id(widget), self._renders.widgets_made, self._renders.count, area.x(), area.y(), area.width(),
                area.height(), size.width(), size.height(), widget.devicePixelRatio(), view.page().zoomFactor())

    async def picture(self) -> Picture | None:
        """A picture with its masks covered (two quick reads of the page when a secret was typed into it). A page
        that does not say where its secret fields are (it hangs, or is between two documents while Qt still shows
        the one before) gets the boxes it said last covered, and is not asked twice; if it never said, there is no
        picture: one that might show a secret is not taken."""
        if not self.masking:
            return self.grab()
        said_before = self._said_boxes
        before = await self._boxes()
        picture = self.grab()
        if picture is None:
            return None
        if before is None:
            if said_before is None:
                log.info("no picture of the tab: the page does not say where the field a secret was typed into is")
                return None
            picture.masks = list(said_before)
        else:
            picture.masks = before + (await self._boxes() or [])
        masked(picture)
        return picture

    async def mask_focused(self, values: list[str]) -> None:
        """Mask the focused field from now on (and any field showing one of `values`)."""
        self.masking = True
        if not self.usable():
            return
        script = _MARK.replace("KEY", json.dumps(KEY)).replace("VALUES", json.dumps(values))
        try:
            marked = await run_js(self.view.page(), script, timeout=5.0, world=APP_WORLD)
        except PageError as exc:
            log.warning("could not mark the focused field to mask it: %s", exc)
            return
        log.debug("masking %s in pictures of the tab", marked)

    async def _boxes(self) -> list[Box] | None:
        """Where the fields to mask are now (CSS px of the viewport); None when the page does not answer."""
        if not self.usable():
            return []
        try:
            found = await run_js(self.view.page(), _BOXES.replace("KEY", json.dumps(KEY)), timeout=2.0,
                                 world=APP_WORLD)
        except PageError:
            return None
        boxes: list[Box] = [tuple(float(v) for v in box) for box in found or [] if len(box) == 4]  # type: ignore[misc]
        self._said_boxes = boxes
        return boxes


def same(a: QImage | None, b: QImage | None) -> bool:
    """Whether two pictures show the same pixels."""
    return a is not None and b is not None and a.size() == b.size() and a == b


# -- marking a picture ----------------------------------------------------------------------------------------
def masked(picture: Picture) -> QImage:
    """The picture's image with its masks covered (painted into it, once: the grab is ours alone)."""
    if picture.masks and not picture.covered:
        painter = QPainter(picture.image)
        try:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(MASK_COLOUR)
            factor = picture.scale
            for x, y, width, height in picture.masks:
                painter.drawRect(QRectF((x - MASK_PADDING) * factor, (y - MASK_PADDING) * factor,
                                        (width + 2 * MASK_PADDING) * factor, (height + 2 * MASK_PADDING) * factor))
        finally:
            painter.end()
        picture.covered = True
    return picture.image
