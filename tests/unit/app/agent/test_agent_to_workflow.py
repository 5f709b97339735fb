"""Save as workflow: what the agent did becomes a document that loads cleanly, each step with what found its element
alone when the agent acted, the checks as its last nodes, secrets as secret inputs, and on request the typed
values as start inputs whose defaults are what the agent typed."""

from __future__ import annotations

from app.stores.agent_runs import AgentRecord, BoundSecret, Check, Step, ToolCall
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
                       status="succeeded", steps=[Step(index=1, calls=calls)],
                       secret_domains=[BoundSecret(name="code", domains=["127.0.0.1"], from_start_page=True)])


def test_typed_values_stay_values_by_default_and_become_inputs_on_request() -> None:
    plain = validate_document(to_workflow(record(), "Kept").document)
    assert plain.warnings == []
    fills = [n.data for n in plain.graph.nodes if n.type in ("fill", "select")]
    assert [getattr(d, "text", None) or getattr(d, "option", None) for d in fills] == ["ada", "{{#input.code#}}", "Pro"]
    assert [(v.variable, v.type) for v in plain.start_variables()] == [("code", "secret")]
    assert plain.start_variables()[0].domains == ["127.0.0.1"]  # the run's binding, kept for the replay

    doc = validate_document(to_workflow(record(), "Inputs", typed_as_inputs=True).document)
    assert doc.warnings == []
    fills = [n.data for n in doc.graph.nodes if n.type in ("fill", "select")]
    assert [getattr(d, "text", None) or getattr(d, "option", None) for d in fills] == [
        "{{#input.value1#}}", "{{#input.code#}}", "{{#input.value2#}}"]
    assert [(v.variable, v.type, v.required, v.default) for v in doc.start_variables()] == [
        ("code", "secret", True, None), ("value1", "string", False, "ada"), ("value2", "string", False, "Pro")]


def test_a_step_keeps_what_found_its_element_alone_and_the_checks_end_the_workflow() -> None:
    computed = {"selector": "#place", "alternatives": [{"role": "button", "name": "Place order", "exact": True}]}
    calls = [ToolCall(id="a", name="page_type", input={"locator": {"ref": "e1"}, "text": "Ada"}, ok=True,
                      locator=LOCATOR),
             ToolCall(id="b", name="page_click", input={"locator": {"selector": "text=Place order"}}, ok=True,
                      locator=computed),
             ToolCall(id="c", name="page_click", input={"locator": {"ref": "e7"}}, ok=True,
                      locator={"alternatives": []}),  # nothing found that element alone
             ToolCall(id="d", name="page_click", input={"locator": {"ref": "e8"}}, ok=True)]  # not inspected
    done = AgentRecord(task="Order", model="m", env="env-default", start_url="http://127.0.0.1:1/shop",
                       status="succeeded", steps=[Step(index=1, calls=calls)],
                       checks=[Check(locator="#confirmation", ok=True), Check(locator="//h1[.='Thanks']", ok=True)])
    conversion = to_workflow(done, "Order")
    doc = validate_document(conversion.document)
    assert doc.warnings == []
    nodes = conversion.document["workflow"]["graph"]["nodes"]
    assert [n["id"] for n in nodes] == ["start", "goto1", "fill2", "click3", "check1", "check2", "end"]
    assert nodes[2]["data"]["locator"] == LOCATOR
    # The computed locator first (ranked for stability), the agent's own selector as one more alternative.
    assert nodes[3]["data"]["locator"] == {"selector": "#place", "alternatives": [
        {"role": "button", "name": "Place order", "exact": True}, {"selector": "text=Place order"}]}
    assert [n["data"]["locator"] for n in nodes[4:6]] == [{"selector": "#confirmation"}, {"xpath": "//h1[.='Thanks']"}]
    assert all(n["data"]["type"] == "wait" and n["data"]["state"] == "appear" and n["data"]["timeout"] == 10
               for n in nodes[4:6])
    assert [e["target"] for e in conversion.document["workflow"]["graph"]["edges"]][-3:] == ["check1", "check2", "end"]
    assert len(conversion.notes) == 2 and all("no locator found only that element" in n for n in conversion.notes)
    assert "e7" in conversion.notes[0] and "e8" in conversion.notes[1]


def test_a_task_without_checks_is_saved_with_a_note_that_a_replay_cannot_confirm_it() -> None:
    conversion = to_workflow(record(), "No checks")
    assert conversion.document["workflow"]["graph"]["nodes"][-2]["data"]["type"] == "select"
    assert any("no checks" in note for note in conversion.notes)


def test_the_agents_own_bare_tag_is_not_kept_and_the_fingerprint_is() -> None:
    """Issue 26: `{"selector": "button"}` finds whatever single button a changed page has left."""
    fingerprint = {"v": 1, "kind": "button", "name": "Place order"}
    computed = {"selector": "#place", "alternatives": [{"role": "button", "name": "Place order", "exact": True}],
                "fingerprint": fingerprint}
    calls = [ToolCall(id="a", name="page_click", input={"locator": {"selector": "button"}}, ok=True, locator=computed),
             ToolCall(id="b", name="page_click", input={"locator": {"selector": "form > div:nth-of-type(2) > a"}},
                      ok=True, locator={"selector": "#more", "alternatives": []})]
    done = AgentRecord(task="Order", model="m", env="env-default", start_url="http://127.0.0.1:1/shop",
                       status="succeeded", steps=[Step(index=1, calls=calls)])
    nodes = to_workflow(done, "Order").document["workflow"]["graph"]["nodes"]
    clicks = [n["data"]["locator"] for n in nodes if n["data"]["type"] == "click"]
    assert clicks[0] == computed
    assert clicks[1] == {"selector": "#more"}
