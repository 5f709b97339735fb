"""What node classes declare for the UI (workflows/nodes): labels, output keys, structured fields and their
saved shapes — the tables the editor had before they moved onto the classes, unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from workflows.nodes import NODE_TYPES
from workflows.nodes.base import LABEL_CONTEXT
from workflows.nodes.structured import NAME_KEY, from_items, to_items

# What the editor's template completion offered for each type (app/ui/editor/templates.py's OUTPUT_KEYS).
OUTPUT_KEYS = {"goto": ["url", "title", "status"], "extract": ["value", "matches"], "export": ["path", "filename"],
               "http-request": ["status_code", "body", "json"], "download": ["path", "bytes"],
               "captcha": ["solved", "attempts", "skipped"], "loop": ["output", "index"], "if-else": ["case"]}
# The structured fields (app/ui/editor/structured.py's SPECS): (type, field) -> (noun, parts).
STRUCTURED = {("if-else", "cases"): ("case", ["case_id", "conditions"]),
              ("start", "variables"): ("variable", ["variable", "label", "type", "required", "options", "default"]),
              ("end", "outputs"): ("output", ["variable", "value_selector"]),
              ("loop", "until"): ("condition", ["comparison_operator", "variable_selector", "value", "locator"]),
              ("code", "variables"): ("variable", ["variable", "value_selector", "value"]),
              ("code", "outputs"): ("output", [NAME_KEY, "type"]),
              ("script", "variables"): ("variable", ["variable", "value_selector", "value"]),
              ("script", "outputs"): ("output", [NAME_KEY, "type"])}


def test_every_type_is_labelled_with_its_own_name_in_english() -> None:
    assert LABEL_CONTEXT == "NodeKind"
    assert {kind: model.label for kind, model in NODE_TYPES.items()} == {kind: kind for kind in NODE_TYPES}


@pytest.mark.parametrize("kind", list(NODE_TYPES))
def test_output_keys_are_what_the_editor_offered(kind: str) -> None:
    assert NODE_TYPES[kind].readable_keys({"type": kind}) == OUTPUT_KEYS.get(kind, [])


def test_nodes_that_declare_their_outputs_in_their_data_offer_those() -> None:
    assert NODE_TYPES["code"].readable_keys({"outputs": {"total": {"type": "number"}, "n": {}}}) == ["total", "n"]
    assert NODE_TYPES["script"].readable_keys({"outputs": "not an object"}) == []
    assert NODE_TYPES["end"].readable_keys({"outputs": [{"variable": "a"}, {"value_selector": []}, "x"]}) == ["a"]
    assert NODE_TYPES["start"].readable_keys({"variables": [{"variable": "user"}, {"label": "no name"}]}) == ["user"]


def test_the_structured_fields_are_the_editors_ones() -> None:
    declared = {(kind, name): (spec.noun, [sub.key for sub in spec.subs])
                for kind, model in NODE_TYPES.items() for name, spec in model.structured_fields.items()}
    assert declared == STRUCTURED
    assert NODE_TYPES["loop"].structured_fields["until"].max_items == 1


@pytest.mark.parametrize(("kind", "name", "saved", "items"), [
    ("start", "variables", [{"variable": "q", "kept": 1}], [{"variable": "q", "kept": 1}]),
    ("loop", "until", {"comparison_operator": "is", "value": "x"}, [{"comparison_operator": "is", "value": "x"}]),
    ("loop", "until", None, []),
    ("code", "outputs", {"total": {"type": "number"}}, [{NAME_KEY: "total", "type": "number"}]),
])
def test_a_saved_field_becomes_records_and_back(kind: str, name: str, saved: Any, items: list[dict[str, Any]]) -> None:
    spec = NODE_TYPES[kind].structured_fields[name]
    assert to_items(spec, saved) == items
    assert from_items(spec, items) == saved
    shown = to_items(spec, saved)
    if shown:
        shown[0]["changed"] = True  # records are copies: editing one leaves the saved value alone
        assert "changed" not in str(saved)
