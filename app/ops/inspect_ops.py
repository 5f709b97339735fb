"""Reading one element closely, batches of DevTools commands, saving media: page_inspect, page_hit,
page_watch, page_cdp_batch, page_save_media (tools of the original BrowserPilot, over our page layer).

page_save_media and page_download share one path for media elements (app/browser/parts/capture.py): the
element's current source is saved through the environment's own network (its cookies, its domain policy);
`data:` URLs are decoded, `blob:` URLs of files read in the page; a streamed one (HLS, DASH, a MediaSource
player whose manifest is found in the tab's traffic) is saved as one file (app/browser/mediastream.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from app.ops.page_session import ActingParams, TabParams, on_page
from app.ops.registry import Operation, Params, operation
from workflows.envelope import Envelope
from workflows.ports import Locator, TabPort
from workflows.results import FileResult
from workflows.results_devtools import CdpBatchResult, ElementHit, ElementInspection, WatchResult

LOCATOR = "The element: {selector}, {xpath} or {ref}, as for page_click."


class InspectParams(TabParams):
    locator: Locator = Field(description=LOCATOR)


class HitParams(TabParams):
    x: float = Field(description="Viewport x in CSS pixels.")
    y: float = Field(description="Viewport y in CSS pixels.")


class WatchParams(TabParams):
    locator: Locator = Field(description=LOCATOR)
    timeout_ms: int = Field(default=30_000, ge=500, le=120_000, description="How long to watch (default 30000).")
    interval_ms: int = Field(default=500, ge=100, le=5_000, description="Time between looks (default 500).")
    stop_on_change: bool = Field(default=False, description="Return at the first change.")


class CdpCommand(Params):
    method: str = Field(pattern=r"^[A-Z][A-Za-z]*\.[a-zA-Z][A-Za-z0-9]*$")
    params: dict[str, Any] | None = None
    delay_ms: int = Field(default=0, ge=0, le=5_000, description="Pause after this command (ms).")


class CdpBatchParams(TabParams):
    commands: list[CdpCommand] = Field(min_length=1, max_length=200)
    timeout_ms: int = Field(default=30_000, ge=100, le=600_000, description="Per command (default 30000).")


class SaveMediaParams(ActingParams):
    locator: Locator = Field(description="An img, video, audio, source or picture element.")
    save_path: str | None = Field(default=None, description="Absolute file or folder path; default: the "
                                                            "environment's downloads folder.")
    timeout_ms: int = Field(default=120_000, ge=0, le=600_000)


@operation("page_inspect", InspectParams, ElementInspection, needs_browser=True, read_only=True, group="devtools")
async def page_inspect(ctx: OpContext, params: InspectParams) -> Envelope[ElementInspection]:
    """One element: tag, all attributes, text, rect, visible, computed style (display, visibility, opacity,
    pointerEvents), src of media, and `locator`: the CSS/XPath and alternatives (role+name, testid, label,
    text) a recording would keep, each checked to find only this element."""
    async def inspect(tab: TabPort) -> ElementInspection:
        return (await tab.reading.inspect(params.locator))

    return await on_page(ctx, params, inspect)


@operation("page_hit", HitParams, ElementHit, needs_browser=True, read_only=True, group="devtools")
async def page_hit(ctx: OpContext, params: HitParams) -> Envelope[ElementHit]:
    """The element at a viewport point (through open shadow roots and same-origin frames), described as by
    page_inspect, with a locator for it."""
    async def hit(tab: TabPort) -> ElementHit:
        return (await tab.reading.hit(params.x, params.y))

    return await on_page(ctx, params, hit)


@operation("page_watch", WatchParams, WatchResult, needs_browser=True, read_only=True, group="devtools")
async def page_watch(ctx: OpContext, params: WatchParams) -> Envelope[WatchResult]:
    """Watch an element's text, value, attributes, visibility and match count every intervalMs until
    timeoutMs (default 30 s): {changed, changes: [{atMs, text?, attributes?, ...: {before, after}}], before,
    after}."""
    async def watch(tab: TabPort) -> WatchResult:
        return (await tab.reading.watch(params.locator, params.timeout_ms / 1000, params.interval_ms / 1000,
                                        params.stop_on_change))

    return await on_page(ctx, params, watch)


@operation("page_cdp_batch", CdpBatchParams, CdpBatchResult, needs_browser=True, group="devtools")
async def page_cdp_batch(ctx: OpContext, params: CdpBatchParams) -> Envelope[CdpBatchResult]:
    """Several DevTools commands in order on one session, with page_cdp's rules (a refused command: nothing
    is sent). Stops at the first failure. Returns {results: [{method, ok, result | error}], completed}."""
    commands = [command.model_dump() for command in params.commands]

    async def batch(tab: TabPort) -> CdpBatchResult:
        return (await tab.network.cdp_batch(commands, params.timeout_ms / 1000))

    return await on_page(ctx, params, batch)


@operation("page_save_media", SaveMediaParams, FileResult, needs_browser=True, group="files")
async def page_save_media(ctx: OpContext, params: SaveMediaParams) -> Envelope[FileResult]:
    """Save an image, video or audio element's current source as a file, through the environment's own
    network (cookies, user agent, domain policy apply); data: URLs are decoded, blob: files read in the page.
    A streamed video (HLS .m3u8 with TS/fMP4 segments and AES-128 keys, DASH .mpd with audio and video
    merged, or a MediaSource player whose manifest the tab fetched) is saved whole as one file (mp4, webm or
    mkv); progress and Cancel in the environment's Downloads list. Returns {path, name, bytes, mime, stream?:
    {kind, manifest, formats}}."""
    return await on_page(ctx, params, lambda p: p.capture.save_media(params.locator, params.save_path, params.timeout),
                         acting=True, target=params.locator, timeout=params.timeout)


OPERATIONS: tuple[Operation[Any, Any], ...] = (page_inspect, page_hit, page_watch, page_cdp_batch, page_save_media)
