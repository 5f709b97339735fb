"""Data and debug node types: `script`, `code`, `cdp`, `http-request` and `download`.

- `script` runs JavaScript inside the page, `code` in an isolated engine with no page and no network (its
  default limit 120 s, still enforced against `while (true) {}`); both are an async body with one global
  `inputs` (the declared `variables`) and must return an object; declared `outputs` are checked (`string`,
  `number`, `boolean`, `array`, `object`; other type names are not checked). After a `script`, a navigation
  it started is waited for.
- `cdp` sends one DevTools command (`method`, `params` an object or its JSON text, templated).
- `http-request`: `method` (any, upper-cased; default GET), `url`, `headers` (one `Name: value` per line),
  `body` (a string, or the string in `{data: "…"}`; other values send no body). `via: page` (default) is a
  `fetch` inside the page with the browser's default credentials mode; `via: direct` is sent by the app
  through the environment's domain policy and with only the cookies the browser would send (`net_request`).
  Output `{status_code, body, json}` where `json` is set when the body parses to an object or array (null when
  it is not JSON).
- `download`: click `locator` (a media element's source is saved directly) or fetch `url`; the file lands in
  the run folder. Output `{path, name, bytes, mime}`. Pure Python: no Qt here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, PlainValidator, model_validator

from workflows.nodes.base import (QT_TRANSLATE_NOOP, NodeData, PageNodeData, RecordedStep, RunContext,
                                  target_phrase)
from workflows.nodes.page import OptionalLocator
from workflows.nodes.structured import NAME_KEY, Spec, Sub
from workflows.nodes.values import DocumentModel, PathItem, Seconds, Text, problem
from workflows.operations import NET_REQUEST, PAGE_CDP, PAGE_DOWNLOAD, PAGE_SCRIPT
from workflows.template import Variables

CODE_TIMEOUT = 120.0
SCRIPT_TIMEOUT = 120.0
HTTP_TIMEOUT = 30.0
CHECKED_TYPES = ("string", "number", "boolean", "array", "object")


class OutputSpec(DocumentModel):
    type: Text = "any"


class CodeVariable(DocumentModel):
    """A value handed to code/script as `inputs[variable]`: from `value_selector`, or (our extension) a
    constant `value`."""

    variable: Text
    value_selector: list[PathItem] | None = None
    value: Any = None


def code_inputs(declared: list[CodeVariable], variables: Variables) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    for variable in declared:
        if not variable.variable:
            continue
        if variable.value_selector is not None:
            inputs[variable.variable] = variables.resolve(variable.value_selector)
        else:
            inputs[variable.variable] = variables.render_deep(variable.value)
    return inputs


def _matches(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


def checked_result(ctx: RunContext, label: str, value: Any, outputs: dict[str, OutputSpec]) -> dict[str, Any]:
    """The returned value, which must be an object holding each declared output with its type."""
    if not isinstance(value, dict):
        shown = "null" if value is None else "an array" if isinstance(value, list) else type(value).__name__
        ctx.fail(f"the {label} must return an object, not {shown}")
    for key, spec in outputs.items():
        if key not in value:
            ctx.fail(f"the returned object has no {key!r} (declared as {spec.type})")
        if not _matches(value[key], spec.type):
            ctx.fail(f"output {key!r} should be {spec.type}, but the {label} returned "
                     f"{json.dumps(value[key], ensure_ascii=False)[:80]}")
    return value


OUTPUT_TYPES = ("any", "string", "number", "boolean", "array", "object")


class _CodeLike(NodeData):
    produces_output: ClassVar[bool] = True
    category: ClassVar[str] = "data & debug"
    structured_fields: ClassVar[dict[str, Spec]] = {
        "variables": Spec((Sub("variable", optional=False), Sub("value_selector", "selector"), Sub("value", "value")),
                          lambda: {"variable": "", "value_selector": []}, "variable"),
        "outputs": Spec((Sub(NAME_KEY, optional=False), Sub("type", "choice", OUTPUT_TYPES)),
                        lambda: {NAME_KEY: "", "type": "string"}, "output", shape="by-name"),
    }
    variables: list[CodeVariable] = Field(default_factory=list)
    outputs: dict[str, OutputSpec] = Field(default_factory=dict)
    timeout: Seconds | None = None

    @classmethod
    def readable_keys(cls, data: dict[str, Any]) -> list[str]:
        """What its `outputs` declare."""
        outputs = data.get("outputs")
        return list(outputs) if isinstance(outputs, dict) else []


class ScriptData(_CodeLike):
    """JavaScript run inside the page (async body, one global `inputs`, returns an object); `source` is not
    templated."""

    node_type: ClassVar[str] = "script"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "script")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Runs JavaScript inside the page; it returns an object.")
    type: Literal["script"]
    source: str = ""

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        output = next(iter(data.get("outputs") or {"text": None}))
        return f"Capture the text of{target_phrase(step)} as {output}"

    async def run(self, ctx: RunContext) -> Any:
        if not self.source.strip():
            ctx.fail("the script has no source")
        inputs = code_inputs(self.variables, ctx.variables)
        timeout = float(self.timeout) if self.timeout else SCRIPT_TIMEOUT
        # A source without `await` runs as a plain function: the page answers in the call that starts it, so a
        # script that navigates (location.href = …) still returns its value. Either way two lines come first.
        wrapper = "return await (async () => {\n" if "await" in self.source else "return (() => {\n"
        body = "const inputs = args;\n" + wrapper + self.source + "\n})();"
        ran = await ctx.op(PAGE_SCRIPT, {"source": body, "args": inputs, "timeoutMs": int(timeout * 1000)})
        value = checked_result(ctx, "script", ran.result.value, self.outputs)
        # Wait for a navigation the script started (the operation settles a load in progress first).
        await ctx.try_op(PAGE_SCRIPT, {"source": "return document.readyState"})
        return value


class CodeData(_CodeLike):
    """JavaScript in an isolated engine (no network, no page); otherwise as `script`."""

    node_type: ClassVar[str] = "code"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "code")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Runs JavaScript on its own (no page, no network); it returns an object.")
    type: Literal["code"]
    code: str = ""
    code_language: Text | None = None

    def lint(self) -> list[str]:
        if self.code_language is not None and self.code_language.strip().lower() not in ("javascript", "js", ""):
            return [f"code_language {self.code_language!r}: code nodes run JavaScript"]
        return []

    async def run(self, ctx: RunContext) -> Any:
        if not self.code.strip():
            ctx.fail("the code node has no code")
        inputs = code_inputs(self.variables, ctx.variables)
        timeout = float(self.timeout) if self.timeout else CODE_TIMEOUT
        try:
            value = await ctx.code(self.code, inputs, timeout)
        except Exception as exc:
            ctx.fail(str(exc))
        return checked_result(ctx, "code", value, self.outputs)


def _json_object_or_text(value: Any) -> dict[str, Any] | str:
    if isinstance(value, str) or (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
        return value
    raise problem("must be an object (or its JSON text)")


class CdpData(NodeData):
    """One Chrome DevTools Protocol command: `method` such as `Network.enable`, `params` an object (or its
    JSON text, templated)."""

    node_type: ClassVar[str] = "cdp"
    category: ClassVar[str] = "data & debug"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "cdp")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Sends one Chrome DevTools Protocol command.")
    type: Literal["cdp"]
    method: Text
    params: Annotated[dict[str, Any] | str, PlainValidator(_json_object_or_text)] = Field(default_factory=dict)

    async def run(self, ctx: RunContext) -> Any:
        params: Any = ctx.variables.render_deep(self.params)
        if isinstance(params, str):
            try:
                params = json.loads(params or "{}")
            except json.JSONDecodeError as exc:
                ctx.fail(f"params is not valid JSON after templating: {exc}")
        if not isinstance(params, dict):
            ctx.fail("params must be an object")
        sent = (await ctx.op(PAGE_CDP, {"method": ctx.render(self.method).strip(), "params": params})).result
        return sent.result if "result" in sent.model_fields_set else {}


def _headers(value: Any) -> str | dict[str, Any]:
    if isinstance(value, str) or (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
        return value
    raise problem('must be text with one "Name: value" per line (or an object)')


def parse_headers(value: Any) -> dict[str, str]:
    """`Name: value` lines (a line without a name before its first colon is skipped), or an object."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    headers: dict[str, str] = {}
    for line in str(value or "").split("\n"):
        split = line.find(":")
        if split > 0:
            headers[line[:split].strip()] = line[split + 1:].strip()
    return headers


def parsed_json(body: str) -> tuple[bool, Any]:
    """(set it?, value) for `json`: an object or array; None when the body is not JSON; unset otherwise."""
    try:
        value = json.loads(body)
    except (ValueError, TypeError):
        return True, None
    return (True, value) if isinstance(value, (dict, list)) else (False, None)


_FETCH_SOURCE = """const init = {method: args.method, headers: args.headers};
if (args.body !== null && args.body !== undefined && args.method !== 'GET' && args.method !== 'HEAD') init.body = args.body;
const response = await fetch(args.url, init);
return {status_code: response.status, body: await response.text()};"""


class HttpRequestData(NodeData):
    """An HTTP request: `via: page` (default, a fetch inside the page) or `direct`. Output
    `{status_code, body, json}`."""

    node_type: ClassVar[str] = "http-request"
    category: ClassVar[str] = "data & debug"
    produces_output: ClassVar[bool] = True
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "http-request")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Sends an HTTP request; its output is the status, the body and its JSON.")
    output_keys: ClassVar[tuple[str, ...]] = ("status_code", "body", "json")
    type: Literal["http-request"]
    method: Any = "GET"
    url: Text
    headers: Annotated[str | dict[str, Any], PlainValidator(_headers)] = ""
    body: Any = None
    via: Literal["page", "direct"] = "page"
    timeout: Seconds | None = None

    @property
    def http_method(self) -> str:
        return (self.method if isinstance(self.method, str) else "get").strip().upper() or "GET"

    def _body(self, ctx: RunContext) -> str | None:
        if isinstance(self.body, str):
            return ctx.render(self.body)
        if isinstance(self.body, dict) and isinstance(self.body.get("data"), str):
            return ctx.render(self.body["data"])
        return None

    async def run(self, ctx: RunContext) -> Any:
        url = ctx.render(self.url)
        headers = parse_headers(ctx.variables.render_deep(self.headers))
        body = self._body(ctx)
        method = self.http_method
        timeout = float(self.timeout) if self.timeout else HTTP_TIMEOUT
        if self.via == "direct":
            response = (await ctx.op(NET_REQUEST, {"method": method, "url": url, "headers": headers, "body": body,
                                                   "timeoutMs": int(timeout * 1000)})).result
            value = {"status_code": response.status, "body": response.body}
        else:
            fetched = await ctx.op(PAGE_SCRIPT, {"source": _FETCH_SOURCE, "timeoutMs": int(timeout * 1000),
                                                 "args": {"method": method, "url": url, "headers": headers,
                                                          "body": body}})
            value = dict(fetched.result.value)
        keep, parsed = parsed_json(value["body"])
        if keep:
            value["json"] = parsed
        return value


class DownloadData(PageNodeData):
    """Download by clicking `locator` (an `<img>`, `<video>`, `<audio>` or `<source>` has its source saved) or
    fetching `url`; saved in the run folder as `saveAs` (the original's `savePath` is read the same way)."""

    node_type: ClassVar[str] = "download"
    category: ClassVar[str] = "data & debug"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "download")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Downloads a file into the run's folder, by a click or from an address.")
    output_keys: ClassVar[tuple[str, ...]] = ("path", "bytes")
    type: Literal["download"]
    locator: OptionalLocator = None
    url: Text | None = None
    saveAs: Text | None = None
    savePath: Text | None = None

    @model_validator(mode="after")
    def _target(self) -> "DownloadData":
        if self.locator is None and not (self.url or "").strip():
            raise problem("needs a locator or a url")
        return self

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        return f"Download from{target_phrase(step)}"

    @property
    def save_name(self) -> str | None:
        return self.saveAs or self.savePath or None

    async def run(self, ctx: RunContext) -> Any:
        timeout_ms = max(ctx.acting_timeout_ms(), 60_000)
        params: dict[str, Any] = {"timeoutMs": timeout_ms}
        if self.locator is not None:
            params["locator"] = await ctx.locate(self.locator, timeout_ms / 1000)
        else:
            params["url"] = ctx.render(self.url)
        if self.save_name:
            params["saveAs"] = Path(ctx.render(self.save_name)).name
        saved = (await ctx.op(PAGE_DOWNLOAD, params)).result
        moved = await ctx.take_file(saved.path)  # into the run folder, off the Qt thread
        ctx.add_file(moved)
        return {"path": moved, "name": Path(moved).name, "bytes": saved.bytes, "mime": saved.mime}

