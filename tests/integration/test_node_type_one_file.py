"""Adding a node type is one file plus its translations: a type declared in this test module, and nowhere else,
is offered by the editor's node menu, edited by the side panel's form (its structured field too), read by the
later nodes' template completion, and said in words by a recording."""

from __future__ import annotations

from typing import Any, ClassVar, Iterator, Literal

import pytest
from pydantic import Field
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from app.ui.editor.editors import Editors
from app.ui.editor.structured import RecordList
from app.ui.editor.templates import reachable_variables
from app.ui.node_kinds import kind_label, kind_with_name
from tests.support.qt import run_op, shell  # noqa: F401  (fixture)
from workflows.nodes import NODE_TYPES, NodeData, RunContext
from workflows.nodes.base import QT_TRANSLATE_NOOP, RecordedStep, target_phrase
from workflows.nodes.structured import Spec, Sub
from workflows.nodes.values import Text
from workflows.recording import Step

KIND = "toy-echo"


@pytest.fixture
def toy_type() -> Iterator[type[NodeData]]:
    """The whole node type: its fields, behaviour, label, output keys, structured field and words."""

    class ToyEchoData(NodeData):
        """Say a text back (a node type of this test only)."""

        node_type: ClassVar[str] = KIND
        category: ClassVar[str] = "data & debug"
        produces_output: ClassVar[bool] = True
        label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "echo back")
        output_keys: ClassVar[tuple[str, ...]] = ("echoed", "length")
        structured_fields: ClassVar[dict[str, Spec]] = {"pairs": Spec(
            (Sub("name", optional=False), Sub("value", "value")), lambda: {"name": "", "value": ""}, "item")}
        type: Literal["toy-echo"]
        text: Text = ""
        pairs: list[dict[str, Any]] = Field(default_factory=list)

        @classmethod
        def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
            return f"Say '{data.get('text', '')}' back from{target_phrase(step)}"

        async def run(self, ctx: RunContext) -> Any:
            text = ctx.render(self.text)
            return {"echoed": text, "length": len(text)}

    try:
        yield ToyEchoData
    finally:
        del NODE_TYPES[KIND]  # this module's type leaves with it: the other tests know the 22


def document(name: str) -> dict[str, Any]:
    node = lambda node_id, x, **data: {"id": node_id, "data": data, "position": {"x": x, "y": 0}}  # noqa: E731
    return {"app": {"name": name}, "kind": "workflow", "version": "0.3.0", "workflow": {"graph": {
        "nodes": [node("start", 0, type="start"), node("toy1", 300, type=KIND, text="hi"),
                  node("end", 600, type="end", outputs=[])],
        "edges": [{"source": "start", "target": "toy1"}, {"source": "toy1", "target": "end"}]}}}


def test_a_node_type_declared_in_one_module_is_in_the_menu_the_form_the_templates_and_the_recorder(
        qtbot: QtBot, shell: BrowserPilotApp, toy_type: type[NodeData]) -> None:  # noqa: F811
    assert NODE_TYPES[KIND] is toy_type and kind_label(KIND) == "echo back"
    written = run_op(qtbot, shell, "workflow_write", {"workflow": document("Echo")})
    assert written["ok"], written
    editors = Editors(shell.ops, shell)
    try:
        window = editors.open("Echo")
        qtbot.waitExposed(window)

        # The node menu offers it, by its label and its type, in its group; Enter adds one.
        offered = {window.menu.list.item(row).data(Qt.ItemDataRole.UserRole): window.menu.list.item(row).text()
                   for row in range(window.menu.list.count())}
        assert offered[KIND].startswith(kind_with_name(KIND)) and "echo back toy-echo" in offered[KIND]
        assert offered[KIND].endswith("Data & debug")
        before = {str(n["id"]) for n in window.model.nodes(())}
        window.menu.popup(window.view.mapToGlobal(window.view.rect().center()))
        qtbot.waitUntil(lambda: window.menu.isVisible() and window.menu.search.hasFocus())
        QTest.keyClicks(window.menu.search, "echo back")
        QTest.keyClick(window.menu.search, Qt.Key.Key_Return)
        added = {str(n["id"]) for n in window.model.nodes(())} - before
        assert len(added) == 1 and window.model.node(added.pop())["data"]["type"] == KIND

        # The side panel's form: its label, its plain field, and its structured field as records.
        window.select_node("toy1")
        qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "toy1")
        form = window.form
        assert form is not None
        header = form.findChild(QLabel, "node-form-header")
        assert header is not None and "echo back" in header.text()
        text = form.findChild(QLineEdit, "field-text")
        assert text is not None and text.text() == "hi"
        pairs = form.findChild(RecordList, "field-pairs")
        assert pairs is not None
        add = form.findChild(QPushButton, "field-pairs-add")
        assert add is not None
        QTest.mouseClick(add, Qt.MouseButton.LeftButton)
        name = form.findChild(QLineEdit, "field-pairs-0-name")
        assert name is not None
        name.setFocus()
        QTest.keyClicks(name, "colour")
        assert window.model.node("toy1")["data"]["pairs"] == [{"name": "colour", "value": ""}]

        # The nodes after it can read its output keys.
        assert {"toy1.echoed", "toy1.length"} <= set(reachable_variables(window.model, "end"))
    finally:
        editors.close_all()

    # A recording says a step of its type in its words.
    step = Step("toy-1", KIND, {"text": "hi"}, target="button 'Go'")
    assert step.as_dict()["words"] == "Say 'hi' back from button 'Go'"
