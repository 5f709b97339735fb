"""The operations registry as the model's tools, and running the model's tool calls through it.

The tools are those of the default profile (`core`: app/catalog/profiles.py), with the very names, schemas and
descriptions the MCP server publishes (`app.catalog.tools.ToolCatalog`), less the operations that are not the agent's
(its tab's control, replay internals, the agent itself), plus `done`. The agent works in one tab, so it starts with
core's page tools and `tools_enable`; `tools_enable {groups: ["core"]}` adds the rest of core (environments, tabs,
workflows, runs), and like any group it is then listed in every later request. `tools_enable` turns groups on for
the run: the next request carries their definitions (`AgentTools.definitions`), so the prompt cache is
rebuilt once from there. `ToolRunner` runs one call: it fills in the agent's tab, checks that every `<secret:name>`
names a secret of the run (the value is filled in by the operations, only where the run's binding lets it be typed:
workflows/secret_binding.py, and a refused use is kept as the call's `refusal`), computes the target's stable
locator with `page_inspect` before acting (for Save as workflow), retries once after a re-snapshot when a ref is
stale, makes the agent wait out a handoff, notices a changed page, and turns the envelope (redacted) into a
`tool_result` block — text (a header line and the payload as plain text), plus the image when a screenshot was taken
(`app.catalog.tools.tool_result`). What a tool returns comes from pages: its text is sent inside a `<page_data_NONCE>`
block, a tag the page cannot know (a random one per run, named in the system prompt), so the model can tell it from
the task and never takes it as one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from app.stores.agent_runs import Refusal, ToolCall
from app.agent.secrets import SecretError, Secrets
from app.catalog.profiles import TOOLS_ENABLE, ToolSelection
from app.catalog.tools import ToolCatalog, call_timeout, tool_result
from app.ops.registry import OperationRegistry
from plumbing import loggers
from workflows.secret_binding import REFUSED

log = logging.getLogger(loggers.AGENT)

CONTROL_OPERATIONS = ("page_lock", "page_unlock")  # the run manages its tab's control itself
NOT_THE_AGENTS_GROUPS = ("replay", "agent")  # a workflow replay's finding (and asking a model); agents in agents
# The agent works in one tab: of the core tools it starts with those of a page (and tools_enable); the rest of
# core (environments, tabs, workflows, runs) comes with tools_enable {groups: ["core"]}, like any other group.
PAGE_TOOLS_PREFIX = "page_"
NAVIGATING = {"page_navigate", "page_back", "page_forward", "page_reload", "tab_open", "tab_close", "tab_activate"}
# Calls after which the page may be another one (a click can submit a form; the load starts a moment later):
# the rest of their batch is not run.
MAY_CHANGE = {"page_click", "page_key", "page_select", "page_drag", "page_script", "page_upload"}
LOCATING = {"page_click", "page_type", "page_paste", "page_select", "page_upload", "page_download",
            "page_scroll", "page_swipe", "page_drag", "page_save_media"}
MAX_RESULT_CHARS = 30_000
STALE = "stale_ref"  # the error code of a ref from an older snapshot
SNAPSHOT_LINE = re.compile(r'^\s*- (?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?.*\[ref=(?P<ref>e\d+)\]', re.M)
PAUSE_MESSAGE = "The agent is paused because you took over. Click Done to let it continue from here."
HANDOFF_WAIT_MS = 600_000

DONE_TOOL: dict[str, Any] = {
    "name": "done",
    "description": "Finish the task. success: whether the task was done as asked; answer: what you found or "
                   "did, for the person; outputs: named values the task asked for (optional).",
    "input_schema": {
        "type": "object",
        "properties": {"success": {"type": "boolean"}, "answer": {"type": "string"},
                       "outputs": {"type": "object"}},
        "required": ["success", "answer"],
        "additionalProperties": False,
    },
}

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


class AgentTools:
    """The agent's tools for one run: the core profile's page tools, and the groups the model turned on with
    tools_enable (`core` among them: the rest of the core profile)."""

    def __init__(self, registry: OperationRegistry) -> None:
        self.catalog = ToolCatalog(registry)
        self.selection = ToolSelection()
        self.whole_core = False  # tools_enable {groups: ["core"]} was called
        self._definitions: tuple[tuple[Any, ...], list[dict[str, Any]]] | None = None

    def allowed(self, name: str) -> bool:
        op = self.catalog.operation(name)
        if op is None or name in CONTROL_OPERATIONS or op.group in NOT_THE_AGENTS_GROUPS:
            return False
        if op.group == "core" and not (self.whole_core or name.startswith(PAGE_TOOLS_PREFIX) or name == TOOLS_ENABLE):
            return False
        return self.selection.includes(name, op.group)

    def how_to_list(self, name: str) -> str:
        """For a call to a tool not listed: how to list it ("" when it is not the agent's at all)."""
        op = self.catalog.operation(name)
        if op is None or name in CONTROL_OPERATIONS or op.group in NOT_THE_AGENTS_GROUPS:
            return ""
        return f"; tools_enable {{\"groups\": [\"{op.group}\"]}} lists it"

    def names(self) -> list[str]:
        return [name for name in self.catalog.names(self.selection) if self.allowed(name)]

    def definitions(self) -> list[dict[str, Any]]:
        """The model's tools, as the Messages API takes them: the MCP tools' names, descriptions and schemas,
        and done (the same list, in the same order, until tools_enable changes it: a stable prompt prefix)."""
        key = (*self.selection.key, self.whole_core)
        if self._definitions is None or self._definitions[0] != key:
            listed = {entry["name"]: entry for entry in self.catalog.listing(self.selection)}
            tools = [{"name": name, "description": listed[name]["description"],
                      "input_schema": listed[name]["inputSchema"]} for name in self.names()]
            self._definitions = (key, [*tools, DONE_TOOL])
        return self._definitions[1]

    def enable(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """tools_enable for this run: the envelope it answers (app.catalog.tools.ToolCatalog.enable)."""
        before = set(self.names())
        envelope = self.catalog.enable(self.selection, arguments)
        if envelope.get("ok"):
            self.whole_core = self.whole_core or "core" in arguments.get("groups", ())
            envelope["added"] = [name for name in self.names() if name not in before]
            envelope["listChanged"] = bool(envelope["added"])
        return envelope


def tool_definitions(registry: OperationRegistry) -> list[dict[str, Any]]:
    """The model's first tools: the core profile's page tools, tools_enable, and done."""
    return AgentTools(registry).definitions()


def _refs(snapshot: str) -> dict[str, tuple[str, str, int]]:
    """ref -> (role, name, how many earlier lines had that role and name), from a snapshot's text."""
    seen: dict[tuple[str, str], int] = {}
    found: dict[str, tuple[str, str, int]] = {}
    for match in SNAPSHOT_LINE.finditer(snapshot):
        key = (match.group("role"), match.group("name") or "")
        found[match.group("ref")] = (*key, seen.get(key, 0))
        seen[key] = seen.get(key, 0) + 1
    return found


def _same_element(old_snapshot: str, new_snapshot: str, ref: str) -> str | None:
    """The ref in the new snapshot of the element the old ref named (same role, name and occurrence)."""
    old = _refs(old_snapshot).get(ref)
    if old is None:
        return None
    return next((new_ref for new_ref, spec in _refs(new_snapshot).items() if spec == old), None)


class ToolRunner:
    """Runs the model's calls on the agent's tab; `secrets` are substituted here and redacted from results."""

    def __init__(self, registry: OperationRegistry, call: Call, tab_id: str, secrets: Secrets,
                 data_root: Path) -> None:
        self.registry = registry
        self._call = call
        self.tab_id = tab_id
        self.secrets = secrets
        self.data_root = data_root
        self.tools = AgentTools(registry)
        self.last_snapshot = ""
        self.files: list[str] = []
        self.taken_over = False
        self.on_paused: Callable[[bool], None] | None = None  # True: waiting for the person, False: resumed
        self.page_tag = f"page_data_{os.urandom(4).hex()}"  # delimits what pages say (see the module docstring)

    async def url(self) -> str | None:
        listed = await self._call("tab_list", {})
        for tab in listed.get("tabs") or []:
            if tab.get("id") == self.tab_id:
                return str(tab.get("url") or "")
        return None

    def _params(self, name: str, raw: dict[str, Any]) -> dict[str, Any]:
        self.secrets.check_names(raw)  # placeholders stay: the operations fill them in where they may go
        params = dict(raw)
        fields = self.registry.get(name).params.model_fields
        if "tab_id" in fields and "tabId" not in params and "tab_id" not in params and "env" not in params:
            params["tabId"] = self.tab_id
        if name == "page_handoff":  # the agent waits for the person instead of racing on
            params.update(wait=True, timeoutMs=HANDOFF_WAIT_MS)
        return params

    async def run(self, tool_id: str, name: str, raw: dict[str, Any]) -> tuple[ToolCall, dict[str, Any]]:
        """Run one call; return its record and the `tool_result` block for the model."""
        started = time.monotonic()
        record = ToolCall(id=tool_id, name=name, input=self.secrets.redact(raw), secrets=self.secrets.used_in(raw))
        if name == TOOLS_ENABLE:
            envelope = self.tools.enable(raw)
            record.ok = bool(envelope.get("ok"))
            record.error = None if record.ok else str(envelope.get("error"))
            record.result = envelope
            record.ms = (time.monotonic() - started) * 1000
            return record, self._block(tool_id, name, envelope)
        if not self.tools.allowed(name):
            return self._failed(record, f"there is no tool {name!r} for the agent" + self.tools.how_to_list(name),
                                started)
        try:
            params = self._params(name, raw)
        except SecretError as exc:
            return self._failed(record, str(exc), started)
        before = await self.url()
        envelope = await self._run_with_locator(name, params, record)
        if not envelope.get("ok") and envelope.get("code") == STALE and self._ref(params):
            envelope = await self._retry_stale(name, params, record, envelope)
        if envelope.get("takenOver"):
            await self.pause_for_person()
        after = await self.url()
        record.url = self.secrets.redact(after)
        record.ok = bool(envelope.get("ok"))
        record.changed_page = record.ok and (name in NAVIGATING or name in MAY_CHANGE or before != after
                                             or bool(envelope.get("newTabs")))
        if record.ok and name == "page_snapshot":
            self.last_snapshot = str(envelope.get("snapshot") or "")
        if record.ok and name in ("page_download", "page_save_media") and envelope.get("path"):
            self.files.append(str(envelope["path"]))
        if record.ok and name == "page_screenshot":
            record.screenshot = envelope.get("path")
        if not record.ok:
            record.error = self.secrets.redact(str(envelope.get("error")))
            record.screenshot = envelope.get("errorShot")
        if envelope.get("code") == REFUSED:
            record.refusal = Refusal(secret=str(envelope.get("secret")), tool=name,
                                     site=self.secrets.redact(envelope.get("site")))
        redacted = self.secrets.redact(envelope)
        record.result = _shorten(redacted)
        record.ms = (time.monotonic() - started) * 1000
        return record, self._block(tool_id, name, redacted)

    @staticmethod
    def _ref(params: dict[str, Any]) -> str | None:
        locator = params.get("locator")
        return locator.get("ref") if isinstance(locator, dict) else None

    async def _run_with_locator(self, name: str, params: dict[str, Any], record: ToolCall) -> dict[str, Any]:
        locator = params.get("locator")
        record.locator = None  # only what this attempt's inspection found (a retry inspects again)
        if name in LOCATING and isinstance(locator, dict):
            inspected = await self._call("page_inspect", {"tabId": params.get("tabId", self.tab_id),
                                                          "locator": locator})
            if inspected.get("ok"):
                record.locator = self.secrets.redact(inspected.get("locator"))
            elif inspected.get("code") == STALE:
                return inspected
        op = self.registry.get(name)
        try:
            return await asyncio.wait_for(self._call(name, params), call_timeout(op, params))
        except asyncio.TimeoutError:
            return {"ok": False, "control": None, "error": f"{name} did not answer in time"}

    async def _retry_stale(self, name: str, params: dict[str, Any], record: ToolCall,
                           first: dict[str, Any]) -> dict[str, Any]:
        """One re-snapshot; the same element (role, name, position among equals) gets its new ref; one retry."""
        old_ref = self._ref(params)
        assert old_ref is not None
        old_snapshot = self.last_snapshot
        snap = await self._call("page_snapshot", {"tabId": params.get("tabId", self.tab_id)})
        if not snap.get("ok"):
            return first
        self.last_snapshot = str(snap.get("snapshot") or "")
        new_ref = _same_element(old_snapshot, self.last_snapshot, old_ref)
        record.retried = True
        if new_ref is None:
            return {**first, "error": f"{first.get('error')}; a new snapshot was taken and no element like "
                                      f"{old_ref} is on the page now", "snapshot": self.last_snapshot}
        retry = {**params, "locator": {**params["locator"], "ref": new_ref}}
        log.info("stale ref %s: retrying %s with %s", old_ref, name, new_ref)
        record.input = self.secrets.redact({**record.input, "locator": {**record.input["locator"], "ref": new_ref}})
        result = await self._run_with_locator(name, retry, record)
        notes = [f"ref {old_ref} was stale; after a new page_snapshot the same element is {new_ref}, and the call "
                 f"was run again with it (refs of your older snapshot are no longer valid: take page_snapshot)"]
        return {**result, "notes": notes + list(result.get("notes") or [])}

    async def pause_for_person(self) -> None:
        """A person pressed Take over: wait (at most 10 minutes) until they click Done."""
        self.taken_over = True
        log.info("agent paused on %s: taken over", self.tab_id)
        if self.on_paused:
            self.on_paused(True)
        await self._call("page_handoff", {"tabId": self.tab_id, "message": PAUSE_MESSAGE, "wait": True,
                                          "timeoutMs": HANDOFF_WAIT_MS})
        if self.on_paused:
            self.on_paused(False)
        log.info("agent resumed on %s", self.tab_id)

    def _failed(self, record: ToolCall, error: str, started: float) -> tuple[ToolCall, dict[str, Any]]:
        record.error = self.secrets.redact(error)
        record.result = {"ok": False, "error": record.error}
        record.ms = (time.monotonic() - started) * 1000
        return record, {"type": "tool_result", "tool_use_id": record.id, "is_error": True,
                        "content": [{"type": "text", "text": self._delimited(json.dumps(record.result,
                                                                                        ensure_ascii=False))}]}

    def _delimited(self, text: str) -> str:
        """Text a tool returned, as the untrusted data block the system prompt describes."""
        closing = f"</{self.page_tag}>"
        return f"<{self.page_tag}>\n{text.replace(closing, '')}\n{closing}"

    def _block(self, tool_id: str, name: str, envelope: dict[str, Any]) -> dict[str, Any]:
        """The MCP result of the call (text + screenshot image), in the Messages API's tool_result shape."""
        result = tool_result(name, envelope, self.data_root)
        content: list[dict[str, Any]] = []
        for part in result.content:
            if part.type == "text":
                text = part.text
                if len(text) > MAX_RESULT_CHARS:
                    text = text[:MAX_RESULT_CHARS] + f"… [{len(text) - MAX_RESULT_CHARS} more characters cut]"
                content.append({"type": "text", "text": self._delimited(text)})
            elif part.type == "image":
                content.append({"type": "image", "source": {"type": "base64", "media_type": part.mime_type,
                                                            "data": part.data}})
        return {"type": "tool_result", "tool_use_id": tool_id, "is_error": bool(result.is_error), "content": content}


def _shorten(value: Any, limit: int = 4_000) -> Any:
    """Long strings of a record (snapshots, page text) cut to `limit` characters."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"… [{len(value) - limit} more characters]"
    if isinstance(value, list):
        return [_shorten(item, limit) for item in value]
    if isinstance(value, dict):
        return {key: _shorten(item, limit) for key, item in value.items()}
    return value
