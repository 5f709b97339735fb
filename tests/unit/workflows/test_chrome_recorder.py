"""Chrome DevTools Recorder import: a realistic recording becomes start → nodes → end, selectors become locator
alternatives, key presses are paired, and everything not replayed exactly is reported by step index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workflows.document import DocumentError, validate_document
from workflows.io import dump_document, parse_document
from workflows.nodes import ClickData, NodeLocator
from workflows.chrome_recorder import import_recording, looks_like_recording

RECORDING = Path(__file__).parent / "fixtures" / "recording_signup.json"


def recording() -> dict[str, Any]:
    return json.loads(RECORDING.read_text("utf-8"))


def labels(locator: NodeLocator) -> list[str]:
    return [candidate.label() for candidate in locator.candidates()]


def test_a_realistic_recording_imports_as_a_valid_linear_workflow() -> None:
    doc, problems = import_recording(recording())
    assert doc.name == "Sign up for the newsletter"
    graph = doc.graph
    assert [(n.id, n.type) for n in graph.nodes] == [
        ("start", "start"), ("goto1", "goto"), ("click1", "click"), ("fill1", "fill"), ("press1", "press"),
        ("press2", "press"), ("select1", "select"), ("click2", "click"), ("click3", "click"), ("scroll1", "scroll"),
        ("scroll2", "scroll"), ("click4", "click"), ("wait1", "wait"), ("wait2", "wait"), ("script1", "script"),
        ("wait3", "wait"), ("cdp1", "cdp"), ("end", "end")]
    ids = [n.id for n in graph.nodes]
    assert [(e.source, e.target) for e in graph.edges] == list(zip(ids, ids[1:]))
    assert validate_document(doc.to_data()) == doc
    assert parse_document(dump_document(doc)) == doc

    node = {n.id: n.data for n in graph.nodes}
    assert node["goto1"].url == "http://127.0.0.1:8765/signup"  # type: ignore[union-attr]
    # aria (role unknown) → label/text; xpath; pierce CSS equal to the plain CSS is not repeated
    assert labels(node["click1"].locator) == [  # type: ignore[union-attr]
        "#email", 'label="Email address"', 'text="Email address"', '//*[@id="email"]']
    assert (node["click1"].offsetX, node["click1"].offsetY) == (41.5, 9)  # type: ignore[union-attr]
    assert (node["fill1"].entry, node["fill1"].text) == ("type", "ada@example.com")  # type: ignore[union-attr]
    # keyDown/keyUp pairs → shortcuts
    assert [node["press1"].shortcut, node["press2"].shortcut] == ["shift+tab", "ctrl+a"]  # type: ignore[union-attr]
    # a change on a selector naming a <select> → select
    assert node["select1"].option == "weekly"  # type: ignore[union-attr]
    assert labels(node["select1"].locator)[0] == "form > select#frequency"  # type: ignore[union-attr]
    # aria with a role, text/, a shadow-root chain and pierce/
    assert labels(node["click2"].locator) == [  # type: ignore[union-attr]
        "input.agree", 'role=checkbox[name="I agree"s]', "text=I agree", "consent-box >> input.agree"]
    assert isinstance(node["click3"], ClickData) and node["click3"].count == 2
    assert (node["scroll1"].direction, node["scroll1"].locator) == ("down", None)  # type: ignore[union-attr]
    assert labels(node["scroll2"].locator) == ["div.terms"]  # type: ignore[union-attr]
    assert node["scroll2"].model_extra == {"to": {"x": 0, "y": 300}}
    # The recording's positional XPath (/html/body/main/form/button) stays in the file but replay ignores it.
    assert labels(node["click4"].locator) == [  # type: ignore[union-attr]
        "button.submit", 'role=button[name="Subscribe"s]', "text=Subscribe"]
    assert node["click4"].locator.fingerprint == {  # type: ignore[union-attr]
        "v": 1, "kind": "button", "role": "button", "name": "Subscribe"}
    assert node["click4"].timeout == 8  # type: ignore[union-attr]
    assert (node["wait1"].state, node["wait1"].timeout) == ("appear", 4)  # type: ignore[union-attr]
    assert node["wait2"].state == "gone"  # type: ignore[union-attr]
    script = node["script1"]
    assert "window.subscribed === true" in script.source and script.timeout == 7  # type: ignore[union-attr]
    assert node["wait3"].state == "appear"  # type: ignore[union-attr]
    assert node["cdp1"].method == "Network.emulateNetworkConditions"  # type: ignore[union-attr]

    # the 26 steps: 14 become nodes, 8 keyDown/keyUp steps pair into 2 presses, the other 4 are named below
    assert problems == [
        "steps[0] (setViewport): dropped: the viewport (1280×720) is not replayed; the tab keeps its window's size",
        "steps[18] (keyUp): enter released without its keyDown; ignored",
        "steps[22] (hover): there is no hover node; replayed as waiting for the element to appear (a menu that "
        "opens on hover may need a click instead)",
        "steps[24] (customStep): skipped: this step type is not supported",
        "steps[25] (close): skipped: this step type is not supported",
        "steps 2, 13, 14, 17: click offsets (offsetX/offsetY) are kept on the node, but replay clicks the element's "
        "actionable point (its centre when it is free)",
        "steps 15, 16: replayed as one scroll in the recorded direction, not to the exact position (kept as `to`)",
    ]


@pytest.mark.parametrize("steps, shortcuts, problems", [
    ([{"type": "keyDown", "key": "Enter"}, {"type": "keyUp", "key": "Enter"}], ["enter"], []),
    ([{"type": "keyDown", "key": "Meta"}, {"type": "keyDown", "key": "Shift"}, {"type": "keyDown", "key": "K"},
      {"type": "keyUp", "key": "k"}, {"type": "keyUp", "key": "Shift"}, {"type": "keyUp", "key": "Meta"}],
     ["shift+meta+k"], []),
    ([{"type": "keyDown", "key": "ArrowDown"}, {"type": "keyDown", "key": "ArrowDown"},
      {"type": "keyUp", "key": "ArrowDown"}], ["arrowdown", "arrowdown"], []),
    ([{"type": "keyDown", "key": "ControlLeft"}, {"type": "keyDown", "key": "KeyC"}, {"type": "keyUp", "key": "KeyC"},
      {"type": "keyUp", "key": "ControlLeft"}], ["ctrl+c"], []),
    ([{"type": "keyDown", "key": " "}, {"type": "keyUp", "key": " "}, {"type": "keyDown", "key": "F5"}],
     ["space", "f5"], ["steps[2] (keyDown): f5 is never released; replayed as a press"]),
    ([{"type": "keyDown", "key": "Shift"}, {"type": "keyUp", "key": "Shift"}], [],
     ["steps[0]–[1]: shift pressed and released alone; nothing to replay"]),
    ([{"type": "keyDown", "key": "CapsLock"}, {"type": "keyUp", "key": "CapsLock"}], [],
     ["steps[0] (keyDown): skipped: key 'CapsLock' cannot be replayed"]),
    ([{"type": "keyUp", "key": "Alt"}], [], ["steps[0] (keyUp): alt released without its keyDown; ignored"]),
])
def test_key_pairs(steps: list[dict[str, Any]], shortcuts: list[str], problems: list[str]) -> None:
    doc, notes = import_recording({"title": "keys", "steps": steps})
    assert [n.data.shortcut for n in doc.graph.nodes if n.type == "press"] == shortcuts  # type: ignore[union-attr]
    assert notes == problems


@pytest.mark.parametrize("step, expected_locator, notes", [
    ({"type": "click", "selectors": ["#plain"]}, {"selector": "#plain"}, []),
    ({"type": "click", "selectors": [["aria/Go"]]},
     {"alternatives": [{"name": "Go", "exact": True}]}, []),
    ({"type": "click", "selectors": [["aria/[role=\"main\"]", "aria/Go[role=\"link\"]"]]},
     {"alternatives": [{"selector": 'role=main >> role=link[name="Go"s]'}]}, []),
    ({"type": "click", "selectors": [["xpath//html/body/a"], ["text/Go"]]},
     {"xpath": "/html/body/a", "alternatives": [{"text": "Go"}]}, []),
    ({"type": "click", "selectors": [["app-root >>> button"], ["pierce/button.go"]]},
     {"selector": "app-root >> button", "alternatives": [{"selector": "button.go"}]}, []),
    ({"type": "click", "selectors": [["::-p-text(Go)"], ["#go"], [1], ["xpath/div"]]}, {"selector": "#go"},
     ["steps[0] (click): selectors[0] ignored: a Puppeteer ::-p- pseudo-element selector",
      "steps[0] (click): selectors[2] ignored: not a selector or a list of selectors",
      "steps[0] (click): selectors[3] ignored: an XPath that does not start with /"]),
])
def test_selectors_become_locators(step: dict[str, Any], expected_locator: dict[str, Any], notes: list[str]) -> None:
    doc, problems = import_recording({"steps": [step]})
    click = doc.graph.nodes[1].data
    assert click.locator.model_dump(exclude_unset=True) == expected_locator  # type: ignore[union-attr]
    assert problems == notes
    assert doc.name == "Imported recording"


@pytest.mark.parametrize("step, problem", [
    ({"type": "click", "selectors": []}, "steps[0] (click): skipped: no usable selector"),
    ({"type": "change", "value": "x"}, "steps[0] (change): skipped: no usable selector"),
    ({"type": "click", "selectors": [["#a"]], "button": "back"},
     "steps[0] (click): skipped: the 'back' mouse button is not supported"),
    ({"type": "navigate"}, "steps[0] (navigate): skipped: no url"),
    ({"type": "change", "selectors": [["#a"]]}, "steps[0] (change): skipped: no value"),
    ({"type": "waitForExpression"}, "steps[0] (waitForExpression): skipped: no expression"),
    ({"type": "scroll", "x": 0, "y": 0}, "steps[0] (scroll): skipped: scrolls to where it already is (0, 0)"),
    ({"type": "teleport"}, "steps[0] (teleport): skipped: this step type is not supported"),
    ("click", "steps[0]: skipped: not a step (an object with a type)"),
])
def test_steps_that_cannot_be_replayed_are_reported_by_index(step: Any, problem: str) -> None:
    doc, problems = import_recording({"title": "t", "steps": [step]})
    assert problem in problems
    assert [n.type for n in doc.graph.nodes][0] == "start"


def test_not_a_recording() -> None:
    assert looks_like_recording(recording()) and not looks_like_recording({"kind": "app", "steps": []})
    for raw in ([], {"title": "x"}, {"steps": {}}):
        with pytest.raises(DocumentError):
            import_recording(raw)
