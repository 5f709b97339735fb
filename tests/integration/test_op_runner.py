"""The one way the GUI calls an operation (app/ui/op_runner.py `OpRunner`), typed (the `Operation` and its
parameters in, an `Envelope` of its result model out): answers on the Qt thread, failures in a message box a
person reads (`run`) or handed to the panel that shows them itself (`start`), a cancelled call, a defect, and a
window that is gone before the answer came."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from dataclasses import dataclass
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
from workflows.envelope import Envelope, OpenResult, Result


class GateParams(Params):
    answer: str = "done"
    wait_ms: int = 0  # `waitMs` on the wire: the typed call takes the python name, the alias, or the model


class GateResult(Result):
    answer: str


@dataclass
class Rig:
    """A runner over three operations: `gate` answers once `opened` is set, `refuse` fails, `crash` raises."""

    ops: OpRunner
    opened: asyncio.Event
    gate: Operation[GateParams, GateResult]
    refuse: Operation[Params, OpenResult]
    crash: Operation[Params, OpenResult]


@pytest.fixture
def rig(qapp: QApplication, tmp_path: Path) -> Iterator[Rig]:
    opened = asyncio.Event()

    async def gated(ctx: OpContext, params: GateParams) -> GateResult:
        await opened.wait()
        return GateResult(answer=f"{params.answer} after {params.wait_ms}")

    async def refuse(ctx: OpContext, params: Params) -> OpenResult:
        raise OpError("the disk is full")

    async def crash(ctx: OpContext, params: Params) -> OpenResult:
        raise RuntimeError("a defect")

    gate = Operation(name="gate", params=GateParams, func=gated, description="", result=GateResult)
    refusing = Operation(name="refuse", params=Params, func=refuse, description="", result=OpenResult)
    crashing = Operation(name="crash", params=Params, func=crash, description="", result=OpenResult)
    registry = OperationRegistry()
    registry.add(gate, refusing, crashing)
    data = DataDir(tmp_path)
    with asyncio_inside_qt(qapp):
        yield Rig(OpRunner(registry, OpContext(data=data, envs=EnvStore(data))), opened, gate, refusing, crashing)


def test_start_hands_every_answer_to_the_caller_typed_on_the_qt_thread(qtbot: QtBot, rig: Rig) -> None:
    owner = QWidget()
    answers: dict[str, Envelope[Any]] = {}
    threads: set[str] = set()

    def keep(name: str) -> Any:
        def done(answer: Envelope[Any]) -> None:
            answers[name] = answer
            threads.add(threading.current_thread().name)
        return done

    rig.ops.start(rig.refuse, {}, keep("refuse"), owner=owner)
    rig.ops.start(rig.crash, Params(), keep("crash"), owner=owner)
    rig.ops.start(rig.gate, {"answer": "yes", "wait_ms": 5}, keep("gate"), owner=owner)
    rig.ops.start(rig.gate, GateParams(answer="model", wait_ms=7), keep("model"), owner=owner)
    rig.ops.start(rig.gate, {"answer": "alias", "waitMs": 9}, keep("alias"), owner=owner)
    rig.ops.start(rig.gate, {"colour": "red"}, keep("invalid"), owner=owner)
    qtbot.waitUntil(lambda: len(answers) == 3)
    assert answers["refuse"].wire() == {"ok": False, "control": None, "error": "the disk is full", "code": "failed"}
    assert answers["crash"].code == "internal" and "crash failed unexpectedly: a defect" in str(answers["crash"].error)
    assert answers["invalid"].code == "invalid_parameters" and "colour" in str(answers["invalid"].error)
    rig.opened.set()
    qtbot.waitUntil(lambda: len(answers) == 6)
    assert isinstance(answers["gate"].result, GateResult)  # the operation's model, read by its fields
    assert [answers[name].result.answer for name in ("gate", "model", "alias")] == [
        "yes after 5", "model after 7", "alias after 9"]
    assert answers["gate"].wire() == {"ok": True, "control": None, "answer": "yes after 5"}
    assert threads == {threading.main_thread().name}
    assert QApplication.activeModalWidget() is None  # no message box: the caller shows what it wants


def test_a_cancelled_call_answers_cancelled_and_a_gone_owner_hears_nothing(qtbot: QtBot, rig: Rig) -> None:
    owner, gone = QWidget(), QWidget()
    answers: list[tuple[str, Envelope[GateResult]]] = []
    task = rig.ops.start(rig.gate, {}, lambda answer: answers.append(("cancelled", answer)), owner=owner)
    rig.ops.start(rig.gate, {}, lambda answer: answers.append(("gone", answer)), owner=gone)
    rig.ops.start(rig.gate, {}, lambda answer: answers.append(("kept", answer)), owner=owner)
    assert task is not None
    task.cancel()
    qtbot.waitUntil(lambda: len(answers) == 1)
    (name, cancelled), = answers
    assert name == "cancelled" and not cancelled.ok and cancelled.data is None
    assert (cancelled.code, cancelled.error) == ("cancelled", "gate was cancelled")
    shiboken6.delete(gone)  # its window closed while the call ran
    rig.opened.set()
    qtbot.waitUntil(lambda: len(answers) == 2)
    assert [name for name, _ in answers] == ["cancelled", "kept"]
    assert answers[1][1].result.answer == "done after 0"


def test_run_shows_a_failure_to_the_person_then_tells_the_caller(qtbot: QtBot, rig: Rig) -> None:
    parent = QWidget()
    shown: list[tuple[str, str]] = []
    failed: list[Envelope[Any]] = []

    def read_box() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.isVisible():
            shown.append((box.windowTitle(), box.text()))
            box.accept()
            return
        QTimer.singleShot(20, read_box)

    QTimer.singleShot(0, read_box)
    rig.ops.run(rig.refuse, {}, parent, on_ok=lambda answer: pytest.fail("refuse did not fail"), title="Save",
                on_failed=failed.append)
    qtbot.waitUntil(lambda: bool(failed))
    assert shown == [("Save", "The disk is full")]
    assert failed[0].error == "the disk is full"

    succeeded: list[Envelope[GateResult]] = []
    rig.ops.run(rig.gate, {"answer": "fine"}, parent, on_ok=succeeded.append)
    task = rig.ops.run(rig.gate, {}, parent, on_failed=failed.append)
    assert task is not None
    task.cancel()  # nothing to say to a person about a call that was stopped
    rig.opened.set()
    qtbot.waitUntil(lambda: bool(succeeded))
    assert succeeded[0].result.answer == "fine after 0"
    qtbot.waitUntil(lambda: task.done())
    assert len(failed) == 1 and len(shown) == 1
