"""One agent run, end to end: open the agent's tab, run the loop, check, judge, record, save as workflow.

`AgentRun` is what the panel and `agent_run` (and so the command line) both start. It calls operations only through
the registry, never a page directly; the model's calls carry the task's secrets bound to their sites
(`OpContext.with_secrets`, workflows/secret_binding.py): the domains given for each, else the start page's site; a
secret with neither is an error before anything starts. With the binding's `guard_pages`, a tab a secret was typed
into runs no script or DevTools command of the model's for the rest of the run. The three answers stay apart in the
record: the agent's own report (from `done`), the judge's verdict, and the person's checks (`expect` locators
tested on the final page with page_query). While the run lasts, every log line passes through the secrets'
redaction as well.

Saving as a workflow runs nothing: a replay repeats every effect of the task (an order, a message, a
payment), so it happens only when the person asks for it (`replay_workflow`: the panel's Replay now,
`--replay-after-save`). What the saved workflow is worth is settled by what happened while the agent acted
(`to_workflow`) and by the task's checks, which end it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from app.agent.judge import judge
from app.agent.loop import AgentLoop, Event
from app.agent.model import ModelPort
from app.agent.providers import open_model
from app.stores.agent_runs import AgentRecord, AgentRunStore, BoundSecret, Check, check_locator, now
from app.agent.secrets import Secrets
from app.stores.agent_settings import AgentSettings, ModelChoice
from app.agent.to_workflow import to_workflow
from app.agent.tools import ToolRunner
from app.ops.context import OpContext
from app.ops.registry import OperationRegistry
from plumbing import loggers
from plumbing.atomic import move_file
from plumbing.savemanager import in_thread
from workflows.engine import cut_off_error
from workflows.redaction import redacting_logs
from workflows.secret_binding import SecretBinding, rules_for

log = logging.getLogger(loggers.AGENT)

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class AgentTask:
    task: str
    env: str = "env-default"
    url: str | None = None
    secrets: dict[str, str] = field(default_factory=dict)
    # name -> where it may be typed (domain patterns; `*` anywhere); a secret without: the start page's site
    secret_domains: dict[str, list[str]] = field(default_factory=dict)
    expect: list[str] = field(default_factory=list)
    save_workflow: str | None = None
    typed_as_inputs: bool = False
    replay_after_save: bool = False


def bind_task_secrets(task: AgentTask) -> SecretBinding:
    """The task's secrets bound to their sites; `SecretError` names a secret without a site, a bad pattern,
    or domains for a name that is no secret."""
    values = Secrets(task.secrets).values
    return SecretBinding(rules_for(sorted(values), task.secret_domains, task.url), values, guard_pages=True)


class AgentRun:
    """Raises `SecretError` when the task's secrets cannot be bound (`bind_task_secrets`)."""

    def __init__(self, task: AgentTask, settings: AgentSettings, registry: OperationRegistry, ctx: OpContext,
                 store: AgentRunStore, data_root: Path, on_event: Event | None = None,
                 choice: ModelChoice | None = None) -> None:
        self.task = task
        self.settings = settings
        self.choice = choice or settings.choice()  # the provider and model (default: the saved settings)
        self.registry = registry
        self.ctx = ctx
        self.binding = bind_task_secrets(task)
        # The person's own calls (the tab, the start page, the checks, saving, replaying) and the model's,
        # which carry the binding.
        self._call: Call = lambda name, raw: registry.call(ctx, name, raw)
        bound = ctx.with_secrets(self.binding)
        self._model_call: Call = lambda name, raw: registry.call(bound, name, raw)
        self.store = store
        self.data_root = data_root
        self.secrets = Secrets(task.secrets)
        self._emit = on_event or (lambda kind, value: None)
        self.record = AgentRecord(task=self.secrets.redact(task.task), model=self.choice.model,
                                  provider=self.choice.provider, env=task.env,
                                  start_url=task.url, secrets=self.secrets.names(),
                                  secret_domains=[BoundSecret(name=rule.name, domains=list(rule.domains),
                                                              from_start_page=rule.from_start_page,
                                                              anywhere=rule.anywhere)
                                                  for rule in self.binding.rules.values()])
        self.loop: AgentLoop | None = None
        self._stop_requested = False

    # -- control ------------------------------------------------------------------------------------------
    def pause(self) -> None:
        if self.loop:
            self.loop.pause()

    def unpause(self) -> None:
        if self.loop:
            self.loop.unpause()

    def stop(self) -> None:
        self._stop_requested = True
        if self.loop:
            self.loop.stop()

    # -- the run ------------------------------------------------------------------------------------------
    async def run(self) -> AgentRecord:
        started = time.monotonic()
        with redacting_logs(self.secrets.redactor):
            try:
                await self.store.refreshed()  # the runs index, read off the Qt thread before the first save
                await self._run()
            finally:
                record = self.record
                record.ended_at = now()
                record.duration_ms = (time.monotonic() - started) * 1000
                if record.status == "running":
                    record.status = "error"
                    record.error = record.error or "the run ended unexpectedly"
                self.store.save(record)
                self._emit("finished", record)
                await self.store.written()  # the record is on disk when the run answers (off the Qt thread)
        return self.record

    async def _run(self) -> None:
        record = self.record
        problem = self.choice.problem()
        if problem:
            record.status, record.error = "error", problem
            return
        opened = await self._call("tab_open", {"env": self.task.env})
        if not opened.get("ok"):
            record.status, record.error = "error", f"could not open the agent's tab: {opened.get('error')}"
            return
        tab_id = str(opened["tabId"])
        record.tab_id = tab_id
        if self.task.url:
            went = await self._call("page_navigate", {"tabId": tab_id, "url": self.task.url})
            if not went.get("ok"):
                record.status, record.error = "error", self.secrets.redact(f"could not open {self.task.url}: "
                                                                           f"{went.get('error')}")
                return
        self.store.save(record)
        self._emit("started", record)
        model = open_model(self.choice, timeout=self.settings.step_timeout_s)
        record.limitations = model.limitations()
        for note in record.limitations:
            log.info("agent run %s: %s", record.id, note)
        if record.limitations:
            self._emit("limitations", list(record.limitations))
        try:
            runner = ToolRunner(self.registry, self._model_call, tab_id, self.secrets, self.data_root)
            runner.on_paused = lambda paused: self._emit("paused", paused)
            self.loop = AgentLoop(record, self.settings, model, runner, self.secrets, self._emit)
            if self._stop_requested:
                self.loop.stop()
            url = await runner.url()
            await self.loop.run(f"Task: {self.task.task}\n\nYour tab is {tab_id}, now at {url or 'about:blank'}.")
            record.files = runner.files
            await self._finish(model, tab_id)
        finally:
            model.close()
        await self._call("page_unlock", {"tabId": tab_id})
        if self.task.save_workflow and record.success:
            saved = await self.save_workflow(self.task.save_workflow, self.task.typed_as_inputs)
            if self.task.replay_after_save and saved.get("saved"):
                await self.replay_workflow(dict(self.task.secrets))

    async def _finish(self, model: ModelPort, tab_id: str) -> None:
        record = self.record
        await self._settle(tab_id)
        listed = await self._call("tab_list", {})
        record.final_url = self.secrets.redact(next((t.get("url") for t in listed.get("tabs") or []
                                                     if t.get("id") == tab_id), None))
        shot = await self._call("page_screenshot", {"tabId": tab_id})
        if shot.get("ok") and shot.get("path"):
            target = self.store.folder(record.id) / "final.png"
            await in_thread(move_file, Path(str(shot["path"])), target)
            record.final_screenshot = str(target)
        for text in self.task.expect:
            found = await self._call("page_query", {"tabId": tab_id, "locator": check_locator(text)})
            count = int(found.get("count") or 0) if found.get("ok") else 0
            visible = any(e.get("visible") for e in found.get("elements") or [])
            record.checks.append(Check(locator=text, ok=bool(found.get("ok")) and count > 0 and visible,
                                       detail=self.secrets.redact(str(found.get("error"))) if not found.get("ok")
                                       else f"{count} match(es), {'visible' if visible else 'none visible'}"))
        if record.self_report is not None and record.status != "stopped":
            self._emit("judging", None)
            verdict, usage = await judge(model, record, self.secrets, record.final_screenshot)
            record.judge = verdict
            record.usage.add(usage)
            self._emit("usage", record.usage)
        if record.status == "succeeded" and not all(check.ok for check in record.checks):
            record.status = "failed"
            record.error = "the agent reported success, but a check failed: " + ", ".join(
                c.locator for c in record.checks if not c.ok)

    async def _settle(self, tab_id: str) -> None:
        """After the last step: what it started lands before the task is judged and checked (and before a
        process that runs it ends), as at the end of a run; when what it started was cut off at the bound, the
        task does not succeed (workflows.engine.cut_off_error)."""
        record = self.record
        bound = self.ctx.settle_seconds()
        used = [tab_id, *(str(call.input["tabId"]) for step in record.steps for call in step.calls
                          if isinstance(call.input.get("tabId"), str))]
        for tab in dict.fromkeys(used):
            settled = await self._call("page_settle", {"tabId": tab, "timeoutMs": int(bound * 1000)})
            if settled.get("ok"):
                record.pending_at_end.extend({"tabId": tab, **item} for item in settled.get("pending") or [])
        record.pending_at_end = self.secrets.redact(record.pending_at_end)
        cut = cut_off_error(record.pending_at_end, bound)
        if cut is not None and record.status == "succeeded":
            record.status, record.error = "failed", cut

    async def save_workflow(self, name: str, typed_as_inputs: bool = False) -> dict[str, Any]:
        """Convert (typed values as start inputs on request) and save. Nothing is replayed here: the notes say
        which steps were left out, and the task's checks end the workflow."""
        record = self.record
        conversion = to_workflow(record, name, typed_as_inputs=typed_as_inputs)
        outcome: dict[str, Any] = {"name": name, "notes": conversion.notes, "checks": len(record.checks)}
        written = await self._call("workflow_write", {"workflow": conversion.document})
        if written.get("ok"):
            outcome["id"] = (written.get("workflow") or {}).get("id")
            outcome["saved"] = True
        else:
            outcome["error"] = f"could not save the workflow: {written.get('error')}"
        record.workflow = outcome
        self.store.save(record)
        self._emit("workflow", outcome)
        return outcome

    async def replay_workflow(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Run the saved workflow once, with no model, in the task's environment, and keep the outcome in the
        record (`workflow.replay`). Only on the person's request: it repeats what the task did."""
        record = self.record
        saved = record.workflow or {}
        if not saved.get("saved"):
            replay: dict[str, Any] = {"ok": False, "error": "there is no saved workflow to replay"}
        else:
            ran = await self._call("workflow_run", {"name": saved["id"], "env": self.task.env, "inputs": inputs})
            run = ran.get("run") or {}
            replay = {"runId": run.get("id"), "ok": bool(ran.get("ok"))}
            if not ran.get("ok"):
                replay["error"] = self.secrets.redact(str(ran.get("error")))
                replay["node"] = run.get("stoppedAt")
            saved["replay"] = replay
            self.store.save(record)
        self._emit("replay", replay)
        return replay
