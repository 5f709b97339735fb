"""Screenshots (viewport, full page, a clip such as an element's box) and PDFs of a tab.

Screenshots grab the view's widget (`QWidget.grab()`), which holds the page's pixels once Chromium has
delivered a frame, offscreen too (software compositing). Before grabbing, `settle_frame` puts a fence in
the page (a tiny square of a random colour) and waits until Qt's picture has shown it and lost it again,
so the picture shows the page as it is now, not a frame from before the last change or resize. Waiting
for animation frames alone is not enough: a big frame is still being rasterised when the next starts, and
after a resize Qt shows the old frame for a while. A full-page shot temporarily resizes the view to the
document's size (capped at `MAX_FULL_PAGE_PX` per side), grabs, and puts the view and the scroll position
back. Clips are in CSS pixels (of the viewport, or of the document for a full-page shot) and scaled by
the page zoom and the device pixel ratio. PNGs are encoded and written on a worker thread, PDFs written there.

PDFs come from `QWebEnginePage.printToPdf` with a `QPageLayout` (paper, orientation, margins). Element
backgrounds follow `background` (the `PrintElementBackgrounds` setting, restored afterwards). With
`header_footer`, a temporary style sheet puts the title and the page number (`n / total`) at the top and
the URL at the bottom of every page, in CSS `@page` margin boxes (Chromium ≥ 131). The sheet is a
constructed, adopted sheet (the page's Content-Security-Policy does not block it, unlike a <style>
element), added from our isolated world and removed afterwards.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import math
import os
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import shiboken6
from PySide6.QtCore import QByteArray, QMarginsF, QRect, QRectF
from PySide6.QtGui import QColor, QImage, QPageLayout, QPageSize, QPainter, QPen, QPixmap
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineSettings
from PySide6.QtWebEngineWidgets import QWebEngineView

from app.browser.control import TabControl
from app.browser.health import PageHealth
from app.browser.js import APP_WORLD, PageError, PageTimeout, ScriptError, run_js, run_js_async
from app.browser.windowless import grabbing, is_windowless
from plumbing import loggers
from plumbing.savemanager import in_thread

log = logging.getLogger(loggers.BROWSER)

Paper = Literal["A4", "Letter", "Legal", "A3"]
Clip = tuple[float, float, float, float]  # x, y, width, height in CSS pixels

MAX_FULL_PAGE_PX = 16384
PAPERS: dict[str, QPageSize.PageSizeId] = {
    "A4": QPageSize.PageSizeId.A4,
    "Letter": QPageSize.PageSizeId.Letter,
    "Legal": QPageSize.PageSizeId.Legal,
    "A3": QPageSize.PageSizeId.A3,
}
MARGINS_MM = QMarginsF(10, 10, 10, 10)
HEADER_FOOTER_MARGINS_MM = QMarginsF(10, 16, 10, 16)


class CaptureError(PageError):
    """A screenshot or PDF could not be made."""

    code = "capture_failed"


# -- frames --------------------------------------------------------------------------------------------
_MARKER_ID = "bp-frame-fence"
FENCE_WAIT = 1.5  # seconds to see the fence before falling back to waiting two animation frames


def _marker_script(rgb: tuple[int, int, int]) -> str:
    return f"""(() => {{
  document.getElementById({json.dumps(_MARKER_ID)})?.remove();
  const m = document.createElement('div');
  m.id = {json.dumps(_MARKER_ID)};
  Object.assign(m.style, {{position: 'fixed', right: '0px', bottom: '0px', left: 'auto', top: 'auto',
    width: '4px', height: '4px', background: 'rgb({rgb[0]}, {rgb[1]}, {rgb[2]})', zIndex: '2147483647',
    pointerEvents: 'none', margin: '0', padding: '0', border: '0', opacity: '1', transform: 'none',
    filter: 'none', display: 'block', visibility: 'visible'}});
  document.documentElement.appendChild(m);
  const r = m.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
}})()"""


def _grab(view: QWebEngineView, rect: QRect | None = None) -> QPixmap:
    """The page's pixels only: the control overlay and the handoff banner are left out. `rect` is in the
    page's coordinates (CSS px times zoom)."""
    control = TabControl.of(view)
    with grabbing(view):
        if control is not None:
            return control.grab_page(rect)
        return view.grab(rect) if rect is not None else view.grab()


def _shows(view: QWebEngineView, point: QRect, rgb: tuple[int, int, int]) -> bool:
    image = _grab(view, point).toImage()
    if image.isNull() or image.width() == 0 or image.height() == 0:
        return False  # the point is outside the page area (a blank tab has no picture yet)
    color = image.pixelColor(0, 0)
    return all(abs(a - b) <= 3 for a, b in zip((color.red(), color.green(), color.blue()), rgb))


async def settle_frame(view: QWebEngineView, timeout: float = 5.0) -> None:
    """Wait until the picture Qt holds shows the page as it is now.

    Waiting for animation frames in the page is not enough (a big frame is still being rasterised when
    the next one starts, and after a resize Qt shows the old frame for a while), so this puts a fence
    in the page: a 4 px square of a random colour in the bottom-right corner. Once Qt's picture shows
    it, every change made before it is in the picture. The square is then removed; once Qt's picture no
    longer shows it, the picture is the page as it was at the removal, without the square. Falls back
    to two animation frames if the square cannot be seen (covered by a top-layer dialog, a filter on
    the whole page, not an HTML document, ...)."""
    page = view.page()
    deadline = time.monotonic() + timeout
    if await _fence(view, deadline):
        return
    log.info("no frame fence in %s; waiting two animation frames instead", page.url().toString())
    await run_js_async(page, "await Promise.race([new Promise((done) => requestAnimationFrame(() => "
                             "requestAnimationFrame(done))), new Promise((done) => setTimeout(done, 500))]);"
                             "return true;", timeout=max(0.5, deadline - time.monotonic()), world=APP_WORLD)


async def _fence(view: QWebEngineView, deadline: float) -> bool:
    """The fence of `settle_frame`; False when it could not be used."""
    page = view.page()
    rgb = (secrets.randbelow(200) + 28, secrets.randbelow(200) + 28, secrets.randbelow(200) + 28)
    try:
        center = await run_js(page, _marker_script(rgb), timeout=max(0.1, deadline - time.monotonic()))
    except ScriptError:  # not an HTML document, ...
        return False
    zoom = page.zoomFactor()
    point = QRect(int(center[0] * zoom), int(center[1] * zoom), 1, 1)
    try:
        shown_by = min(deadline, time.monotonic() + FENCE_WAIT)
        while not _shows(view, point, rgb):
            if time.monotonic() > shown_by:
                return False
            await asyncio.sleep(0.005)
    finally:
        page.runJavaScript(f"document.getElementById({json.dumps(_MARKER_ID)})?.remove()", APP_WORLD)
    gone_by = min(deadline, time.monotonic() + FENCE_WAIT)
    while _shows(view, point, rgb):
        if time.monotonic() > gone_by:  # the page under the square has its colour, or stopped painting
            return False
        await asyncio.sleep(0.005)
    return True


def _usable(view: QWebEngineView) -> QWebEnginePage:
    if not shiboken6.isValid(view):
        raise CaptureError("the tab was closed")
    page = view.page()
    PageHealth.of(page).check()
    if not view.isVisible() and not is_windowless(view):  # a windowless tab renders on demand
        raise CaptureError("the tab is not shown (a background tab or a hidden window); activate it first")
    return page


PNG_QUALITY = 50  # Qt's PNG "quality" is the inverse of zlib effort: 50 is ~25% faster than the default, ~7% bigger


def _write_png(image: QImage, path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(3)}.tmp")
    if not image.save(str(temporary), "PNG", PNG_QUALITY):
        temporary.unlink(missing_ok=True)
        raise CaptureError(f"could not write the screenshot to {path}")
    os.replace(temporary, path)
    return path.stat().st_size


_ENCODER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="browserpilot-png")


async def _save_image(image: QImage, path: Path) -> int:
    """Encode and write the PNG on a worker thread (a full page takes a few hundred ms to encode); a
    plain Python pool, not the loop's default executor (qasync's QThreads outlive the loop)."""
    return await asyncio.wrap_future(_ENCODER.submit(_write_png, image, path))


def _crop(image: QImage, clip: Clip, scale: float, what: str) -> QImage:
    x, y, width, height = clip
    if width <= 0 or height <= 0:
        raise CaptureError(f"the area to capture is empty ({width:g}×{height:g} CSS px)")
    left, top = math.floor(x * scale), math.floor(y * scale)
    right, bottom = math.ceil((x + width) * scale), math.ceil((y + height) * scale)
    area = QRect(left, top, right - left, bottom - top).intersected(image.rect())
    if area.isEmpty():
        raise CaptureError(f"the area to capture ({x:g}, {y:g}, {width:g}×{height:g} CSS px) is outside the {what}")
    return image.copy(area)


OUTLINE_COLOR = QColor(220, 38, 38)  # the red of a proposed repair's element


def _outlined(image: QImage, box: Clip, scale: float) -> QImage:
    """A copy of `image` with a 3 px red frame just outside `box` (CSS px, scaled to the image's pixels)."""
    x, y, width, height = box
    framed = image.convertToFormat(QImage.Format.Format_ARGB32)
    painter = QPainter(framed)
    try:
        pen = QPen(OUTLINE_COLOR)
        pen.setWidth(3)
        painter.setPen(pen)
        painter.drawRect(QRectF(x * scale - 3, y * scale - 3, width * scale + 5, height * scale + 5))
    finally:
        painter.end()
    return framed


_DOCUMENT_SIZE = """(() => {
  const d = document.documentElement, b = document.body;
  return {width: Math.max(d.scrollWidth, b ? b.scrollWidth : 0, d.clientWidth),
          height: Math.max(d.scrollHeight, b ? b.scrollHeight : 0, d.clientHeight),
          x: scrollX, y: scrollY, innerWidth: innerWidth, innerHeight: innerHeight};
})()"""


async def screenshot(view: QWebEngineView, path: str | os.PathLike[str], full_page: bool = False,
                     clip: Clip | None = None, timeout: float = 15.0, outline: Clip | None = None) -> dict[str, Any]:
    """Save a PNG of the tab: the viewport, or the whole document (`full_page`), optionally cut to
    `clip` = (x, y, width, height) in CSS px (viewport coordinates; document coordinates with
    `full_page`), or with the box `outline` (viewport coordinates) drawn around in red. Returns
    `{path, width, height, bytes}`; `truncated` when the page was taller or wider than `MAX_FULL_PAGE_PX`."""
    page = _usable(view)
    health = PageHealth.of(page)
    target = Path(path).expanduser().resolve()
    zoom = page.zoomFactor()
    truncated = False
    if full_page:
        image, truncated = await health.guard(_full_page_image(view, zoom, timeout))
    else:
        await health.guard(settle_frame(view, timeout=timeout))
        image = _grab(view).toImage()
    if image.isNull() or image.width() == 0:
        raise CaptureError("the tab has no picture to capture (its view has no size)")
    if clip is not None:
        image = _crop(image, clip, zoom * image.devicePixelRatio(), "page" if full_page else "viewport")
    if outline is not None and not full_page:
        image = _outlined(image, outline, zoom * image.devicePixelRatio())
    size = await _save_image(image, target)
    result: dict[str, Any] = {"path": str(target), "width": image.width(), "height": image.height(), "bytes": size}
    if truncated:
        result["truncated"] = True
    return result


async def _full_page_image(view: QWebEngineView, zoom: float, timeout: float) -> tuple[QImage, bool]:
    page = view.page()
    doc = await run_js(page, _DOCUMENT_SIZE, timeout=timeout)
    original = view.geometry()
    width = max(original.width(), math.ceil(doc["width"] * zoom))
    height = max(original.height(), math.ceil(doc["height"] * zoom))
    truncated = width > MAX_FULL_PAGE_PX or height > MAX_FULL_PAGE_PX
    width, height = min(width, MAX_FULL_PAGE_PX), min(height, MAX_FULL_PAGE_PX)
    if (width, height) == (original.width(), original.height()):
        await settle_frame(view, timeout=timeout)
        return _grab(view).toImage(), truncated
    try:
        view.resize(width, height)
        deadline = time.monotonic() + timeout
        want = (math.floor(width / zoom), math.floor(height / zoom))
        while True:
            inner = await run_js(page, "[innerWidth, innerHeight]", timeout=max(0.1, deadline - time.monotonic()))
            if abs(inner[0] - want[0]) <= 1 and abs(inner[1] - want[1]) <= 1:
                break
            if time.monotonic() > deadline:
                raise PageTimeout(f"the page did not take the full-page size within {timeout:g} s")
            await asyncio.sleep(0.01)
        await settle_frame(view, timeout=max(0.1, deadline - time.monotonic()))
        image = _grab(view).toImage()
    finally:
        if shiboken6.isValid(view):
            view.setGeometry(original)
    await _restore_scroll(page, original.width() / zoom, original.height() / zoom, doc["x"], doc["y"])
    return image, truncated


async def _restore_scroll(page: QWebEnginePage, width: float, height: float, x: float, y: float,
                          timeout: float = 2.0) -> None:
    """Scroll back where the page was, once it has its normal size again (before, it cannot scroll)."""
    if PageHealth.of(page).is_crashed:
        return
    script = (f"(innerWidth <= {math.floor(width) + 1} && innerHeight <= {math.floor(height) + 1}) ? "
              f"(window.scrollTo({float(x)}, {float(y)}), true) : false")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await run_js(page, script, timeout=timeout):
            return
        await asyncio.sleep(0.01)
    log.warning("could not restore the scroll position of %s after a full-page screenshot", page.url().toString())


# -- PDF -----------------------------------------------------------------------------------------------
def _css_string(text: str, limit: int = 160) -> str:
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(ch if ch.isprintable() else f"\\{ord(ch):x} " for ch in escaped) + '"'


def header_footer_css(title: str, url: str) -> str:
    """`@page` margin boxes: title top left, page `n / total` top right, URL bottom left."""
    style = "font: 8pt/1.2 sans-serif; color: #444; white-space: nowrap; overflow: hidden;"
    return ("@page {"
            f" @top-left {{ content: {_css_string(title)}; {style} }}"
            f" @top-right {{ content: counter(page) \" / \" counter(pages); {style} }}"
            f" @bottom-left {{ content: {_css_string(url, 200)}; {style} }}"
            " }")


# A constructed, adopted style sheet (from our isolated world, kept there by id): unlike a <style> element,
# the page's Content-Security-Policy (style-src) does not block it.
_ADD_SHEET = """(() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(%(css)s);
  (window.__bpSheets = window.__bpSheets || {})[%(id)s] = sheet;
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return true;
})()"""
_REMOVE_SHEET = """(() => {
  const id = %(id)s, sheet = (window.__bpSheets || {})[id];
  if (sheet) document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
  delete (window.__bpSheets || {})[id];
})()"""


def page_layout(paper: Paper, landscape: bool, margins_mm: QMarginsF = MARGINS_MM) -> QPageLayout:
    if paper not in PAPERS:
        raise CaptureError(f"unknown paper {paper!r}; use one of {', '.join(PAPERS)}")
    orientation = QPageLayout.Orientation.Landscape if landscape else QPageLayout.Orientation.Portrait
    return QPageLayout(QPageSize(PAPERS[paper]), orientation, margins_mm, QPageLayout.Unit.Millimeter)


def _pdf_lock(page: QWebEnginePage) -> asyncio.Lock:
    lock = getattr(page, "_bp_pdf_lock", None)
    if lock is None:
        lock = asyncio.Lock()
        setattr(page, "_bp_pdf_lock", lock)
    return lock


async def _print(page: QWebEnginePage, layout: QPageLayout, timeout: float) -> bytes:
    future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    def deliver(data: QByteArray) -> None:
        if not future.done():
            future.set_result(bytes(data.data()))

    page.printToPdf(deliver, layout)
    try:
        return await asyncio.wait_for(future, timeout)
    except asyncio.TimeoutError:
        raise PageTimeout(f"the page was not printed within {timeout:g} s") from None


def count_pdf_pages(data: bytes) -> int | None:
    from pypdf import PdfReader  # here, not at the top: pypdf (with cryptography) is ~0.4 s of every start-up

    try:
        return len(PdfReader(io.BytesIO(data)).pages)
    except Exception:  # noqa: BLE001 - a count is a nicety; the PDF itself is what matters
        return None


async def pdf(page: QWebEnginePage, path: str | os.PathLike[str], paper: Paper = "A4", landscape: bool = False,
              background: bool = True, header_footer: bool = False, timeout: float = 60.0) -> dict[str, Any]:
    """Print the page to a PDF file. Returns `{path, bytes, pages}` (`pages` may be None if unknown)."""
    health = PageHealth.of(page)
    health.check()
    target = Path(path).expanduser().resolve()
    layout = page_layout(paper, landscape, HEADER_FOOTER_MARGINS_MM if header_footer else MARGINS_MM)
    settings = page.settings()
    attribute = QWebEngineSettings.WebAttribute.PrintElementBackgrounds
    style_id = f"bp-print-{secrets.token_hex(4)}"
    async with _pdf_lock(page):
        had_background = settings.testAttribute(attribute)
        settings.setAttribute(attribute, background)
        injected = False
        try:
            if header_footer:
                css = header_footer_css(page.title() or page.url().toString(), page.url().toString())
                script = _ADD_SHEET % {"id": json.dumps(style_id), "css": json.dumps(css)}
                injected = await health.guard(run_js(page, script, timeout=min(timeout, 10.0)))
            data = await health.guard(_print(page, layout, timeout))
        finally:
            if shiboken6.isValid(page):
                settings.setAttribute(attribute, had_background)
                if injected and not health.is_crashed:
                    page.runJavaScript(_REMOVE_SHEET % {"id": json.dumps(style_id)}, APP_WORLD)
    if not data:
        raise CaptureError("the page could not be printed to PDF (the renderer returned nothing)")
    return await in_thread(_write_pdf, target, data, name="browserpilot-pdf")


def _write_pdf(target: Path, data: bytes) -> dict[str, Any]:
    """(On a worker thread.) Write the PDF and count its pages (parsing it takes a while too)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(3)}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)
    return {"path": str(target), "bytes": len(data), "pages": count_pdf_pages(data)}
