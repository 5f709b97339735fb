"""Tab operations: tab_open, tab_list, tab_close, tab_activate."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from app.ops.registry import Operation, Params, operation
from envs.model import DEFAULT_ENV_ID


class TabOpenParams(Params):
    url: str = Field(default="about:blank", description="Address to open in the new tab.")
    env: str | None = Field(default=None, description="Environment id; default env-default.")
    show: bool = Field(default=True, description="Show it in the environment's window (an app with windows); "
                                                 "false: no window, until a person is needed on it (a handoff).")


class TabListParams(Params):
    env: str | None = Field(default=None, description="Only tabs of this environment; default: every open tab.")


class TabRefParams(Params):
    tab_id: str = Field(description="Tab id from tab_open or tab_list.")


@operation("tab_open", TabOpenParams, needs_browser=True)
async def tab_open(ctx: OpContext, params: TabOpenParams) -> dict[str, Any]:
    """Open a new tab in an environment (in its window, opened when needed, unless show is false or the app
    has no windows). Tabs opened this way start under agent control: a person sees an overlay and can press
    Take over. Returns {tabId}; the page keeps loading in the background (use page_navigate to wait)."""
    assert ctx.browser is not None
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    tab_id = await ctx.browser.open_tab(env_id, params.url, "agent", show=params.show)
    return {"tabId": tab_id, "env": env_id, "control": "agent"}


@operation("tab_list", TabListParams, needs_browser=True, read_only=True)
async def tab_list(ctx: OpContext, params: TabListParams) -> dict[str, Any]:
    """List open tabs: id, env, url, title, control (agent | handoff | shared), loading, active, groupId."""
    assert ctx.browser is not None
    if params.env is not None:
        ctx.envs.get(params.env)
    tabs = ctx.browser.list_tabs(params.env)
    groups = ctx.browser.tab_groups(params.env)
    # envId and groupId: the original BrowserPilot's names for a tab's environment and tab group.
    return {"tabs": [{**tab.model_dump(), "envId": tab.env, "groupId": groups.get(tab.id)} for tab in tabs]}


@operation("tab_close", TabRefParams, needs_browser=True, destructive=True)
async def tab_close(ctx: OpContext, params: TabRefParams) -> dict[str, Any]:
    """Close a tab, once what it still has in flight (the form post or request the last action started) has
    landed, at most the app's settle time (10 s). Closing the last tab of a window closes the window; the
    environment's login stays. `pending` lists what was cut off."""
    assert ctx.browser is not None
    ctx.check_tab_free(params.tab_id)
    pending = await ctx.browser.settle_tabs([params.tab_id], ctx.settle_seconds())
    await ctx.browser.close_tab(params.tab_id)
    return {"tabId": params.tab_id, **({"pending": pending} if pending else {})}


@operation("tab_activate", TabRefParams, needs_browser=True)
async def tab_activate(ctx: OpContext, params: TabRefParams) -> dict[str, Any]:
    """Make a tab the active tab of its window and raise the window; later calls without tabId act on it."""
    assert ctx.browser is not None
    await ctx.browser.activate_tab(params.tab_id)
    return {"tabId": params.tab_id}


OPERATIONS: tuple[Operation[Any], ...] = (tab_open, tab_list, tab_close, tab_activate)
