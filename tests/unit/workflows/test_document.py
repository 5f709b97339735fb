"""The workflow document: a realistic 0.3.0 file, the helpers the executor uses, and every validation error
with its exact message and place."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from workflows.document import DocumentError, WorkflowDocument, validate_document
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


@pytest.mark.parametrize("change, expected", [
    (_set(f"{G}/nodes/1/data/locator", {}), 'graph.nodes[1] (id "fill1", type fill): locator needs selector or xpath'),
    (_set(f"{G}/nodes/1/data/locator", {"selector": "", "xpath": ""}),
     'graph.nodes[1] (id "fill1", type fill): locator needs selector or xpath'),
    (_set(f"{G}/nodes/1/data/locator", {"xpath": "input"}),
     'graph.nodes[1] (id "fill1", type fill): locator xpath must start with /'),
    (_set(f"{G}/nodes/1/data/text", _DELETE), 'graph.nodes[1] (id "fill1", type fill): text is required'),
    (_set(f"{G}/nodes/1/data/entry", "typo"),
     """graph.nodes[1] (id "fill1", type fill): entry must be 'type' or 'paste', not "typo\""""),
    (_set(f"{G}/nodes/1/data/locator/alternatives", [{"text": "a", "label": "b"}]),
     'graph.nodes[1] (id "fill1", type fill): locator.alternatives[0] needs exactly one of role/name, testid, '
     'label, text, placeholder, selector or xpath (found label, text)'),
    (_set(f"{G}/nodes/1/data/type", "hover"), f'graph.nodes[1] (id "fill1", type hover): unknown node type "hover" '
                                              f"(known: {KNOWN})"),
    (_set(f"{G}/nodes/1/data/type", _DELETE), f'graph.nodes[1] (id "fill1"): data.type is required (one of {KNOWN})'),
    (_set(f"{G}/nodes/1/data", "fill"), 'graph.nodes[1] (id "fill1"): data must be an object'),
    (_set(f"{G}/nodes/1/data", _DELETE), 'graph.nodes[1] (id "fill1"): data is required'),
    (_set(f"{G}/nodes/1/id", ""), ['graph.nodes[1] (type fill): id must not be empty',
                                   'graph.edges[0]: target "fill1" is not a node at the top level',
                                   'graph.edges[1]: source "fill1" is not a node at the top level']),
    (_set(f"{G}/nodes/1", "fill1"), ["graph.nodes[1]: must be an object",
                                     'graph.edges[0]: target "fill1" is not a node at the top level',
                                     'graph.edges[1]: source "fill1" is not a node at the top level']),
    (_set(f"{G}/nodes/1/data", {"type": "wait", "locator": {"selector": "#a"}, "timeout": "soon"}),
     'graph.nodes[1] (id "fill1", type wait): timeout must be a number'),
    (_set(f"{G}/nodes/1/data", {"type": "wait", "locator": {"selector": "#a"}, "state": "visible"}),
     """graph.nodes[1] (id "fill1", type wait): state must be 'appear' or 'gone', not "visible\""""),
    (_set(f"{G}/nodes/1/data", {"type": "click"}), 'graph.nodes[1] (id "fill1", type click): needs a locator, or x and y'),
    (_set(f"{G}/nodes/1/data", {"type": "click", "x": 3}), 'graph.nodes[1] (id "fill1", type click): needs both x and y'),
    (_set(f"{G}/nodes/1/data", {"type": "goto", "url": " "}), 'graph.nodes[1] (id "fill1", type goto): url must not be empty'),
    (_set(f"{G}/nodes/1/data", {"type": "upload", "locator": {"selector": "#f"}, "paths": []}),
     'graph.nodes[1] (id "fill1", type upload): paths must not be empty'),
    (_set(f"{G}/nodes/1/data", {"type": "http-request", "method": "FETCH", "url": "https://x"}),
     'graph.nodes[1] (id "fill1", type http-request): method must be one of GET, POST, PUT, PATCH, DELETE, HEAD, '
     'OPTIONS'),
    (_set(f"{G}/nodes/1/data", {"type": "http-request", "url": "https://x", "via": "proxy"}),
     """graph.nodes[1] (id "fill1", type http-request): via must be 'page' or 'direct', not "proxy\""""),
    (_set(f"{G}/nodes/1/data", {"type": "extract", "variable_selector": ["a"], "pattern": "x", "flags": "q"}),
     'graph.nodes[1] (id "fill1", type extract): flags must use only the letters d, g, i, m, s, u and y'),
    (_set(f"{G}/nodes/1/data", {"type": "extract", "variable_selector": [], "pattern": "x"}),
     'graph.nodes[1] (id "fill1", type extract): variable_selector must not be empty'),
    (_set(f"{G}/nodes/1/data", {"type": "export", "filename": "a.csv"}),
     'graph.nodes[1] (id "fill1", type export): needs data_selector, or filename, headers (or headers_selector) and '
     'rows_selector (missing headers or headers_selector, rows_selector)'),
    (_set(f"{G}/nodes/1/data", {"type": "export", "data_selector": ["a"], "format": "xlsx"}),
     """graph.nodes[1] (id "fill1", type export): format must be 'csv', 'json', 'jsonl', 'md' or 'pdf', not "xlsx\""""),
    (_set(f"{G}/nodes/1/data", {"type": "code", "code": "return {}", "code_language": "python3"}),
     'graph.nodes[1] (id "fill1", type code): code_language must be javascript (code nodes run JavaScript)'),
    (_set(f"{G}/nodes/1/data", {"type": "code", "code": "return {}", "outputs": {"n": {"type": "int"}}}),
     """graph.nodes[1] (id "fill1", type code): outputs.n.type must be 'string', 'number', 'boolean', 'object', """
     """'array', 'array[string]', 'array[number]', 'array[boolean]', 'array[object]' or 'any', not "int\""""),
    (_set(f"{G}/nodes/1/data", {"type": "script", "source": "x", "variables": [{"variable": "a"}]}),
     'graph.nodes[1] (id "fill1", type script): variables[0] needs value_selector (or a constant value)'),
    (_set(f"{G}/nodes/1/data", {"type": "cdp", "method": "enable"}),
     'graph.nodes[1] (id "fill1", type cdp): method must look like "Domain.method", e.g. "Network.enable"'),
    (_set(f"{G}/nodes/1/data", {"type": "download", "savePath": "a.pdf"}),
     'graph.nodes[1] (id "fill1", type download): needs a locator or a url'),
    (_set(f"{G}/nodes/1/data", {"type": "captcha", "retries": -1}),
     'graph.nodes[1] (id "fill1", type captcha): retries must be at least 0'),
    (_set(f"{G}/nodes/0/data/variables", [{"variable": "a b"}]),
     'graph.nodes[0] (id "start", type start): variables[0].variable must be a name without spaces, dots, # or braces'),
    (_set(f"{G}/nodes/0/data/variables", [{"variable": "a", "type": "date"}]),
     """graph.nodes[0] (id "start", type start): variables[0].type must be 'text-input', 'string', 'paragraph', """
     """'number', 'select', 'radio', 'checkbox', 'time' or 'secret', not "date\""""),
    (_set(f"{G}/nodes/0/data/variables", [{"variable": "a"}, {"variable": "a"}]),
     'graph.nodes[0] (id "start", type start): variables[1]: "a" is already declared by variables[0]'),
    (_set(f"{G}/nodes/2/data/outputs", [{"variable": "x"}]),
     'graph.nodes[2] (id "end", type end): outputs[0].value_selector is required'),
    (_set("app/name", _DELETE), "app.name is required"),
    (_set("app/name", "  "), "app.name must not be empty"),
    (_set("app/mode", "chat"), """app.mode must be 'workflow', not "chat\""""),
    (_set("kind", "workflow"), """kind must be 'app', not "workflow\""""),
    (_set("workflow/graph", _DELETE), "graph is required"),
    (_set(f"{G}/nodes", {}), "graph.nodes must be a list"),
    (_set(f"{G}/edges/0/source", _DELETE), "graph.edges[0].source is required"),
    (_set(f"{G}/edges/0/target", "nope"), 'graph.edges[0]: target "nope" is not a node at the top level'),
    (_set(f"{G}/edges/1", {"source": "fill1", "target": "fill1"}), 'graph: the edges form a cycle through "fill1"'),
    (_set(f"{G}/edges/1", {"source": "fill1", "target": "start"}),
     'graph: the edges form a cycle through "start", "fill1"'),
    (_set(f"{G}/nodes/0/data/type", "end"), "graph needs exactly one start node (found none)"),
    (_set(f"{G}/nodes/2/data", {"type": "start"}), 'graph needs exactly one start node (found 2: "start", "end")'),
    (_set(f"{G}/nodes/2/id", "fill1"),
     ['graph.nodes[2] (id "fill1", type end): id "fill1" is already used by graph.nodes[1] (id "fill1", type fill)',
      'graph.edges[1]: target "end" is not a node at the top level']),
    (_set("workflow/environment_variables", [{"name": "a", "value": 1}, {"name": "a", "value": 2}]),
     'workflow.environment_variables[1].name "a" is already declared by workflow.environment_variables[0]'),
])
def test_each_problem_has_its_exact_message(change: Callable[[dict[str, Any]], None],
                                            expected: str | list[str]) -> None:
    raw = minimal()
    change(raw)
    assert problems_of(raw) == ([expected] if isinstance(expected, str) else expected)


IF_ELSE = {"id": "check", "data": {"type": "if-else", "cases": [
    {"case_id": "true", "conditions": [{"comparison_operator": "contains", "variable_selector": ["sys", "url"],
                                        "value": "ok"}]},
    {"case_id": "vip", "conditions": [{"comparison_operator": "locator", "locator": {"selector": ".vip"}}]}]}}


@pytest.mark.parametrize("nodes, edges, expected", [
    ([{"id": "start", "data": {"type": "start"}}, IF_ELSE, press("a")],
     [{"source": "start", "target": "check"}, {"source": "check", "target": "a", "sourceHandle": "maybe"}],
     ['graph.edges[1]: sourceHandle "maybe" is not a case_id of "check" ("true", "vip") or "false"']),
    ([{"id": "start", "data": {"type": "start"}}, IF_ELSE, press("a")],
     [{"source": "start", "target": "check"}, {"source": "check", "target": "a"}],
     ['graph.edges[1]: sourceHandle is missing: an edge leaving if-else "check" needs a case_id of "check" '
      '("true", "vip") or "false"']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "check", "data": {"type": "if-else", "cases": [
          {"case_id": "false", "conditions": [{"comparison_operator": "empty", "variable_selector": ["a"]}]}]}}],
     [], ['graph.nodes[1] (id "check", type if-else): cases[0]: case_id "false" is reserved for the else branch']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "check", "data": {"type": "if-else", "cases": [{"case_id": "a", "conditions": [
          {"comparison_operator": "contains", "value": "x"}]}]}}],
     [], ['graph.nodes[1] (id "check", type if-else): cases[0].conditions[0] needs variable_selector for the '
          'operator "contains"']),
    ([{"id": "start", "data": {"type": "start"}}, {"id": "check", "data": {"type": "if-else", "cases": []}}],
     [], ['graph.nodes[1] (id "check", type if-else): cases must not be empty']),
    ([{"id": "start", "data": {"type": "start"}}, loop([])],
     [], ['graph.nodes[1] (id "loop1", type loop): nodes must not be empty: a loop needs a body']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "list", "nodes": [press("a")]}}],
     [], ['graph.nodes[1] (id "loop1", type loop): needs items_selector in mode "list"']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "until", "nodes": [press("a")]}}],
     [], ['graph.nodes[1] (id "loop1", type loop): needs until (a condition) in mode "until"']),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "forever", "nodes": [press("a")]}}],
     [], ["""graph.nodes[1] (id "loop1", type loop): mode must be 'list' or 'until', not "forever\""""]),
    ([{"id": "start", "data": {"type": "start"}},
      {"id": "loop1", "data": {"type": "loop", "mode": "until", "max": 0, "nodes": [press("a")],
                               "until": {"comparison_operator": "empty", "variable_selector": ["a"]}}}],
     [], ['graph.nodes[1] (id "loop1", type loop): max must be at least 1']),
    ([{"id": "start", "data": {"type": "start"}},
      loop([press("a"), {"id": "b", "data": {"type": "fill", "locator": {}, "text": "x"}}],
           [{"source": "a", "target": "b"}])],
     [], ['graph.nodes[1] (id "loop1", type loop): nodes[1] (id "b", type fill): locator needs selector or xpath']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("start")])],
     [], ['graph.nodes[1] (id "loop1", type loop): nodes[0] (id "start", type press): id "start" is already used by '
          'graph.nodes[0] (id "start", type start)']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a"), {"id": "s2", "data": {"type": "start"}}],
                                                       [{"source": "s2", "target": "a"}])],
     [], ['graph.nodes[1] (id "loop1", type loop): nodes[1] (id "s2", type start): start belongs at the top level, '
          'not in a loop body']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a"), {"id": "e2", "data": {"type": "end"}}],
                                                       [{"source": "a", "target": "e2"}])],
     [], ['graph.nodes[1] (id "loop1", type loop): nodes[1] (id "e2", type end): end belongs at the top level, '
          'not in a loop body']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a")], [{"source": "a", "target": "start"}])],
     [], ['graph.nodes[1] (id "loop1", type loop): edges[0]: target "start" is not a node in the body of loop '
          '"loop1" (it is at the top level)']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a")])],
     [{"source": "start", "target": "a"}],
     ['graph.edges[0]: target "a" is not a node at the top level (it is in the body of loop "loop1")']),
    ([{"id": "start", "data": {"type": "start"}}, loop([press("a"), press("b")])],
     [], ['graph.nodes[1] (id "loop1", type loop): the loop body must have one first node (a node no edge leads '
          'to); it has 2: "a", "b"']),
    ([{"id": "start", "data": {"type": "start"}},
      loop([press("a"), press("b")], [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}])],
     [], ['graph.nodes[1] (id "loop1", type loop): the edges form a cycle through "a", "b"']),
    ([{"id": "start", "data": {"type": "start"}},
      loop([loop([press("a")], node_id="inner")], node_id="outer")],
     [], []),
])
def test_structure_problems(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], expected: list[str]) -> None:
    raw = minimal(nodes, edges)
    if expected:
        assert problems_of(raw) == expected
    else:
        assert isinstance(validate_document(raw), WorkflowDocument)


def test_every_problem_is_reported_at_once() -> None:
    raw = fixture()
    nodes = raw["workflow"]["graph"]["nodes"]
    nodes[2]["data"]["locator"] = {}                            # user: field problem
    nodes[12]["data"]["nodes"][1]["data"]["nodes"][1]["data"]["code"] = ""   # nested two loops deep
    nodes[5]["data"]["type"] = "solver"                         # unknown type
    nodes[6]["id"] = "user"                                     # duplicate id
    raw["workflow"]["graph"]["edges"][9]["sourceHandle"] = "gold"   # bad if-else handle
    del raw["app"]["name"]
    problems = problems_of(raw)
    assert problems == [
        "app.name is required",
        'graph.nodes[2] (id "user", type fill): locator needs selector or xpath',
        'graph.nodes[5] (id "captcha1", type solver): unknown node type "solver" '
        f"(known: {KNOWN})",
        'graph.nodes[12] (id "pager", type loop): nodes[1] (id "rows", type loop): nodes[1] (id "norm", type code): '
        "code must not be empty",
        'graph.nodes[6] (id "user", type wait): id "user" is already used by graph.nodes[2] (id "user", type fill)',
        'graph.edges[5]: target "dash" is not a node at the top level',
        'graph.edges[6]: source "dash" is not a node at the top level',
        'graph.edges[9]: sourceHandle "gold" is not a case_id of "check" ("true", "vip", "no-notes") or "false"',
    ]
    message = str(DocumentError(problems))
    assert message.startswith("8 problems:\n- app.name is required\n- graph.nodes[2]") and message.count("\n- ") == 8


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
    edited.graph.node("user").data.locator.selector = ""  # type: ignore[union-attr]
    with pytest.raises(DocumentError, match='graph.nodes\\[2\\] \\(id "user", type fill\\): locator needs'):
        edited.check()
    assert doc.check() == doc
