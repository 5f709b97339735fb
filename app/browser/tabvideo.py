"""A video of a tab: its pictures a few times a second, encoded by ffmpeg as they come, with chapters.

- The ffmpeg the app ships (`streamsave.find_ffmpeg`: the bundle's static build, else the system's) encodes VP9 in
  WebM (`libvpx-vp9`, real-time settings), else VP8, else H.264 or MPEG-4 in MP4, whichever the build has; it
  runs at a lower CPU priority than the app, so a run being filmed keeps its pace.
- Frames: a Qt timer takes a picture of the tab (app/browser/tabpictures.py: no wait for a new frame, secrets
  masked) `fps` times a second; a writer thread scales it into the video's size (set by the first picture, at
  most `MAX_WIDTH` wide; a later picture of another size is fitted with bars) and pipes it to ffmpeg. The video
  keeps the wall clock: a frame that is late or missing repeats the previous one, so the video lasts as long
  as it recorded. The source is asked for the tab at every tick (a run that follows a click into a new tab is
  filmed in that tab from then on); while it has none, the last frame repeats.
- Chapters (`chapter(title)`: a run's nodes) are written into the file when it stops (a remux, no re-encoding).
- `crop`: only that part of the page (CSS px of the viewport): `page_record_video` films a <video> element.
Nothing here blocks the Qt thread: ffmpeg is found, fed, waited for and remuxed on worker threads.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import os
import queue
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer

from app.browser.streamsave import find_ffmpeg
from app.browser.tabpictures import Box, Picture, TabPictures, render_frame
from envs import loggers
from envs.savemanager import in_thread
from workflows.ports import PageError

log = logging.getLogger(loggers.BROWSER)

FPS = 5
MAX_WIDTH = 960
MAX_SECONDS = 2 * 60 * 60  # a recording nobody stops ends by itself
QUEUE_FRAMES = 4 * FPS     # frames waiting for the writer; beyond, a picture is skipped (the last one repeats)


class VideoError(PageError):
    """A video cannot be recorded (no ffmpeg, no encoder, ffmpeg failed)."""

    code = "video_failed"


@dataclass(frozen=True)
class Encoder:
    codec: str
    suffix: str
    options: tuple[str, ...]


ENCODERS = (
    Encoder("libvpx-vp9", ".webm", ("-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-crf", "40",
                                    "-b:v", "0", "-threads", "1")),
    Encoder("libvpx", ".webm", ("-deadline", "realtime", "-cpu-used", "8", "-crf", "20", "-b:v", "1M",
                                "-threads", "1")),
    Encoder("libx264", ".mp4", ("-preset", "ultrafast", "-crf", "30", "-threads", "1", "-movflags", "+faststart")),
    Encoder("mpeg4", ".mp4", ("-q:v", "8", "-threads", "1")),
)


@functools.lru_cache(maxsize=4)
def _encoders_of(ffmpeg: str) -> str:
    done = subprocess.run([ffmpeg, "-hide_banner", "-encoders"], capture_output=True, text=True, timeout=30)
    return done.stdout


def find_encoder() -> tuple[str, Encoder]:
    """ffmpeg and the best encoder it has (blocks: call it on a worker thread); VideoError otherwise."""
    ffmpeg = find_ffmpeg()
    if not ffmpeg:
        raise VideoError("ffmpeg is not installed: it is needed to record a video (the app's bundle ships one; "
                         "otherwise install the system's ffmpeg package)")
    try:
        listed = _encoders_of(ffmpeg)
    except (OSError, subprocess.SubprocessError) as exc:
        raise VideoError(f"ffmpeg ({ffmpeg}) does not run: {exc}") from None
    names = {line.split()[1] for line in listed.splitlines() if len(line.split()) > 1 and line.startswith(" V")}
    for encoder in ENCODERS:
        if encoder.codec in names:
            return ffmpeg, encoder
    raise VideoError(f"ffmpeg ({ffmpeg}) has none of the video encoders {', '.join(e.codec for e in ENCODERS)}")


def even(value: float) -> int:
    return max(2, int(value) // 2 * 2)


def chapters_text(chapters: list[tuple[float, str]], end: float) -> str:
    """An ffmetadata document with one chapter per (start second, title), each until the next (or `end`)."""
    def escape(text: str) -> str:
        return "".join("\\" + ch if ch in "=;#\\\n" else ch for ch in text)

    lines = [";FFMETADATA1"]
    for index, (start, title) in enumerate(chapters):
        stop = chapters[index + 1][0] if index + 1 < len(chapters) else end
        lines += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={int(start * 1000)}",
                  f"END={max(int(start * 1000) + 1, int(stop * 1000))}", f"title={escape(title)}"]
    return "\n".join(lines) + "\n"


@dataclass
class VideoResult:
    path: str
    seconds: float
    frames: int
    bytes: int
    codec: str


class TabVideo(QObject):
    """One recording. `start()`, `chapter(title)`, then `stop(keep)` (each on the Qt thread)."""

    def __init__(self, source: Callable[[], TabPictures | None], target: Path, *, fps: int = FPS,
                 crop: Box | None = None, max_seconds: float = MAX_SECONDS) -> None:
        super().__init__()
        self.source = source
        self.target = target      # the file's path without its suffix (the encoder decides it)
        self.fps = fps
        self.crop = crop
        self.max_seconds = max_seconds
        self.chapters: list[tuple[float, str]] = []
        self.started = 0.0
        self.running = False
        self._queue: queue.Queue[tuple[int, Picture] | None] = queue.Queue(maxsize=QUEUE_FRAMES)
        self._done: concurrent.futures.Future[VideoResult | None] = concurrent.futures.Future()
        self._timer = QTimer(self)
        self._timer.setInterval(max(20, int(1000 / fps)))
        self._timer.timeout.connect(self._tick)
        self._busy = False
        self._skipped = 0
        self._end_frame = 0
        self._keep = True

    def start(self) -> None:
        """Start filming now; the writer thread finds ffmpeg meanwhile (a VideoError comes out of `stop`)."""
        self.started = time.monotonic()
        self.running = True
        threading.Thread(target=self._write, name="browserpilot-video", daemon=True).start()
        self._timer.start()
        self._tick()  # the first frame now

    def elapsed(self) -> float:
        return time.monotonic() - self.started if self.running else 0.0

    def chapter(self, title: str) -> None:
        if self.running:
            self.chapters.append((self.elapsed(), title))

    async def stop(self, keep: bool = True) -> VideoResult | None:
        """Stop filming; the file when `keep` (deleted otherwise). Waits for ffmpeg on a worker thread. Called
        again, returns the same result."""
        if not self.started:  # never started
            return None
        if self.running:
            self.running = False
            self._timer.stop()
            self._keep = keep
            self._end_frame = max(1, round((time.monotonic() - self.started) * self.fps))
            if self._done.done():  # the writer has failed already: nothing waits for pictures
                return await asyncio.wrap_future(self._done)
            try:
                self._queue.put_nowait(None)
            except queue.Full:  # the writer is behind: wait for room off the Qt thread
                await in_thread(self._queue.put, None, name="browserpilot-video")
        return await asyncio.wrap_future(self._done)

    # -- the Qt thread: pictures ---------------------------------------------------------------------------
    def _tick(self) -> None:
        if not self.running:
            return
        if self._done.done():  # the writer failed (no ffmpeg): stop() reports it
            self._timer.stop()
            return
        if time.monotonic() - self.started > self.max_seconds:
            log.info("a video reached %d s and stops by itself: %s", self.max_seconds, self.target)
            asyncio.ensure_future(self.stop(keep=True))  # its file is kept; stop() again returns it
            return
        if self._busy:
            return
        pictures = self.source()
        if pictures is None:
            return
        if pictures.masking:
            self._busy = True
            asyncio.ensure_future(self._take_masked(pictures))
            return
        self._queue_picture(pictures.grab())

    async def _take_masked(self, pictures: TabPictures) -> None:
        try:
            self._queue_picture(await pictures.picture())
        finally:
            self._busy = False

    def _queue_picture(self, picture: Picture | None) -> None:
        if picture is None or not self.running:
            return
        index = int((time.monotonic() - self.started) * self.fps)
        try:
            self._queue.put_nowait((index, picture))
        except queue.Full:
            self._skipped += 1

    # -- the writer thread ----------------------------------------------------------------------------------
    def _write(self) -> None:
        try:
            self._done.set_result(self._encode())
        except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits stop()
            log.warning("the video %s failed: %s", self.target, exc)
            self._done.set_exception(exc if isinstance(exc, Exception) else VideoError(str(exc)))

    def _encode(self) -> VideoResult | None:
        ffmpeg, encoder = find_encoder()
        first = self._queue.get()
        if first is None:  # stopped before a picture could be taken (the tab was gone)
            return None
        width, height = self._size(first[1])
        self.target.parent.mkdir(parents=True, exist_ok=True)
        raw = self.target.with_name(f".{self.target.name}.raw{encoder.suffix}")
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(
                [ffmpeg, "-hide_banner", "-nostats", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt",
                 "rgb24", "-s", f"{width}x{height}", "-r", str(self.fps), "-i", "-", "-an", "-c:v", encoder.codec,
                 *encoder.options, "-pix_fmt", "yuv420p", str(raw)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors)
            try:
                os.setpriority(os.PRIO_PROCESS, process.pid, 10)  # the app and its pages first
            except OSError:
                pass
            assert process.stdin is not None
            written, last = 0, None
            item: tuple[int, Picture] | None = first
            try:
                while item is not None:
                    index, picture = item
                    frame = render_frame(self._cropped(picture), width, height)
                    while last is not None and written < index:
                        process.stdin.write(last)
                        written += 1
                    if written <= index:
                        process.stdin.write(frame)
                        written += 1
                    last = frame
                    item = self._queue.get()
                while last is not None and written < self._end_frame:
                    process.stdin.write(last)
                    written += 1
                process.stdin.close()
            except BrokenPipeError:
                pass
            status = process.wait()
            if status != 0:
                errors.seek(0)
                message = errors.read().decode("utf-8", "replace").strip().splitlines()
                raw.unlink(missing_ok=True)
                raise VideoError(f"ffmpeg could not encode the video: {message[-1] if message else status}")
        if self._skipped:
            log.info("video %s: %d picture(s) skipped (the encoder was behind)", self.target, self._skipped)
        if not self._keep:
            raw.unlink(missing_ok=True)
            return None
        path = self.target.with_suffix(encoder.suffix)
        seconds = written / self.fps
        if self.chapters and self._with_chapters(ffmpeg, raw, path, seconds):
            raw.unlink(missing_ok=True)
        else:
            os.replace(raw, path)
        return VideoResult(str(path), seconds, written, path.stat().st_size, encoder.codec)

    def _size(self, picture: Picture) -> tuple[int, int]:
        width, height = picture.image.width(), picture.image.height()
        if self.crop is not None:
            width, height = self.crop[2] * picture.scale, self.crop[3] * picture.scale
        fit = min(1.0, MAX_WIDTH / max(1.0, width))
        return even(width * fit), even(height * fit)

    def _cropped(self, picture: Picture) -> Picture:
        if self.crop is None:
            return picture
        x, y, width, height = (round(v * picture.scale) for v in self.crop)
        image = picture.image.copy(x, y, max(1, width), max(1, height))
        masks = [(mx - self.crop[0], my - self.crop[1], mw, mh) for mx, my, mw, mh in picture.masks]
        return Picture(image, picture.scale, masks)

    def _with_chapters(self, ffmpeg: str, raw: Path, path: Path, seconds: float) -> bool:
        """Remux `raw` into `path` with the chapters; False (and `raw` left as it is) when ffmpeg cannot."""
        meta = raw.with_name(raw.name + ".chapters.txt")
        meta.write_text(chapters_text(self.chapters, seconds), encoding="utf-8")
        try:
            done = subprocess.run([ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-i", str(raw), "-i", str(meta),
                                   "-map", "0", "-map_metadata", "1", "-map_chapters", "1", "-c", "copy", str(path)],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("could not write the chapters into %s: %s", path, exc)
            return False
        finally:
            meta.unlink(missing_ok=True)
        if done.returncode != 0:
            log.warning("could not write the chapters into %s: %s", path, done.stderr.strip())
            path.unlink(missing_ok=True)
            return False
        return True


def describe(result: VideoResult | None) -> dict[str, Any]:
    if result is None:
        return {}
    return {"path": result.path, "seconds": round(result.seconds, 1), "frames": result.frames, "bytes": result.bytes,
            "codec": result.codec}
