"""The submitter's own record of each distributed batch: the source of truth about which rows are done.

`batches/<batch-id>.json` in the submitting app's data folder holds what is needed to run the batch again
from nothing: the workflow document, every row's inputs, the batch's settings (broker, queue, retries,
limits, the environment whose login is shipped: never the cookies), and per row the broker messages that
were published for it and the outcome kept for it. It is written atomically (plumbing.savemanager's
`ImmediateSaver`, a 0600 file: the broker URL may carry a password) before the first row is sent and
after every change.

`BatchState.accept` is the one rule for outcomes: the first final event of a row (its result, or the
worker giving up on it) is kept, and every later one is recorded as a duplicate of it. `missing` names the
rows that need sending: never sent, or sent but no longer in the broker (it was restarted without
persistence) and without an outcome. `BatchFiles.following` lets one submitter at a time follow a batch.
Pure Python (pydantic), no Qt, no Redis.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import time
from pathlib import Path
from typing import Any, Iterator, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from app.distributed.defaults import DEFAULT_FILE_LIMIT, DEFAULT_QUEUE, DEFAULT_ROW_TIME_LIMIT
from app.distributed.ledger import Event
from app.distributed.models import RowTask
from plumbing import loggers
from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import ImmediateSaver

log = logging.getLogger(loggers.DISTRIBUTED)

BatchStatus = Literal["running", "ended", "cancelled"]
Outcome = Literal["ok", "failed", "cancelled"]
MAX_SENDS = 5
"""Times a row is published (the first time included) before a batch gives up on a broker that keeps
losing it."""


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore",
                              defer_build=True)


class Duplicate(_Model):
    """A later outcome of a row that already had one: another run of it (at-least-once delivery)."""

    entry: str
    worker: str
    status: str
    run_id: str | None = None
    error: str | None = None
    started_at: float | None = None
    ended_at: float | None = None


class RowState(_Model):
    inputs: dict[str, Any] = Field(default_factory=dict)
    message_ids: list[str] = Field(default_factory=list)
    """The broker messages published for this row, oldest first."""
    outcome: Outcome | None = None
    run_id: str | None = None
    worker: str | None = None
    error: str | None = None
    entry: str | None = None
    """The ledger entry of the kept outcome."""
    started: int = 0
    """Runs of the row that began (from the ledger's `started` events)."""
    duplicates: list[Duplicate] = Field(default_factory=list)


class BatchState(_Model):
    schema_version: int = Field(default=1, alias="schema_version")
    id: str
    workflow_id: str | None = None
    workflow_name: str
    document: dict[str, Any]
    broker: str
    queue: str = DEFAULT_QUEUE
    retries: int = 0
    row_time_limit: float = DEFAULT_ROW_TIME_LIMIT
    file_limit: int = DEFAULT_FILE_LIMIT
    ship_login: str | None = None
    """The environment whose login goes with the rows (exported again when rows are sent again)."""
    submitted_at: float = Field(default_factory=time.time)
    status: BatchStatus = "running"
    cursor: str = "0-0"
    """The last ledger entry taken into account."""
    rows: list[RowState] = Field(default_factory=list)

    # -- rows ------------------------------------------------------------------------------------------
    def task(self, index: int, login: dict[str, Any] | None) -> RowTask:
        return RowTask(batch_id=self.id, row_index=index, total=len(self.rows), workflow_id=self.workflow_id,
                       document=self.document, inputs=self.rows[index].inputs, time_limit=self.row_time_limit,
                       file_limit=self.file_limit, retries=self.retries, login=login, submitted_at=time.time())

    def open_rows(self) -> list[int]:
        """Rows without an outcome yet."""
        return [index for index, row in enumerate(self.rows) if row.outcome is None]

    def missing(self, present: dict[str, bool]) -> list[int]:
        """Open rows that need publishing: never sent, or none of their messages still in the broker
        (`present`: message id -> in the broker)."""
        return [index for index in self.open_rows()
                if not any(present.get(message_id, False) for message_id in self.rows[index].message_ids)]

    def accept(self, event: Event) -> Literal["kept", "duplicate", "started", "seen"]:
        """Take one ledger event into account: the first final event of a row is kept, later ones are
        duplicates. An event at or before the cursor was taken into account already ("seen")."""
        if _entry_key(event.entry) <= _entry_key(self.cursor):
            return "seen"
        self.cursor = event.entry
        if not 0 <= event.row < len(self.rows):
            log.warning("batch %s: an event for row %s, which this batch does not have", self.id, event.row)
            return "seen"
        row = self.rows[event.row]
        if event.kind == "started":
            row.started += 1
            return "started"
        result = event.result
        record = result.record if result is not None else {}
        status = "failed" if result is None else ("ok" if record.get("status") == "ok" else "failed")
        error = event.error if result is None else record.get("error")
        if row.outcome is not None:
            row.duplicates.append(Duplicate(
                entry=event.entry, worker=event.worker, status=str(record.get("status") or "failed"),
                run_id=record.get("id"), error=error, started_at=result.started_at if result else None,
                ended_at=result.ended_at if result else None))
            return "duplicate"
        row.outcome = "ok" if status == "ok" else "failed"
        row.worker, row.entry, row.error = event.worker, event.entry, error
        row.run_id = str(record["id"]) if record.get("id") else None
        return "kept"

    def cancel(self, index: int, reason: str) -> None:
        row = self.rows[index]
        row.outcome, row.error = "cancelled", reason

    def give_up(self, index: int, reason: str) -> None:
        row = self.rows[index]
        row.outcome, row.error = "failed", reason

    def counts(self) -> dict[str, int]:
        """done (ok), failed (failed or cancelled), running (begun, no outcome), queued (the rest)."""
        done = sum(row.outcome == "ok" for row in self.rows)
        failed = sum(row.outcome in ("failed", "cancelled") for row in self.rows)
        running = sum(row.outcome is None and row.started > 0 for row in self.rows)
        return {"total": len(self.rows), "done": done, "failed": failed, "running": running,
                "queued": len(self.rows) - done - failed - running}


def _entry_key(entry: str) -> tuple[int, int]:
    milliseconds, _, sequence = entry.partition("-")
    return int(milliseconds or 0), int(sequence or 0)


class BatchFiles:
    """`batches/` of a data folder: one JSON file per distributed batch."""

    def __init__(self, data: DataDir) -> None:
        self.folder = data.root / "batches"
        self._saver = ImmediateSaver()

    def path(self, batch_id: str) -> Path:
        if not batch_id or "/" in batch_id or batch_id.startswith("."):
            raise LookupError(f"there is no batch with id {batch_id!r}")
        return self.folder / f"{batch_id}.json"

    @contextlib.contextmanager
    def following(self, batch_id: str) -> Iterator[None]:
        """Hold the batch for one submitter (a lock on `batches/<id>.lock`); LookupError when another
        submitter, in this process or another, follows it already."""
        path = self.path(batch_id).with_suffix(".lock")
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise LookupError(f"batch {batch_id} is being followed already") from None
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def save(self, state: BatchState) -> None:
        data = state.model_dump(mode="json", by_alias=True)
        self._saver.save(self.path(state.id), lambda: encode_json(data))

    def load(self, batch_id: str) -> BatchState:
        path = self.path(batch_id)
        if not path.exists():
            raise LookupError(f"there is no batch with id {batch_id!r} in {self.folder}")
        loaded = JsonStore(path, BatchState, lambda: BatchState(id=batch_id, workflow_name="", document={},
                                                                broker="")).load()
        if loaded.problem:
            raise LookupError(loaded.problem)
        return loaded.document

    def list(self) -> list[BatchState]:
        """Every batch on file, newest first (unreadable files are skipped, and logged)."""
        states: list[BatchState] = []
        for path in self.folder.glob("batch-*.json"):
            try:
                states.append(self.load(path.stem))
            except LookupError as exc:
                log.warning("%s", exc)
        return sorted(states, key=lambda state: state.submitted_at, reverse=True)
