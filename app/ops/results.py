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


# -- environments: windows and logins --------------------------------------------------------------------
class EnvOpenResult(EnvResult):
    headless: bool = Field(description="Always false here: environment windows open with a window; the app itself "
                                       "runs headless with --headless.")


class EnvExportResult(Result):
    env: str
    path: str = Field(description="The file written, readable only by you (0600): a live login, keep it private.")
    format: str = Field(description="json, playwright, netscape or cookie-editor.")
    cookies: int
    origins: int = Field(description="Sites whose local storage was written (0 for cookie-only formats).")


class SiteCookies(Result):
    site: str
    cookies: int


class EnvImportResult(Result):
    env: str
    created: bool = Field(description="A new environment was made for the login.")
    format: str = Field(description="json, playwright, netscape, cookie-editor (the file's, recognised), or "
                                    "browser (fromBrowser).")
    cookies: int = Field(description="Cookies set.")
    failed: int = Field(description="Cookies the browser refused.")
    total: int = Field(description="Cookies in the file, or chosen from the browser.")
    origins: int = Field(description="Sites whose local storage was set.")
    identity: bool = Field(description="The file's identity (user agent, languages, time zone, geolocation) was "
                                       "applied.")
    source: str | None = Field(default=None, description="fromBrowser: the browser and profile read.")
    database: str | None = Field(default=None, description="fromBrowser: the cookie database read.")
    sites: list[SiteCookies] | None = Field(default=None, description="fromBrowser: the sites copied.")
    undecryptable: int | None = Field(default=None, description="fromBrowser: cookies whose values could not be "
                                                                "decrypted (left out).")


class BrowserProfiles(Result):
    browser: str = Field(description="chrome, chromium, brave, edge or firefox: fromBrowser's name.")
    profiles: list[str] = Field(description="Profiles with cookies, most recently used first: env_import's profile.")


class BrowserProfilesResult(Result):
    browsers: list[BrowserProfiles]


# -- tab groups ------------------------------------------------------------------------------------------
class GroupView(Result):  # group_create, group_update
    id: str
    group_id: str = Field(description="The original's name for id.")
    env: str
    env_id: str = Field(description="The original's name for env.")
    name: str
    color: str = Field(description="#rrggbb")
    tab_ids: list[str] | None = Field(default=None, description="group_list: its open tabs.")


class GroupListResult(Result):
    groups: list[GroupView]


class TabGroupResult(Result):
    group_id: str | None = Field(description="The tab's group now; null: in none.")


# -- workflows in the editor -----------------------------------------------------------------------------
class EditorOpenResult(Result):
    id: str
    name: str
    title: str = Field(description="The editor window's title.")


# -- the built-in agent ----------------------------------------------------------------------------------
class AgentToolCallView(Result):
    """One tool call of an agent step (app/stores/agent_runs.py `ToolCall`), redacted."""

    id: str
    name: str
    input: dict[str, Any] = Field(description="As the model wrote it: placeholders, never secret values.")
    ok: bool
    result: Any = Field(default=None, description="The tool's envelope, long texts shortened.")
    error: str | None = None
    refusal: dict[str, Any] | None = Field(default=None, description="{secret, tool, site, step}: the call named a "
                                                                     "secret where it may not go; nothing was sent.")
    skipped: bool = Field(description="Not run: an earlier call of the batch changed the page.")
    retried: bool = Field(description="Failed once on a stale ref and was run again.")
    changed_page: bool
    url: str | None = Field(default=None, description="The tab's address after the call.")
    ms: Number
    screenshot: str | None = None
    locator: dict[str, Any] | None = Field(default=None, description="A stable locator of the target.")
    secrets: list[str] = Field(description="The names of the secrets its input used.")
    refusal: dict[str, Any] | None = Field(default=None,
                                           description="{secret, tool, site, step}: refused, nothing sent.")


class AgentStepView(Result):
    index: int
    started_at: str
    ms: Number
    text: str = Field(description="The model's words.")
    stop_reason: str | None = None
    calls: list[AgentToolCallView]
    note: str | None = Field(default=None, description="What the loop told the model.")


class AgentUsageView(Result):
    input_tokens: int = Field(description="Uncached input.")
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    requests: int
    cost_usd: Number | None = Field(default=None, description="Absent when the model's price is unknown.")


class AgentRecordView(Result):
    """An agent run's whole record (app/stores/agent_runs.py `AgentRecord.view`: timestamps as ISO text, empty
    values left out). `selfReport`, `judge` and `checks` are the three answers, kept apart."""

    id: str
    task: str
    model: str
    provider: str
    limitations: list[str] = Field(description="What the provider lacks, and how the run did without.")
    env: str
    tab_id: str | None = None
    start_url: str | None = None
    status: Literal["running", "succeeded", "failed", "stopped", "error"]
    started_at: str
    ended_at: str | None = None
    duration_ms: Number | None = None
    error: str | None = None
    steps: list[AgentStepView]
    self_report: dict[str, Any] | None = Field(default=None, description="{success, answer, outputs}: what the agent "
                                                                         "said of itself.")
    judge: dict[str, Any] | None = Field(default=None, description="{verdict: pass | fail | unknown, reason}: a "
                                                                   "second look at the end.")
    checks: list[dict[str, Any]] = Field(description="{locator, ok, detail?}: the expect locators on the final page.")
    usage: AgentUsageView
    files: list[str]
    final_url: str | None = None
    final_screenshot: str | None = None
    secrets: list[str] = Field(description="Names only.")
    secret_domains: list[dict[str, Any]] = Field(description="{name, domains, fromStartPage, anywhere}: where each "
                                                             "may be typed.")
    refusals: list[dict[str, Any]] = Field(description="{secret, tool, site, step}: uses of secrets refused, in order.")
    taken_over: bool
    pending_at_end: list[dict[str, Any]] = Field(description="What the task's tabs still had in flight after its "
                                                             "last step.")
    workflow: dict[str, Any] | None = Field(default=None, description="saveWorkflow: {name, notes, checks, id, saved} "
                                                                      "or {name, notes, error}; replay: {runId, ok, "
                                                                      "error?, node?}.")


class AgentRunResult(Result):
    record: AgentRecordView
    success: bool


class AgentReadResult(Result):
    record: AgentRecordView


class AgentModelsResult(Result):
    provider: Literal["anthropic", "openai"]
    base_url: str | None = Field(description="The endpoint asked (null: the provider's own).")
    models: list[str] = Field(description="Sorted; agent_run's model.")


class AgentSummary(Result):
    """One line of agent_list (app/agent/ops.py `agent_summary`)."""

    id: str
    task: str
    model: str
    provider: str
    env: str
    status: Literal["running", "succeeded", "failed", "stopped", "error"]
    started_at: str
    duration_ms: Number | None
    error: str | None
    self_report: bool | None = Field(description="Whether the agent said it succeeded (null: it said nothing).")
    judge: Literal["pass", "fail", "unknown"] | None
    checks: list[bool] = Field(description="Each expect check, held or not.")
    refusals: int = Field(description="Uses of secrets refused.")
    input_tokens: int
    output_tokens: int
    cost_usd: Number | None
    workflow: dict[str, Any] | None


class AgentListResult(Result):
    runs: list[AgentSummary] = Field(description="Newest first.")


# -- the app ---------------------------------------------------------------------------------------------
class McpServerView(Result):
    status: Literal["running", "starting", "off", "failed"]
    url: str | None = Field(description="The MCP endpoint, while it runs.")
    sdk_loaded: bool = Field(description="A client has connected (the MCP SDK loads then).")


class StarterView(Result):
    """The bridge that started a headless app for an agent client (`browserpilot mcp`), and that client."""

    pid: int
    command: str | None
    alive: bool
    client_pid: int | None
    client_command: str | None


class BridgeView(Result):
    pid: int
    command: str | None


class IdleExitView(Result):
    timeout_seconds: Number | None = Field(description="How long the app waits, idle, before quitting (null: off).")
    stops_in_seconds: Number | None = Field(description="When it will quit if nothing happens (null: it won't).")
    wont_stop_because: str | None


class AppStatusResult(Result):
    mcp: McpServerView
    pid: int
    started_by: StarterView | None = Field(description="null: started by a person.")
    headless: bool
    bridges: list[BridgeView] = Field(description="stdio bridges using the app now.")
    idle_exit: IdleExitView
