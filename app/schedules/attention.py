"""Tabs that wait for a person: a tab handed over (`page_handoff`: a workflow's `handoff` node, a `captcha` node
that found a captcha, an agent or an MCP client asking for a login) until the person clicks Done or the tab is
taken back.

`AttentionWatcher` follows every tab of the browser service (`tab_opened` / `tab_closed`) and its control
(`TabControl.state_changed`, app/browser/control.py: the state `handoff` is what `page_handoff` sets), and the
run manager's events (workflows/events.py), so that a handoff on a workflow run's tab names the run, its
workflow and the schedule that started it, also on a tab the run followed a click into (each `node_started`
says which tab the run acts in). A handoff on a tab no run owns (an agent's, an MCP client's) waits too, with
no run. `changed` is emitted with the list of waiting tabs whenever it changes; `needed` once for
each handoff that begins (the notification and the tray's "needs you" follow it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import shiboken6
from PySide6.QtCore import QObject, Signal

from app.browser.control import ControlState, TabControl
from plumbing import loggers
from workflows.events import RunEvent, RunEvents

if TYPE_CHECKING:
    from app.browser.parts.tab import Tab
    from app.browser.service import BrowserService

log = logging.getLogger(loggers.SCHEDULES)


@dataclass(frozen=True)
class Waiting:
    """A tab waiting for a person."""

    run_id: str | None  # the workflow run on the tab; None for an agent's or an MCP client's handoff
    tab_id: str
    env_id: str
    workflow: str  # the run's workflow ("" without a run)
    message: str
    schedule_id: str | None  # the schedule that started the run, if one did


class AttentionWatcher(QObject):
    changed = Signal(list)  # [Waiting]: the tabs waiting for a person now
    needed = Signal(object)  # Waiting: a tab has just begun to wait

    def __init__(self, events: RunEvents, service: "BrowserService", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._controls: dict[str, tuple[TabControl, str, Callable[[str], None]]] = {}  # tab id -> control, env
        self._runs: dict[str, tuple[str, dict[str, Any]]] = {}  # tab id -> (run id, record) of the run on it
        self._waiting: dict[str, Waiting] = {}  # tab id -> what waits there
        self._unsubscribe = events.subscribe(self._on_event)
        service.tab_opened.connect(self._on_tab_opened)
        service.tab_closed.connect(self._on_tab_closed)
        for tab in service.tabs():
            self._on_tab_opened(tab)

    def waiting(self) -> list[Waiting]:
        return list(self._waiting.values())

    def close(self) -> None:
        self._unsubscribe()
        if shiboken6.isValid(self._service):
            for signal, slot in ((self._service.tab_opened, self._on_tab_opened),
                                 (self._service.tab_closed, self._on_tab_closed)):
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        for tab_id in list(self._controls):
            self._unwatch(tab_id)
        self._runs.clear()
        self._waiting.clear()

    # -- tabs ----------------------------------------------------------------------------------------------
    def _on_tab_opened(self, tab: "Tab") -> None:
        control = tab.control_state
        if tab.tab_id in self._controls or not shiboken6.isValid(control):
            return

        def on_state(state: str, tab_id: str = tab.tab_id) -> None:
            self._on_state(tab_id, state)

        control.state_changed.connect(on_state)
        self._controls[tab.tab_id] = (control, tab.env_id, on_state)
        self._on_state(tab.tab_id, str(control.state))

    def _on_tab_closed(self, tab_id: str, _env_id: str) -> None:
        self._unwatch(tab_id)
        if self._waiting.pop(tab_id, None) is not None:
            self.changed.emit(self.waiting())

    def _unwatch(self, tab_id: str) -> None:
        watched = self._controls.pop(tab_id, None)
        if watched is not None:
            control, _env, slot = watched
            if shiboken6.isValid(control):
                try:
                    control.state_changed.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass

    # -- runs ----------------------------------------------------------------------------------------------
    def _on_event(self, event: RunEvent) -> None:
        if event.kind == "run_started" and event.record:
            tab_id = event.record.get("tabId")
            if tab_id:
                self._runs[str(tab_id)] = (event.run_id, event.record)
        elif event.kind == "node_started" and event.tab_id and event.tab_id not in self._runs:
            # the run followed a click into a new tab: a handoff there is this run's too
            known = next((entry for entry in self._runs.values() if entry[0] == event.run_id), None)
            if known is not None:
                self._runs[event.tab_id] = known
        elif event.kind == "run_finished":
            for tab_id, (run_id, _record) in list(self._runs.items()):
                if run_id == event.run_id:
                    del self._runs[tab_id]
                    waiting = self._waiting.get(tab_id)
                    if waiting is not None and waiting.run_id == run_id:
                        del self._waiting[tab_id]  # the run ended (timed out, stopped): it waits no more
                        self.changed.emit(self.waiting())

    # -- the state -----------------------------------------------------------------------------------------
    def _on_state(self, tab_id: str, state: str) -> None:
        watched = self._controls.get(tab_id)
        if watched is None:
            return
        control, env_id, _slot = watched
        if state == ControlState.HANDOFF and tab_id not in self._waiting:
            run_id, record = self._runs.get(tab_id, (None, {}))
            waiting = Waiting(run_id=run_id, tab_id=tab_id, env_id=str(record.get("env") or env_id),
                              workflow=str(record.get("workflowName") or ""), message=control.message,
                              schedule_id=(record.get("trigger") or {}).get("schedule"))
            self._waiting[tab_id] = waiting
            log.info("tab %s (run %s) waits for a person: %s", tab_id, run_id or "none", waiting.message)
            self.needed.emit(waiting)
            self.changed.emit(self.waiting())
        elif state != ControlState.HANDOFF and self._waiting.pop(tab_id, None) is not None:
            self.changed.emit(self.waiting())
