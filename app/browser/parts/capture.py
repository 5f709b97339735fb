"""A tab's capture part: screenshots and PDFs (app/browser/capture.py), downloads (app/browser/downloads.py)
and saving a media element's source through the environment's own network (app/browser/media.py); a streamed
one (HLS, DASH, a `blob:` fed by MediaSource) is found in the tab's traffic and saved as one file by
app/browser/mediastream.py, with the environment's cookies, user agent and policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from PySide6.QtCore import QUrl

from app.browser import capture, inspect, locators, media
from app.browser.downloads import DownloadManager, expect_download
from app.browser.identity import request_headers
from app.browser.mediastream import save_stream, stream_sources
from app.browser.parts.core import TabCore, capture_name
from app.browser.streamsave import Candidate, Identity, manifest_kind
from workflows.ports import Locator, PageError, Paper
from workflows.results import FileResult, PdfResult, ScreenshotResult


class TabCapture:
    """Screenshots, PDFs, downloads and saved media of one tab (the network capture is app/browser/netcapture.py).
    What the capture helpers report of the file they wrote is validated into its result model here, once."""

    def __init__(self, core: TabCore) -> None:
        self._core = core

    async def screenshot(self, full_page: bool, locator: Locator | None,
                         outline: Locator | None = None) -> ScreenshotResult:
        core = self._core
        clip = await self._box(locator) if locator is not None else None
        boxed = await self._box(outline) if outline is not None else None
        path = core.folders.captures / capture_name("shot", ".png")
        return ScreenshotResult.model_validate(await capture.screenshot(
            core.view, path, full_page=full_page and clip is None and boxed is None, clip=clip, outline=boxed))

    async def _box(self, locator: Locator) -> tuple[float, float, float, float]:
        """The element's box in the viewport (CSS px), once it is there and scrolled into view."""
        core = self._core
        await core.guarded(locators.wait_actionable(core.page, locator, 10.0, hit_test=False, enabled=False))
        found = await locators.query(core.page, locator, limit=2)
        rect = found.rows[0].rect
        return rect.x, rect.y, rect.width, rect.height

    async def pdf(self, paper: Paper, landscape: bool, background: bool, header_footer: bool) -> PdfResult:
        path = self._core.folders.captures / capture_name("page", ".pdf")
        return PdfResult.model_validate(await capture.pdf(self._core.page, path, paper, landscape, background,
                                                          header_footer))

    async def download(self, locator: Locator | None, url: str | None, save_as: str | None,
                       timeout: float) -> FileResult:
        core = self._core
        page = core.page
        if url is not None:
            refused = core.blocked(url)
            if refused is not None:  # the interceptor would block it: say why instead of waiting
                raise PageError(refused, code="blocked")
            kind = manifest_kind(url)
            if kind:  # an HLS or DASH manifest: the stream it lists, as one file
                return await self._save_stream(Candidate(url, "", kind), [], core.folders.downloads, save_as,
                                               timeout)

            def trigger() -> None:
                page.download(QUrl(url), save_as or "")
        else:
            assert locator is not None
            source = await core.guarded(inspect.media_source(page, locator))
            if source["media"]:  # a media element: save its source; clicking it would start no download
                return await self._save_source(source, core.folders.downloads, save_as, timeout)
            px, py, _description = await core.point(locator, None, None, timeout)

            async def trigger() -> None:  # type: ignore[misc]
                await core.input.click(px, py)
        return FileResult.model_validate(await expect_download(page, trigger, folder=core.folders.downloads,
                                                               name=save_as, start_timeout=min(timeout, 15.0),
                                                               timeout=timeout))

    async def save_media(self, locator: Locator, save_path: str | None, timeout: float) -> FileResult:
        core = self._core
        source = await core.guarded(inspect.media_source(core.page, locator))
        if not source["media"]:
            raise PageError(f"{source['desc']} is not an img, video, audio, source or picture element; "
                            f"use page_download for links and buttons", code="not_media")
        folder, name = core.folders.downloads, None
        if save_path:
            target = Path(save_path).expanduser()
            if not target.is_absolute():
                raise PageError(f"savePath must be absolute: {save_path}", code="invalid_argument")
            if save_path.endswith(("/", "\\")) or target.is_dir():
                folder = target
            else:
                folder, name = target.parent, target.name
        return await self._save_source(source, folder, name, timeout)

    async def _save_source(self, source: Mapping[str, Any], folder: Path, name: str | None,
                           timeout: float) -> FileResult:
        """Save a media element's current source: data: decoded here, blob: read in the page, anything
        else downloaded through the environment's profile (its cookies, its domain policy)."""
        core = self._core
        url = str(source.get("src") or "")
        if not url:
            raise PageError(f"{source['desc']} has no source (no src, currentSrc or <source>)", code="no_source")
        scheme = url.split(":", 1)[0].lower()
        if scheme in ("data", "blob"):
            if scheme == "data":
                mime, payload = media.decode_data_url(url)
            else:
                try:
                    mime, payload = await core.guarded(media.read_blob(core.page, url, timeout))
                except PageError as exc:
                    if exc.code != "media_stream":
                        raise
                    # A MediaSource player: the stream it plays, found in what the tab fetched.
                    return await self._save_stream(None, list(source.get("fetched") or []), folder, name, timeout)
            path = media.write_new_file(folder, name or media.default_name(mime), payload)
            return FileResult(path=str(path), name=path.name, bytes=len(payload), mime=mime, url=url[:200])
        refused = core.blocked(url)
        if refused is not None:
            raise PageError(refused, code="blocked")
        kind = manifest_kind(url, str(source.get("type") or ""))
        if kind:  # <video src="….m3u8"> (a player of its own), or a <source type="application/dash+xml">
            return await self._save_stream(Candidate(url, "", kind), [], folder, name, timeout)
        return FileResult.model_validate(await expect_download(
            core.page, lambda: core.page.download(QUrl(url), name or ""), folder=folder, name=name,
            start_timeout=min(timeout, 15.0), timeout=timeout))

    async def _save_stream(self, manifest: Candidate | None, fetched: list[str], folder: Path, name: str | None,
                           timeout: float) -> FileResult:
        """Save a stream as one file: `manifest`, or the one the tab's player fetched (its network capture
        when one runs, else `fetched`: the element's document's resource timing)."""
        core = self._core
        page = core.page
        captured: list[tuple[str, str]] = []
        if core.net is not None:
            recording = core.net.captures.get(core.tab_id)
            if recording is not None:
                captured = recording.requested()
        sources = stream_sources(captured, fetched) if manifest is None else None
        return FileResult.model_validate(await save_stream(page, DownloadManager.of(page), sources, manifest, folder,
                                                           name, await self._identity(), timeout))

    async def _identity(self) -> Identity:
        """What the environment sends: its policy, its profile's cookies, user agent and languages, and the
        page as Referer."""
        core = self._core
        profile = core.page.env_profile
        cookies: list[dict[str, Any]] = []
        if core.net is not None:
            found = await core.guarded(core.net.cdp.channel(core.page).send("Network.getAllCookies"))
            cookies = list(found.get("cookies") or [])
        return Identity(blocked=core.blocked, cookies=cookies, browser_headers=request_headers(profile),
                        referer=core.page.url().toString())
