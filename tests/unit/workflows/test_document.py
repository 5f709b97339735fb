"""The workflow document: a realistic 0.3.0 file, the helpers the executor uses, and every validation error
with its exact message and place."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from workflows.document import DocumentError, validate_document
from workflows.nodes import NODE_TYPES, IfElseData, LoopData

FIXTURES = Path(__file__).parent / "fixtures"
KNOWN = ", ".join(NODE_TYPES)


def fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "shop_orders_0.3.0.json").read_text("utf-8"))


def minimal(nodes: list[dict[str, Any]] | None = None, edges: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """start → fill1 → end, or the given nodes and edges."""
    nodes = nodes if nodes is not None else [
        {"id": "start", "data": {"type": "start"}},
        {"id": "fill1", "data": {"type": "fill", "locator": {"selector": "#q"}, "text": "x"}},
        {"id": "end", "data": {"type": "end"}}]
    edges = edges if edges is not None else [{"source": "start", "target": "fill1"},
                                             {"source": "fill1", "target": "end"}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "t", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def loop(nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None, node_id: str = "loop1") -> dict[str, Any]:
    return {"id": node_id, "data": {"type": "loop", "mode": "list", "items_selector": ["input", "rows"],
                                    "nodes": nodes, "edges": edges or []}}


def press(node_id: str) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": "press", "shortcut": "tab"}}


def problems_of(raw: Any) -> list[str]:
    with pytest.raises(DocumentError) as caught:
        validate_document(raw)
    return caught.value.problems


def test_the_fixture_uses_every_node_type_and_loads() -> None:
    doc = validate_document(fixture())
    assert {node.type for node, _ in doc.iter_nodes()} == set(NODE_TYPES)
    assert doc.name == "Shop orders export" and doc.version == "0.3.0" and doc.node_count() == 27


def test_helpers_the_executor_uses() -> None:
    doc = validate_document(fixture())
    graph = doc.graph
    assert graph.start_node().id == "start" and doc.start_node().id == "start"
    assert [v.variable for v in doc.start_variables()] == ["username", "password", "pages", "category", "notes",
                                                           "since"]
    assert [v.required for v in doc.start_variables()] == [True, True, False, True, False, False]
    assert doc.secret_names() == ["password"]
    assert [(o.variable, o.value_selector) for o in doc.end_outputs()] == [
        ("csv", ["to_csv", "path"]), ("invoice", ["invoice", "path"])]
    assert doc.env_values() == {"base_url": "http://127.0.0.1:8765", "page_size": 25}
    # if-else: one edge per case_id, and the else branch
    check = graph.node("check")
    assert isinstance(check.data, IfElseData) and check.data.handles() == ["true", "vip", "no-notes", "false"]
    assert [graph.successors("check", h) for h in check.data.handles()] == [["pager"], ["vip_banner"], ["dismiss"],
                                                                          ["ask"]]
    assert graph.successors("login_page") == ["user"]
    assert [c.operator() for c in check.data.cases[1].conditions] == ["locator", "≥"]
    # nested loops: a list loop inside an until loop
    pager = graph.node("pager").data
    assert isinstance(pager, LoopData) and pager.mode == "until" and pager.max_passes == 10
    assert pager.until is not None and pager.until.target_locator() is not None
    body = pager.graph
    assert body.start_node().id == "collect" and body.successors("collect") == ["rows"]
    rows = body.node("rows").data
    assert isinstance(rows, LoopData) and rows.mode == "list" and rows.items_selector == ["collect", "items"]
    assert rows.graph.start_node().id == "order_no" and rows.graph.successors("order_no") == ["norm"]
    assert doc.find_node("norm") is not None and doc.find_node("nope") is None
    # numbers given as strings, original locators, extensions
    assert graph.node("dash").data.timeout == 20  # type: ignore[union-attr]
    assert graph.node("captcha1").data.retries == 3  # type: ignore[union-attr]
    assert [c.label() for c in graph.node("pass").data.locator.candidates()] == [  # type: ignore[union-attr]
        "//input[@name='password']"]
    assert [c.label() for c in graph.node("login").data.locator.candidates()] == [  # type: ignore[union-attr]
        "form#login button[type=submit]", 'role=button[name="Sign in"s]', 'testid="login-submit"', "text=Sign in",
        "//form[@id='login']//button"]
    assert graph.node("api").data.http_method == "POST"  # type: ignore[union-attr]


def test_edge_defaults_are_filled() -> None:
    doc = validate_document(fixture())
    first, second = doc.graph.edges[:2]
    assert (first.id, first.sourceHandle, first.targetHandle) == ("e-start", "source", "target")
    assert (second.id, second.sourceHandle, second.targetHandle) == ("e1-login_page-user", "source", "target")


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        *head, last = path.split("/")
        target: Any = doc
        for key in head:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        elif value is _DELETE:
            del target[last]
        else:
            target[last] = value
    return apply


_DELETE = object()
G = "workflow/graph"


@pytest.mark.parametrize("change, kind, expected", [
    (_set(f"{G}/nodes/1/data/locator", {}), 'warning',
     'graph.nodes[1] (id "fill1", type fill): locator needs selector or xpath (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data/locator", {"selector": "", "xpath": ""}), 'warning',
     'graph.nodes[1] (id "fill1", type fill): locator needs selector or xpath (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data/locator", {"xpath": "input"}), 'warning',
     'graph.nodes[1] (id "fill1", type fill): locator xpath must start with / (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data/text", _DELETE), 'warning',
     'graph.nodes[1] (id "fill1", type fill): text is required (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data/entry", "typo"), 'warning',
     'graph.nodes[1] (id "fill1", type fill): entry must be \'type\' or \'paste\', not "typo" (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data/locator/alternatives", [{"text": "a", "label": "b"}]), 'warning',
     'graph.nodes[1] (id "fill1", type fill): locator.alternatives[0] needs exactly one of role/name, testid, label, text, placeholder, selector or xpath (found label, text) (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data/type", "hover"), 'warning',
     'graph.nodes[1] (id "fill1", type hover): unknown node type "hover": a run fails if it reaches this node'),
    (_set(f"{G}/nodes/1/data/type", _DELETE), 'refused',
     f'graph.nodes[1] (id "fill1"): data type is required (one of {KNOWN})'),
    (_set(f"{G}/nodes/1/data", "fill"), 'refused',
     'graph.nodes[1] (id "fill1"): data must be an object with a type'),
    (_set(f"{G}/nodes/1/data", _DELETE), 'refused',
     'graph.nodes[1] (id "fill1"): data is required'),
    (_set(f"{G}/nodes/1/id", ""), 'refused',
     ['graph.nodes[1] (type fill): id must not be empty', 'graph.edges[0]: target "fill1" is not a node at the top level', 'graph.edges[1]: source "fill1" is not a node at the top level']),
    (_set(f"{G}/nodes/1", "fill1"), 'refused',
     ['graph.nodes[1]: must be an object', 'graph.edges[0]: target "fill1" is not a node at the top level', 'graph.edges[1]: source "fill1" is not a node at the top level']),
    (_set(f"{G}/nodes/1/data", {"type": "wait", "locator": {"selector": "#a"}, "timeout": "soon"}), 'warning',
     'graph.nodes[1] (id "fill1", type wait): timeout must be a number (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "wait", "locator": {"selector": "#a"}, "state": "visible"}), 'warning',
     'graph.nodes[1] (id "fill1", type wait): state \'visible\' is read as "appear"'),
    (_set(f"{G}/nodes/1/data", {"type": "click"}), 'warning',
     'graph.nodes[1] (id "fill1", type click): needs a locator, or x and y (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "click", "x": 3}), 'warning',
     'graph.nodes[1] (id "fill1", type click): needs both x and y (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "goto", "url": " "}), 'warning',
     'graph.nodes[1] (id "fill1", type goto): url is empty (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "upload", "locator": {"selector": "#f"}, "paths": []}), 'warning',
     'graph.nodes[1] (id "fill1", type upload): paths must not be empty (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "http-request", "method": "FETCH", "url": "https://x"}), 'warning',
     []),
    (_set(f"{G}/nodes/1/data", {"type": "http-request", "url": "https://x", "via": "proxy"}), 'warning',
     'graph.nodes[1] (id "fill1", type http-request): via must be \'page\' or \'direct\', not "proxy" (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "extract", "variable_selector": ["a"], "pattern": "x", "flags": "q"}), 'warning',
     ['graph.nodes[1] (id "fill1", type extract): flags may only use i, m, s, g and u (found q) (a run fails if it reaches this node)', 'graph.nodes[1] (id "fill1", type extract): variable_selector needs at least two parts (a node id or namespace, then a key) (a run fails if it reaches this node)']),
    (_set(f"{G}/nodes/1/data", {"type": "extract", "variable_selector": [], "pattern": "x"}), 'warning',
     'graph.nodes[1] (id "fill1", type extract): variable_selector needs at least two parts (a node id or namespace, then a key) (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "export", "filename": "a.csv"}), 'warning',
     'graph.nodes[1] (id "fill1", type export): needs data_selector, or filename, headers (or headers_selector) and rows_selector (missing headers or headers_selector, rows_selector) (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "export", "data_selector": ["a"], "format": "docx"}), 'warning',
     'graph.nodes[1] (id "fill1", type export): format must be \'csv\', \'json\', \'jsonl\', \'md\', \'pdf\' or \'xlsx\', not "docx" (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "code", "code": "return {}", "code_language": "python3"}), 'warning',
     'graph.nodes[1] (id "fill1", type code): code_language \'python3\': code nodes run JavaScript'),
    (_set(f"{G}/nodes/1/data", {"type": "code", "code": "return {}", "outputs": {"n": {"type": "int"}}}), 'warning',
     []),
    (_set(f"{G}/nodes/1/data", {"type": "script", "source": "x", "variables": [{"variable": "a"}]}), 'warning',
     []),
    (_set(f"{G}/nodes/1/data", {"type": "cdp", "method": "enable"}), 'warning',
     []),
    (_set(f"{G}/nodes/1/data", {"type": "download", "savePath": "a.pdf"}), 'warning',
     'graph.nodes[1] (id "fill1", type download): needs a locator or a url (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/1/data", {"type": "captcha", "retries": -1}), 'warning',
     'graph.nodes[1] (id "fill1", type captcha): retries must be at least 0 (a run fails if it reaches this node)'),
    (_set(f"{G}/nodes/0/data/variables", [{"variable": "a b"}]), 'warning',
     'graph.nodes[0] (id "start", type start): variables[0]: the name \'a b\' cannot be written in a {{#input.…#}} template (templates take letters, digits, _, - and CJK characters)'),
    (_set(f"{G}/nodes/0/data/variables", [{"variable": "a", "type": "date"}]), 'warning',
     'graph.nodes[0] (id "start", type start): variables[0]: type \'date\' is not one we know: it is asked for as text'),
    (_set(f"{G}/nodes/0/data/variables", [{"variable": "a"}, {"variable": "a"}]), 'warning',
     'graph.nodes[0] (id "start", type start): variables[1]: "a" is already declared by variables[0] (this one is ignored)'),
    (_set(f"{G}/nodes/2/data/outputs", [{"variable": "x"}]), 'warning',
     []),
    (_set("app/name", _DELETE), 'refused',
     'app.name is required'),
    (_set("app/name", "  "), 'refused',
     'app.name must not be empty'),
    (_set("app/mode", "chat"), 'refused',
     'app.mode must be \'workflow\', not "chat"'),
    (_set("kind", "workflow"), 'warning',
     []),
    (_set("workflow/graph", _DELETE), 'refused',
     'graph is required'),
    (_set(f"{G}/nodes", {}), 'refused',
     'graph.nodes must be a list'),
    (_set(f"{G}/edges/0/source", _DELETE), 'refused',
     'graph.edges[0].source is required'),
    (_set(f"{G}/edges/0/target", "nope"), 'refused',
     'graph.edges[0]: target "nope" is not a node at the top level'),
    (_set(f"{G}/edges/1", {"source": "fill1", "target": "fill1"}), 'warning',
     'graph: the edges form a cycle through "fill1" (a run fails when it reaches a node twice)'),
    (_set(f"{G}/edges/1", {"source": "fill1", "target": "start"}), 'warning',
     'graph: the edges form a cycle through "start", "fill1" (a run fails when it reaches a node twice)'),
    (_set(f"{G}/nodes/0/data/type", "end"), 'refused',
     'graph needs exactly one start node (found none)'),
    (_set(f"{G}/nodes/2/data", {"type": "start"}), 'refused',
     'graph needs exactly one start node (found 2: "start", "end")'),
    (_set(f"{G}/nodes/2/id", "fill1"), 'refused',
     ['graph.nodes[2] (id "fill1", type end): id "fill1" is already used by graph.nodes[1] (id "fill1", type fill)', 'graph.edges[1]: target "end" is not a node at the top level']),
    (_set("workflow/environment_variables", [{"name": "a", "value": 1}, {"name": "a", "value": 2}]), 'warning',
     'workflow.environment_variables[1].name "a" is already declared by workflow.environment_variables[0] (the later value is used)'),
])
def test_each_problem_has_its_exact_message(change: Callable[[dict[str, Any]], None], kind: str,
                                            expected: str | list[str]) -> None:
    """What the original app refuses is refused; everything else loads with a warning naming its place."""
    raw = minimal()
    change(raw)
    want = [expected] if isinstance(expected, str) else expected
    if kind == "refused":
        assert problems_of(raw) == want
    else:
        assert validate_document(raw).warnings == want


IF_ELSE = {"id": "check", "data": {"type": "if-else", "cases": [
    {"case_id": "true", "conditions": [{"comparison_operator": "contains", "variable_selector": ["sys", "url"],
                                        "value": "ok"}]},
    {"case_id": "vip", "conditions": [{"comparison_operator": "locator", "locator": {"selector": ".vip"}}]}]}}


@pytest.mark.parametrize("nodes, edges, kind, expected", [
    ([{"id": "start", "data": {"type": "start"}}, IF_ELSE, press("a")],
     [{"source": "start", "target": "check"}, {"source": "check", "target": "a", "sourceHandle": "maybe"}], 'warning',
     ['graph.edges[1]: sourceHandle "maybe" is not a case_id of "check" ("true", "vip") or "false" (this edge is never taken)']),
    ([{"id": "start", "data": {"type": "start"}}, IF_ELSE, press("a")],
     [{"source": "start", "target": "check"}, {"source": "check", "target": "a"}], 'warning',
     ['graph.edges[1]: sourceHandle is missing: an edge leaving if-else "check" needs a case_id of "check" ("true", "vip") or "false" (this edge is never taken)']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "check", "data": {"type": "if-else", "cases": [
          {"case_id": "false", "conditions": [{"comparison_operator": "empty", "variable_selector": ["a"]}]}]}}],
     [], 'warning',
     ['graph.nodes[1] (id "check", type if-else): cases[0]: case_id "false" is also the else branch\'s handle']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "check", "data": {"type": "if-else", "cases": [{"case_id": "a", "conditions": [
          {"comparison_operator": "contains", "value": "x"}]}]}}],
     [], 'warning',
     ['graph.nodes[1] (id "check", type if-else): cases[0].conditions[0]: needs variable_selector for the operator "contains"']),
    ([{"id": "start", "data": {"type": "start"}}, {"id": "check", "data": {"type": "if-else", "cases": []}}],
     [], 'warning',
     ['graph.nodes[1] (id "check", type if-else): has no cases: a run always leaves by "false"']),
    ([{"id": "start", "data": {"type": "start"}}, loop([])],
     [], 'refused',
     ['graph.nodes[1] (id "loop1", type loop): nodes must not be empty: a loop needs a body']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "list", "nodes": [press("a")]}}],
     [], 'warning',
     ['graph.nodes[1] (id "loop1", type loop): needs items_selector in mode "list" (a run fails if it reaches this node)']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "until", "nodes": [press("a")]}}],
     [], 'warning',
     ['graph.nodes[1] (id "loop1", type loop): needs until (a condition) in mode "until" (a run fails if it reaches this node)']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "forever", "nodes": [press("a")]}}],
     [], 'warning',
     ['graph.nodes[1] (id "loop1", type loop): mode \'forever\' is read as "list"', 'graph.nodes[1] (id "loop1", type loop): needs items_selector in mode "list" (a run fails if it reaches this node)']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "until", "max": 0, "nodes": [press("a")],
                               "until": {"comparison_operator": "empty", "variable_selector": ["a"]}}}],
     [], 'warning',
     ['graph.nodes[1] (id "loop1", type loop): max 0 should be a whole number of at least 1']),
    ([{"id": "start", "data": {"type": "start"}},
      loop([press("a"), {"id": "b", "data": {"type": "fill", "locator": {}, "text": "x"}}],
           [{"source": "a", "target": "b"}])],
     [], 'warning',
     ['graph.nodes[1] (id "loop1", type loop): nodes[1] (id "b", type fill): locator needs selector or xpath (a run fails if it reaches this node)']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("start")])],
     [], 'refused',
     ['graph.nodes[1] (id "loop1", type loop): nodes[0] (id "start", type press): id "start" is already used by graph.nodes[0] (id "start", type start)']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a"), {"id": "s2", "data": {"type": "start"}}],
                                                       [{"source": "s2", "target": "a"}])],
     [], 'warning',
     ['graph.nodes[1] (id "loop1", type loop): nodes[1] (id "s2", type start): a start node in a loop body does nothing']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a"), {"id": "e2", "data": {"type": "end"}}],
                                                       [{"source": "a", "target": "e2"}])],
     [], 'warning',
     []),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a")], [{"source": "a", "target": "start"}])],
     [], 'refused',
     ['graph.nodes[1] (id "loop1", type loop): edges[0]: target "start" is not a node in the body of loop "loop1" (it is at the top level)']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a")])],
     [{"source": "start", "target": "a"}], 'refused',
     ['graph.edges[0]: target "a" is not a node at the top level (it is in the body of loop "loop1")']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a"), press("b")])],
     [], 'warning',
     []),
    ([{"id": "start", "data": {"type": "start"}},
      loop([press("a"), press("b")], [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}])],
     [], 'warning',
     ['graph.nodes[1] (id "loop1", type loop): the edges form a cycle through "a", "b" (a run fails when it reaches a node twice)']),
    ([{"id": "start", "data": {"type": "start"}},
      loop([loop([press("a")], node_id="inner")], node_id="outer")],
     [], 'warning',
     []),
])
def test_structure_problems(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], kind: str,
                            expected: list[str]) -> None:
    raw = minimal(nodes, edges)
    if kind == "refused":
        assert problems_of(raw) == expected
    else:
        assert validate_document(raw).warnings == expected


def test_every_problem_is_reported_at_once() -> None:
    raw = fixture()
    nodes = raw["workflow"]["graph"]["nodes"]
    nodes[2]["data"]["locator"] = {}                            # user: field problem
    nodes[12]["data"]["nodes"][1]["data"]["nodes"][1]["data"]["code"] = 3   # nested two loops deep
    nodes[5]["data"]["type"] = "solver"                         # unknown type
    raw["workflow"]["graph"]["edges"][9]["sourceHandle"] = "gold"   # bad if-else handle
    warnings = validate_document(raw).warnings
    assert warnings == [
        'graph.edges[9]: sourceHandle "gold" is not a case_id of "check" ("true", "vip", "no-notes") or "false" '
        "(this edge is never taken)",
        'graph.nodes[2] (id "user", type fill): locator needs selector or xpath (a run fails if it reaches this node)',
        'graph.nodes[5] (id "captcha1", type solver): unknown node type "solver": a run fails if it reaches this node',
        'graph.nodes[12] (id "pager", type loop): nodes[1] (id "rows", type loop): nodes[1] (id "norm", type code): '
        "code must be text (a run fails if it reaches this node)",
    ]
    nodes[6]["id"] = "user"                                     # duplicate id
    del raw["app"]["name"]
    problems = problems_of(raw)
    assert problems == [
        "app.name is required",
        'graph.nodes[6] (id "user", type wait): id "user" is already used by graph.nodes[2] (id "user", type fill)',
        'graph.edges[5]: target "dash" is not a node at the top level',
        'graph.edges[6]: source "dash" is not a node at the top level',
    ]
    message = str(DocumentError(problems))
    assert message.startswith("4 problems:\n- app.name is required\n- graph.nodes[6]") and message.count("\n- ") == 4


@pytest.mark.parametrize("raw, expected", [
    ([], "the document must be a JSON object, not a list"),
    ("x", "the document must be a JSON object, not text"),
    (None, "the document must be a JSON object, not null"),
    ({"app": {"name": float("nan")}}, "the document contains a number that is not finite (NaN or Infinity)"),
    ({"app": {"name": "\ud800"}}, "the document contains text that is not valid Unicode (an unpaired surrogate)"),
    ({"app": {1: "x"}}, "object keys must be text"),
    ({"app": {"name": {1, 2}}}, "the document contains a set, which is not JSON data"),
])
def test_values_that_are_not_json_documents(raw: Any, expected: str) -> None:
    assert problems_of(raw) == [expected]


def test_deep_nesting_is_refused_not_crashed() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    raw = minimal()
    raw["extra"] = deep
    assert problems_of(raw) == ["the document is nested too deeply (more than 200 levels)"]


def test_validation_does_not_share_state_with_the_input() -> None:
    raw = fixture()
    doc = validate_document(raw)
    raw["app"]["use_icon_as_answer_icon"] = "changed"
    assert doc.app.model_extra == {"use_icon_as_answer_icon": False}
    edited = copy.deepcopy(doc)
    edited.graph.node("user").id = "start"
    with pytest.raises(DocumentError, match='graph.nodes\\[2\\] \\(id "start", type fill\\): id "start" is already used'):
        edited.check()
    assert doc.check() == doc
