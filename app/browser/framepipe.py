"""Pictures of a tab into ffmpeg: the one way videos turn pictures into files.

`FramePipe` feeds raw frames (the page's pixels as Qt holds them, 32-bit BGRA, all of one size) to an ffmpeg
process from a writer thread of its own. The Qt thread only hands the picture over: the bytes are written with
the interpreter's lock released, and the scaling and encoding happen in ffmpeg, another process, at a lower CPU
priority than the app, so a run being recorded keeps its pace and the window never waits for an encoder. A
picture of another size (the run followed a click into a window of another size) is fitted into the pipe's
size first. `find_encoder` picks ffmpeg (streamsave.find_ffmpeg: the bundle's static build, else the system's)
and its best video encoder.

A video is one pipe writing WebM (VP9, else VP8) or MP4 (`video_output`). (A trace's screenshots are written
in-process instead: app/browser/shotfiles.py.)
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter

from app.browser.streamsave import find_ffmpeg
from plumbing import loggers
from workflows.ports import PageError

log = logging.getLogger(loggers.BROWSER)

NICENESS = 10        # ffmpeg's CPU priority below the app's
RAW_FORMATS = (QImage.Format.Format_ARGB32_Premultiplied, QImage.Format.Format_ARGB32, QImage.Format.Format_RGB32)


class VideoError(PageError):
    """Pictures cannot be encoded (no ffmpeg, no encoder, ffmpeg failed)."""

    code = "video_failed"


@dataclass(frozen=True)
class Encoder:
    codec: str
    suffix: str
    options: tuple[str, ...]


ENCODERS = (
    Encoder("libvpx-vp9", ".webm", ("-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-crf", "42",
                                    "-b:v", "0", "-threads", "1", "-g", "150")),
    Encoder("libvpx", ".webm", ("-deadline", "realtime", "-cpu-used", "16", "-crf", "20", "-b:v", "1M",
                                "-threads", "1", "-g", "150")),
    Encoder("libx264", ".mp4", ("-preset", "ultrafast", "-crf", "30", "-threads", "1", "-movflags", "+faststart")),
    Encoder("mpeg4", ".mp4", ("-q:v", "8", "-threads", "1")),
)


@functools.lru_cache(maxsize=4)
def _encoders_of(ffmpeg: str) -> frozenset[str]:
    listed = subprocess.run([ffmpeg, "-hide_banner", "-encoders"], capture_output=True, text=True, timeout=30).stdout
    return frozenset(line.split()[1] for line in listed.splitlines()
                     if len(line.split()) > 1 and line.startswith(" V"))


def find_encoder() -> tuple[str, Encoder]:
    """ffmpeg and the best video encoder it has (blocks: call it off the Qt thread); VideoError otherwise."""
    ffmpeg = find_ffmpeg()
    if not ffmpeg:
        raise VideoError("ffmpeg is not installed: it is needed to record a video (the app's bundle ships one; "
                         "otherwise install the system's ffmpeg package)")
    try:
        names = _encoders_of(ffmpeg)
    except (OSError, subprocess.SubprocessError) as exc:
        raise VideoError(f"ffmpeg ({ffmpeg}) does not run: {exc}") from None
    for encoder in ENCODERS:
        if encoder.codec in names:
            return ffmpeg, encoder
    raise VideoError(f"ffmpeg ({ffmpeg}) has none of the video encoders {', '.join(e.codec for e in ENCODERS)}")


def even(value: float) -> int:
    return max(2, int(value) // 2 * 2)


def video_output(encoder: Encoder, path: Path, max_width: int) -> list[str]:
    """ffmpeg's output options for a video at most `max_width` wide."""
    return ["-vf", f"scale='min({max_width},iw)':-2:flags=area,format=yuv420p", "-an", "-c:v", encoder.codec,
            *encoder.options, str(path)]


def fitted(image: QImage, width: int, height: int) -> QImage:
    """`image` as a raw frame of `width` x `height`: as it is when it fits exactly, else scaled into it (bars)."""
    if image.width() == width and image.height() == height and image.format() in RAW_FORMATS:
        return image
    frame = QImage(width, height, QImage.Format.Format_RGB32)
    frame.fill(Qt.GlobalColor.black)
    scale = min(width / max(1, image.width()), height / max(1, image.height()))
    scaled = image.scaled(max(1, round(image.width() * scale)), max(1, round(image.height() * scale)),
                          Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.FastTransformation)
    painter = QPainter(frame)
    try:
        painter.drawImage((width - scaled.width()) // 2, (height - scaled.height()) // 2, scaled)
    finally:
        painter.end()
    return frame


class Launcher:
    """Starts threads for the Qt thread: `Thread.start()` waits until the new thread runs, which on a busy machine
    held the Qt thread for hundreds of milliseconds (bench/ui_stall.py, a traced batch); here one long-lived
    thread does the starting."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Callable[[], None], str]] = queue.SimpleQueue()
        threading.Thread(target=self._run, name="browserpilot-launcher", daemon=True).start()

    def start(self, target: Callable[[], None], name: str) -> None:
        self._queue.put((target, name))

    def _run(self) -> None:
        while True:
            target, name = self._queue.get()
            threading.Thread(target=target, name=name, daemon=True).start()


class FramePipe:
    """One ffmpeg process and the thread that starts and feeds it frames of `width` x `height`. `send` and
    `close` on the Qt thread; the writer thread (started by `launcher`) finds ffmpeg and its encoder
    (`output(encoder)` gives the output options; `folder` is made for it), starts it and writes; `done` tells the
    end: `then(frames written)` (run on the writer thread; default: the frames), or a VideoError."""

    def __init__(self, width: int, height: int, rate: float, output: Callable[[Encoder], list[str]], folder: Path,
                 launcher: Launcher, *, then: Callable[[int], Any] | None = None, queue_frames: int = 16,
                 niceness: int = NICENESS, name: str = "browserpilot-frames") -> None:
        self.width, self.height = even(width), even(height)
        self.rate = rate
        self.encoder: Encoder | None = None  # set by the writer thread once ffmpeg is found
        self.frames = 0          # frames written so far (the writer thread)
        self.dropped = 0         # frames not sent: the writer was behind
        self.done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._then = then
        self._output = output
        self._folder = folder  # where ffmpeg writes: made by the writer thread
        self._niceness = niceness
        self._queue: queue.Queue[tuple[QImage, Callable[[QImage], QImage] | None, int | None] | None] = \
            queue.Queue(maxsize=queue_frames)
        self._process: subprocess.Popen[bytes] | None = None
        self._killed = False
        self._ended = False      # the writer took the end of the frames (close)
        self._pad_to = 0
        launcher.start(self._run, name)

    def send(self, image: QImage, finish: Callable[[QImage], QImage] | None = None, at: int | None = None,
             wait: float = 0.0) -> bool:
        """Queue a frame (fitted into the pipe's size); `finish` (drawing on a copy) runs on the writer thread
        before it is written; `at`: its index in the stream (the writer repeats the frame before it up to there,
        which keeps a video on the wall clock). False when the writer is too far behind (the frame is not taken);
        `wait` seconds for room first (only off the Qt thread)."""
        if self.done.done():
            return False
        try:
            self._queue.put((fitted(image, self.width, self.height), finish, at), timeout=wait) if wait else \
                self._queue.put_nowait((fitted(image, self.width, self.height), finish, at))
        except queue.Full:
            self.dropped += 1
            return False
        return True

    def close(self, pad_to: int = 0) -> None:
        """No more frames (the last one repeated up to `pad_to` frames in all): ffmpeg finishes its file(s) once
        the queue is written (`done`)."""
        self._pad_to = pad_to
        while True:
            try:
                self._queue.put_nowait(None)
                return
            except queue.Full:  # the writer is behind: make room by dropping the oldest waiting frame
                try:
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def kill(self) -> None:
        """Stop at once (what was written may be unusable); `done` once ffmpeg has exited."""
        self._killed = True
        if self._process is not None:
            self._process.kill()
        self.close()

    def _run(self) -> None:
        try:
            ffmpeg, self.encoder = find_encoder()
            self._folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile() as errors:
                self._process = subprocess.Popen(
                    [ffmpeg, "-hide_banner", "-nostats", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt",
                     "bgra", "-s", f"{self.width}x{self.height}", "-framerate", f"{self.rate:g}", "-i", "-",
                     *self._output(self.encoder)],
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors)
                if self._killed:
                    self._process.kill()
                try:
                    if self._niceness:
                        os.setpriority(os.PRIO_PROCESS, self._process.pid, self._niceness)
                except OSError:
                    pass
                status = self._write(self._process)
                if status == 0 or self._killed:
                    self.done.set_result(self._then(self.frames) if self._then is not None else self.frames)
                    return
                errors.seek(0)
                lines = errors.read().decode("utf-8", "replace").strip().splitlines()
                raise VideoError(f"ffmpeg could not encode: {lines[-1] if lines else f'exit {status}'}")
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for `done`
            self._drain()
            self.done.set_exception(exc if isinstance(exc, Exception) else VideoError(str(exc)))

    def _drain(self) -> None:
        """Nothing more is written: take what is queued (and what comes) until `close`."""
        while not self._ended:
            self._ended = self._queue.get() is None

    def _write(self, process: subprocess.Popen[bytes]) -> int:
        stdin = process.stdin
        assert stdin is not None
        descriptor = stdin.fileno()
        last: QImage | None = None

        def write(frame: QImage) -> None:
            view = memoryview(frame.constBits())
            while view:  # os.write lets other threads run meanwhile (the Qt thread)
                view = view[os.write(descriptor, view):]
            self.frames += 1

        try:
            while True:
                item = self._queue.get()
                if item is None:
                    self._ended = True
                    while last is not None and self.frames < self._pad_to:
                        write(last)
                    break
                frame, finish, at = item
                if finish is not None:
                    frame = finish(frame)
                while last is not None and at is not None and self.frames < at:
                    write(last)
                write(frame)
                last = frame
        except (BrokenPipeError, OSError) as exc:
            log.info("ffmpeg stopped taking frames: %s", exc)
            self._drain()
        finally:
            try:
                stdin.close()
            except OSError:
                pass
        return process.wait()
