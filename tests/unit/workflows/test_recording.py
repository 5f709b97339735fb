"""The recording's merge rules and edits (workflows/recording.py), without a browser: raw steps as
resources/js/recorder.js reports them, in, a checked 0.3.0 document out."""

from __future__ import annotations

import pytest

from workflows.document import validate_document
from workflows.nodes.locators import NodeLocator
from workflows.ports import Locator
from workflows.recording import Recording, RecordingError


def loc(selector: str, *alternatives: dict) -> dict:
    return {"selector": selector, "alternatives": list(alternatives), "unique": True}


NAME = loc('input[name="name"]', {"role": "textbox", "name": "Full name", "exact": True})


def fill(value: str, target: dict = NAME, **extra: object) -> dict:
    return {"kind": "fill", "loc": target, "value": value, "role": "textbox", "name": "Full name", **extra}


def test_typing_is_one_fill_with_the_final_value_and_the_focus_click_goes() -> None:
    recording = Recording(start_url="http://x/")
    recording.add({"kind": "click", "loc": NAME, "detail": 1})
    for value in ("A", "Al", "Alic", "Ali", "Alice"):
        recording.add(fill(value))
    assert [s.words() for s in recording.steps] == ["Go to http://x/", "Type 'Alice' into textbox 'Full name'"]
    recording.add(fill("Bob", paste=True))
    assert recording.steps[-1].data == {"locator": {"selector": 'input[name="name"]', "alternatives": [
        {"role": "textbox", "name": "Full name", "exact": True}]}, "text": "Bob", "entry": "paste"}


def test_double_click_scroll_until_upload_and_secret() -> None:
    recording = Recording()
    button = loc("//button")
    recording.add({"kind": "click", "loc": button, "detail": 1})
    recording.add({"kind": "click", "loc": button, "detail": 2})
    recording.add({"kind": "scroll", "direction": "down", "distance": 100})
    recording.add({"kind": "scroll", "direction": "down", "distance": 300})
    recording.add({"kind": "click", "loc": loc("#far"), "detail": 1})
    recording.add({"kind": "files", "paths": ["/tmp/a.txt"]})  # before its click arrives
    recording.add({"kind": "click", "loc": loc("input[type=file]"), "control": "file", "detail": 1})
    recording.add({"kind": "fill", "loc": loc("input[name=pw]"), "secret": True, "variable": "password"})
    types = [(s.type, s.data.get("count")) for s in recording.steps]
    assert types == [("click", 2), ("scroll", None), ("click", None), ("upload", None), ("fill", None)]
    assert recording.steps[1].data["until"] == {"selector": "#far"} and "distance" not in recording.steps[1].data
    assert recording.steps[3].data["paths"] == ["/tmp/a.txt"]
    assert recording.steps[4].data["text"] == "{{#input.password#}}"
    doc = recording.document("Flow")
    assert validate_document(doc).warnings == []
    assert doc["workflow"]["graph"]["nodes"][0]["data"]["variables"] == [
        {"variable": "password", "label": "password", "type": "secret"}]


def test_edits_and_their_errors() -> None:
    recording = Recording(start_url="http://x/")
    step = recording.add(fill("Alice"))
    assert step is not None
    recording.make_input(step.id, "name")
    recording.set_value(step.id, "Carol")  # the default, not the template
    assert step.data["text"] == "{{#input.name#}}" and step.default == "Carol"
    recording.set_locator(step.id, 0)  # replay tries the alternative first; the primary stays for the original
    assert step.locator["selector"] == 'input[name="name"]' and step.locator["prefer"] == 0
    assert step.as_dict()["locator"] == 'role=textbox[name="Full name"]'
    first = NodeLocator.model_validate(step.locator).labeled_candidates()[0]
    assert first == ("alternatives[0]", Locator(selector='role=textbox[name="Full name"s]'))
    with pytest.raises(RecordingError, match="no alternative 1"):
        recording.set_locator(step.id, 1)
    recording.insert("handoff", message="Type the code")
    recording.insert("capture", name="total")
    recording.add({"kind": "click", "loc": loc("#total"), "detail": 1})  # picks, is no click
    assert [s.type for s in recording.steps] == ["goto", "fill", "handoff", "script"]
    with pytest.raises(RecordingError, match="no step 'x'"):
        recording.delete("x")
    with pytest.raises(RecordingError, match="cannot be an input name"):
        recording.make_input(step.id, "a b")
    with pytest.raises(RecordingError, match="the workflow needs a name"):
        recording.document(" ")
    doc = validate_document(recording.document("Edited"))
    assert doc.warnings == []
    end = recording.document("Edited")["workflow"]["graph"]["nodes"][-1]["data"]
    assert end["outputs"] == [{"variable": "total", "value_selector": ["script4", "total"]}]


def test_prefer_puts_its_alternative_first_and_must_name_one() -> None:
    locator = NodeLocator.model_validate({"selector": "#a", "alternatives": [{"text": "A"}, {"xpath": "//b[@id='b']"}],
                                          "prefer": 1})
    assert [c.source for c in locator.labeled_candidates()] == ["alternatives[1]", "selector", "alternatives[0]"]


def test_bare_tags_and_positions_are_never_tried_and_a_vague_primary_gives_way_to_the_fingerprint() -> None:
    old = {"selector": "button", "alternatives": [{"selector": "button"}, {"selector": "form > div:nth-of-type(2) > input"},
                                                  {"xpath": "/html/body/form/button[2]"}, {"xpath": "//b"},
                                                  {"role": "button", "name": "Place order"}, {"selector": "#place"}]}
    assert [c.locator.label() for c in NodeLocator.model_validate(old).labeled_candidates()] == [
        "button", 'role=button[name="Place order"]', "#place"]
    healable = NodeLocator.model_validate({**old, "fingerprint": {"v": 1, "kind": "button", "name": "Place order"}})
    assert [c.source for c in healable.labeled_candidates()] == ["alternatives[4]", "alternatives[5]"]
    only_vague = NodeLocator.model_validate({"selector": "div:nth-of-type(3)", "fingerprint": {"kind": "button"}})
    assert only_vague.labeled_candidates() == [] and only_vague.label() == "div:nth-of-type(3)"
    with pytest.raises(ValueError, match="prefer must be the index"):
        NodeLocator.model_validate({"selector": "#a", "alternatives": [{"text": "A"}], "prefer": 1})


def test_a_scroll_with_no_target_keeps_its_recorded_distance() -> None:
    recording = Recording(start_url="http://x/")
    recording.add({"kind": "scroll", "direction": "down", "distance": 120})
    recording.add({"kind": "scroll", "direction": "down", "distance": 240})  # merged: one scroll of 360 px
    recording.add({"kind": "scroll", "direction": "up", "distance": 60})
    assert [(s.type, s.data) for s in recording.steps if s.type == "scroll"] == [
        ("scroll", {"direction": "down", "distance": 360}), ("scroll", {"direction": "up", "distance": 60})]
    assert validate_document(recording.document("Scrolls")).warnings == []


def test_scrolling_that_loaded_nothing_is_not_a_step() -> None:
    recording = Recording(start_url="http://x/")
    target = {"selector": "#go", "alternatives": [{"role": "button", "name": "Go", "exact": True}]}
    recording.add({"kind": "scroll", "direction": "down", "distance": 900, "loaded": False})
    recording.add({"kind": "click", "loc": target, "desc": "<button id=go>", "role": "button", "name": "Go"})
    recording.add({"kind": "scroll", "direction": "down", "distance": 600, "loaded": True})  # an infinite list
    recording.add({"kind": "click", "loc": target, "desc": "<button id=go>", "role": "button", "name": "Go"})
    assert [(s.type, "until" in s.data) for s in recording.steps] == [
        ("goto", False), ("click", False), ("scroll", True), ("click", False)]


def test_a_widget_choice_replaces_only_what_was_done_in_the_widget() -> None:
    recording = Recording(start_url="http://x/")
    title = {"selector": "#t"}
    widget = {"selector": "span.combo"}
    recording.add({"kind": "fill", "loc": title, "desc": "<input id=t>", "value": "Pottery", "variable": "t",
                   "seq": 1000.0})
    recording.add({"kind": "click", "loc": widget, "desc": "<span>", "seq": 2000.0})   # opens the widget
    recording.add({"kind": "fill", "loc": {"selector": "input.search"}, "desc": "<input>", "value": "Work",
                   "variable": "q", "seq": 2100.0})
    recording.add({"kind": "press", "shortcut": "enter", "seq": 2200.0})
    recording.add({"kind": "select", "widget": True, "from": 1999.5, "loc": widget, "desc": "<span>",
                   "role": "combobox", "name": "Category", "option": "Workshop",
                   "native": {"selector": "select[name=\"category\"]"}, "seq": 2201.0})
    assert [(s.type, s.words()) for s in recording.steps] == [
        ("goto", "Go to http://x/"), ("fill", "Type 'Pottery' into <input id=t>"),
        ("select", "Select 'Workshop' in combobox 'Category'")]
    assert recording.steps[-1].data == {"locator": widget, "option": "Workshop",
                                        "native": {"selector": 'select[name="category"]'}}


def test_a_drag_is_a_swipe_in_its_main_direction_that_keeps_the_drag() -> None:
    recording = Recording()
    pad = loc("#pad")
    recording.add({"kind": "drag", "loc": pad, "desc": "<canvas id=pad>", "offset": {"x": 0.25, "y": 0.5},
                   "dx": -20.04, "dy": 130})
    step = recording.steps[-1]
    assert step.type == "swipe" and step.words() == "Drag <canvas id=pad> by -20, +130 px"
    assert step.data == {"locator": {"selector": "#pad"}, "direction": "down", "dx": -20.0, "dy": 130.0,
                         "offset": {"x": 0.25, "y": 0.5}}
    node = validate_document(recording.document("Drag")).graph.nodes[1].data
    assert node.lint() == [] and (node.dx, node.dy, node.offset.x) == (-20.0, 130.0, 0.25)
    recording.add({"kind": "drag", "loc": pad, "dx": 90, "dy": -3})
    assert recording.steps[-1].data["direction"] == "right" and "offset" not in recording.steps[-1].data


def test_a_click_that_opened_the_new_tab_makes_replay_follow() -> None:
    recording = Recording()
    link = loc("a")
    recording.add({"kind": "click", "loc": link, "detail": 1})
    recording.add({"kind": "newTab"})
    assert recording.steps[-1].data["followNewTab"] is True
    assert recording.steps[-1].words() == "Click (opens a new tab)"
    recording.add(fill("y"))
    recording.add({"kind": "newTab"})  # reported before its click: the click that follows gets it
    recording.add({"kind": "click", "loc": loc("button"), "detail": 1})
    assert recording.steps[-1].data["followNewTab"] is True
    recording.add({"kind": "newTab"})  # opened by the page with no click: nothing follows from it
    recording.add(fill("x"))
    recording.add({"kind": "click", "loc": loc("button"), "detail": 1})
    assert "followNewTab" not in recording.steps[-1].data
    doc = validate_document(recording.document("Tabs"))
    assert [n.data.followNewTab for n in doc.graph.nodes if n.data.type == "click"] == [True, True, None]


def test_a_drag_node_needs_its_element() -> None:
    from workflows.nodes.page import SwipeData

    assert SwipeData.model_validate({"type": "swipe", "dx": 10}).lint() == \
        ["a drag (dx, dy or offset) needs a locator (a run fails if it reaches this node)"]
    assert SwipeData.model_validate({"type": "swipe", "direction": "left"}).lint() == []


# -- elements in open shadow roots, and actions that could not be recorded ---------------------
TITLE = {"alternatives": [{"role": "textbox", "name": "Title", "exact": True},
                          {"selector": 'my-field[name="title"] >> role=textbox[name="Title"s]'}], "unique": True}
NOTES = {"alternatives": [{"role": "textbox", "name": "Notes", "exact": True}], "unique": True}


def test_an_element_only_alternatives_find_is_recorded_and_saved_without_a_primary() -> None:
    recording = Recording()
    recording.add({"kind": "click", "loc": TITLE, "detail": 1})
    recording.add({"kind": "fill", "loc": TITLE, "value": "Summit", "role": "textbox", "name": "Title"})
    recording.add({"kind": "fill", "loc": NOTES, "value": "Bring a laptop", "role": "textbox", "name": "Notes"})
    assert [s.words() for s in recording.steps] == ["Type 'Summit' into textbox 'Title'",
                                                     "Type 'Bring a laptop' into textbox 'Notes'"]
    document = validate_document(recording.document("Shadow"))
    assert document.warnings == []
    fill_node = document.graph.nodes[1].data
    assert fill_node.locator.candidates()[0] == Locator(selector='role=textbox[name="Title"s]')


def test_an_action_that_could_not_be_recorded_is_kept_marked_and_the_save_refuses_until_it_goes() -> None:
    recording = Recording()
    recording.add({"kind": "fill", "loc": NOTES, "value": "a", "role": "textbox", "name": "Notes"})
    lost = {"alternatives": [], "unique": False, "fingerprint": {"v": 1, "tag": "div"}}
    for value in ("B", "Br", "Bring"):  # each burst of typing into a field nothing finds again
        recording.add({"kind": "fill", "loc": lost, "value": value, "desc": '<div class="editor">'})
    recording.add({"kind": "blocked", "action": "click", "why": "no locator finds <input type=checkbox> again",
                   "desc": "<input type=checkbox>", "role": "checkbox"})
    assert [s.words() for s in recording.steps] == [
        "Type 'a' into textbox 'Notes'", "Not recorded: typing on <div class=\"editor\">",
        "Not recorded: a click on <input type=checkbox>"]
    status = [s.as_dict() for s in recording.steps]
    assert status[1]["missing"] == 'no locator finds <div class="editor"> again'
    assert status[1]["data"] == {"text": "Bring", "locator": {"fingerprint": {"v": 1, "tag": "div"}}}
    with pytest.raises(RecordingError, match=r"2 of your actions could not be recorded.*step 2 \(Not recorded: "
                                             r"typing.*step 3 \(Not recorded: a click"):
        recording.document("Incomplete")
    recording.delete(recording.steps[2].id)
    recording.delete(recording.steps[1].id)
    assert validate_document(recording.document("Complete")).warnings == []
