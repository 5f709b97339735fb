"""What every operation receives: the data folder, the stores, and the browser when the app runs one.

The stores made here write through `saver`: the app gives its save manager (off the Qt thread); a short-lived
process keeps the default, which writes at once. Every store publishes its changes on one feed, `changes`
(plumbing/changes.py; by default the environment store's). Copies of a context (`for_run`, a panel's own listener)
share them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Protocol, cast

from app.stores.agent_runs import AgentRunStore
from app.stores.agent_settings import AgentSettingsStore
from app.stores.settings import SettingsStore
from plumbing.changes import StoreChanges
from plumbing.datadir import DataDir
from envs.groups import GroupError, GroupStore
from plumbing.jsonstore import StoreError
from plumbing.savemanager import ImmediateSaver, Saver
from envs.store import EnvError, EnvStore
from workflows.document import DocumentError
from workflows.manager import RunError, RunManager
from workflows.ports import BrowserPort, PageError
from workflows.runs import RunStore, TriggerStampedRuns
from workflows.schedule_timing import TimingError
from workflows.schedules import ScheduleError, ScheduleStore
from workflows.secret_binding import SecretBinding
from workflows.store import SavedWorkflow, WorkflowStore
from workflows.template import VariableError


class Operations(Protocol):
    """The registry the context's operations are called through (app/ops/registry.py `OperationRegistry`), for
    an operation that calls others (the agent's tools)."""

    def names(self) -> list[str]: ...
    def get(self, name: str) -> Any: ...
    async def call(self, ctx: "OpContext", name: str, raw: dict[str, Any] | None = None) -> dict[str, Any]: ...


class TabBusyError(Exception):
    """A tab is held by a running workflow."""


class SchedulerPort(Protocol):
    """What the schedule operations need from the app's scheduler (app/schedules/service.py)."""

    async def run_now(self, schedule_id: str, wait: bool) -> dict[str, Any]: ...

    @property
    def paused(self) -> bool: ...


@dataclass
class OpContext:
    data: DataDir
    envs: EnvStore
    browser: BrowserPort | None = None
    # Tab id -> the id of the workflow run that holds it; other callers get a busy error.
    tab_holders: dict[str, str] = field(default_factory=dict)
    # Set on the context a workflow run calls operations with: its own tab is not busy for it.
    run_id: str | None = None
    runner: RunManager | None = None
    # Long operations (batches) report progress here when a caller listens (the command line's bar).
    progress: Callable[[dict[str, Any]], None] | None = None
    # Set by an app with a GUI: open a saved workflow (a SavedWorkflow just found, or its id) in the editor;
    # returns the window's title.
    open_editor: Callable[[SavedWorkflow | str], str] | None = None
    # The registry these operations are called through (set by whoever builds the registry and this context).
    operations: Operations | None = None
    # Seconds what a tab has in flight may take to land before an operation closes the tab (Settings).
    settle_seconds: Callable[[], float] = lambda: 10.0
    saver: Saver = field(default_factory=ImmediateSaver)
    changes: StoreChanges = field(default=None)  # type: ignore[assignment]  (the env store's, in __post_init__)
    workflows: WorkflowStore = field(default=None)  # type: ignore[assignment]  (made in __post_init__)
    runs: RunStore = field(default=None)  # type: ignore[assignment]
    groups: GroupStore = field(default=None)  # type: ignore[assignment]
    schedules: ScheduleStore = field(default=None)  # type: ignore[assignment]
    settings: SettingsStore = field(default=None)  # type: ignore[assignment]
    agent_settings: AgentSettingsStore = field(default=None)  # type: ignore[assignment]
    agent_runs: AgentRunStore = field(default=None)  # type: ignore[assignment]
    # The app's scheduler, when an app runs one (Run now, the live next times); None on the command line.
    scheduler: SchedulerPort | None = None
    # What started the operation's runs when not its caller: a schedule's `{schedule: ID}` (`with_trigger`).
    trigger: dict[str, Any] | None = None
    # The secrets of the agent run or workflow run calling (`with_secrets`): where each may be typed. The
    # registry refuses a call that names one outside its typed text; the typing part fills them in.
    secrets: SecretBinding | None = None

    # Errors that are the caller's or the disk's, reported as a failed envelope rather than a crash.
    expected_errors: ClassVar[tuple[type[Exception], ...]] = (
        EnvError, StoreError, TabBusyError, LookupError, DocumentError, RunError, VariableError, GroupError,
        ScheduleError, TimingError)
    page_errors: ClassVar[tuple[type[Exception], ...]] = (PageError,)

    def __post_init__(self) -> None:
        if self.changes is None:
            self.changes = self.envs.changes
        if self.workflows is None:
            self.workflows = WorkflowStore(self.data, self.saver, self.changes)
        if self.runs is None:
            self.runs = RunStore(self.data, self.saver, self.changes)
        if self.groups is None:
            self.groups = GroupStore(self.data, self.saver, self.changes)
        if self.schedules is None:
            self.schedules = ScheduleStore(self.data, self.saver, self.changes)
        if self.settings is None:
            self.settings = SettingsStore(self.data, self.saver, self.changes)
        if self.agent_settings is None:
            self.agent_settings = AgentSettingsStore(self.data, self.saver, self.changes)
        if self.agent_runs is None:
            self.agent_runs = AgentRunStore(self.data, self.saver, self.changes)

    def for_run(self, run_id: str, secrets: SecretBinding | None = None) -> "OpContext":
        """The same context (same stores, runner and tab holders) acting as a workflow run, with its bound
        secrets."""
        return replace(self, run_id=run_id, secrets=secrets)

    def with_secrets(self, secrets: SecretBinding | None) -> "OpContext":
        """The same context calling for a run whose secrets are bound to their sites (workflows/secret_binding.py)."""
        return replace(self, secrets=secrets)

    def with_trigger(self, trigger: dict[str, Any]) -> "OpContext":
        """The same context for operations a schedule starts: every run record written through it (by the run
        manager, or by an operation storing results itself, as a batch on workers does) carries `trigger`."""
        return replace(self, trigger=dict(trigger), runs=cast(RunStore, TriggerStampedRuns(self.runs, trigger)))

    def check_tab_free(self, tab_id: str) -> None:
        holder = self.tab_holders.get(tab_id)
        if holder is not None and holder != self.run_id:
            raise TabBusyError(f"tab {tab_id} is busy: workflow run {holder} is using it; wait for it to end "
                               f"or cancel it with run_cancel")
