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

from typing import Any

from workflows.envelope import OpenResult, Result
from workflows.runs import RunView

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
