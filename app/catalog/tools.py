"""The registry, seen as tools: one tool per operation, its schema, its description, its results — what the MCP
server (app/mcp) publishes and the built-in agent (app/agent/tools.py) offers its model, from one catalog below both.

Nothing here defines a parameter twice. A tool's `inputSchema` is its operation's pydantic model
(`op.params.model_json_schema(by_alias=True)`: camelCase names, `additionalProperties: false`, shared
types under `$defs`), without what a model need not read in every request: generated titles, the null arm of
optional fields. Its description is the operation's docstring alone: what every tool shares (locators, the
target tab, control and handoff, envelopes, errors) is said once in `SERVER_INSTRUCTIONS`, sent once per
session. Its annotations come from the operation's `read_only` and `destructive` flags. An `outputSchema` has
one place to go, `output_schema` (each operation's result model, when the profile asks for schemas).

Which tools a client is shown is its `ToolSelection` (app/catalog/profiles.py: a profile such as `core` or `full`,
and the groups `tools_enable` turned on); `ToolCatalog.listing(selection)` is that list, the `tools_enable` tool
included. The `original` profile lists the original BrowserPilot's tools with schemas widened to its call forms
(`app.ops.compat.original_schema`) and a line saying which forms each takes. The list is rebuilt whenever the
registry changes, so operations added later become tools without touching this module.

A result (`result_json`) is the operation's envelope as structured content, the same envelope as text a model
reads (`app.catalog.result_text`: a header line and the payload as plain text; as JSON text for the original's
clients), and, when the envelope points at a screenshot (`page_screenshot`'s `path`, any `errorShot`), that PNG
as image content so the model can look at it.

Listings and results are made as plain JSON-ready dicts, which the private endpoint (`app.mcp.quick`) sends as
they are; `tools()` and `tool_result` validate the same dicts into the SDK's models. So this module does not
import the SDK (`mcp_types`, ~0.6 s of pydantic) until those are called, and a bridge-started app answers its
first call without it.
"""

from __future__ import annotations

import base64
import inspect
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, ValidationError

from app.catalog.conventions import SERVER_INSTRUCTIONS
from app.catalog.profiles import GROUPS, TOOLS_ENABLE, ProfileError, ToolSelection
from app.catalog.result_text import render
from app.ops.compat import original_forms, original_schema
from app.ops.page_session import DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS
from app.ops.registry import Operation, OperationRegistry, Params, describe_validation_error, failure
from plumbing import loggers
from workflows.envelope import Result, wire_schema

if TYPE_CHECKING:
    from mcp_types import CallToolResult, Tool

log = logging.getLogger(loggers.MCP)

__all__ = ["SERVER_INSTRUCTIONS", "ToolCatalog", "call_timeout", "input_schema", "result_json", "tool_description",
           "tool_result"]

# Screenshots bigger than this are not inlined (a full-page capture of a long page can be tens of MB, and
# model APIs refuse images over 5 MB); the envelope still carries the path.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Envelope keys that hold the path of a PNG worth showing to the model.
IMAGE_KEYS = ("errorShot", "screenshot")


def tool_description(op: Operation[Any, Any], *, original: bool = False) -> str:
    """The operation's own docstring; for the original's clients, then the original's forms it also takes."""
    parts = [_unwrap(op.description) or op.name.replace("_", " ")]
    forms = original_forms(op.params) if original else None
    if forms:
        parts.append(forms)
    return "\n".join(parts)


def _unwrap(docstring: str) -> str:
    """A docstring as plain paragraphs: indentation removed, hard line wraps joined."""
    paragraphs = inspect.cleandoc(docstring).split("\n\n")
    return "\n".join(" ".join(line.strip() for line in para.splitlines()) for para in paragraphs).strip()


def input_schema(op: Operation[Any, Any], *, original: bool = False) -> dict[str, Any]:
    """The parameter model's JSON schema, by alias, as one self-contained document (refs under `$defs`).

    Pydantic's generated `title`s ("Tabid", "Timeoutms") are left out: they repeat the names, and every
    tool listing costs the model tokens. For the same reason an optional field is written as its type alone
    (`{"type": "string"}` rather than `anyOf` with null and `default: null`): it is optional because it is not
    required, and null is still accepted; a flag that is off unless given has no `default: false`; a type used
    once is written in place rather than under `$defs`; `additionalProperties` is said once, at the top (false:
    unknown names are refused), and not in nested objects (a locator's unknown keys are refused by the registry
    just the same, naming the valid ones). What many tools share is written in its short form (`SHORT_FORMS`),
    its shape said once in `SERVER_INSTRUCTIONS`: a locator is `{"type": "object"}`, a `timeoutMs` bounded
    0…600000 its type, and its default where that is not the usual 10000. Names, types, other defaults, bounds
    and descriptions are untouched. `original`: widened to the original BrowserPilot's call forms.
    """
    generated = _without_titles(op.params.model_json_schema(by_alias=True))
    schema: dict[str, Any] = _inline_single_refs(_compact(_short_forms(generated)))
    schema.pop("description", None)  # the parameter model's docstring is for us, not the model
    schema.setdefault("type", "object")
    schema["additionalProperties"] = False
    schema.setdefault("properties", {})
    return original_schema(op.params, schema) if original else schema


def output_schema(op: Operation[Any, Any]) -> dict[str, Any]:
    """The tool's `outputSchema`: its envelope on the wire with its result model's data
    (`workflows.envelope.wire_schema`), without generated titles, defaults (an answer has none) and types
    used once under `$defs`. A value that may be null says so (`"type": ["string", "null"]`): answers carry
    nulls (`control` of an operation on no tab, a run's `error` while it has none)."""
    return _inline_single_refs(_nullable(_without_titles(wire_schema(op.result))))


def _nullable(node: Any) -> Any:
    """A schema's `anyOf: [X, {type: null}]` written as X with null among its types where X is a plain type."""
    if isinstance(node, list):
        return [_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _nullable(value) for key, value in node.items() if key not in ("default", "additionalProperties")}
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [option for option in options if option != {"type": "null"}]
        if len(rest) == 1 and isinstance(rest[0].get("type"), str):
            node.pop("anyOf")
            node = {**rest[0], **node, "type": [rest[0]["type"], "null"]}
            if isinstance(node.get("enum"), list):
                node["enum"] = [*node["enum"], None]
    return node


# Types many tools take, by their `$defs` name, as the listing writes them: the shape (a locator's selector,
# xpath or ref) is said once in SERVER_INSTRUCTIONS; the registry refuses a wrong shape, naming the valid keys.
SHORT_FORMS: dict[str, dict[str, Any]] = {"Locator": {"type": "object"}}
# A property every tool that has it bounds alike, with the default most of them share (both said once in
# SERVER_INSTRUCTIONS): its bounds go, and its default where it is that one.
SHARED_TIMEOUT = "timeoutMs"


def _short_forms(schema: dict[str, Any]) -> dict[str, Any]:
    """`SHORT_FORMS` written in place of their references, and `SHARED_TIMEOUT` without what is shared."""
    defs = schema.get("$defs")
    result = _in_place(schema, {name: form for name, form in SHORT_FORMS.items()
                                if isinstance(defs, dict) and name in defs})
    properties = result.get("properties")
    timeout = properties.get(SHARED_TIMEOUT) if isinstance(properties, dict) else None
    if isinstance(timeout, dict) and timeout.get("minimum") in (None, 0) and timeout.get("maximum") in (None,
                                                                                                    MAX_TIMEOUT_MS):
        properties[SHARED_TIMEOUT] = {key: value for key, value in timeout.items() if key not in ("minimum", "maximum")
                                      and not (key == "default" and value == DEFAULT_TIMEOUT_MS)}
    return result


def _in_place(schema: dict[str, Any], written: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each reference to a `$defs` entry named in `written` replaced by that schema (and the
    reference's own keys, a description say), and those entries dropped."""
    if not written:
        return schema

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        name = ref.removeprefix("#/$defs/") if isinstance(ref, str) else None
        if name in written:
            return {**walk(written[name]), **{key: walk(value) for key, value in node.items() if key != "$ref"}}
        return {key: walk(value) for key, value in node.items()}

    kept = {name: walk(value) for name, value in (schema.get("$defs") or {}).items() if name not in written}
    result = {key: walk(value) for key, value in schema.items() if key != "$defs"}
    return {"$defs": kept, **result} if kept else result


def _compact(node: Any) -> Any:
    if isinstance(node, list):
        return [_compact(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _compact(value) for key, value in node.items() if key != "additionalProperties"}
    if node.get("type") == "boolean" and node.get("default") is False:
        node.pop("default")  # a flag left out is off: saying so in every tool costs tokens and tells nothing
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and "default" in node and node["default"] is None:
        rest = [option for option in options if option != {"type": "null"}]
        node.pop("anyOf")
        node.pop("default")
        if len(rest) == 1:
            node = {**rest[0], **node}
        else:
            node["anyOf"] = rest
    return node


def _inline_single_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`$defs` entries referenced once, written in place (a reference and its entry cost more than the type)."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict):
        return schema
    text = json.dumps(schema)
    return _in_place(schema, {name: value for name, value in defs.items() if text.count(f'"#/$defs/{name}"') == 1})


def _without_titles(node: Any) -> Any:
    if isinstance(node, dict):
        # A string "title" is a schema's title; a property *named* title maps to a schema (a dict) and stays.
        return {key: _without_titles(value) for key, value in node.items()
                if not (key == "title" and isinstance(value, str))}
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    return node


def tool_annotations(op: Operation[Any, Any]) -> dict[str, Any]:
    """The MCP `ToolAnnotations` of an operation, by alias, without what the spec's defaults say already: a
    read-only tool says so (destructiveHint means nothing then), any other says whether it is destructive (the
    default would be yes). The name is its title."""
    return {"readOnlyHint": True} if op.read_only else {"destructiveHint": op.destructive}


def tool_entry(op: Operation[Any, Any], *, original: bool = False, outputs: bool = False) -> dict[str, Any]:
    """One MCP `Tool` of the listing, by alias (JSON-ready); with its `outputSchema` when `outputs`."""
    entry = {"name": op.name, "description": tool_description(op, original=original),
             "inputSchema": input_schema(op, original=original), "annotations": tool_annotations(op)}
    if outputs:
        entry["outputSchema"] = output_schema(op)
    return entry


# -- tools_enable: more groups for this session --------------------------------------------------------------
class ToolsEnableParams(Params):
    groups: list[Literal[tuple(GROUPS)]] = Field(min_length=1)  # type: ignore[valid-type]


class ToolsEnableResult(Result):
    enabled: list[str]  # every group now listed
    added: list[str]  # the tools added to the list
    list_changed: bool


async def _session_tool(ctx: Any, params: Any) -> dict[str, Any]:
    raise RuntimeError("tools_enable is answered by the MCP session (ToolCatalog.enable), not the registry")


ENABLE_OPERATION: Operation[Any, Any] = Operation(
    name=TOOLS_ENABLE, params=ToolsEnableParams, func=_session_tool, group="core", result=ToolsEnableResult,
    description="List more tools in this session. Groups: "
                + "; ".join(f"{name}: {holds}" for name, holds in GROUPS.items() if name != "core") + ".")


class ToolCatalog:
    """The registry's operations as MCP tools. A tool's entry is built the first time it is listed (a schema
    takes pydantic a few milliseconds; a client of the core profile never pays for the others) and kept until
    the set of operations changes."""

    def __init__(self, registry: OperationRegistry) -> None:
        self.registry = registry
        self._key: tuple[int, ...] = ()
        self._entries: dict[tuple[str, bool, bool], dict[str, Any]] = {}  # by (name, original, outputs)
        self._models: dict[tuple[str, bool, bool], Tool] = {}

    def _refresh(self) -> None:
        key = tuple(id(op) for op in self.registry.operations.values())
        if key != self._key:
            self._entries, self._models, self._key = {}, {}, key

    def operation(self, name: str) -> Operation[Any, Any] | None:
        return ENABLE_OPERATION if name == TOOLS_ENABLE else self.registry.operations.get(name)

    def names(self, selection: ToolSelection | None = None) -> list[str]:
        """The tools `selection` lists (None: every tool), in the registry's order, tools_enable last."""
        if selection is None:
            return [*self.registry.names(), TOOLS_ENABLE]
        names = [name for name in self.registry.names() if selection.includes(name, self.registry.get(name).group)]
        if selection.includes(TOOLS_ENABLE, "core") and not selection.profile.everything:
            names.append(TOOLS_ENABLE)
        return names

    def _entry(self, name: str, original: bool = False, outputs: bool = False) -> dict[str, Any]:
        self._refresh()
        key = (name, original, outputs)
        if key not in self._entries:
            op = self.operation(name)
            assert op is not None, name
            self._entries[key] = tool_entry(op, original=original, outputs=outputs)
        return self._entries[key]

    @staticmethod
    def _form(selection: ToolSelection | None) -> tuple[bool, bool]:
        """(original, outputs) of a selection's listing; None (every tool) lists output schemas."""
        if selection is None:
            return False, True
        return selection.profile.original, selection.profile.output_schemas

    def listing(self, selection: ToolSelection | None = None) -> list[dict[str, Any]]:
        """The tools as JSON-ready dicts (what `tools/list` sends)."""
        original, outputs = self._form(selection)
        return [self._entry(name, original, outputs) for name in self.names(selection)]

    def tools(self, selection: ToolSelection | None = None) -> list[Tool]:
        """The same listing as the SDK's `Tool` models."""
        from mcp_types import Tool

        original, outputs = self._form(selection)
        models = []
        for name in self.names(selection):
            entry = self._entry(name, original, outputs)
            if (name, original, outputs) not in self._models:
                self._models[(name, original, outputs)] = Tool.model_validate(entry)
            models.append(self._models[(name, original, outputs)])
        return models

    def schema(self, name: str) -> dict[str, Any] | None:
        """A tool's input schema by name (None: no such tool)."""
        return self._entry(name)["inputSchema"] if self.operation(name) is not None else None

    def enable(self, selection: ToolSelection, arguments: dict[str, Any]) -> dict[str, Any]:
        """Answer `tools_enable` for the session whose selection this is: turn the groups on, and say which
        groups are on and which tools were added to its list (`listChanged`: the client should be told)."""
        try:
            params = ToolsEnableParams.model_validate(arguments)
        except ValidationError as exc:
            return failure(describe_validation_error(ENABLE_OPERATION, exc), code="invalid_parameters")
        before = set(self.names(selection))
        try:
            selection.enable(params.groups)
        except ProfileError as exc:  # pragma: no cover - the schema's enum refuses unknown names first
            return failure(str(exc), code="invalid_parameters")
        added = [name for name in self.names(selection) if name not in before]
        return {"ok": True, "control": None, "enabled": sorted(selection.profile.groups | selection.enabled),
                "added": added, "listChanged": bool(added)}


# Operations that run for as long as their work takes (a workflow's nodes each have their own timeouts, and
# run_cancel stops a run); the MCP layer gives them this long before it gives up waiting.
LONG_RUNNING = {"workflow_run": 3600.0, "workflow_batch": 4 * 3600.0}


def call_timeout(op: Operation[Any, Any] | None, arguments: dict[str, Any], *, margin: float = 30.0,
                 default: float = 120.0) -> float:
    """How long the MCP layer waits for an operation: a little more than the operation's own timeout."""
    if op is None:
        return default
    if op.name in LONG_RUNNING:
        return LONG_RUNNING[op.name]
    field = op.params.model_fields.get("timeout_ms")
    if field is None:
        return default
    raw = arguments.get("timeoutMs", arguments.get("timeout_ms", field.default))
    try:
        own = float(raw) / 1000
    except (TypeError, ValueError):
        return default
    return max(own, 0.0) + margin


def _png(path_value: object, data_root: Path) -> bytes | None:
    """The PNG at `path_value` if it is a PNG file inside the data folder and small enough to inline."""
    if not isinstance(path_value, str) or not path_value.lower().endswith(".png"):
        return None
    path = Path(path_value)
    try:
        resolved = path.resolve()
        if data_root.resolve() not in resolved.parents:
            return None
        if resolved.stat().st_size > MAX_IMAGE_BYTES:
            log.info("not inlining %s: larger than %d bytes", resolved, MAX_IMAGE_BYTES)
            return None
        blob = resolved.read_bytes()
    except OSError as exc:
        log.info("cannot inline the screenshot %s: %s", path, exc)
        return None
    return blob if blob.startswith(PNG_MAGIC) else None


def result_json(name: str, envelope: dict[str, Any], data_root: Path, *, json_text: bool = False) -> dict[str, Any]:
    """The MCP `CallToolResult` of one call, by alias (JSON-ready): the envelope as structured content and as
    text a model reads (`json_text`: as JSON text, the original BrowserPilot's form), screenshots as images."""
    envelope = json.loads(json.dumps(envelope, ensure_ascii=False, default=str))
    text = json.dumps(envelope, ensure_ascii=False) if json_text else render(envelope)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    candidates: list[object] = []
    if name == "page_screenshot" and envelope.get("ok"):
        candidates.append(envelope.get("path"))
    candidates.extend(envelope.get(key) for key in IMAGE_KEYS)
    for candidate in candidates:
        blob = _png(candidate, data_root)
        if blob is not None:
            content.append({"type": "image", "data": base64.b64encode(blob).decode("ascii"),
                            "mimeType": "image/png"})
    return {"content": content, "structuredContent": envelope, "isError": not envelope.get("ok", False)}


def tool_result(name: str, envelope: dict[str, Any], data_root: Path, *, json_text: bool = False) -> CallToolResult:
    """`result_json` as the SDK's `CallToolResult`."""
    from mcp_types import CallToolResult

    return CallToolResult.model_validate(result_json(name, envelope, data_root, json_text=json_text))
