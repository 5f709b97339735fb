"""Tab groups: group_create, group_update, group_list, tab_group (the original's names and parameters).

Groups live in `groups.json` (envs/groups.py) and show in the environment's window as coloured groups of
tabs; which tab is in which group lasts as long as the tab.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from workflows.envelope import Envelope
from app.ops.registry import Operation, Params, operation
from app.ops.results import GroupListResult, GroupView, TabGroupResult
from envs.groups import TabGroup
from envs.model import DEFAULT_ENV_ID

COLOR_HELP = "#rrggbb or grey, blue, red, yellow, green, pink, purple, cyan, orange (default #1a73e8)."


class GroupCreateParams(Params):
    name: str = Field(description="Shown on the group's chip in the tab bar.")
    color: str | None = Field(default=None, description=COLOR_HELP)
    env: str | None = Field(default=None, description="Environment id; default env-default.")


class GroupUpdateParams(Params):
    group_id: str = Field(description="Group id from group_create or group_list.")
    name: str | None = None
    color: str | None = Field(default=None, description=COLOR_HELP)


class GroupListParams(Params):
    env: str | None = Field(default=None, description="Only this environment's groups.")


class TabGroupParams(Params):
    tab_id: str = Field(description="Tab id from tab_list.")
    group_id: str | None = Field(default=None, description="Group of the tab's environment; null or left "
                                                           "out: take the tab out of its group.")


def group_view(group: TabGroup, tab_ids: list[str] | None = None) -> GroupView:
    """A group as the operations show it; `tab_ids` (group_list): its open tabs."""
    extra = {"tab_ids": tab_ids} if tab_ids is not None else {}
    return GroupView(id=group.id, group_id=group.id, env=group.env, env_id=group.env, name=group.name,
                     color=group.color, **extra)


@operation("group_create", GroupCreateParams, GroupView, group="tabs")
async def group_create(ctx: OpContext, params: GroupCreateParams) -> GroupView:
    """Create a tab group in an environment's window. Returns {groupId, env}."""
    env_id = ctx.envs.get(params.env or DEFAULT_ENV_ID).id
    group = ctx.groups.create(env_id, params.name, params.color)
    return group_view(group)


@operation("group_update", GroupUpdateParams, GroupView, group="tabs")
async def group_update(ctx: OpContext, params: GroupUpdateParams) -> GroupView:
    """Rename a tab group or change its colour; its id stays."""
    group = ctx.groups.update(params.group_id, params.name, params.color)
    return group_view(group)


@operation("group_list", GroupListParams, GroupListResult, read_only=True, group="tabs")
async def group_list(ctx: OpContext, params: GroupListParams) -> GroupListResult:
    """Tab groups (id, env, name, color) with the ids of their open tabs (tabIds)."""
    if params.env is not None:
        ctx.envs.get(params.env)
    members = ctx.browser.tab_groups(params.env) if ctx.browser is not None else {}
    return GroupListResult(groups=[group_view(g, [t for t, gid in members.items() if gid == g.id])
                                   for g in ctx.groups.list(params.env)])


@operation("tab_group", TabGroupParams, TabGroupResult, needs_browser=True, group="tabs")
async def tab_group(ctx: OpContext, params: TabGroupParams) -> Envelope[TabGroupResult]:
    """Put a tab into a group of its environment (it moves next to the group's tabs); without groupId, take
    it out of its group."""
    assert ctx.browser is not None
    if params.group_id is not None:
        ctx.groups.get(params.group_id)  # an unknown id is an error before anything changes
    ctx.browser.set_tab_group(params.tab_id, params.group_id)
    return Envelope.model_construct(ok=True, tab_id=params.tab_id, data=TabGroupResult(group_id=params.group_id))


OPERATIONS: tuple[Operation[Any, Any], ...] = (group_create, group_update, group_list, tab_group)
