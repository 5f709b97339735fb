"""What operations answer: one result model per shape, shared where operations answer alike.

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
from workflows.ports import TabInfo

__all__ = ["OpenResult", "Result"]


# -- pages -----------------------------------------------------------------------------------------------
class PageResult(Result):
    """What every operation on a tab reports besides its own data: the tab's address now."""

    url: str | None = None


class LoadResult(PageResult):  # page_navigate, page_back, page_forward, page_reload
    title: str
    status: int | None = None  # the HTTP status of the document, when known


class ClickResult(PageResult):
    x: float
    y: float
    element: str | None = None  # how the clicked element reads ("button 'Save'")


class TypeResult(PageResult):  # page_type, page_paste
    typed: int  # characters
    element: str | None = None
    clicked: bool | None = None  # false: the field had the focus already, not clicked
    x: float | None = None  # the point clicked first, when given as x/y
    y: float | None = None


class SelectResult(PageResult):
    element: str | None = None
    text: str  # the option chosen, as it reads
    value: str | None = None
    index: int | None = None
    widget: bool | None = None  # chosen in a custom select widget, as a person does
    typed: bool | None = None  # typed into the widget's search box first
    method: Literal["value"] | None = None  # the keyboard did not land: the value was set


class KeyResult(PageResult):
    shortcut: str


class ScrollResult(PageResult):  # page_scroll, page_swipe
    steps: int
    distance: int | None = None  # pixels moved, without until
    visible: bool | None = None  # with until: it came into view


class DragResult(PageResult):
    from_: list[float] = Field(alias="from")
    to: list[float]
    element: str | None = None


class UploadResult(PageResult):
    element: str | None = None
    files: list[str]


class FileResult(PageResult):  # page_download, page_save_media
    path: str
    name: str
    bytes: int
    mime: str | None = None


class PdfResult(PageResult):
    path: str
    bytes: int
    pages: int | None = None


class ScreenshotResult(PageResult):
    path: str
    width: int
    height: int
    bytes: int
    truncated: bool | None = None  # the page was larger than a capture can be


class WaitResult(PageResult):
    state: Literal["appear", "gone"]
    visible: int  # how many matches are visible (appear), 0 (gone)


class QueryResult(PageResult):
    count: int
    elements: list[dict[str, Any]]  # ref, tag, description, text, attrs, rect, visible, hittable, enabled, …
    total: int  # the original's names for count and elements
    matches: list[dict[str, Any]]


class FindResult(PageResult):
    status: str  # found | healed | none | unsure
    index: int | None = None
    ref: str | None = None


class SnapshotResult(PageResult):
    title: str
    snapshot: str  # one line per node; controls carry a ref
    refs: int
    folded: int | None = None
    truncated: bool | None = None


class SourceResult(PageResult):
    kind: Literal["html", "text", "dom"]
    html: str | None = None
    text: str | None = None


class ScriptResult(PageResult):
    value: Any = None
    source_kind: Literal["expression", "function body"]


class CdpResult(PageResult):
    result: Any = None
    value: Any = None  # the same answer, under the original's name


class ControlResult(PageResult):  # page_lock, page_unlock, page_handoff
    ended: str | None = None  # page_handoff with wait: how the handoff ended (done, changed)


class SettleResult(PageResult):
    settled: bool
    pending: list[dict[str, Any]]  # kind, method, url, ms, lastAction of what was still waiting


# -- environments and tabs -------------------------------------------------------------------------------
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


class TabRow(Result, TabInfo):
    """A tab as `tab_list` shows it: the browser's `TabInfo`, and the original's names beside."""

    env_id: str  # the original's names
    group_id: str | None = None


class TabOpenResult(Result):
    env: str


class TabListResult(Result):
    tabs: list[TabRow]


class TabCloseResult(Result):
    pending: list[dict[str, Any]] | None = None  # what the tab was still sending when it was closed anyway


class NoData(Result):
    """An operation that reports nothing beyond the envelope (tab_activate)."""


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
    run: dict[str, Any]
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
    run: dict[str, Any]  # the run's whole record (workflows/runs.py `RunRecord.view`)


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
