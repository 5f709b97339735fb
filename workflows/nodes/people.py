"""People node types: `handoff` and `captcha`. BrowserPilot never tries to defeat a captcha: a person solves it.

- `handoff` shows the person `message` and hands the tab over. When the next node has a locator (whatever its
  type, `wait` included), the run waits up to 10 minutes for that element to be present, then takes the tab
  back; when it has none, the run continues at once (as the original does).
- `captcha`: when a known captcha widget (or `locator`) is present, the person is asked to solve it and the
  run waits until it is gone, at most `timeout` seconds (default 10 minutes). Output `{solved, attempts,
  skipped}`: `{solved: true, attempts: 0, skipped: true}` when none is present; `solved: false` when the
  person did not solve it in time, and the run continues, as the original's does. Pure Python: no Qt here.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator

from workflows.nodes.base import QT_TRANSLATE_NOOP, NodeData, RecordedStep, RunContext, clip
from workflows.nodes.locators import NodeLocator, optional_locator
from workflows.nodes.values import NonNegativeInt, Seconds, Text
from workflows.operations import PAGE_HANDOFF, PAGE_LOCK

HANDOFF_TIMEOUT = 600.0
CAPTCHA_SELECTORS = (
    "iframe[src*='recaptcha'], .g-recaptcha, iframe[src*='hcaptcha.com'], .h-captcha, .cf-turnstile, "
    "iframe[src*='challenges.cloudflare.com'], .geetest_holder, .geetest_panel, [class^='geetest_'], "
    "[class*=geetest_bg], [class*=geetest_slider]"
)
CAPTCHA_NOTE = "solving is left to the person: BrowserPilot never tries to defeat a captcha"


class HandoffData(NodeData):
    """Hand the tab to the person with `message`; `timeout` seconds (default 10 minutes) for the next
    node's element to appear."""

    node_type: ClassVar[str] = "handoff"
    category: ClassVar[str] = "people"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "handoff")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Hands the tab to the person with a message, until the next step's element appears.")
    type: Literal["handoff"]
    message: Text = ""
    timeout: Seconds | None = None

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        return f"Hand over to a person: {clip(str(data.get('message', '')))}"

    async def run(self, ctx: RunContext) -> Any:
        message = ctx.render(self.message) or "Please do this step, then click Done."
        await ctx.op(PAGE_HANDOFF, {"message": message})
        following = ctx.graph.outgoing(ctx.node.id)
        next_node = ctx.graph.get(following[0]) if len(following) == 1 else None
        target = getattr(next_node.data, "locator", None) if next_node is not None else None
        if isinstance(target, NodeLocator):
            timeout = float(self.timeout) if self.timeout else HANDOFF_TIMEOUT
            candidates = [ctx.render_locator(candidate) for candidate in target.candidates()]
            if not await ctx.wait_presence(candidates, True, timeout):
                ctx.fail(f"the person did not finish within {timeout:g} s ({target.label()} never appeared)")
        await ctx.op(PAGE_LOCK, {})
        return {"message": message}


class CaptchaData(NodeData):
    """Hand the tab to the person while a captcha (known widget or `locator`) is present. `engine` and
    `retries` are the original's fields, accepted and reported: solving is left to the person."""

    node_type: ClassVar[str] = "captcha"
    category: ClassVar[str] = "people"
    produces_output: ClassVar[bool] = True
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "captcha")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Hands the tab to the person while a captcha is shown.")
    output_keys: ClassVar[tuple[str, ...]] = ("solved", "attempts", "skipped")
    type: Literal["captcha"]
    engine: Text | None = None
    retries: NonNegativeInt | None = None
    locator: Annotated[NodeLocator | None, BeforeValidator(optional_locator)] = None
    timeout: Seconds | None = None

    async def run(self, ctx: RunContext) -> Any:
        locator = ctx.render_locator(self.locator) if self.locator is not None else {"selector": CAPTCHA_SELECTORS}
        if not await ctx.wait_presence([locator], True, 0.0):
            return {"solved": True, "attempts": 0, "skipped": True, "note": CAPTCHA_NOTE}
        timeout = float(self.timeout) if self.timeout else HANDOFF_TIMEOUT
        await ctx.op(PAGE_HANDOFF, {"message": "Please solve the captcha on this page. The workflow continues "
                                                 "when it is gone."})
        solved = await ctx.wait_presence([locator], False, timeout)
        await ctx.op(PAGE_LOCK, {})
        return {"solved": solved, "attempts": 1, "skipped": False, "handedOff": True, "note": CAPTCHA_NOTE}

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        return "A person solves the captcha"
