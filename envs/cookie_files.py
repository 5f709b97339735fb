"""Cookie files other tools read and write (pure logic, no Qt).

- Netscape `cookies.txt` (curl `-b`/`-c`, wget `--load-cookies`, yt-dlp `--cookies`): one cookie per line,
  seven tab-separated fields `domain includeSubdomains path secure expires name value`; `#HttpOnly_` before
  the domain marks an HttpOnly cookie (curl's extension); `expires` 0 is a session cookie.
- The JSON of the common cookie-editor browser extensions (Cookie-Editor, EditThisCookie): a list of
  `{domain, hostOnly, path, secure, httpOnly, sameSite, session, expirationDate, name, value, storeId}`.
- Playwright's `storage_state` (also browser-use's): `{cookies: [{name, value, domain, path, expires (-1: a
  session cookie), httpOnly, secure, sameSite: Strict | Lax | None}], origins: [{origin, localStorage: [{name,
  value}]}]}` — cookies and each origin's local storage.

The cookies in between are the browser's own (CDP `Network.Cookie`: `domain` with a leading dot for a domain
cookie, `expires` -1 for a session cookie), as env_export reads them and env_import sets them
(app/browser/transfer.py). `detect_format` tells the four files env_import accepts apart by their content.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Literal, Mapping

CookieFormat = Literal["json", "netscape", "cookie-editor", "playwright"]
NETSCAPE_HEADER = "# Netscape HTTP Cookie File"
HTTP_ONLY_PREFIX = "#HttpOnly_"
_SAME_SITE_OUT = {"none": "no_restriction", "lax": "lax", "strict": "strict"}


class CookieFileError(ValueError):
    """A cookie file that cannot be read; the message says where and why."""


def host_only(cookie: Mapping[str, Any]) -> bool:
    """The cookie goes only to its own host, not to its subdomains."""
    return bool(cookie.get("hostOnly")) or not str(cookie.get("domain", "")).startswith(".")


def expires_at(cookie: Mapping[str, Any]) -> float | None:
    """Seconds since the epoch, or None for a session cookie."""
    if cookie.get("session"):
        return None
    value = cookie.get("expires", cookie.get("expirationDate"))
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def to_netscape(cookies: Iterable[Mapping[str, Any]]) -> str:
    lines = [NETSCAPE_HEADER, "# Written by BrowserPilot (env_export). This file is a live login: keep it private.", ""]
    for cookie in cookies:
        domain = str(cookie.get("domain", ""))
        name, value = str(cookie.get("name", "")), str(cookie.get("value", ""))
        if not domain or not name or any(ch in name + value + domain for ch in "\t\r\n"):
            continue  # not expressible in the format
        subdomains = not host_only(cookie)
        if subdomains and not domain.startswith("."):
            domain = "." + domain
        if not subdomains:
            domain = domain.lstrip(".")
        expires = expires_at(cookie)
        prefix = HTTP_ONLY_PREFIX if cookie.get("httpOnly") else ""
        lines.append("\t".join([prefix + domain, "TRUE" if subdomains else "FALSE", str(cookie.get("path") or "/"),
                                "TRUE" if cookie.get("secure") else "FALSE", str(int(expires or 0)), name, value]))
    return "\n".join(lines) + "\n"


def from_netscape(text: str) -> list[dict[str, Any]]:
    cookies: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        http_only = line.startswith(HTTP_ONLY_PREFIX)
        if http_only:
            line = line[len(HTTP_ONLY_PREFIX):]
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) == 6:
            fields.append("")  # an empty value: some writers drop the last tab
        if len(fields) != 7:
            raise CookieFileError(f"line {number} has {len(fields)} tab-separated fields, a cookies.txt line has 7 "
                                  "(domain, subdomains, path, secure, expires, name, value)")
        domain, subdomains, path, secure, expires, name, value = fields
        try:
            expiry = float(expires or 0)
        except ValueError:
            raise CookieFileError(f"line {number}: the expiry {expires!r} is not a number") from None
        include = subdomains.strip().upper() == "TRUE"
        domain = domain.strip()
        if include and not domain.startswith("."):
            domain = "." + domain
        cookie: dict[str, Any] = {"name": name, "value": value, "domain": domain, "hostOnly": not include,
                                  "path": path or "/", "secure": secure.strip().upper() == "TRUE",
                                  "httpOnly": http_only, "session": expiry <= 0}
        if expiry > 0:
            cookie["expires"] = expiry
        cookies.append(cookie)
    return cookies


def to_cookie_editor(cookies: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for cookie in cookies:
        own_host = host_only(cookie)
        domain = str(cookie.get("domain", ""))
        expires = expires_at(cookie)
        entry: dict[str, Any] = {
            "domain": domain.lstrip(".") if own_host else (domain if domain.startswith(".") else "." + domain),
            "hostOnly": own_host, "httpOnly": bool(cookie.get("httpOnly")), "name": str(cookie.get("name", "")),
            "path": str(cookie.get("path") or "/"), "sameSite": _SAME_SITE_OUT.get(
                str(cookie.get("sameSite", "")).lower(), "unspecified" if not cookie.get("sameSite") else "lax"),
            "secure": bool(cookie.get("secure")), "session": expires is None, "storeId": "0",
            "value": str(cookie.get("value", ""))}
        if expires is not None:
            entry["expirationDate"] = expires
        out.append(entry)
    return out


def from_cookie_editor(items: list[Any]) -> list[dict[str, Any]]:
    cookies = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not item.get("name") or not item.get("domain"):
            raise CookieFileError(f"entry {index + 1} is not a cookie (it needs a name and a domain)")
        cookie = dict(item)
        domain = str(cookie["domain"])
        if not cookie.get("hostOnly", not domain.startswith(".")) and not domain.startswith("."):
            cookie["domain"] = "." + domain  # a domain cookie written without its dot
        cookies.append(cookie)
    return cookies


_SAME_SITE_PLAYWRIGHT = {"no_restriction": "None", "none": "None", "lax": "Lax", "strict": "Strict"}


def to_storage_state(cookies: Iterable[Mapping[str, Any]],
                     local_storage: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """Playwright's storage_state: its cookie shape (a domain cookie's domain with its dot, a host-only one's
    without; `expires` -1 for a session cookie; SameSite as Chromium reports it, Lax when unspecified) and each
    origin's local storage."""
    out = []
    for cookie in cookies:
        domain = str(cookie.get("domain", ""))
        if not domain or not cookie.get("name"):
            continue
        own_host = host_only(cookie)
        expires = expires_at(cookie)
        out.append({"name": str(cookie["name"]), "value": str(cookie.get("value", "")),
                    "domain": domain.lstrip(".") if own_host else "." + domain.lstrip("."),
                    "path": str(cookie.get("path") or "/"), "expires": expires if expires is not None else -1,
                    "httpOnly": bool(cookie.get("httpOnly")), "secure": bool(cookie.get("secure")),
                    "sameSite": _SAME_SITE_PLAYWRIGHT.get(str(cookie.get("sameSite") or "").lower(), "Lax")})
    origins = [{"origin": origin, "localStorage": [{"name": str(k), "value": str(v)} for k, v in entries.items()]}
               for origin, entries in local_storage.items() if entries]
    return {"cookies": out, "origins": origins}


def from_storage_state(state: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
    """Cookies (as env_import sets them) and local storage by origin, from a storage_state document."""
    cookies: list[dict[str, Any]] = []
    for index, item in enumerate(state.get("cookies") or []):
        if not isinstance(item, dict) or not item.get("name") or not item.get("domain"):
            raise CookieFileError(f"cookie {index + 1} has no name or no domain")
        domain = str(item["domain"])
        cookie: dict[str, Any] = {"name": str(item["name"]), "value": str(item.get("value", "")), "domain": domain,
                                  "hostOnly": not domain.startswith("."), "path": str(item.get("path") or "/"),
                                  "secure": bool(item.get("secure")), "httpOnly": bool(item.get("httpOnly"))}
        if item.get("sameSite") in ("Strict", "Lax", "None"):
            cookie["sameSite"] = item["sameSite"]
        expires = item.get("expires")
        if isinstance(expires, (int, float)) and expires > 0:
            cookie["expires"] = float(expires)
        else:
            cookie["session"] = True
        cookies.append(cookie)
    storage: dict[str, dict[str, str]] = {}
    for index, origin in enumerate(state.get("origins") or []):
        if not isinstance(origin, dict) or not isinstance(origin.get("origin"), str):
            raise CookieFileError(f"origin {index + 1} has no origin")
        entries = origin.get("localStorage") or []
        if not isinstance(entries, list):
            raise CookieFileError(f"the localStorage of {origin['origin']} is not a list")
        storage[origin["origin"]] = {str(e.get("name")): str(e.get("value", "")) for e in entries
                                     if isinstance(e, dict) and e.get("name") is not None}
    return cookies, storage


def detect_format(text: str) -> tuple[CookieFormat, Any]:
    """Which of the four formats `text` is, and its parsed content (JSON value, or the text itself)."""
    stripped = text.lstrip("\ufeff").lstrip()
    if stripped.startswith(("[", "{")):
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise CookieFileError(f"it is not JSON ({exc.msg}, line {exc.lineno})") from None
        if isinstance(value, list):
            return "cookie-editor", value
        if isinstance(value, dict) and isinstance(value.get("origins"), list) and "kind" not in value:
            return "playwright", value
        return "json", value
    if stripped.startswith(("# Netscape HTTP Cookie File", "# HTTP Cookie File")) or any(
            len(line.split("\t")) in (6, 7) for line in stripped.splitlines()[:50]
            if line.strip() and (not line.startswith("#") or line.startswith(HTTP_ONLY_PREFIX))):
        return "netscape", stripped
    raise CookieFileError("it is neither an env_export file, a Playwright storage_state, a cookie editor's JSON nor "
                          "a Netscape cookies.txt")
