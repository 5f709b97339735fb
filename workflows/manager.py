"""Starting, tracking and cancelling runs, and batches of runs over data rows.

One run at a time per tab: a run holds its tab (other callers get a busy error naming the run) until it ends. A
run's `secret` inputs that declare `domains` are bound to those sites (workflows/secret_binding.py): the run calls
the operations with that binding, which fill them in only where they may be typed. Every run leaves a record in
`runs.json`, whatever happens (ok, failed, cancelled, taken over). A run is a job: `start` returns its record at
once, `events` (workflows.events) tells what happens as it happens, and `wait` (or `run`, which is start + wait)
gives the final record.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable

from plumbing import loggers
from workflows.document import WorkflowDocument
from workflows.engine import SETTLE_TIMEOUT, CodePort, Executor, RunSettings, TabState
from workflows.events import RunEvents
from workflows.operations import PAGE_LOCK, PAGE_UNLOCK, TAB_CLOSE, TAB_LIST, TAB_OPEN, OperationsPort
from workflows.runs import RunRecord, RunStore, new_run_id
from workflows.secret_binding import SecretBinding, SecretError, SecretRule
from workflows.template import VariableError
from workflows.tracing import TraceDefaults, TraceMode, TracePort, keeps

log = logging.getLogger(loggers.WORKFLOWS)

# run id, its bound secrets -> an operations port acting as that run
OpsForRun = Callable[[str, SecretBinding | None], OperationsPort]
Progress = Callable[[dict[str, Any]], None]


class RunError(Exception):
    """A run could not start (busy tab, unknown environment…)."""


def bound_secrets(doc: WorkflowDocument, inputs: dict[str, Any]) -> SecretBinding | None:
    """The binding of the run's `secret` inputs that declare `domains` and have a value (given, else the
    input's default); None when there is none. A bad pattern is a `VariableError` naming the input."""
    rules: list[SecretRule] = []
    values: dict[str, str] = {}
    for variable in doc.start_variables():
        if variable.kind != "secret" or variable.domains is None:
            continue
        value = inputs.get(variable.variable)
        if value in (None, ""):
            value = variable.default
        if value in (None, ""):
            continue
        try:
            rules.append(SecretRule(variable.variable, variable.domains))
        except SecretError as exc:
            raise VariableError(f"the input {variable.variable!r}: {exc}") from None
        values[variable.variable] = str(value)
    return SecretBinding(rules, values) if rules else None


@dataclass
class BatchProgress:
    total: int
    done: int = 0
    ok: int = 0
    failed: int = 0
    records: list[RunRecord | None] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "done": self.done, "succeeded": self.ok, "failed": self.failed}


class RunManager:
    def __init__(self, runs: RunStore, ops_for_run: OpsForRun, code: CodePort, tab_state: TabState,
                 tab_holders: dict[str, str], max_concurrency: int = 3,
                 settle_seconds: Callable[[], float] = lambda: SETTLE_TIMEOUT, tracer: TracePort | None = None,
                 trace_defaults: Callable[[], TraceDefaults] = TraceDefaults) -> None:
        self.runs = runs
        self._tracer = tracer
        self._trace_defaults = trace_defaults
        self._ops_for_run = ops_for_run
        self._code = code
        self._tab_holders = tab_holders
        self.max_concurrency = max_concurrency
        self._settle_seconds = settle_seconds
        self._tab_state = tab_state
        self._active: dict[str, asyncio.Task[RunRecord]] = {}
        self._tasks: dict[str, asyncio.Task[RunRecord]] = {}
        self._batches: dict[str, list[str]] = {}
        self.events = RunEvents()

    def active_runs(self) -> list[str]:
        return list(self._active)

    def active_batches(self) -> list[str]:
        return list(self._batches)

    async def _pick_tab(self, ops: OperationsPort, env_id: str, tab_id: str | None, fresh: bool) -> str:
        if tab_id is not None:
            holder = self._tab_holders.get(tab_id)
            if holder is not None:
                raise RunError(f"tab {tab_id} is busy: workflow run {holder} is using it")
            return tab_id
        if not fresh:
            listed = await ops(TAB_LIST, {"env": env_id})
            if not listed.ok:
                raise RunError(str(listed.error))
            active = next((t.id for t in listed.result.tabs if t.active and t.id not in self._tab_holders), None)
            if active is not None:
                return active
        opened = await ops(TAB_OPEN, {"env": env_id})
        if not opened.ok or opened.tab_id is None:
            raise RunError(str(opened.error))
        return opened.tab_id

    async def start(self, doc: WorkflowDocument, inputs: dict[str, Any], *, env_id: str, tab_id: str | None = None,
                    workflow_id: str | None = None, batch_id: str | None = None, row_index: int | None = None,
                    fresh_tab: bool = False, on_progress: Callable[[RunRecord], None] | None = None,
                    trigger: dict[str, Any] | None = None, trace: TraceMode | None = None,
                    video: TraceMode | None = None) -> RunRecord:
        """Start a run and return its first record at once (the run goes on; follow `events`, or `wait`).
        `trigger` (a schedule's `{schedule: ID}`) is written into the record; `trace` and `video` override the
        settings' modes (workflows/tracing.py)."""
        record, _task = await self._start(doc, inputs, env_id=env_id, tab_id=tab_id, workflow_id=workflow_id,
                                          batch_id=batch_id, row_index=row_index, fresh_tab=fresh_tab,
                                          on_progress=on_progress, trigger=trigger, trace=trace, video=video)
        return record.model_copy(deep=True)

    async def wait(self, run_id: str, timeout: float | None = None) -> RunRecord:
        """The record of a run once it has ended (TimeoutError after `timeout` seconds; LookupError if unknown)."""
        task = self._tasks.get(run_id)
        if task is None:
            return self.runs.get(run_id)
        return await asyncio.wait_for(asyncio.shield(task), timeout)

    async def run(self, doc: WorkflowDocument, inputs: dict[str, Any], *, env_id: str, tab_id: str | None = None,
                  workflow_id: str | None = None, batch_id: str | None = None, row_index: int | None = None,
                  fresh_tab: bool = False, on_progress: Callable[[RunRecord], None] | None = None,
                  trigger: dict[str, Any] | None = None, trace: TraceMode | None = None,
                  video: TraceMode | None = None) -> RunRecord:
        """Run a workflow to its end and return its record (saved in runs.json)."""
        _record, task = await self._start(doc, inputs, env_id=env_id, tab_id=tab_id, workflow_id=workflow_id,
                                          batch_id=batch_id, row_index=row_index, fresh_tab=fresh_tab,
                                          on_progress=on_progress, trigger=trigger, trace=trace, video=video)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            # The caller was cancelled: cancel the run too; it still writes its record.
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise

    async def _start(self, doc: WorkflowDocument, inputs: dict[str, Any], *, env_id: str, tab_id: str | None,
                     workflow_id: str | None, batch_id: str | None, row_index: int | None, fresh_tab: bool,
                     on_progress: Callable[[RunRecord], None] | None, trigger: dict[str, Any] | None = None,
                     trace: TraceMode | None = None,
                     video: TraceMode | None = None) -> tuple[RunRecord, asyncio.Task[RunRecord]]:
        run_id = new_run_id()
        secrets = bound_secrets(doc, inputs)
        ops = self._ops_for_run(run_id, secrets)
        tab = await self._pick_tab(ops, env_id, tab_id, fresh_tab)
        secret_names = set(doc.secret_names())
        secret_values = {name: str(inputs[name]) for name in secret_names if inputs.get(name)}
        shown_inputs = {key: (f"<secret:{key}>" if key in secret_names else value) for key, value in inputs.items()}
        record = RunRecord(id=run_id, workflow_id=workflow_id, workflow_name=doc.name, env=env_id, tab_id=tab,
                           batch_id=batch_id, row_index=row_index, inputs=shown_inputs, trigger=trigger)
        self._tab_holders[tab] = run_id
        if batch_id in self._batches:
            self._batches[batch_id].append(run_id)
        try:
            self.runs.save(record)
        except BaseException:
            self._tab_holders.pop(tab, None)
            raise
        defaults = self._trace_defaults()
        settings = RunSettings(env_id=env_id, tab_id=tab, folder=self.runs.folder(run_id), secret_values=secret_values,
                               settle_timeout=self._settle_seconds(), secrets=secrets,
                               trace=trace or defaults.trace, video=video or defaults.video, tracer=self._tracer)
        task = asyncio.ensure_future(self._drive(doc, inputs, record, ops, settings, on_progress))
        self._active[run_id] = task
        self._tasks[run_id] = task
        task.add_done_callback(lambda _done: self._tasks.pop(run_id, None))
        return record, task

    async def _drive(self, doc: WorkflowDocument, inputs: dict[str, Any], record: RunRecord, ops: OperationsPort,
                     settings: RunSettings, on_progress: Callable[[RunRecord], None] | None) -> RunRecord:
        """The run itself: lock the tab, execute, release the tab, write the record, tell the subscribers."""
        run_id, tab = record.id, settings.tab_id
        self.events.emit(run_id, "run_started", record=record.view())
        before: str | None = None
        try:
            before = await self._control_of(ops, settings.env_id, tab)
            await ops(PAGE_LOCK, {"tabId": tab})
            executor = Executor(doc, ops, self._code, self._tab_state, settings, record, on_progress,
                                on_event=lambda kind, fields: self.events.emit(run_id, kind, **fields))
            record = await executor.run(inputs)
        finally:
            if before == "shared":  # the person's tab (shared before the run) is theirs again, as in the original;
                try:                # done while the run still holds the tab, so no next run's lock is undone
                    await asyncio.shield(self._share_again(ops, tab))
                except asyncio.CancelledError:
                    log.info("run %s cancelled again while its tab was shared again", run_id)
            self._active.pop(run_id, None)
            if self._tab_holders.get(tab) == run_id:
                del self._tab_holders[tab]
            self.runs.save(record)
            if keeps(settings.trace, record.status) or record.video:
                self.runs.prune_traces(self._trace_defaults().disk_mb * 1024 * 1024, keep={run_id})
            log.info("run %s of %s ended %s in %s ms", run_id, doc.name, record.status, record.duration_ms)
            self.events.emit(run_id, "run_finished", status=record.status, record=record.view())
        return record

    @staticmethod
    async def _control_of(ops: OperationsPort, env_id: str, tab_id: str) -> str | None:
        """Who controls the tab now (agent, handoff, shared), or None when it cannot be told."""
        listed = await ops(TAB_LIST, {"env": env_id})
        return next((t.control for t in listed.result.tabs if t.id == tab_id), None) if listed.ok else None

    @staticmethod
    async def _share_again(ops: OperationsPort, tab_id: str) -> None:
        try:
            answer = await ops(PAGE_UNLOCK, {"tabId": tab_id})
        except Exception as exc:  # noqa: BLE001 (the run's record is written whatever happens here)
            log.info("tab %s not shared again after its run: %s", tab_id, exc)
            return
        if not answer.ok:  # the tab was closed meanwhile
            log.info("tab %s not shared again after its run: %s", tab_id, answer.error)

    def cancel(self, run_id: str) -> bool:
        task = self._active.get(run_id)
        if task is None:
            return False
        task.cancel()
        return True

    def cancel_batch(self, batch_id: str) -> int:
        return sum(self.cancel(run_id) for run_id in list(self._batches.get(batch_id, [])))

    async def batch(self, doc: WorkflowDocument, rows: list[dict[str, Any]], *, envs: list[str],
                    concurrency: int, workflow_id: str | None = None,
                    on_progress: Progress | None = None, trigger: dict[str, Any] | None = None,
                    trace: TraceMode | None = None, video: TraceMode | None = None) -> tuple[str, BatchProgress]:
        """One run per row, `concurrency` tabs at once, spread round-robin over `envs`; a failed row does
        not stop the others. `on_progress` gets the counts (`BatchProgress.as_dict`) once at the start and
        after each row that ends, whether it ran or could not start."""
        batch_id = f"batch-{secrets.token_hex(4)}"
        concurrency = max(1, min(concurrency, self.max_concurrency, len(rows) or 1))
        progress = BatchProgress(total=len(rows), records=[None] * len(rows))
        queue: asyncio.Queue[int] = asyncio.Queue()
        for index in range(len(rows)):
            queue.put_nowait(index)
        env_cycle = itertools.cycle(envs)
        self._batches[batch_id] = []

        async def worker(env_id: str, started: asyncio.Event) -> None:
            ops = self._ops_for_run(batch_id, None)
            try:
                opened = await ops(TAB_OPEN, {"env": env_id, "show": False})  # a row needs no window
            finally:
                started.set()
            if not opened.ok or opened.tab_id is None:
                raise RunError(str(opened.error))
            tab = opened.tab_id
            try:
                while not queue.empty():
                    index = queue.get_nowait()
                    try:
                        record = await self.run(doc, rows[index], env_id=env_id, tab_id=tab, workflow_id=workflow_id,
                                                batch_id=batch_id, row_index=index, trigger=trigger, trace=trace,
                                                video=video)
                    except RunError as exc:
                        log.warning("batch %s row %s could not start: %s", batch_id, index, exc)
                        progress.failed += 1
                        progress.done += 1
                        if on_progress is not None:
                            on_progress(progress.as_dict())
                        continue
                    progress.records[index] = record
                    progress.done += 1
                    if record.status == "ok":
                        progress.ok += 1
                    else:
                        progress.failed += 1
                    if on_progress is not None:
                        on_progress(progress.as_dict())
            finally:
                await ops(TAB_CLOSE, {"tabId": tab})

        if on_progress is not None:
            on_progress(progress.as_dict())  # 0 of N: a progress bar can show the batch from its start
        workers: list[asyncio.Future[None]] = []
        try:
            # One worker's tab (and maybe its window) is made at a time, with the loop free in between: made
            # together, they held the Qt thread for ~150 ms at the start of a 3-wide batch (bench/ui_stall.py).
            for _ in range(concurrency):
                started = asyncio.Event()
                workers.append(asyncio.ensure_future(worker(next(env_cycle), started)))
                await started.wait()
            await asyncio.gather(*workers)
        except BaseException:
            for task in workers:
                task.cancel()
            raise
        finally:
            self._batches.pop(batch_id, None)
        return batch_id, progress
