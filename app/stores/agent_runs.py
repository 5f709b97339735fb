"""Agent run records and `agent_runs.json` (the newest 200; evicting one deletes its `agent_runs/<id>/` folder).

A record keeps the task, the model and its provider (and what that provider lacks: `limitations`), the status, every step (the model's words, each tool call with its input and
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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from plumbing import loggers
from plumbing.changes import StoreChanges
from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import ImmediateSaver, Saver, in_thread
from workflows.runs import RecentRecords, now

log = logging.getLogger(loggers.AGENT)

MAX_AGENT_RUNS = 200
RECENT_FULL_RECORDS = 20  # whole records kept in memory (their record.json may not be written yet)
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
    provider: str = "anthropic"
    limitations: list[str] = Field(default_factory=list)  # what the provider lacks, and how the run did without
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
    # What the task's tabs still had in flight after its last step, at the settle bound (as a run's pendingAtEnd)
    pending_at_end: list[dict[str, Any]] = Field(default_factory=list)
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
    """`agent_runs.json` of a data folder, newest first, with a folder per run.

    The index lives in memory, each entry as JSON data made once when it is saved, and the newest whole records
    too (their `record.json` may still be on its way). Files are written through the saver: in the app the
    save manager (off the Qt thread; the app holds one store, `OpContext.agent_runs`), otherwise at once. The
    index file is shared with other writers (a second store, a process before the app ran): each write of it
    reads the file as it is then, keeps the runs this store does not know, puts this store's entries over
    them, and removes the folders of what falls beyond the newest 200, all where the write happens (in the app
    on the saver's thread). The file is read when the store is first used: `await refreshed()` reads it (and
    later, what others wrote since) off the loop's thread, as the operations and an agent run do; a plain
    method used first reads it there and then (a short-lived process, a test). Each record saved here, and
    runs of other writers taken in, are published on the change feed (plumbing/changes.py: store `agent_runs`)."""

    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self.root = data.root / "agent_runs"
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()
        self._file = JsonStore(data.root / "agent_runs.json", AgentRunsDocument, AgentRunsDocument)
        self.load_problem: str | None = None
        self._loaded = False
        self._entries: dict[str, dict[str, Any]] = {}  # id -> JSON data of the index entry, newest first
        self._mine: set[str] = set()  # runs this store saved: its entries win over the file's
        self._full = RecentRecords(RECENT_FULL_RECORDS)

    def folder(self, run_id: str) -> Path:
        return self.root / run_id

    def list(self, limit: int = 50) -> list[AgentRecord]:
        self._ensure_loaded()
        return [AgentRecord.model_validate(entry) for entry in list(self._entries.values())[:limit]]

    def get(self, run_id: str) -> AgentRecord:
        """The whole record: from memory when it is one of the newest, else its `record.json`; the index entry
        when that cannot be read."""
        entry = self._entry(run_id)
        whole = self._full.get(run_id) or _read_record(self.folder(run_id) / "record.json")
        return _whole_or_entry(run_id, whole, entry)

    async def read(self, run_id: str) -> AgentRecord:
        """`get`, with the disk read (if any) on a thread of its own: what an operation calls on the Qt thread."""
        entry = self._entry(run_id)
        whole = self._full.get(run_id) or await in_thread(_read_record, self.folder(run_id) / "record.json")
        return _whole_or_entry(run_id, whole, entry)

    async def refreshed(self) -> None:
        """Read the file, the first time, or take in the runs other writers put in it since (on a thread of its
        own)."""
        if self._loaded:
            self._take_in(await in_thread(self._read_runs))
        else:
            self._adopt(*await in_thread(self._load))

    def save(self, record: AgentRecord) -> AgentRecord:
        """Keep a record (insert or replace): its whole JSON and its index entry are made now (the caller goes on
        changing `record`), and written through the saver."""
        self._ensure_loaded()
        whole = record.model_dump_json(by_alias=True, indent=1).encode("utf-8")
        self._saver.save(self.folder(record.id) / "record.json", lambda: whole)
        self._full.keep(record.id, whole)
        entry = record.model_copy(update={"steps": []}).model_dump(mode="json", by_alias=True)
        self._mine.add(record.id)
        if record.id in self._entries:
            self._entries[record.id] = entry
        else:
            self._entries = {record.id: entry, **self._entries}
        for old in list(self._entries)[MAX_AGENT_RUNS:]:
            del self._entries[old]
            self._mine.discard(old)
            self._full.drop(old)
        mine = {run_id: self._entries[run_id] for run_id in self._mine if run_id in self._entries}
        self._saver.save(self._file.path, lambda: self._merged_index(mine))
        self.changes.publish("agent_runs", "updated", record.id)
        return record

    async def written(self) -> None:
        """Wait (off the loop's thread) until everything handed to the saver is on disk: a run's record when
        its operation answers."""
        problems = await in_thread(self._saver.flush)
        for path, problem in problems.items():
            log.warning("agent run record %s is not written yet: %s", path, problem)

    # -- the file, where it is written -------------------------------------------------------------------------
    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self._adopt(*self._load())

    def _load(self) -> tuple[list[dict[str, Any]], str | None]:
        """The file's runs (an unusable file is moved aside and reported) and what was wrong with it."""
        loaded = self._file.load()
        return list(self._file.dump(loaded.document)["runs"]), loaded.problem  # type: ignore[arg-type]

    def _adopt(self, runs: list[dict[str, Any]], problem: str | None) -> None:
        if not self._loaded:
            self._loaded, self.load_problem = True, problem  # (JsonStore logged it)
        self._take_in(runs)

    def _entry(self, run_id: str) -> dict[str, Any]:
        self._ensure_loaded()
        entry = self._entries.get(run_id)
        if entry is None:
            raise LookupError(f"there is no agent run with id {run_id!r}")
        return entry

    def _read_runs(self) -> list[dict[str, Any]]:
        """The runs in the file now (none when it is missing or unusable: loading moved it aside at start)."""
        try:
            raw = self._file.path.read_bytes()
            return list(self._file.dump(AgentRunsDocument.model_validate_json(raw))["runs"])  # type: ignore[arg-type]
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("cannot read %s (%s): its runs are not merged", self._file.path, exc)
            return []

    def _take_in(self, runs: list[dict[str, Any]]) -> None:
        """Runs from the file, except this store's own; one still marked running was cut short (the app
        stopped while it ran)."""
        before = self._entries
        self._entries = dict(before)
        for entry in runs:
            if entry.get("id") in self._mine:
                continue
            if entry.get("status") == "running":
                entry = {**entry, "status": "error",
                         "error": entry.get("error") or "the app stopped while this agent run was in progress"}
            self._entries[str(entry["id"])] = entry
        self._entries = dict(sorted(self._entries.items(), key=lambda item: _started(item[1]), reverse=True))
        if self._loaded and self._entries != before:
            self.changes.publish("agent_runs", "updated", None)

    def _merged_index(self, mine: dict[str, dict[str, Any]]) -> bytes:
        """(Where the index is written.) The file's runs with this store's over them, newest first, at most
        200; the folders of the runs beyond that are removed."""
        merged = {str(entry["id"]): entry for entry in self._read_runs()}
        merged.update(mine)
        runs = sorted(merged.values(), key=_started, reverse=True)
        for evicted in runs[MAX_AGENT_RUNS:]:
            shutil.rmtree(self.folder(str(evicted["id"])), ignore_errors=True)
            log.info("evicted agent run %s and its folder", evicted["id"])
        return encode_json({"schema_version": self._file.schema_version, "runs": runs[:MAX_AGENT_RUNS]})


def _started(entry: dict[str, Any]) -> datetime:
    try:
        started = datetime.fromisoformat(str(entry.get("startedAt")))
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)
    return started if started.tzinfo is not None else started.replace(tzinfo=timezone.utc)


def _whole_or_entry(run_id: str, whole: bytes | None, entry: dict[str, Any]) -> AgentRecord:
    if whole is not None:
        try:
            return AgentRecord.model_validate_json(whole)
        except ValueError as exc:
            log.warning("agent run %s: its record.json is unusable (%s); showing the index entry", run_id, exc)
    return AgentRecord.model_validate(entry)


def _read_record(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("cannot read %s (%s); showing the index entry", path, exc)
        return None
