"""One file to attach to a bug report: a run's record, trace, screenshots, video and HAR in a zip.

The zip holds exactly:
- `record.json`: the run as `run_read` shows it, its file paths made relative to the zip;
- `trace/`: the steps' screenshots (before with the element outlined, after);
- `video.webm` (or `.mp4`): the run's video, with its chapters;
- `network.har`: the run's HAR (when network capture ran);
- `screenshots/`: the failure screenshot and the healed elements' screenshots;
- `outputs/`: large outputs the record keeps in files.
The run's own files (exports, downloads) are not included: they are its results, not its story, and may hold
what a person would not send. Secrets are already out of all of it (the record and HAR redacted, the fields a
secret was typed into masked in every picture). Written atomically; blocks on the disk (call it off the Qt
thread). Pure Python.
"""

from __future__ import annotations

import json
import os
import secrets
import zipfile
from pathlib import Path
from typing import Any

from workflows.runs import RunRecord


def _arcname(path: Path, folder: Path, group: str) -> str:
    try:
        relative = path.resolve().relative_to(folder.resolve())
    except ValueError:
        return f"{group}/{path.name}"
    parts = relative.parts
    if parts and parts[0] in ("trace", "outputs"):
        return relative.as_posix()
    if len(parts) == 1 and path.stem == "video":
        return path.name
    if path.suffix == ".har":
        return "network.har"
    return f"{group}/{path.name}"


def export_run(record: RunRecord, folder: Path, target: Path) -> dict[str, Any]:
    """Write the zip of `record` (its run folder `folder`) to `target`: `{path, files, bytes, missing}`."""
    files: dict[str, Path] = {}
    missing: list[str] = []

    def take(value: str | None, group: str) -> str | None:
        if not value:
            return value
        path = Path(value)
        if not path.is_file():
            missing.append(value)
            return None
        name = _arcname(path, folder, group)
        while name in files and files[name] != path:
            name = f"{group}/{secrets.token_hex(2)}-{path.name}"
        files[name] = path
        return name

    copy = record.model_copy(deep=True)
    copy.screenshot = take(copy.screenshot, "screenshots")
    copy.har = take(copy.har, "network")
    copy.video = take(copy.video, "video")
    for entry in copy.trace:
        entry.before = take(entry.before, "trace")
        entry.after = take(entry.after, "trace")
        if entry.healed and entry.healed.get("shot"):
            entry.healed["shot"] = take(str(entry.healed["shot"]), "screenshots")
    for key, value in list(copy.outputs.items()):
        if isinstance(value, dict) and "$file" in value:
            copy.outputs[key] = {**value, "$file": take(str(value["$file"]), "outputs")}
    view = copy.view()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(3)}.tmp")
    try:
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("record.json", json.dumps(view, ensure_ascii=False, indent=1))
            for name, path in sorted(files.items()):
                stored = zipfile.ZIP_STORED if path.suffix in (".jpg", ".png", ".webm", ".mp4") else zipfile.ZIP_DEFLATED
                archive.write(path, name, compress_type=stored)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return {"path": str(target), "files": len(files) + 1, "bytes": target.stat().st_size, "missing": missing}
