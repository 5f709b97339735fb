"""Safe file names for downloads, exports and captures: a plain base name, kept inside its folder,
de-duplicated with ` (1)`, ` (2)`. Pure Python, shared by the browser adapter and the workflow engine."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

_UNSAFE = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')
_RESERVED = {"", ".", ".."}


def safe_file_name(name: str, fallback: str = "download") -> str:
    """Reduce any proposed name to a safe base name: no folders, no control characters, not empty."""
    name = unicodedata.normalize("NFC", name or "")
    name = name.replace("\\", "/").split("/")[-1]
    name = _UNSAFE.sub("_", name).strip().strip(".")
    if name in _RESERVED:
        name = fallback
    if len(name.encode("utf-8")) > 200:
        stem, dot, ext = name.rpartition(".")
        keep = ext if dot and len(ext) <= 16 else ""
        base = (stem if keep else name).encode("utf-8")[: 200 - len(keep) - 1].decode("utf-8", "ignore")
        name = f"{base}.{keep}" if keep else base
    return name


def safe_name_with_extension(name: str, extension: str, fallback: str = "export") -> str:
    """`safe_file_name`, ending in `extension` (added when missing)."""
    name = safe_file_name(name, fallback)
    return name if name.lower().endswith(extension.lower()) else name + extension


def unique_safe_path(folder: Path, proposed: str) -> Path:
    """A path inside `folder` for `proposed` that does not exist yet: `name.ext`, `name (1).ext`, ..."""
    folder.mkdir(parents=True, exist_ok=True)
    name = safe_file_name(proposed)
    candidate = folder / name
    stem, ext = (name.rsplit(".", 1)[0], "." + name.rsplit(".", 1)[1]) if "." in name[1:] else (name, "")
    counter = 1
    while candidate.exists():
        candidate = folder / f"{stem} ({counter}){ext}"
        counter += 1
    return candidate
