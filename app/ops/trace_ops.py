"""Operations on runs' traces and tabs' videos: `run_export` (one zip for a bug report), and the original
BrowserPilot's `screen_start` / `screen_stop` and `page_record_video`, recorded with the same machinery as a
run's video (app/browser/tabvideo.py).

Differences from the original on purpose: `screen_start` / `screen_stop` film a tab (`tabId`, or the active tab
of `env`, the original's form), shown in a window or windowless alike (the original refuses a headless window
and films the whole window, its tab strip included), into WebM (VP9) rather than MP4 where the build allows.
`page_record_video` films the page's largest playing <video> element (started muted) from the tab's pictures
for `seconds`: what a person sees, without its sound (the original re-encodes the element's own stream with
MediaRecorder, sound included where the page allows).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from app.ops.page_session import TabParams, on_page
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import RunExportResult
from plumbing.savemanager import in_thread
from workflows.envelope import Envelope
from workflows.ports import PageError, TabPort
from workflows.results_devtools import RecordVideoResult, ScreenStartResult, ScreenStopResult
from workflows.run_export import export_run


def _file_name(prefix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


class RunExportParams(Params):
    run_id: str = Field(description="A run- id from workflow_run or run_list.")
    path: str | None = Field(default=None, description="The zip to write (default exports/<runId>.zip in the data "
                                                       "folder).")


@operation("run_export", RunExportParams, RunExportResult, group="runs")
async def run_export(ctx: OpContext, params: RunExportParams) -> RunExportResult:
    """Write one zip to attach to a bug report: the run's record (record.json, paths relative to the zip), its
    trace screenshots (trace/), video, HAR (network.har), failure and healed screenshots (screenshots/) and large
    outputs (outputs/); not the files the run produced. Returns {path, files, bytes, missing}."""
    record = await in_thread(ctx.runs.get, params.run_id)
    if record.status == "running":
        raise OpError(f"run {record.id} is still running; export it once it has ended")
    target = Path(params.path).expanduser() if params.path else ctx.data.exports / f"{record.id}.zip"
    if not target.is_absolute():
        raise OpError(f"path must be absolute: {params.path}")
    return RunExportResult.model_validate(await in_thread(export_run, record, ctx.runs.folder(record.id), target))


class ScreenStartParams(TabParams):
    pass


@operation("screen_start", ScreenStartParams, ScreenStartResult, needs_browser=True, group="files")
async def screen_start(ctx: OpContext, params: ScreenStartParams) -> Envelope[ScreenStartResult]:
    """Start recording a tab's video (shown in a window or windowless): a few frames a second, encoded by
    ffmpeg as they come, fields a secret was typed into masked. screen_stop ends it and returns the file.
    Default tab: the active tab of env (the original's form: {env})."""

    async def start(tab: TabPort) -> ScreenStartResult:
        assert ctx.browser is not None
        target = ctx.data.captures(tab.env_id) / _file_name("screen")
        await ctx.browser.start_video(tab.tab_id, str(target))
        return ScreenStartResult(recording=True, env=tab.env_id)

    return await on_page(ctx, params, start)


@operation("screen_stop", TabParams, ScreenStopResult, needs_browser=True, group="files")
async def screen_stop(ctx: OpContext, params: TabParams) -> Envelope[ScreenStopResult]:
    """Stop recording the tab's video (screen_start) and return it: {path, seconds, frames, bytes, codec}."""

    async def stop(tab: TabPort) -> ScreenStopResult:
        assert ctx.browser is not None
        try:
            video = await ctx.browser.stop_video(tab.tab_id)
        except LookupError as exc:
            raise PageError(str(exc), code="not_recording") from None
        return ScreenStopResult(**dict(video), env=tab.env_id)

    return await on_page(ctx, params, stop)


class RecordVideoParams(TabParams):
    seconds: float = Field(default=10, ge=1, le=3600, description="How long to record (default 10, at most 3600).")
    save_path: str | None = Field(default=None, description="Where to save (absolute; default the environment's "
                                                            "downloads folder).")


_PLAY_LARGEST = """
const area = (v) => { const r = v.getBoundingClientRect(); return r.width * r.height; };
const videos = [...document.querySelectorAll('video')].filter((v) => area(v) > 0).sort((a, b) => area(b) - area(a));
if (!videos.length) return null;
const video = videos[0];
video.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
video.muted = true;
try { await video.play(); } catch (e) {}
await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
const r = video.getBoundingClientRect();
const x = Math.max(0, r.left), y = Math.max(0, r.top);
return {x, y, width: Math.min(innerWidth, r.right) - x, height: Math.min(innerHeight, r.bottom) - y,
        playing: !video.paused};
"""


@operation("page_record_video", RecordVideoParams, RecordVideoResult, needs_browser=True, group="files")
async def page_record_video(ctx: OpContext, params: RecordVideoParams) -> Envelope[RecordVideoResult]:
    """Record the video playing in the page (its largest <video>, started muted; clicked first when the page
    wants a person's gesture to play it) for `seconds`, as the page shows it, into a WebM file (no sound). For a
    stream's original quality and sound use page_save_media. Returns {path, bytes, seconds, playing}."""
    if params.save_path and not Path(params.save_path).expanduser().is_absolute():
        raise OpError(f"savePath must be absolute: {params.save_path}")

    async def record(tab: TabPort) -> RecordVideoResult:
        assert ctx.browser is not None
        found = (await tab.reading.script(_PLAY_LARGEST, None, 30.0)).value
        if not found or found["width"] <= 0 or found["height"] <= 0:
            raise PageError("there is no video element on the page to record", code="no_video")
        if not found["playing"]:  # the page wants a person's gesture first: click the video, as they would
            await tab.input.click(None, found["x"] + found["width"] / 2, found["y"] + found["height"] / 2, "left", 1,
                                  None, 10.0)
            found = (await tab.reading.script(_PLAY_LARGEST, None, 30.0)).value or found
        if params.save_path:
            wanted = Path(params.save_path).expanduser()
            target = wanted.with_suffix("") if wanted.suffix else wanted
        else:
            target = ctx.data.downloads(tab.env_id) / _file_name("video")
        crop = (float(found["x"]), float(found["y"]), float(found["width"]), float(found["height"]))
        await ctx.browser.start_video(tab.tab_id, str(target), crop=crop, max_seconds=params.seconds + 5)
        try:
            await asyncio.sleep(params.seconds)
        finally:
            video = await ctx.browser.stop_video(tab.tab_id)
        return RecordVideoResult(path=video.path, bytes=video.bytes, seconds=video.seconds,
                                 playing=bool(found.get("playing")))

    return await on_page(ctx, params, record)


OPERATIONS: tuple[Operation[Any, Any], ...] = (run_export, screen_start, screen_stop, page_record_video)
