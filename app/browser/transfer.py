"""Reading and writing an environment's login state: cookies and local storage of its profile.

- Cookies go over a CDP channel (app/browser/cdp.py) of a page of the profile: `Network.getAllCookies`
  returns every cookie of the profile (HttpOnly included), `Network.setCookies` sets them and answers once
  they are in the cookie store, so the next request carries them.
- Local storage is read and written by a hidden page of the profile that shows an empty document *at the
  origin* (`setHtml` with that origin as base URL: no request leaves the machine, yet the document has the
  origin and therefore its `localStorage`). Origins read: the open tabs', the cookies' and any given.
- IndexedDB, session storage, cache and service workers are not moved.

When the environment has no open tab a hidden utility page is made for the job and deleted after it.
Nothing here logs cookie or storage values.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any, AsyncIterator, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

import shiboken6
from PySide6.QtCore import QUrl
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile

from app.browser.cdp import CdpError, CdpHub
from app.browser.js import APP_WORLD, PageError, PageTimeout, run_js
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

MAX_ORIGINS = 100
LOAD_TIMEOUT = 10.0
_COOKIE_PARAM_KEYS = ("name", "value", "path", "secure", "httpOnly", "sameSite", "priority", "partitionKey")


@contextlib.asynccontextmanager
async def utility_page(profile: QWebEngineProfile) -> AsyncIterator[QWebEnginePage]:
    """A hidden page of the profile, deleted afterwards (before the profile can go)."""
    page = QWebEnginePage(profile)
    try:
        yield page
    finally:
        if shiboken6.isValid(page):
            shiboken6.delete(page)


async def _show_origin(page: QWebEnginePage, origin: str) -> bool:
    loop = asyncio.get_running_loop()
    loaded: asyncio.Future[bool] = loop.create_future()

    def done(ok: bool) -> None:
        if not loaded.done():
            loaded.set_result(ok)

    page.loadFinished.connect(done)
    try:
        page.setHtml("<!doctype html><title></title>", QUrl(origin + "/"))
        return await asyncio.wait_for(loaded, LOAD_TIMEOUT)
    except asyncio.TimeoutError:
        return False
    finally:
        page.loadFinished.disconnect(done)


def cookie_origins(cookies: Iterable[Mapping[str, Any]]) -> list[str]:
    """`scheme://host[:port]` for each cookie's host (as the browser recorded where it came from)."""
    out: list[str] = []
    for cookie in cookies:
        host = str(cookie.get("domain", "")).lstrip(".")
        if not host:
            continue
        scheme = "https" if cookie.get("sourceScheme") == "Secure" or cookie.get("secure") else "http"
        port = cookie.get("sourcePort")
        default = 443 if scheme == "https" else 80
        out.append(f"{scheme}://{host}" + (f":{port}" if isinstance(port, int) and port not in (default, -1) else ""))
    return out


def origin_of(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def cookie_param(cookie: Mapping[str, Any]) -> dict[str, Any]:
    """A CDP `Network.CookieParam` for a cookie as `Network.getAllCookies` (or the original app) wrote it:
    a host-only cookie (domain without a leading dot, or `hostOnly`) is set by URL, a domain cookie by
    domain; session cookies stay session cookies."""
    domain = str(cookie.get("domain", "")).strip()
    if not cookie.get("name") or not domain:
        raise ValueError("a cookie needs a name and a domain")
    param = {key: cookie[key] for key in _COOKIE_PARAM_KEYS if cookie.get(key) is not None}
    param["path"] = str(param.get("path") or "/")
    same_site = {"no_restriction": "None", "lax": "Lax", "strict": "Strict"}.get(str(cookie.get("sameSite", "")).lower())
    if same_site:
        param["sameSite"] = same_site
    elif param.get("sameSite") not in ("None", "Lax", "Strict"):
        param.pop("sameSite", None)
    expires = cookie.get("expires", cookie.get("expirationDate"))
    if isinstance(expires, (int, float)) and expires > 0 and not cookie.get("session"):
        param["expires"] = float(expires)
    if domain.startswith(".") and not cookie.get("hostOnly"):
        param["domain"] = domain
    else:
        scheme = "https" if param.get("secure") else "http"
        port = cookie.get("sourcePort")
        default = 443 if scheme == "https" else 80
        host = domain.lstrip(".") + (f":{port}" if isinstance(port, int) and port not in (default, -1) else "")
        param["url"] = f"{scheme}://{host}{param['path']}"
    return param


class ProfileState:
    """Reads and writes one profile's cookies and local storage."""

    def __init__(self, hub: CdpHub, profile: QWebEngineProfile, open_pages: Sequence[QWebEnginePage]) -> None:
        self.hub = hub
        self.profile = profile
        self.open_pages = list(open_pages)

    async def _cdp(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.open_pages:
            return await self.hub.channel(self.open_pages[0]).send(method, params)
        async with utility_page(self.profile) as page:
            channel = self.hub.channel(page)
            try:
                return await channel.send(method, params)
            finally:
                channel.close("done")

    async def read(self, extra_origins: Sequence[str] = ()) -> dict[str, Any]:
        cookies = (await self._cdp("Network.getAllCookies")).get("cookies", [])
        origins: list[str] = []
        for page in self.open_pages:
            origin = origin_of(page.url().toString())
            if origin:
                origins.append(origin)
        origins += cookie_origins(cookies) + [o for o in (origin_of(x) for x in extra_origins) if o]
        storage: dict[str, dict[str, str]] = {}
        unique = list(dict.fromkeys(origins))[:MAX_ORIGINS]
        if unique:
            async with utility_page(self.profile) as page:
                for origin in unique:
                    if not await _show_origin(page, origin):
                        log.info("local storage of an origin could not be read (its page did not load)")
                        continue
                    entries = await run_js(page, "Object.fromEntries(Object.entries(localStorage))", world=APP_WORLD)
                    if entries:
                        storage[origin] = entries
        return {"cookies": cookies, "localStorage": storage}

    async def write(self, cookies: Sequence[Mapping[str, Any]],
                    local_storage: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        params, failed = [], 0
        for cookie in cookies:
            try:
                params.append(cookie_param(cookie))
            except (ValueError, TypeError):
                failed += 1
        if params:
            try:
                await self._cdp("Network.setCookies", {"cookies": params})
            except CdpError:  # one bad cookie fails the whole command: set them one by one instead
                kept = []
                for param in params:
                    try:
                        if (await self._cdp("Network.setCookie", param)).get("success", True):
                            kept.append(param)
                            continue
                    except CdpError:
                        pass
                    failed += 1
                params = kept
        written = 0
        if local_storage:
            async with utility_page(self.profile) as page:
                for origin, entries in local_storage.items():
                    clean = origin_of(origin)
                    if clean is None or not await _show_origin(page, clean):
                        continue
                    try:
                        await run_js(page, f"(() => {{ for (const [k, v] of Object.entries({json.dumps(dict(entries))})) "
                                           "localStorage.setItem(k, String(v)); return true; })()", world=APP_WORLD)
                        written += 1
                    except (PageError, PageTimeout) as exc:
                        log.info("local storage of an origin could not be written: %s", type(exc).__name__)
        return {"cookies": len(params), "failed": failed, "origins": written}
