"""Moving a login between environments: env_export writes an environment's cookies and local storage to a
file (mode 0600, in the data folder's exports/), env_import sets them in an existing or a new environment.

The file holds live session secrets: its contents never go to a log, a result or a run record (results
carry the path and counts only). env_import also reads the original app's export files (Electron cookie
objects: `expirationDate`, `hostOnly`, `sameSite: no_restriction | lax | strict`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from envs.atomic import atomic_write_text
from envs.savemanager import in_thread
from envs.store import EnvError

log = logging.getLogger("browserpilot.ops")

FILE_KIND = "browserpilot-environment"
MAX_FILE_BYTES = 50 * 1024 * 1024


class EnvExportParams(Params):
    env: str = Field(description="Environment id.")


class EnvImportParams(Params):
    path: str = Field(description="A file written by env_export (here or in the original app).")
    env: str | None = Field(default=None, description="Import into this environment; default: a new one.")
    name: str | None = Field(default=None, description="Name of the new environment (default: the file's).")


class ExportFile(BaseModel):
    """What env_import accepts: ours, or the original's `{name, remark, exportedAt, cookies}`."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    name: str | None = None
    remark: str | None = None
    cookies: list[dict[str, Any]] = Field(default_factory=list)
    local_storage: dict[str, dict[str, str]] = Field(default_factory=dict, alias="localStorage")


@operation("env_export", EnvExportParams, needs_browser=True, read_only=True)
async def env_export(ctx: OpContext, params: EnvExportParams) -> dict[str, Any]:
    """Write the environment's login (every cookie, HttpOnly too, and local storage of its sites) to a
    JSON file readable only by you (0600) in the data folder's exports/. Returns {path, cookies, origins}.
    The file is a live login: keep it private."""
    assert ctx.browser is not None
    env = ctx.envs.get(params.env)
    state = await ctx.browser.read_env_state(env.id, [f"https://{site.domain}" for site in env.sites])
    document = {"kind": FILE_KIND, "version": 1, "env": env.id, "name": env.name, "remark": env.remark,
                "exportedAt": int(time.time() * 1000), "cookies": state["cookies"],
                "localStorage": state["localStorage"]}
    target = ctx.data.exports / f"{env.id}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    await in_thread(_write_private, target, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    log.info("exported the login of %s (%d cookies) to %s", env.id, len(state["cookies"]), target)
    return {"env": env.id, "path": str(target), "cookies": len(state["cookies"]),
            "origins": len(state["localStorage"])}


def _write_private(target: Path, text: str) -> None:
    """(On a worker thread.) Write the file readable only by its owner."""
    atomic_write_text(target, text)  # mkstemp: 0600
    os.chmod(target, 0o600)


def _read_export(path: str) -> ExportFile:
    source = Path(path).expanduser()
    try:
        if source.stat().st_size > MAX_FILE_BYTES:
            raise OpError(f"{source} is larger than {MAX_FILE_BYTES // 1024 // 1024} MB: not an env_export file")
        raw = json.loads(source.read_text("utf-8-sig"))
    except FileNotFoundError:
        raise OpError(f"there is no file {source}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OpError(f"cannot read {source}: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        raise OpError(f"{source} is not JSON ({exc.msg}, line {exc.lineno}): not an env_export file") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cookies"), list):
        raise OpError(f"{source} has no cookies list: not an env_export file")
    try:
        return ExportFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise OpError(f"{source} is not a valid env_export file: {where}: {first['msg']}") from None


def _free_name(ctx: OpContext, wanted: str) -> str:
    taken = {env.name.casefold() for env in ctx.envs.list()}
    if wanted.casefold() not in taken:
        return wanted
    for counter in range(2, 1000):
        candidate = f"{wanted} (imported {counter})" if counter > 2 else f"{wanted} (imported)"
        if candidate.casefold() not in taken:
            return candidate
    raise EnvError(f"no free name for an environment called {wanted!r}")


@operation("env_import", EnvImportParams, needs_browser=True)
async def env_import(ctx: OpContext, params: EnvImportParams) -> dict[str, Any]:
    """Restore a login from an env_export file into an environment (default: a new one, named after the
    file's). Returns {env, cookies, failed, total, origins}."""
    assert ctx.browser is not None
    exported = await in_thread(_read_export, params.path)  # checked whole before any environment is made
    created = False
    if params.env is not None:
        env = ctx.envs.get(params.env)
    else:
        name = params.name if params.name is not None else _free_name(ctx, exported.name or "Imported environment")
        env = ctx.envs.create(name, exported.remark or "")
        created = True
    result = await ctx.browser.write_env_state(env.id, exported.cookies, exported.local_storage)
    log.info("imported %d of %d cookies into %s", result["cookies"], len(exported.cookies), env.id)
    return {"env": env.id, "created": created, "cookies": result["cookies"], "failed": result["failed"],
            "total": len(exported.cookies), "origins": result["origins"]}


OPERATIONS: tuple[Operation[Any], ...] = (env_export, env_import)
