"""The envelope rules shared by every operation that touches a tab.

`on_page` resolves the tab (default: the active tab of env-default), applies the control rules for acting
operations (wait out a handoff, then lock), runs the action on the tab's parts, and builds the envelope:
`control` of the tab, its address now (`url`, unless the action's data has its own), `takenOver` when a
person took over since the last result, `dialogs` and `newTabs` seen meanwhile, and on failure `error` with
its `code` (`PageError.code`) and `errorShot` (a screenshot taken at that moment). When `x`/`y` were given as
pixels on a screenshot (the original's `shotWidth`/`shotHeight`, see `app.ops.compat`), they are mapped to the
viewport here, before the action, and the result notes the mapping.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from typing import Any, Awaitable, Callable

from pydantic import Field

from app.ops.compat import CompatError
from app.ops.context import OpContext
from app.ops.registry import OpError, Params, reading_only
from plumbing import loggers
from workflows.ports import Locator, PageError, TabPort

log = logging.getLogger(loggers.OPS)

DEFAULT_TIMEOUT_MS = 10_000
MAX_TIMEOUT_MS = 600_000


class TabParams(Params):
    # tabId, else the active tab of env (default env-default): said once in the MCP server's instructions.
    tab_id: str | None = None
    env: str | None = None


class ActingParams(TabParams):
    # How long (ms) to wait for the target to be actionable (the instructions say it once).
    timeout_ms: int = Field(default=DEFAULT_TIMEOUT_MS, ge=0, le=MAX_TIMEOUT_MS)

    @property
    def timeout(self) -> float:
        return self.timeout_ms / 1000


PageAction = Callable[[TabPort], Awaitable[dict[str, Any]]]


async def on_page(ctx: OpContext, params: TabParams, action: PageAction, *, acting: bool = False,
                  target: Locator | None = None, timeout: float = DEFAULT_TIMEOUT_MS / 1000) -> dict[str, Any]:
    """Run `action` on the tab named by `params` and return the envelope data (without `ok`)."""
    assert ctx.browser is not None
    tab = await ctx.browser.tab(params.tab_id, params.env)
    ctx.check_tab_free(tab.tab_id)
    control = tab.control
    notes: list[str] = []
    try:
        # A person's recording of the tab pauses while the app acts on it, never while it only reads it.
        with nullcontext() if reading_only.get() else control.app_acting():
            if params.shot is not None:
                notes.append(await _map_shot_point(tab, params))
            if acting:
                await control.before_acting(target, timeout)
            data = await action(tab)
    except ctx.page_errors as exc:
        shot = await control.error_shot()
        extra: dict[str, Any] = {"control": control.state, "tabId": tab.tab_id, "code": exc.code}
        if control.consume_taken_over():
            extra["takenOver"] = True
        extra.update(control.drain_events())
        if shot:
            extra["errorShot"] = shot
        for key in ("url", "status", "secret", "site"):  # a refused secret: which, and where it would have gone
            value = getattr(exc, key, None)
            if value:
                extra[key] = value
        _add_address(ctx, tab.tab_id, extra)
        raise OpError(str(exc), **extra) from None
    envelope: dict[str, Any] = {"control": control.state, "tabId": tab.tab_id}
    if control.consume_taken_over():
        envelope["takenOver"] = True
    envelope.update(control.drain_events())
    envelope.update(data)
    _add_address(ctx, tab.tab_id, envelope)
    if notes:
        envelope["notes"] = notes + list(envelope.get("notes") or [])
    return envelope


def _add_address(ctx: OpContext, tab_id: str, envelope: dict[str, Any]) -> None:
    """The tab's address now, when the operation's own data has none (a result's header shows where the tab
    is: after a click that navigated, the new page). No page is asked."""
    if envelope.get("url") or ctx.browser is None:
        return
    state = ctx.browser.tab_state(tab_id)
    if state is not None and state[0]:
        envelope["url"] = state[0]


async def _map_shot_point(tab: TabPort, params: TabParams) -> str:
    """Turn `params.x`/`params.y` from screenshot pixels into viewport CSS pixels (in place)."""
    assert params.shot is not None
    x, y = getattr(params, "x"), getattr(params, "y")
    size = (await tab.reading.script("return [innerWidth, innerHeight]", None, 10.0))["value"]
    try:
        px, py = params.shot.to_viewport(float(x), float(y), float(size[0]), float(size[1]))
    except CompatError as exc:
        raise PageError(str(exc), code="invalid_argument") from None
    setattr(params, "x", px)
    setattr(params, "y", py)
    return f"x/y ({x:g}, {y:g}) on the screenshot are ({px:.1f}, {py:.1f}) in the viewport"
