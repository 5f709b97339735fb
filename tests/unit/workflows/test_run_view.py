"""A run record as callers read it (`RunView`): records made by the engine (against a scripted port), with a
healed node, a failure and the trace a browser keeps, read from their wire form and written back unchanged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.unit.workflows.fake_operations import FakeOperations, document, edge, executor, node
from workflows.runs import RunRecord, RunView

HEALED_FIND = {"ok": True, "control": "agent", "status": "healed", "ref": "e7", "desc": "button 'Save'",
               "score": 0.91, "why": "same text, same role", "locator": {"selector": "#save-2"}}


def run(tmp_path: Path, ops: FakeOperations, locator: dict[str, object] | None = None) -> RunRecord:
    locator = locator or {"selector": "#save"}
    doc = document([node("start", type="start"), node("save", type="click", locator=locator),
                    node("done", type="press", shortcut="Enter")],
                   [edge("start", "save"), edge("save", "done")])
    return asyncio.run(executor(doc, ops, tmp_path / "run-1").run({}))


def with_browser_trace(record: RunRecord) -> RunRecord:
    """The record as a run that kept its trace leaves it (app/browser/trace.py writes these fields)."""
    step = record.trace[1]
    step.at_ms, step.before, step.after = 12.5, "/runs/run-1/trace/1-before.jpg", "/runs/run-1/trace/1-after.jpg"
    step.box, step.element = {"x": 10, "y": 20.5, "width": 80, "height": 24}, "button 'Save'"
    step.console = [{"level": "warning", "text": "slow", "source": "http://site/app.js", "line": 3, "atMs": 14.1}]
    step.page_errors = [{"text": "Uncaught TypeError: x", "source": "http://site/app.js", "line": 9, "atMs": 15}]
    step.requests = [{"method": "POST", "url": "http://site/save", "type": "xhr", "status": 201, "atMs": 16.2,
                      "ms": 40.0, "error": "net::ERR_ABORTED", "requestBody": '{"a":1}', "responseBody": "ok"},
                     {"method": "", "url": "http://site/logo.png", "type": "img", "status": 200, "atMs": 17, "ms": 3,
                      "bytes": 512}, {"method": "GET", "url": "http://site/gone", "type": "fetch", "atMs": 18}]
    record.video, record.tracing = "/runs/run-1/video.webm", {"trace": "always", "video": "always"}
    return record


def round_trip(record: RunRecord) -> tuple[str, RunView]:
    wire = json.dumps(record.view(), ensure_ascii=False)
    view = RunView.model_validate(json.loads(wire), strict=True)
    assert json.dumps(view.wire(), ensure_ascii=False) == wire
    return wire, view


def test_a_healed_traced_run_reads_as_fields_and_writes_back_byte_for_byte(tmp_path: Path) -> None:
    fingerprinted = {"selector": "#save", "fingerprint": {"kind": "button", "text": "Save"}}
    record = with_browser_trace(run(tmp_path, FakeOperations(page_find=[HEALED_FIND]), fingerprinted))
    assert record.status == "ok", record.error
    _wire, view = round_trip(record)
    assert view.ok and view.status == "ok" and view.workflow_name == "Walk" and view.tab_id == "tab-1"
    assert view.started_at == record.started_at.isoformat().replace("+00:00", "Z")
    assert [step.label for step in view.trace] == ["start", "save", "done"]
    healed = view.healed_steps
    assert [step.node for step in healed] == ["save"]
    assert healed[0].healed is not None and healed[0].healed.from_ == "#save"
    assert healed[0].healed.element == "button 'Save'" and healed[0].healed.score == 0.91
    step = view.trace[1]
    assert step.console is not None and step.console[0].level == "warning" and step.console[0].line == 3
    assert step.page_errors is not None and step.page_errors[0].level is None
    assert step.requests is not None and step.requests[0].status == 201 and step.requests[0].request_body == '{"a":1}'
    assert step.requests[1].bytes == 512 and step.requests[2].status is None
    assert view.has_pictures and view.video == "/runs/run-1/video.webm"


def test_a_failed_run_reads_where_it_stopped_and_writes_back_byte_for_byte(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"\x89PNG")
    failure = {"ok": False, "control": "agent", "error": 'no element matches "#save"', "code": "not_found",
               "errorShot": str(shot)}
    record = run(tmp_path, FakeOperations(page_click=[failure]))
    assert record.status == "failed"
    wire, view = round_trip(record)
    assert not view.ok and view.node == view.stopped_at == "save"
    assert view.error == record.error and view.screenshot == record.screenshot
    assert view.trace[-1].ok is False and view.trace[-1].error
    assert not view.has_pictures and '"traceRemoved"' not in wire
    assert view.duration_ms is not None and view.duration_ms >= 0
