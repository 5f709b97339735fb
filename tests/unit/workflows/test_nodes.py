"""Node data models: the 22-type registry, every type's fields, locators → port locators, conditions, graphs."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from pydantic import ValidationError

from workflows.nodes import (DEFAULT_UNTIL_MAX, NODE_TYPES, Condition, Graph, LocatorAlternative, LoopData, Node,
                             NodeLocator)
from workflows.ports import Locator

TYPES = ["start", "end", "if-else", "loop", "goto", "click", "fill", "select", "press", "scroll", "swipe", "upload",
         "wait", "extract", "export", "script", "code", "cdp", "http-request", "download", "handoff", "captcha"]

LOC = {"selector": "#x"}
BODY = [{"id": "b1", "data": {"type": "goto", "url": "https://example.com"}}]

# One valid `data` per type, using the fields each type declares (workflows/nodes/).
VALID: dict[str, list[dict[str, Any]]] = {
    "start": [{}, {"variables": [{"variable": "q", "label": "Query", "type": "paragraph", "required": False},
                                 {"variable": "pw", "type": "secret"},
                                 {"variable": "c", "type": "select", "options": ["a", "b"]}]}],
    "end": [{"outputs": [{"variable": "out", "value_selector": ["n1", "value"]}]}],
    "if-else": [{"cases": [{"case_id": "true", "conditions": [
        {"comparison_operator": op, "variable_selector": ["sys", "url"], "value": "x"}
        for op in ("contains", "not contains", "is", "is not", "starts with", "ends with", "start with", "end with")]},
        {"case_id": "n", "logical_operator": "or", "conditions": [
            {"comparison_operator": op, "variable_selector": ["input", "n"], "value": "3"}
            for op in (">", "<", "≥", "≤", "=", "≠", ">=", "<=", "!=", "==")]},
        {"case_id": "e", "conditions": [{"comparison_operator": "empty", "variable_selector": ["input", "q"]},
                                        {"comparison_operator": "not empty", "variable_selector": ["input", "q"]}]},
        {"case_id": "l", "conditions": [{"comparison_operator": "locator", "locator": LOC, "timeoutMs": "800"}]}]}],
    "loop": [{"mode": "list", "items_selector": ["n1", "rows"], "nodes": BODY},
             {"mode": "until", "until": {"comparison_operator": "locator", "value": "a.next[disabled]"}, "max": "5",
              "nodes": BODY, "edges": []}],
    "goto": [{"url": "{{#env.base#}}/login"}],
    "click": [{"locator": LOC}, {"locator": LOC, "until": {"xpath": "//div[@id='done']"}},
              {"x": 10, "y": "20.5"}, {"x": 10, "y": 20, "shotWidth": 1280, "shotHeight": 720},
              {"locator": LOC, "button": "right", "count": 2}],
    "fill": [{"locator": LOC, "text": "hi"}, {"locator": LOC, "entry": "paste", "text": ""},
             {"locator": {"xpath": "//input", "selector": ""}, "entry": "type", "text": "{{#input.q#}}"}],
    "select": [{"locator": LOC, "option": "France"}],
    "press": [{"shortcut": "ctrl+a"}, {"shortcut": "enter"}],
    "scroll": [{}, {"direction": "up", "locator": LOC, "until": LOC}],
    "swipe": [{"direction": "left"}, {"direction": "down", "until": LOC}],
    "upload": [{"locator": LOC, "paths": ["/tmp/a.txt", "{{#n1.path#}}"]}],
    "wait": [{"locator": LOC}, {"locator": LOC, "state": "gone", "timeout": "20"}, {"locator": LOC, "timeout": 2.5}],
    "extract": [{"variable_selector": ["n1", "body"], "pattern": r"id=(\d+)", "flags": "gi", "group": 1},
                {"variable_selector": ["n1", "body"], "pattern": "(?<n>x)", "group": "n"}],
    "export": [{"data_selector": ["n1", "table"]},
               {"filename": "rows.csv", "headers": ["a", "b"], "rows_selector": ["n1", "rows"], "format": "csv"},
               {"filename": "rows.pdf", "headers_selector": ["n1", "h"], "rows_selector": ["n1", "rows"],
                "format": "pdf"}] + [{"data_selector": ["n"], "format": f} for f in ("json", "jsonl", "md")],
    "script": [{"source": "return {t: document.title};", "outputs": {"t": {"type": "string"}}}],
    "code": [{"code": "return {n: inputs.a + 1};", "variables": [{"variable": "a", "value_selector": ["input", "a"]}],
              "outputs": {"n": {"type": "number"}}, "timeout": "5"}],
    "cdp": [{"method": "Network.enable"}, {"method": "Page.navigate", "params": {"url": "https://x"}},
            {"method": "Emulation.setUserAgentOverride", "params": '{"userAgent": "{{#input.ua#}}"}'}],
    "http-request": [{"url": "https://api.example.com"},
                     {"method": "post", "url": "https://x", "headers": "A: 1\nB: 2", "body": "{}", "via": "direct"}],
    "download": [{"locator": LOC, "savePath": "a.pdf"}, {"url": "https://x/a.pdf", "saveAs": "b.pdf"}],
    "handoff": [{"message": "Please log in"}, {}],
    "captcha": [{"engine": "2captcha", "retries": "3"}, {"locator": LOC}],
}


def test_registry_has_exactly_the_22_types_and_each_model_names_its_type() -> None:
    assert list(NODE_TYPES) == TYPES
    for name, model in NODE_TYPES.items():
        assert get_args(model.model_fields["type"].annotation) == (name,)


@pytest.mark.parametrize("kind, data", [(k, d) for k, ds in VALID.items() for d in ds])
def test_valid_data_of_every_type_validates_and_dumps_back_unchanged(kind: str, data: dict[str, Any]) -> None:
    raw = {"type": kind, "title": f"a {kind}", "note": {"kept": True}, **data}
    node = Node.model_validate({"id": "n9", "data": raw})
    assert isinstance(node.data, NODE_TYPES[kind]) and node.type == kind and node.title == f"a {kind}"
    again = Node.model_validate(node.model_dump(mode="json", exclude_unset=True))
    assert again == node
    assert node.data.model_dump(mode="json", exclude_unset=True)["note"] == {"kept": True}


def test_numbers_may_arrive_as_strings() -> None:
    wait = NODE_TYPES["wait"].model_validate({"type": "wait", "locator": LOC, "timeout": "20"})
    assert wait.timeout == 20 and isinstance(wait.timeout, int)  # type: ignore[attr-defined]
    click = NODE_TYPES["click"].model_validate({"type": "click", "x": " 10.5 ", "y": 3})
    assert (click.x, click.y) == (10.5, 3)  # type: ignore[attr-defined]
    fill = NODE_TYPES["fill"].model_validate({"type": "fill", "locator": LOC, "text": 42})
    assert fill.text == "42"  # type: ignore[attr-defined]
    for bad in ("soon", True, [], "nan", "inf", -1, {}):
        with pytest.raises(ValidationError):
            NODE_TYPES["wait"].model_validate({"type": "wait", "locator": LOC, "timeout": bad})


def test_loop_defaults_and_inner_graph() -> None:
    until = LoopData.model_validate({"type": "loop", "mode": "until", "nodes": BODY,
                                     "until": {"comparison_operator": "empty", "variable_selector": ["x"]}})
    assert until.max_passes == DEFAULT_UNTIL_MAX == 40
    listed = LoopData.model_validate({"type": "loop", "mode": "list", "items_selector": ["a"], "max": 3,
                                      "nodes": BODY + [{"id": "b2", "data": {"type": "press", "shortcut": "tab"}}],
                                      "edges": [{"source": "b1", "target": "b2"}]})
    assert listed.max_passes == 3
    assert LoopData.model_validate({"type": "loop", "mode": "list", "items_selector": ["a"],
                                    "nodes": BODY}).max_passes is None
    assert listed.graph.start_node().id == "b1" and listed.graph.successors("b1") == ["b2"]
    assert listed.edges[0].id == "e0-b1-b2" and listed.edges[0].sourceHandle == "source"


# -- locators ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alternative, expected", [
    ({"role": "button", "name": "Place order"}, ['role=button[name="Place order"]']),
    ({"role": "button", "name": "Place order", "exact": True}, ['role=button[name="Place order"s]']),
    ({"role": "navigation"}, ["role=navigation"]),
    ({"name": "Email"}, ["label=Email", "text=Email"]),
    ({"name": "Email", "exact": True}, ['label="Email"', 'text="Email"']),
    ({"testid": "submit"}, ['testid="submit"']),
    ({"label": "Full name"}, ["label=Full name"]),
    ({"text": "Sign in"}, ["text=Sign in"]),
    ({"text": 'Say "hi"', "exact": True}, ['text="Say \\"hi\\""']),
    ({"text": "a >> b"}, [r"text=/a \x3e\x3e b/i"]),
    ({"placeholder": "Search"}, ["placeholder=Search"]),
    ({"selector": "form#login button"}, ["form#login button"]),
    ({"selector": "/html/body/button"}, ["xpath:/html/body/button"]),
    ({"xpath": "//button[2]"}, ["xpath://button[2]"]),
])
def test_alternatives_become_port_locators(alternative: dict[str, Any], expected: list[str]) -> None:
    locators = LocatorAlternative.model_validate(alternative).selectors()
    assert [f"xpath:{l.xpath}" if l.xpath else l.selector for l in locators] == expected
    assert all(isinstance(l, Locator) for l in locators)


def test_candidates_try_selector_then_xpath_then_alternatives_without_repeats() -> None:
    locator = NodeLocator.model_validate({"selector": "#go", "xpath": "//button[@id='go']", "alternatives": [
        {"role": "button", "name": "Go"}, {"selector": "#go"}, {"testid": "go"}, {"name": "Go"}]})
    assert [(c.source, c.locator.label()) for c in locator.labeled_candidates()] == [
        ("selector", "#go"), ("xpath", "//button[@id='go']"), ("alternatives[0]", 'role=button[name="Go"]'),
        ("alternatives[2]", 'testid="go"'), ("alternatives[3]", "label=Go"), ("alternatives[3]", "text=Go")]
    assert locator.candidates()[0] == Locator(selector="#go")


def test_original_locators_load_as_they_are() -> None:
    assert NodeLocator.model_validate({"xpath": "//a", "selector": ""}).candidates() == [Locator(xpath="//a")]
    assert NodeLocator.model_validate("//a").xpath == "//a"
    assert NodeLocator.model_validate("#a").selector == "#a"
    assert NodeLocator.model_validate({"alternatives": [{"text": "Next"}]}).candidates() == [
        Locator(selector="text=Next")]
    for bad in ({}, {"selector": " "}, {"selector": "", "xpath": ""}, {"alternatives": []}, {"xpath": "div"}):
        with pytest.raises(ValidationError):
            NodeLocator.model_validate(bad)
    for bad_alt in ({}, {"text": "a", "label": "b"}, {"role": "bad role!"}, {"xpath": "a/b"}, {"name": " "}):
        with pytest.raises(ValidationError):
            LocatorAlternative.model_validate(bad_alt)


# -- conditions and graphs ---------------------------------------------------------------------------------
def test_condition_operators_are_canonicalised_and_locator_conditions_find_their_target() -> None:
    pairs = {"start with": "starts with", ">=": "≥", "<=": "≤", "!=": "≠", "==": "=", "null": "empty",
             "contains": "contains", "≥": "≥"}
    for given, canonical in pairs.items():
        condition = Condition.model_validate({"comparison_operator": given, "variable_selector": ["a"], "value": 1})
        assert condition.operator() == canonical
    by_value = Condition.model_validate({"comparison_operator": "locator", "value": "//div[@id='x']"})
    assert by_value.target_locator() == NodeLocator(xpath="//div[@id='x']")
    by_locator = Condition.model_validate({"comparison_operator": "locator", "locator": LOC, "timeoutMs": 300})
    assert by_locator.target_locator() == NodeLocator(selector="#x") and by_locator.timeoutMs == 300
    # Conditions that cannot be evaluated load (the document warns) and fail only when a run evaluates them.
    assert Condition.model_validate({"comparison_operator": "matches", "variable_selector": ["a"]}).lint() == [
        "comparison_operator 'matches' is not known: a run fails when it evaluates it"]
    assert Condition.model_validate({"comparison_operator": "contains"}).lint() == [
        'needs variable_selector for the operator "contains"']
    assert Condition.model_validate({"comparison_operator": "locator"}).lint() == ["the locator operator needs a locator"]
    with pytest.raises(ValidationError):
        Condition.model_validate({"comparison_operator": "locator", "timeoutMs": "soon"})


def test_successors_follow_if_else_handles_and_plain_edges() -> None:
    graph = Graph.model_validate({"nodes": [
        {"id": "s", "data": {"type": "start"}},
        {"id": "c", "data": {"type": "if-else", "cases": [
            {"case_id": "true", "conditions": [{"comparison_operator": "empty", "variable_selector": ["x"]}]}]}},
        {"id": "a", "data": {"type": "press", "shortcut": "a"}},
        {"id": "b", "data": {"type": "press", "shortcut": "b"}},
        {"id": "e", "data": {"type": "end"}}],
        "edges": [{"source": "s", "target": "c"}, {"source": "c", "target": "a", "sourceHandle": "true"},
                  {"source": "c", "target": "b", "sourceHandle": "false"}, {"source": "a", "target": "e"},
                  {"source": "b", "target": "e"}]})
    assert graph.start_node().id == "s"
    assert graph.successors("c", "true") == ["a"] and graph.successors("c", "false") == ["b"]
    assert graph.successors("c") == ["a", "b"] and graph.successors("s") == ["c"]
    assert graph.predecessors("e") == ["a", "b"]
    assert graph.node("a").data.shortcut == "a"  # type: ignore[union-attr]
    assert graph.node("c").data.handles() == ["true", "false"]  # type: ignore[union-attr]
    with pytest.raises(KeyError, match='no node "zz"'):
        graph.node("zz")
    assert [e.id for e in graph.edges][:2] == ["e0-s-c", "e1-c-a"]
