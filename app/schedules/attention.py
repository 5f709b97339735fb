"""Runs that wait for a person: a workflow run whose tab is handed over (a `handoff` node, or a `captcha` node
that found a captcha) until the person clicks Done or the run goes on.

`AttentionWatcher` follows the run manager's events (workflows/events.py): when a run starts, it subscribes to
the control of the run's tab (`TabControl.state_changed`, app/browser/control.py: the state `handoff` is what
`page_handoff` sets) until the run ends. `changed` is emitted with the list of waiting runs whenever it changes;
`needed` once for each handoff that begins (the notification and the tray's "needs you" follow it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QObject, Signal

from app.browser.control import ControlState, TabControl
from workflows.events import RunEvent, RunEvents

log = logging.getLogger("browserpilot.schedules")


@dataclass(frozen=True)
class Waiting:
    """A run waiting for a person."""

    run_id: str
    tab_id: str
    env_id: str
    workflow: str
    message: str
    schedule_id: str | None  # the schedule that started it, if one did


class AttentionWatcher(QObject):
    changed = Signal(list)  # [Waiting]: the runs waiting for a person now
    needed = Signal(object)  # Waiting: a run has just begun to wait

    def __init__(self, events: RunEvents, control_of: Callable[[str], TabControl | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._control_of = control_of
        self._watched: dict[str, tuple[TabControl, Callable[[str], None], dict[str, Any]]] = {}
        self._waiting: dict[str, Waiting] = {}
        self._unsubscribe = events.subscribe(self._on_event)

    def waiting(self) -> list[Waiting]:
        return list(self._waiting.values())

    def close(self) -> None:
        self._unsubscribe()
        for run_id in list(self._watched):
            self._forget(run_id)

    def _on_event(self, event: RunEvent) -> None:
        if event.kind == "run_started" and event.record:
            self._watch(event.run_id, event.record)
        elif event.kind == "run_finished":
            self._forget(event.run_id)

    def _watch(self, run_id: str, record: dict[str, Any]) -> None:
        tab_id = record.get("tabId")
        control = self._control_of(tab_id) if tab_id else None
        if control is None:
            return

        def on_state(state: str, run_id: str = run_id) -> None:
            self._on_state(run_id, state)

        control.state_changed.connect(on_state)
        self._watched[run_id] = (control, on_state, record)
        self._on_state(run_id, str(control.state))

    def _on_state(self, run_id: str, state: str) -> None:
        watched = self._watched.get(run_id)
        if watched is None:
            return
        control, _slot, record = watched
        if state == ControlState.HANDOFF and run_id not in self._waiting:
            waiting = Waiting(run_id=run_id, tab_id=str(record.get("tabId")), env_id=str(record.get("env")),
                              workflow=str(record.get("workflowName") or ""), message=control.message,
                              schedule_id=(record.get("trigger") or {}).get("schedule"))
            self._waiting[run_id] = waiting
            log.info("run %s waits for a person: %s", run_id, waiting.message)
            self.needed.emit(waiting)
            self.changed.emit(self.waiting())
        elif state != ControlState.HANDOFF and self._waiting.pop(run_id, None) is not None:
            self.changed.emit(self.waiting())

    def _forget(self, run_id: str) -> None:
        watched = self._watched.pop(run_id, None)
        if watched is not None:
            control, slot, _record = watched
            if shiboken6.isValid(control):
                try:
                    control.state_changed.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        if self._waiting.pop(run_id, None) is not None:
            self.changed.emit(self.waiting())
