"""What operations answer: one result model per shape, shared where operations answer alike. The operations on
pages and tabs answer with the models in workflows/results.py (the engine reads them); the rest are here.

Each operation declares its result model (`Operation.result`); it is the `data` of the operation's
`Envelope` (workflows/envelope.py) and, with the envelope's own keys, the tool's `outputSchema` on MCP. A model
names what the operation always or sometimes reports; a result may carry more (`Result` keeps unknown keys),
never less: `OperationRegistry.check_results` validates every result against its model (the tests turn it on).

Names are camelCase on the wire, as the parameters'. Nested rows that other layers already model (a run's
record, a tab's row) are typed where their shape is stable; a value the page or a caller chooses (a script's
value, a CDP answer, an element's attributes) stays `Any`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from workflows.envelope import OpenResult, Result
from workflows.events import EventKind
from workflows.results import Number
from workflows.runs import HealView, RunView

__all__ = ["OpenResult", "Result"]


# -- environments -------------------------------------------------------------------------------------
class EnvView(Result):
    """An environment as operations show it (its whole record: envs/model.py `Environment`)."""

    id: str
    name: str
    remark: str = ""


class EnvListResult(Result):
    environments: list[EnvView]
    envs: list[EnvView]  # the original's name


class EnvResult(Result):  # env_create, env_update, env_delete
    environment: EnvView
    env: str


# -- workflows and runs ----------------------------------------------------------------------------------
class WorkflowParam(Result):
    name: str
    description: str | None = None
    type: str


class WorkflowSummary(Result):
    id: str
    name: str
    description: str = ""
    node_count: int
    params: list[WorkflowParam]
    updated_at: str
    last_run: dict[str, Any] | None = None  # {id, status, startedAt}
    remark: str | None = None  # the original's names for description and nodeCount (workflow_list)
    nodes: int | None = None


class WorkflowListResult(Result):
    workflows: list[WorkflowSummary]


class WorkflowSaveResult(Result):  # workflow_write, workflow_update, workflow_import of one document
    workflow: WorkflowSummary
    replaced: bool
    warnings: list[str]
    id: str
    name: str
    nodes: int
    params: list[WorkflowParam]


class RunResult(Result):  # workflow_run, run_wait: the finished run, with the original's fields beside it
    run: RunView
    workflow: str | None = None
    title: str | None = None
    files: list[Any] | None = None
    outputs: Any = None


class RunRow(Result):
    id: str
    workflow: str
    env: str
    status: str
    started_at: str
    duration_ms: float | None = None
    error: str | None = None
    batch_id: str | None = None
    row_index: int | None = None
    worker: str | None = None
    healed: int


class RunListResult(Result):
    runs: list[RunRow]


class RunReadResult(Result):
    run: RunView  # the run's whole record (workflows/runs.py `RunRecord.view`)


class RunEventView(Result):
    """One event of a run (workflows/events.py `RunEvent.as_dict`: empty fields left out)."""

    run_id: str
    kind: EventKind
    seq: int
    at: Number  # seconds since the epoch
    node: str | None = None
    node_type: str | None = None
    status: str | None = None
    ms: Number | None = None
    output: Any = None  # node_finished: the node's output (present, maybe null, when ok)
    error: str | None = None
    handle: str | None = None
    loop: str | None = None
    index: int | None = None
    record: RunView | None = None  # run_started, run_finished: the run's record then
    healed: dict[str, Any] | None = None  # node_finished: {from, to, score, why, element} when healed
    tab_id: str | None = None


class RunEventsResult(Result):
    events: list[RunEventView]
    done: bool
    note: str | None = None  # the run's events are no longer kept


class RunTableView(Result):
    """A run's table (workflows/tables.py `RunTable.view`)."""

    name: str
    source: Literal["file", "output"]
    headers: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    path: str | None = None  # source file: the file


class RunTablesResult(Result):
    run_id: str
    tables: list[RunTableView]


class RunExportResult(Result):
    path: str  # the zip
    files: int
    bytes: int
    missing: list[str]  # files the record names that were no longer there


class WorkflowVersionSummary(Result):
    """A kept version of a saved workflow (workflows/versions.py `Version.summary`)."""

    version: int
    at: str
    reason: str  # save, import, update, record, repair, restore, recovered
    name: str
    note: str
    nodes: int


class WorkflowHistoryResult(Result):
    id: str
    name: str
    versions: list[WorkflowVersionSummary]  # newest first


class WorkflowDiffResult(Result):
    id: str
    name: str
    from_: int = Field(alias="from")  # the versions compared
    to: int
    changes: list[str]  # one line per node added, removed or changed, edges, the name
    diff: str  # a unified diff of the two documents' JSON


class WorkflowRestoreResult(WorkflowSaveResult):
    restored: int  # the version made current again
    version: int  # the new version the restore made


class RepairProposal(HealView):
    """A repair a successful run proposes (workflows/repairs.py `proposals`): the node's heal, and where."""

    run_id: str
    node: str
    title: str | None = None


class WorkflowRepairsResult(Result):
    id: str
    name: str
    repairs: list[RepairProposal]  # newest run first
    auto_repair: int  # after how many runs healing a node alike its repair is accepted by itself (0: never)


class WorkflowRepairResult(WorkflowSaveResult):
    repaired: list[dict[str, Any]]  # {node, from, to}
    version: int  # the new version


class BatchRowResult(Result):
    row: int
    status: str  # a run's status, or "not run"
    run_id: str | None = None
    error: str | None = None
    outputs: dict[str, Any] | None = None
    env: str | None = None
    worker: str | None = None  # a batch on workers: the worker whose outcome was kept
    duplicates: int | None = None  # a batch on workers: later outcomes of the row (delivery is at least once)


class WorkflowBatchResult(Result):
    batch_id: str
    total: int
    done: int
    succeeded: int
    failed: int
    results: list[BatchRowResult]  # one per row, in row order


class WorkflowReadResult(Result):
    id: str
    workflow: dict[str, Any]  # the document, as workflow_write takes it


class WorkflowStartResult(Result):
    run_id: str
    workflow: str


class RunCancelResult(Result):
    run_id: str
    cancelling: bool


class PathResult(Result):  # workflow_export
    path: str


class WorkflowDeleteResult(Result):
    deleted: dict[str, str]  # {id, name}
    id: str
    name: str


# -- schedules -------------------------------------------------------------------------------------------
class ScheduleFiring(Result):
    """One firing of a schedule and what came of it (workflows/schedules.py `ScheduleResult`)."""

    at: str
    status: str  # running, ok, failed, cancelled, taken_over, skipped, missed
    run_id: str | None = None
    batch_id: str | None = None
    reason: str | None = None
    counts: dict[str, int] | None = None  # a batch's {total, succeeded, failed}
    ended_at: str | None = None
    manual: bool = False


class ScheduleView(Result):
    """A schedule as operations show it: its record (workflows/schedules.py `Schedule`), the timing and the
    next time in words, and whether all schedules are paused (app/ops/schedule_ops.py `schedule_view`)."""

    id: str
    name: str
    workflow_id: str
    workflow_name: str
    env: str
    inputs: dict[str, Any]
    rows_file: str | None = None
    broker: str | None = None
    concurrency: int
    trace: str | None = None
    video: str | None = None
    timing: dict[str, Any]  # {kind: once | every | daily | weekly | monthly | cron, …}
    missed: str  # run | skip
    grace_minutes: int
    enabled: bool
    created_at: str
    updated_at: str
    handled_until: str
    anchor: str
    next_run_at: str | None = None
    last: ScheduleFiring | None = None
    history: list[ScheduleFiring]
    when: str  # the timing in words
    next: str | None = None  # the next time in words; None when it will not fire again
    paused: bool


class ScheduleListResult(Result):
    schedules: list[ScheduleView]
    paused: bool


class ScheduleSaveResult(Result):  # schedule_create, schedule_update
    schedule: ScheduleView


class ScheduleDeleteResult(Result):
    deleted: dict[str, str]  # {id, name}


class ScheduleRunResult(Result):
    """schedule_run: at once `started`; with wait the firing's `result` and the run's (or batch's) answer beside
    it (workflow_run's or workflow_batch's fields)."""

    schedule: ScheduleView
    started: bool | None = None
    result: ScheduleFiring | None = None


# -- recording -------------------------------------------------------------------------------------------
class RecordStopResult(Result):
    name: str
    workflow: dict[str, Any]  # the document, as workflow_write takes it
    saved: bool
    id: str | None = None  # saved: the workflow's id
    replaced: bool | None = None  # saved over a workflow of the same name


# -- batches on workers ----------------------------------------------------------------------------------
class DistributedBatchResult(WorkflowBatchResult):  # workflow_distribute, batch_resume
    status: str  # running (not every row has an outcome yet), done, …
    running: int
    queued: int
    duplicates: int


class DistributedBatchSummary(Result):
    batch_id: str
    workflow: str
    status: str
    broker: str  # without its password
    queue: str
    total: int
    succeeded: int
    failed: int
    open: int  # rows without an outcome yet
    duplicates: int
    submitted_at: Number  # seconds since the epoch


class BatchListResult(Result):
    batches: list[DistributedBatchSummary]  # newest first
