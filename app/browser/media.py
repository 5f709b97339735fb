"""Media sources that are not a network download: `data:` URLs (decoded here) and `blob:` URLs (read in
the page that created them). Network URLs go through the profile's tracked downloads (app/browser/downloads.py).

A `blob:` URL of a `File`/`Blob` reads like a file. A `blob:` URL of a `MediaSource` (adaptive streaming:
the page feeds the player segment by segment) holds no file: reading it fails (`media_stream`), and the
stream it plays is saved from the network instead (app/browser/mediastream.py).
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
from pathlib import Path
from urllib.parse import unquote_to_bytes

from PySide6.QtWebEngineCore import QWebEnginePage

from app.browser.js import MAIN_WORLD, PageError, run_js_async
from plumbing.filenames import unique_safe_path

MAX_BLOB_BYTES = 200 * 1024 * 1024

_READ_BLOB = """
let response;
try { response = await fetch(args.url); } catch (e) { return {unreadable: String(e && e.message || e)}; }
const blob = await response.blob();
if (blob.size > args.max) throw new Error('too large: ' + blob.size + ' bytes');
const data = await new Promise((resolve, reject) => {
  const reader = new FileReader();
  reader.onload = () => resolve(String(reader.result).split(',', 2)[1] || '');
  reader.onerror = () => reject(reader.error);
  reader.readAsDataURL(blob);
});
return {mime: blob.type, data};
"""


def decode_data_url(url: str) -> tuple[str, bytes]:
    """(mime, bytes) of a `data:` URL; `PageError` when it is malformed."""
    try:
        header, payload = url[5:].split(",", 1)
    except ValueError:
        raise PageError("the data: URL has no comma: it is malformed") from None
    parts = header.split(";")
    mime = parts[0] or "text/plain"
    try:
        data = base64.b64decode(payload, validate=False) if "base64" in parts[1:] else unquote_to_bytes(payload)
    except (binascii.Error, ValueError) as exc:
        raise PageError(f"the data: URL's base64 is malformed: {exc}") from None
    return mime, data


async def read_blob(page: QWebEnginePage, url: str, timeout: float) -> tuple[str, bytes]:
    """(mime, bytes) of a `blob:` URL, read by the page that owns it."""
    try:
        result = await run_js_async(page, _READ_BLOB, {"url": url, "max": MAX_BLOB_BYTES}, timeout, world=MAIN_WORLD)
    except PageError as exc:
        raise PageError(f"{url} could not be saved: {exc}", code="media_unreadable") from None
    if "unreadable" in result:  # the page could not fetch its own blob: URL
        raise PageError(f"{url} cannot be read: a blob: URL of a MediaSource (streamed video) holds no "
                        f"file; the element's segments come from the network (see net_start / net_list)",
                        code="media_stream")
    return str(result.get("mime") or "application/octet-stream"), base64.b64decode(result.get("data") or "")


def default_name(mime: str) -> str:
    extension = mimetypes.guess_extension(mime.split(";")[0].strip()) or ".bin"
    return f"media{extension}"


def write_new_file(folder: Path, name: str, payload: bytes) -> Path:
    """Write `payload` under a de-duplicated safe name in `folder` (never over an existing file)."""
    for _attempt in range(100):
        target = unique_safe_path(folder, name)
        try:
            fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        return target
    raise PageError(f"no free file name for {name} in {folder}")
