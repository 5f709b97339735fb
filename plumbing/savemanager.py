"""Saving the data folder's files off the caller's thread: debounced, in order, never losing a write.

The model is qutebrowser's `misc/savemanager.py` (a dirty flag per file, a debounce, a save on exit), made
stricter for a shared browser whose stores change many times a second during a batch:

- The stores keep their document in memory; that is the truth, and a reader in the same process sees its own
  writes at once. A change calls `save(path, render)`: the file is marked dirty and `render` (a function that
  turns the snapshot of that moment into bytes) replaces whatever render was waiting for that file.
- One worker thread does the writing (`plumbing.jsonstore.atomic_write_bytes`: temp file, fsync, `os.replace`,
  fsync of the folder), so no two writers of one file ever run at once and each file's writes land in order.
- The debounce is leading-edge: a file that has not been written for `delay` seconds is written at once; a
  burst of changes is written at most once per `delay` (default 0.25 s), always ending with the newest state.
  A SIGKILL therefore loses at most the changes of the last `delay` seconds plus one write (about 0.3 s);
  the file on disk is always a whole, valid document (the atomic write).
- `run(job)` queues other slow work (deleting a folder tree) for the same thread, after the writes queued
  before it; `flush()` writes everything now and waits (the app calls it on its way out); `close()` flushes
  and stops the thread; a save after that is written at once on the caller's thread.
- A write that fails (a full disk, a folder made read-only) leaves the memory as it is, reports through
  `on_error(path, message)` and the log, and is tried again (after 1 s, doubling to 30 s) with the newest
  render; `problems()` says which files are behind. A flush tries each waiting file once and returns the
  problems instead of hanging.

`ImmediateSaver` has the same interface and writes at once on the caller's thread (raising `StoreError`):
the default of every store, right for a short-lived process (the command line) that must have written its
change before it exits. `in_thread` runs one slow call (writing a HAR, a PDF, an export; reading a file to
import) on a thread and awaits it: what the app writes outside its stores goes there, never on the Qt thread.
Pure Python (threading, asyncio), no Qt.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, TypeVar

from plumbing import loggers
from plumbing.atomic import atomic_write_bytes
from plumbing.errors import StoreError

log = logging.getLogger(loggers.STORE)

Render = Callable[[], bytes]
Job = Callable[[], None]
ErrorCallback = Callable[[Path, str], None]
T = TypeVar("T")

DEFAULT_DELAY = 0.25
RETRY_FIRST = 1.0
RETRY_MAX = 30.0


async def in_thread(function: Callable[..., T], *args: Any, name: str = "browserpilot-io") -> T:
    """Run one slow call (writing a big file) on a thread of its own and await its result on the running loop.
    A plain daemon thread, not the loop's default executor: nothing is left for the event loop to shut down."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.cancelled():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result = function(*args)
        except BaseException as exc:  # handed to the awaiting coroutine
            loop.call_soon_threadsafe(settle, None, exc)
        else:
            loop.call_soon_threadsafe(settle, result, None)

    threading.Thread(target=work, name=name, daemon=True).start()
    return await future


class Saver(Protocol):
    """What a store needs from whoever writes its file."""

    def save(self, path: Path, render: Render) -> None: ...

    def run(self, job: Job, label: str = "", *, after: float = 0.0) -> None: ...

    def flush(self) -> dict[Path, str]: ...


class ImmediateSaver:
    """Write now, on the caller's thread; errors are raised (`StoreError`) to the caller."""

    def save(self, path: Path, render: Render) -> None:
        atomic_write_bytes(path, render())

    def run(self, job: Job, label: str = "", *, after: float = 0.0) -> None:
        job()  # now: a short-lived process has nothing to wait for

    def flush(self) -> dict[Path, str]:
        return {}  # everything is written already


@dataclass
class _Pending:
    render: Render
    due: float          # time.monotonic() at which the worker may write it
    failures: int = 0   # consecutive failed attempts


class SaveManager:
    """Debounced, ordered, background writing of whole files (see the module docstring)."""

    def __init__(self, delay: float = DEFAULT_DELAY, *, on_error: ErrorCallback | None = None,
                 name: str = "browserpilot-saver") -> None:
        self.delay = delay
        self.on_error = on_error
        self._name = name
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()  # held by whoever is writing (the worker or a flush)
        self._pending: dict[Path, _Pending] = {}
        self._jobs: deque[tuple[float, str, Job]] = deque()  # (due, label, job), in the order queued
        self._last_write: dict[Path, float] = {}  # when each file's latest write was taken in hand
        self._writing: set[Path] = set()  # taken from `_pending`, not yet on disk
        self._problems: dict[Path, str] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- asking ------------------------------------------------------------------------------------------
    def save(self, path: Path, render: Render) -> None:
        """Mark `path` dirty with the render of its newest state; it is written soon on the worker thread."""
        with self._cond:
            closed = self._closed
            if not closed:
                pending = self._pending.get(path)
                if pending is not None:
                    pending.render = render  # the newest state replaces the waiting one; the due time stays
                else:
                    due = max(time.monotonic(), self._last_write.get(path, float("-inf")) + self.delay)
                    self._pending[path] = _Pending(render, due)
                self._start()
                self._cond.notify_all()
        if closed:  # after close (late in the exit): write now, on this thread, rather than lose it
            with self._write_lock:
                atomic_write_bytes(path, render())

    def run(self, job: Job, label: str = "", *, after: float = 0.0) -> None:
        """Queue slow work (deleting a folder) for the worker thread, to run after the due writes and, with
        `after`, not before that many seconds (a flush runs it at once)."""
        with self._cond:
            closed = self._closed
            if not closed:
                self._jobs.append((time.monotonic() + after, label, job))
                self._start()
                self._cond.notify_all()
        if closed:
            self._run_job(label, job)

    def problems(self) -> dict[Path, str]:
        """Files whose newest state is not on disk because writing failed (path -> message)."""
        with self._cond:
            return dict(self._problems)

    def dirty(self) -> set[Path]:
        """Files whose newest state is not on disk yet: waiting, or being written right now."""
        with self._cond:
            return set(self._pending) | self._writing

    # -- flushing ----------------------------------------------------------------------------------------
    def flush(self) -> dict[Path, str]:
        """Write every dirty file and run every queued job now, in order, on this thread; wait for a write
        the worker has in hand. Each dirty file is tried once; returns the files that could not be written."""
        tried: set[Path] = set()
        with self._write_lock:
            while True:
                with self._cond:
                    work = self._take(lambda path, _item: path not in tried)
                if work is None:
                    break
                if isinstance(work[0], Path):
                    tried.add(work[0])
                self._do(work, retry=False)
            with self._cond:
                # What could not be written went back as pending (the worker tries again); report it.
                return dict(self._problems)

    def close(self) -> dict[Path, str]:
        """Flush, refuse further saves, stop the worker thread; returns what could not be written."""
        problems = self.flush()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(10)
        return problems

    # -- the worker --------------------------------------------------------------------------------------
    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
            self._thread.start()

    def _next_due(self) -> float | None:
        dues = [p.due for p in self._pending.values()] + [job[0] for job in self._jobs]
        return min(dues) if dues else None

    def _work(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._closed:
                        return
                    due = self._next_due()
                    now = time.monotonic()
                    if due is not None and due <= now:
                        break
                    self._cond.wait(None if due is None else due - now)
            with self._write_lock:  # a flush may have taken the work meanwhile: look again
                with self._cond:
                    now = time.monotonic()
                    work = self._take(lambda _path, item: item.due <= now, now)
                if work is not None:
                    self._do(work, retry=True)

    def _take(self, ready: Callable[[Path, _Pending], bool],
              now: float = float("inf")) -> tuple[Path, _Pending] | tuple[str, Job] | None:
        """(The condition held.) The next work: the earliest due of the ready writes, else the oldest job due
        by `now` (every job, for a flush)."""
        writes = [path for path, item in self._pending.items() if ready(path, item)]
        if writes:
            path = min(writes, key=lambda p: self._pending[p].due)
            # The debounce counts from now: a save that comes while this write is in hand waits its turn
            # rather than finding the file idle and writing it again at once.
            self._last_write[path] = time.monotonic()
            self._writing.add(path)
            return path, self._pending.pop(path)
        for index, (due, label, job) in enumerate(self._jobs):
            if due <= now:
                del self._jobs[index]
                return label, job
        return None

    def _do(self, work: tuple[Path, _Pending] | tuple[str, Job], *, retry: bool) -> None:
        """(The write lock held.) Carry out what `_take` gave."""
        if isinstance(work[0], Path):
            path, pending = work
            assert isinstance(pending, _Pending)
            self._write(path, pending, retry=retry)
        else:
            label, job = work
            assert callable(job)
            self._run_job(label, job)

    def _write(self, path: Path, pending: _Pending, *, retry: bool) -> bool:
        """Render and write one file (the write lock is held). On failure the render goes back as pending,
        unless a newer one arrived meanwhile."""
        started = time.monotonic()
        try:
            data = pending.render()
            atomic_write_bytes(path, data)
        except Exception as exc:  # a full disk, a read-only folder, a render that failed: keep and report
            message = str(exc) if isinstance(exc, StoreError) else f"cannot write {path}: {exc}"
            failures = pending.failures + 1
            with self._cond:
                self._writing.discard(path)
                self._problems[path] = message
                if path not in self._pending:
                    wait = min(RETRY_MAX, RETRY_FIRST * 2 ** (failures - 1))
                    self._pending[path] = _Pending(pending.render, time.monotonic() + wait, failures)
                else:
                    self._pending[path].failures = failures
                self._cond.notify_all()
            log.warning("%s (the change is kept in memory; tried again %s)", message,
                        "later" if retry else "at the next change or flush")
            if self.on_error is not None:
                try:
                    self.on_error(path, message)
                except Exception:  # a broken reporter must not stop the saving
                    log.exception("the save error callback failed")
            return False
        with self._cond:
            self._writing.discard(path)
            if len(self._last_write) > 256:  # one entry a run folder's file: forget what the debounce no longer needs
                horizon = started - self.delay
                self._last_write = {p: t for p, t in self._last_write.items() if t >= horizon}
            if self._problems.pop(path, None) is not None:
                log.info("%s is written again", path)
        return True

    def _run_job(self, label: str, job: Job) -> None:
        try:
            job()
        except Exception:
            log.exception("background job %s failed", label or job)
