"""Pictures of a tab for traces and videos: taken now and cheaply, with the fields a secret was typed into masked.

- `TabPictures.picture()` grabs the picture Qt holds of the page (`capture._grab`: the page's pixels, no overlay
  or banner; ~0.3 ms on the Qt thread, windowless or shown) and does not wait for a new frame, unlike a
  screenshot (`capture.settle_frame`): a trace takes two per step and a video several a second, and neither
  may slow the run down. A picture may therefore lag the page by a frame.
- Secrets: `mask_focused(values)` marks the focused field (through open shadow roots and same-origin frames; a
  cross-origin frame holding the focus is marked whole) in our isolated world, before a secret is typed into it,
  and keeps the secrets' values there too, never in the page's own world. From then on every picture of the tab
  is masked: the marked elements, and any input or text area of the document (or a same-origin frame) whose
  value holds a secret (a field the page rendered again), each covered by an opaque box. Their boxes are read
  just before and just after the grab and both are covered (padded), so a field that moved in between is
  still hidden. What the page shows of a secret elsewhere (echoed in a heading) is not known, and not masked.
- `render_jpeg` and `render_frame` (on a worker thread) scale a picture down, cover the masks, outline an
  element in red, and encode it (JPEG for a trace, raw RGB for ffmpeg).
"""

from __future__ import annotations

import json
import logging
import secrets as random
from dataclasses import dataclass, field

import shiboken6
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWebEngineWidgets import QWebEngineView

from app.browser import capture
from app.browser.health import PageHealth
from app.browser.js import APP_WORLD, PageError, run_js
from app.browser.windowless import is_windowless
from envs import loggers

log = logging.getLogger(loggers.BROWSER)

Box = tuple[float, float, float, float]  # x, y, width, height in CSS px of the top-level viewport
MASK_PADDING = 4.0
MASK_COLOUR = QColor(38, 38, 38)
OUTLINE_COLOUR = capture.OUTLINE_COLOR
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
        if (field.value && state.values.some((v) => field.value.includes(v))) add(field);
  }
  return boxes;
})()"""


@dataclass
class Picture:
    """The page's pixels at one moment, and what to cover in them."""

    image: QImage
    scale: float                                   # image px per CSS px (zoom times device pixel ratio)
    masks: list[Box] = field(default_factory=list)


class TabPictures:
    """The pictures of one tab (its view); `masking` once a secret was typed into it."""

    def __init__(self, view: QWebEngineView) -> None:
        self.view = view
        self.masking = False

    def usable(self) -> bool:
        view = self.view
        if not shiboken6.isValid(view):
            return False
        if PageHealth.of(view.page()).is_crashed:
            return False
        return view.isVisible() or is_windowless(view)

    def grab(self) -> Picture | None:
        """The picture Qt holds of the page now (no masks yet); None when the tab cannot be pictured."""
        if not self.usable():
            return None
        image = capture._grab(self.view).toImage()
        if image.isNull() or image.width() == 0:
            return None
        return Picture(image, self.view.page().zoomFactor() * image.devicePixelRatio())

    async def picture(self) -> Picture | None:
        """A picture with its masks (two quick reads of the page when a secret was typed into it)."""
        if not self.masking:
            return self.grab()
        before = await self._boxes()
        picture = self.grab()
        if picture is None:
            return None
        picture.masks = before + await self._boxes()
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

    async def _boxes(self) -> list[Box]:
        if not self.usable():
            return []
        try:
            found = await run_js(self.view.page(), _BOXES.replace("KEY", json.dumps(KEY)), timeout=2.0,
                                 world=APP_WORLD)
        except PageError:
            # The page does not answer (between documents): a new document has no field typed into yet;
            # the value scan finds a re-rendered one at the next picture.
            return []
        return [tuple(float(v) for v in box) for box in found or [] if len(box) == 4]  # type: ignore[misc]


# -- on a worker thread ----------------------------------------------------------------------------------------
def _cover(painter: QPainter, masks: list[Box], factor: float) -> None:
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(MASK_COLOUR)
    for x, y, width, height in masks:
        painter.drawRect(QRectF((x - MASK_PADDING) * factor, (y - MASK_PADDING) * factor,
                                (width + 2 * MASK_PADDING) * factor, (height + 2 * MASK_PADDING) * factor))


def _outline(painter: QPainter, box: Box, factor: float) -> None:
    x, y, width, height = box
    pen = QPen(OUTLINE_COLOUR)
    pen.setWidthF(max(2.0, 3.0 * min(1.0, factor * 1.5)))
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(QRectF(x * factor - 3, y * factor - 3, width * factor + 5, height * factor + 5))


def scaled(picture: Picture, width: int) -> tuple[QImage, float]:
    """The picture at most `width` pixels wide, masked (and the factor from CSS px to its pixels)."""
    image = picture.image
    if image.width() > width:
        image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    factor = picture.scale * image.width() / picture.image.width()
    if picture.masks:
        painter = QPainter(image)
        try:
            _cover(painter, picture.masks, factor)
        finally:
            painter.end()
    return image, factor


def render_jpeg(picture: Picture, width: int, quality: int, outline: Box | None = None) -> tuple[bytes, int, int]:
    """A trace screenshot: scaled to at most `width`, masked, `outline` drawn; JPEG bytes, width, height."""
    from PySide6.QtCore import QBuffer, QIODevice

    image, factor = scaled(picture, width)
    if outline is not None:
        painter = QPainter(image)
        try:
            _outline(painter, outline, factor)
            if picture.masks:  # the outline never uncovers a mask
                _cover(painter, picture.masks, factor)
        finally:
            painter.end()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "JPEG", quality):
        raise OSError("the screenshot could not be encoded")
    return bytes(buffer.data().data()), image.width(), image.height()


def render_frame(picture: Picture, width: int, height: int) -> bytes:
    """A video frame: the picture fitted into `width` x `height` (black bars), masked; raw RGB24 bytes."""
    frame = QImage(width, height, QImage.Format.Format_RGB888)
    frame.fill(Qt.GlobalColor.black)
    source = picture.image
    fit = min(width / source.width(), height / source.height())
    image, _factor = scaled(picture, max(1, round(source.width() * fit)))
    painter = QPainter(frame)
    try:
        painter.drawImage((width - image.width()) // 2, (height - image.height()) // 2, image)
    finally:
        painter.end()
    data = frame.constBits()
    line = frame.bytesPerLine()
    raw = bytes(data)  # type: ignore[arg-type]
    if line == width * 3:
        return raw
    return b"".join(raw[row * line: row * line + width * 3] for row in range(height))
