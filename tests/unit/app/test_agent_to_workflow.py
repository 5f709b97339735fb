"""Save as workflow: what the agent did becomes a document that loads cleanly, secrets as secret inputs, and on
request the typed values as start inputs whose defaults are what the agent typed."""

from __future__ import annotations

from app.agent.records import AgentRecord, Step, ToolCall
from app.agent.to_workflow import to_workflow
from workflows.document import validate_document

LOCATOR = {"selector": "#user", "alternatives": [{"label": "User"}]}


def record() -> AgentRecord:
    calls = [ToolCall(id="a", name="page_type", input={"locator": {"ref": "e1"}, "text": "ada"}, ok=True,
                      locator=LOCATOR),
             ToolCall(id="b", name="page_type", input={"selector": "#code"}, ok=False, error="covered"),
             ToolCall(id="c", name="page_type", input={"locator": {"selector": "#code"}, "text": "<secret:code>"},
                      ok=True),
             ToolCall(id="d", name="page_select", input={"locator": {"selector": "#plan"}, "option": "Pro"}, ok=True),
             ToolCall(id="e", name="page_snapshot", input={}, ok=True)]
    return AgentRecord(task="Sign in", model="m", env="env-default", start_url="http://127.0.0.1:1/form",
                       status="succeeded", steps=[Step(index=1, calls=calls)])


def test_typed_values_stay_values_by_default_and_become_inputs_on_request() -> None:
    plain = validate_document(to_workflow(record(), "Kept").document)
    assert plain.warnings == []
    fills = [n.data for n in plain.graph.nodes if n.type in ("fill", "select")]
    assert [getattr(d, "text", None) or getattr(d, "option", None) for d in fills] == ["ada", "{{#input.code#}}", "Pro"]
    assert [(v.variable, v.type) for v in plain.start_variables()] == [("code", "secret")]

    doc = validate_document(to_workflow(record(), "Inputs", typed_as_inputs=True).document)
    assert doc.warnings == []
    fills = [n.data for n in doc.graph.nodes if n.type in ("fill", "select")]
    assert [getattr(d, "text", None) or getattr(d, "option", None) for d in fills] == [
        "{{#input.value1#}}", "{{#input.code#}}", "{{#input.value2#}}"]
    assert [(v.variable, v.type, v.required, v.default) for v in doc.start_variables()] == [
        ("code", "secret", True, None), ("value1", "string", False, "ada"), ("value2", "string", False, "Pro")]
