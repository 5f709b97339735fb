"""A request and its response as a tab's network capture saw them (app/browser/netcapture.py): `Entry`, the page
it belonged to (`PageRecord`), and its HAR 1.2 timings, shared by the capture's own listings (`net_list`,
`net_get`) and the HAR export (app/browser/har.py)."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

_TEXT_MIME = re.compile(r"^(text/|application/(json|[\w.+-]*\+json|javascript|ecmascript|x-javascript|xml|"
                        r"[\w.+-]*\+xml|x-www-form-urlencoded|graphql|x-ndjson|manifest\+json))", re.I)
_HTTP_VERSIONS = {"http/0.9": "HTTP/0.9", "http/1.0": "HTTP/1.0", "http/1.1": "HTTP/1.1", "h2": "HTTP/2",
                  "h3": "HTTP/3", "h2c": "HTTP/2", "quic": "HTTP/3"}


def header(headers: dict[str, str], name: str) -> str | None:
    """A header's value, its name in any case (None when absent)."""
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return str(value)
    return None


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

    def totalms(self) -> float:
        return har_timings(self)[1]

    def summary(self) -> dict[str, Any]:
        row: dict[str, Any] = {"id": self.id, "method": self.method, "url": self.url, "status": self.status,
                               "type": self.type, "mimeType": self.mime_type, "size": self.size,
                               "timeMs": round(self.totalms(), 1), "state": self.state}
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


def ms(value: float) -> float:
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
    timings = {"blocked": ms(blocked), "dns": ms(dns), "connect": ms(connect), "send": ms(send),
               "wait": ms(wait), "receive": ms(receive), "ssl": ms(ssl)}
    total = sum(v for k, v in timings.items() if k != "ssl" and v > 0)  # HAR: ssl is part of connect
    return timings, ms(total)
