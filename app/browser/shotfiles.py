"""A trace's screenshots as small JPEG files, written by a thread of their own (app/browser/trace.py).

`ShotFiles` takes the page's pixels as Qt holds them (one full-size picture a screenshot) and, on its writer
thread, scales it down (at most `max_width` px wide, the box filter), frames the element a step acted on in red and
encodes it as a JPEG file with libjpeg-turbo, all with Pillow, which scales and encodes outside the interpreter's
lock, written under a temporary name and renamed, so a file that exists is whole. Each picture is written as soon as
the thread gets to it: what a run traced so far is on disk even if the app dies before the run ends. The Qt
thread only hands pictures over. The thread runs below the app's CPU priority, one moment that is two pictures
(a step's after and the next one's before) is scaled once, and a picture that changed in part since the one
before has only the rows showing the change scaled again (`Scaler`: most steps change a field or a box, and the
writer's CPU, ~10 ms a whole picture, slowed the traced run on two cores).

Before: ffmpeg (app/browser/framepipe.py) scaled and encoded them, ~12 ms of CPU a picture plus a process per
run, which on a two-core machine slowed the traced run itself by a third (bench/replay.py --traces); then QPainter
scaled them on this thread (~2.5 ms), but QPainter and QImage.scaled hold the interpreter's lock, and the Qt
thread's Python ran at a fifth of its speed meanwhile; then Pillow decoded Qt's pixels (~7.5 ms at 1280 px) and
scaled them bilinearly (~11 ms): on two cores that CPU, taken while the page is running, slowed the run and its
last picture's wait. Now Pillow maps Qt's pixels without a copy and box-scales them: ~7 ms, plus ~2.5 ms per JPEG.
Qt's own JPEG writer was measured too: ~5 ms a picture, holding the lock.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import queue
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QImage

from app.browser.capture import OUTLINE_COLOR
from app.browser.framepipe import NICENESS, Launcher
from plumbing import loggers

if TYPE_CHECKING:
    import PIL.Image

log = logging.getLogger(loggers.BROWSER)

QUALITY = 75  # JPEG quality: text stays readable at 800 px, ~15 KB a picture of a form
OUTLINE_RGB = OUTLINE_COLOR.getRgb()[:3]  # the element a step acted on, as a proposed repair's
OUTLINE_WIDTH = 4
Frame = tuple[float, float, float, float]  # x, y, width, height in px of the picture as written
# Qt's 32-bit formats whose bytes are B, G, R and an opaque or unused byte (on a little-endian machine)
_BGRX = ((QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32, QImage.Format.Format_ARGB32_Premultiplied)
         if sys.byteorder == "little" else ())


def scaled_down(image: QImage, max_width: int) -> "PIL.Image.Image":
    """The page's picture (32-bit, opaque) as a Pillow RGB image at most `max_width` px wide, made with the
    interpreter's lock released (QPainter and QImage.scaled held it, ~2.5 ms a picture, and the Qt thread waited).

    Qt's pixels are B, G, R, X bytes: Pillow maps them as they are (its RGBX, no copy), scales the four channels
    alike (the box filter: each pixel the mean of the area it covers, ~7 ms against ~11 for bilinear, as legible),
    and puts the channels back in order on the small picture (`_in_order`: its bytes read again as B, G, R, X,
    ~0.5 ms at 800 px; a colour matrix took ~3 ms, splitting and merging the channels as long, holding the lock).
    Reading them as RGB first (Pillow's BGRX raw mode, ~0.8 ms) and scaling three channels was slower in all."""
    return _whole(*_mapped(image), max_width)


def _mapped(image: QImage) -> tuple["PIL.Image.Image", bool]:
    """Qt's pixels as a Pillow RGBX image (no copy: it lives as long as `image`'s pixels), and whether its red and
    blue are swapped."""
    # Imported by the first picture written, on the writer's thread: not every start of the app pays for Pillow.
    from PIL import Image

    swapped = image.format() in _BGRX
    if not swapped:  # (another format, or a big-endian machine: Qt converts it, holding the lock)
        image = image.convertToFormat(QImage.Format.Format_RGBX8888)
    return Image.frombuffer("RGBX", (image.width(), image.height()), image.constBits(), "raw", "RGBX",
                            image.bytesPerLine(), 1), swapped


def _scaled_height(width: int, height: int, max_width: int) -> int:
    return max(1, round(height * max_width / width))


def _resized(mapped: "PIL.Image.Image", max_width: int, rows: tuple[int, int] | None = None) -> "PIL.Image.Image":
    """`mapped` at most `max_width` px wide (the box filter); with `rows` (of a picture wider than that), only
    those rows of the result (first, end), computed exactly as in the whole one."""
    from PIL import Image

    if mapped.width <= max_width:
        return mapped
    height = _scaled_height(mapped.width, mapped.height, max_width)
    first, end = rows if rows is not None else (0, height)
    per_row = mapped.height / height  # (the source box below gives each row the whole picture's filter window)
    return mapped.resize((max_width, end - first), Image.Resampling.BOX,
                         box=(0, first * per_row, mapped.width, end * per_row))


def _whole(mapped: "PIL.Image.Image", swapped: bool, max_width: int) -> "PIL.Image.Image":
    return _in_order(_resized(mapped, max_width), swapped)


def _in_order(pixels: "PIL.Image.Image", swapped: bool) -> "PIL.Image.Image":
    """`pixels` (RGBX, or B, G, R, X when `swapped`) as a new RGB picture, not the Qt picture's own pixels, which go
    with it."""
    from PIL import Image

    if not swapped:
        return pixels.convert("RGB")
    return Image.frombytes("RGB", pixels.size, pixels.tobytes(), "raw", "BGRX")  # (the same pixels as a matrix)


class Scaler:
    """Scales a trace's pictures down (`scaled_down`), one after the other. Most steps change a small part of the
    page (a field filled, a box ticked): a picture the size of the one before is compared with it (~0.8 ms at
    1280 x 800 px; Pillow holds the interpreter's lock while it compares), and only the rows of the small picture
    whose pixels come from what changed are scaled again (the box filter's window of each row is the whole
    picture's: the same pixels, tests/unit/app/browser/test_shotfiles.py), on a copy of the small picture before.
    Scaling a whole picture took ~10 ms of CPU, which on two cores slowed the traced run itself (bench/replay.py
    --traces)."""

    def __init__(self, max_width: int) -> None:
        self.max_width = max_width
        self._last: tuple[int, QImage, PIL.Image.Image, bool, PIL.Image.Image] | None = None  # key, Qt's, mapped, ...

    def scaled(self, image: QImage) -> "PIL.Image.Image":
        last = self._last
        if last is not None and last[0] == image.cacheKey():  # one moment is often two pictures: after, before
            return last[4]
        mapped, swapped = _mapped(image)
        small = None
        if last is not None and last[2].size == mapped.size and last[3] == swapped:
            small = self._changed_part(last[2], last[4], mapped, swapped)
        if small is None:
            small = _whole(mapped, swapped, self.max_width)
        self._last = (image.cacheKey(), image, mapped, swapped, small)
        return small

    def _changed_part(self, before: "PIL.Image.Image", small_before: "PIL.Image.Image", mapped: "PIL.Image.Image",
                      swapped: bool) -> "PIL.Image.Image | None":
        """The small picture before with the rows that show what changed scaled again; None: scale it whole."""
        from PIL import ImageChops

        changed = ImageChops.difference(before, mapped).getbbox()
        if changed is None:
            return small_before
        if mapped.width <= self.max_width:
            return None
        height = _scaled_height(mapped.width, mapped.height, self.max_width)
        per_row = mapped.height / height
        # the rows whose window (per_row source rows) meets the changed ones, and one more each side
        first, end = max(0, int(changed[1] / per_row) - 1), min(height, int(changed[3] / per_row) + 2)
        if (end - first) * 2 > height:
            return None  # most of it changed: as quick whole
        small = small_before.copy()
        small.paste(_in_order(_resized(mapped, self.max_width, (first, end)), swapped), (0, first))
        return small


def write_jpeg(pixels: "PIL.Image.Image", outline: Frame | None, path: Path) -> None:
    """The picture, with `outline` (a rectangle of its px) framed in red on a copy, as a JPEG file at `path`, whole
    or not at all."""
    from PIL import ImageDraw, JpegImagePlugin  # noqa: F401 (the JPEG writer, named for the bundle)

    if outline is not None:
        pixels = pixels.copy()
        x, y, width, height = outline
        ImageDraw.Draw(pixels).rectangle((x, y, x + width, y + height), outline=OUTLINE_RGB, width=OUTLINE_WIDTH)
    partial = path.with_name(f".{path.name}.part")
    pixels.save(partial, "JPEG", quality=QUALITY)
    os.replace(partial, path)


def outline_frame(box: tuple[float, float, float, float], scale: float) -> Frame:
    """Where the red frame around `box` (CSS px) goes in a picture written at `scale` px per CSS px: its
    `OUTLINE_WIDTH` px just outside the element (1 px apart), so the element itself is not painted over."""
    x, y, width, height = (value * scale for value in box)
    pad = OUTLINE_WIDTH + 1
    return (x - pad, y - pad, width + 2 * pad - 1, height + 2 * pad - 1)


class ShotFiles:
    """Screenshots into `folder` as JPEG files. `send`, `close` and `kill` on the Qt thread (none of them
    waits); `done` once the thread has stopped, with the paths of the files it wrote; `error`: why it stopped
    writing early (an OSError: a full disk, a folder gone), else None."""

    def __init__(self, folder: Path, max_width: int, launcher: Launcher, *, name: str = "browserpilot-shots") -> None:
        self.folder = folder
        self.max_width = max_width
        self.error: Exception | None = None
        self.done: concurrent.futures.Future[set[str]] = concurrent.futures.Future()
        self._written: set[str] = set()
        self._queue: queue.SimpleQueue[tuple[QImage, Frame | None, Path] | None] = queue.SimpleQueue()
        self._killed = False
        launcher.start(self._run, name)

    def send(self, image: QImage, outline: Frame | None, path: Path, limit: int | None = None) -> bool:
        """Queue a picture to be written at `path`, scaled down (at most `max_width` px wide), with `outline` (px
        of the picture as written: `outline_frame`) framed in red. False when the writer is too far behind
        (`limit` pictures wait already: not taken)."""
        if self.done.done() or (limit is not None and self._queue.qsize() >= limit):
            return False
        self._queue.put((image, outline, path))
        return True

    def close(self) -> None:
        """No more pictures: `done` once the queued ones are written."""
        self._queue.put(None)

    def kill(self) -> None:
        """Stop writing (what is still queued is left out); `done` soon."""
        self._killed = True
        self.close()

    def _run(self) -> None:
        try:  # below the app's threads (Linux: per thread), as the video's encoder: the run keeps its pace
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)
        except (OSError, AttributeError):
            pass
        try:
            self._write_all()
        finally:
            self.done.set_result(set(self._written))

    def _write_all(self) -> None:
        scaler = Scaler(self.max_width)
        while True:
            item = self._queue.get()
            if item is None:
                break
            if self._killed or self.error is not None:
                continue
            image, outline, path = item
            try:
                if not self._written:
                    self.folder.mkdir(parents=True, exist_ok=True)
                write_jpeg(scaler.scaled(image), outline, path)
                self._written.add(str(path))
            except Exception as exc:  # noqa: BLE001 - told to whoever waits for `done`; nothing more is written
                log.warning("a trace screenshot could not be written to %s: %s", path, exc)
                self.error = exc
