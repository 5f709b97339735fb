"""A video of a tab: its pictures a few times a second, encoded by ffmpeg as they come, with chapters.

- A Qt timer takes a picture of the tab (app/browser/tabpictures.py: no wait for a new frame, secrets masked)
  `fps` times a second and hands it to a `FramePipe` (app/browser/framepipe.py): ffmpeg, at a lower CPU priority
  than the app, scales it (at most `MAX_WIDTH` wide) and encodes VP9 in WebM (else VP8, else H.264 or MPEG-4 in
  MP4, whichever the build has). Only a picture that differs from the last one is sent, with its place in time;
  the writer repeats the frame before it up to there (and the last one up to the end), so the video keeps the
  wall clock and lasts as long as it recorded, and a still page costs ffmpeg nothing new. The source is asked for the
  tab at every tick (a run that follows a click into a new tab is filmed in that tab from then on); while it
  has none, the last picture repeats.
- Chapters (`chapter(title)`: a run's nodes) are put into the file after it is written, by a remux on a worker
  thread (no re-encoding) that replaces the file when done; the file plays meanwhile, without them.
- `crop`: only that part of the page (CSS px of the viewport): `page_record_video` films a <video> element.
Nothing here blocks the Qt thread.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QImage

from app.browser.framepipe import NICENESS, FramePipe, Launcher, VideoError, find_encoder, video_output
from app.browser.streamsave import find_ffmpeg
from app.browser.tabpictures import Box, Picture, TabPictures, masked, same
from plumbing import loggers
from plumbing.savemanager import in_thread
from workflows.results_devtools import VideoFile

log = logging.getLogger(loggers.BROWSER)

FPS = 5
MAX_WIDTH = 960
MAX_SECONDS = 2 * 60 * 60  # a recording nobody stops ends by itself

__all__ = ["FPS", "TabVideo", "VideoError", "VideoResult", "find_encoder", "video_file"]


def chapters_text(chapters: list[tuple[float, str]], end: float) -> str:
    """An ffmetadata document with one chapter per (start second, title), each until the next (or `end`)."""
    def escape(text: str) -> str:
        return "".join("\\" + ch if ch in "=;#\\\n" else ch for ch in text)

    # Each chapter starts at least 1 ms after the one before (ffmpeg drops a chapter that starts with another:
    # a run's start node and its first node begin within the same millisecond).
    starts: list[int] = []
    for start, _title in chapters:
        starts.append(max(int(start * 1000), starts[-1] + 1 if starts else 0))
    lines = [";FFMETADATA1"]
    for index, (_start, title) in enumerate(chapters):
        stop = starts[index + 1] if index + 1 < len(chapters) else max(int(end * 1000), starts[index] + 1)
        lines += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={starts[index]}", f"END={stop}", f"title={escape(title)}"]
    return "\n".join(lines) + "\n"


def add_chapters(path: Path, chapters: list[tuple[float, str]], seconds: float) -> None:
    """Put the chapters into the video file (a remux into a temporary file that then replaces it); blocks: call
    it off the Qt thread. A failure leaves the file as it was."""
    ffmpeg = find_ffmpeg()
    if not ffmpeg or not chapters:
        return
    meta = path.with_name(f".{path.name}.chapters.txt")
    remuxed = path.with_name(f".{path.name}.chapters{path.suffix}")
    try:
        meta.write_text(chapters_text(chapters, seconds), encoding="utf-8")
        remux = subprocess.Popen([ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-i", str(path), "-i", str(meta),
                                  "-map", "0", "-map_metadata", "1", "-map_chapters", "1", "-c", "copy", str(remuxed)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:  # below the app, as the encoder: starting ffmpeg costs ~0.1 s of CPU, at every run's end
            os.setpriority(os.PRIO_PROCESS, remux.pid, NICENESS)
        except OSError:
            pass
        try:
            _out, errors = remux.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            remux.kill()
            _out, errors = remux.communicate()
        if remux.returncode == 0 and path.exists():
            os.replace(remuxed, path)
        else:
            log.warning("could not put the chapters into %s: %s", path, errors.strip())
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("could not put the chapters into %s: %s", path, exc)
    finally:
        meta.unlink(missing_ok=True)
        remuxed.unlink(missing_ok=True)


@dataclass
class VideoResult:
    path: str
    seconds: float
    frames: int
    bytes: int
    codec: str


class TabVideo(QObject):
    """One recording. `start()`, `chapter(title)`, then `stop(keep)` (each on the Qt thread)."""

    def __init__(self, source: Callable[[], TabPictures | None], target: Path, launcher: Launcher, *,
                 fps: int = FPS, crop: Box | None = None, max_seconds: float = MAX_SECONDS) -> None:
        super().__init__()
        self.source = source
        self.launcher = launcher
        self.target = target      # the file's path without its suffix (the encoder gives it)
        self.fps = fps
        self.crop = crop
        self.max_seconds = max_seconds
        self.chapters: list[tuple[float, str]] = []
        self.started = 0.0
        self.running = False
        self._pipe: FramePipe | None = None
        self._sent = 0            # the index after the last frame handed to the pipe (in the video's time)
        self._last_image: QImage | None = None  # the last frame handed to the pipe
        self._timer = QTimer(self)
        self._timer.setInterval(max(20, int(1000 / fps)))
        self._timer.timeout.connect(self._tick)
        self._busy = False
        self._keep = True
        self._stopping: asyncio.Future[VideoResult | None] | None = None

    def start(self) -> None:
        """Start filming now (the pipe, and ffmpeg, with the first picture)."""
        self.started = time.monotonic()
        self.running = True
        self._timer.start()
        self._tick()

    def elapsed(self) -> float:
        return time.monotonic() - self.started if self.started else 0.0

    def chapter(self, title: str) -> None:
        if self.running:
            self.chapters.append((self.elapsed(), title))

    async def stop(self, keep: bool = True) -> VideoResult | None:
        """Stop filming; the file when `keep` (deleted otherwise). Called again, returns the same result."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop(keep))
        return await asyncio.shield(self._stopping)

    async def _stop(self, keep: bool) -> VideoResult | None:
        self._timer.stop()
        await self._last_look()
        self.running = False
        pipe = self._pipe
        if pipe is None:
            return None
        self._keep = keep
        pipe.close(pad_to=max(1, round(self.elapsed() * self.fps)))  # the last picture until now
        result: VideoResult | None = await asyncio.wrap_future(pipe.done)
        if pipe.dropped:
            log.info("video %s: %d frame(s) dropped (the encoder was behind)", self.target, pipe.dropped)
        return result

    def _finished(self, pipe: FramePipe, frames: int) -> VideoResult | None:
        """(On the writer thread, once ffmpeg has written the file.) The result; the file removed when it is not
        kept; its chapters put in meanwhile, on a thread of their own."""
        assert pipe.encoder is not None
        path = self.target.with_suffix(pipe.encoder.suffix)
        if not self._keep:
            path.unlink(missing_ok=True)
            return None
        seconds = frames / self.fps
        if self.chapters:
            chapters = list(self.chapters)
            threading.Thread(target=add_chapters, args=(path, chapters, seconds), name="browserpilot-video",
                             daemon=True).start()
        return VideoResult(str(path), seconds, frames, path.stat().st_size, pipe.encoder.codec)

    async def _last_look(self) -> None:
        """The page as it is at the end, in the last frame (a tick may have found its slot taken, or been busy)."""
        while self._busy:
            await asyncio.sleep(0.01)
        pictures = self.source()
        if pictures is None:
            return
        picture = await pictures.picture()
        if picture is None or self._pipe is None:
            return
        image = masked(self._cropped(picture))
        if same(self._last_image, image):
            return
        at = max(self._sent, int(self.elapsed() * self.fps))
        if not self._pipe.send(image, at=at):  # the writer is behind: wait for room, off the Qt thread
            await in_thread(self._pipe.send, image, None, at, 5.0, name="browserpilot-video")
        self._last_image = image
        self._sent = at + 1

    # -- the Qt thread: pictures ---------------------------------------------------------------------------
    def _tick(self) -> None:
        if not self.running:
            return
        if self.elapsed() > self.max_seconds:
            log.info("a video reached %d s and stops by itself: %s", self.max_seconds, self.target)
            asyncio.ensure_future(self.stop(keep=True))  # its file is kept; stop() again returns it
            return
        if self._busy:
            return
        pictures = self.source()
        if pictures is None:
            self._send(None)
            return
        if pictures.masking:
            self._busy = True
            asyncio.ensure_future(self._take_masked(pictures))
            return
        self._send(pictures.grab())

    async def _take_masked(self, pictures: TabPictures) -> None:
        try:
            self._send(await pictures.picture())
        finally:
            self._busy = False

    def _send(self, picture: Picture | None) -> None:
        """Hand a picture to the pipe (made with the first one) at its place in time, unless it shows what the
        last one did (the writer repeats that one up to the next)."""
        if not self.running or picture is None:
            return
        index = int(self.elapsed() * self.fps)
        if index < self._sent:  # this frame's slot is taken: the next tick sends what the page shows then
            return
        picture = self._cropped(picture)
        image = masked(picture)
        if same(self._last_image, image):
            return
        if self._pipe is None:
            pipe = self._pipe = FramePipe(
                image.width(), image.height(), self.fps,
                lambda encoder: video_output(encoder, self.target.with_suffix(encoder.suffix), MAX_WIDTH),
                self.target.parent, self.launcher, then=lambda frames: self._finished(pipe, frames),
                name="browserpilot-video")
        if self._pipe.send(image, at=index):
            self._last_image = image
            self._sent = index + 1

    def _cropped(self, picture: Picture) -> Picture:
        if self.crop is None:
            return picture
        x, y, width, height = (round(v * picture.scale) for v in self.crop)
        image = picture.image.copy(x, y, max(2, width), max(2, height))
        masks = [(mx - self.crop[0], my - self.crop[1], mw, mh) for mx, my, mw, mh in picture.masks]
        return Picture(image, picture.scale, masks)


def video_file(result: VideoResult) -> VideoFile:
    """The video as operations report it (seconds to a tenth)."""
    return VideoFile(path=result.path, seconds=round(result.seconds, 1), frames=result.frames, bytes=result.bytes,
                     codec=result.codec)
