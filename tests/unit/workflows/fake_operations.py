"""An `OperationsPort` for running the engine without a browser: answers scripted per operation, every call kept.

An answer is an operation's wire envelope (`{ok, ...}`), read into the operation's result model as the registry's
typed call reads it, so a scripted answer that does not fit the model fails the test. Operations a test does not
script answer as a page with nothing to report would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from workflows.document import WorkflowDocument, validate_document
from workflows.engine import Executor, RunSettings
from workflows.envelope import Envelope
from workflows.operations import Op
from workflows.runs import RunRecord

Answer = Callable[[dict[str, Any]], dict[str, Any]]

QUIET: dict[str, dict[str, Any]] = {
    "page_settle": {"ok": True, "settled": True, "pending": []},
    "page_lock": {"ok": True, "control": "agent"},
    "page_unlock": {"ok": True, "control": "shared"},
    "page_handoff": {"ok": True, "control": "agent", "ended": "done"},
    "page_screenshot": {"ok": False, "error": "no screenshots without a browser", "code": "failed"},
    "net_export": {"ok": True, "path": None},
    "page_key": {"ok": True, "control": "agent"},  # + the shortcut pressed
    "page_click": {"ok": True, "control": "agent", "x": 10, "y": 20, "element": "button 'Go'"},
    "page_script": {"ok": True, "control": "agent", "value": None, "sourceKind": "function body"},
}


class FakeOperations:
    """Answers each call from `script[name]` (a list of answers used in turn, the last one kept; or a function
    of the parameters), else from `QUIET`; `calls` is every call as (name, parameters)."""

    def __init__(self, **script: list[dict[str, Any]] | Answer) -> None:
        self.script = script
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, op: Op[Any], params: dict[str, Any]) -> Envelope[Any]:
        self.calls.append((op.name, params))
        return Envelope.parse(self._wire(op.name, params), op.result, strict=True)

    def _wire(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        scripted = self.script.get(name)
        if callable(scripted):
            return scripted(params)
        if scripted:
            return scripted.pop(0) if len(scripted) > 1 else scripted[0]
        if name == "page_key":
            return {**QUIET[name], "shortcut": params["shortcut"]}
        if name in QUIET:
            return QUIET[name]
        raise AssertionError(f"the test did not expect {name} {params}")

    def named(self, name: str) -> list[dict[str, Any]]:
        """The parameters of each call of one operation, in order."""
        return [params for called, params in self.calls if called == name]


def node(node_id: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": data, "position": {"x": 0, "y": 0}}


def edge(source: str, target: str, handle: str = "source") -> dict[str, Any]:
    return {"id": f"{source}-{target}-{handle}", "source": source, "target": target, "sourceHandle": handle}


def document(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> WorkflowDocument:
    return validate_document({"app": {"name": "Walk"}, "kind": "workflow", "version": "0.3.0",
                              "workflow": {"graph": {"nodes": nodes, "edges": edges}}})


async def no_code(source: str, inputs: dict[str, Any], timeout: float) -> Any:
    raise AssertionError("this workflow runs no code")


def executor(doc: WorkflowDocument, ops: FakeOperations, folder: Path, *, code: Any = no_code,
             events: list[tuple[str, dict[str, Any]]] | None = None) -> Executor:
    """An executor of `doc` on the tab `tab-1` of the default environment, its run folder `folder`."""
    record = RunRecord(id="run-1", workflow_name=doc.name, env="env-default", tab_id="tab-1")
    on_event = (lambda kind, fields: events.append((kind, fields))) if events is not None else None
    return Executor(doc, ops, code, lambda tab: (f"http://site/{tab}", f"page of {tab}"),
                    RunSettings(env_id="env-default", tab_id="tab-1", folder=folder), record, on_event=on_event)

