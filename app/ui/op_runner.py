"""The one way the GUI calls operations: through the same registry as the CLI and MCP, as a task on the asyncio
loop (which runs on Qt's thread, so answers arrive there); and how it hears that the stores changed (`changes`,
the context's change feed on the Qt thread: app/ui/follow.py), whoever changed them.

`start` hands every answer to the caller, failures included (a panel that shows a run's failure as a result,
not as an error), and `run` shows a failure to the person in a message box. Either way: an answer is dropped
when the widget that asked (`owner`, `parent`) is gone by then (the app quitting); a cancelled call answers
`{ok: false, cancelled: true}` to `start`'s caller and nothing to `run`'s; a defect (an exception instead of an
envelope) answers code `internal`, and an exception in the caller's handler reaches `sys.excepthook`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any, Callable

import shiboken6
from PySide6.QtWidgets import QMessageBox, QWidget

from app.ops import OpContext, OperationRegistry
from app.ui.follow import StoreSignals
from plumbing import loggers

log = logging.getLogger(loggers.UI)

Answer = dict[str, Any]  # an operation's envelope, in its wire form
AnswerHandler = Callable[[Answer], None]
OpStarter = Callable[[str, dict[str, Any], AnswerHandler], object]
"""`OpRunner.start` with its owner given (`functools.partial`): how a view that owns no runner calls."""


class OpRunner:
    def __init__(self, registry: OperationRegistry, ctx: OpContext) -> None:
        self.registry = registry
        self.ctx = ctx
        self.changes = StoreSignals(ctx.changes)
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, name: str, params: dict[str, Any], on_done: AnswerHandler, *, owner: QWidget | None = None,
              ctx: OpContext | None = None) -> asyncio.Task[None] | None:
        """Start an operation; `on_done` gets its envelope, whatever it says. The task may be cancelled (then
        `on_done` gets `{ok: false, cancelled: true}`). `ctx` may be a copy of the app's context
        (`dataclasses.replace`), one with a `progress` listener say. None when the app's loop is gone."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the app is shutting down: its loop is gone
            log.debug("%s not called: no event loop", name)
            return None

        cancelled = {"ok": False, "cancelled": True, "error": f"{name} was cancelled"}

        def answer(envelope: Answer) -> None:
            if owner is None or shiboken6.isValid(owner):  # the window may be gone when the app quits
                on_done(envelope)

        async def go() -> None:
            try:
                envelope = await self.registry.call(ctx or self.ctx, name, params)
            except asyncio.CancelledError:
                envelope = cancelled
            except Exception as exc:  # a defect: the caller still hears an end (never "Running…" for good)
                log.error("%s failed unexpectedly in the GUI", name, exc_info=exc)
                envelope = {"ok": False, "code": "internal", "error": f"{name} failed unexpectedly: {exc}"}
            answer(envelope)

        def finished(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            if task.cancelled():  # cancelled before it began: `go` never ran to say so
                answer(cancelled)
            elif (exc := task.exception()) is not None:  # the caller's handler raised
                sys.excepthook(type(exc), exc, exc.__traceback__)

        task = loop.create_task(go())
        self._tasks.add(task)
        task.add_done_callback(finished)
        return task

    def run(self, name: str, params: dict[str, Any], parent: QWidget | None = None,
            on_ok: AnswerHandler | None = None, title: str = "BrowserPilot",
            on_failed: AnswerHandler | None = None) -> asyncio.Task[None] | None:
        """Start an operation; call `on_ok` with its envelope on success, or show its error in a message box over
        `parent` (then call `on_failed`)."""

        def done(answer: Answer) -> None:
            if answer["ok"]:
                if on_ok is not None:
                    on_ok(answer)
                return
            if answer.get("cancelled"):
                return
            error = str(answer["error"])
            log.info("%s failed in the GUI: %s", name, error)
            QMessageBox.warning(parent, title, error[:1].upper() + error[1:])
            if on_failed is not None:
                on_failed(answer)

        return self.start(name, params, done, owner=parent)
