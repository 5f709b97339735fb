"""The executor: walks a workflow's graph and runs each node, deterministically, with no model in the loop.

Page nodes call the page operations (through `OperationsPort`, the operations registry) and nothing else.
Locators with alternatives are tried in order and the trace records which one matched. A failed node ends
the run with the node, an error a person can act on, and a screenshot; a person's Take over pauses the run
until they click Done (Resume), at most 10 minutes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from workflows.document import WorkflowDocument
from workflows.export import write_export
from workflows.nodes import Condition, Graph, Node, NodeLocator
from workflows.ports import Locator
from workflows.runs import RunRecord, TraceEntry, now, redact
from workflows.template import Variables, VariableError, as_text

log = logging.getLogger("browserpilot.workflows")

DEFAULT_TIMEOUT = 10.0
HANDOFF_TIMEOUT = 600.0
CODE_TIMEOUT = 30.0
CAPTCHA_SELECTORS = (
    "iframe[src*='recaptcha'], .g-recaptcha, iframe[src*='hcaptcha.com'], .h-captcha, .cf-turnstile, "
    "iframe[src*='challenges.cloudflare.com'], .geetest_holder, .geetest_panel, [class^='geetest_']"
)
PAUSE_MESSAGE = "The workflow is paused because you took over. Click Done to resume it from where it stopped."


class OperationsPort(Protocol):
    """The operations registry as the engine sees it: an envelope for every call, never an exception."""

    async def __call__(self, name: str, params: dict[str, Any]) -> dict[str, Any]: ...


class CodePort(Protocol):
    """Runs a `code` node's JavaScript in an isolated engine (no network, no page, no app) with a time
    limit that also stops `while (true) {}`; returns the JSON value of the body's `return`."""

    async def __call__(self, code: str, inputs: dict[str, Any], timeout: float) -> Any: ...


class NodeFailed(Exception):
    def __init__(self, node: Node, message: str, screenshot: str | None = None) -> None:
        super().__init__(message)
        self.node = node
        self.screenshot = screenshot


class RunTakenOver(Exception):
    """A person took over and did not resume within 10 minutes."""


@dataclass
class RunSettings:
    env_id: str
    tab_id: str
    folder: Path
    default_timeout: float = DEFAULT_TIMEOUT
    secret_values: dict[str, str] = field(default_factory=dict)


class Executor:
    """Runs one workflow document on one tab and fills in its run record."""

    def __init__(self, doc: WorkflowDocument, ops: OperationsPort, code: CodePort, settings: RunSettings,
                 record: RunRecord, on_progress: Callable[[RunRecord], None] | None = None) -> None:
        self.doc = doc
        self.ops = ops
        self.code = code
        self.settings = settings
        self.record = record
        self.on_progress = on_progress
        self._handoff_pending = False

    # -- the run -----------------------------------------------------------------------------------------
    async def run(self, inputs: dict[str, Any]) -> RunRecord:
        record = self.record
        started = time.perf_counter()
        self.settings.folder.mkdir(parents=True, exist_ok=True)
        variables = Variables({
            "sys": {"env": self.settings.env_id, "tabId": self.settings.tab_id, "url": "", "title": ""},
            "env": self.doc.env_values(),
        })
        try:
            variables.set("input", self._check_inputs(inputs))
            await self._walk(self.doc.graph, variables, set())
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
        finally:
            record.ended_at = now()
            record.duration_ms = round((time.perf_counter() - started) * 1000, 1)
            record.outputs = redact(record.outputs, self.settings.secret_values)
            record.error = redact(record.error, self.settings.secret_values)
            for entry in record.trace:
                entry.error = redact(entry.error, self.settings.secret_values)
        return record

    def _check_inputs(self, given: dict[str, Any]) -> dict[str, Any]:
        inputs: dict[str, Any] = {}
        declared = self.doc.start_variables()
        names = {variable.variable for variable in declared}
        unknown = sorted(set(given) - names)
        if unknown and declared:
            raise VariableError(f"unknown input(s) {', '.join(unknown)}; the workflow asks for "
                                f"{', '.join(sorted(names)) or 'nothing'}")
        for variable in declared:
            value = given.get(variable.variable)
            if value in (None, "") and variable.required:
                raise VariableError(f"the input {variable.variable!r} is required")
            if variable.kind == "number" and value not in (None, ""):
                try:
                    value = float(value) if "." in str(value) else int(value)
                except ValueError:
                    raise VariableError(f"the input {variable.variable!r} must be a number, not {value!r}") from None
            if variable.kind in ("select", "radio") and variable.options and value not in (None, "") \
                    and str(value) not in variable.options:
                raise VariableError(f"the input {variable.variable!r} must be one of {', '.join(variable.options)}")
            if variable.kind == "checkbox" and isinstance(value, str):
                value = value.strip().lower() in ("1", "true", "yes", "on")
            inputs[variable.variable] = value if value is not None else ""
        for name in unknown:
            inputs[name] = given[name]
        return inputs

    async def _walk(self, graph: Graph, variables: Variables, visited: set[str]) -> None:
        """Run from the graph's entry node, following edges (an if-else follows the matching handle)."""
        pending = [graph.start_node().id]
        while pending:
            node_id = pending.pop(0)
            if node_id in visited:
                raise NodeFailed(graph.node(node_id), "this node was reached twice in one run (a cycle through "
                                                      "the graph's edges)")
            visited.add(node_id)
            node = graph.node(node_id)
            handle = await self._run_node(node, graph, variables)
            if node.type == "end":
                return
            pending = graph.successors(node.id, handle) + pending

    async def _run_node(self, node: Node, graph: Graph, variables: Variables) -> str | None:
        """Run one node; store its output under its id; return the if-else handle taken (else None)."""
        entry = TraceEntry(node=node.id, type=node.type, title=node.data.title, start=now(), ms=0.0, ok=False)
        self.record.trace.append(entry)
        started = time.perf_counter()
        handle: str | None = None
        try:
            while True:
                try:
                    output, handle = await self._dispatch(node, graph, variables, entry)
                    break
                except _Retry:
                    continue
            if output is not None:
                variables.set(node.id, output)
            entry.ok = True
            return handle
        except NodeFailed as failure:
            entry.error = str(failure)
            raise
        except VariableError as exc:
            entry.error = str(exc)
            raise NodeFailed(node, str(exc)) from None
        finally:
            entry.ms = round((time.perf_counter() - started) * 1000, 1)
            if self.on_progress is not None:
                self.on_progress(self.record)

    # -- calling operations ------------------------------------------------------------------------------
    async def _op(self, node: Node, name: str, params: dict[str, Any], *, resumable: bool = True) -> dict[str, Any]:
        result = await self.ops(name, {"tabId": self.settings.tab_id, **params})
        if result.get("takenOver"):
            self.record.taken_over = True
            await self._pause(node)
            if not result.get("ok") and resumable:
                raise _Retry()
        if not result.get("ok"):
            raise NodeFailed(node, str(result.get("error")), self._keep(result.get("errorShot")))
        return result

    async def _pause(self, node: Node) -> None:
        """The person took over: wait (at most 10 minutes) for them to click Done, then carry on."""
        log.info("run %s paused at %s: taken over", self.record.id, node.id)
        result = await self.ops("page_handoff", {"tabId": self.settings.tab_id, "message": PAUSE_MESSAGE,
                                                 "wait": True, "timeoutMs": int(HANDOFF_TIMEOUT * 1000)})
        if not result.get("ok"):
            raise RunTakenOver(f"a person took over at {_node_label(node)} and did not resume within 10 minutes")
        log.info("run %s resumed at %s", self.record.id, node.id)

    def _keep(self, path: str | None) -> str | None:
        """Move a screenshot into the run folder."""
        if not path or not Path(path).exists():
            return path
        target = self.settings.folder / f"failure-{Path(path).name}"
        shutil.move(path, target)
        return str(target)

    async def _screenshot(self) -> str | None:
        result = await self.ops("page_screenshot", {"tabId": self.settings.tab_id})
        return self._keep(result.get("path")) if result.get("ok") else None

    async def _export_har(self) -> str | None:
        result = await self.ops("net_export", {"tabId": self.settings.tab_id, "ifCapturing": True,
                                               "path": str(self.settings.folder / "network.har"),
                                               "redact": {value: f"<secret:{name}>" for name, value
                                                          in self.settings.secret_values.items()}})
        return result.get("path") if result.get("ok") and result.get("path") else None

    def _timeout(self, node: Node) -> float:
        timeout = getattr(node.data, "timeout", None)
        if self._handoff_pending:
            return HANDOFF_TIMEOUT
        return float(timeout) if timeout else self.settings.default_timeout

    async def _locate(self, node: Node, locator: NodeLocator, entry: TraceEntry, timeout: float,
                      variables: Variables) -> dict[str, Any]:
        """The first alternative that names exactly one element now; with one alternative, that one (the
        operation itself waits for it)."""
        candidates = [(c.source, _render_locator(c.locator, variables)) for c in locator.labeled_candidates()]
        if len(candidates) == 1:
            entry.locator = candidates[0][0]
            return candidates[0][1]
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for source, candidate in candidates:
                found = await self.ops("page_query", {"tabId": self.settings.tab_id, "locator": candidate})
                if found.get("ok") and found.get("count") == 1:
                    entry.locator = source
                    return candidate
            if asyncio.get_running_loop().time() >= deadline:
                entry.locator = candidates[0][0]
                return candidates[0][1]  # let the operation report what is wrong with the first one
            await asyncio.sleep(0.1)

    def _acting_timeout_ms(self, node: Node) -> int:
        timeout = self._timeout(node)
        self._handoff_pending = False
        return int(timeout * 1000)

    # -- node types --------------------------------------------------------------------------------------
    async def _dispatch(self, node: Node, graph: Graph, variables: Variables,
                        entry: TraceEntry) -> tuple[Any, str | None]:
        data = node.data
        kind = node.type
        render = variables.render
        if kind == "start":
            return variables.namespace("input")[1], None
        if kind == "end":
            outputs = {out.variable: variables.resolve(out.value_selector) for out in data.outputs}
            self.record.outputs = outputs
            return outputs, None
        if kind == "if-else":
            for case in data.cases:
                results = [await self._condition(node, condition, variables) for condition in case.conditions]
                if (any(results) if case.logical_operator == "or" else all(results)):
                    return {"case": case.case_id}, case.case_id
            return {"case": "false"}, "false"
        if kind == "loop":
            return await self._loop(node, variables), None
        if kind == "goto":
            result = await self._op(node, "page_navigate", {"url": render(data.url),
                                                            "timeoutMs": int(max(self._timeout(node), 30) * 1000)})
            self._update_sys(variables, result)
            return {"url": result.get("url"), "title": result.get("title"), "status": result.get("status")}, None
        if kind == "click":
            timeout_ms = self._acting_timeout_ms(node)
            params: dict[str, Any] = {"timeoutMs": timeout_ms}
            if data.locator is not None:
                params["locator"] = await self._locate(node, data.locator, entry, timeout_ms / 1000, variables)
            else:
                params.update(await self._scaled_point(node, data.x, data.y, data.shotWidth, data.shotHeight))
            if data.until is not None:
                params["until"] = _render_locator(data.until.candidates()[0], variables)
            if data.button:
                params["button"] = data.button
            if data.count:
                params["clickCount"] = data.count
            result = await self._op(node, "page_click", params)
            return _without_envelope(result), None
        if kind == "fill":
            timeout_ms = self._acting_timeout_ms(node)
            locator = await self._locate(node, data.locator, entry, timeout_ms / 1000, variables)
            text = as_text(render(data.text))
            name = "page_paste" if data.entry == "paste" else "page_type"
            try:
                await self._op(node, name, {"locator": locator, "text": text, "replace": True,
                                            "timeoutMs": timeout_ms})
            except NodeFailed as failure:
                if "<select" not in str(failure) or "not editable" not in str(failure):
                    raise
                # A recorded `change` on a <select> the selector did not name as one: choose the option.
                await self._op(node, "page_select", {"locator": locator, "option": text, "timeoutMs": timeout_ms})
            return {"value": text}, None
        if kind == "select":
            timeout_ms = self._acting_timeout_ms(node)
            locator = await self._locate(node, data.locator, entry, timeout_ms / 1000, variables)
            result = await self._op(node, "page_select", {"locator": locator, "option": as_text(render(data.option)),
                                                          "timeoutMs": timeout_ms})
            return _without_envelope(result), None
        if kind == "press":
            result = await self._op(node, "page_key", {"shortcut": render(data.shortcut),
                                                       "timeoutMs": self._acting_timeout_ms(node)})
            return {"shortcut": result.get("shortcut")}, None
        if kind in ("scroll", "swipe"):
            timeout_ms = self._acting_timeout_ms(node)
            params = {"direction": data.direction, "timeoutMs": timeout_ms}
            if data.locator is not None:
                params["locator"] = await self._locate(node, data.locator, entry, timeout_ms / 1000, variables)
            if data.until is not None:
                params["until"] = _render_locator(data.until.candidates()[0], variables)
            result = await self._op(node, f"page_{kind}", params)
            return _without_envelope(result), None
        if kind == "upload":
            timeout_ms = self._acting_timeout_ms(node)
            locator = await self._locate(node, data.locator, entry, timeout_ms / 1000, variables)
            paths = [as_text(render(path)) for path in data.paths]
            result = await self._op(node, "page_upload", {"locator": locator, "paths": paths, "timeoutMs": timeout_ms})
            return {"files": result.get("files", paths)}, None
        if kind == "wait":
            locator = await self._locate(node, data.locator, entry, 0.0, variables)
            timeout = float(data.timeout) if data.timeout else self.settings.default_timeout
            result = await self._op(node, "page_wait", {"locator": locator, "state": data.state,
                                                        "timeoutMs": int(min(timeout, 60) * 1000)})
            return {"state": data.state, "visible": result.get("visible")}, None
        if kind == "extract":
            try:
                return _extract(variables.resolve(data.variable_selector), data.pattern, data.flags, data.group), None
            except (re.error, IndexError) as exc:
                raise NodeFailed(node, f"the pattern cannot be used: {exc}") from None
        if kind == "export":
            path = write_export(data, variables, self.settings.folder)
            self.record.files.append(str(path))
            return {"path": str(path)}, None
        if kind == "script":
            inputs = self._code_inputs(data.variables, variables)
            timeout = float(data.timeout) if data.timeout else CODE_TIMEOUT
            result = await self._op(node, "page_script", {"source": "const inputs = args; " + data.source,
                                                          "args": inputs, "timeoutMs": int(timeout * 1000)})
            return _check_outputs(node, result.get("value"), data.outputs), None
        if kind == "code":
            inputs = self._code_inputs(data.variables, variables)
            timeout = float(data.timeout) if data.timeout else CODE_TIMEOUT
            try:
                value = await self.code(data.code, inputs, timeout)
            except Exception as exc:
                raise NodeFailed(node, str(exc)) from None
            return _check_outputs(node, value, data.outputs), None
        if kind == "cdp":
            params_value = data.params
            if isinstance(params_value, str):
                try:
                    params_value = json.loads(render(params_value) or "{}")
                except json.JSONDecodeError as exc:
                    raise NodeFailed(node, f"params is not valid JSON after templating: {exc}") from None
            result = await self._op(node, "page_cdp", {"method": data.method.strip(),
                                                       "params": variables.render_deep(params_value)})
            return result.get("result", _without_envelope(result)), None
        if kind == "http-request":
            return await self._http(node, data, variables), None
        if kind == "download":
            timeout_ms = int(max(self._timeout(node), 60) * 1000)
            self._handoff_pending = False
            params = {"timeoutMs": timeout_ms}
            if data.locator is not None:
                params["locator"] = await self._locate(node, data.locator, entry, timeout_ms / 1000, variables)
            else:
                params["url"] = as_text(render(data.url))
            if data.save_name:
                params["saveAs"] = Path(as_text(render(data.save_name))).name
            result = await self._op(node, "page_download", params)
            moved = self.settings.folder / Path(result["path"]).name
            shutil.move(result["path"], moved)
            self.record.files.append(str(moved))
            return {"path": str(moved), "name": moved.name, "bytes": result.get("bytes"),
                    "mime": result.get("mime")}, None
        if kind == "handoff":
            message = as_text(render(data.message)) or "Please do this step, then click Done."
            await self._op(node, "page_handoff", {"message": message})
            successors = graph.successors(node.id)
            next_node = graph.get(successors[0]) if successors else None
            if next_node is not None and getattr(next_node.data, "locator", None) is not None:
                self._handoff_pending = True  # the next acting node waits (10 min) for its target
            else:
                await self._op(node, "page_handoff", {"message": message, "wait": True,
                                                      "timeoutMs": int((data.timeout or HANDOFF_TIMEOUT) * 1000)})
            return {"message": message}, None
        if kind == "captcha":
            return await self._captcha(node, data, variables), None
        raise NodeFailed(node, f"the node type {kind!r} cannot run")

    def _update_sys(self, variables: Variables, result: dict[str, Any]) -> None:
        found, sys_values = variables.namespace("sys")
        if found:
            sys_values["url"] = result.get("url") or sys_values.get("url")
            sys_values["title"] = result.get("title") or sys_values.get("title")

    async def _scaled_point(self, node: Node, x: Any, y: Any, shot_width: Any, shot_height: Any) -> dict[str, float]:
        px, py = float(x), float(y)
        if shot_width or shot_height:
            size = await self._op(node, "page_script", {"source": "return [innerWidth, innerHeight]"})
            width, height = size["value"]
            px = px * width / float(shot_width) if shot_width else px
            py = py * height / float(shot_height) if shot_height else py
        return {"x": px, "y": py}

    def _code_inputs(self, declared: list[Any], variables: Variables) -> dict[str, Any]:
        inputs: dict[str, Any] = {}
        for variable in declared:
            if variable.value_selector is not None:
                inputs[variable.variable] = variables.resolve(variable.value_selector)
            else:
                inputs[variable.variable] = variables.render_deep(variable.value)
        return inputs

    async def _condition(self, node: Node, condition: Condition, variables: Variables) -> bool:
        operator = condition.operator()
        if operator == "locator":
            target = condition.target_locator()
            assert target is not None
            locator = _render_locator(target.candidates()[0], variables)
            timeout = float(condition.timeoutMs or 0) / 1000 if condition.timeoutMs else 0.0
            result = await self.ops("page_wait", {"tabId": self.settings.tab_id, "locator": locator,
                                                  "state": "appear", "timeoutMs": int(min(timeout, 60) * 1000)})
            return bool(result.get("ok"))
        value = variables.resolve(condition.variable_selector)
        expected = variables.render(condition.value)
        return compare(operator, value, expected)

    async def _loop(self, node: Node, variables: Variables) -> dict[str, Any]:
        data = node.data
        body = data.graph
        passes: list[Any] = []
        limit = data.max_passes
        if data.mode == "list":
            items = variables.resolve(data.items_selector)
            if not isinstance(items, list):
                raise NodeFailed(node, f"items_selector {'.'.join(map(str, data.items_selector))} is not a list "
                                       f"(it is {type(items).__name__})")
            sequence = items if limit is None else items[:limit]
        else:
            sequence = range(limit or 40)
        for index, item in enumerate(sequence, start=1):
            # The loop's own id shows this pass too, so nested loops can reach the outer index and item.
            variables.set(node.id, {"output": passes, "index": index, "item": item if data.mode == "list" else None})
            scope = variables.child(loop={"index": index, "item": item if data.mode == "list" else None})
            await self._walk(body, scope, set())
            passes.append(scope.own_values([inner.id for inner in body.nodes]))
            if data.mode == "until" and await self._condition(node, data.until, scope):
                break
        else:
            if data.mode == "until":
                raise NodeFailed(node, f"the until condition did not hold after {limit} passes")
        return {"output": passes, "index": len(passes)}

    async def _http(self, node: Node, data: Any, variables: Variables) -> dict[str, Any]:
        url = as_text(variables.render(data.url))
        headers = _parse_headers(variables.render_deep(data.headers))
        body = variables.render_deep(data.body)
        if isinstance(body, (dict, list)):
            body = json.dumps(body, ensure_ascii=False)
            headers.setdefault("Content-Type", "application/json")
        timeout = float(data.timeout) if data.timeout else 30.0
        if data.via == "direct":
            return await _direct_request(data.http_method, url, headers, body, timeout,
                                         await self._cookies_for(url))
        source = """const init = {method: args.method, headers: args.headers, credentials: 'include'};
if (args.body !== null && args.body !== undefined && args.method !== 'GET' && args.method !== 'HEAD') init.body = args.body;
const response = await fetch(args.url, init);
const text = await response.text();
return {status_code: response.status, body: text};"""
        result = await self._op(node, "page_script", {"source": source, "timeoutMs": int(timeout * 1000),
                                                      "args": {"method": data.http_method, "url": url,
                                                               "headers": headers, "body": body}})
        value = result["value"]
        return {"status_code": value["status_code"], "body": value["body"], "json": _maybe_json(value["body"])}

    async def _cookies_for(self, url: str) -> dict[str, str]:
        result = await self.ops("page_cdp", {"tabId": self.settings.tab_id, "method": "Network.getCookies",
                                             "params": {"urls": [url]}})
        if not result.get("ok"):
            return {}
        cookies = (result.get("result") or {}).get("cookies", [])
        return {cookie["name"]: cookie["value"] for cookie in cookies}

    async def _captcha(self, node: Node, data: Any, variables: Variables) -> dict[str, Any]:
        note = "solving is left to the person: BrowserPilot never tries to defeat a captcha"
        locator = (_render_locator(data.locator.candidates()[0], variables) if data.locator is not None
                   else {"selector": CAPTCHA_SELECTORS})
        found = await self._op(node, "page_query", {"locator": locator})
        if not found.get("count"):
            return {"solved": True, "skipped": True, "engine": data.engine, "note": note}
        timeout = float(data.timeout) if data.timeout else HANDOFF_TIMEOUT
        await self._op(node, "page_handoff", {"message": "Please solve the captcha on this page. The workflow "
                                                         "continues when it is gone."})
        deadline = asyncio.get_running_loop().time() + timeout
        while True:  # page_wait waits at most a minute at a time
            remaining = deadline - asyncio.get_running_loop().time()
            gone = await self.ops("page_wait", {"tabId": self.settings.tab_id, "locator": locator, "state": "gone",
                                                "timeoutMs": int(max(0.0, min(remaining, 60.0)) * 1000)})
            if gone.get("ok"):
                break
            if remaining <= 60.0:
                raise NodeFailed(node, f"the captcha was still there after {timeout:g} s", self._keep(gone.get("errorShot")))
        await self._op(node, "page_lock", {})
        return {"solved": True, "handedOff": True, "engine": data.engine, "note": note}


class _Retry(Exception):
    """Run the same node again (after a person resumed)."""


# -- helpers ---------------------------------------------------------------------------------------------
def _node_label(node: Node) -> str:
    title = f" {node.data.title!r}" if node.data.title else ""
    return f"node {node.id!r} ({node.type}{title})"


def _render_locator(locator: Locator, variables: Variables) -> dict[str, Any]:
    return {key: as_text(variables.render(value)) for key, value in locator.model_dump(exclude_none=True).items()}


def _without_envelope(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in ("ok", "control", "tabId", "takenOver", "dialogs", "newTabs")}


def _maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def _parse_headers(value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): as_text(v) for k, v in value.items()}
    headers: dict[str, str] = {}
    for line in str(value or "").splitlines():
        if ":" in line:
            name, _, text = line.partition(":")
            if name.strip():
                headers[name.strip()] = text.strip()
    return headers


async def _direct_request(method: str, url: str, headers: dict[str, str], body: Any, timeout: float,
                          cookies: dict[str, str]) -> dict[str, Any]:
    import httpx

    async with httpx.AsyncClient(timeout=timeout, follow_redirects=True, cookies=cookies) as client:
        response = await client.request(method, url, headers=headers, content=body if body is not None else None)
    return {"status_code": response.status_code, "body": response.text, "json": _maybe_json(response.text)}


_JS_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "u": 0, "g": 0, "y": 0, "d": 0}


def _extract(value: Any, pattern: str, flags: str, group: int | str | None) -> dict[str, Any]:
    text = as_text(value)
    compiled = re.compile(pattern, sum(_JS_FLAGS.get(flag, 0) for flag in set(flags)))
    wanted = group if group is not None else (1 if compiled.groups else 0)
    matches = [match.group(wanted) for match in compiled.finditer(text)]
    return {"value": matches[0] if matches else None, "matches": matches}


def compare(operator: str, value: Any, expected: Any) -> bool:
    text = as_text(value)
    wanted = as_text(expected)
    if operator == "contains":
        return wanted in text if not isinstance(value, list) else any(as_text(v) == wanted for v in value)
    if operator == "not contains":
        return not compare("contains", value, expected)
    if operator == "starts with":
        return text.startswith(wanted)
    if operator == "ends with":
        return text.endswith(wanted)
    if operator == "is":
        return text == wanted
    if operator == "is not":
        return text != wanted
    if operator == "empty":
        return value in (None, "", [], {})
    if operator == "not empty":
        return value not in (None, "", [], {})
    try:
        left, right = float(text), float(wanted)
    except ValueError:
        return False
    return {"=": left == right, "≠": left != right, ">": left > right, "<": left < right,
            "≥": left >= right, "≤": left <= right}.get(operator, False)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "any": lambda v: True,
}


def _check_outputs(node: Node, value: Any, outputs: dict[str, Any]) -> Any:
    if not outputs:
        return value
    if not isinstance(value, dict):
        raise NodeFailed(node, f"the code must return an object with {', '.join(outputs)}, not "
                               f"{type(value).__name__ if value is not None else 'null'}")
    for key, spec in outputs.items():
        kind = spec.type
        if key not in value:
            raise NodeFailed(node, f"the returned object has no {key!r} (declared as {kind})")
        item = value[key]
        if kind.startswith("array[") and kind.endswith("]"):
            inner = kind[6:-1]
            ok = isinstance(item, list) and all(_TYPES[inner](element) for element in item)
        else:
            ok = _TYPES[kind](item)
        if not ok:
            raise NodeFailed(node, f"output {key!r} should be {kind}, but the code returned "
                                   f"{json.dumps(item, ensure_ascii=False)[:80]}")
    return value
