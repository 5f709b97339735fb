"""The model step of healing: when no locator finds a replayed node's element and its fingerprint fits
no element clearly, the configured model (the built-in agent's settings: key, model, base URL) is asked, with the
fingerprint, the node's type and title, and an accessibility snapshot of the page, to point at the element. Its
answer (a snapshot ref) is checked before anything acts on it: the element must exist, be one, and be of the
fingerprint's kind and form (the same refusal as for a locator). Secret values never reach the model: the run's
secret values are replaced in everything sent, in every form they take (workflows/redaction.py). Without a model
configured the operation says so (code no_model) and the node fails as before. A repair from the model is never
accepted by itself (workflows/repairs.py).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from app.ops.page_session import TabParams, on_page
from app.ops.registry import OpError, operation
from workflows.results import HealResult
from plumbing import loggers
from workflows.envelope import Envelope
from workflows.ports import Locator, TabPort
from workflows.redaction import Redactor

log = logging.getLogger(loggers.AGENT)

SYSTEM = ("You help a deterministic browser automation replay one recorded step after the web page changed. You "
          "get the step (its node type and title), the fingerprint of the element it acted on when it was "
          "recorded, and an accessibility snapshot of the page now, where interactive elements carry [ref=eN]. "
          "Answer with the point_at tool: the ref of the one element that is clearly the same element (same "
          "purpose, same kind of control, same form), or no ref when no element clearly is. Never choose an "
          "element of another kind or in another form.")
TOOL = {"name": "point_at", "description": "Name the element the step should act on now, or none.",
        "input_schema": {"type": "object", "properties": {
            "ref": {"type": ["string", "null"], "description": "The element's ref from the snapshot (eN), or null."},
            "reason": {"type": "string", "description": "Why, in a few words."}}, "required": ["ref", "reason"]}}
MAX_SNAPSHOT = 60_000
SECRET_MARK = "<secret>"


class HealModelParams(TabParams):
    fingerprint: dict[str, Any] = Field(description="The element as it was recorded (a locator's fingerprint).")
    node_type: str = Field(default="", description="The replayed node's type (click, fill, …).")
    title: str = Field(default="", description="The replayed node's title.")
    redact: list[str] = Field(default_factory=list, description="Values never to send (the run's secrets): each is "
                                                               "sent as <secret> instead.")


def _answer(reply: Any) -> dict[str, Any]:
    for block in reply.blocks:
        if block["type"] == "tool_use" and block["name"] == "point_at":
            return dict(block["input"]) if isinstance(block["input"], dict) else {}
    text = reply.text
    match = re.search(r"\{.*\}", text, re.S)
    try:
        answer = json.loads(match.group(0)) if match else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise OpError(f"the model did not answer as asked: {text[:200]!r}", code="model_answer")
    return answer


@operation("page_heal_model", HealModelParams, HealResult, needs_browser=True, read_only=True, group="replay")
async def page_heal_model(ctx: OpContext, params: HealModelParams) -> Envelope[HealResult]:
    """Ask the configured model to point at a replayed node's element that neither its locators nor its
    fingerprint found, and check its answer (one element, of the fingerprint's kind and form). Returns {status:
    healed, ref, desc, locator, reason, byModel: true}; fails with code no_model when no model is configured."""
    settings = ctx.agent_settings.current
    choice = settings.choice()
    problem = choice.problem()
    if problem:
        raise OpError(f"no model is configured (the built-in agent's settings): {problem}", code="no_model")

    # Every form of the run's secrets (URL-encoded, JSON- and HTML-escaped, base64…) as `<secret>`.
    redact = Redactor.of({value: SECRET_MARK for value in params.redact if value})

    async def ask(tab: TabPort) -> HealResult:
        snap = await tab.reading.snapshot(None, 1, 25)
        outline = redact.text(snap.snapshot)[:MAX_SNAPSHOT]
        step = redact.text(json.dumps(redact({"nodeType": params.node_type, "title": params.title,
                                              "fingerprint": params.fingerprint}), ensure_ascii=False))
        from app.agent.model import ModelError, ModelRequest  # the model SDK: imported when first asked
        from app.agent.providers import open_model

        request = ModelRequest(model=choice.model, max_tokens=300, system=SYSTEM, tools=[TOOL], tool_choice="point_at",
                               messages=[{"role": "user", "content": [{"type": "text",
                                                                       "text": f"Step: {step}\n\nPage now:\n{outline}"}]}])
        model = open_model(choice, timeout=settings.step_timeout_s)
        try:
            reply = await model.create(request)
        except ModelError as exc:
            raise OpError(f"the model could not be reached: {exc}", code="model_unreachable") from None
        finally:
            model.close()
        answer = _answer(reply)
        reason = redact.text(str(answer.get("reason") or ""))[:300]
        ref = answer.get("ref")
        if not ref:
            raise OpError(f"the model found no such element: {reason}", code="model_none")
        checked = await tab.reading.find([Locator(ref=str(ref))], params.fingerprint, heal=False)
        if checked.status != "found":
            refused = "; ".join(f"{r.get('desc')}: {r.get('why')}" for r in checked.rejected or [])
            raise OpError(f"the model pointed at {ref}, refused: {refused or 'it is not one element of the page'}",
                          code="model_refused")
        inspected = await tab.reading.inspect(Locator(ref=str(ref)))
        locator = {k: v for k, v in inspected.locator.wire().items()
                   if k in ("selector", "xpath", "alternatives", "fingerprint") and v}
        log.info("the model pointed at %s (%s): %s", ref, inspected.desc, reason)
        return HealResult(status="healed", ref=str(ref), by_model=True, reason=reason, locator=locator,
                          desc=inspected.desc or str(ref))

    return await on_page(ctx, params, ask)
