"""Network capture of one tab over its CDP channel (app/browser/cdp.py).

- `NetworkCapture.start()` holds the tab's channel and enables `Network` and `Page` on it (and on frames and
  workers that run in their own target, through flat auto-attach); `stop()` disables them and releases the
  channel, which then detaches. Nothing runs for a tab that is not captured: no DevTools page, no events.
- Each request becomes an `Entry` (app/browser/netentry.py; redirects are separate entries, as in HAR). At
  most `MAX_ENTRIES` per tab: the oldest are dropped. Bodies of text and JSON responses up to `MAX_BODY_BYTES`
  are fetched with `Network.getResponseBody` as soon as they finish (before the browser evicts them); larger or
  binary bodies are omitted with a note, and all bodies of a tab together are bounded by `BODY_BUDGET`.
- `har()` is the live capture as a HAR 1.2 log (app/browser/har.py, which also writes it, redacted).
- `CaptureRegistry`: each tab's capture; `NetServices`: what a tab needs for CDP, capture, policies and mocks.
"""
from __future__ import annotations

import asyncio
import base64
import functools
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from app.browser.cdp import CdpChannel, CdpClosed, CdpError, CdpHub
from app.browser.direct import Hop
from app.browser.har import har_log
from app.browser.js import PageTimeout
from app.browser.netentry import Entry, PageRecord, header, is_text_mime
from app.browser.netmock import MockRegistry
from app.browser.policy import PolicyRegistry
from plumbing import loggers

log = logging.getLogger(loggers.NET)

MAX_ENTRIES = 500
MAX_PAGES = 100
MAX_BODY_BYTES = 1024 * 1024  # 1 MB
BODY_BUDGET = 64 * 1024 * 1024  # all kept bodies of one tab


class CaptureError(LookupError):
    """There is no capture (never started on the tab) or no such captured request."""

    code = "not_capturing"


# -- the capture of one tab ------------------------------------------------------------------------------
class NetworkCapture:
    """Requests of one tab while capture is on (and after `stop`, until the next `start` or the tab closes)."""

    HOLDER = "capture"

    def __init__(self, tab_id: str, channel: CdpChannel, current_page: Callable[[], tuple[str, str]]) -> None:
        self.tab_id = tab_id
        self.channel = channel
        self._current_page = current_page  # (url, title) of the tab now
        self.entries: OrderedDict[str, Entry] = OrderedDict()
        self._live: dict[tuple[str | None, str], Entry] = {}  # requests not finished yet
        self._latest: dict[tuple[str | None, str], Entry] = {}  # the latest entry of each request id
        self._early: dict[tuple[str | None, str], dict[str, dict[str, str]]] = {}  # ExtraInfo before its request
        self.pages: list[PageRecord] = []
        self.running = False
        self.dropped = 0
        self._seq = 0
        self._page_seq = 0
        self._main_frame = ""
        self._sessions: set[str] = set()
        self._unlisten: Callable[[], None] | None = None
        self._body_tasks: set[asyncio.Task[None]] = set()
        self._body_bytes = 0
        self._wall_offset: float | None = None  # wall clock - CDP monotonic clock
        channel.closed.connect(self._on_channel_closed)

    def requested(self) -> list[tuple[str, str]]:
        """(URL, response content type) of each captured request, oldest first."""
        return [(entry.url, entry.mime_type) for entry in self.entries.values()]

    # -- start and stop ------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Begin a fresh capture (earlier entries are dropped)."""
        if self.running:
            return
        self.entries.clear()
        self._live.clear()
        self._latest.clear()
        self._early.clear()
        self.pages.clear()
        self.dropped = 0
        self._body_bytes = 0
        self._sessions.clear()
        self._main_frame = self.channel.target_id
        self.channel.hold(self.HOLDER)
        self._unlisten = self.channel.add_listener(self._on_event)
        self.running = True
        try:
            await self._enable(None)
            await self.channel.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False,
                                                             "flatten": True})
        except BaseException:
            await self.stop()
            raise
        url, title = self._current_page()
        self._new_page(url, time.time(), None, title)
        log.info("capture started on %s", self.tab_id)

    async def _enable(self, session: str | None) -> None:
        await self.channel.send("Network.enable", {"maxTotalBufferSize": 2 * BODY_BUDGET,
                                                   "maxResourceBufferSize": 2 * MAX_BODY_BYTES},
                                session_id=session)
        if session is None:
            await self.channel.send("Page.enable", session_id=session)

    async def stop(self) -> None:
        """Stop capturing; entries stay readable. The channel detaches if nothing else holds it."""
        if not self.running:
            return
        self.running = False
        if self._body_tasks:
            await asyncio.wait(set(self._body_tasks), timeout=5.0)
        if self.channel.attached:
            for method, params in (("Target.setAutoAttach", {"autoAttach": False, "waitForDebuggerOnStart": False}),
                                   ("Network.disable", {}), ("Page.disable", {})):
                try:
                    await self.channel.send(method, params, timeout=5.0)
                except (CdpError, CdpClosed, PageTimeout) as exc:
                    log.info("capture stop on %s: %s", self.tab_id, exc)
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        for entry in self._live.values():
            if not entry.done and not entry.error:
                entry.error = "capture stopped before the request finished"
        self._live.clear()
        self.channel.release(self.HOLDER, detach_now=True)
        log.info("capture stopped on %s (%d entries)", self.tab_id, len(self.entries))

    def _on_channel_closed(self, reason: str) -> None:
        if self.running:
            log.warning("capture on %s ended: %s", self.tab_id, reason)
            self.running = False
            if self._unlisten is not None:
                self._unlisten()
                self._unlisten = None
            self._live.clear()

    async def settle(self, timeout: float = 5.0) -> None:
        """Wait for bodies still being fetched (before listing or exporting)."""
        if self._body_tasks:
            await asyncio.wait(set(self._body_tasks), timeout=timeout)

    # -- events --------------------------------------------------------------------------------------------
    def _wall(self, ts: float | None) -> float:
        if ts is None or self._wall_offset is None:
            return time.time()
        return ts + self._wall_offset

    def _new_page(self, url: str, wall: float, ts: float | None, title: str = "") -> PageRecord:
        self._page_seq += 1
        page = PageRecord(f"page_{self._page_seq}", url, wall, ts, title)
        self.pages.append(page)
        del self.pages[:-MAX_PAGES]
        return page

    def _on_event(self, method: str, params: dict[str, Any], session: str | None) -> None:
        if not self.running:
            return
        handler = _HANDLERS.get(method)
        if handler is not None:
            handler(self, params, session)

    def _attached(self, params: dict[str, Any], session: str | None) -> None:
        child = params.get("sessionId")
        kind = (params.get("targetInfo") or {}).get("type")
        if not child or kind not in ("iframe", "worker", "shared_worker", "service_worker", "page"):
            return
        self._sessions.add(child)
        task = asyncio.ensure_future(self._enable_child(child))
        self._body_tasks.add(task)
        task.add_done_callback(self._body_tasks.discard)

    async def _enable_child(self, child: str) -> None:
        try:
            await self._enable(child)
            await self.channel.send("Runtime.runIfWaitingForDebugger", session_id=child)
        except (CdpError, CdpClosed, PageTimeout) as exc:
            log.info("capture: could not follow %s: %s", child, exc)

    def _request(self, params: dict[str, Any], session: str | None) -> None:
        request_id = str(params.get("requestId"))
        ts = float(params.get("timestamp") or 0.0)
        wall = params.get("wallTime")
        if wall:
            self._wall_offset = float(wall) - ts
        key = (session, request_id)
        redirect = params.get("redirectResponse")
        previous = self._live.get(key)
        if redirect is not None and previous is not None:
            self._apply_response(previous, redirect, ts)
            previous.redirect_url = params["request"]["url"]
            previous.end_ts = ts
            previous.done = True
        request = params.get("request") or {}
        kind = str(params.get("type") or "Other").lower()
        frame = str(params.get("frameId") or "")
        if kind == "document" and frame == self._main_frame and session is None and redirect is None:
            self._new_page(request.get("url", ""), self._wall(ts), ts)
        self._seq += 1
        entry = Entry(
            id=f"{self.tab_id}.{self._seq}", request_id=request_id, session_id=session,
            method=str(request.get("method", "GET")), url=str(request.get("url", "")) + str(request.get("urlFragment", "")),
            type=kind, started_wall=self._wall(ts), started_ts=ts,
            page_id=self.pages[-1].id if self.pages else "page_0", frame_id=frame,
            request_headers={str(k): str(v) for k, v in (request.get("headers") or {}).items()},
            has_post_data=bool(request.get("hasPostData")),
        )
        if "postData" in request:
            entry.post_data = str(request["postData"])
        elif request.get("postDataEntries"):
            try:
                entry.post_data = b"".join(base64.b64decode(part.get("bytes", "")) for part in request["postDataEntries"]) \
                    .decode("utf-8", "replace")
            except ValueError:
                pass
        early = self._early.pop(key, None)
        if early is not None:
            entry.sent_headers = early.get("request")
            entry.raw_response_headers = early.get("response")
        self._live[key] = entry
        self._latest[key] = entry
        self.entries[entry.id] = entry
        while len(self.entries) > MAX_ENTRIES:
            _old_id, old = self.entries.popitem(last=False)
            self.dropped += 1
            if old.body is not None:
                self._body_bytes -= len(old.body)
            old_key = (old.session_id, old.request_id)
            for index in (self._live, self._latest):
                if index.get(old_key) is old:
                    del index[old_key]

    def _stash(self, key: tuple[str | None, str], kind: str, headers: dict[str, str]) -> None:
        self._early.setdefault(key, {})[kind] = headers
        while len(self._early) > MAX_ENTRIES:
            del self._early[next(iter(self._early))]

    def _request_extra(self, params: dict[str, Any], session: str | None) -> None:
        key = (session, str(params.get("requestId")))
        headers = {str(k): str(v) for k, v in (params.get("headers") or {}).items()}
        entry = self._live.get(key)
        if entry is None or entry.sent_headers is not None:  # not seen yet, or it belongs to the next redirect hop
            self._stash(key, "request", headers)
        else:
            entry.sent_headers = headers

    def _apply_response(self, entry: Entry, response: dict[str, Any], ts: float) -> None:
        entry.status = int(response.get("status") or 0)
        entry.status_text = str(response.get("statusText") or "")
        entry.response_headers = {str(k): str(v) for k, v in (response.get("headers") or {}).items()}
        entry.mime_type = str(response.get("mimeType") or "")
        entry.protocol = str(response.get("protocol") or entry.protocol)
        entry.remote_ip = str(response.get("remoteIPAddress") or "")
        entry.remote_port = response.get("remotePort")
        entry.from_cache = bool(response.get("fromDiskCache") or response.get("fromPrefetchCache")
                                or response.get("fromServiceWorker"))
        entry.timing = response.get("timing") or entry.timing
        if response.get("headersText"):
            entry.headers_text = str(response["headersText"])
        entry.response_ts = ts

    def _response(self, params: dict[str, Any], session: str | None) -> None:
        entry = self._live.get((session, str(params.get("requestId"))))
        if entry is not None:
            self._apply_response(entry, params.get("response") or {}, float(params.get("timestamp") or 0.0))

    def _response_extra(self, params: dict[str, Any], session: str | None) -> None:
        key = (session, str(params.get("requestId")))
        headers = {str(k): str(v) for k, v in (params.get("headers") or {}).items()}
        entry = self._latest.get(key)  # may arrive after loadingFinished
        if entry is None:
            self._stash(key, "response", headers)
            return
        entry.raw_response_headers = headers
        if params.get("headersText"):
            entry.headers_text = str(params["headersText"])

    def _data(self, params: dict[str, Any], session: str | None) -> None:
        entry = self._live.get((session, str(params.get("requestId"))))
        if entry is not None:
            entry.data_length += int(params.get("dataLength") or 0)
            entry.encoded_body_length += int(params.get("encodedDataLength") or 0)

    def _finished(self, params: dict[str, Any], session: str | None) -> None:
        entry = self._live.pop((session, str(params.get("requestId"))), None)
        if entry is None:
            return
        entry.end_ts = float(params.get("timestamp") or 0.0)
        entry.transfer_size = int(params.get("encodedDataLength") or 0)
        entry.data_length += int(params.get("dataLength") or 0)  # the bridge's sums of Network.dataReceived
        entry.encoded_body_length += int(params.get("encodedBodyLength") or 0)
        entry.done = True
        self._want_body(entry)

    def _failed(self, params: dict[str, Any], session: str | None) -> None:
        entry = self._live.pop((session, str(params.get("requestId"))), None)
        if entry is None:
            return
        entry.end_ts = float(params.get("timestamp") or 0.0)
        entry.data_length += int(params.get("dataLength") or 0)
        entry.encoded_body_length += int(params.get("encodedBodyLength") or 0)
        reason = str(params.get("errorText") or "failed")
        if params.get("blockedReason"):
            reason += f" ({params['blockedReason']})"
        if params.get("canceled"):
            reason += " (canceled)"
        entry.error = reason

    def _dom_content(self, params: dict[str, Any], session: str | None) -> None:
        if session is None and self.pages and self.pages[-1].content_ts is None:
            self.pages[-1].content_ts = float(params.get("timestamp") or 0.0)

    def _load(self, params: dict[str, Any], session: str | None) -> None:
        if session is None and self.pages and self.pages[-1].load_ts is None:
            self.pages[-1].load_ts = float(params.get("timestamp") or 0.0)

    def _detached(self, params: dict[str, Any], session: str | None) -> None:
        self._sessions.discard(str(params.get("sessionId")))

    # -- bodies --------------------------------------------------------------------------------------------
    def _want_body(self, entry: Entry) -> None:
        if entry.status in (204, 304) or (entry.status is not None and 300 <= entry.status < 400):
            return
        if entry.method == "HEAD":
            return
        length = header(entry.raw_response_headers or entry.response_headers, "content-length")
        declared = int(length) if length and length.strip().isdigit() else 0
        size = max(entry.data_length, entry.encoded_body_length, declared)
        if not entry.data_length and declared:
            entry.data_length = declared
        if not is_text_mime(entry.mime_type):
            if size:
                entry.body_note = f"the body ({size} bytes of {entry.mime_type or 'unknown type'}) " \
                                  f"is not text or JSON and was not kept"
            return
        if size > MAX_BODY_BYTES:
            entry.body_note = f"the body ({size} bytes) is larger than 1 MB ({MAX_BODY_BYTES} bytes) and was omitted"
            return
        if self._body_bytes + size > BODY_BUDGET:
            entry.body_note = "the body was omitted: this tab's capture already keeps 64 MB of bodies"
            return
        task = asyncio.ensure_future(self._fetch_body(entry))
        self._body_tasks.add(task)
        task.add_done_callback(self._body_tasks.discard)

    async def _fetch_body(self, entry: Entry) -> None:
        try:
            result = await self.channel.send("Network.getResponseBody", {"requestId": entry.request_id},
                                             session_id=entry.session_id, timeout=10.0)
        except (CdpError, CdpClosed, PageTimeout) as exc:
            entry.body_note = f"the body could not be read: {exc}"
            return
        body = str(result.get("body", ""))
        encoded = bool(result.get("base64Encoded"))
        if encoded:
            try:
                raw = base64.b64decode(body)
                text = raw.decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                text = None
            if text is not None:
                body, encoded = text, False
        size = len(body) if encoded else len(body.encode("utf-8"))
        if size > MAX_BODY_BYTES:
            entry.body_note = f"the body ({size} bytes) is larger than 1 MB ({MAX_BODY_BYTES} bytes) and was omitted"
            return
        if entry.id not in self.entries:
            return  # dropped meanwhile
        entry.body, entry.body_base64 = body, encoded
        if not entry.data_length:
            entry.data_length = len(base64.b64decode(body)) if encoded else size
        self._body_bytes += len(body)

    def add_direct(self, hop: Hop) -> None:
        """A request the app sent itself for this tab (`net_request`): listed and written to the HAR."""
        if not self.running:
            return
        self._seq += 1
        entry = Entry(
            id=f"{self.tab_id}.{self._seq}", request_id=f"direct-{self._seq}", session_id=None, method=hop.method,
            url=hop.url, type="other", started_wall=hop.started_wall, started_ts=0.0,
            page_id=self.pages[-1].id if self.pages else "page_0", request_headers=dict(hop.request_headers),
            post_data=hop.body, has_post_data=hop.body is not None, status=hop.status or None,
            status_text=hop.status_text, response_headers=dict(hop.response_headers), mime_type=hop.mime,
            response_ts=hop.elapsed, end_ts=hop.elapsed, redirect_url=hop.redirect_url, error=hop.error,
            done=hop.error is None)
        if hop.error is None and is_text_mime(hop.mime) and len(hop.response_body) <= MAX_BODY_BYTES:
            entry.body = hop.response_body
            entry.data_length = len(hop.response_body.encode("utf-8"))
        entry.body_note = "sent by BrowserPilot itself (net_request), not by the page"
        self.entries[entry.id] = entry
        while len(self.entries) > MAX_ENTRIES:
            self.entries.popitem(last=False)
            self.dropped += 1

    # -- reading -------------------------------------------------------------------------------------------
    def list(self, url_contains: str | None = None, limit: int = MAX_ENTRIES) -> list[dict[str, Any]]:
        rows = [e for e in self.entries.values() if not url_contains or url_contains in e.url]
        return [e.summary() for e in rows[-limit:]] if limit > 0 else []

    def get(self, entry_id: str) -> dict[str, Any]:
        entry = self.entries.get(entry_id)
        if entry is None:
            raise CaptureError(f"there is no captured request {entry_id!r} (at most {MAX_ENTRIES} are kept per tab; "
                               f"net_list shows the ids)")
        return entry.details()

    def har(self, creator_version: str, browser_version: str) -> dict[str, Any]:
        """The capture as a HAR 1.2 log (app/browser/har.py), in new containers (reading the live capture: on the
        Qt thread); redact and write it anywhere (`write_har_file`)."""
        return har_log(self.pages, self.entries.values(), self._current_page(), self.dropped, creator_version,
                       browser_version, MAX_ENTRIES)


_HANDLERS: dict[str, Callable[[NetworkCapture, dict[str, Any], str | None], None]] = {
    "Network.requestWillBeSent": NetworkCapture._request,
    "Network.requestWillBeSentExtraInfo": NetworkCapture._request_extra,
    "Network.responseReceived": NetworkCapture._response,
    "Network.responseReceivedExtraInfo": NetworkCapture._response_extra,
    "Network.dataReceived": NetworkCapture._data,
    "Network.loadingFinished": NetworkCapture._finished,
    "Network.loadingFailed": NetworkCapture._failed,
    "Page.domContentEventFired": NetworkCapture._dom_content,
    "Page.loadEventFired": NetworkCapture._load,
    "Target.attachedToTarget": NetworkCapture._attached,
    "Target.detachedFromTarget": NetworkCapture._detached,
}


class CaptureRegistry:
    """The capture of each tab that ever ran one (dropped when the tab closes)."""

    def __init__(self) -> None:
        self._captures: dict[str, NetworkCapture] = {}

    def get(self, tab_id: str) -> NetworkCapture | None:
        return self._captures.get(tab_id)

    def ensure(self, tab_id: str, channel: CdpChannel, current_page: Callable[[], tuple[str, str]]) -> NetworkCapture:
        capture = self._captures.get(tab_id)
        if capture is None or capture.channel is not channel:
            capture = self._captures[tab_id] = NetworkCapture(tab_id, channel, current_page)
            # The channel goes when its tab closes: so does the capture.
            channel.destroyed.connect(functools.partial(self._forget, tab_id, capture))
        return capture

    def _forget(self, tab_id: str, capture: NetworkCapture, *_args: object) -> None:
        if self._captures.get(tab_id) is capture:
            self.drop(tab_id)

    def drop(self, tab_id: str) -> None:
        capture = self._captures.pop(tab_id, None)
        if capture is not None:
            capture.running = False

    def capturing(self, tab_id: str) -> bool:
        capture = self._captures.get(tab_id)
        return capture is not None and capture.running


@dataclass
class NetServices:
    """What a tab driver needs for page_cdp, capture and mocks: the CDP hub, the captures, the domain
    policies, the request mocks (app/browser/netmock.py)."""

    cdp: CdpHub
    captures: CaptureRegistry
    policies: PolicyRegistry | None = None
    mocks: MockRegistry = field(default_factory=MockRegistry)
