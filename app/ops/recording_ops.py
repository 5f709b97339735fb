"""Recording a person's actions as a workflow: record_start, record_status, record_edit, record_stop.

One implementation for the GUI's Record button and Recording panel, agents (MCP) and tests. One recording per
tab at a time (the tab's recording part); the recording itself lives on the tab and goes when the tab closes.
`record_stop` builds the BrowserPilot 0.3.0 document (checked with `validate_document`, no warnings) and saves
it in workflows.json by name unless `save: false`.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from app.ops.context import OpContext
from app.ops.page_session import TabParams
from app.ops.registry import Operation, OpError, operation
from app.ops.results import RecordStopResult
from workflows.document import validate_document
from workflows.envelope import Envelope
from workflows.io import dump_document
from workflows.ports import TabPort
from workflows.recording import Recording, RecordingError
from workflows.results import RecordStatusResult


class RecordStopParams(TabParams):
    name: str = Field(min_length=1, description="The workflow's name (saving a name that exists replaces it).")
    save: bool = Field(default=True, description="Save it in workflows.json (default); false: only return it.")
    description: str | None = Field(default=None, description="The workflow's description.")


class RecordEditParams(TabParams):
    action: Literal["delete", "set_value", "make_input", "set_locator", "insert"] = Field(
        description="delete a step, set_value (typed text, option, keys, address, message), make_input (a "
                    "typed value becomes the start input `name`), set_locator (use alternative `index`), insert "
                    "(`kind`: handoff, captcha, wait, capture, check; wait/capture/check: the next click in the "
                    "page picks the element).")
    step: str | None = Field(default=None, description="The step id (from record_status).")
    value: str | None = None
    name: str | None = Field(default=None, description="make_input: the input's name; insert capture: the output.")
    index: int | None = Field(default=None, ge=0, description="set_locator: the alternative's index.")
    kind: Literal["handoff", "captcha", "wait", "capture", "check"] | None = None
    message: str | None = Field(default=None, description="insert handoff: the message for the person.")


async def _tab(ctx: OpContext, params: TabParams) -> TabPort:
    assert ctx.browser is not None
    return await ctx.browser.tab(params.tab_id, params.env)


def _answer(tab: TabPort, status: RecordStatusResult) -> Envelope[RecordStatusResult]:
    """A recording's status as record_start, record_status and record_edit answer it: for its tab, with what the
    person did that could not be recorded as the answer's notes."""
    notes = list(tab.recording.recording().notes) if tab.recording.active else []
    return Envelope.model_construct(ok=True, control=None, tab_id=tab.tab_id, notes=notes, data=status)


def build_document(recording: Recording, name: str, description: str | None = None) -> dict[str, Any]:
    """The recording as a checked document (an error when it would not load without warnings)."""
    try:
        document = validate_document(recording.document(name, description or ""))
    except RecordingError as exc:
        raise OpError(str(exc)) from None
    if document.warnings:
        raise OpError("the recording makes a document with problems: " + "; ".join(document.warnings))
    return json.loads(dump_document(document))


@operation("record_start", TabParams, RecordStatusResult, needs_browser=True, group="recording")
async def record_start(ctx: OpContext, params: TabParams) -> Envelope[RecordStatusResult]:
    """Start recording a person's actions in the tab (one recording per tab). The page shown becomes the
    first step (goto). Only trusted input of a person is recorded, never the app's own operations."""
    tab = await _tab(ctx, params)
    return _answer(tab, tab.recording.start())


@operation("record_status", TabParams, RecordStatusResult, needs_browser=True, read_only=True, group="recording")
async def record_status(ctx: OpContext, params: TabParams) -> Envelope[RecordStatusResult]:
    """The steps recorded so far in the tab: [{id, type, words, locator, alternatives?, data, note?}], and
    `paused` while the app itself acts on the tab."""
    tab = await _tab(ctx, params)
    return _answer(tab, tab.recording.status())


@operation("record_edit", RecordEditParams, RecordStatusResult, needs_browser=True, group="recording")
async def record_edit(ctx: OpContext, params: RecordEditParams) -> Envelope[RecordStatusResult]:
    """Edit the running recording: delete a step, set its value, make a typed value a start input, switch
    its locator to another recorded alternative, or insert handoff / captcha / wait / capture / check."""
    tab = await _tab(ctx, params)
    part = tab.recording
    recording = part.recording()

    def need(value: Any, what: str) -> Any:
        if value is None:
            raise OpError(f"{params.action} needs {what}")
        return value

    try:
        if params.action == "delete":
            recording.delete(need(params.step, "step"))
        elif params.action == "set_value":
            recording.set_value(need(params.step, "step"), need(params.value, "value"))
        elif params.action == "make_input":
            recording.make_input(need(params.step, "step"), need(params.name, "name"))
        elif params.action == "set_locator":
            recording.set_locator(need(params.step, "step"), need(params.index, "index"))
        else:
            recording.insert(need(params.kind, "kind"), params.step, params.message or "", params.name or "")
    except RecordingError as exc:
        raise OpError(str(exc)) from None
    part.edited()
    return _answer(tab, part.status())


@operation("record_stop", RecordStopParams, RecordStopResult, needs_browser=True, group="recording")
async def record_stop(ctx: OpContext, params: RecordStopParams) -> Envelope[RecordStopResult]:
    """Stop recording the tab and return {name, workflow: <document>, notes?: what could not be recorded}; saved
    in workflows.json (by name) unless save is false. A document that would not check is an error, and the
    recording goes on; so is a recording holding a person's action that could not be recorded (a step with
    `missing`): delete such steps (after doing the action again in a way that records) to save."""
    tab = await _tab(ctx, params)
    recording = tab.recording.recording()
    document = build_document(recording, params.name, params.description)
    result = RecordStopResult(name=document["app"]["name"], workflow=document, saved=False)
    if params.save:
        nodes = len(document["workflow"]["graph"]["nodes"])
        saved, replaced = ctx.workflows.save(document["app"]["name"], document["app"].get("description") or "",
                                             document, nodes, reason="record")
        result = RecordStopResult(name=result.name, workflow=document, saved=True, id=saved.id, replaced=replaced)
    tab.recording.stop()
    # The notes: what the person did that is not in the workflow; they must know before relying on it.
    return Envelope.model_construct(ok=True, tab_id=tab.tab_id, notes=list(recording.notes), data=result)


OPERATIONS: tuple[Operation[Any, Any], ...] = (record_start, record_status, record_edit, record_stop)
