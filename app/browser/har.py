"""HAR 1.2 from a tab's network capture (app/browser/netcapture.py): `har_log` builds the log (pages, entries,
timings, cookies, content with mimeType) in new containers; `write_har_file` redacts given secret strings
everywhere in it (every form `workflows.redaction` knows, base64 bodies too) and writes it atomically, on any
thread (the driver: off the Qt one)."""

from __future__ import annotations

import json
from datetime import timezone
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qsl, urlsplit

from app.browser.netentry import (
    Entry,
    PageRecord,
    har_timings,
    header,
    http_version,
    iso,
    ms,
)
from workflows.redaction import Redactor


def _header_list(headers: dict[str, str]) -> list[dict[str, str]]:
    result = []
    for name, value in headers.items():
        for line in str(value).split("\n"):  # CDP joins repeated headers (Set-Cookie) with newlines
            result.append({"name": name, "value": line})
    return result


def _request_cookies(headers: dict[str, str]) -> list[dict[str, Any]]:
    cookies = []
    for part in (header(headers, "cookie") or "").split(";"):
        if "=" in part:
            name, value = part.split("=", 1)
            cookies.append({"name": name.strip(), "value": value.strip()})
    return cookies


def _response_cookies(headers: dict[str, str]) -> list[dict[str, Any]]:
    cookies = []
    for line in (header(headers, "set-cookie") or "").split("\n"):
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
        mime = header(sent, "content-type") or "application/octet-stream"
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


def har_log(pages: list[PageRecord], entries: Iterable[Entry], current_page: tuple[str, str], dropped: int,
            creator_version: str, browser_version: str, kept_at_most: int) -> dict[str, Any]:
    """The capture as a HAR 1.2 log, in new containers (reading the live capture: on the Qt thread)."""
    url, title = current_page
    har_pages = []
    for page in pages:
        if page is pages[-1] and page.url in (url, "") and title:
            page.title = title
        base = page.started_ts
        har_pages.append({
            "startedDateTime": iso(page.started_wall), "id": page.id, "title": page.title or page.url,
            "pageTimings": {
                "onContentLoad": ms(max(0.0, (page.content_ts - base) * 1000)) if base and page.content_ts else -1,
                "onLoad": ms(max(0.0, (page.load_ts - base) * 1000)) if base and page.load_ts else -1,
            },
        })
    known_pages = {page["id"] for page in har_pages}
    har_entries = []
    for entry in sorted(entries, key=lambda e: (e.started_wall, e.id)):
        item = har_entry(entry)
        if item["pageref"] not in known_pages:
            del item["pageref"]
        har_entries.append(item)
    log_data: dict[str, Any] = {
        "version": "1.2", "creator": {"name": "BrowserPilot", "version": creator_version},
        "browser": {"name": "QtWebEngine (Chromium)", "version": browser_version},
        "pages": har_pages, "entries": har_entries,
    }
    if dropped:
        log_data["comment"] = f"{dropped} older requests were dropped (at most {kept_at_most} are kept)"
    return {"log": log_data}


def write_har_file(path: Path, har: dict[str, Any], redact: Iterable[str] | Mapping[str, str] = ()) -> dict[str, Any]:
    """Redact and write a HAR built by `har_log` (new containers only, so any thread may do it: the driver
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
