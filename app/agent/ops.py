"""The built-in agent's operations: `agent_run` (so the command line runs it here or in the running app,
forwarded like every verb; the agent's own tools never include it, app/agent/tools.py), and `agent_list` /
`agent_read` over its records (the main window's Agent runs panel reads them the same way)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from pydantic import Field, model_validator

from app.agent.heal_model import page_heal_model
from app.stores.agent_runs import AgentRecord
from app.agent.secrets import SecretError
from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import AgentListResult, AgentModelsResult, AgentReadResult, AgentRunResult
from plumbing.savemanager import in_thread


class AgentRunParams(Params):
    task: str = Field(min_length=1, description="What to do, in words; may name secrets as <secret:name>.")
    env: str | None = Field(default=None, description="Environment id (default env-default).")
    url: str | None = Field(default=None, description="Open this address in the agent's tab first.")
    secrets: dict[str, str] = Field(default_factory=dict, description="name -> value; the model never sees values.")
    secret_domains: dict[str, list[str]] = Field(
        default_factory=dict, description="name -> the sites where that secret may be typed (domain patterns such "
                                          "as shop.example.com or *.example.org; * for anywhere). Default: the "
                                          "site of url.")
    expect: list[str] = Field(default_factory=list, description="Locators that must be on the final page.")
    max_steps: int | None = Field(default=None, ge=1, le=500)
    provider: Literal["anthropic", "openai"] | None = Field(
        default=None, description="anthropic, or openai: any OpenAI-compatible Chat Completions endpoint with tool "
                                  "calling (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter…). Default: the saved "
                                  "setting.")
    base_url: str | None = Field(default=None, description="The provider's endpoint, e.g. http://127.0.0.1:11434/v1 "
                                                           "(default: the saved one, else OPENAI_BASE_URL / "
                                                           "ANTHROPIC_BASE_URL).")
    model: str | None = Field(default=None, description="Model name (default: the saved setting).")
    save_workflow: str | None = Field(default=None, description="Save what worked as this workflow, ending with "
                                                                "the expect checks; nothing is replayed to save it.")
    typed_as_inputs: bool = Field(default=False, description="With saveWorkflow: typed values become start inputs.")
    replay_after_save: bool = Field(default=False, description="With saveWorkflow: then run the saved workflow "
                                                               "once (it repeats what the task did, e.g. an order).")

    @model_validator(mode="after")
    def _replay_needs_save(self) -> "AgentRunParams":
        if self.replay_after_save and not self.save_workflow:
            raise ValueError("replayAfterSave needs saveWorkflow (the workflow to replay)")
        return self


@operation("agent_run", AgentRunParams, AgentRunResult, needs_browser=True, group="agent")
async def agent_run(ctx: OpContext, params: AgentRunParams) -> AgentRunResult:
    """Let the built-in agent do a task in a tab of its own and return its record: selfReport, judge, checks,
    steps, usage, refusals. Fails (ok false, record included) unless the agent reported success and every check
    held. Each secret is typed only into fields of its secretDomains (default: the site of url); any other use
    is refused, and three refusals end the run.
    saveWorkflow saves the steps as a workflow that ends with the checks, without running it again;
    replayAfterSave then runs it once (it fails when that replay fails)."""
    from app.agent.runner import AgentRun, AgentTask  # the model SDK: imported when an agent first runs

    settings = ctx.agent_settings.current
    if params.max_steps:
        settings = settings.model_copy(update={"max_steps": params.max_steps})
    choice = settings.choice(params.provider, params.model, params.base_url)
    registry = ctx.operations
    if registry is None:
        raise OpError("the agent needs the app's operations registry", code="no_registry")
    env = ctx.envs.get(params.env or "env-default").id
    task = AgentTask(task=params.task, env=env, url=params.url, secrets=params.secrets,
                     secret_domains=params.secret_domains, expect=params.expect,
                     save_workflow=params.save_workflow, typed_as_inputs=params.typed_as_inputs,
                     replay_after_save=params.replay_after_save)
    try:
        run = AgentRun(task, settings, registry, ctx, ctx.agent_runs, ctx.data.root, choice=choice)
    except SecretError as exc:
        raise OpError(str(exc), code="invalid_secrets") from None
    record = await run.run()
    view = record.view()
    if not record.success:
        raise OpError(record.error or f"the agent run ended {record.status}", record=view, success=False)
    saved = record.workflow or {}
    if params.save_workflow and not saved.get("saved"):
        raise OpError(f"the agent succeeded, but {saved.get('error')}", record=view, success=True)
    replay = saved.get("replay") or {}
    if params.replay_after_save and not replay.get("ok"):
        raise OpError(f"the agent succeeded and the workflow was saved, but its replay failed: {replay.get('error')}",
                      record=view, success=True)
    return AgentRunResult.model_validate({"record": view, "success": True})


class AgentModelsParams(Params):
    provider: Literal["anthropic", "openai"] | None = Field(default=None, description="Default: the saved setting.")
    base_url: str | None = Field(default=None, description="The endpoint to ask (default: the saved one, else the "
                                                           "provider's environment variable).")
    api_key: str | None = Field(default=None, description="A key to ask with (default: the saved one, else the "
                                                          "environment's); never kept.")


@operation("agent_models", AgentModelsParams, AgentModelsResult, read_only=True, group="agent")
async def agent_models(ctx: OpContext, params: AgentModelsParams) -> AgentModelsResult:
    """The models a provider's endpoint offers (its /v1/models list), for choosing the built-in agent's model.
    Returns {provider, baseUrl, models}; fails with code model_unreachable when the endpoint does not answer."""
    from app.agent.model import ModelError  # the model SDK: imported when first asked
    from app.agent.providers import list_models

    choice = ctx.agent_settings.current.choice(params.provider, None, params.base_url)
    if params.api_key:
        choice = replace(choice, api_key=params.api_key)
    if choice.provider == "anthropic" and not choice.api_key:
        raise OpError("no API key: Anthropic lists its models only to a key", code="no_model")
    try:
        models = await in_thread(list_models, choice, name="agent-models")
    except ModelError as exc:
        raise OpError(f"the endpoint did not list its models: {exc}", code="model_unreachable") from None
    return AgentModelsResult(provider=choice.provider, base_url=choice.base_url, models=models)


class AgentListParams(Params):
    limit: int = Field(default=50, ge=1, le=200)


class AgentRef(Params):
    run_id: str = Field(description="An agent- id from agent_run or agent_list.")


def agent_summary(record: AgentRecord) -> dict[str, Any]:
    """One line of the agent runs list: what was asked, how it ended, the three answers in short, how many
    uses of secrets were refused."""
    return {"id": record.id, "task": record.task, "model": record.model, "provider": record.provider, "env": record.env,
            "status": record.status,
            "startedAt": record.started_at.isoformat(), "durationMs": record.duration_ms, "error": record.error,
            "selfReport": record.self_report.success if record.self_report else None,
            "judge": record.judge.verdict if record.judge else None,
            "checks": [check.ok for check in record.checks], "refusals": len(record.refusals),
            "inputTokens": record.usage.input_tokens,
            "outputTokens": record.usage.output_tokens, "costUsd": record.usage.cost_usd,
            "workflow": record.workflow}


@operation("agent_list", AgentListParams, AgentListResult, read_only=True, group="agent")
async def agent_list(ctx: OpContext, params: AgentListParams) -> AgentListResult:
    """The latest built-in agent runs, newest first: task, status, model, the three answers, tokens, cost."""
    await ctx.agent_runs.refreshed()
    return AgentListResult.model_validate({"runs": [agent_summary(record) for record in ctx.agent_runs.list(params.limit)]})


@operation("agent_read", AgentRef, AgentReadResult, read_only=True, group="agent")
async def agent_read(ctx: OpContext, params: AgentRef) -> AgentReadResult:
    """One agent run's whole record: every step (the model's words, tool calls and results), the three
    answers, token usage, files, the final screenshot."""
    store = ctx.agent_runs
    try:
        record = await store.read(params.run_id)
    except LookupError:  # written by another store since this one looked at the file
        await store.refreshed()
        record = await store.read(params.run_id)
    return AgentReadResult.model_validate({"record": record.view()})


OPERATIONS: tuple[Operation[Any, Any], ...] = (agent_run, agent_models, agent_list, agent_read, page_heal_model)
