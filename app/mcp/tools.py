"""The registry, seen as MCP tools: one tool per operation, its schema, its description, its results.

Nothing here defines a parameter twice. A tool's `inputSchema` is its operation's pydantic model
(`op.params.model_json_schema(by_alias=True)`: camelCase names, `additionalProperties: false`, shared
types under `$defs`); its description is the operation's docstring followed by one line per convention that
applies (the locator forms, handoff, the original BrowserPilot's forms it also accepts); the conventions
shared by every tool are in `SERVER_INSTRUCTIONS`, sent once per session; its annotations come from the operation's
`read_only` and `destructive` flags. The list is rebuilt whenever the registry changes, so operations added
later (workflow_*, run_*, net_*) become tools without touching this module.

A result is the operation's envelope as structured content, the same envelope as JSON text (for clients
that only read text), and, when the envelope points at a screenshot (`page_screenshot`'s `path`, any
`errorShot`), that PNG as image content so the model can look at it.

Listings and results are made as plain JSON-ready dicts (`ToolCatalog.listing`, `result_json`), which the
private endpoint (`app.mcp.quick`) sends as they are; `tools()` and `tool_result` validate the same dicts into
the SDK's models. So this module does not import the SDK (`mcp_types`, ~0.6 s of pydantic) until those are
called, and a bridge-started app answers its first call without it.
"""

from __future__ import annotations

import base64
import inspect
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.mcp.config import SERVER_INSTRUCTIONS
from app.ops.compat import original_forms
from app.ops.registry import Operation, OperationRegistry
from envs import loggers

if TYPE_CHECKING:
    from mcp_types import CallToolResult, Tool

log = logging.getLogger(loggers.MCP)

# Screenshots bigger than this are not inlined (a full-page capture of a long page can be tens of MB, and
# model APIs refuse images over 5 MB); the envelope still carries the path.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Envelope keys that hold the path of a PNG worth showing to the model.
IMAGE_KEYS = ("errorShot", "screenshot")

LOCATOR_NOTE = ('Locator: {"selector": "#id"} (CSS, or text=Sign in, role=button[name="Save"], label=Email, '
                'placeholder=…, testid=…), {"xpath": "//a"}, or {"ref": "e12"} from the latest page_snapshot.')
CONTROL_NOTE = "In handoff it first waits for its target (the person finishing), then takes the tab back."

def tool_description(op: Operation[Any]) -> str:
    """The operation's own docstring, then the conventions that apply to it, one line each."""
    fields = op.params.model_fields
    parts = [_unwrap(op.description) or op.name.replace("_", " ")]
    if any(_mentions_locator(name, field.annotation) for name, field in fields.items()):
        parts.append(LOCATOR_NOTE)
    if op.name.startswith("page_") and not op.read_only and "timeout_ms" in fields:
        parts.append(CONTROL_NOTE)
    forms = original_forms(op.params)
    if forms:
        parts.append(forms)
    return "\n".join(parts)


def _unwrap(docstring: str) -> str:
    """A docstring as plain paragraphs: indentation removed, hard line wraps joined."""
    paragraphs = inspect.cleandoc(docstring).split("\n\n")
    return "\n".join(" ".join(line.strip() for line in para.splitlines()) for para in paragraphs).strip()


def _mentions_locator(name: str, annotation: Any) -> bool:
    return name in ("locator", "until") or "Locator" in repr(annotation)


def input_schema(op: Operation[Any]) -> dict[str, Any]:
    """The parameter model's JSON schema, by alias, as one self-contained document (refs under `$defs`).

    Pydantic's generated `title`s ("Tabid", "Timeoutms") are left out: they repeat the names, and every
    tool listing costs the model tokens. For the same reason an optional field is written as its type alone
    (`{"type": "string"}` rather than `anyOf` with null and `default: null`): it is optional because it is not
    required, and null is still accepted. Names, types, other defaults, bounds and descriptions are untouched.
    """
    schema: dict[str, Any] = _compact(_without_titles(op.params.model_json_schema(by_alias=True)))
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


def _compact(node: Any) -> Any:
    if isinstance(node, list):
        return [_compact(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _compact(value) for key, value in node.items()}
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


def _without_titles(node: Any) -> Any:
    if isinstance(node, dict):
        # A string "title" is a schema's title; a property *named* title maps to a schema (a dict) and stays.
        return {key: _without_titles(value) for key, value in node.items()
                if not (key == "title" and isinstance(value, str))}
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    return node


def tool_annotations(op: Operation[Any]) -> dict[str, Any]:
    """The MCP `ToolAnnotations` of an operation, by alias."""
    return {"title": op.name.replace("_", " ").capitalize(), "readOnlyHint": op.read_only,
            "destructiveHint": op.destructive if not op.read_only else False}


def tool_entry(op: Operation[Any]) -> dict[str, Any]:
    """One MCP `Tool` of the listing, by alias (JSON-ready)."""
    return {"name": op.name, "description": tool_description(op), "inputSchema": input_schema(op),
            "annotations": tool_annotations(op)}


class ToolCatalog:
    """The registry's operations as MCP tools, rebuilt when the set of operations changes."""

    def __init__(self, registry: OperationRegistry) -> None:
        self.registry = registry
        self._key: tuple[int, ...] = ()
        self._entries: list[dict[str, Any]] = []
        self._tools: list[Tool] | None = None
        self._schemas: dict[str, dict[str, Any]] = {}

    def _refresh(self) -> None:
        key = tuple(id(op) for op in self.registry.operations.values())
        if key == self._key:
            return
        entries = [tool_entry(self.registry.get(name)) for name in self.registry.names()]
        self._entries, self._tools, self._key = entries, None, key
        self._schemas = {entry["name"]: entry["inputSchema"] for entry in entries}

    def listing(self) -> list[dict[str, Any]]:
        """The tools as JSON-ready dicts (what `tools/list` sends)."""
        self._refresh()
        return list(self._entries)

    def tools(self) -> list[Tool]:
        """The same listing as the SDK's `Tool` models."""
        self._refresh()
        if self._tools is None:
            from mcp_types import Tool

            self._tools = [Tool.model_validate(entry) for entry in self._entries]
        return list(self._tools)

    def schema(self, name: str) -> dict[str, Any] | None:
        self._refresh()
        return self._schemas.get(name)


# Operations that run for as long as their work takes (a workflow's nodes each have their own timeouts, and
# run_cancel stops a run); the MCP layer gives them this long before it gives up waiting.
LONG_RUNNING = {"workflow_run": 3600.0, "workflow_batch": 4 * 3600.0}


def call_timeout(op: Operation[Any] | None, arguments: dict[str, Any], *, margin: float = 30.0,
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


def result_json(name: str, envelope: dict[str, Any], data_root: Path) -> dict[str, Any]:
    """The MCP `CallToolResult` of one call, by alias (JSON-ready): envelope as structured content and JSON
    text, screenshots as images."""
    envelope = json.loads(json.dumps(envelope, ensure_ascii=False, default=str))
    content: list[dict[str, Any]] = [{"type": "text", "text": json.dumps(envelope, ensure_ascii=False)}]
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


def tool_result(name: str, envelope: dict[str, Any], data_root: Path) -> CallToolResult:
    """`result_json` as the SDK's `CallToolResult`."""
    from mcp_types import CallToolResult

    return CallToolResult.model_validate(result_json(name, envelope, data_root))
