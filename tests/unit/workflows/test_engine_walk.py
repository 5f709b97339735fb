"""The engine's walk rules, run against a scripted `OperationsPort` (no browser): the order nodes run in, a node
reached twice, `end` nodes merging, a loop pass walking every entry, a node run again after a person's Take over,
and a run following the tab a click opened. What the operations receive and the run's record are what a person
or an agent would see of the run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.unit.workflows.fake_operations import FakeOperations, document, edge, executor, node


def press(node_id: str) -> dict[str, Any]:
    """A node whose one operation names it: `page_key` with the node's id as the shortcut."""
    return node(node_id, type="press", shortcut=node_id)


def pressed(ops: FakeOperations) -> list[str]:
    return [params["shortcut"] for params in ops.named("page_key")]


def test_branches_run_in_turn_depth_first_in_the_order_of_their_edges(tmp_path: Path) -> None:
    doc = document([node("start", type="start"), press("a"), press("b"), press("a2"), press("b2")],
                   [edge("start", "a"), edge("start", "b"), edge("a", "a2"), edge("b", "b2")])
    ops = FakeOperations()
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "ok", record.error
    assert pressed(ops) == ["a", "a2", "b", "b2"]
    assert [entry.node for entry in record.trace] == ["start", "a", "a2", "b", "b2"]
    assert all(params["tabId"] == "tab-1" for params in ops.named("page_key"))


def test_a_node_reached_twice_fails_the_run_there_and_runs_once(tmp_path: Path) -> None:
    doc = document([node("start", type="start"), press("a"), press("b"), press("joined")],
                   [edge("start", "a"), edge("start", "b"), edge("a", "joined"), edge("b", "joined")])
    ops = FakeOperations()
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "failed"
    assert record.stopped_at == "joined"
    assert "reached twice" in (record.error or "")
    assert pressed(ops) == ["a", "joined", "b"]


def test_branches_may_rejoin_after_an_if_else(tmp_path: Path) -> None:
    case = {"case_id": "yes", "conditions": [{"comparison_operator": "is", "variable_selector": ["sys", "env"],
                                              "value": "env-default"}]}
    doc = document([node("start", type="start"), node("check", type="if-else", cases=[case]), press("yes"),
                    press("no"), press("joined")],
                   [edge("start", "check"), edge("check", "yes", "yes"), edge("check", "no", "false"),
                    edge("yes", "joined"), edge("no", "joined")])
    ops = FakeOperations()
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "ok", record.error
    assert pressed(ops) == ["yes", "joined"]


def test_each_end_ends_its_own_branch_and_the_ends_outputs_merge(tmp_path: Path) -> None:
    doc = document([node("start", type="start"), press("a"), press("b"),
                    node("end1", type="end", outputs=[{"variable": "first", "value_selector": ["a", "shortcut"]}]),
                    node("end2", type="end", outputs=[{"variable": "second", "value_selector": ["b", "shortcut"]}]),
                    press("after_end")],
                   [edge("start", "a"), edge("start", "b"), edge("a", "end1"), edge("end1", "after_end"),
                    edge("b", "end2")])
    ops = FakeOperations()
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "ok", record.error
    assert record.outputs == {"first": "a", "second": "b"}
    assert pressed(ops) == ["a", "b"]  # nothing after an end runs


def test_a_loop_pass_walks_every_entry_of_its_body_in_order(tmp_path: Path) -> None:
    body = [press("one"), press("one_next"), press("two")]  # two entries: nothing leads to one or two
    doc = document([node("start", type="start"),
                    node("items", type="code", code="return {list: ['x', 'y']}", outputs={"list": {"type": "array"}}),
                    node("each", type="loop", mode="list", items_selector=["items", "list"], nodes=body,
                         edges=[edge("one", "one_next")]),
                    press("after")],
                   [edge("start", "items"), edge("items", "each"), edge("each", "after")])

    async def code(source: str, inputs: dict[str, Any], timeout: float) -> Any:
        return {"list": ["x", "y"]}

    events: list[tuple[str, dict[str, Any]]] = []
    ops = FakeOperations()
    record = asyncio.run(executor(doc, ops, tmp_path, code=code, events=events).run({}))
    assert record.status == "ok", record.error
    assert pressed(ops) == ["one", "one_next", "two"] * 2 + ["after"]
    assert [fields["index"] for kind, fields in events if kind == "loop_pass"] == [1, 2]
    # Each pass's result is the output of the last node of that pass that produced one: a press produces none.
    assert record.outputs == {"output": [{}, {}], "index": 2}


def test_a_node_that_failed_while_a_person_had_taken_over_runs_again_once_they_resume(tmp_path: Path) -> None:
    doc = document([node("start", type="start"), node("go", type="click", locator={"selector": "#go"}), press("next")],
                   [edge("start", "go"), edge("go", "next")])
    ops = FakeOperations(page_click=[
        {"ok": False, "control": "handoff", "takenOver": True, "error": "the person has the tab", "code": "taken_over"},
        {"ok": True, "control": "agent", "x": 5, "y": 7, "element": "button 'Go'"}])
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "ok", record.error
    assert record.taken_over is True
    assert [name for name, _ in ops.calls if name in ("page_click", "page_handoff", "page_key")] == [
        "page_click", "page_handoff", "page_click", "page_key"]
    handoff = ops.named("page_handoff")[0]
    assert handoff["wait"] is True and "Done" in handoff["message"]
    assert pressed(ops) == ["next"]


def test_a_take_over_that_is_never_resumed_ends_the_run_as_taken_over(tmp_path: Path) -> None:
    doc = document([node("start", type="start"), node("go", type="click", locator={"selector": "#go"}), press("next")],
                   [edge("start", "go"), edge("go", "next")])
    ops = FakeOperations(
        page_click=[{"ok": False, "control": "handoff", "takenOver": True, "error": "the person has the tab"}],
        page_handoff=[{"ok": False, "control": "handoff", "error": "nobody clicked Done", "code": "timeout"}])
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "taken_over"
    assert "did not resume" in (record.error or "")
    assert len(ops.named("page_click")) == 1 and pressed(ops) == []


def test_a_click_that_opened_a_tab_moves_the_rest_of_the_run_into_it(tmp_path: Path) -> None:
    doc = document([node("start", type="start"),
                    node("open", type="click", locator={"selector": "#open"}, followNewTab=True), press("there")],
                   [edge("start", "open"), edge("open", "there")])
    ops = FakeOperations(page_click=[{"ok": True, "control": "agent", "x": 1, "y": 2, "newTabs": ["tab-2"]}])
    events: list[tuple[str, dict[str, Any]]] = []
    record = asyncio.run(executor(doc, ops, tmp_path, events=events).run({}))
    assert record.status == "ok", record.error
    assert ops.named("page_lock") == [{"tabId": "tab-2"}]
    assert ops.named("page_key") == [{"tabId": "tab-2", "shortcut": "there", "timeoutMs": 10_000}]
    # Both tabs' last requests are waited for at the end of the run.
    assert [params["tabId"] for params in ops.named("page_settle")] == ["tab-1", "tab-2"]
    output = next(fields["output"] for kind, fields in events if kind == "node_finished" and fields["node"] == "open")
    assert output == {"x": 1, "y": 2, "tabId": "tab-2"}


def test_a_tab_opened_a_moment_after_the_click_is_found_by_the_next_look(tmp_path: Path) -> None:
    doc = document([node("start", type="start"),
                    node("open", type="click", locator={"selector": "#open"}, followNewTab=True), press("there")],
                   [edge("start", "open"), edge("open", "there")])
    ops = FakeOperations(page_script=[{"ok": True, "value": None, "sourceKind": "function body"},
                                      {"ok": True, "value": None, "sourceKind": "function body", "newTabs": ["tab-3"]}])
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "ok", record.error
    assert [params["tabId"] for params in ops.named("page_script")] == ["tab-1", "tab-1"]
    assert ops.named("page_key")[0]["tabId"] == "tab-3"


def test_a_click_without_follow_stays_in_its_tab_when_the_page_opens_one(tmp_path: Path) -> None:
    doc = document([node("start", type="start"), node("open", type="click", locator={"selector": "#open"}),
                    press("here")], [edge("start", "open"), edge("open", "here")])
    ops = FakeOperations(page_click=[{"ok": True, "x": 1, "y": 2, "newTabs": ["tab-2"]}])
    record = asyncio.run(executor(doc, ops, tmp_path).run({}))
    assert record.status == "ok", record.error
    assert ops.named("page_key")[0]["tabId"] == "tab-1" and ops.named("page_lock") == []


def test_a_failed_operation_fails_its_node_with_the_failure_screenshot_in_the_run_folder(tmp_path: Path) -> None:
    shot = tmp_path / "elsewhere" / "shot-1.png"
    shot.parent.mkdir()
    shot.write_bytes(b"\x89PNG one failure")
    doc = document([node("start", type="start"), node("go", type="click", locator={"selector": "#gone"}), press("next")],
                   [edge("start", "go"), edge("go", "next")])
    ops = FakeOperations(page_click=[{"ok": False, "control": "agent", "error": 'no element matches "#gone"',
                                      "code": "not_found", "errorShot": str(shot)}])
    folder = tmp_path / "run-1"
    record = asyncio.run(executor(doc, ops, folder).run({}))
    assert record.status == "failed" and record.stopped_at == "go"
    assert record.error == "node 'go' (click): no element matches \"#gone\""
    assert record.screenshot == str(folder / "failure-shot-1.png")
    assert Path(record.screenshot).read_bytes() == b"\x89PNG one failure" and not shot.exists()
    assert pressed(ops) == []
