"""The executor: walks a workflow's graph and runs each node, deterministically, with no model in the loop.

What each node does lives in its class (`workflows.nodes`); the executor keeps the graph walk, the variable
pool, pause/resume and locating, with the original BrowserPilot runner's rules:
- From `start`, each outgoing edge is walked in turn, depth first; an if-else leaves by the handle it took,
  every other node by `"source"`. An `end` ends only its own branch; several `end` nodes merge their outputs.
  A node reached twice in one run is an error (branches may rejoin after an if-else).
- Run outputs: what `end` nodes collected; with none, the output of the last node that produced one
  (code, script, extract, export, http-request, captcha, loop). `sys.url` and `sys.title` are refreshed after
  every node.
- Start inputs: undeclared ones are ignored (and noted in the record); values are text except `number`; an
  optional number left empty is 0; a required input missing or empty fails before the run starts. A `secret`
  bound to its sites (`domains`) is `<secret:name>` in the variables: only the typing operations fill it in,
  where its binding allows (workflows/secret_binding.py); anywhere else the operation refuses it.
- A loop pass walks every entry node of the body (nodes no edge leads to) in order.

Page nodes call the page operations (through `OperationsPort`, the operations registry's typed call, naming
each by its `Op` in workflows/operations.py) and nothing else; they read the answers' fields (`Envelope`).
Locators with alternatives are tried in order and the trace records which one matched. A failed node ends
the run with the node, an error a person can act on, and a screenshot; a person's Take over pauses the run
until they click Done (Resume), at most 10 minutes (the original just carries on: we wait on purpose).
A run whose trace or video is on records them through the browser's `TracePort` (workflows/tracing.py): each
node is a step, and at the end they are kept in the run's folder, or dropped, by their modes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NoReturn, Protocol, TypeVar

from plumbing import loggers
from plumbing.atomic import move_file
from plumbing.savemanager import in_thread
from workflows.document import WorkflowDocument
from workflows.envelope import Envelope, Result
from workflows.nodes import Condition, Graph, Node, NodeFailed, NodeLocator, compare
from workflows.nodes.conditions import UnknownOperator
from workflows.nodes.flow import EndData
from workflows.nodes.values import number_from_text
from workflows.operations import (NET_EXPORT, PAGE_FIND, PAGE_HANDOFF, PAGE_HEAL_MODEL, PAGE_LOCK, PAGE_QUERY,
                                  PAGE_SCREENSHOT, PAGE_SETTLE, Op, OperationsPort)
from workflows.ports import Locator
from workflows.redaction import Redactor, redacting_logs
from workflows.results import FindResult
from workflows.repairs import target_key
from workflows.runs import RunRecord, TraceEntry, now
from workflows.secret_binding import SecretBinding, placeholder
from workflows.template import Variables, VariableError, js_text
from workflows.tracing import RunTrace, TraceMode, TracePort, TraceRequest, keeps

log = logging.getLogger(loggers.WORKFLOWS)

DEFAULT_TIMEOUT = 10.0
SETTLE_TIMEOUT = 10.0
HANDOFF_TIMEOUT = 600.0
PRESENCE_POLL = 0.1
PAUSE_MESSAGE = "The workflow is paused because you took over. Click Done to resume it from where it stopped."

__all__ = ["CodePort", "Executor", "NodeFailed", "RunSettings", "RunTakenOver", "compare", "cut_off_error"]

R = TypeVar("R", bound=Result)


TabState = Callable[[str], "tuple[str, str] | None"]
"""A tab's address and title now, by tab id (None when it is gone): the browser's `tab_state`."""


class CodePort(Protocol):
    """Runs a `code` node's JavaScript in an isolated engine (no network, no page, no app) with a time
    limit that also stops `while (true) {}`; returns the JSON value of the body's `return`."""

    async def __call__(self, code: str, inputs: dict[str, Any], timeout: float) -> Any: ...


class RunTakenOver(Exception):
    """A person took over and did not resume within 10 minutes."""


class _Retry(Exception):
    """Run the same node again (after a person resumed)."""


@dataclass
class RunSettings:
    env_id: str
    tab_id: str
    folder: Path  # runs/<run-id>/: made by the first file written into it (off the Qt thread, as every write)
    default_timeout: float = DEFAULT_TIMEOUT
    secret_values: dict[str, str] = field(default_factory=dict)
    settle_timeout: float = SETTLE_TIMEOUT  # what the run's tabs have in flight at its end may land this long
    # Secret inputs bound to their sites: the run's variables hold `<secret:name>`, which the operations fill
    # in only when typed into a field of such a site (the run's operations port carries the same binding).
    secrets: SecretBinding | None = None
    # The run's trace and video (workflows/tracing.py): their modes, and the browser that records them.
    trace: TraceMode = "off"
    video: TraceMode = "off"
    tracer: TracePort | None = None


@dataclass
class _Level:
    """One walk of a graph level: the top of the run, or one loop pass."""

    graph: Graph
    outputs: dict[str, Any] = field(default_factory=dict)   # what `end` nodes collected
    produced: str | None = None                             # the last node that produced an output


class Executor:
    """Runs one workflow document on one tab and fills in its run record."""

    def __init__(self, doc: WorkflowDocument, ops: OperationsPort, code: CodePort, tab_state: TabState,
                 settings: RunSettings, record: RunRecord, on_progress: Callable[[RunRecord], None] | None = None,
                 on_event: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self.doc = doc
        self.tab_state = tab_state
        self.on_event = on_event
        self.ops = ops
        self.code = code
        self.settings = settings
        self.record = record
        self.on_progress = on_progress
        self.variables = Variables()
        self.tabs_used = [settings.tab_id]  # the run's tab, then any tab a node followed into
        # Secret inputs: every form of their values leaves the record, the events, the HAR and the logs.
        self.redact = Redactor.by_name(settings.secret_values)
        self.recording: RunTrace | None = None  # the run's trace and video, when either is on

    # -- the run -----------------------------------------------------------------------------------------
    async def run(self, inputs: dict[str, Any]) -> RunRecord:
        with redacting_logs(self.redact):
            return await self._run(inputs)

    async def _run(self, inputs: dict[str, Any]) -> RunRecord:
        record = self.record
        started = time.perf_counter()
        self.variables = Variables({
            "sys": {"env": self.settings.env_id, "tabId": self.settings.tab_id, "url": "", "title": ""},
            "env": self.doc.env_values(),
        })
        self.recording = self._start_recording()
        try:
            try:
                self.variables.set("input", self._check_inputs(inputs))
                self._sync_sys()
                top = _Level(self.doc.graph)
                await self._walk(top, self.doc.graph.start_node().id, set())
                record.outputs = top.outputs or self._produced_output(top)
                record.status = "ok"
            except NodeFailed as failure:
                record.status = "failed"
                record.stopped_at = failure.node.id
                record.error = f"{_node_label(failure.node)}: {failure}"
                record.screenshot = failure.screenshot or await self._screenshot()
                record.har = await self._export_har()
            except RunTakenOver as exc:
                record.status = "taken_over"
                record.error = str(exc)
            except asyncio.CancelledError:
                record.status = "cancelled"
                record.error = "the run was cancelled"
            except VariableError as exc:  # an input problem before any node ran
                record.status = "failed"
                record.error = str(exc)
            except Exception as exc:  # a defect of ours: still end the run with a record that says so
                log.exception("run %s failed unexpectedly", record.id)
                record.status = "failed"
                record.error = f"internal error: {type(exc).__name__}: {exc}"
            if record.status != "cancelled":
                try:
                    await self._settle()
                except asyncio.CancelledError:
                    record.status = "cancelled"
                    record.error = "the run was cancelled while its last requests were still in flight"
        finally:
            record.ended_at = now()
            record.duration_ms = round((time.perf_counter() - started) * 1000, 1)
            await self._finish_recording()  # (not part of the run's duration: the video ends with the run)
            title = self.variables.namespace("sys")[1].get("title") if self.variables.namespace("sys")[0] else None
            record.title = self.redact(title)
            record.notes = self.redact(record.notes)
            record.outputs = self.redact(record.outputs)
            record.error = self.redact(record.error)
            for entry in record.trace:
                entry.error = self.redact(entry.error)
                if entry.console or entry.page_errors or entry.requests:
                    entry.console, entry.page_errors, entry.requests = self.redact(
                        [entry.console, entry.page_errors, entry.requests])
            record.pending_at_end = self.redact(record.pending_at_end)
        return record

    # -- the trace and the video (workflows/tracing.py) ------------------------------------------------------
    def _start_recording(self) -> RunTrace | None:
        settings = self.settings
        if settings.tracer is None or (settings.trace == "off" and settings.video == "off"):
            return None
        self.record.tracing = {"trace": settings.trace, "video": settings.video}
        secrets = {value: placeholder(name) for name, value in settings.secret_values.items() if value}
        try:
            return settings.tracer.start(TraceRequest(
                run_id=self.record.id, tab_id=settings.tab_id, folder=settings.folder,
                screenshots=settings.trace != "off", video=settings.video != "off",
                trace_always=settings.trace == "always", secrets=secrets))
        except Exception:  # noqa: BLE001 - a recording that cannot start does not stop the run
            log.exception("run %s: its trace could not start", self.record.id)
            self.record.notes.append("the trace could not start (see the log)")
            return None

    async def _finish_recording(self) -> None:
        """Stop the trace and video; keep them in the run's folder by their modes and the run's status. A
        cancelled run still stops its recording (a video being written must end)."""
        if self.recording is None:
            return
        recording, self.recording = self.recording, None
        settings, record = self.settings, self.record
        finishing = asyncio.ensure_future(recording.finish(keeps(settings.trace, record.status),
                                                           keeps(settings.video, record.status)))
        try:
            result = await asyncio.shield(finishing)
        except asyncio.CancelledError:
            result = await finishing  # the run is being cancelled: its recording still ends, and is kept
        except Exception:  # noqa: BLE001 - a trace that could not be written does not change the run's outcome
            log.exception("run %s: its trace could not be written", record.id)
            record.notes.append("the trace could not be written (see the log)")
            return
        for index, step in result.steps.items():
            if 0 <= index < len(record.trace):
                entry = record.trace[index]
                entry.at_ms, entry.before, entry.after = step.at_ms, step.before, step.after
                entry.box, entry.element = step.box, step.element
                entry.console = step.console or None
                entry.page_errors = step.page_errors or None
                entry.requests = step.requests or None
        record.video = result.video
        record.notes.extend(result.notes)

    async def _settle(self) -> None:
        """Let what the run's tabs still have in flight (the navigation or `fetch` the last click started, the
        Save a single-page app sends a moment after it) land before anyone closes them or the process ends
        (`page_settle`); what is cut off at the bound is listed in the record (`pendingAtEnd`), and when the
        last action started it, the run does not end "ok": it fails naming what it was still waiting for."""
        bound = self.settings.settle_timeout
        for tab_id in dict.fromkeys(self.tabs_used):
            answer = await self.ops(PAGE_SETTLE, {"tabId": tab_id, "timeoutMs": int(bound * 1000)})
            if not answer.ok:
                log.info("run %s: could not wait for tab %s: %s", self.record.id, tab_id, answer.error)
                continue
            for item in answer.result.pending:
                self.record.pending_at_end.append({"tabId": tab_id, **item})
        if not self.record.pending_at_end:
            return
        self.record.notes.append(f"{len(self.record.pending_at_end)} request(s) were still in flight when the "
                                 f"run ended, after waiting {bound:g} s (pendingAtEnd)")
        cut = cut_off_error(self.record.pending_at_end, bound)
        if cut is not None and self.record.status == "ok":
            self.record.status = "failed"
            self.record.error = cut
            self.record.screenshot = await self._screenshot()

    def _produced_output(self, level: _Level) -> dict[str, Any]:
        if level.produced is None:
            return {}
        value = self.variables.get(level.produced)
        return dict(value) if isinstance(value, dict) else {}

    def _check_inputs(self, given: dict[str, Any]) -> dict[str, Any]:
        """The `input` namespace: declared inputs only, as text (numbers as numbers)."""
        inputs: dict[str, Any] = {}
        declared = self.doc.start_variables()
        names = {variable.variable for variable in declared}
        ignored = sorted(set(given) - names)
        if ignored:
            self.record.notes.append(f"ignored input(s) the workflow does not declare: {', '.join(ignored)}")
        for variable in declared:
            value = given.get(variable.variable)
            default = getattr(variable, "default", None)  # ours: a recorded value, used when none is given
            if value in (None, "") and default not in (None, ""):
                value = default
            if value in (None, "") and variable.required:
                raise VariableError(f"the input {variable.variable!r} is required")
            if variable.kind == "number":
                inputs[variable.variable] = _number_input(variable.variable, value)
                continue
            if self.settings.secrets is not None and variable.variable in self.settings.secrets:
                inputs[variable.variable] = placeholder(variable.variable)  # filled in only where it may be typed
                continue
            if variable.kind in ("select", "radio") and variable.option_texts and value not in (None, "") \
                    and js_text(value) not in variable.option_texts:
                raise VariableError(f"the input {variable.variable!r} must be one of {', '.join(variable.option_texts)}")
            inputs[variable.variable] = js_text(value)
        return inputs

    async def _walk(self, level: _Level, node_id: str, ran: set[str]) -> None:
        """Run a node, then each branch leaving it in turn (depth first, as the original)."""
        node = level.graph.get(node_id)
        if node is None:
            raise NodeFailed(Node.model_construct(id=node_id, data=None), f"there is no node {node_id!r} here")
        if node_id in ran:
            raise NodeFailed(node, "this node was reached twice in one run (workflows cannot cycle or merge "
                                   "branches that both ran)")
        ran.add(node_id)
        handle = await self._run_node(node, level)
        if isinstance(node.data, EndData):
            return
        for target in level.graph.outgoing(node_id, handle):
            await self._walk(level, target, ran)

    async def _run_node(self, node: Node, level: _Level) -> str:
        """Run one node; store its output under its id; return the handle it leaves by."""
        entry = TraceEntry(node=node.id, type=node.type, title=node.data.title, start=now(), ms=0.0, ok=False)
        self.record.trace.append(entry)
        if self.recording is not None:
            self.recording.step(len(self.record.trace) - 1, self.settings.tab_id,
                                f"{node.data.title or node.id} ({node.type})")
        started = time.perf_counter()
        context = _NodeRun(self, node, level, entry)
        self._event("node_started", node=node.id, node_type=node.type, tab_id=self.settings.tab_id)
        output: Any = None
        try:
            while True:
                try:
                    output = await node.data.run(context)
                    break
                except _Retry:
                    continue
            if output is not None:
                self.variables.set(node.id, output)
            if node.data.produces_output:
                level.produced = node.id
            entry.ok = True
            if not isinstance(node.data, EndData):
                self._sync_sys()
            return context.handle
        except NodeFailed as failure:
            entry.error = str(failure)
            raise
        except (VariableError, UnknownOperator) as exc:
            entry.error = str(exc)
            raise NodeFailed(node, str(exc)) from None
        finally:
            entry.ms = round((time.perf_counter() - started) * 1000, 1)
            self._event("node_finished", node=node.id, node_type=node.type, ms=entry.ms,
                        status="ok" if entry.ok else "failed", output=self.redact(output) if entry.ok else None,
                        error=self.redact(entry.error), handle=context.handle if node.type == "if-else" else None,
                        healed=entry.healed)
            if self.on_progress is not None:
                self.on_progress(self.record)

    def _event(self, kind: str, **fields: Any) -> None:
        if self.on_event is not None:
            self.on_event(kind, fields)

    async def run_pass(self, loop: Node, body: Graph, index: int) -> dict[str, Any]:
        """One pass of a loop body: every entry node walked in order; its result (see the module docstring)."""
        self._event("loop_pass", loop=loop.id, index=index)
        level = _Level(body)
        for entry in body.entry_nodes():
            await self._walk(level, entry.id, set())
        return level.outputs or self._produced_output(level)

    def _sync_sys(self) -> None:
        """`sys.url` and `sys.title` as the run's tab shows them now (read from the browser, not asked of the
        page: no operation per node)."""
        found, values = self.variables.namespace("sys")
        if not found:
            return
        state = self.tab_state(self.settings.tab_id)
        if state is not None:
            values["url"], values["title"] = state

    # -- calling operations ------------------------------------------------------------------------------
    async def call(self, node: Node, op: Op[R], params: dict[str, Any], *, resumable: bool = True) -> Envelope[R]:
        """Call an operation on the run's tab for a node: a person's Take over pauses the run (and the node runs
        again when the operation failed meanwhile); a failure fails the node with its screenshot; a tab the
        operation opened is followed when the node says so."""
        answer = await self.ops(op, {"tabId": self.settings.tab_id, **params})
        if answer.taken_over:
            self.record.taken_over = True
            await self._pause(node)
            if not answer.ok and resumable:
                raise _Retry()
        if not answer.ok:
            raise NodeFailed(node, str(answer.error), await self.keep(answer.error_shot))
        if answer.new_tabs and node.data.follows_new_tab:
            await self._follow(node, answer.new_tabs[-1])
        return answer

    async def _follow(self, node: Node, tab_id: str) -> None:
        """The node's click opened a tab: the rest of the run acts in it (as the recording did)."""
        log.info("run %s follows %s into the new tab %s", self.record.id, node.id, tab_id)
        self.settings.tab_id = tab_id
        self.tabs_used.append(tab_id)
        found, values = self.variables.namespace("sys")
        if found:
            values["tabId"] = tab_id
        await self.ops(PAGE_LOCK, {"tabId": tab_id})  # the run's tab is the agent's, as at the start

    async def _pause(self, node: Node) -> None:
        """The person took over: wait (at most 10 minutes) for them to click Done, then carry on."""
        log.info("run %s paused at %s: taken over", self.record.id, node.id)
        answer = await self.ops(PAGE_HANDOFF, {"tabId": self.settings.tab_id, "message": PAUSE_MESSAGE,
                                               "wait": True, "timeoutMs": int(HANDOFF_TIMEOUT * 1000)})
        if not answer.ok:
            raise RunTakenOver(f"a person took over at {_node_label(node)} and did not resume within 10 minutes")
        log.info("run %s resumed at %s", self.record.id, node.id)

    async def keep(self, path: str | None) -> str | None:
        """Move a failure's screenshot into the run folder; where it is when it cannot be moved."""
        if not path:
            return path
        try:
            return await self.take_file(path, f"failure-{Path(path).name}")
        except FileNotFoundError:
            return path

    async def keep_as(self, path: str, name: str) -> str | None:
        """Move a file into the run folder as `name`; None when it cannot be moved."""
        try:
            return await self.take_file(path, name)
        except OSError:
            return None

    async def take_file(self, path: str, name: str | None = None) -> str:
        """Move a file into the run folder as `name` (default: its own name), on a worker thread: the Qt thread
        never waits for the disk."""
        target = self.settings.folder / (name or Path(path).name)
        await in_thread(move_file, Path(path), target)
        return str(target)

    async def _screenshot(self) -> str | None:
        answer = await self.ops(PAGE_SCREENSHOT, {"tabId": self.settings.tab_id})
        return await self.keep(answer.result.path) if answer.ok else None

    async def _export_har(self) -> str | None:
        answer = await self.ops(NET_EXPORT, {"tabId": self.settings.tab_id, "ifCapturing": True,
                                             "path": str(self.settings.folder / "network.har"),
                                             "redact": {value: f"<secret:{name}>" for name, value
                                                        in self.settings.secret_values.items()}})
        return (answer.result.path or None) if answer.ok else None

    async def locate(self, locator: NodeLocator, entry: TraceEntry, timeout: float, node: Node | None = None
                     ) -> dict[str, Any]:
        """The first candidate that names exactly one element now (one look at the page, its shadow roots and
        frames together: `page_find`); with one candidate and no fingerprint, that one (the operation itself
        waits for it). When none does and the locator has a fingerprint, the element it heals to (recorded in
        `entry.healed`); when nothing fits clearly until `timeout`, the node fails naming the best candidates."""
        candidates = [(c.source, self.render_locator(c.locator)) for c in locator.labeled_candidates()]
        fingerprint = locator.fingerprint if locator.fingerprint and locator.fingerprint.get("kind") else None
        if len(candidates) == 1 and fingerprint is None:
            entry.locator = candidates[0][0]
            return candidates[0][1]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last: FindResult | None = None
        while True:
            answer = await self.ops(PAGE_FIND, {"tabId": self.settings.tab_id,
                                                "locators": [c for _, c in candidates], "fingerprint": fingerprint})
            found = answer.result if answer.ok else None
            if found is not None and found.status == "found" and found.index is not None:
                entry.locator = candidates[found.index][0]
                return candidates[found.index][1]
            if found is not None and found.status == "healed" and found.ref:
                return await self._healed(locator, entry, found.ref, found.locator, found.desc, found.score,
                                          found.why, by_model=False)
            if found is not None:
                last = found
            if loop.time() >= deadline:
                if fingerprint is None or node is None:
                    entry.locator = candidates[0][0] if candidates else None
                    if candidates:
                        return candidates[0][1]  # let the operation report what is wrong with the first one
                message = _not_found(locator, last, timeout)
                asked = await self.ops(PAGE_HEAL_MODEL, {
                    "tabId": self.settings.tab_id, "fingerprint": fingerprint, "nodeType": node.type,
                    "title": node.data.title or "", "redact": list(self.settings.secret_values.values())})
                if asked.ok:
                    healed = asked.result
                    return await self._healed(locator, entry, healed.ref, healed.locator, healed.desc, None,
                                              healed.reason, by_model=True)
                if asked.code != "no_model":
                    message += f"; the model was asked: {asked.error}"
                raise NodeFailed(node, message, None)
            await asyncio.sleep(PRESENCE_POLL)

    async def _healed(self, locator: NodeLocator, entry: TraceEntry, ref: str, found: dict[str, Any] | None,
                      desc: str | None, score: float | None, why: str | None, by_model: bool) -> dict[str, Any]:
        """Record a heal to the element `ref` (`found`: its new locator; the trace entry, the run's index, a
        screenshot of the element); its ref locator."""
        entry.locator = "model" if by_model else "fingerprint"
        to = _plain(found or {})
        entry.healed = {"from": locator.label(), "to": to, "score": score, "why": why, "element": desc}
        if by_model:
            entry.healed["byModel"] = True
        shot = await self.ops(PAGE_SCREENSHOT, {"tabId": self.settings.tab_id, "outline": {"ref": ref}})
        if shot.ok and shot.result.path:
            entry.healed["shot"] = await self.keep_as(shot.result.path, f"healed-{entry.node}.png")
        self.record.healed.append({"node": entry.node, "key": target_key(to), **({"byModel": True} if by_model else {})})
        log.info("run %s healed %s%s: %s -> %s (score %s: %s)", self.record.id, entry.node,
                 " by the model" if by_model else "", locator.label(), desc, score, why)
        return {"ref": ref}

    def render_locator(self, locator: Locator) -> dict[str, Any]:
        return {key: js_text(self.variables.render(value))
                for key, value in locator.model_dump(exclude_none=True).items()}

    async def wait_presence(self, locators: list[dict[str, Any]], present: bool, timeout: float) -> bool:
        """Wait until one of the locators matches an element in the page (`present`), or none does; the
        original's rule: in the document, visible or not. False after `timeout` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, timeout)
        while True:
            counts = []
            for locator in locators:
                answer = await self.ops(PAGE_QUERY, {"tabId": self.settings.tab_id, "locator": locator})
                counts.append(answer.result.count if answer.ok else 0)
            if (any(counts) if present else not any(counts)):
                return True
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(PRESENCE_POLL)

    async def condition(self, condition: Condition) -> bool:
        operator = condition.operator()
        if operator == "locator":
            target = condition.target_locator()
            if target is None:
                raise UnknownOperator("the locator condition has no locator")
            candidates = [self.render_locator(candidate) for candidate in target.candidates()]
            return await self.wait_presence(candidates, True, condition.wait_ms() / 1000)
        if condition.variable_selector is None:
            raise VariableError(f'the condition "{operator}" has no variable_selector')
        value = self.variables.resolve(condition.variable_selector)
        expected = self.variables.render(condition.value) if isinstance(condition.value, str) else ""
        return compare(operator, value, expected)


class _NodeRun:
    """The `RunContext` one node sees while it runs (workflows.nodes.base.RunContext)."""

    def __init__(self, executor: Executor, node: Node, level: _Level, entry: TraceEntry) -> None:
        self._executor = executor
        self._level = level
        self._entry = entry
        self.node = node
        self.graph = level.graph
        self.variables = executor.variables
        self.tab_id = executor.settings.tab_id
        self.env_id = executor.settings.env_id
        self.handle = "source"

    @property
    def folder(self) -> Path:
        return self._executor.settings.folder

    @property
    def default_timeout(self) -> float:
        return self._executor.settings.default_timeout

    def fail(self, message: str, screenshot: str | None = None) -> NoReturn:
        raise NodeFailed(self.node, message, screenshot)

    def render(self, text: Any) -> str:
        return js_text(self.variables.render(text))

    async def op(self, op: Op[R], params: dict[str, Any], *, resumable: bool = True) -> Envelope[R]:
        return await self._executor.call(self.node, op, params, resumable=resumable)

    async def try_op(self, op: Op[R], params: dict[str, Any]) -> Envelope[R]:
        return await self._executor.ops(op, {"tabId": self.tab_id, **params})

    async def locate(self, locator: NodeLocator, timeout: float) -> dict[str, Any]:
        return await self._executor.locate(locator, self._entry, timeout, self.node)

    def render_locator(self, locator: NodeLocator | Locator) -> dict[str, Any]:
        if isinstance(locator, NodeLocator):
            found = locator.candidates()
            first = found[0] if found else Locator(selector=locator.label())
        else:
            first = locator
        return self._executor.render_locator(first)

    def acting_timeout_ms(self) -> int:
        timeout = getattr(self.node.data, "timeout", None)
        return int((float(timeout) if timeout else self.default_timeout) * 1000)

    async def wait_presence(self, locators: list[dict[str, Any]], present: bool, timeout: float) -> bool:
        return await self._executor.wait_presence(locators, present, timeout)

    async def condition(self, condition: Condition) -> bool:
        return await self._executor.condition(condition)

    async def code(self, source: str, inputs: dict[str, Any], timeout: float) -> Any:
        return await self._executor.code(source, inputs, timeout)

    async def run_pass(self, body: Graph, index: int) -> dict[str, Any]:
        return await self._executor.run_pass(self.node, body, index)

    def take_handle(self, handle: str) -> None:
        self.handle = handle

    def collect_outputs(self, outputs: dict[str, Any]) -> None:
        self._level.outputs.update(outputs)

    def add_file(self, path: str) -> None:
        self._executor.record.files.append(path)

    async def keep(self, path: str | None) -> str | None:
        return await self._executor.keep(path)

    async def take_file(self, path: str, name: str | None = None) -> str:
        return await self._executor.take_file(path, name)


# -- helpers ---------------------------------------------------------------------------------------------
def _plain(locator: dict[str, Any]) -> dict[str, Any]:
    """A healed element's new locator as a node keeps it (primary, alternatives, fingerprint)."""
    return {k: locator[k] for k in ("selector", "xpath", "alternatives", "fingerprint") if locator.get(k)}


def _not_found(locator: NodeLocator, last: FindResult | None, timeout: float) -> str:
    """Why a node with a fingerprint found no element: what no locator matched, what was refused, and the
    best candidates with their scores (`last`: the last answer of `page_find`)."""
    parts = [f'no element matches "{locator.label()}" after waiting {timeout:g} s']
    rejected = (last.rejected if last is not None else None) or []
    for refused in {f"refused {r.get('desc')}: {r.get('why')}": None for r in rejected}:
        parts.append(refused)
    candidates = (last.candidates if last is not None else None) or []
    if candidates:
        listed = "; ".join(f"{c.get('desc')} {c.get('score')} ({', '.join(c.get('why') or []) or 'nothing alike'})"
                           for c in candidates[:5])
        verdict = ("no candidate is clearly better than the next" if last is not None and last.status == "unsure"
                   else "no candidate is alike enough")
        parts.append(f"{verdict}: {listed}")
    else:
        parts.append(f"and no element of its kind ({(locator.fingerprint or {}).get('kind')}) is on the page")
    blocked = (last.blocked if last is not None else None) or []
    parts.extend(str(note) for note in blocked)  # frames the domain policy kept from loading
    return "; ".join(parts)


def cut_off_error(pending: list[dict[str, Any]], bound: float) -> str | None:
    """Why a run (or an agent's task) cannot say "ok" when what its last action started was cut off at the
    settle bound (`page_settle` marks it `lastAction`), naming what it was still waiting for; None otherwise."""
    cut = [item for item in pending if item.get("lastAction")]
    if not cut:
        return None
    listed = "; ".join(_in_flight(item) for item in cut[:5]) + (f" and {len(cut) - 5} more" if len(cut) > 5 else "")
    return f"what the last action started did not finish within {bound:g} s, so it may not have happened: " \
           f"still waiting for {listed}"


def _in_flight(item: dict[str, Any]) -> str:
    """One request still in flight, as a person reads it: `POST http://…/save (fetch, 10012 ms)`."""
    where = f" in the frame {item['frame']}" if item.get("frame") else ""
    waited = f", {item['ms']} ms" if isinstance(item.get("ms"), (int, float)) else ""
    return f"{item.get('method', 'GET')} {item.get('url', '?')} ({item.get('kind', 'request')}{where}{waited})"


def _node_label(node: Node) -> str:
    title = f" {node.data.title!r}" if node.data is not None and node.data.title else ""
    kind = node.data.type if node.data is not None else "?"
    return f"node {node.id!r} ({kind}{title})"


def _number_input(name: str, value: Any) -> int | float:
    """JavaScript's `Number(value ?? 0)`, except that text which is not a number is an error here."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    number = number_from_text(str(value))
    if number is None:
        raise VariableError(f"the input {name!r} must be a number, not {value!r}")
    return number
