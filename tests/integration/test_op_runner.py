"""The one way the GUI calls an operation (app/ui/op_runner.py `OpRunner`): answers on the Qt thread, failures in a
message box a person reads (`run`) or handed to the panel that shows them itself (`start`), a cancelled call, a
defect, and a window that is gone before the answer came."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from app.ops import OpContext, Operation, OperationRegistry, OpError, Params
from app.startup.qt_asyncio import asyncio_inside_qt
from app.ui.op_runner import OpRunner
from plumbing.datadir import DataDir
from envs.store import EnvStore
from workflows.envelope import OpenResult


class GateParams(Params):
    answer: str = "done"


@pytest.fixture
def runner(qapp: QApplication, tmp_path: Path) -> Iterator[tuple[OpRunner, asyncio.Event]]:
    """A runner over three operations: `gate` answers once the event is set, `refuse` fails, `crash` raises."""
    gate = asyncio.Event()

    async def gated(ctx: OpContext, params: GateParams) -> dict[str, Any]:
        await gate.wait()
        return {"answer": params.answer}

    async def refuse(ctx: OpContext, params: Params) -> dict[str, Any]:
        raise OpError("the disk is full")

    async def crash(ctx: OpContext, params: Params) -> dict[str, Any]:
        raise RuntimeError("a defect")

    registry = OperationRegistry()
    registry.add(Operation(name="gate", params=GateParams, func=gated, description="", result=OpenResult),
                 Operation(name="refuse", params=Params, func=refuse, description="", result=OpenResult),
                 Operation(name="crash", params=Params, func=crash, description="", result=OpenResult))
    data = DataDir(tmp_path)
    with asyncio_inside_qt(qapp):
        yield OpRunner(registry, OpContext(data=data, envs=EnvStore(data))), gate


def test_start_hands_every_answer_to_the_caller_on_the_qt_thread(qtbot: QtBot, runner: tuple[OpRunner, asyncio.Event]
                                                                ) -> None:
    ops, gate = runner
    owner = QWidget()
    answers: dict[str, dict[str, Any]] = {}
    threads: set[str] = set()

    def keep(name: str) -> Any:
        def done(answer: dict[str, Any]) -> None:
            answers[name] = answer
            threads.add(threading.current_thread().name)
        return done

    ops.start("refuse", {}, keep("refuse"), owner=owner)
    ops.start("crash", {}, keep("crash"), owner=owner)
    ops.start("gate", {"answer": "yes"}, keep("gate"), owner=owner)
    ops.start("gate", {"colour": "red"}, keep("invalid"), owner=owner)
    qtbot.waitUntil(lambda: len(answers) == 3)
    assert answers["refuse"] == {"ok": False, "control": None, "error": "the disk is full", "code": "failed"}
    assert answers["crash"]["code"] == "internal" and "crash failed unexpectedly: a defect" in answers["crash"]["error"]
    assert answers["invalid"]["code"] == "invalid_parameters"
    gate.set()
    qtbot.waitUntil(lambda: "gate" in answers)
    assert answers["gate"] == {"ok": True, "control": None, "answer": "yes"}
    assert threads == {threading.main_thread().name}
    assert QApplication.activeModalWidget() is None  # no message box: the caller shows what it wants


def test_a_cancelled_call_answers_cancelled_and_a_gone_owner_hears_nothing(qtbot: QtBot,
                                                                          runner: tuple[OpRunner, asyncio.Event]) -> None:
    ops, gate = runner
    owner, gone = QWidget(), QWidget()
    answers: list[tuple[str, dict[str, Any]]] = []
    task = ops.start("gate", {}, lambda answer: answers.append(("cancelled", answer)), owner=owner)
    ops.start("gate", {}, lambda answer: answers.append(("gone", answer)), owner=gone)
    ops.start("gate", {}, lambda answer: answers.append(("kept", answer)), owner=owner)
    assert task is not None
    task.cancel()
    qtbot.waitUntil(lambda: len(answers) == 1)
    assert answers == [("cancelled", {"ok": False, "cancelled": True, "error": "gate was cancelled"})]
    shiboken6.delete(gone)  # its window closed while the call ran
    gate.set()
    qtbot.waitUntil(lambda: len(answers) == 2)
    assert [name for name, _ in answers] == ["cancelled", "kept"]


def test_run_shows_a_failure_to_the_person_then_tells_the_caller(qtbot: QtBot, runner: tuple[OpRunner, asyncio.Event]
                                                                 ) -> None:
    ops, gate = runner
    parent = QWidget()
    shown: list[tuple[str, str]] = []
    failed: list[dict[str, Any]] = []

    def read_box() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.isVisible():
            shown.append((box.windowTitle(), box.text()))
            box.accept()
            return
        QTimer.singleShot(20, read_box)

    QTimer.singleShot(0, read_box)
    ops.run("refuse", {}, parent, on_ok=lambda answer: pytest.fail("refuse did not fail"), title="Save",
            on_failed=failed.append)
    qtbot.waitUntil(lambda: bool(failed))
    assert shown == [("Save", "The disk is full")]
    assert failed[0]["error"] == "the disk is full"

    succeeded: list[dict[str, Any]] = []
    ops.run("gate", {"answer": "fine"}, parent, on_ok=succeeded.append)
    task = ops.run("gate", {}, parent, on_failed=failed.append)
    assert task is not None
    task.cancel()  # nothing to say to a person about a call that was stopped
    gate.set()
    qtbot.waitUntil(lambda: bool(succeeded))
    assert succeeded[0]["answer"] == "fine"
    qtbot.waitUntil(lambda: task.done())
    assert len(failed) == 1 and len(shown) == 1
