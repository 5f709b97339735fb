"""A trace's screenshots as small JPEG files, written by a thread of their own (app/browser/trace.py).

`ShotFiles` takes the page's pixels as Qt holds them (one full-size picture a screenshot) and, on its writer
thread, scales it down (at most `max_width` px wide, bilinear: about a millisecond), draws what is still to
draw on it (the element's outline) and encodes it as a JPEG file with libjpeg-turbo (Pillow: about a
millisecond for an 800 px picture, outside the interpreter's lock), written under a temporary name and
renamed, so a file that exists is whole. Each picture is written as soon as the thread gets to it: what a run
traced so far is on disk even if the app dies before the run ends. The Qt thread only hands pictures over.

ffmpeg (app/browser/framepipe.py) wrote them before: its scaling and JPEG encoding cost ~12 ms of CPU a
picture plus a process per run, which on a two-core machine slowed the traced run itself by a third
(bench/replay.py --traces); this costs about a quarter of that, and no process. Qt's own JPEG writer was
measured too: ~5 ms a picture (no SIMD).
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import queue
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from app.browser.framepipe import Launcher
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

QUALITY = 75  # JPEG quality: text stays readable at 800 px, ~15 KB a picture of a form


def scaled_down(image: QImage, max_width: int) -> QImage:
    """`image` at most `max_width` px wide (bilinear; as it is when it is narrow enough), 32-bit RGB."""
    if image.width() <= max_width:
        return image if image.format() == QImage.Format.Format_RGB32 else \
            image.convertToFormat(QImage.Format.Format_RGB32)
    height = max(1, round(image.height() * max_width / image.width()))
    small = QImage(max_width, height, QImage.Format.Format_RGB32)
    painter = QPainter(small)
    try:
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.drawImage(QRectF(0, 0, max_width, height), image)
    finally:
        painter.end()
    return small


def write_jpeg(image: QImage, path: Path) -> None:
    """`image` (32-bit RGB, as `scaled_down` gives) as a JPEG file at `path`, whole or not at all."""
    # Imported by the first picture written, on the writer's thread: not every start of the app pays for Pillow.
    from PIL import Image, JpegImagePlugin  # noqa: F401 (the JPEG writer, named for the bundle)

    pixels = Image.frombuffer("RGB", (image.width(), image.height()), image.constBits(), "raw", "BGRX",
                              image.bytesPerLine(), 1)
    partial = path.with_name(f".{path.name}.part")
    pixels.save(partial, "JPEG", quality=QUALITY)
    os.replace(partial, path)


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
        self._queue: queue.SimpleQueue[tuple[QImage, Callable[[QImage], QImage] | None, Path] | None] = \
            queue.SimpleQueue()
        self._killed = False
        launcher.start(self._run, name)

    def send(self, image: QImage, finish: Callable[[QImage], QImage] | None, path: Path,
             limit: int | None = None) -> bool:
        """Queue a picture to be written at `path`; `finish` (drawing on a copy) runs on the writer thread, on the
        picture scaled down (at most `max_width` px wide), before it is encoded. False when the writer is too far
        behind (`limit` pictures wait already: not taken)."""
        if self.done.done() or (limit is not None and self._queue.qsize() >= limit):
            return False
        self._queue.put((image, finish, path))
        return True

    def close(self) -> None:
        """No more pictures: `done` once the queued ones are written."""
        self._queue.put(None)

    def kill(self) -> None:
        """Stop writing (what is still queued is left out); `done` soon."""
        self._killed = True
        self.close()

    def _run(self) -> None:
        try:
            self._write_all()
        finally:
            self.done.set_result(set(self._written))

    def _write_all(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                break
            if self._killed or self.error is not None:
                continue
            image, finish, path = item
            try:
                image = scaled_down(image, self.max_width)
                if finish is not None:
                    image = finish(image)
                if not self._written:
                    self.folder.mkdir(parents=True, exist_ok=True)
                write_jpeg(image, path)
                self._written.add(str(path))
            except Exception as exc:  # noqa: BLE001 - told to whoever waits for `done`; nothing more is written
                log.warning("a trace screenshot could not be written to %s: %s", path, exc)
                self.error = exc
