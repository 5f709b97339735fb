"""The importer never crashes: random JSON, random text, document-shaped noise and mutated valid documents only
ever give a document or a DocumentError; whatever validates round-trips losslessly. Recorder imports likewise."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workflows.document import DocumentError, WorkflowDocument, validate_document
from workflows.io import dump_document, parse_document
from workflows.nodes import NODE_TYPES
from workflows.chrome_recorder import import_recording

FIXTURES = Path(__file__).parent / "fixtures"
SHOP = json.loads((FIXTURES / "shop_orders_0.3.0.json").read_text("utf-8"))
RECORDING = json.loads((FIXTURES / "recording_signup.json").read_text("utf-8"))
RECORDED = import_recording(RECORDING).document.to_data()

BOUNDED = settings(max_examples=200, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

FIELDS = sorted({name for model in NODE_TYPES.values() for name in model.model_fields} |
                {"id", "data", "nodes", "edges", "source", "target", "sourceHandle", "case_id", "conditions",
                 "comparison_operator", "variable_selector", "value", "selector", "xpath", "alternatives", "role",
                 "name", "kind", "version", "app", "workflow", "graph", "mode", "variable"})
keys = st.sampled_from(FIELDS) | st.text(max_size=8)
scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=12) | st.sampled_from(list(NODE_TYPES) + ["true", "false", "source", "20", "#x", "//a"]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) |
                           st.dictionaries(keys, inner, max_size=5), max_leaves=25)
small_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=2) |
                            st.dictionaries(keys, inner, max_size=2), max_leaves=4)


def accepts_or_rejects(raw: Any) -> None:
    """validate_document gives a document (which round-trips) or a DocumentError, nothing else."""
    try:
        doc = validate_document(raw)
    except DocumentError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        assert str(exc)
        return
    assert isinstance(doc, WorkflowDocument)
    text = dump_document(doc)
    assert parse_document(text) == doc
    assert dump_document(parse_document(text)) == text


@BOUNDED
@given(json_values)
def test_random_json_values(value: Any) -> None:
    try:
        parse_document(json.dumps(value))
    except DocumentError:
        pass


@BOUNDED
@given(st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b))
def test_random_text_and_bytes(text: str | bytes) -> None:
    try:
        parse_document(text)
    except DocumentError:
        pass


def node_strategy(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    data = st.tuples(st.sampled_from(list(NODE_TYPES)) | scalars,
                     st.dictionaries(st.sampled_from(FIELDS), small_values, max_size=5)).map(
        lambda pair: {**pair[1], "type": pair[0]})
    if depth > 0:
        data = data | st.fixed_dictionaries({
            "type": st.just("loop"), "mode": st.sampled_from(["list", "until", "x"]),
            "items_selector": st.lists(st.text(max_size=4), max_size=2),
            "nodes": st.lists(node_strategy(depth - 1), max_size=2),
            "edges": st.lists(edge_strategy, max_size=2)})
    return st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "c", "start", "l"]) | scalars, "data": data},
                                 optional={"position": small_values})


edge_strategy = st.fixed_dictionaries(
    {"source": st.sampled_from(["a", "b", "c", "start", "l"]) | scalars,
     "target": st.sampled_from(["a", "b", "c", "start", "l"]) | scalars},
    optional={"sourceHandle": st.sampled_from(["true", "false", "source"]) | scalars, "id": scalars})


@BOUNDED
@given(st.fixed_dictionaries({
    "kind": st.just("app") | scalars, "version": st.just("0.3.0") | scalars,
    "app": st.fixed_dictionaries({"name": st.text(max_size=5) | scalars}, optional={"mode": scalars}),
    "workflow": st.fixed_dictionaries({"graph": st.fixed_dictionaries({
        "nodes": st.lists(node_strategy(2), max_size=4), "edges": st.lists(edge_strategy, max_size=4)})},
        optional={"environment_variables": json_values})}))
def test_document_shaped_noise(raw: dict[str, Any]) -> None:
    accepts_or_rejects(raw)


def container_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += container_paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += container_paths(item, prefix + (index,))
    return out


def all_nodes(value: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(value, dict):
        if isinstance(value.get("data"), dict) and "id" in value:
            found.append(value)
        for item in value.values():
            found += all_nodes(item)
    elif isinstance(value, list):
        for item in value:
            found += all_nodes(item)
    return found


def retyped(value: Any) -> list[Any]:
    return [json.dumps(value), [value], {"value": value}, 0, -1.5, None, True, "", str(value)[:20]]


@BOUNDED
@given(st.data())
def test_mutated_valid_documents(data: st.DataObject) -> None:
    valid = [SHOP, RECORDED]
    doc = copy.deepcopy(valid[data.draw(st.sampled_from(range(len(valid))))])  # an index: no huge repr
    for _ in range(data.draw(st.integers(1, 4))):
        operation = data.draw(st.sampled_from(["delete", "replace", "retype", "swap_type", "shuffle_ids",
                                               "duplicate_node"]))
        nodes = all_nodes(doc)
        if operation == "swap_type" and nodes:
            node = nodes[data.draw(st.sampled_from(range(len(nodes))))]
            node["data"]["type"] = data.draw(st.sampled_from(list(NODE_TYPES)) | st.text(max_size=6))
            continue
        if operation == "shuffle_ids" and len(nodes) > 1:
            ids = [node.get("id") for node in nodes]
            for node, new_id in zip(nodes, data.draw(st.permutations(ids))):
                node["id"] = new_id
            continue
        top = doc.get("workflow", {}).get("graph", {}).get("nodes") if isinstance(doc.get("workflow"), dict) \
            and isinstance(doc["workflow"].get("graph"), dict) else None
        if operation == "duplicate_node" and nodes and isinstance(top, list):
            top.append(copy.deepcopy(nodes[data.draw(st.sampled_from(range(len(nodes))))]))
            continue
        path = data.draw(st.sampled_from(container_paths(doc)[1:]))
        parent: Any = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if operation == "delete":
            del parent[last]
        elif operation == "replace":
            parent[last] = data.draw(json_values)
        else:
            parent[last] = data.draw(st.sampled_from(retyped(parent[last])))
    accepts_or_rejects(doc)
    try:
        parse_document("\ufeff" + json.dumps(doc, ensure_ascii=False))
    except DocumentError:
        pass


STEP_TYPES = ["navigate", "click", "doubleClick", "hover", "change", "keyDown", "keyUp", "scroll", "waitForElement",
              "waitForExpression", "setViewport", "emulateNetworkConditions", "close", "customStep", "other"]
selector_strings = st.sampled_from(["#a", "aria/Go", 'aria/Go[role="button"]', "aria/", "text/Go", "xpath///a",
                                    "xpath/a", "pierce/#a", "a >>> b", "::-p-text(x)", "", 'aria/[role="main"]',
                                    "select#s"]) | st.text(max_size=10)
step_strategy = st.fixed_dictionaries(
    {"type": st.sampled_from(STEP_TYPES) | scalars},
    optional={"selectors": st.lists(selector_strings | st.lists(selector_strings, max_size=3) | scalars, max_size=4)
              | scalars,
              "url": st.text(max_size=10) | scalars, "value": scalars, "key": st.sampled_from(
                  ["Shift", "Control", "a", "A", "Enter", " ", "KeyQ", "Digit1", "CapsLock", "ArrowLeft", "+"]) | scalars,
              "x": scalars, "y": scalars, "timeout": scalars, "offsetX": scalars, "button": scalars,
              "count": scalars, "operator": scalars, "expression": st.text(max_size=20) | scalars,
              "target": scalars, "download": scalars, "duration": scalars, "visible": scalars})


@BOUNDED
@given(st.fixed_dictionaries({"steps": st.lists(step_strategy | json_values, max_size=12)},
                             optional={"title": scalars, "timeout": scalars}))
def test_recorder_never_crashes(raw: dict[str, Any]) -> None:
    try:
        doc, problems = import_recording(raw)
    except DocumentError:
        return
    assert all(isinstance(p, str) for p in problems)
    assert parse_document(dump_document(doc)) == doc
