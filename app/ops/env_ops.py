"""Environment operations: env_list, env_create, env_update, env_open, env_delete.

An environment's identity (`userAgent`, `languages`, `timezone`, `geolocation`; envs/identity.py) is set by
env_create and env_update and applied by the browser to every tab of that environment only
(app/browser/identity.py).

Results carry the original BrowserPilot's names too: `envs` beside `environments`, and the environment's id
as `env` beside the `environment` record."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from workflows.envelope import Envelope
from app.ops.registry import Operation, Params, operation
from app.ops.results import EnvListResult, EnvOpenResult, EnvResult
from envs.model import Environment


def env_view(env: Environment) -> dict[str, Any]:
    return env.model_dump(mode="json", by_alias=True)


class NoParams(Params):
    pass


class IdentityParams(Params):
    # "" / [] / {} restore the browser's own.
    user_agent: str | None = None
    languages: list[str] | None = Field(default=None, description="e.g. [\"de-DE\", \"en\"]")
    timezone: str | None = Field(default=None, description="IANA, e.g. Asia/Shanghai")
    geolocation: dict[str, Any] | None = Field(default=None, description="{latitude, longitude, accuracy?}")

    def identity(self) -> dict[str, Any]:
        return {"user_agent": self.user_agent, "languages": self.languages, "timezone": self.timezone,
                "geolocation": self.geolocation}


class _EnvCreateFields(Params):
    name: str
    remark: str = ""


class EnvCreateParams(IdentityParams, _EnvCreateFields):  # the identity's fields after name and remark
    pass


class _EnvUpdateFields(Params):
    env: str = Field(description="Environment id, for example env-default or env-1a2b3c4d.")
    name: str | None = Field(default=None, description="New name.")
    remark: str | None = Field(default=None, description="New remark.")
    allowed_domains: list[str] | None = Field(
        default=None, description="Replace the allow list: with patterns, every other host is blocked for every "
                                  "request of the environment. Patterns: example.com (and www.), *.example.com "
                                  "(and subdomains), https://example.com (that scheme), host:port, *. [] clears.")
    blocked_domains: list[str] | None = Field(
        default=None, description="Replace the block list (same patterns), applied on top of the allow list. "
                                  "[] clears.")


class EnvUpdateParams(IdentityParams, _EnvUpdateFields):  # the identity's fields after the policy's
    pass


class EnvRefParams(Params):
    env: str = Field(description="Environment id, for example env-default or env-1a2b3c4d.")


class EnvOpenParams(EnvRefParams):
    headless: bool = Field(default=False, description="Accepted for the original's calls; windows here always "
                                                      "open (start the app with --headless for none).")


def env_result(env: Environment) -> EnvResult:
    return EnvResult.model_validate({"environment": env_view(env), "env": env.id})


@operation("env_list", NoParams, EnvListResult, read_only=True, group="core")
async def env_list(ctx: OpContext, params: NoParams) -> EnvListResult:
    """Every environment (a login of its own)."""
    views = [env_view(env) for env in ctx.envs.list()]
    return EnvListResult.model_validate({"environments": views, "envs": views})


@operation("env_create", EnvCreateParams, EnvResult, group="core")
async def env_create(ctx: OpContext, params: EnvCreateParams) -> EnvResult:
    """Create an empty (logged-out) environment: its own cookies and storage, optionally its own identity."""
    identity = {key: value for key, value in params.identity().items() if value is not None}
    return env_result(ctx.envs.create(params.name, params.remark, **identity))


@operation("env_update", EnvUpdateParams, EnvResult, group="envs")
async def env_update(ctx: OpContext, params: EnvUpdateParams) -> EnvResult:
    """Rename an environment, change its remark, set its network policy (allowedDomains, blockedDomains) or its
    identity (userAgent, languages, timezone, geolocation). A changed policy applies at once to the
    environment's open tabs, for every request type; a changed identity to every request from now on and to
    every page loaded from now on (reload open pages for their scripts to see it)."""
    return env_result(ctx.envs.update(params.env, name=params.name, remark=params.remark,
                                      allowed_domains=params.allowed_domains, blocked_domains=params.blocked_domains,
                                      **params.identity()))


@operation("env_open", EnvOpenParams, EnvOpenResult, needs_browser=True, group="envs")
async def env_open(ctx: OpContext, params: EnvOpenParams) -> Envelope[EnvOpenResult]:
    """Open the environment's window, or raise it when it is already open."""
    env = ctx.envs.get(params.env)
    assert ctx.browser is not None
    await ctx.browser.open_environment(env.id)
    notes = ["headless was ignored: environment windows always open here; start the app with --headless to run "
             "without windows"] if params.headless else []
    return Envelope.model_construct(ok=True, notes=notes,
                                    data=EnvOpenResult(**dict(env_result(env)), headless=False))


@operation("env_delete", EnvRefParams, EnvResult, destructive=True, group="envs")
async def env_delete(ctx: OpContext, params: EnvRefParams) -> EnvResult:
    """Delete an environment: close its window, remove its cookies, storage and partition folder, and its
    record. env-default cannot be deleted."""
    env = ctx.envs.get(params.env)
    if not env.is_default and ctx.browser is not None:
        # What its tabs still have in flight (the order the last click posted) lands before they close.
        await ctx.browser.settle_tabs([tab.id for tab in ctx.browser.list_tabs(env.id)], ctx.settle_seconds())
        await ctx.browser.release_environment(env.id)
    return env_result(ctx.envs.delete(env.id))


OPERATIONS: tuple[Operation[Any, Any], ...] = (env_list, env_create, env_update, env_open, env_delete)
