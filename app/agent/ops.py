"""`agent_run`: the built-in agent as an operation, so the command line runs it here or in the running app
(forwarded like every verb). The agent's own tools never include it (app/agent/tools.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.agent.records import AgentRunStore
from app.agent.runner import AgentRun, AgentTask
from app.agent.settings import AgentSettingsStore
from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation


class AgentRunParams(Params):
    task: str = Field(min_length=1, description="What to do, in words; may name secrets as <secret:name>.")
    env: str | None = Field(default=None, description="Environment id (default env-default).")
    url: str | None = Field(default=None, description="Open this address in the agent's tab first.")
    secrets: dict[str, str] = Field(default_factory=dict, description="name -> value; the model never sees values.")
    expect: list[str] = Field(default_factory=list, description="Locators that must be on the final page.")
    max_steps: int | None = Field(default=None, ge=1, le=500)
    model: str | None = Field(default=None, description="Model name (default: the saved setting).")
    save_workflow: str | None = Field(default=None, description="Save what worked as this workflow (after a "
                                                                "replay without the model passes).")


@operation("agent_run", AgentRunParams, needs_browser=True)
async def agent_run(ctx: OpContext, params: AgentRunParams) -> dict[str, Any]:
    """Let the built-in agent do a task in a tab of its own and return its record: selfReport, judge, checks,
    steps, usage. Fails (ok false, record included) unless the agent reported success and every check held."""
    from app.ops import build_registry

    settings = AgentSettingsStore(ctx.data).current
    changes: dict[str, Any] = {}
    if params.model:
        changes["model"] = params.model
    if params.max_steps:
        changes["max_steps"] = params.max_steps
    settings = settings.model_copy(update=changes)
    registry = build_registry()
    env = ctx.envs.get(params.env or "env-default").id
    task = AgentTask(task=params.task, env=env, url=params.url, secrets=params.secrets, expect=params.expect,
                     save_workflow=params.save_workflow)
    run = AgentRun(task, settings, registry, lambda name, raw: registry.call(ctx, name, raw),
                   AgentRunStore(ctx.data), ctx.data.root)
    record = await run.run()
    view = record.view()
    if not record.success:
        raise OpError(record.error or f"the agent run ended {record.status}", record=view, success=False)
    return {"record": view, "success": True}


OPERATIONS: tuple[Operation[Any], ...] = (agent_run,)
