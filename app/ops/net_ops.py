"""Network operations: capture a tab's requests (net_start, net_stop, net_list, net_get, net_export → HAR) and
list what the environments' domain policies blocked (net_blocked).

Capture runs over the tab's port-less DevTools channel and costs nothing while it is off; at most 500
requests are kept per tab (the oldest are dropped). Request ids look like `tab-1a2b3c4d.17`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from app.ops.page_session import TabParams, on_page
from app.ops.registry import Operation, OpError, Params, operation
from workflows.envelope import Envelope
from workflows.results import DirectResult, HarResult, NetCaptureResult, NetGetResult, NetListResult
from workflows.results_devtools import NetBlockedResult


class NetListParams(TabParams):
    url_contains: str | None = Field(default=None, description="Only requests whose URL contains this text.")
    limit: int = Field(default=500, ge=1, le=500, description="At most this many (the most recent).")


class NetGetParams(Params):
    req_id: str = Field(pattern=r"^tab-[0-9a-f]+\.\d+$", description="A request id from net_list, e.g. tab-1a2b3c4d.17.")


class NetBlockedParams(Params):
    env: str | None = Field(default=None, description="Only this environment; default: every environment.")
    tab_id: str | None = Field(default=None, description="Only requests made by this tab (its page at the time).")
    limit: int = Field(default=100, ge=1, le=500, description="At most this many (the most recent).")


@operation("net_start", TabParams, NetCaptureResult, needs_browser=True, group="network")
async def net_start(ctx: OpContext, params: TabParams) -> Envelope[NetCaptureResult]:
    """Start capturing the tab's network requests (a fresh capture: earlier entries are dropped). Keeps the
    request and response headers, status, timing, and the bodies of text/JSON responses up to 1 MB."""
    return await on_page(ctx, params, lambda p: p.network.net_start())


@operation("net_stop", TabParams, NetCaptureResult, needs_browser=True, group="network")
async def net_stop(ctx: OpContext, params: TabParams) -> Envelope[NetCaptureResult]:
    """Stop capturing on the tab; what was captured stays readable (net_list, net_get, net_export)."""
    return await on_page(ctx, params, lambda p: p.network.net_stop())


@operation("net_list", NetListParams, NetListResult, needs_browser=True, read_only=True, group="network")
async def net_list(ctx: OpContext, params: NetListParams) -> Envelope[NetListResult]:
    """Captured requests of the tab, oldest first: {id, method, url, status, type, mimeType, size, timeMs,
    state (done | pending | failed), error?}."""
    return await on_page(ctx, params, lambda p: p.network.net_list(params.url_contains, params.limit))


@operation("net_get", NetGetParams, NetGetResult, needs_browser=True, read_only=True, group="network")
async def net_get(ctx: OpContext, params: NetGetParams) -> Envelope[NetGetResult]:
    """One captured request: request and response headers, post data, status, timing, and the response body
    (text/JSON up to 1 MB; larger or binary bodies are omitted with a bodyNote)."""
    tab_id = params.req_id.rsplit(".", 1)[0]
    return await on_page(ctx, TabParams(tab_id=tab_id), lambda p: p.network.net_get(params.req_id))


class NetExportParams(TabParams):
    path: str | None = Field(default=None, description="Where to write, inside the data folder (default "
                                                       "captures/<env>/net-….har).")
    redact: list[str] | dict[str, str] = Field(default_factory=list, description="Strings (secrets) replaced "
                                               "everywhere in the HAR by [REDACTED], or {secret: replacement}.")
    if_capturing: bool = Field(default=False, description="Return {path: null} instead of failing when the tab "
                                                          "has no capture (used by failed workflow runs).")


@operation("net_export", NetExportParams, HarResult, needs_browser=True, read_only=True, group="network")
async def net_export(ctx: OpContext, params: NetExportParams) -> Envelope[HarResult] | HarResult:
    """Write the tab's capture as a HAR 1.2 file into the data folder (captures/<env>/net-….har); returns
    {path, entries, pages}."""
    path = None
    if params.path is not None:
        target = Path(params.path).expanduser().resolve()
        if not target.is_relative_to(ctx.data.root.resolve()):
            raise OpError(f"a HAR is written inside the data folder {ctx.data.root}, not to {target}")
        path = str(target)
    if params.if_capturing:
        assert ctx.browser is not None and params.tab_id is not None
        written = await ctx.browser.export_har(params.tab_id, path or "", params.redact) if path else None
        return HarResult(path=written)
    return await on_page(ctx, params, lambda p: p.network.net_export(path, params.redact))


class NetRequestParams(TabParams):
    method: str = Field(default="GET", description="Any HTTP method (upper-cased).")
    url: str = Field(description="An http(s) URL.")
    headers: dict[str, str] = Field(default_factory=dict, description="Request headers (a Cookie header is "
                                                                      "replaced by the browser's cookies).")
    body: str | None = Field(default=None, description="Request body (not sent for GET and HEAD).")
    timeout_ms: int = Field(default=30_000, ge=100, le=600_000)


@operation("net_request", NetRequestParams, DirectResult, needs_browser=True, group="network")
async def net_request(ctx: OpContext, params: NetRequestParams) -> Envelope[DirectResult]:
    """Send an HTTP request from the app for the tab, as its browser would: the environment's domain policy
    on every hop, only the cookies the browser would send to each URL, each hop in the tab's capture (HAR).
    No CORS: for APIs a page's fetch cannot reach. Returns {status, url, headers, body, hops}."""
    method = params.method.strip().upper() or "GET"
    return await on_page(ctx, params, lambda p: p.network.direct_request(method, params.url, params.headers, params.body,
                                                                params.timeout_ms / 1000))


@operation("net_blocked", NetBlockedParams, NetBlockedResult, needs_browser=True, read_only=True, group="network")
async def net_blocked(ctx: OpContext, params: NetBlockedParams) -> NetBlockedResult:
    """Recent requests blocked by the environments' domain policies (allowedDomains / blockedDomains), oldest
    first: {time, env, url, type, host, rule, tabIds, page}. At most 500 are kept per environment."""
    assert ctx.browser is not None
    if params.env is not None:
        ctx.envs.get(params.env)
    return NetBlockedResult(blocked=ctx.browser.net_blocked(params.env, params.tab_id, params.limit))


OPERATIONS: tuple[Operation[Any, Any], ...] = (net_start, net_stop, net_list, net_get, net_export, net_request,
                                          net_blocked)
