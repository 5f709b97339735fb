"""How the GUI calls operations: through the same registry as the CLI and MCP, on the asyncio loop,
with failures shown to the person in a message box; and how it hears that the stores changed (`changes`, the
context's change feed on the Qt thread: app/ui/follow.py), whoever changed them."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from PySide6.QtWidgets import QMessageBox, QWidget

from app.ops import OpContext, OperationRegistry
from app.ui.follow import StoreSignals
from envs import loggers

log = logging.getLogger(loggers.UI)

ResultHandler = Callable[[dict[str, Any]], None]


class OpRunner:
    def __init__(self, registry: OperationRegistry, ctx: OpContext) -> None:
        self.registry = registry
        self.ctx = ctx
        self.changes = StoreSignals(ctx.changes)
        self._tasks: set[asyncio.Task[None]] = set()

    def run(self, name: str, params: dict[str, Any], parent: QWidget | None = None,
            on_ok: ResultHandler | None = None, title: str = "BrowserPilot",
            on_failed: ResultHandler | None = None) -> None:
        """Start an operation; call `on_ok` with its envelope on success, or show its error (then `on_failed`)."""

        async def go() -> None:
            try:
                result = await self.registry.call(self.ctx, name, params)
            except Exception as exc:  # a defect: said, not left in a task nobody reads
                log.error("%s failed unexpectedly in the GUI", name, exc_info=exc)
                result = {"ok": False, "error": f"{name} failed unexpectedly: {exc}"}
            if result["ok"]:
                if on_ok is not None:
                    on_ok(result)
            else:
                log.info("%s failed in the GUI: %s", name, result["error"])
                QMessageBox.warning(parent, title, result["error"][:1].upper() + result["error"][1:])
                if on_failed is not None:
                    on_failed(result)

        task = asyncio.ensure_future(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
