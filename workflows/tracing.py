"""A run's trace and video: what is kept, the port the engine records them through, and the disk they may use.

- `trace` (screenshots of every node, the element it acted on, console, requests) and `video` (the run's tab as a
  film) each follow a mode: `off`, `on-failure` (kept only when the run does not end ok) or `always`. The
  settings give the defaults (trace `on-failure`, video `off`); a run, a batch or a schedule may say otherwise.
- The engine (workflows/engine.py) records through a `TracePort`, which the browser implements
  (app/browser/trace.py): `start` when the run starts, `step` as each node starts, `finish` when it ends, told
  whether the trace and the video are to be kept. Nothing here knows about pictures or Qt.
- What a step left (`StepTrace`) becomes part of the node's trace entry in the run record (workflows/runs.py);
  the files live in the run's folder (`trace/`, `video.webm`), so they go with the run when the store drops it.
- `prune(runs_folder, cap)`: the traces and videos of all runs together stay under a size (the setting
  `traceDiskMb`): the oldest runs' are deleted first (their records stay, saying so). Pure Python, no Qt.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

from plumbing import loggers

log = logging.getLogger(loggers.WORKFLOWS)

TraceMode = Literal["off", "on-failure", "always"]
TRACE_MODES: tuple[str, ...] = get_args(TraceMode)
DEFAULT_TRACE: TraceMode = "on-failure"
DEFAULT_VIDEO: TraceMode = "off"
TRACE_FOLDER = "trace"        # runs/<id>/trace/: the steps' screenshots
VIDEO_STEM = "video"          # runs/<id>/video.webm (or .mp4 where the build has no VP9/VP8 encoder)
VIDEO_SUFFIXES = (".webm", ".mp4")
DEFAULT_DISK_MB = 1024


def keeps(mode: TraceMode, status: str) -> bool:
    """Whether a run that ended with `status` keeps what `mode` recorded."""
    return mode == "always" or (mode == "on-failure" and status != "ok")


def check_mode(value: str, what: str = "trace") -> TraceMode:
    """`value` as a mode (ValueError naming the valid ones otherwise)."""
    if value not in TRACE_MODES:
        raise ValueError(f"{what} must be one of {', '.join(TRACE_MODES)}, not {value!r}")
    return value  # type: ignore[return-value]


@dataclass(frozen=True)
class TraceDefaults:
    """The settings' modes and the size all traces and videos together may take."""

    trace: TraceMode = DEFAULT_TRACE
    video: TraceMode = DEFAULT_VIDEO
    disk_mb: int = DEFAULT_DISK_MB


@dataclass(frozen=True)
class TraceRequest:
    """What a run asks the browser to record."""

    run_id: str
    tab_id: str
    folder: Path                 # runs/<run-id>/
    screenshots: bool            # the trace is on (on-failure or always)
    video: bool                  # the video is on
    trace_always: bool = False   # the trace is kept whatever happens: its pictures are encoded as they come
    # Secret values and what stands for each (`<secret:name>`): a field they are typed into is masked in every
    # picture; texts (console, requests) are redacted with them.
    secrets: dict[str, str] = field(default_factory=dict)


@dataclass
class StepTrace:
    """What one step (a node) left in the trace; paths are absolute, in the run's folder."""

    at_ms: float                              # when the step started, from the run's start
    before: str | None = None                 # at the moment of acting (the element outlined), or None
    after: str | None = None                  # when the step ended
    box: dict[str, float] | None = None       # the element acted on, in CSS px of the viewport
    element: str | None = None                # its description
    console: list[dict[str, Any]] = field(default_factory=list)      # {level, text, source, line}
    page_errors: list[dict[str, Any]] = field(default_factory=list)  # {text, source, line}
    requests: list[dict[str, Any]] = field(default_factory=list)     # {method?, url, type, status?, ms?, ...}


@dataclass
class TraceResult:
    """What `finish` kept: one `StepTrace` per step started (by index), the video and notes."""

    steps: dict[int, StepTrace] = field(default_factory=dict)
    video: str | None = None
    notes: list[str] = field(default_factory=list)


class RunTrace(Protocol):
    """One run's recording (made by `TracePort.start`)."""

    def step(self, index: int, tab_id: str, title: str) -> None:
        """Step `index` (the node's position in the record's trace) starts, acting in `tab_id` (the run may
        have followed a click into a new tab). Returns at once: pictures are taken off the engine's path."""

    async def finish(self, keep_trace: bool, keep_video: bool) -> TraceResult:
        """The run ended: stop recording; write what is kept into the run's folder (and nothing else)."""


class TracePort(Protocol):
    """The browser's side of traces (app/browser/trace.py)."""

    def start(self, request: TraceRequest) -> RunTrace | None:
        """Start recording a run; None when the tab cannot be recorded (it is gone)."""


# -- disk ----------------------------------------------------------------------------------------------------
def trace_files(run_folder: Path) -> list[Path]:
    """A run's trace folder and video file(s) that exist."""
    found = [run_folder / TRACE_FOLDER] if (run_folder / TRACE_FOLDER).is_dir() else []
    return found + [p for p in (run_folder / f"{VIDEO_STEM}{s}" for s in VIDEO_SUFFIXES) if p.is_file()]


def size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except OSError:
                continue
    return total


def prune(runs_folder: Path, cap_bytes: int, keep: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Delete the oldest runs' traces and videos until all of them together take at most `cap_bytes`; a run in
    `keep` (one that just ended) is the last to go. Returns the ids of the runs whose traces were deleted. Blocks
    on the disk: call it off the Qt thread."""
    if not runs_folder.is_dir():
        return []
    sized: list[tuple[float, str, list[Path], int]] = []
    for folder in runs_folder.iterdir():
        files = trace_files(folder) if folder.is_dir() else []
        if not files:
            continue
        try:
            age = max(p.stat().st_mtime for p in files)
        except OSError:
            continue
        sized.append((age, folder.name, files, sum(size_of(p) for p in files)))
    total = sum(item[3] for item in sized)
    dropped: list[str] = []
    for _age, run_id, files, size in sorted(sized, key=lambda item: (item[1] in keep, item[0])):
        if total <= cap_bytes:
            break
        for path in files:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        total -= size
        dropped.append(run_id)
        log.info("dropped the trace and video of %s (%d bytes): traces may take %d MB in all", run_id, size,
                 cap_bytes // (1024 * 1024))
    return dropped
