"""Tab operations: tab_open, tab_list, tab_close, tab_activate."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from workflows.envelope import Envelope
from app.ops.registry import Operation, Params, operation
from envs.model import DEFAULT_ENV_ID
from workflows.results import NoData, TabCloseResult, TabListResult, TabOpenResult, TabRow


class TabOpenParams(Params):
    url: str = "about:blank"
    env: str | None = None
    show: bool = Field(default=True, description="false: no window until a person is needed on it.")


class TabListParams(Params):
    env: str | None = Field(default=None, description="Only this environment's tabs.")


class TabRefParams(Params):
    tab_id: str


@operation("tab_open", TabOpenParams, TabOpenResult, needs_browser=True, group="core")
async def tab_open(ctx: OpContext, params: TabOpenParams) -> Envelope[TabOpenResult]:
    """Open a tab in an environment, under agent control; the page loads in the background (page_navigate
    waits for a load)."""
    assert ctx.browser is not None
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    tab_id = await ctx.browser.open_tab(env_id, params.url, "agent", show=params.show)
    return Envelope.model_construct(ok=True, tab_id=tab_id, control="agent", data=TabOpenResult(env=env_id))


@operation("tab_list", TabListParams, TabListResult, needs_browser=True, read_only=True, group="core")
async def tab_list(ctx: OpContext, params: TabListParams) -> TabListResult:
    """The open tabs."""
    assert ctx.browser is not None
    if params.env is not None:
        ctx.envs.get(params.env)
    tabs = ctx.browser.list_tabs(params.env)
    groups = ctx.browser.tab_groups(params.env)
    # envId and groupId: the original BrowserPilot's names for a tab's environment and tab group.
    return TabListResult(tabs=[TabRow(**tab.model_dump(), env_id=tab.env, group_id=groups.get(tab.id))
                               for tab in tabs])


@operation("tab_close", TabRefParams, TabCloseResult, needs_browser=True, destructive=True, group="core")
async def tab_close(ctx: OpContext, params: TabRefParams) -> Envelope[TabCloseResult]:
    """Close a tab once what its last action sent has landed (10 s at most)."""
    assert ctx.browser is not None
    ctx.check_tab_free(params.tab_id)
    pending = await ctx.browser.settle_tabs([params.tab_id], ctx.settle_seconds())
    await ctx.browser.close_tab(params.tab_id)
    return Envelope.model_construct(ok=True, tab_id=params.tab_id,
                                    data=TabCloseResult(pending=pending) if pending else TabCloseResult())


@operation("tab_activate", TabRefParams, NoData, needs_browser=True, group="tabs")
async def tab_activate(ctx: OpContext, params: TabRefParams) -> Envelope[NoData]:
    """Make a tab the active tab of its window and raise the window; later calls without tabId act on it."""
    assert ctx.browser is not None
    await ctx.browser.activate_tab(params.tab_id)
    return Envelope.model_construct(ok=True, tab_id=params.tab_id, data=NoData())


OPERATIONS: tuple[Operation[Any, Any], ...] = (tab_open, tab_list, tab_close, tab_activate)
