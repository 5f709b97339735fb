"""Workflow files: BOM, malformed JSON, lossless round trip with unknown fields, file errors, atomic save."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from workflows.document import DocumentError, WorkflowDocument
from workflows.io import (MAX_FILE_BYTES, dump_document, load_any, load_file, parse_any, parse_document, parse_json,
                          save_file)

FIXTURES = Path(__file__).parent / "fixtures"
SHOP = FIXTURES / "shop_orders_0.3.0.json"


def shop_text() -> str:
    return SHOP.read_text("utf-8")


def error_of(text: Any) -> list[str]:
    with pytest.raises(DocumentError) as caught:
        parse_document(text)
    return caught.value.problems


def test_a_utf8_bom_is_stripped_from_text_and_bytes() -> None:
    plain = parse_document(shop_text())
    assert parse_document("\ufeff" + shop_text()) == plain
    assert parse_document(b"\xef\xbb\xbf" + shop_text().encode("utf-8")) == plain
    assert parse_document(shop_text().encode("utf-8")) == plain


@pytest.mark.parametrize("text, expected", [
    ('{\n  "kind": "app",\n  "app": }', "not valid JSON: Expecting value at line 3, column 10"),
    ('{"kind": "app",}', "not valid JSON: Expecting property name enclosed in double quotes at line 1, column 16"),
    ("", "the file is empty"),
    ("\ufeff  \n", "the file is empty"),
    ('{"a": NaN}', "not valid JSON: NaN is not allowed in JSON"),
    ('{"a": -Infinity}', "not valid JSON: -Infinity is not allowed in JSON"),
    (b'{"a": "\xff"}', "the file is not UTF-8 text (invalid byte at offset 7)"),
    ("[1, 2]", "the document must be a JSON object, not a list"),
    ('{"app": {"name": "\\ud800"}}', "the document contains text that is not valid Unicode (an unpaired surrogate)"),
])
def test_malformed_input_is_a_document_error_saying_where(text: Any, expected: str) -> None:
    assert error_of(text) == [expected]


def test_huge_numbers_and_deep_nesting_are_document_errors() -> None:
    assert error_of('{"a": ' + "1" * 5000 + "}")[0].startswith("not valid JSON: Exceeds the limit")
    assert error_of("[" * 100_000 + "]" * 100_000) == ["not valid JSON: nested too deeply"]


def test_round_trip_is_lossless_and_keeps_unknown_fields() -> None:
    first = parse_document(shop_text())
    text = dump_document(first)
    second = parse_document(text)
    assert second == first
    assert dump_document(second) == text  # stable
    data = json.loads(text)
    graph = data["workflow"]["graph"]
    # unknown fields at every level survive
    assert data["dependencies"] == [] and data["app"]["use_icon_as_answer_icon"] is False
    assert data["workflow"]["features"] == {"file_upload": {"enabled": False}}
    assert data["workflow"]["environment_variables"][0]["value_type"] == "string"
    assert graph["viewport"] == {"x": -120.5, "y": 40, "zoom": 0.8}
    start = graph["nodes"][0]
    assert (start["type"], start["width"], start["selected"]) == ("custom", 244, False)
    assert start["positionAbsolute"] == {"x": 30, "y": 260} and start["data"]["desc"] == ""
    assert start["data"]["variables"][0]["max_length"] == 64 and start["data"]["variables"][2]["default"] == 3
    assert graph["nodes"][1]["data"]["waitUntil"] == "load"
    assert graph["nodes"][8]["data"]["cases"][0]["conditions"][0]["varType"] == "string"
    assert graph["nodes"][9]["data"]["outputs"]["closed"] == {"type": "boolean", "children": None}
    assert graph["edges"][0]["data"] == {"sourceType": "start", "targetType": "goto", "isInIteration": False}
    assert graph["edges"][0]["zIndex"] == 0
    # the same shape: the top keys, known fields first, text kept as it is
    assert list(data) == ["kind", "version", "app", "workflow", "dependencies"]
    assert list(data["workflow"]) == ["environment_variables", "conversation_variables", "graph", "features"]
    assert list(graph) == ["nodes", "edges", "viewport"]
    assert '"icon": "🛒"' in text and text.endswith("}\n")
    # defaults filled in, numbers given as strings written as numbers, nothing invented
    assert graph["edges"][1] == {"id": "e1-login_page-user", "source": "login_page", "target": "user",
                                 "sourceHandle": "source", "targetHandle": "target"}
    assert graph["nodes"][6]["data"] == {"type": "wait", "timeout": 20, "locator": {"selector": ".dashboard"},
                                         "state": "appear"}
    assert "title" not in graph["nodes"][6]["data"] and "id" not in data


def test_a_document_built_in_code_dumps_the_full_shape() -> None:
    doc = WorkflowDocument.model_validate({"app": {"name": "x"}, "workflow": {"graph": {"nodes": [
        {"id": "s", "data": {"type": "start"}}]}}})
    assert json.loads(dump_document(doc)) == {
        "kind": "app", "version": "0.3.0", "app": {"name": "x", "mode": "workflow"},
        "workflow": {"environment_variables": [], "conversation_variables": [],
                     "graph": {"nodes": [{"id": "s", "data": {"type": "start"}}], "edges": []}}}


def test_load_file_reports_missing_folder_and_too_big_files(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="does not exist"):
        load_file(tmp_path / "nope.json")
    with pytest.raises(DocumentError, match="is a folder, not a workflow file"):
        load_file(tmp_path)
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(DocumentError, match=r"is too big \(10.0 MB; a workflow file may be at most 10 MB\)"):
        load_file(big)
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "app"', "utf-8")
    with pytest.raises(DocumentError) as caught:
        load_file(bad)
    assert str(caught.value) == f"{bad}: not valid JSON: Expecting ',' delimiter at line 1, column 15"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions that apply")
def test_load_file_reports_an_unreadable_file(tmp_path: Path) -> None:
    locked = tmp_path / "locked.json"
    locked.write_text(shop_text(), "utf-8")
    locked.chmod(0)
    try:
        with pytest.raises(DocumentError, match="cannot read .*locked.json: permission denied"):
            load_file(locked)
    finally:
        locked.chmod(0o600)


def test_save_then_load_round_trips(tmp_path: Path) -> None:
    doc = load_file(SHOP)
    target = save_file(tmp_path / "out" / "shop.json", doc)
    assert load_file(target) == doc
    assert target.read_text("utf-8") == dump_document(doc)
    assert [p.name for p in target.parent.iterdir()] == ["shop.json"]


def test_save_refuses_an_invalid_document_and_writes_nothing(tmp_path: Path) -> None:
    doc = load_file(SHOP)
    doc.graph.nodes[2].id = doc.graph.nodes[1].id
    with pytest.raises(DocumentError, match="is already used by"):
        save_file(tmp_path / "shop.json", doc)
    assert list(tmp_path.iterdir()) == []


def test_parse_any_tells_recordings_from_documents(tmp_path: Path) -> None:
    doc, notes = parse_any(shop_text())
    assert doc.name == "Shop orders export" and notes == []
    recording = {"title": "Quick", "steps": [{"type": "navigate", "url": "https://example.com"},
                                             {"type": "setViewport", "width": 800, "height": 600}]}
    doc, notes = parse_any(json.dumps(recording))
    assert [n.type for n in doc.graph.nodes] == ["start", "goto", "end"] and len(notes) == 1
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(recording), "utf-8")
    assert load_any(path)[0] == doc
    assert parse_json(b"\xef\xbb\xbf[1]") == [1]
