"""Network capture of one tab over its CDP channel (app/browser/cdp.py), and HAR 1.2 export.

- `TabCapture.start()` holds the tab's channel and enables `Network` and `Page` on it (and on frames and
  workers that run in their own target, through flat auto-attach); `stop()` disables them and releases the
  channel, which then detaches. Nothing runs for a tab that is not captured: no DevTools page, no events.
- Each request becomes an `Entry` (redirects are separate entries, as in HAR). At most `MAX_ENTRIES` per
  tab: the oldest are dropped. Bodies of text and JSON responses up to `MAX_BODY_BYTES` are fetched with
  `Network.getResponseBody` as soon as they finish (before the browser evicts them); larger or binary bodies
  are omitted with a note, and all bodies of a tab together are bounded by `BODY_BUDGET`.
- `har()` builds a HAR 1.2 log (pages, entries, timings, cookies, content with mimeType) from the live capture,
  on the Qt thread; `write_har_file` redacts given secret strings everywhere in it (every form
  `workflows.redaction` knows, base64 bodies too) and writes it, on any thread (the driver: off the Qt one).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import logging
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import parse_qsl, urlsplit

from app.browser.cdp import CdpChannel, CdpClosed, CdpError, CdpHub
from app.browser.direct import Hop
from app.browser.js import PageTimeout
from app.browser.netmock import MockRegistry
from app.browser.policy import PolicyRegistry
from envs import loggers
from workflows.redaction import Redactor

log = logging.getLogger(loggers.NET)

MAX_ENTRIES = 500
MAX_PAGES = 100
MAX_BODY_BYTES = 1024 * 1024  # 1 MB
BODY_BUDGET = 64 * 1024 * 1024  # all kept bodies of one tab
_TEXT_MIME = re.compile(r"^(text/|application/(json|[\w.+-]*\+json|javascript|ecmascript|x-javascript|xml|"
                        r"[\w.+-]*\+xml|x-www-form-urlencoded|graphql|x-ndjson|manifest\+json))", re.I)
_HTTP_VERSIONS = {"http/0.9": "HTTP/0.9", "http/1.0": "HTTP/1.0", "http/1.1": "HTTP/1.1", "h2": "HTTP/2",
                  "h3": "HTTP/3", "h2c": "HTTP/2", "quic": "HTTP/3"}


class CaptureError(LookupError):
    """There is no capture (never started on the tab) or no such captured request."""

    code = "not_capturing"


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def is_text_mime(mime: str) -> bool:
    return bool(_TEXT_MIME.match(mime or ""))


@dataclass
class PageRecord:
    id: str
    url: str
    started_wall: float
    started_ts: float | None
    title: str = ""
    content_ts: float | None = None
    load_ts: float | None = None


@dataclass
class Entry:
    """One request and its response as CDP reported them."""

    id: str
    request_id: str
    session_id: str | None
    method: str
    url: str
    type: str
    started_wall: float
    started_ts: float
    page_id: str
    frame_id: str = ""
    request_headers: dict[str, str] = field(default_factory=dict)
    sent_headers: dict[str, str] | None = None  # requestWillBeSentExtraInfo: as sent (with Cookie)
    post_data: str | None = None
    has_post_data: bool = False
    status: int | None = None
    status_text: str = ""
    response_headers: dict[str, str] = field(default_factory=dict)
    raw_response_headers: dict[str, str] | None = None  # responseReceivedExtraInfo (with Set-Cookie)
    headers_text: str | None = None
    mime_type: str = ""
    protocol: str = ""
    remote_ip: str = ""
    remote_port: int | None = None
    from_cache: bool = False
    timing: dict[str, float] | None = None
    response_ts: float | None = None
    end_ts: float | None = None
    data_length: int = 0
    encoded_body_length: int = 0
    transfer_size: int | None = None
    body: str | None = None
    body_base64: bool = False
    body_note: str | None = None
    error: str | None = None
    redirect_url: str = ""
    done: bool = False

    @property
    def size(self) -> int:
        if self.data_length:
            return self.data_length
        if self.body is not None:
            return len(base64.b64decode(self.body)) if self.body_base64 else len(self.body.encode("utf-8"))
        return 0

    @property
    def state(self) -> str:
        return "failed" if self.error else "done" if self.done else "pending"

    def total_ms(self) -> float:
        return har_timings(self)[1]

    def summary(self) -> dict[str, Any]:
        row: dict[str, Any] = {"id": self.id, "method": self.method, "url": self.url, "status": self.status,
                               "type": self.type, "mimeType": self.mime_type, "size": self.size,
                               "timeMs": round(self.total_ms(), 1), "state": self.state}
        if self.error:
            row["error"] = self.error
        if self.redirect_url:
            row["redirectURL"] = self.redirect_url
        return row

    def details(self) -> dict[str, Any]:
        timings, total = har_timings(self)
        request: dict[str, Any] = {"headers": self.sent_headers or self.request_headers}
        if self.post_data is not None:
            request["postData"] = self.post_data
        elif self.has_post_data:
            request["postDataNote"] = "the request had a body that the browser did not report"
        response: dict[str, Any] = {"headers": self.raw_response_headers or self.response_headers,
                                    "mimeType": self.mime_type, "size": self.size}
        if self.body is not None:
            response["body"] = self.body
            if self.body_base64:
                response["bodyEncoding"] = "base64"
        if self.body_note:
            response["bodyNote"] = self.body_note
        data: dict[str, Any] = {
            "id": self.id, "method": self.method, "url": self.url, "type": self.type, "state": self.state,
            "status": self.status, "statusText": self.status_text, "protocol": http_version(self.protocol),
            "startedAt": iso(self.started_wall), "timeMs": round(total, 3), "timings": timings,
            "request": request, "response": response, "fromCache": self.from_cache,
        }
        if self.remote_ip:
            data["remoteAddress"] = self.remote_ip + (f":{self.remote_port}" if self.remote_port else "")
        if self.redirect_url:
            data["redirectURL"] = self.redirect_url
        if self.error:
            data["error"] = self.error
        return data


def http_version(protocol: str) -> str:
    return _HTTP_VERSIONS.get((protocol or "").lower(), (protocol or "").upper() or "HTTP/1.1")


def _ms(value: float) -> float:
    return round(value, 3)


def har_timings(entry: Entry) -> tuple[dict[str, float], float]:
    """HAR timings (ms; -1 where not applicable, never for send/wait/receive) and the entry's total time."""
    blocked = dns = connect = ssl = -1.0
    send = wait = receive = 0.0
    t = entry.timing
    end = entry.end_ts
    if t and t.get("requestTime"):
        def ok(name: str) -> bool:
            return t.get(name, -1) is not None and float(t.get(name, -1)) >= 0

        request_time = float(t["requestTime"])
        queued = max(0.0, (request_time - entry.started_ts) * 1000)
        starts = [float(t[name]) for name in ("dnsStart", "connectStart", "sendStart") if ok(name)]
        blocked = queued + (min(starts) if starts else 0.0)
        if ok("dnsStart") and ok("dnsEnd"):
            dns = max(0.0, float(t["dnsEnd"]) - float(t["dnsStart"]))
        if ok("connectStart") and ok("connectEnd"):
            connect = max(0.0, float(t["connectEnd"]) - float(t["connectStart"]))
        if ok("sslStart") and ok("sslEnd"):
            ssl = max(0.0, float(t["sslEnd"]) - float(t["sslStart"]))
        send_end = float(t["sendEnd"]) if ok("sendEnd") else 0.0
        if ok("sendStart") and ok("sendEnd"):
            send = max(0.0, send_end - float(t["sendStart"]))
        headers_end = float(t.get("receiveHeadersEnd", -1))
        if headers_end >= 0:
            wait = max(0.0, headers_end - send_end)
            if end is not None:
                receive = max(0.0, (end - request_time) * 1000 - headers_end)
        elif end is not None:
            wait = max(0.0, (end - request_time) * 1000 - send_end)
    else:
        answered = entry.response_ts if entry.response_ts is not None else end
        if answered is not None:
            wait = max(0.0, (answered - entry.started_ts) * 1000)
        if end is not None and entry.response_ts is not None:
            receive = max(0.0, (end - entry.response_ts) * 1000)
    timings = {"blocked": _ms(blocked), "dns": _ms(dns), "connect": _ms(connect), "send": _ms(send),
               "wait": _ms(wait), "receive": _ms(receive), "ssl": _ms(ssl)}
    total = sum(v for k, v in timings.items() if k != "ssl" and v > 0)  # HAR: ssl is part of connect
    return timings, _ms(total)


# -- HAR pieces ------------------------------------------------------------------------------------------
def _header_list(headers: dict[str, str]) -> list[dict[str, str]]:
    result = []
    for name, value in headers.items():
        for line in str(value).split("\n"):  # CDP joins repeated headers (Set-Cookie) with newlines
            result.append({"name": name, "value": line})
    return result


def _header(headers: dict[str, str], name: str) -> str | None:
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return str(value)
    return None


def _request_cookies(headers: dict[str, str]) -> list[dict[str, Any]]:
    cookies = []
    for part in (_header(headers, "cookie") or "").split(";"):
        if "=" in part:
            name, value = part.split("=", 1)
            cookies.append({"name": name.strip(), "value": value.strip()})
    return cookies


def _response_cookies(headers: dict[str, str]) -> list[dict[str, Any]]:
    cookies = []
    for line in (_header(headers, "set-cookie") or "").split("\n"):
        line = line.strip()
        if not line or "=" not in line.split(";", 1)[0]:
            continue
        name, _, rest = line.partition("=")
        value, _, attributes = rest.partition(";")
        cookie: dict[str, Any] = {"name": name.strip(), "value": value.strip()}
        parsed = SimpleCookie()
        try:
            parsed.load(f"x=y; {attributes}" if attributes.strip() else "x=y")
        except Exception:  # odd attributes: keep name and value
            parsed = SimpleCookie()
        morsel = parsed.get("x")
        if morsel is not None:
            if morsel["path"]:
                cookie["path"] = morsel["path"]
            if morsel["domain"]:
                cookie["domain"] = morsel["domain"]
            if morsel["expires"]:
                try:
                    from email.utils import parsedate_to_datetime

                    cookie["expires"] = parsedate_to_datetime(morsel["expires"]).astimezone(timezone.utc) \
                        .isoformat().replace("+00:00", "Z")
                except (TypeError, ValueError):
                    pass
        lowered = attributes.lower()
        cookie["httpOnly"] = "httponly" in lowered
        cookie["secure"] = "secure" in lowered
        cookies.append(cookie)
    return cookies


def har_entry(entry: Entry) -> dict[str, Any]:
    timings, total = har_timings(entry)
    sent = entry.sent_headers or entry.request_headers
    received = entry.raw_response_headers or entry.response_headers
    query = [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(entry.url).query, keep_blank_values=True)]
    request: dict[str, Any] = {
        "method": entry.method, "url": entry.url, "httpVersion": http_version(entry.protocol),
        "cookies": _request_cookies(sent), "headers": _header_list(sent), "queryString": query,
        "headersSize": -1, "bodySize": len(entry.post_data.encode("utf-8")) if entry.post_data else 0,
    }
    if entry.post_data is not None:
        mime = _header(sent, "content-type") or "application/octet-stream"
        post: dict[str, Any] = {"mimeType": mime, "text": entry.post_data}
        if mime.startswith("application/x-www-form-urlencoded"):
            post["params"] = [{"name": k, "value": v} for k, v in parse_qsl(entry.post_data, keep_blank_values=True)]
        request["postData"] = post
    content: dict[str, Any] = {"size": entry.size, "mimeType": entry.mime_type or "x-unknown"}
    if entry.body is not None:
        content["text"] = entry.body
        if entry.body_base64:
            content["encoding"] = "base64"
    if entry.body_note:
        content["comment"] = entry.body_note
    if entry.encoded_body_length and entry.data_length:
        content["compression"] = entry.data_length - entry.encoded_body_length
    response: dict[str, Any] = {
        "status": entry.status or 0, "statusText": entry.status_text or "",
        "httpVersion": http_version(entry.protocol), "cookies": _response_cookies(received),
        "headers": _header_list(received), "content": content, "redirectURL": entry.redirect_url,
        "headersSize": len(entry.headers_text.encode("utf-8")) if entry.headers_text else -1,
        "bodySize": entry.encoded_body_length if entry.done and not entry.from_cache else (0 if entry.from_cache else -1),
    }
    har: dict[str, Any] = {
        "pageref": entry.page_id, "startedDateTime": iso(entry.started_wall), "time": total,
        "request": request, "response": response, "cache": {}, "timings": timings,
        "_resourceType": entry.type, "_requestId": entry.id,
    }
    if entry.remote_ip:
        har["serverIPAddress"] = entry.remote_ip.strip("[]")
    if entry.remote_port:
        har["connection"] = str(entry.remote_port)
    if entry.error:
        har["_error"] = entry.error
    return har


# -- the capture of one tab ------------------------------------------------------------------------------
class TabCapture:
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
        length = _header(entry.raw_response_headers or entry.response_headers, "content-length")
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
        """The capture as a HAR 1.2 log, in new containers (reading the live capture: on the Qt thread); redact
        and write it anywhere (`write_har_file`)."""
        url, title = self._current_page()
        pages = []
        for page in self.pages:
            if page is self.pages[-1] and page.url in (url, "") and title:
                page.title = title
            base = page.started_ts
            pages.append({
                "startedDateTime": iso(page.started_wall), "id": page.id, "title": page.title or page.url,
                "pageTimings": {
                    "onContentLoad": _ms(max(0.0, (page.content_ts - base) * 1000)) if base and page.content_ts else -1,
                    "onLoad": _ms(max(0.0, (page.load_ts - base) * 1000)) if base and page.load_ts else -1,
                },
            })
        known_pages = {page["id"] for page in pages}
        entries = []
        for entry in sorted(self.entries.values(), key=lambda e: (e.started_wall, e.id)):
            item = har_entry(entry)
            if item["pageref"] not in known_pages:
                del item["pageref"]
            entries.append(item)
        log_data: dict[str, Any] = {
            "version": "1.2", "creator": {"name": "BrowserPilot", "version": creator_version},
            "browser": {"name": "QtWebEngine (Chromium)", "version": browser_version},
            "pages": pages, "entries": entries,
        }
        if self.dropped:
            log_data["comment"] = f"{self.dropped} older requests were dropped (at most {MAX_ENTRIES} are kept)"
        return {"log": log_data}


def write_har_file(path: Path, har: dict[str, Any], redact: Iterable[str] | Mapping[str, str] = ()) -> dict[str, Any]:
    """Redact and write a HAR built by `TabCapture.har` (new containers only, so any thread may do it: the driver
    does it off the Qt thread). `redact`: secret strings (each becomes `[REDACTED]`) or {secret: replacement}
    (a workflow run passes `{value: "<secret:name>"}`); every form of each is replaced (`workflows.redaction`)."""
    redactor = Redactor.of(redact)
    if redactor:
        har = redactor(har)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_text(json.dumps(har, ensure_ascii=False, indent=1), "utf-8")
    partial.replace(path)
    return {"path": str(path), "entries": len(har["log"]["entries"]), "pages": len(har["log"]["pages"])}


_HANDLERS: dict[str, Callable[[TabCapture, dict[str, Any], str | None], None]] = {
    "Network.requestWillBeSent": TabCapture._request,
    "Network.requestWillBeSentExtraInfo": TabCapture._request_extra,
    "Network.responseReceived": TabCapture._response,
    "Network.responseReceivedExtraInfo": TabCapture._response_extra,
    "Network.dataReceived": TabCapture._data,
    "Network.loadingFinished": TabCapture._finished,
    "Network.loadingFailed": TabCapture._failed,
    "Page.domContentEventFired": TabCapture._dom_content,
    "Page.loadEventFired": TabCapture._load,
    "Target.attachedToTarget": TabCapture._attached,
    "Target.detachedFromTarget": TabCapture._detached,
}


class CaptureRegistry:
    """The capture of each tab that ever ran one (dropped when the tab closes)."""

    def __init__(self) -> None:
        self._captures: dict[str, TabCapture] = {}

    def get(self, tab_id: str) -> TabCapture | None:
        return self._captures.get(tab_id)

    def ensure(self, tab_id: str, channel: CdpChannel, current_page: Callable[[], tuple[str, str]]) -> TabCapture:
        capture = self._captures.get(tab_id)
        if capture is None or capture.channel is not channel:
            capture = self._captures[tab_id] = TabCapture(tab_id, channel, current_page)
            # The channel goes when its tab closes: so does the capture.
            channel.destroyed.connect(functools.partial(self._forget, tab_id, capture))
        return capture

    def _forget(self, tab_id: str, capture: TabCapture, *_args: object) -> None:
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
