"""Logins from the browsers people already use: the cookies of an installed Chrome, Chromium, Brave, Edge or Firefox
profile, read as that browser keeps them (pure Python, no Qt; blocking: call it on a worker thread).

Reading and decrypting is yt-dlp's `cookies` module (which the app ships for streams): it finds the profile's cookie
database and decrypts Chrome's values as Chrome does on Linux (`v10`:
the fixed key of the "basic" password store; `v11`: the key kept in GNOME's keyring through `secretstorage`, or
KWallet), on macOS and on Windows. What yt-dlp leaves out, this module reads from the same database copy, values
excepted: whether a cookie is HttpOnly, its SameSite, and Chrome's expiry in its own epoch (microseconds since 1601,
which yt-dlp passes through unconverted) — so that a login cookie no page script could read stays so. Both read a
snapshot: the database and its write-ahead log copied and merged first, since a running Firefox keeps its newest
cookies in `cookies.sqlite-wal` (yt-dlp alone copies the main file only, and would miss a login made minutes ago).

A source is `BROWSER[+KEYRING][:PROFILE]` (yt-dlp's spelling): `chrome`, `chromium:Profile 1`, `firefox:default-esr`,
`chrome+gnomekeyring`, or a profile folder (`chromium:/home/me/.config/chromium/Default`, a `--user-data-dir`).
Without a profile, the most recently used one. `sites_of` groups cookies by site for a person to choose from;
`for_domains` keeps the cookies of the sites chosen (a domain and its subdomains). Cookie values are never logged.
"""

from __future__ import annotations

import glob
import ipaddress
import logging
import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from typing import Any, Iterable

from plumbing import loggers

log = logging.getLogger(loggers.ENVS)

BROWSERS = ("chrome", "chromium", "brave", "edge", "firefox")
KEYRINGS = ("basictext", "gnomekeyring", "kwallet", "kwallet5", "kwallet6")
CHROME_EPOCH_OFFSET_S = 11_644_473_600  # seconds from 1601-01-01 to 1970-01-01
_CHROME_SAME_SITE = {0: "no_restriction", 1: "lax", 2: "strict"}  # -1: unspecified
_FIREFOX_SAME_SITE = {1: "lax", 2: "strict"}  # 0 (none or unset, by version): left to the browser's default
_SECOND_LEVEL = {"co", "com", "org", "net", "gov", "edu", "ac", "or", "ne", "go"}


class BrowserLoginError(ValueError):
    """A source that cannot be read; the message says which and why (never a cookie value)."""


@dataclass(frozen=True)
class BrowserSource:
    browser: str
    profile: str | None = None  # a profile's name, or a folder
    keyring: str | None = None

    def __str__(self) -> str:
        keyring = f"+{self.keyring}" if self.keyring else ""
        return f"{self.browser}{keyring}" + (f":{self.profile}" if self.profile else "")


@dataclass
class BrowserCookies:
    source: BrowserSource
    database: str  # the cookie database read
    cookies: list[dict[str, Any]] = field(default_factory=list)  # as env_import sets them (envs/cookie_files.py)
    undecryptable: int = 0  # in the database, but their values could not be decrypted


def parse_source(text: str, profile: str | None = None) -> BrowserSource:
    """`BROWSER[+KEYRING][:PROFILE]`; a separate `profile` wins over the one in the text."""
    head, _sep, named = text.strip().partition(":")
    browser, _plus, keyring = head.strip().lower().partition("+")
    if browser not in BROWSERS:
        raise BrowserLoginError(f"unknown browser {browser!r}: one of {', '.join(BROWSERS)}")
    if keyring and keyring not in KEYRINGS:
        raise BrowserLoginError(f"unknown keyring {keyring!r}: one of {', '.join(KEYRINGS)}")
    chosen = (profile or named or "").strip() or None
    if chosen is not None and (os.sep in chosen or chosen.startswith("~")):
        chosen = os.path.abspath(os.path.expanduser(chosen))
    return BrowserSource(browser, chosen, keyring or None)


def _is_folder(profile: str) -> bool:
    return os.sep in profile


def _newest(paths: Iterable[str]) -> str | None:
    return max(paths, key=lambda path: os.lstat(path).st_mtime, default=None)


def _chrome_root(browser: str) -> str:
    from yt_dlp.cookies import _get_chromium_based_browser_settings  # where yt-dlp looks for this browser

    return str(_get_chromium_based_browser_settings(browser)["browser_dir"])


def _firefox_roots() -> list[str]:
    from yt_dlp.cookies import _firefox_browser_dirs  # where yt-dlp looks for Firefox

    return list(_firefox_browser_dirs())


def find_database(source: BrowserSource) -> str:
    """The cookie database yt-dlp reads for this source (the newest one under its profile folder)."""
    if source.browser == "firefox":
        if source.profile is None:
            roots = _firefox_roots()
        elif _is_folder(source.profile):
            roots = [source.profile]
        else:
            roots = [os.path.join(root, source.profile) for root in _firefox_roots()]
        found = _newest(path for root in roots for pattern in ("", "*/", "Profiles/*/")
                        for path in glob.glob(os.path.join(glob.escape(root), pattern, "cookies.sqlite")))
        where = ", ".join(roots)
    else:
        root = source.profile if source.profile and _is_folder(source.profile) else \
            os.path.join(_chrome_root(source.browser), source.profile or "")
        found = _newest(os.path.join(folder, "Cookies") for folder, _dirs, files in os.walk(root) if "Cookies" in files)
        where = root
    if found is None:
        raise BrowserLoginError(f"no {source.browser} cookies were found in {where} (is {source.browser} installed "
                                f"and has this profile been used?)")
    return found


def list_profiles(browser: str) -> list[str]:
    """The profiles of an installed browser that have cookies, by name (the folder name), most recent first."""
    if browser == "firefox":
        paths = [p for root in _firefox_roots() for pattern in ("*/", "Profiles/*/")
                 for p in glob.glob(os.path.join(glob.escape(root), pattern, "cookies.sqlite"))]
        return [os.path.basename(os.path.dirname(p)) for p in sorted(paths, key=os.path.getmtime, reverse=True)]
    root = _chrome_root(browser)
    if not os.path.isdir(root):
        return []
    found: list[tuple[float, str]] = []
    for name in os.listdir(root):
        for inner in ("Cookies", os.path.join("Network", "Cookies")):
            path = os.path.join(root, name, inner)
            if os.path.isfile(path):
                found.append((os.path.getmtime(path), name))
                break
    return [name for _time, name in sorted(found, reverse=True)]


def _snapshot(database: str, folder: str) -> str:
    """A consistent copy of a live cookie database in `folder` (same file name): the file and its write-ahead log,
    merged. Returns the copy's path."""
    copy = os.path.join(folder, os.path.basename(database))
    shutil.copyfile(database, copy)
    if os.path.exists(database + "-wal"):
        shutil.copyfile(database + "-wal", copy + "-wal")
        connection = sqlite3.connect(copy)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
    return copy


def _flags(database: str, firefox: bool) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(host, name, path) -> what yt-dlp does not carry: HttpOnly, SameSite, the expiry (seconds), the source port."""
    connection = sqlite3.connect(database)
    try:
        columns = {row[1] for row in connection.execute(
            f"PRAGMA table_info({'moz_cookies' if firefox else 'cookies'})")}
        if firefox:
            rows = connection.execute("SELECT host, name, path, isHttpOnly, sameSite FROM moz_cookies").fetchall()
            return {(h, n, p): {"httpOnly": bool(http), "sameSite": _FIREFOX_SAME_SITE.get(same)}
                    for h, n, p, http, same in rows}
        port = "source_port" if "source_port" in columns else "-1"
        rows = connection.execute(f"SELECT host_key, name, path, is_httponly, samesite, expires_utc, {port} "
                                  f"FROM cookies").fetchall()
    finally:
        connection.close()
    flags: dict[tuple[str, str, str], dict[str, Any]] = {}
    for host, name, path, http, same, expires, source_port in rows:
        seconds = expires / 1_000_000 - CHROME_EPOCH_OFFSET_S if expires else None
        flags[(host, name, path)] = {"httpOnly": bool(http), "sameSite": _CHROME_SAME_SITE.get(same),
                                     "expires": seconds if seconds and seconds > 0 else None,
                                     "sourcePort": source_port if isinstance(source_port, int) and source_port > 0
                                     else None}
    return flags


class _QuietLogger:
    """yt-dlp's logger interface, to our log (never values: yt-dlp logs counts and paths only)."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def debug(self, message: str, only_once: bool = False) -> None:
        log.debug("yt-dlp: %s", message)

    def info(self, message: str) -> None:
        log.debug("yt-dlp: %s", message)

    def warning(self, message: str, only_once: bool = False) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
            log.info("yt-dlp: %s", message)

    def error(self, message: str) -> None:
        log.info("yt-dlp: %s", message)

    def progress_bar(self) -> None:
        return None


def read_browser_cookies(source: BrowserSource) -> BrowserCookies:
    """Every cookie of the source's profile, decrypted, with its flags. Raises `BrowserLoginError`."""
    from yt_dlp.cookies import extract_cookies_from_browser

    database = find_database(source)
    firefox = source.browser == "firefox"
    logger = _QuietLogger()
    try:
        with tempfile.TemporaryDirectory(prefix="browserpilot-cookies") as folder:
            snapshot = _snapshot(database, folder)
            # The snapshot's folder: yt-dlp reads exactly that file (and its flags are read from it below).
            jar = extract_cookies_from_browser(source.browser, folder, logger, keyring=source.keyring)
            flags = _flags(snapshot, firefox)
    except (OSError, sqlite3.Error, ValueError) as exc:
        raise BrowserLoginError(f"the cookies of {source} could not be read from {database}: {exc}") from None
    except Exception as exc:  # yt-dlp's own errors (a keyring that does not answer, a locked database)
        raise BrowserLoginError(f"the cookies of {source} could not be read: {type(exc).__name__}: {exc}") from None
    cookies: list[dict[str, Any]] = []
    for item in jar:
        domain = str(item.domain or "")
        if not domain or not item.name:
            continue
        extra = flags.get((domain, item.name, item.path or "/"), {})
        cookie: dict[str, Any] = {"name": item.name, "value": item.value or "", "domain": domain,
                                  "hostOnly": not domain.startswith("."), "path": item.path or "/",
                                  "secure": bool(item.secure), "httpOnly": bool(extra.get("httpOnly"))}
        if extra.get("sameSite"):
            cookie["sameSite"] = extra["sameSite"]
        if extra.get("sourcePort"):
            cookie["sourcePort"] = extra["sourcePort"]
        expires = extra["expires"] if not firefox and "expires" in extra else item.expires
        if expires:
            cookie["expires"] = float(expires)
        else:
            cookie["session"] = True
        cookies.append(cookie)
    total = len(flags)
    undecryptable = max(0, total - len(cookies)) if not firefox else 0
    log.info("read %d cookies of %s from %s (%d could not be decrypted)", len(cookies), source, database,
             undecryptable)
    return BrowserCookies(source=source, database=database, cookies=cookies, undecryptable=undecryptable)


def cookie_host(cookie: dict[str, Any]) -> str:
    return str(cookie.get("domain", "")).lstrip(".").lower()


def site_of(host: str) -> str:
    """The site a host belongs to, for choosing: an address as it is; else the last two labels (three under a
    country's second level such as co.uk)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    labels = host.split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def sites_of(cookies: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{site, cookies}] for the cookies given, most cookies first."""
    counts: dict[str, int] = {}
    for cookie in cookies:
        site = site_of(cookie_host(cookie))
        counts[site] = counts.get(site, 0) + 1
    return [{"site": site, "cookies": count} for site, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def normalize_domain(text: str) -> str:
    """`a.com`, `.a.com`, `*.a.com`, `https://a.com/x` -> `a.com`; `*` stays `*` (every site)."""
    text = text.strip().lower()
    if text == "*":
        return text
    if "://" in text:
        text = text.split("://", 1)[1]
    text = text.split("/", 1)[0]
    if text.count(":") == 1:  # a port: cookies have none
        text = text.split(":", 1)[0]
    text = text.removeprefix("*.").strip(".")
    if not text:
        raise BrowserLoginError("an empty domain")
    return text


def for_domains(cookies: Iterable[dict[str, Any]], domains: Iterable[str]) -> list[dict[str, Any]]:
    """The cookies of these domains and their subdomains (`*`: all)."""
    wanted = [normalize_domain(domain) for domain in domains]
    if "*" in wanted:
        return list(cookies)
    return [cookie for cookie in cookies if any(cookie_host(cookie) == d or cookie_host(cookie).endswith("." + d)
                                                for d in wanted)]
