"""Moving a login between environments: env_export writes an environment's cookies and local storage to a
file (mode 0600, in the data folder's exports/), env_import sets them in an existing or a new environment.

The file holds live session secrets: its contents never go to a log, a result or a run record (results
carry the path and counts only). env_import also reads the original app's export files (Electron cookie
objects: `expirationDate`, `hostOnly`, `sameSite: no_restriction | lax | strict`).

Besides that JSON (`format: "json"`, the default: cookies, local storage, and the environment's identity so
that a login keeps its user agent), both speak the files other tools use (envs/cookie_files.py): Playwright's
`storage_state` (`"playwright"`, browser-use's too: cookies and each origin's local storage), Netscape
`cookies.txt` (`"netscape"`: curl, wget, yt-dlp) and the cookie-editor extensions' JSON (`"cookie-editor"`); the
last two carry cookies only. env_import recognises the format by the file's content.

env_import also takes a login from a browser installed here (`fromBrowser`: chrome, chromium, brave, edge, firefox,
with a `profile`; envs/browser_logins.py reads and decrypts its cookies with yt-dlp): only the sites asked for
(`domains`). Without them it copies nothing and answers with the sites that profile has cookies for (code
`sites_needed`, `sites: [{site, cookies}]`), so that the person (or the agent) chooses; `["*"]` takes every site.
env_browser_profiles lists the browsers and profiles found here.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import BrowserProfilesResult, EnvExportResult, EnvImportResult
from plumbing import loggers
from plumbing.atomic import atomic_write_text
from envs.browser_logins import BROWSERS, BrowserLoginError, for_domains, list_profiles, parse_source, \
    read_browser_cookies, sites_of
from envs.cookie_files import CookieFileError, CookieFormat, detect_format, from_cookie_editor, from_netscape, \
    from_storage_state, to_cookie_editor, to_netscape, to_storage_state
from plumbing.savemanager import in_thread
from envs.store import EnvError

log = logging.getLogger(loggers.OPS)

FILE_KIND = "browserpilot-environment"
MAX_FILE_BYTES = 50 * 1024 * 1024


class EnvExportParams(Params):
    env: str = Field(description="Environment id.")
    format: CookieFormat = Field(
        default="json", description="json (default, the original's: cookies, local storage and the identity), "
                                    "netscape (a cookies.txt for curl -b, wget, yt-dlp --cookies) or "
                                    "cookie-editor (the JSON of the Cookie-Editor / EditThisCookie extensions).")


class EnvImportParams(Params):
    path: str | None = Field(default=None, description="A file written by env_export (here or in the original app), "
                                                       "a Playwright storage_state, a Netscape cookies.txt or a cookie "
                                                       "editor's JSON export; the format is recognised.")
    from_browser: str | None = Field(default=None, description="Instead of a file: a browser installed here, chrome, "
                                                               "chromium, brave, edge or firefox (BROWSER:PROFILE "
                                                               "names a profile too).")
    profile: str | None = Field(default=None, description="With fromBrowser: the profile's name (Default, Profile 1, "
                                                          "a Firefox profile's folder name) or folder; default: the "
                                                          "most recently used.")
    domains: list[str] | None = Field(default=None, description="With fromBrowser: the sites whose cookies to copy (a "
                                                                "domain covers its subdomains; [\"*\"]: every site). "
                                                                "Without it nothing is copied and the sites found are "
                                                                "returned to choose from.")
    env: str | None = Field(default=None, description="Import into this environment; default: a new one.")
    name: str | None = Field(default=None, description="Name of the new environment (default: the file's).")

    @model_validator(mode="after")
    def _one_source(self) -> "EnvImportParams":
        if (self.path is None) == (self.from_browser is None):
            raise ValueError("give either path (a file) or fromBrowser (an installed browser)")
        if self.from_browser is None and (self.profile is not None or self.domains is not None):
            raise ValueError("profile and domains go with fromBrowser")
        return self


class EnvBrowserProfilesParams(Params):
    pass


class ExportFile(BaseModel):
    """What env_import accepts: ours, or the original's `{name, remark, exportedAt, cookies}`."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    name: str | None = None
    remark: str | None = None
    cookies: list[dict[str, Any]] = Field(default_factory=list)
    local_storage: dict[str, dict[str, str]] = Field(default_factory=dict, alias="localStorage")
    identity: dict[str, Any] = Field(default_factory=dict)
    format: CookieFormat = "json"


@operation("env_export", EnvExportParams, EnvExportResult, needs_browser=True, read_only=True, group="envs")
async def env_export(ctx: OpContext, params: EnvExportParams) -> EnvExportResult:
    """Write the environment's login (every cookie, HttpOnly too, and local storage of its sites) to a
    file readable only by you (0600) in the data folder's exports/: JSON by default, or a Netscape cookies.txt
    (format netscape) or a cookie editor's JSON (format cookie-editor), cookies only. Returns {path, format,
    cookies, origins}. The file is a live login: keep it private."""
    assert ctx.browser is not None
    env = ctx.envs.get(params.env)
    sites = [f"https://{site.domain}" for site in env.sites] if params.format in ("json", "playwright") else []
    state = await ctx.browser.read_env_state(env.id, sites)
    cookies = state["cookies"]
    stamp = f"{env.id}-{time.strftime('%Y%m%d-%H%M%S')}"
    if params.format == "netscape":
        target, text, origins = ctx.data.exports / f"{stamp}-cookies.txt", to_netscape(cookies), 0
    elif params.format == "playwright":
        target, origins = ctx.data.exports / f"{stamp}-storage-state.json", len(state["localStorage"])
        text = json.dumps(to_storage_state(cookies, state["localStorage"]), ensure_ascii=False, indent=1) + "\n"
    elif params.format == "cookie-editor":
        target, origins = ctx.data.exports / f"{stamp}-cookie-editor.json", 0
        text = json.dumps(to_cookie_editor(cookies), ensure_ascii=False, indent=1) + "\n"
    else:
        document = {"kind": FILE_KIND, "version": 1, "env": env.id, "name": env.name, "remark": env.remark,
                    "exportedAt": int(time.time() * 1000), "cookies": cookies, "localStorage": state["localStorage"]}
        if env.has_identity:
            document["identity"] = identity_of(env)
        target, origins = ctx.data.exports / f"{stamp}.json", len(state["localStorage"])
        text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    await in_thread(_write_private, target, text)
    log.info("exported the login of %s (%d cookies, %s) to %s", env.id, len(cookies), params.format, target)
    return EnvExportResult(env=env.id, path=str(target), format=params.format, cookies=len(cookies), origins=origins)


def identity_of(env: Any) -> dict[str, Any]:
    """The environment's identity as env_update takes it (only what is set)."""
    view = {"userAgent": env.user_agent, "languages": list(env.languages), "timezone": env.timezone,
            "geolocation": env.geolocation.model_dump() if env.geolocation is not None else None}
    return {key: value for key, value in view.items() if value}


def _write_private(target: Path, text: str) -> None:
    """(On a worker thread.) Write the file readable only by its owner."""
    atomic_write_text(target, text)  # mkstemp: 0600
    os.chmod(target, 0o600)


def _read_export(path: str) -> ExportFile:
    source = Path(path).expanduser()
    try:
        if source.stat().st_size > MAX_FILE_BYTES:
            raise OpError(f"{source} is larger than {MAX_FILE_BYTES // 1024 // 1024} MB: not an env_export file")
        kind, raw = detect_format(source.read_text("utf-8-sig"))
        if kind == "netscape":
            return ExportFile(cookies=from_netscape(raw), format="netscape")
        if kind == "cookie-editor":
            return ExportFile(cookies=from_cookie_editor(raw), format="cookie-editor")
        if kind == "playwright":
            cookies, storage = from_storage_state(raw)
            return ExportFile(cookies=cookies, localStorage=storage, format="playwright")
    except FileNotFoundError:
        raise OpError(f"there is no file {source}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OpError(f"cannot read {source}: {getattr(exc, 'strerror', None) or exc}") from None
    except CookieFileError as exc:
        raise OpError(f"{source} cannot be imported: {exc}") from None
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


@operation("env_import", EnvImportParams, EnvImportResult, needs_browser=True, group="envs")
async def env_import(ctx: OpContext, params: EnvImportParams) -> EnvImportResult:
    """Restore a login from an env_export file, a Playwright storage_state, a Netscape cookies.txt or a cookie
    editor's JSON (recognised by content) into an environment (default: a new one, named after the file's). An
    env_export file's identity (user agent, languages, time zone, geolocation) comes along. Or, with fromBrowser,
    copy the chosen sites' cookies (domains) from a browser installed here; without domains nothing is copied and
    the sites found are returned (code sites_needed). Returns {env, format, cookies, failed, total, origins,
    identity} (from a browser: also source, sites: [{site, cookies}], undecryptable)."""
    assert ctx.browser is not None
    if params.from_browser is not None:
        return await _import_from_browser(ctx, params)
    assert params.path is not None
    exported = await in_thread(_read_export, params.path)  # checked whole before any environment is made
    identity = _identity_params(exported.identity)
    created = False
    if params.env is not None:
        env = ctx.envs.get(params.env)
        if identity:
            env = ctx.envs.update(env.id, **identity)
    else:
        name = params.name if params.name is not None else _free_name(ctx, exported.name or "Imported environment")
        env = ctx.envs.create(name, exported.remark or "", **identity)
        created = True
    result = await ctx.browser.write_env_state(env.id, exported.cookies, exported.local_storage)
    log.info("imported %d of %d cookies into %s", result["cookies"], len(exported.cookies), env.id)
    return EnvImportResult(env=env.id, created=created, format=exported.format, cookies=result["cookies"],
                           failed=result["failed"], total=len(exported.cookies), origins=result["origins"],
                           identity=bool(identity))


async def _import_from_browser(ctx: OpContext, params: EnvImportParams) -> EnvImportResult:
    """The chosen sites' cookies of an installed browser's profile, into a new or the given environment."""
    assert ctx.browser is not None and params.from_browser is not None
    try:
        source = parse_source(params.from_browser, params.profile)
        found = await in_thread(read_browser_cookies, source, name="browser-cookies")
    except BrowserLoginError as exc:
        raise OpError(str(exc), code="browser_unreadable") from None
    sites = sites_of(found.cookies)
    listing = {"source": str(source), "database": found.database, "sites": sites}
    if not params.domains:  # none, or an empty list: ask
        names = ", ".join(f"{s['site']} ({s['cookies']})" for s in sites[:40]) or "none"
        raise OpError(f"say which sites to copy (domains; [\"*\"] for all): {source} has cookies for {names}",
                      code="sites_needed", **listing)
    try:
        chosen = for_domains(found.cookies, params.domains)
    except BrowserLoginError as exc:
        raise OpError(str(exc), code="invalid_domains") from None
    if not chosen:
        raise OpError(f"{source} has no cookies for {', '.join(params.domains)}", code="no_cookies", **listing)
    created = params.env is None
    env = ctx.envs.get(params.env) if params.env is not None else \
        ctx.envs.create(params.name if params.name is not None else _free_name(ctx, f"From {source.browser}"), "")
    result = await ctx.browser.write_env_state(env.id, chosen, {})
    copied = sites_of(chosen)
    log.info("imported %d of %d cookies of %s into %s (%d sites)", result["cookies"], len(chosen), source, env.id,
             len(copied))
    return EnvImportResult.model_validate({
        "env": env.id, "created": created, "format": "browser", "source": str(source), "database": found.database,
        "cookies": result["cookies"], "failed": result["failed"], "total": len(chosen), "origins": 0,
        "identity": False, "sites": copied, "undecryptable": found.undecryptable})


@operation("env_browser_profiles", EnvBrowserProfilesParams, BrowserProfilesResult, read_only=True, group="envs")
async def env_browser_profiles(ctx: OpContext, params: EnvBrowserProfilesParams) -> BrowserProfilesResult:
    """The browsers installed here whose logins env_import can copy (fromBrowser), each with its profiles that have
    cookies, most recently used first. Returns {browsers: [{browser, profiles}]}."""
    def find() -> list[dict[str, Any]]:
        return [{"browser": browser, "profiles": profiles} for browser in BROWSERS
                if (profiles := list_profiles(browser))]

    return BrowserProfilesResult.model_validate({"browsers": await in_thread(find, name="browser-profiles")})


def _identity_params(identity: dict[str, Any]) -> dict[str, Any]:
    """An export file's identity as the store's keyword arguments (unknown keys ignored)."""
    names = {"userAgent": "user_agent", "languages": "languages", "timezone": "timezone",
             "geolocation": "geolocation"}
    return {names[key]: value for key, value in identity.items() if key in names and value}


OPERATIONS: tuple[Operation[Any, Any], ...] = (env_export, env_import, env_browser_profiles)
