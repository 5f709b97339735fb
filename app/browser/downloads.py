"""Downloads: every download of a profile is tracked, routed to the page that started it, and saved under a
safe, de-duplicated name inside its folder.

- `DownloadManager` (one per profile, connected to `downloadRequested` by `ProfileRegistry`) decides where
  each download goes before accepting it: the folder and name of an armed expectation of the page that
  started it (`request.page()`, or that page's opener for a download that opened a new tab), else the
  environment's `downloads/<env-id>/` folder and the name the server suggested. The name is always
  reduced to a safe base name; an existing file is never overwritten unless asked: ` (1)`, ` (2)`, ….
  The chosen path is reserved at once (an empty file), so two downloads of one name never collide.
- `arm_download(page, …)` returns a `DownloadExpectation` that catches the page's next download;
  `await expectation.wait(…)` returns `{path, name, bytes, mime, url}` once the file is complete on disk,
  or raises `DownloadError` (interrupted, cancelled) / `PageTimeout` (none started, or not finished).
  `expect_download(page, trigger, …)` arms, runs the trigger (a click, `page.download(url)`, …), waits.
- Downloads nobody waited for are recorded on their page too (`drain_downloads(page)`).
- Pages are deleted through `delete_pages` / `DownloadManager.delete_later`: Qt hands a download over to
  the profile in a queued call that holds a raw pointer to the page that started it
  (`QWebEngineProfilePrivate::downloadRequested`), so a page deleted between that call being queued and run
  crashes the app (a batch closing its row's tab right after a click on a download link did). Both first
  deliver the queued calls, then delete, with no event loop turn in between.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget
from PySide6.QtWebEngineCore import QWebEngineDownloadRequest, QWebEnginePage

from plumbing import loggers
from plumbing.filenames import safe_file_name, unique_safe_path
from app.browser.js import PageError, PageTimeout

log = logging.getLogger(loggers.BROWSER)

State = QWebEngineDownloadRequest.DownloadState
MAX_RECORDED = 100
OPENER_HOPS = 3  # a download that opened a new tab belongs to the page that opened it


class DownloadError(PageError):
    """A download failed, was cancelled, or could not be saved."""

    code = "download_failed"


@dataclass
class DownloadRecord:
    """One download of a profile, from request to completion."""

    url: str
    path: Path
    mime: str
    page: QWebEnginePage | None
    expected: bool
    started: float = field(default_factory=time.monotonic)
    state: str = "in progress"  # "in progress", "completed", "cancelled", "interrupted"
    bytes: int = 0
    total: int = -1
    error: str | None = None
    reserved: bool = True  # the file is ours to remove if the download fails (not an overwritten one)
    # A streamed video (app/browser/mediastream.py): its phase ("downloading", "merging"), the fragment being
    # fetched of how many, and which of its streams (video, audio) of how many.
    phase: str = ""
    fragment: int = 0
    fragments: int = 0
    part: int = 0
    parts: int = 0

    def result(self) -> dict[str, Any]:
        return {"path": str(self.path), "name": self.path.name, "bytes": self.bytes, "mime": self.mime,
                "url": self.url}

    def summary(self) -> dict[str, Any]:
        return {**self.result(), "state": self.state, **({"error": self.error} if self.error else {})}


class DownloadExpectation:
    """Catches the next download started by one page. Create with `arm_download`."""

    def __init__(self, page: QWebEnginePage, folder: Path | None, name: str | None, overwrite: bool) -> None:
        self.page = page
        self.folder = folder
        self.name = name
        self.overwrite = overwrite
        self.record: DownloadRecord | None = None
        self.request: QWebEngineDownloadRequest | None = None
        self._loop = asyncio.get_running_loop()
        self._started: asyncio.Future[None] = self._loop.create_future()
        self._finished: asyncio.Future[DownloadRecord] = self._loop.create_future()

    @property
    def started(self) -> bool:
        return self._started.done()

    def disarm(self) -> None:
        """Stop waiting; a download that already started keeps going (it is tracked like any other)."""
        waiters = _expectations(self.page)
        if self in waiters:
            waiters.remove(self)
        for future in (self._started, self._finished):
            if not future.done():
                future.cancel()

    def _bind(self, record: DownloadRecord, request: QWebEngineDownloadRequest) -> None:
        self.record = record
        self.request = request
        if not self._started.done():
            self._started.set_result(None)

    def _finish(self, record: DownloadRecord) -> None:
        if self._finished.done():
            return
        if record.state == "completed":
            self._finished.set_result(record)
        else:
            self._finished.set_exception(DownloadError(record.error or f"the download was {record.state}"))

    def _fail(self, message: str) -> None:
        if not self._finished.done():
            self._finished.set_exception(DownloadError(message))
        if not self._started.done():
            self._started.set_exception(DownloadError(message))

    async def wait(self, start_timeout: float = 15.0, timeout: float = 120.0) -> dict[str, Any]:
        """The finished download `{path, name, bytes, mime, url}`. `start_timeout`: seconds for the
        download to begin; `timeout`: seconds for all of it. A download still running at the timeout is
        cancelled and its partial file removed."""
        begun = time.monotonic()
        try:
            try:
                await asyncio.wait_for(asyncio.shield(self._started), min(start_timeout, timeout))
            except asyncio.TimeoutError:
                raise PageTimeout(f"no download started within {min(start_timeout, timeout):g} s") from None
            remaining = max(0.0, timeout - (time.monotonic() - begun))
            try:
                record = await asyncio.wait_for(asyncio.shield(self._finished), remaining)
            except asyncio.TimeoutError:
                got = self.record.bytes if self.record else 0
                total = self.record.total if self.record else -1
                if self.request is not None and shiboken6.isValid(self.request):
                    self.request.cancel()
                raise PageTimeout(f"the download did not finish within {timeout:g} s "
                                  f"({_size(got)} of {_size(total) if total >= 0 else 'unknown'}); "
                                  f"it was cancelled") from None
            return record.result()
        finally:
            self.disarm()


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count} bytes"


def _expectations(page: QWebEnginePage) -> list[DownloadExpectation]:
    waiters = getattr(page, "_bp_download_expectations", None)
    if waiters is None:
        waiters = []
        setattr(page, "_bp_download_expectations", waiters)
    return waiters


def _records(page: QWebEnginePage) -> list[DownloadRecord]:
    records = getattr(page, "_bp_downloads", None)
    if records is None:
        records = []
        setattr(page, "_bp_downloads", records)
    return records


def arm_download(page: QWebEnginePage, folder: str | os.PathLike[str] | None = None, name: str | None = None,
                 overwrite: bool = False) -> DownloadExpectation:
    """Catch the next download `page` starts. `folder`: where to save (default: the environment's download
    folder); `name`: the file name (default: the server's suggestion), reduced to a safe base name;
    `overwrite`: replace an existing file of that name instead of adding ` (1)`."""
    target = Path(folder).expanduser().resolve() if folder is not None else None
    if target is not None and target.exists() and not target.is_dir():
        raise DownloadError(f"cannot save downloads into {target}: it is a file, not a folder")
    expectation = DownloadExpectation(page, target, name, overwrite)
    _expectations(page).append(expectation)
    return expectation


async def expect_download(page: QWebEnginePage, trigger: Callable[[], Awaitable[Any] | Any],
                          folder: str | os.PathLike[str] | None = None, name: str | None = None,
                          overwrite: bool = False, start_timeout: float = 15.0,
                          timeout: float = 120.0) -> dict[str, Any]:
    """Arm, run `trigger` (sync or async: a click, `page.download(QUrl(url))`, …), and wait for the file."""
    expectation = arm_download(page, folder, name, overwrite)
    try:
        outcome = trigger()
        if inspect.isawaitable(outcome):
            await outcome
    except BaseException:
        expectation.disarm()
        raise
    return await expectation.wait(start_timeout=start_timeout, timeout=timeout)


def drain_downloads(page: QWebEnginePage) -> list[dict[str, Any]]:
    """Downloads `page` started since the last call (expected or not), as summaries."""
    records = _records(page)
    drained = [record.summary() for record in records]
    records.clear()
    return drained


def delete_pages(*holders: QObject) -> None:
    """Delete pages (or the tabs holding them) now, after Qt's queued download hand-overs, which may point
    at them, have run. Never call it from a signal of one of `holders` (use `DownloadManager.delete_later`)."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.MetaCall.value)
    for holder in holders:
        if shiboken6.isValid(holder):
            shiboken6.delete(holder)


class DownloadManager(QObject):
    """Accepts and tracks every download of one profile."""

    download_started = Signal(object, object)  # DownloadRecord, QWebEngineDownloadRequest (the UI's list)
    download_finished = Signal(object)  # DownloadRecord

    def __init__(self, default_folder: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.default_folder = default_folder
        self.active: dict[int, DownloadRecord] = {}
        self._doomed: list[QObject] = []  # closed tabs/pages waiting for `delete_doomed`

    @staticmethod
    def of(page: QWebEnginePage) -> "DownloadManager | None":
        """The download manager of the page's profile (its child), if it has one."""
        profile = getattr(page, "env_profile", None)  # see BrowserPage.env_profile
        manager = profile.findChild(DownloadManager) if profile is not None else None
        return manager if isinstance(manager, DownloadManager) else None

    def track(self, record: DownloadRecord, transfer: QObject) -> None:
        """A download the app runs itself (a streamed video: app/browser/mediastream.py), listed like the
        profile's own; `transfer` has a `QWebEngineDownloadRequest`'s signals and methods. Its owner emits
        `download_finished` when it ends."""
        if record.page is not None:
            records = _records(record.page)
            records.append(record)
            del records[:-MAX_RECORDED]
        self.download_started.emit(record, transfer)

    def delete_later(self, holder: QObject) -> None:
        """Delete a closed tab (or page) of this profile on the next turn of the event loop, the safe way
        (`delete_pages`). Until then the manager holds it, hidden and without a parent, so a window that
        goes first does not take it along unsafely."""
        if isinstance(holder, QWidget):
            holder.hide()
        holder.setParent(None)
        self._doomed.append(holder)
        QTimer.singleShot(0, self, self.delete_doomed)

    def delete_doomed(self) -> None:
        """Delete the closed tabs now (before the profile goes, or on the loop's next turn)."""
        doomed, self._doomed = self._doomed, []
        if doomed:
            delete_pages(*doomed)

    def handle(self, request: QWebEngineDownloadRequest) -> None:
        """`downloadRequested`: pick a folder and a name, reserve the path, accept, track."""
        if request.isSavePageDownload():  # `page.save(path)`: the caller chose the path
            request.accept()
            return
        page = request.page()
        expectation = self._expectation_for(page)
        folder = expectation.folder if expectation and expectation.folder else self.default_folder
        proposed = (expectation.name if expectation and expectation.name else None) \
            or request.suggestedFileName() or request.downloadFileName() or "download"
        try:
            target = self._reserve(folder, proposed, overwrite=bool(expectation and expectation.overwrite))
        except OSError as error:
            request.cancel()
            message = f"cannot save the download of {request.url().toString()} into {folder}: {error.strerror or error}"
            log.error("%s", message)
            if expectation is not None:
                expectation._fail(message)
            return
        request.setDownloadDirectory(str(target.parent))
        request.setDownloadFileName(target.name)
        owner = expectation.page if expectation is not None else page
        record = DownloadRecord(url=request.url().toString(), path=target, mime=request.mimeType(),
                                page=owner, expected=expectation is not None, total=request.totalBytes(),
                                reserved=not (expectation and expectation.overwrite))
        if owner is not None:
            records = _records(owner)
            records.append(record)
            del records[:-MAX_RECORDED]
        self.active[request.id()] = record
        if expectation is not None:
            expectation._bind(record, request)
        request.receivedBytesChanged.connect(lambda r=request, rec=record: self._on_progress(r, rec))
        request.stateChanged.connect(lambda state, r=request, rec=record, e=expectation: self._on_state(r, rec, e))
        log.info("downloading %s to %s%s", record.url, target, " (expected)" if expectation else "")
        self.download_started.emit(record, request)
        request.accept()
        if request.state() != State.DownloadInProgress and request.isFinished():
            self._on_state(request, record, expectation)

    def _expectation_for(self, page: QWebEnginePage | None) -> DownloadExpectation | None:
        hops = 0
        while page is not None and hops <= OPENER_HOPS:
            waiters = [w for w in _expectations(page) if not w.started]
            if waiters:
                return waiters[0]
            page = getattr(page, "opener", None)
            hops += 1
        return None

    @staticmethod
    def _reserve(folder: Path, proposed: str, overwrite: bool) -> Path:
        """A path in `folder` for `proposed`, reserved by creating it empty (O_EXCL): never outside the
        folder, never an existing file unless `overwrite`."""
        folder.mkdir(parents=True, exist_ok=True)
        if overwrite:
            target = folder / safe_file_name(proposed)
            if target.exists() and not target.is_file():
                raise IsADirectoryError(21, "a folder of that name exists", str(target))
            target.touch()
            return target
        for _attempt in range(100):
            target = unique_safe_path(folder, proposed)
            try:
                os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                continue  # another download took the name between the check and now
            return target
        raise FileExistsError(17, "no free name", str(folder / safe_file_name(proposed)))

    def _on_progress(self, request: QWebEngineDownloadRequest, record: DownloadRecord) -> None:
        record.bytes = request.receivedBytes()
        record.total = request.totalBytes()

    def _on_state(self, request: QWebEngineDownloadRequest, record: DownloadRecord,
                  expectation: DownloadExpectation | None) -> None:
        state = request.state()
        if state in (State.DownloadRequested, State.DownloadInProgress) or record.state != "in progress":
            return
        record.bytes = request.receivedBytes()
        record.total = request.totalBytes()
        if state == State.DownloadCompleted:
            size = record.path.stat().st_size if record.path.exists() else -1
            if size != record.bytes:
                record.state = "interrupted"
                record.error = (f"the download of {record.url} finished but {record.path} holds {size} bytes "
                                f"instead of {record.bytes}")
            else:
                record.state = "completed"
        elif state == State.DownloadCancelled:
            record.state = "cancelled"
            record.error = f"the download of {record.url} was cancelled"
        else:
            record.state = "interrupted"
            record.error = f"the download of {record.url} failed: {request.interruptReasonString()}"
        if record.state != "completed":
            if record.reserved:
                self._remove_partial(record.path)
            log.warning("%s", record.error)
        else:
            log.info("downloaded %s (%s) to %s", record.url, _size(record.bytes), record.path)
        self.active.pop(request.id(), None)
        if expectation is not None:
            expectation._finish(record)
        self.download_finished.emit(record)

    @staticmethod
    def _remove_partial(path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            log.warning("could not remove the partial download %s: %s", path, error)
