"""Result shipping: a worker's run folder files go back to the submitter, up to a size limit per row.

On the worker, `collect_files` reads the files a run produced (its `files`, failure screenshot, HAR, and the
trace's screenshots and video when it kept them),
smallest first, inline (base64) while the row's total stays within the limit; bigger ones stay where they
are and are listed with their path on the worker. On the submitter, `land_files` writes them into the run's
own folder (atomically) and `relocate` points the record's paths at the local copies. Pure Python.
"""

from __future__ import annotations

import base64
import logging
from pathlib import Path
from typing import Any

from app.distributed.models import ShippedFile
from plumbing import loggers
from plumbing.atomic import atomic_write_bytes

log = logging.getLogger(loggers.DISTRIBUTED)


def record_paths(record: dict[str, Any]) -> list[str]:
    """Every file path a run record names: files, screenshot, HAR, video, the trace's screenshots (each once)."""
    paths = [str(p) for p in record.get("files") or []]
    paths += [str(record[key]) for key in ("screenshot", "har", "video") if record.get(key)]
    paths += [str(entry[key]) for entry in record.get("trace") or [] for key in ("before", "after") if entry.get(key)]
    return list(dict.fromkeys(paths))


def _relative_name(path: Path, run_folder: Path) -> str:
    try:
        return path.resolve().relative_to(run_folder.resolve()).as_posix()
    except ValueError:
        return path.name  # a file outside the run folder (a download folder): keep its name


def collect_files(record: dict[str, Any], run_folder: Path, limit: int) -> list[ShippedFile]:
    files: list[tuple[int, Path]] = []
    for name in record_paths(record):
        path = Path(name)
        try:
            files.append((path.stat().st_size, path))
        except OSError as exc:
            log.warning("run %s: cannot ship %s (%s)", record.get("id"), path, exc)
    shipped: list[ShippedFile] = []
    budget = limit
    for size, path in sorted(files, key=lambda item: item[0]):
        data = None
        if size <= budget:
            try:
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                budget -= size
            except OSError as exc:
                log.warning("run %s: cannot read %s (%s); it stays on the worker", record.get("id"), path, exc)
        shipped.append(ShippedFile(name=_relative_name(path, run_folder), bytes=size, data=data,
                                   worker_path=str(path)))
    return shipped


def land_files(files: list[ShippedFile], run_folder: Path) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Write the shipped files into `run_folder`; returns (worker path -> local path, files left on the worker)."""
    moved: dict[str, str] = {}
    left: list[dict[str, Any]] = []
    for item in files:
        if item.data is None:
            left.append({"path": item.worker_path, "bytes": item.bytes})
            continue
        parts = [part for part in Path(item.name).parts if part not in ("..", "/", "")]
        target = run_folder.joinpath(*parts) if parts else run_folder / "file"
        atomic_write_bytes(target, base64.b64decode(item.data))
        moved[item.worker_path] = str(target)
    return moved, left


def relocate(record: dict[str, Any], moved: dict[str, str]) -> dict[str, Any]:
    """The record with its file paths pointing at the submitter's copies (paths left on the worker unchanged)."""
    out = dict(record)
    out["files"] = [moved.get(str(p), str(p)) for p in record.get("files") or []]
    for key in ("screenshot", "har", "video"):
        if record.get(key):
            out[key] = moved.get(str(record[key]), str(record[key]))
    if record.get("trace"):
        out["trace"] = [{**entry, **{key: moved.get(str(entry[key]), str(entry[key]))
                                     for key in ("before", "after") if entry.get(key)}}
                        for entry in record["trace"]]
    return out
