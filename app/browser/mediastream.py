"""A streamed media element saved as one file: finding what its player plays, and the download's life in the
environment's Downloads list. The fetching and merging itself is app/browser/streamsave.py (yt-dlp, ffmpeg).

- `stream_sources(...)`: the manifests a tab's player fetched, from the tab's network capture when one runs
  (with content types) and from the element's document's own resource timing (every URL it fetched, even
  when nobody captured); manifests of no known extension are found by reading the first bytes of the other
  candidates, through the same policy- and cookie-bound handler as the download.
- `StreamTransfer`: a running `StreamJob` seen by the Downloads list as a download (the same signals and
  methods as `QWebEngineDownloadRequest`: bytes, total, state, cancel), with its fragments and phase
  (downloading, merging) on its `DownloadRecord`.
- `save_stream(...)`: runs the job on a worker thread, reports its progress on the Qt thread, waits at most
  `timeout` seconds (then cancels it) and returns `{path, name, bytes, mime, url, stream}`.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import threading
from pathlib import Path
from typing import Any, Iterable

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWebEngineCore import QWebEngineDownloadRequest, QWebEnginePage

from app.browser.downloads import DownloadManager, DownloadRecord
from app.browser.js import PageError, PageTimeout
from app.browser.streamsave import Candidate, Identity, Progress, StreamCancelled, StreamError, StreamJob, \
    StreamRefused, candidates, probe, site_extractor
from plumbing import loggers

log = logging.getLogger(loggers.MEDIA)

State = QWebEngineDownloadRequest.DownloadState


class StreamTransfer(QObject):
    """One stream download, as the Downloads list sees a download."""

    receivedBytesChanged = Signal()  # noqa: N815  (QWebEngineDownloadRequest's names)
    totalBytesChanged = Signal()  # noqa: N815
    stateChanged = Signal(object)  # noqa: N815

    def __init__(self, job: StreamJob, record: DownloadRecord, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.record = record
        self._state = State.DownloadInProgress

    def receivedBytes(self) -> int:  # noqa: N802
        return self.record.bytes

    def totalBytes(self) -> int:  # noqa: N802
        return self.record.total

    def state(self) -> QWebEngineDownloadRequest.DownloadState:
        return self._state

    def cancel(self) -> None:
        self.job.cancel()

    def show_progress(self, progress: Progress) -> None:
        """Qt thread only (the job's threads post their reports through the loop: `save_stream`)."""
        record = self.record
        if record.state != "in progress":
            return
        record.url = self.job.manifest_url or record.url  # the manifest, once it is known
        record.bytes, record.total = progress.bytes, progress.total
        record.phase, record.fragment, record.fragments = progress.phase, progress.fragment, progress.fragments
        record.part, record.parts = progress.part, progress.parts
        self.receivedBytesChanged.emit()
        self.totalBytesChanged.emit()

    def finish(self, state: str, path: Path | None = None, size: int = 0, error: str | None = None) -> None:
        record = self.record
        record.state, record.error, record.phase = state, error, ""
        if path is not None:
            record.path, record.bytes, record.total = path, size, size
        self._state = {"completed": State.DownloadCompleted, "cancelled": State.DownloadCancelled}.get(
            state, State.DownloadInterrupted)
        self.stateChanged.emit(self._state)


def stream_sources(captured: Iterable[tuple[str, str]], fetched: Iterable[str]) -> list[Candidate]:
    """What the tab fetched, oldest first: the capture's (url, content type) pairs, then the document's
    resource timing URLs (no type)."""
    found = [Candidate(url, mime) for url, mime in captured]
    known = {item.url for item in found}
    found += [Candidate(url) for url in fetched if url not in known]
    return found


def pick_manifest(sources: list[Candidate], identity: Identity) -> Candidate:
    """The manifest the player plays, else the page itself when yt-dlp has an extractor for its site
    (blocking: it may read candidates; call on a worker thread)."""
    known, unknown = candidates(sources)
    chosen = probe(known, unknown, identity)
    if chosen is None and identity.referer:  # a site yt-dlp knows: its extractor, with the environment's cookies
        key = site_extractor(identity.referer)
        if key is not None:
            return Candidate(identity.referer, "", f"site:{key}")
    if chosen is None:
        media = [item.url for item in sources if item.url.startswith(("http://", "https://"))]
        raise StreamError(f"no HLS (.m3u8) or DASH (.mpd) manifest among the {len(media)} request(s) the page "
                          f"made; start net_start before the player loads, or give the manifest's URL to "
                          f"page_download")
    return chosen


async def save_stream(page: QWebEnginePage, manager: DownloadManager | None, sources: list[Candidate] | None,
                      manifest: Candidate | None, folder: Path, name: str | None, identity: Identity,
                      timeout: float) -> dict[str, Any]:
    """Find the manifest (unless given), download and merge it, tracked in the Downloads list."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[dict[str, Any]] = loop.create_future()
    shown = name or "video"
    record = DownloadRecord(url=manifest.url if manifest else page.url().toString(), path=folder / shown,
                            mime="video/*", page=page, expected=True)
    job = StreamJob(manifest.url if manifest else "", manifest.kind if manifest else "", folder, name, identity)
    transfer = StreamTransfer(job, record, manager)

    def show(progress: Progress) -> None:  # the Qt thread, where the transfer may already be gone
        if shiboken6.isValid(transfer):
            transfer.show_progress(progress)

    def report(progress: Progress) -> None:
        """yt-dlp's threads (up to three fragments at once): never touch a Qt object here, since the Qt
        thread may delete the transfer between a validity check and a signal; post a copy to the loop."""
        try:
            loop.call_soon_threadsafe(show, Progress(**vars(progress)))
        except RuntimeError:  # the loop is gone: the app quit while it ran
            pass

    job.on_progress = report

    def work() -> None:
        try:
            if not job.manifest_url:
                chosen = pick_manifest(sources or [], identity)
                job.manifest_url, job.kind = chosen.url, chosen.kind
            result: dict[str, Any] | BaseException = job.run()
        except BaseException as exc:  # noqa: BLE001  (handed to the loop)
            result = exc
        try:
            loop.call_soon_threadsafe(_settle, done, result)
        except RuntimeError:  # the loop is gone: the app quit while it ran
            log.info("stream %s ended after the app's loop", job.manifest_url[:200])

    def end(state: str, error: str, path: Path | None = None, size: int = 0) -> None:
        if shiboken6.isValid(transfer):  # (the environment may have been deleted meanwhile)
            transfer.finish(state, path, size, error or None)
            transfer.deleteLater()  # its row keeps the record
        log.info("stream %s: %s%s", record.url[:200], state, f" ({error})" if error else "")
        if manager is not None and shiboken6.isValid(manager):
            manager.download_finished.emit(record)

    if manager is not None:
        manager.track(record, transfer)
    threading.Thread(target=work, name="browserpilot-stream", daemon=True).start()
    try:
        result = await asyncio.wait_for(asyncio.shield(done), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:  # out of time, or the caller gave up
        job.cancel()
        done.add_done_callback(lambda future: future.cancelled() or future.exception())  # ends on its own
        if isinstance(exc, asyncio.CancelledError):
            end("cancelled", "the operation was cancelled")
            raise
        end("cancelled", f"not finished within {timeout:g} s")
        raise PageTimeout(f"the stream was not saved within {timeout:g} s ({record.bytes} bytes so far); "
                          f"it was cancelled") from None
    except StreamCancelled as exc:
        end("cancelled", str(exc))
        raise PageError(f"saving {record.url} was cancelled", code="cancelled") from None
    except StreamRefused as exc:
        end("interrupted", str(exc))
        raise PageError(str(exc), code="blocked") from None
    except Exception as exc:  # noqa: BLE001  (StreamError, or a fault: the row must not stay "downloading")
        end("interrupted", str(exc))
        code = exc.code if isinstance(exc, StreamError) else "stream_failed"
        raise PageError(f"the stream could not be saved: {exc}", code=code) from None
    path = Path(result["path"])
    record.url = result["url"]
    end("completed", "", path, int(result["bytes"]))
    mime = mimetypes.guess_type(path.name)[0] or "video/mp4"
    return {"path": str(path), "name": path.name, "bytes": result["bytes"], "mime": mime, "url": result["url"],
            "stream": {"kind": result["kind"], "manifest": result["url"], "formats": result["formats"]}}


def _settle(future: asyncio.Future[dict[str, Any]], result: dict[str, Any] | BaseException) -> None:
    if future.done():
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)
