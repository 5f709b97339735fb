"""What happens during a run, as events that the GUI (the editor's live view, the panels), MCP clients and the
command line all follow: `run_started`, `node_started`, `node_finished` (status ok | failed, ms, the output
or the error, the if-else handle taken, `healed` when the node's locator was healed), `loop_pass` (the loop node and the pass number, from 1) and
`run_finished` (the status and the whole record).

`RunEvents` is one manager's hub: subscribers for every run or one run, and the events of recent runs kept
(bounded) so a caller that asks late (`run_events {runId, since}`) still sees them. Callbacks run on the
caller's thread (the loop's); one that raises is logged and the others still run. Pure Python: no Qt.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from plumbing import loggers

log = logging.getLogger(loggers.WORKFLOWS)

EventKind = Literal["run_started", "node_started", "node_finished", "loop_pass", "run_finished"]
KEPT_RUNS = 50
"""Runs whose events are kept after they end."""
KEPT_EVENTS = 5000
"""Events kept per run (a long loop keeps its latest)."""


@dataclass(frozen=True)
class RunEvent:
    run_id: str
    kind: EventKind
    seq: int
    at: float = field(default_factory=time.time)
    node: str | None = None
    node_type: str | None = None
    status: str | None = None
    ms: float | None = None
    output: Any = None
    error: str | None = None
    handle: str | None = None
    loop: str | None = None
    index: int | None = None
    record: dict[str, Any] | None = None
    healed: dict[str, Any] | None = None   # node_finished: {from, to, score, why} when the node's element was healed
    tab_id: str | None = None   # node_started: the tab the run acts in (it changes when a click opens a tab it follows)

    def as_dict(self) -> dict[str, Any]:
        """The event as JSON-ready camelCase, without empty fields."""
        names = {"run_id": "runId", "node_type": "nodeType", "tab_id": "tabId"}
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if value is not None or (key == "output" and self.kind == "node_finished" and self.status == "ok"):
                out[names.get(key, key)] = value
        return out


Subscriber = Callable[[RunEvent], None]


class RunEvents:
    """Subscribers and recent history of the runs of one run manager."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[str | None, Subscriber]] = []
        self._history: OrderedDict[str, list[RunEvent]] = OrderedDict()
        self._finished: set[str] = set()
        self._seq: dict[str, int] = {}

    def subscribe(self, callback: Subscriber, run_id: str | None = None) -> Callable[[], None]:
        """Call `callback` for every event (of `run_id` only, when given); returns the unsubscribe function."""
        entry = (run_id, callback)
        self._subscribers.append(entry)

        def unsubscribe() -> None:
            if entry in self._subscribers:
                self._subscribers.remove(entry)
        return unsubscribe

    def emit(self, run_id: str, kind: EventKind, **fields: Any) -> RunEvent:
        seq = self._seq.get(run_id, 0) + 1
        self._seq[run_id] = seq
        event = RunEvent(run_id=run_id, kind=kind, seq=seq, **fields)
        kept = self._history.setdefault(run_id, [])
        kept.append(event)
        if len(kept) > KEPT_EVENTS:
            del kept[: len(kept) - KEPT_EVENTS]
        if kind == "run_finished":
            self._finished.add(run_id)
            self._forget_old()
        for wanted, callback in list(self._subscribers):
            if wanted in (None, run_id):
                try:
                    callback(event)
                except Exception:  # a subscriber's defect must not stop the run
                    log.exception("a run event subscriber failed on %s %s", kind, run_id)
        return event

    def history(self, run_id: str, since: int = 0) -> list[RunEvent]:
        """The kept events of a run with `seq` greater than `since`."""
        return [event for event in self._history.get(run_id, []) if event.seq > since]

    def knows(self, run_id: str) -> bool:
        return run_id in self._history

    def finished(self, run_id: str) -> bool:
        return run_id in self._finished

    def _forget_old(self) -> None:
        done = [run_id for run_id in self._history if run_id in self._finished]
        for run_id in done[: max(0, len(done) - KEPT_RUNS)]:
            del self._history[run_id]
            self._finished.discard(run_id)
            self._seq.pop(run_id, None)
