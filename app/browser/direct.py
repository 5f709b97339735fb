"""Requests the app sends itself on behalf of a tab (`net_request`; the `http-request` node's `via: direct`).

They are held to what the browser would do: every hop (the first URL and each redirect) must pass the
environment's domain policy, a blocked one fails naming the rule; each hop carries only the cookies the
browser itself would send to that hop's URL (the profile's own cookie jar, asked over the tab's DevTools
channel, so `Secure`, path and domain rules apply), so a redirect to another host never carries the first
host's cookies; and when the tab is capturing its network, each hop is an entry of its HAR.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Awaitable, Callable
from urllib.parse import urljoin, urlsplit

from plumbing import loggers


log = logging.getLogger(loggers.NET)

MAX_REDIRECTS = 10
REDIRECTS = (301, 302, 303, 307, 308)
_SENDER = ThreadPoolExecutor(max_workers=4, thread_name_prefix="browserpilot-net")
"""Plain Python threads for the blocking sends: the Qt loop's default executor would start QThreads (qasync's)
that outlive the loop, and the loop itself must stay free for the page."""


class DirectRequestError(Exception):
    """The request was refused (policy, bad URL) or could not be sent."""


@dataclass
class Hop:
    """One request and its response, for the tab's capture."""

    method: str
    url: str
    request_headers: dict[str, str]
    body: str | None
    started_wall: float
    elapsed: float = 0.0
    status: int = 0
    status_text: str = ""
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: str = ""
    mime: str = ""
    redirect_url: str = ""
    error: str | None = None


PolicyCheck = Callable[[str], str | None]
"""A URL → why the environment's policy blocks it (None: allowed)."""
CookiesFor = Callable[[str], Awaitable[dict[str, str]]]
"""A URL → the cookies the browser would send to it."""


async def send(method: str, url: str, headers: dict[str, str], body: str | None, timeout: float, *,
               blocked: PolicyCheck, cookies_for: CookiesFor,
               record: Callable[[Hop], None] | None = None) -> dict[str, object]:
    """Send the request, following redirects by the browser's rules; `{status, url, headers, body, hops}`."""
    import httpx  # here, not at the top: ~0.1 s of every start-up for a node most workflows never use

    hops = 0
    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        while True:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise DirectRequestError(f"a direct request needs an http(s) URL, not {url!r}")
            reason = blocked(url)
            if reason is not None:
                raise DirectRequestError(f"the request to {url} was not sent: {reason}")
            sent = {k: v for k, v in headers.items() if k.lower() != "cookie"}
            jar = await cookies_for(url)  # this hop's own cookies, never the previous host's
            if jar:
                sent["Cookie"] = "; ".join(f"{name}={value}" for name, value in jar.items())
            hop = Hop(method, url, dict(sent), body if method not in ("GET", "HEAD") else None, time.time())
            started = time.perf_counter()
            try:
                response = await asyncio.wrap_future(
                    _SENDER.submit(client.request, method, url, headers=sent, content=hop.body))
            except httpx.HTTPError as exc:
                hop.error = f"{type(exc).__name__}: {exc}"
                hop.elapsed = time.perf_counter() - started
                if record is not None:
                    record(hop)
                raise DirectRequestError(f"the request to {url} failed: {hop.error}") from None
            hop.elapsed = time.perf_counter() - started
            hop.status, hop.status_text = response.status_code, response.reason_phrase
            hop.response_headers = dict(response.headers)
            hop.mime = response.headers.get("content-type", "").split(";")[0].strip()
            hop.response_body = response.text
            location = response.headers.get("location")
            if response.status_code in REDIRECTS and location:
                hop.redirect_url = urljoin(url, location)
            if record is not None:
                record(hop)
            if not hop.redirect_url:
                return {"status": response.status_code, "url": url, "headers": dict(response.headers),
                        "body": response.text, "hops": hops + 1}
            hops += 1
            if hops > MAX_REDIRECTS:
                raise DirectRequestError(f"more than {MAX_REDIRECTS} redirects from {url}")
            if response.status_code == 303 or (response.status_code in (301, 302) and method == "POST"):
                method, body = "GET", None
            url = hop.redirect_url

