"""What travels through the broker, as plain pydantic models (no Qt, no broker): a row task and its result.

`RowTask` is one row of a distributed batch: the whole workflow document (workers need no copy of it), the
row's inputs, the row time limit, how often a workflow failure may be retried, and optionally a shipped login
(the env_export format). `RowResult` is what comes back: the worker's run record (the run envelope), the
worker's name, timings, which run of the row it was, and the run's files (inline up to the batch's size
limit, else where they stay on the worker). Everything is JSON, the only encoding the workers accept.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from app.distributed.defaults import DEFAULT_FILE_LIMIT, DEFAULT_ROW_TIME_LIMIT


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore",
                              defer_build=True)  # built when first used, not at start-up


class RowTask(_Model):
    batch_id: str
    row_index: int
    total: int
    workflow_id: str | None = None
    document: dict[str, Any]
    inputs: dict[str, Any] = Field(default_factory=dict)
    time_limit: float = DEFAULT_ROW_TIME_LIMIT
    file_limit: int = DEFAULT_FILE_LIMIT
    retries: int = Field(default=0, ge=0, description="Times a row that failed for a workflow reason runs again.")
    login: dict[str, Any] | None = Field(default=None, description="An env_export document (session cookies).")
    submitted_at: float = 0.0


class ShippedFile(_Model):
    name: str
    """Path relative to the run folder on the worker (`export.csv`, `downloads/a.pdf`)."""
    bytes: int
    data: str | None = None
    """Base64 contents; None when the file was over the limit and stays on the worker at `worker_path`."""
    worker_path: str


class RowResult(_Model):
    record: dict[str, Any]
    """The worker's RunRecord (camelCase, as stored)."""
    worker: str
    files: list[ShippedFile] = Field(default_factory=list)
    submitted_at: float = 0.0
    started_at: float
    ended_at: float
    attempt: int = 1
    """Which run of the row this was, counted over every worker (workflow retries, deliveries again after an
    app fault or a dead worker, and copies sent again after a broker restart all count)."""

    def timings(self) -> dict[str, Any]:
        return {"submittedAt": self.submitted_at, "startedAt": self.started_at, "endedAt": self.ended_at,
                "queuedMs": round(max(0.0, self.started_at - self.submitted_at) * 1000, 1) if self.submitted_at else None,
                "workerMs": round((self.ended_at - self.started_at) * 1000, 1)}


class BatchCounts(_Model):
    total: int
    done: int = 0
    failed: int = 0
    running: int = 0
    queued: int = 0

    def as_progress(self) -> dict[str, Any]:
        """The shape batch progress listeners know (`total, done, succeeded, failed`) plus running and queued."""
        finished = self.done + self.failed
        return {"total": self.total, "done": finished, "succeeded": self.done, "failed": self.failed,
                "running": self.running, "queued": self.queued}


def group_batches(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs (newest first) with each batch's rows together, in row order, where the batch's newest row was."""
    placed: set[str] = set()
    by_batch: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        if run.get("batchId"):
            by_batch.setdefault(str(run["batchId"]), []).append(run)
    grouped: list[dict[str, Any]] = []
    for run in runs:
        batch = run.get("batchId")
        if not batch:
            grouped.append(run)
        elif batch not in placed:
            placed.add(str(batch))
            grouped.extend(sorted(by_batch[str(batch)], key=lambda r: r.get("rowIndex") or 0))
    return grouped
