"""The one way the GUI calls operations: through the same registry as the CLI and MCP, typed (the `Operation`
object, e.g. `schedule_ops.schedule_list`, with its `Params` model or a dict of its own names; the answer an
`Envelope` of the operation's result model, read by fields), as a task on the asyncio loop (which runs on Qt's
thread, so answers arrive there); and how it hears that the stores changed (`changes`, the context's change feed
on the Qt thread: app/ui/follow.py), whoever changed them.

`start` hands every answer to the caller, failures included (a panel that shows a run's failure as a result,
not as an error), and `run` shows a failure to the person in a message box. Either way: an answer is dropped
when the widget that asked (`owner`, `parent`) is gone by then (the app quitting); a cancelled call answers a
failed envelope with code `cancelled` to `start`'s caller and nothing to `run`'s; a defect (an exception instead
of an envelope) answers code `internal`, and an exception in the caller's handler reaches `sys.excepthook`.
The original's call forms (aliases rewritten by app/ops/compat.py) are the MCP and command-line edge's, not the
GUI's: the registry's `run`, not `call`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any, Callable, TypeVar

import shiboken6
from pydantic import BaseModel
from PySide6.QtWidgets import QMessageBox, QWidget

from app.ops import OpContext, Operation, OperationRegistry
from app.ui.follow import StoreSignals
from plumbing import loggers
from workflows.envelope import Envelope, Result

log = logging.getLogger(loggers.UI)

R = TypeVar("R", bound=Result)
OpParams = BaseModel | dict[str, Any]  # the operation's `Params` model, or a dict of its own names
OpStarter = Callable[[Operation[Any, Any], OpParams, Callable[[Envelope[Any]], None]], object]
"""`OpRunner.start` with its owner given (`functools.partial`): how a view that owns no runner calls."""


class OpRunner:
    def __init__(self, registry: OperationRegistry, ctx: OpContext) -> None:
        self.registry = registry
        self.ctx = ctx
        self.changes = StoreSignals(ctx.changes)
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, op: Operation[Any, R], params: OpParams, on_done: Callable[[Envelope[R]], None], *,
              owner: QWidget | None = None, ctx: OpContext | None = None) -> asyncio.Task[None] | None:
        """Start an operation; `on_done` gets its envelope, whatever it says. The task may be cancelled (then
        `on_done` gets a failure with code `cancelled`). `ctx` may be a copy of the app's context
        (`dataclasses.replace`), one with a `progress` listener say. None when the app's loop is gone."""
        name = op.name
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the app is shutting down: its loop is gone
            log.debug("%s not called: no event loop", name)
            return None

        def failed(error: str, code: str) -> Envelope[R]:
            return Envelope[op.result].failed(error, code)  # type: ignore[name-defined]

        def cancelled() -> Envelope[R]:  # made only for a call that was cancelled
            return failed(f"{name} was cancelled", "cancelled")

        def answer(envelope: Envelope[R]) -> None:
            if owner is None or shiboken6.isValid(owner):  # the window may be gone when the app quits
                on_done(envelope)

        async def go() -> None:
            try:
                envelope = await self.registry.run(ctx or self.ctx, op, params)
            except asyncio.CancelledError:
                envelope = cancelled()
            except Exception as exc:  # a defect: the caller still hears an end (never "Running…" for good)
                log.error("%s failed unexpectedly in the GUI", name, exc_info=exc)
                envelope = failed(f"{name} failed unexpectedly: {exc}", "internal")
            answer(envelope)

        def finished(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            if task.cancelled():  # cancelled before it began: `go` never ran to say so
                answer(cancelled())
            elif (exc := task.exception()) is not None:  # the caller's handler raised
                sys.excepthook(type(exc), exc, exc.__traceback__)

        task = loop.create_task(go())
        self._tasks.add(task)
        task.add_done_callback(finished)
        return task

    def run(self, op: Operation[Any, R], params: OpParams, parent: QWidget | None = None,
            on_ok: Callable[[Envelope[R]], None] | None = None, title: str = "BrowserPilot",
            on_failed: Callable[[Envelope[R]], None] | None = None) -> asyncio.Task[None] | None:
        """Start an operation; call `on_ok` with its envelope on success, or show its error in a message box over
        `parent` (then call `on_failed`)."""

        def done(envelope: Envelope[R]) -> None:
            if envelope.ok:
                if on_ok is not None:
                    on_ok(envelope)
                return
            if envelope.code == "cancelled":
                return
            error = str(envelope.error)
            log.info("%s failed in the GUI: %s", op.name, error)
            QMessageBox.warning(parent, title, error[:1].upper() + error[1:])
            if on_failed is not None:
                on_failed(envelope)

        return self.start(op, params, done, owner=parent)
