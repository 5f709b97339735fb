"""Answering a tab's requests with given responses (net_mock), over the tab's port-less CDP channel.

`TabMock.start(rules)` holds the tab's channel and enables the `Fetch` domain on the tab's own target with
one URL pattern per rule (`*<urlContains>*`, so requests no rule names are never paused). Each paused
request is answered at once:

- the environment's domain policy first: a URL it blocks is failed as `BlockedByClient` (the profile's
  request interceptor blocks it anyway; a mock never lets a blocked request look answered);
- else the first rule whose `urlContains` is in the URL: `Fetch.fulfillRequest` with its status, headers
  and body (default `Content-Type`: JSON when the body parses as JSON, else text; a cross-origin request
  gets `Access-Control-Allow-Origin` for its origin unless the rule sets one);
- else the request continues unchanged.

Covered (measured in tests/integration/test_compat_tools.py): fetch, XMLHttpRequest, scripts, images,
style sheets, iframe documents and the tab's own navigations — everything the page's target loads.
Not measured: requests of service workers and dedicated/shared workers (other CDP targets, which this
does not attach to, so most likely not covered) and CORS preflights (OPTIONS) of cross-origin requests.
`stop()` disables Fetch and releases the channel. A closed tab drops its mock.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlsplit

from app.browser.cdp import CdpChannel, CdpClosed, CdpError
from app.browser.js import PageTimeout
from plumbing import loggers

log = logging.getLogger(loggers.NET)

HOLDER = "net_mock"


@dataclass
class MockRule:
    url_contains: str
    status: int = 200
    body: str = "{}"
    headers: dict[str, str] = field(default_factory=dict)
    hits: int = 0


def url_pattern(text: str) -> str:
    """A CDP Fetch urlPattern matching URLs that contain `text` (`*` and `?` are wildcards there)."""
    escaped = text.replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?")
    return f"*{escaped}*"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def response_headers(rule: MockRule, request: dict[str, Any], page_url: str) -> list[dict[str, str]]:
    headers = dict(rule.headers)
    names = {name.lower() for name in headers}
    if "content-type" not in names:
        try:
            json.loads(rule.body)
            headers["Content-Type"] = "application/json; charset=utf-8"
        except ValueError:
            headers["Content-Type"] = "text/plain; charset=utf-8"
    origin = next((v for k, v in (request.get("headers") or {}).items() if k.lower() == "origin"), "") \
        or _origin(page_url)
    if "access-control-allow-origin" not in names and origin and origin != _origin(str(request.get("url", ""))):
        headers["Access-Control-Allow-Origin"] = origin
        headers["Access-Control-Allow-Credentials"] = "true"
    return [{"name": name, "value": str(value)} for name, value in headers.items()]


class TabMock:
    """The mock of one tab: its rules and the Fetch listener on the tab's channel."""

    def __init__(self, channel: CdpChannel, blocked: Callable[[str], str | None], page_url: Callable[[], str]) -> None:
        self.channel = channel
        self.rules: list[MockRule] = []
        self._blocked = blocked
        self._page_url = page_url
        self._unlisten: Callable[[], None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.passed = 0
        self.refused = 0

    @property
    def active(self) -> bool:
        return self._unlisten is not None

    async def start(self, rules: list[MockRule]) -> None:
        """Replace the rules (and the patterns) and make sure Fetch is on."""
        self.channel.hold(HOLDER)
        if self._unlisten is None:
            self._unlisten = self.channel.add_listener(self._on_event)
        self.rules = rules
        try:
            await self.channel.send("Fetch.enable", {"patterns": [
                {"urlPattern": url_pattern(rule.url_contains), "requestStage": "Request"} for rule in rules]})
        except BaseException:
            await self.stop()
            raise
        log.info("net_mock on with %d rule(s)", len(rules))

    async def stop(self) -> dict[str, Any]:
        unlisten, self._unlisten = self._unlisten, None
        if unlisten is not None:
            unlisten()
        if self.channel.attached:
            try:
                await self.channel.send("Fetch.disable", timeout=5.0)
            except (CdpError, CdpClosed, PageTimeout) as exc:
                log.info("Fetch.disable: %s", exc)
        self.channel.release(HOLDER)
        summary = {"answered": sum(rule.hits for rule in self.rules), "passed": self.passed, "refused": self.refused}
        log.info("net_mock off (%s)", summary)
        return summary

    def _on_event(self, method: str, params: dict[str, Any], session_id: str | None) -> None:
        if method != "Fetch.requestPaused" or session_id is not None:
            return
        task = asyncio.ensure_future(self._answer(params))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, params: dict[str, Any]) -> None:
        request_id = params.get("requestId")
        request = params.get("request") or {}
        url = str(request.get("url", ""))
        try:
            if self._blocked(url) is not None:
                self.refused += 1
                await self.channel.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})
                return
            rule = next((rule for rule in self.rules if rule.url_contains in url), None)
            if rule is None or self._unlisten is None:
                self.passed += 1
                await self.channel.send("Fetch.continueRequest", {"requestId": request_id})
                return
            rule.hits += 1
            await self.channel.send("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": rule.status,
                "responseHeaders": response_headers(rule, request, self._page_url()),
                "body": base64.b64encode(rule.body.encode("utf-8")).decode("ascii")})
        except (CdpError, CdpClosed, PageTimeout) as exc:  # the request went away (navigation, tab closed)
            log.info("net_mock could not answer a request: %s", exc)


class MockRegistry:
    """The mock of each tab that has one."""

    def __init__(self) -> None:
        self._mocks: dict[str, TabMock] = {}

    def get(self, tab_id: str) -> TabMock | None:
        return self._mocks.get(tab_id)

    def ensure(self, tab_id: str, channel: CdpChannel, blocked: Callable[[str], str | None],
               page_url: Callable[[], str]) -> TabMock:
        mock = self._mocks.get(tab_id)
        if mock is None or mock.channel is not channel:
            mock = self._mocks[tab_id] = TabMock(channel, blocked, page_url)
            channel.destroyed.connect(lambda *_args, key=tab_id, m=mock: self._mocks.get(key) is m
                                      and self._mocks.pop(key, None))
        return mock

    def drop(self, tab_id: str) -> TabMock | None:
        return self._mocks.pop(tab_id, None)
