"""Run records and `runs.json`: the newest 200 runs; evicting a run deletes its `runs/<run-id>/` folder.

A record holds what a person needs to understand a run afterwards: status, where it stopped and why, the
failure screenshot and HAR, outputs (large values live in the run folder, not inline), files, and a per-node
trace (with screenshots, console and requests when the run kept its trace, and a video: workflows/tracing.py).
Secret inputs are stored as `<secret:name>`.

The index lives in memory (the truth) together with each entry's JSON data, made once when the entry is
saved: writing `runs.json` then only joins 200 ready entries, on the saver's thread (plumbing/savemanager.py; in the
app off the Qt thread, debounced), with no dump or validation of the whole document on every run start and end.
The newest whole records (with their traces) are kept in memory too, so `get` answers without the disk while
their `record.json` is still being written. Evicted run folders are removed by the saver as well. Each record
saved, and each one evicted, is published on the store's change feed (plumbing/changes.py: store `runs`, the run id).
"""

from __future__ import annotations

import json
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
from plumbing.savemanager import ImmediateSaver, Saver
from workflows.envelope import Result
from workflows.results import Number
from workflows.tracing import prune

log = logging.getLogger(loggers.WORKFLOWS)

MAX_RUNS = 200
INLINE_OUTPUT_BYTES = 16_000
RECENT_FULL_RECORDS = 50  # whole records kept in memory for `get` (the rest are read from record.json)
RunStatus = Literal["running", "ok", "failed", "cancelled", "taken_over"]


def now() -> datetime:
    return datetime.now(timezone.utc)


def new_run_id() -> str:
    return f"run-{secrets.token_hex(5)}"


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class TraceEntry(_Model):
    node: str
    type: str
    title: str | None = None
    start: datetime
    ms: float
    ok: bool
    error: str | None = None
    locator: str | None = None  # which locator alternative matched
    healed: dict[str, Any] | None = None  # {from, to, score, why}: no locator matched, the fingerprint did
    # The trace of the node (workflows/tracing.py), when the run kept one: when it started (ms from the run's
    # start), its screenshots (before: at the moment of acting, the element outlined; after), the element it
    # acted on, the console messages, page errors and requests while it ran. Absent otherwise.
    at_ms: float | None = None
    before: str | None = None
    after: str | None = None
    box: dict[str, float] | None = None
    element: str | None = None
    console: list[dict[str, Any]] | None = None
    page_errors: list[dict[str, Any]] | None = None
    requests: list[dict[str, Any]] | None = None


class RunRecord(_Model):
    id: str
    workflow_id: str | None = None
    workflow_name: str
    env: str
    tab_id: str | None = None
    batch_id: str | None = None
    row_index: int | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    status: RunStatus = "running"
    started_at: datetime = Field(default_factory=now)
    ended_at: datetime | None = None
    duration_ms: float | None = None
    stopped_at: str | None = None
    error: str | None = None
    screenshot: str | None = None
    har: str | None = None
    video: str | None = None  # the run's video (workflows/tracing.py), when kept
    # How the run was asked to record itself: {trace, video} modes; absent when both were off.
    tracing: dict[str, str] | None = None
    outputs: dict[str, Any] = Field(default_factory=dict)
    files: list[str] = Field(default_factory=list)
    trace: list[TraceEntry] = Field(default_factory=list)
    healed: list[dict[str, Any]] = Field(default_factory=list)  # [{node, key}]: healed nodes, kept in the index
    taken_over: bool = False
    title: str | None = None
    notes: list[str] = Field(default_factory=list)
    # What the run's tabs still had in flight when the run ended and the wait for it ran out (a request
    # that may not have reached its server): {tabId, kind, method, url, ms}.
    pending_at_end: list[dict[str, Any]] = Field(default_factory=list)
    # A row run by a remote worker (app/distributed): the worker's name, and timings and files left there.
    worker: str | None = None
    remote: dict[str, Any] | None = None
    # What started the run when it was not a person or an agent's call: `{schedule: ID}` for a schedule's
    # firing (workflows/schedules.py). Absent otherwise.
    trigger: dict[str, Any] | None = None

    def original_fields(self) -> dict[str, Any]:
        """The original BrowserPilot's result envelope: `ok, workflow (id), title, files, outputs, takenOver`,
        and on failure `node, error, screenshot, har`."""
        ok = self.status == "ok"
        fields: dict[str, Any] = {"ok": ok, "workflow": self.workflow_id or "", "title": self.title or "",
                                  "files": list(self.files), "outputs": self.outputs, "takenOver": self.taken_over}
        if not ok:
            fields.update(node=self.stopped_at or "", error=self.error or "", screenshot=self.screenshot or "")
            if self.har:
                fields["har"] = self.har
        return fields

    def view(self) -> dict[str, Any]:
        """The record as callers see it (`run_read`, `workflow_run`, `browserpilot run --json`): our fields in
        camelCase plus the original's envelope fields."""
        return {**self.original_fields(), **self.model_dump(mode="json", by_alias=True, exclude_none=True)}


# -- a record as callers read it ------------------------------------------------------------------------------
class HealView(Result):
    """How a node's element was found when no locator matched (`TraceEntry.healed`, workflows/engine.py)."""

    from_: str | None = Field(default=None, alias="from")  # the locator that no longer matched, as it reads
    to: Any = None  # the element's new locator
    score: Number | None = None
    why: str | None = None
    element: str | None = None  # the element found, as it reads
    by_model: bool | None = None  # found by the model's step, not the fingerprint
    shot: str | None = None  # a screenshot of the element found, outlined


class TraceMessage(Result):
    """A console message (with its level) or a page error (without) while a step ran."""

    level: str | None = None
    text: str
    source: str | None = None
    line: int | None = None
    at_ms: Number | None = None


class TraceRequestView(Result):
    """A request a step caused: from the tab's network capture (status, bodies) or the page's resource timing."""

    method: str | None = None
    url: str
    type: str | None = None
    status: int | None = None
    at_ms: Number | None = None
    ms: Number | None = None
    error: str | None = None
    bytes: int | None = None
    request_body: str | None = None
    response_body: str | None = None


class TraceStepView(Result):
    """One node of a run's trace as callers read it (`TraceEntry` on the wire: its start is ISO text)."""

    node: str
    type: str
    title: str | None = None
    start: str
    ms: Number
    ok: bool
    error: str | None = None
    locator: str | None = None
    healed: HealView | None = None
    at_ms: Number | None = None
    before: str | None = None
    after: str | None = None
    box: dict[str, Number] | None = None
    element: str | None = None
    console: list[TraceMessage] | None = None
    page_errors: list[TraceMessage] | None = None
    requests: list[TraceRequestView] | None = None

    @property
    def label(self) -> str:
        """The node as a person reads it: its title, else its id."""
        return self.title or self.node


class RunView(Result):
    """A run record as `run_read`, `workflow_run` and `run_wait` answer it (`RunRecord.view`): the original
    app's envelope fields, then the record's own (timestamps as ISO text), and `traceRemoved` when the disk cap
    deleted its screenshots and video. The fields are declared in the order `view` writes them, so a view read
    and written again (`wire`) is the same JSON."""

    ok: bool  # the original's fields
    workflow: str
    title: str | None = None
    files: list[str] = Field(default_factory=list)
    outputs: dict[str, Any] = Field(default_factory=dict)
    taken_over: bool = False
    node: str | None = None  # where a run that is not ok stopped
    error: str | None = None
    screenshot: str | None = None
    har: str | None = None
    id: str  # the record's (`RunRecord`)
    workflow_id: str | None = None
    workflow_name: str
    env: str
    tab_id: str | None = None
    batch_id: str | None = None
    row_index: int | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    status: RunStatus
    started_at: str
    ended_at: str | None = None
    duration_ms: Number | None = None
    stopped_at: str | None = None
    video: str | None = None
    tracing: dict[str, str] | None = None
    trace: list[TraceStepView] = Field(default_factory=list)
    healed: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    pending_at_end: list[dict[str, Any]] = Field(default_factory=list)
    worker: str | None = None
    remote: dict[str, Any] | None = None
    trigger: dict[str, Any] | None = None
    trace_removed: bool | None = None  # run_read: the disk cap deleted its screenshots and video

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def healed_steps(self) -> list[TraceStepView]:
        return [step for step in self.trace if step.healed is not None]

    @property
    def has_pictures(self) -> bool:
        """Whether any step kept a screenshot."""
        return any(step.before or step.after for step in self.trace)


class RunsDocument(_Model):
    schema_version: int = Field(default=1, alias="schema_version")
    runs: list[RunRecord] = Field(default_factory=list)


class RecentRecords:
    """The newest whole records' JSON by id, at most `size` of them: a store answers `get` from here while their
    `record.json` may still be on its way to the disk (the saver writes it later, on its thread)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._records: dict[str, bytes] = {}

    def get(self, run_id: str) -> bytes | None:
        return self._records.get(run_id)

    def keep(self, run_id: str, whole: bytes) -> None:
        self._records.pop(run_id, None)
        self._records[run_id] = whole
        while len(self._records) > self.size:
            del self._records[next(iter(self._records))]

    def drop(self, run_id: str) -> None:
        self._records.pop(run_id, None)


class RunStore:
    """`runs.json` of a data folder, newest first."""

    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self.data = data
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()
        self._file = JsonStore(data.root / "runs.json", RunsDocument, RunsDocument)
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self._doc = loaded.document
        # A run still "running" in the file was cut short (the app was killed): say so.
        for record in self._doc.runs:
            if record.status == "running":
                record.status = "failed"
                record.error = record.error or "the app stopped while this run was in progress"
                record.ended_at = record.ended_at or record.started_at
        # Each index entry as JSON data, made once (here for what was loaded, in `save` for the rest).
        self._entries: dict[str, dict[str, Any]] = {
            record.id: record.model_dump(mode="json", by_alias=True) for record in self._doc.runs}
        self._full = RecentRecords(RECENT_FULL_RECORDS)

    def folder(self, run_id: str) -> Path:
        return self.data.runs / run_id

    def list(self, limit: int = 50, workflow: str | None = None) -> list[RunRecord]:
        """The newest index entries, each the caller's own (made from the saved JSON data: much cheaper than a
        deep copy, which the runs panel paid for 50 records at every run start and end)."""
        runs = [r for r in self._doc.runs if workflow is None or workflow in (r.workflow_name, r.workflow_id)]
        return [RunRecord.model_validate(self._entries[r.id]) for r in runs[:limit]]

    def get(self, run_id: str) -> RunRecord:
        """The whole record: the run folder's `record.json` (with the trace) when there is one."""
        for record in self._doc.runs:
            if record.id == run_id:
                recent = self._full.get(run_id)
                if recent is not None:
                    return RunRecord.model_validate_json(recent)
                full = self.folder(run_id) / "record.json"
                if full.exists():
                    try:
                        return RunRecord.model_validate_json(full.read_bytes())
                    except (OSError, ValueError) as exc:
                        log.warning("run %s: cannot read %s (%s); showing the index entry", run_id, full, exc)
                return RunRecord.model_validate(self._entries[run_id])
        raise LookupError(f"there is no run with id {run_id!r}")

    def entry(self, run_id: str) -> RunRecord | None:
        """The run's index entry (no trace), from memory; None when the store does not hold it (any more)."""
        data = self._entries.get(run_id)
        return RunRecord.model_validate(data) if data is not None else None

    def save(self, record: RunRecord) -> RunRecord:
        """Insert or replace a record, evict beyond 200, write. `runs.json` is the index (no per-node trace,
        large outputs moved out), so it stays small; a finished run's whole record is `runs/<id>/record.json`."""
        record = self._externalise(record)
        if record.trace:
            whole = record.model_dump_json(by_alias=True, indent=1).encode("utf-8")
            self._saver.save(self.folder(record.id) / "record.json", lambda: whole)
            self._full.keep(record.id, whole)
        entry = record.model_copy(update={"trace": []})
        entry_data = entry.model_dump(mode="json", by_alias=True)
        runs = [r for r in self._doc.runs if r.id != record.id]
        existing = next((i for i, r in enumerate(self._doc.runs) if r.id == record.id), None)
        if existing is None:
            runs.insert(0, entry)
        else:
            runs.insert(existing, entry)
        evicted = runs[MAX_RUNS:]
        kept = runs[:MAX_RUNS]
        # The JSON data of the new index: ready-made entries (dicts nobody changes later), joined on the
        # saver's thread. With the default saver a failed write raises here and the store stays as it was.
        snapshot = {"schema_version": self._file.schema_version,
                    "runs": [entry_data if r.id == record.id else self._entries[r.id] for r in kept]}
        self._saver.save(self._file.path, lambda: encode_json(snapshot))
        self._doc = self._doc.model_copy(update={"runs": kept})
        self._entries[record.id] = entry_data
        for old in evicted:
            self._entries.pop(old.id, None)
            self._full.drop(old.id)
            folder = self.folder(old.id)
            self._saver.run(lambda folder=folder: shutil.rmtree(folder, ignore_errors=True), f"evict {old.id}")
            log.info("evicted run %s and its folder", old.id)
        self.changes.publish("runs", "created" if existing is None else "updated", record.id)
        for old in evicted:
            self.changes.publish("runs", "deleted", old.id)
        return record

    def prune_traces(self, cap_bytes: int, keep: set[str]) -> None:
        """Drop the oldest runs' traces and videos until they take at most `cap_bytes` together (on the saver's
        thread, after the writes queued before); `keep` goes last (workflows/tracing.py)."""
        self._saver.run(lambda: prune(self.data.runs, cap_bytes, keep), "prune traces")

    def _externalise(self, record: RunRecord) -> RunRecord:
        outputs: dict[str, Any] = {}
        for key, value in record.outputs.items():
            text = json.dumps(value, ensure_ascii=False)
            if len(text.encode("utf-8")) <= INLINE_OUTPUT_BYTES:
                outputs[key] = value
                continue
            path = self.folder(record.id) / "outputs" / f"{key}.json"
            data = text.encode("utf-8")
            self._saver.save(path, lambda data=data: data)
            outputs[key] = {"$file": str(path), "bytes": len(text.encode("utf-8"))}
        return record.model_copy(update={"outputs": outputs})


class TriggerStampedRuns:
    """A run store seen through a trigger: every record saved through it that names no trigger gets this one.
    A schedule's operations run with it as their context's store (`OpContext.with_trigger`), so records that
    an operation stores itself (a batch on workers stores each row's result) say what started them too; the
    rest (reading, folders) is the store's own."""

    def __init__(self, store: RunStore, trigger: dict[str, Any]) -> None:
        self._store = store
        self.trigger = dict(trigger)

    def save(self, record: RunRecord) -> RunRecord:
        if record.trigger is None:
            record = record.model_copy(update={"trigger": dict(self.trigger)})
        return self._store.save(record)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

