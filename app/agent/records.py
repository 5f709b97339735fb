"""Agent run records and `agent_runs.json` (the newest 200; evicting one deletes its `agent_runs/<id>/` folder).

A record keeps the task, the model, the status, every step (the model's words, each tool call with its input and
result, the URL, timings, screenshot paths), the three answers kept apart (`selfReport`, `judge`, `checks`), token
usage (cached and uncached input apart), the files downloaded, where each secret may be typed (`secretDomains`) and
every use of a secret that was refused (`refusals`: secret, tool, site, step). Everything in a record is already
redacted (`<secret:name>`). `agent_runs.json` is the index (no steps); the whole record is
`agent_runs/<id>/record.json`. Pure Python.
"""

from __future__ import annotations

import logging
import secrets
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from envs.atomic import atomic_write_text
from envs.datadir import DataDir
from envs.jsonstore import JsonStore
from workflows.runs import now

log = logging.getLogger("browserpilot.agent")

MAX_AGENT_RUNS = 200
AgentStatus = Literal["running", "succeeded", "failed", "stopped", "error"]


def new_agent_run_id() -> str:
    return f"agent-{secrets.token_hex(5)}"


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore",
                              defer_build=True)  # built when first used, not at start-up


class Refusal(_Model):
    """A use of a secret the binding refused (workflows/secret_binding.py): nothing was sent."""

    secret: str
    tool: str
    site: str | None = None  # where it would have gone: scheme://host:port, never a path
    step: int = 0


class BoundSecret(_Model):
    """Where one of the run's secrets may be typed (names and patterns only, never a value)."""

    name: str
    domains: list[str]
    from_start_page: bool = False  # no domains were given: the start page's site
    anywhere: bool = False  # `*`, chosen explicitly


class ToolCall(_Model):
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)  # as the model wrote it (placeholders, not values)
    ok: bool = False
    result: Any = None  # the envelope, redacted (long texts shortened)
    error: str | None = None
    skipped: bool = False  # not run: an earlier call of the batch changed the page
    retried: bool = False  # failed once on a stale ref and was run again
    changed_page: bool = False
    url: str | None = None  # the tab's URL after the call
    ms: float = 0.0
    screenshot: str | None = None
    locator: dict[str, Any] | None = None  # stable locator of the target, computed before the call
    secrets: list[str] = Field(default_factory=list)  # names of the secrets the input used
    refusal: Refusal | None = None  # the call named a secret where it may not go: refused, nothing sent


class Step(_Model):
    index: int
    started_at: datetime = Field(default_factory=now)
    ms: float = 0.0
    text: str = ""  # the model's words
    stop_reason: str | None = None
    calls: list[ToolCall] = Field(default_factory=list)
    note: str | None = None  # what the loop told the model (a nudge, a warning)


class SelfReport(_Model):
    success: bool
    answer: str = ""
    outputs: dict[str, Any] = Field(default_factory=dict)


class Judgement(_Model):
    verdict: Literal["pass", "fail", "unknown"]
    reason: str = ""


class Check(_Model):
    locator: str  # as the person typed it (see `check_locator`)
    ok: bool
    detail: str | None = None


def check_locator(text: str) -> dict[str, str]:
    """A check's locator as typed: an XPath when it starts with `/`, else a selector (CSS, text=…, role=…)."""
    text = text.strip()
    return {"xpath": text} if text.startswith("/") else {"selector": text}


class Usage(_Model):
    input_tokens: int = 0  # uncached input
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    requests: int = 0
    cost_usd: float | None = 0.0

    def add(self, other: "Usage") -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens
        self.requests += other.requests
        if self.cost_usd is None or other.cost_usd is None:
            self.cost_usd = None
        else:
            self.cost_usd += other.cost_usd


class AgentRecord(_Model):
    id: str = Field(default_factory=new_agent_run_id)
    task: str
    model: str
    env: str
    tab_id: str | None = None
    start_url: str | None = None
    status: AgentStatus = "running"
    started_at: datetime = Field(default_factory=now)
    ended_at: datetime | None = None
    duration_ms: float | None = None
    error: str | None = None
    steps: list[Step] = Field(default_factory=list)
    self_report: SelfReport | None = None
    judge: Judgement | None = None
    checks: list[Check] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    files: list[str] = Field(default_factory=list)
    final_url: str | None = None
    final_screenshot: str | None = None
    secrets: list[str] = Field(default_factory=list)  # names only
    secret_domains: list[BoundSecret] = Field(default_factory=list)  # where each may be typed
    refusals: list[Refusal] = Field(default_factory=list)  # uses of secrets refused, in order
    taken_over: bool = False
    # Save as workflow: {name, notes, checks, id, saved} or {name, notes, error}; after a replay the person asked
    # for, also `replay` {runId, ok, error?, node?}.
    workflow: dict[str, Any] | None = None

    @property
    def success(self) -> bool:
        return self.status == "succeeded"

    def view(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class AgentRunsDocument(_Model):
    schema_version: int = Field(default=1, alias="schema_version")
    runs: list[AgentRecord] = Field(default_factory=list)


class AgentRunStore:
    """`agent_runs.json` of a data folder, newest first, with a folder per run."""

    def __init__(self, data: DataDir) -> None:
        self.root = data.root / "agent_runs"
        self._file = JsonStore(data.root / "agent_runs.json", AgentRunsDocument, AgentRunsDocument)
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self._doc = loaded.document
        for record in self._doc.runs:
            if record.status == "running":
                record.status = "error"
                record.error = record.error or "the app stopped while this agent run was in progress"

    def folder(self, run_id: str) -> Path:
        return self.root / run_id

    def list(self, limit: int = 50) -> list[AgentRecord]:
        return [r.model_copy(deep=True) for r in self._doc.runs[:limit]]

    def get(self, run_id: str) -> AgentRecord:
        for record in self._doc.runs:
            if record.id == run_id:
                full = self.folder(run_id) / "record.json"
                if full.exists():
                    try:
                        return AgentRecord.model_validate_json(full.read_bytes())
                    except (OSError, ValueError) as exc:
                        log.warning("agent run %s: cannot read %s (%s)", run_id, full, exc)
                return record.model_copy(deep=True)
        raise LookupError(f"there is no agent run with id {run_id!r}")

    def save(self, record: AgentRecord) -> AgentRecord:
        atomic_write_text(self.folder(record.id) / "record.json", record.model_dump_json(by_alias=True, indent=1))
        # Another store object (another agent run, the panel) may have written meanwhile: merge into the file.
        loaded = self._file.load()
        if loaded.problem is None:
            self._doc = loaded.document
        entry = record.model_copy(update={"steps": []})
        runs = [r for r in self._doc.runs if r.id != record.id]
        existing = next((i for i, r in enumerate(self._doc.runs) if r.id == record.id), None)
        runs.insert(0 if existing is None else existing, entry)
        evicted = runs[MAX_AGENT_RUNS:]
        candidate = self._doc.model_copy(update={"runs": runs[:MAX_AGENT_RUNS]})
        self._file.save(candidate)
        self._doc = candidate
        for old in evicted:
            shutil.rmtree(self.folder(old.id), ignore_errors=True)
            log.info("evicted agent run %s and its folder", old.id)
        return record
