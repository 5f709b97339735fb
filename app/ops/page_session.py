"""The envelope rules shared by every operation that touches a tab.

`on_page` resolves the tab (default: the active tab of env-default), applies the control rules for acting
operations (wait out a handoff, then lock), runs the action on the tab's parts, and builds the operation's
`Envelope` around the result model the action answered (the part's own, as a rule, unchanged):
`control` of the tab, its address now (`url`, unless the action's data has its own), `takenOver` when a
person took over since the last result, `dialogs` and `newTabs` seen meanwhile, and on failure `error` with
its `code` (`PageError.code`) and `errorShot` (a screenshot taken at that moment). When `x`/`y` were given as
pixels on a screenshot (the original's `shotWidth`/`shotHeight`, see `app.ops.compat`), they are mapped to the
viewport here, before the action, and the result notes the mapping.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from pydantic import Field

from app.ops.compat import CompatError
from app.ops.context import OpContext
from app.ops.registry import OpError, Params, reading_only
from plumbing import loggers
from workflows.envelope import Envelope
from workflows.ports import Locator, PageError, TabPort
from workflows.results import PageResult, TabEvents

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


R = TypeVar("R", bound=PageResult)

# What an operation does on the tab: its part's answer, the operation's result model.
PageAction = Callable[[TabPort], Awaitable[R]]


async def on_page(ctx: OpContext, params: TabParams, action: PageAction[R], *, acting: bool = False,
                  target: Locator | None = None, timeout: float = DEFAULT_TIMEOUT_MS / 1000,
                  notes: Sequence[str] = ()) -> Envelope[R]:
    """Run `action` on the tab named by `params` and return its envelope: an `Envelope` around the result
    model the action answered, its `notes` after the screenshot mapping's."""
    assert ctx.browser is not None
    tab = await ctx.browser.tab(params.tab_id, params.env)
    ctx.check_tab_free(tab.tab_id)
    control = tab.control
    said: list[str] = []
    try:
        # A person's recording of the tab pauses while the app acts on it, never while it only reads it.
        with nullcontext() if reading_only.get() else control.app_acting():
            if params.shot is not None:
                said.append(await _map_shot_point(tab, params))
            if acting:
                await control.before_acting(target, timeout)
            data = await action(tab)
    except ctx.page_errors as exc:
        shot = await control.error_shot()
        extra: dict[str, Any] = {"control": control.state, "tabId": tab.tab_id, "code": exc.code}
        if control.consume_taken_over():
            extra["takenOver"] = True
        _add_events(control.drain_events(), extra)
        if shot:
            extra["errorShot"] = shot
        for key in ("url", "status", "secret", "site"):  # a refused secret: which, and where it would have gone
            value = getattr(exc, key, None)
            if value:
                extra[key] = value
        _add_address(ctx, tab.tab_id, extra)
        raise OpError(str(exc), **extra) from None
    said += notes
    if not data.url and (state := ctx.browser.tab_state(tab.tab_id)) is not None and state[0]:
        data.url = state[0]  # where the tab is now (after a click that navigated, the new page); no page asked
    events = control.drain_events()
    # Built from what the app itself just read and the part's model as it is (no validation): the hot path.
    # `taken_over` is given only when true: the wire says `takenOver` when it was given (Envelope.wire)
    taken = {"taken_over": True} if control.consume_taken_over() else {}
    return Envelope.model_construct(ok=True, control=control.state, tab_id=tab.tab_id, dialogs=events.dialogs,
                                    new_tabs=events.new_tabs, notes=said, data=data, **taken)


def _add_events(events: TabEvents, envelope: dict[str, Any]) -> None:
    if events.dialogs:
        envelope["dialogs"] = events.dialogs
    if events.new_tabs:
        envelope["newTabs"] = events.new_tabs


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
    size = (await tab.reading.script("return [innerWidth, innerHeight]", None, 10.0)).value
    try:
        px, py = params.shot.to_viewport(float(x), float(y), float(size[0]), float(size[1]))
    except CompatError as exc:
        raise PageError(str(exc), code="invalid_argument") from None
    setattr(params, "x", px)
    setattr(params, "y", py)
    return f"x/y ({x:g}, {y:g}) on the screenshot are ({px:.1f}, {py:.1f}) in the viewport"
