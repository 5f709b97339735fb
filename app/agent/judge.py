"""The judge: a separate model call, without browser tools, that reads the task, the steps and the final
screenshot and answers `{"verdict": "pass" | "fail", "reason": "…"}`. It never overrides the agent's own
report; the record keeps both. An answer that is not that JSON is recorded as verdict "unknown". It asks through
the model port (app/agent/model.py), so it judges with the run's own provider; one whose model is not sent images
judges without the screenshot (the record's limitations say so).
"""

from __future__ import annotations

import base64
import json
import logging
import re
from pathlib import Path
from typing import Any

from app.agent.model import ModelError, ModelPort, ModelRequest
from app.stores.agent_runs import AgentRecord, Judgement, Usage
from app.agent.secrets import Secrets
from plumbing import loggers
from plumbing.savemanager import in_thread

log = logging.getLogger(loggers.AGENT)

JUDGE_SYSTEM = ("You judge whether a browser agent did what it was asked. You get the task, the agent's steps "
                "and its final page. Answer with JSON only: {\"verdict\": \"pass\" or \"fail\", \"reason\": "
                "\"one sentence\"}. Pass only when the final state shows the task done.")
MAX_STEP_LINES = 120


def steps_summary(record: AgentRecord) -> str:
    lines: list[str] = []
    for step in record.steps:
        if step.text:
            lines.append(f"{step.index}. says: {step.text[:300]}")
        for call in step.calls:
            outcome = "skipped" if call.skipped else ("ok" if call.ok else f"failed: {call.error}")
            lines.append(f"{step.index}. {call.name} {json.dumps(call.input, ensure_ascii=False)[:300]} -> {outcome}")
    return "\n".join(lines[-MAX_STEP_LINES:])


def _png_base64(path: str) -> str | None:
    """The screenshot's bytes in base64 (read on a worker thread), or None when it is gone."""
    try:
        return base64.b64encode(Path(path).read_bytes()).decode("ascii")
    except OSError:
        return None


def parse_verdict(text: str) -> Judgement:
    match = re.search(r"\{.*\}", text, re.S)
    try:
        raw = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        raw = None
    if not isinstance(raw, dict) or raw.get("verdict") not in ("pass", "fail"):
        return Judgement(verdict="unknown", reason=f"the judge did not answer as asked: {text[:200]}")
    return Judgement(verdict=raw["verdict"], reason=str(raw.get("reason") or ""))


async def judge(model: ModelPort, record: AgentRecord, secrets: Secrets,
                screenshot: str | None) -> tuple[Judgement, Usage]:
    report = record.self_report
    text = (f"Task: {record.task}\n\nSteps:\n{steps_summary(record)}\n\nThe agent's own report: "
            f"{json.dumps(report.model_dump() if report else None, ensure_ascii=False)}\n"
            f"Final URL: {record.final_url}")
    content: list[dict[str, Any]] = [{"type": "text", "text": secrets.redact(text)}]
    data = await in_thread(_png_base64, screenshot) if screenshot and model.capabilities.images else None
    if data is not None:
        content.append({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}})
    request = ModelRequest(model=record.model, max_tokens=400, system=JUDGE_SYSTEM,
                           messages=[{"role": "user", "content": content}])
    try:
        reply = await model.create(request)
    except ModelError as exc:
        return Judgement(verdict="unknown", reason=f"the judge could not be reached: {exc}"), Usage()
    return parse_verdict(secrets.redact(reply.text)), reply.usage
