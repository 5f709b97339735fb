"""Saving a streamed video (HLS `.m3u8`, DASH `.mpd`) as one playable file: yt-dlp's own HLS and DASH
downloaders fetch the segments (TS or fMP4, AES-128 keys), ffmpeg merges separate audio and video and remuxes.
Pure Python (no Qt): `StreamJob.run()` blocks, on a worker thread; `cancel()` stops it from any thread, and an
interrupted job leaves no file behind (its name is reserved while it runs: two jobs never share one).

Everything goes out as the environment would send it (`Identity`, `environment_ydl`):
- every request, the first and each redirect hop, is checked against the environment's domain policy before
  it is sent (`_EnvironmentRH`, `_RedirectGate`); a refused one stops the job naming the rule;
- each request carries the cookies the profile would send to that URL: the profile's cookies are loaded into
  a cookie jar with the browser's rules (a host-only cookie goes to its host alone; path, `Secure`, expiry),
  so a segment on another host never gets the first host's cookies;
- the environment's user agent and languages (none when the profile has none, as the browser), and Referer
  and Origin as the page's own fetch sends them (`page_headers`).
- ffmpeg never fetches anything (it would send no cookies and ask no policy): when yt-dlp would hand a stream
  to ffmpeg to download (a live stream, an encryption it cannot do itself), the job fails instead. ffmpeg
  only merges and remuxes the files yt-dlp wrote.

`candidates` and `probe` pick the stream a player plays from the URLs the tab fetched
(app/browser/mediastream.py gathers them): manifests by content type or extension, else the first answer that
reads like one; `site_extractor` names yt-dlp's extractor for a page of a site it knows.
"""
from __future__ import annotations

import copy
import http.cookiejar
import io
import logging
import os
import re
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from plumbing import loggers
from envs.cookie_files import expires_at, host_only

log = logging.getLogger(loggers.MEDIA)

MANIFEST_TYPES = {"application/vnd.apple.mpegurl": "hls", "application/x-mpegurl": "hls",
                  "audio/mpegurl": "hls", "audio/x-mpegurl": "hls", "application/dash+xml": "dash"}
SEGMENT_SUFFIXES = (".ts", ".m4s", ".mp4", ".m4a", ".m4v", ".aac", ".webm", ".weba", ".key", ".vtt", ".js",
                    ".css", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".woff", ".woff2", ".html", ".mp3",
                    ".cmfv", ".cmfa")
VAGUE_TYPES = frozenset({"", "text/plain", "application/octet-stream", "binary/octet-stream", "application/xml",
                         "text/xml"})
MAX_PROBES = 8  # URLs of no known kind read (their first bytes) to find a manifest
PROBE_BYTES = 2048
DELEGATION = re.compile(r"delegated to (ffmpeg|avconv)", re.I)
RESERVATION = ".browserpilot-reserved"
_RESERVING = threading.Lock()


class StreamError(Exception):
    """The stream could not be saved."""

    code = "stream_failed"


class StreamRefused(StreamError):
    """The environment's domain policy refused a request of the stream."""

    code = "blocked"


class StreamCancelled(StreamError):
    """Someone cancelled the job."""

    code = "cancelled"


PolicyCheck = Callable[[str], str | None]
"""A URL → why the environment's policy blocks it (None: allowed); callable from any thread."""


@dataclass(frozen=True)
class Identity:
    """What the environment sends with each request of the stream."""

    blocked: PolicyCheck
    cookies: Sequence[Mapping[str, Any]] = ()  # the profile's cookies, as CDP `Network.getAllCookies` gives them
    browser_headers: Mapping[str, str] = field(default_factory=dict)  # the profile's: app/browser/identity.py
    referer: str = ""

    def headers(self) -> dict[str, str]:
        """Headers of every request: the browser's identity headers, exactly as its own requests carry them
        (Referer and Origin are set per request: `page_headers`)."""
        return {name: value for name, value in self.browser_headers.items() if value}


def page_headers(page_url: str, url: str) -> dict[str, str]:
    """Referer and Origin as the page's own `fetch` of `url` sends them (Chromium's default referrer policy,
    strict-origin-when-cross-origin): the full address to its own origin; to another origin only the origin,
    with Origin; nothing to plain http from an https page."""
    page, target = urlsplit(page_url), urlsplit(url)
    if page.scheme not in ("http", "https") or not page.netloc:
        return {}
    origin = f"{page.scheme}://{page.netloc}"
    if (target.scheme, target.netloc) == (page.scheme, page.netloc):
        return {"Referer": page_url.split("#", 1)[0]}
    if page.scheme == "https" and target.scheme == "http":
        return {"Origin": origin}
    return {"Referer": origin + "/", "Origin": origin}


@dataclass
class Progress:
    """Where a job is: bytes written, fragments done, and its phase (downloading, merging, done)."""

    phase: str = "starting"
    bytes: int = 0
    total: int = -1
    fragment: int = 0
    fragments: int = 0
    part: int = 0  # which of the streams (video, audio) is downloading, from 1
    parts: int = 1
    done_bytes: int = 0  # bytes of the streams already finished


@dataclass
class Candidate:
    """A URL the tab fetched, with what is known of it."""

    url: str
    mime: str = ""
    kind: str = ""  # "hls" | "dash" | "" (unknown)


# -- finding the manifest ----------------------------------------------------------------------------------
def manifest_kind(url: str, mime: str = "") -> str:
    """"hls" or "dash" by content type or by the URL's extension; "" when neither tells."""
    by_type = MANIFEST_TYPES.get(mime.split(";")[0].strip().lower())
    if by_type:
        return by_type
    path = urlsplit(url).path.lower()
    if path.endswith(".m3u8") or path.endswith(".m3u"):
        return "hls"
    if path.endswith(".mpd"):
        return "dash"
    return ""


def sniff(first_bytes: bytes) -> str:
    """"hls" or "dash" by the start of a body; "" when it is neither."""
    head = first_bytes.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"#EXTM3U"):
        return "hls"
    if re.search(rb"<MPD[\s>]", head[:PROBE_BYTES]):
        return "dash"
    return ""


def is_master_playlist(text: str) -> bool:
    return "#EXT-X-STREAM-INF" in text


def probe_worthy(url: str, mime: str = "") -> bool:
    """Whether an http(s) URL of unknown kind could be a manifest: not a segment, key or page asset by its
    extension, nor by its content type when known (a manifest may come as text/plain or octet-stream)."""
    parts = urlsplit(url)
    kind = mime.split(";")[0].strip().lower()
    return parts.scheme in ("http", "https") and not parts.path.lower().endswith(SEGMENT_SUFFIXES) \
        and kind in VAGUE_TYPES


def candidates(urls: Iterable[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
    """(manifests known by type or extension, newest first; other URLs worth reading, newest first)."""
    known: list[Candidate] = []
    unknown: list[Candidate] = []
    seen: set[str] = set()
    for item in reversed(list(urls)):
        if item.url in seen or not item.url.startswith(("http://", "https://")):
            continue
        seen.add(item.url)
        kind = item.kind or manifest_kind(item.url, item.mime)
        if kind:
            known.append(Candidate(item.url, item.mime, kind))
        elif probe_worthy(item.url, item.mime):
            unknown.append(item)
    return known, unknown[:MAX_PROBES]


# -- yt-dlp with the environment's identity ----------------------------------------------------------------
def cookie_jar(cookies: Iterable[Mapping[str, Any]]) -> http.cookiejar.CookieJar:
    """The profile's cookies in a jar that sends them by the browser's rules: a host-only cookie only to its
    own host (not to subdomains), path and `Secure` respected, expired ones dropped."""
    from yt_dlp.cookies import YoutubeDLCookieJar

    jar = YoutubeDLCookieJar()
    jar.set_policy(http.cookiejar.DefaultCookiePolicy(
        strict_ns_domain=http.cookiejar.DefaultCookiePolicy.DomainStrictNonDomain))
    now = time.time()
    for cookie in cookies:
        name, domain = str(cookie.get("name") or ""), str(cookie.get("domain") or "")
        if not name or not domain:
            continue
        at = expires_at(cookie)
        session, expires = at is None, None if at is None else int(at)
        if expires is not None and expires < now:
            continue
        dotted = not host_only(cookie)
        domain = "." + domain.lstrip(".") if dotted else domain.lstrip(".")
        jar.set_cookie(http.cookiejar.Cookie(
            version=0, name=name, value=str(cookie.get("value") or ""), port=None, port_specified=False,
            domain=domain, domain_specified=dotted, domain_initial_dot=dotted,
            path=str(cookie.get("path") or "/"), path_specified=True, secure=bool(cookie.get("secure")),
            expires=expires, discard=session, comment=None, comment_url=None,
            rest={"HttpOnly": ""} if cookie.get("httpOnly") else {}))
    return jar


def _handler_class(check: Callable[[str], None], opened: list[Any], page_url: str) -> type:
    """yt-dlp's urllib request handler with the policy asked before every request and every redirect hop, and
    the page's Referer and Origin as its own fetch would send them; each response it returns is also put in
    `opened`, for the job to close what an interruption left open."""
    import urllib.request
    from urllib.parse import urljoin

    from yt_dlp.networking import _urllib
    from yt_dlp.networking.exceptions import HTTPError, RequestError

    class _RedirectGate(urllib.request.BaseHandler):
        """Runs before yt-dlp's redirect handler (a lower `handler_order`): refuses a hop the policy blocks
        before it is sent; an allowed one is left to yt-dlp's handler (returns None)."""

        handler_order = 100

        def _gate(self, req: Any, fp: Any, code: int, msg: str, headers: Any) -> None:
            location = headers.get("location") or headers.get("uri")
            if location:
                check(urljoin(req.full_url, location))

        http_error_301 = http_error_302 = http_error_303 = http_error_307 = http_error_308 = _gate

    class _Stopped(RequestError):
        """A refused or cancelled request: a RequestError, so that yt-dlp passes it on unwrapped."""

    class _EnvironmentRH(_urllib.UrllibRH):
        RH_NAME = "browserpilot"

        def _create_instance(self, proxies: Any, cookiejar: Any, legacy_ssl_support: Any = None) -> Any:
            opener = super()._create_instance(proxies, cookiejar, legacy_ssl_support)
            opener.add_handler(_RedirectGate())
            return opener

        def _prepare_headers(self, request: Any, headers: Any) -> None:
            super()._prepare_headers(request, headers)
            for name in ("Referer", "Origin"):
                headers.pop(name, None)
            headers.update(page_headers(page_url, request.url))

        def _send(self, request: Any) -> Any:
            try:
                check(request.url)
                response = super()._send(request)
            except StreamError as exc:  # raised by `check`, here or in a redirect hop
                raise _Stopped(str(exc)) from exc
            except HTTPError as exc:  # an error status: its response is open too
                opened.append(exc.response)
                raise
            opened.append(response)
            return response

    return _EnvironmentRH


def environment_ydl(identity: Identity, check: Callable[[str], None], params: Mapping[str, Any],
                    opened: list[Any] | None = None) -> Any:
    """A `YoutubeDL` whose every request is sent as the environment would (see the module's docstring);
    `opened` collects its responses."""
    from yt_dlp import YoutubeDL

    ydl = YoutubeDL({"quiet": True, "noprogress": True, "http_headers": identity.headers(), "socket_timeout": 30,
                     **params})
    if "Accept-Language" not in identity.headers():  # the browser sends none either (its profile has no languages set)
        ydl.params["http_headers"].pop("Accept-Language", None)
    ydl.__dict__["cookiejar"] = cookie_jar(identity.cookies)  # before its first request
    ydl.__dict__["_request_director"] = ydl.build_request_director(
        [_handler_class(check, opened if opened is not None else [], identity.referer)])
    return ydl


def probe(known: Sequence[Candidate], unknown: Sequence[Candidate], identity: Identity) -> Candidate | None:
    """The manifest a player plays, from `candidates(...)`: the newest DASH manifest, or the newest HLS master
    playlist (else the newest media playlist); when none is known, URLs of no known kind are read (their first
    bytes) in turn. Blocking (it may send requests, each as the environment would)."""
    if known and known[0].kind == "dash":
        return known[0]
    hls = [item for item in known if item.kind == "hls"]
    if len(hls) == 1:
        return hls[0]

    def check(url: str) -> None:
        reason = identity.blocked(url)
        if reason is not None:
            raise StreamRefused(reason)

    found: list[tuple[Candidate, bytes]] = []
    opened: list[Any] = []
    with environment_ydl(identity, check, {"logger": _QuietLogger()}, opened) as ydl:
        for item in hls or unknown:  # several playlists: which is the master; none: which reads like one
            try:
                with ydl.urlopen(item.url) as response:
                    head = response.read(PROBE_BYTES)
            except Exception as exc:  # noqa: BLE001  (a candidate that does not answer is not the manifest)
                log.debug("probing %s: %s", item.url[:200], exc)
                continue
            finally:
                _close_all(opened)
            kind = item.kind or sniff(head)
            if kind == "dash":
                return Candidate(item.url, item.mime, kind)
            if kind == "hls":
                found.append((Candidate(item.url, item.mime, kind), head))
    masters = [item for item, head in found if is_master_playlist(head.decode("utf-8", "ignore"))]
    return masters[0] if masters else found[0][0] if found else (hls[0] if hls else None)


def site_extractor(url: str) -> str | None:
    """The key of the yt-dlp extractor made for this page's site (never the generic one), or None."""
    from yt_dlp.extractor import gen_extractor_classes

    for extractor in gen_extractor_classes():
        key = extractor.ie_key()
        if key != "Generic" and extractor.suitable(url) and extractor.working():
            return key
    return None


class _QuietLogger:
    def debug(self, message: str) -> None:
        pass

    info = warning = error = debug


class StreamJob:
    """Download one manifest's best video and audio into `folder` as one file (merged when apart)."""

    def __init__(self, manifest_url: str, kind: str, folder: Path, name: str | None, identity: Identity,
                 on_progress: Callable[[Progress], None] | None = None, ffmpeg: str | None = None) -> None:
        self._formats: list[str] | None = None
        self._opened: list[Any] = []
        self.manifest_url = manifest_url
        self.kind = kind
        self.folder = folder
        self.name = name
        self.identity = identity
        self.on_progress = on_progress
        self.ffmpeg = ffmpeg  # found when the job runs (off the Qt thread)
        self.progress = Progress()
        self._cancel = threading.Event()
        self._progress_lock = threading.Lock()  # yt-dlp reports from its fragment threads, up to three at once
        self.refusal: str | None = None

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def _check(self, url: str) -> None:
        """Before each request: stop when cancelled, refuse what the policy blocks."""
        if self._cancel.is_set():
            raise StreamCancelled("the download was cancelled")
        reason = self.identity.blocked(url)
        if reason is not None:
            self.refusal = f"the request to {url} was not sent: {reason}"
            raise StreamRefused(self.refusal)

    def _report(self, **changes: Any) -> None:
        for key, value in changes.items():
            setattr(self.progress, key, value)
        if self.on_progress is not None:
            self.on_progress(self.progress)

    def _on_download(self, status: Mapping[str, Any]) -> None:
        if self._cancel.is_set():
            raise StreamCancelled("the download was cancelled")
        state = status.get("status")
        info = status.get("info_dict") or {}
        part, parts = self._part_of(info)
        with self._progress_lock:
            done = self.progress.done_bytes
            if state == "downloading":
                got = int(status.get("downloaded_bytes") or 0)
                total = status.get("total_bytes") or status.get("total_bytes_estimate")
                # Fragment threads report out of order: what a person sees of a part never goes back.
                shown = max(done + got, self.progress.bytes if self.progress.part == part else 0)
                self._report(phase="downloading", part=part, parts=parts, bytes=shown,
                             total=done + int(total) if total else -1,
                             fragment=int(status.get("fragment_index") or 0),
                             fragments=int(status.get("fragment_count") or 0))
            elif state == "finished":
                got = int(status.get("downloaded_bytes") or status.get("total_bytes") or 0)
                self._report(done_bytes=done + got, bytes=done + got, part=part, parts=parts)

    def _part_of(self, info: Mapping[str, Any]) -> tuple[int, int]:
        wanted = self._formats or []
        format_id = info.get("format_id")
        if format_id in wanted:
            return wanted.index(format_id) + 1, len(wanted)
        return max(1, self.progress.part), max(1, len(wanted))

    def _on_postprocess(self, status: Mapping[str, Any]) -> None:
        if status.get("status") == "started" and status.get("postprocessor") in ("Merger", "FixupM3u8"):
            self._report(phase="merging")  # ffmpeg joins audio and video, or remuxes TS into MP4

    def run(self) -> dict[str, Any]:
        """Download and merge; `{path, name, bytes, formats, kind, url}`. Raises `StreamError` (with
        `StreamRefused` / `StreamCancelled`)."""
        self.ffmpeg = self.ffmpeg or find_ffmpeg()
        if not self.ffmpeg:
            raise StreamError("ffmpeg is not installed: it is needed to merge a stream's audio and video "
                              "(install the system's ffmpeg package)")
        self.folder.mkdir(parents=True, exist_ok=True)

        class _Logger:
            def debug(self, message: str) -> None:
                if not message.startswith("[debug] "):
                    log.debug("yt-dlp: %s", message)

            def info(self, message: str) -> None:
                log.debug("yt-dlp: %s", message)

            def warning(self, message: str) -> None:
                if DELEGATION.search(message):  # ffmpeg would fetch it: no cookies, no policy
                    raise StreamError(f"this stream can only be fetched by ffmpeg, which would not send the "
                                      f"environment's cookies nor ask its policy ({message})")
                log.info("yt-dlp: %s", message)

            def error(self, message: str) -> None:
                log.info("yt-dlp: %s", message)

        params: dict[str, Any] = {
            "logger": _Logger(), "no_warnings": False,
            "format": "bv*+ba/b", "merge_output_format": "mp4/webm/mkv",
            "paths": {"home": str(self.folder), "temp": str(self.folder)},
            "overwrites": False, "nopart": False,
            "ffmpeg_location": self.ffmpeg,
            "progress_hooks": [self._on_download], "postprocessor_hooks": [self._on_postprocess],
            "concurrent_fragment_downloads": 3, "retries": 2, "fragment_retries": 2,
            "skip_unavailable_fragments": False, "noplaylist": True,
            "external_downloader": {"default": "native"},
            "compat_opts": set(), "allow_unplayable_formats": False, "check_formats": False,
        }
        target = _reserve_stem(self.folder, _stem(self.name) or "video")
        params["outtmpl"] = {"default": f"{target}.%(ext)s"}
        failed = True
        try:
            with environment_ydl(self.identity, self._check, params, self._opened) as ydl:
                if self.kind.startswith("site:"):  # the page of a site yt-dlp knows, by its extractor
                    self._report(phase="reading the page")
                    result = ydl.extract_info(self.manifest_url, ie_key=self.kind[5:], download=True)
                    if result is None:
                        raise StreamError(f"yt-dlp's {self.kind[5:]} extractor found nothing to save")
                    self._formats = [f.get("format_id") for f in result.get("requested_formats") or [result]]
                    finished = self._finish(result)
                    failed = False
                    return finished
                ie = ydl.get_info_extractor("Generic")
                self._report(phase="reading the manifest")
                if self.kind == "dash":
                    formats, _subs = ie._extract_mpd_formats_and_subtitles(self.manifest_url, "media")
                else:
                    formats, _subs = ie._extract_m3u8_formats_and_subtitles(self.manifest_url, "media", "mp4",
                                                                          m3u8_id="hls")
                if not formats:
                    raise StreamError(f"{self.manifest_url} lists no playable stream")
                info = {"id": "media", "title": target, "formats": formats, "webpage_url": self.identity.referer
                        or self.manifest_url, "extractor": "browserpilot", "extractor_key": "BrowserPilot",
                        "http_headers": self.identity.headers()}
                chosen = ydl.process_ie_result(copy.deepcopy(info), download=False)
                self._formats = [f.get("format_id") for f in chosen.get("requested_formats") or [chosen]]
                result = ydl.process_ie_result(info, download=True)
            finished = self._finish(result)
            failed = False
            return finished
        except Exception as exc:  # noqa: BLE001  (yt-dlp's errors wrap ours; the flags say what happened)
            _close_left_open(exc, self.folder)
            if self.refusal:
                raise StreamRefused(self.refusal) from None
            if self._cancel.is_set():
                raise StreamCancelled("the download was cancelled") from None
            if isinstance(exc, StreamError):
                raise
            raise StreamError(_clean(str(exc))) from None
        finally:
            _close_all(self._opened)  # what an interruption left unread (yt-dlp closes the rest)
            if failed:
                _remove_parts(self.folder, target)  # fragments, parts, the reservation
            else:
                (self.folder / f"{target}{RESERVATION}").unlink(missing_ok=True)

    def _finish(self, result: Mapping[str, Any]) -> dict[str, Any]:
        downloads = result.get("requested_downloads") or [result]
        path = Path(str(downloads[0].get("filepath") or downloads[0].get("_filename") or ""))
        if not path.is_file():
            raise StreamError(f"yt-dlp reported no file for {self.manifest_url}")
        size = path.stat().st_size
        self._report(phase="done", bytes=size, total=size)
        return {"path": str(path), "name": path.name, "bytes": size, "kind": self.kind, "url": self.manifest_url,
                "formats": [f for f in self._formats or [] if f]}


def _stem(name: str | None) -> str:
    if not name:
        return ""
    base = Path(name).name
    stem, dot, suffix = base.rpartition(".")
    return stem if dot and stem and len(suffix) <= 5 else base


def _reserve_stem(folder: Path, stem: str) -> str:
    """A file stem no file in `folder` has yet (`video`, `video (1)`, …), reserved by an empty file
    `<stem>.browserpilot-reserved` until the job ends, so two saves into one folder never share one."""
    from plumbing.filenames import safe_file_name

    base = safe_file_name(stem).strip() or "video"
    with _RESERVING:
        taken = {entry.rsplit(".", 1)[0] for entry in os.listdir(folder)}
        candidate, index = base, 0
        while candidate in taken:
            index += 1
            candidate = f"{base} ({index})"
        (folder / f"{candidate}{RESERVATION}").touch()
    return candidate


def _close_all(responses: list[Any]) -> None:
    for response in responses:
        try:
            response.close()
        except Exception as exc:  # noqa: BLE001  (closing is best effort)
            log.debug("closing a response: %s", exc)
    responses.clear()


def _close_left_open(error: BaseException, folder: Path) -> None:
    """Close the files in `folder` that yt-dlp still held open when `error` stopped it (a fragment file, in a
    frame of the traceback of `error` or of an error it wraps): an interrupted download leaves none open."""
    seen: set[int] = set()
    pending: list[Any] = [error]
    while pending:
        current = pending.pop()
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        exc_info = getattr(current, "exc_info", None)
        pending += [current.__cause__, current.__context__,
                    exc_info[1] if isinstance(exc_info, tuple) and len(exc_info) > 1 else None]
        traceback = current.__traceback__
        while traceback is not None:
            for value in list(traceback.tb_frame.f_locals.values()):
                for item in ([value, *value.values()] if isinstance(value, dict) else [value]):
                    if isinstance(item, io.IOBase) and not item.closed and \
                            str(getattr(item, "name", "")).startswith(str(folder)):
                        item.close()
                    elif type(item).__name__ == "locked_file" and not item.__dict__.get("f", io.BytesIO()).closed:
                        item.close()  # yt-dlp's fragment file (yt_dlp.utils.locked_file): unlocks and closes
            traceback = traceback.tb_next


def _remove_parts(folder: Path, stem: str) -> None:
    for entry in folder.glob(f"{glob_escape(stem)}.*"):
        try:
            entry.unlink()
        except OSError as error:
            log.warning("could not remove the partial download %s: %s", entry, error)


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _clean(message: str) -> str:
    return re.sub(r"^(ERROR:\s*)?(\[[\w:]+\]\s*)?(media:\s*)?", "", message).strip()


def find_ffmpeg() -> str | None:
    """ffmpeg named by `BROWSERPILOT_FFMPEG`, beside the app's executable (a bundle may ship a static one), or
    on PATH. In the bundle, PATH's first `ffmpeg` is a stand-in that runs the system's with the system's
    libraries (packaging/launchers/): it counts only when the system has one."""
    named = os.environ.get("BROWSERPILOT_FFMPEG")
    if named and os.access(named, os.X_OK):
        return named
    beside = Path(sys.executable).resolve().parent / "ffmpeg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("ffmpeg")
    if found is None or Path(found).parent.name != "launchers":
        return found
    rest = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p) != Path(found).parent)
    return found if shutil.which("ffmpeg", path=rest) else None
