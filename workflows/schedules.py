"""Schedules and `schedules.json`: which workflow runs when, where, with what, and what happened last.

A schedule runs one saved workflow in one environment with given inputs, or once per row of a rows file (a
batch; on workers when it names a broker), at the times of its `Timing` (workflows/schedule_timing.py). It
says what happens to a time that passed while the app was closed or the machine slept (`missed`: run once
when the app is back, if the time is at most `graceMinutes` old, or skip), and it keeps

- `handledUntil`: every fire time up to this moment has been dealt with (run, skipped or missed). The
  scheduler's own job store lives in memory and forgets; this field is how a restart knows what it missed;
- `last` and `history` (newest first, at most `HISTORY`): each firing's outcome: `running`, then the run's
  or batch's status, or `skipped` (the previous run still going) or `missed` (the app was not running), with
  the run or batch id and the reason;
- `nextRunAt`: the next time, as the scheduler last computed it.

The store follows every store here: the document in memory is the truth, each change builds a new document
and hands its rendering to the saver (plumbing/savemanager.py: in the app off the Qt thread, debounced; by default
written at once), `schema_version`ed, validated on load, an unusable file moved aside and reported. Every change
is published on the store's change feed (plumbing/changes.py): the scheduler reschedules, the panel redraws.
Pure Python, no Qt.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from plumbing import loggers
from plumbing.changes import StoreChange, StoreChanges
from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import ImmediateSaver, Saver
from workflows.runs import now
from workflows.schedule_timing import Timing
from workflows.tracing import TraceMode

log = logging.getLogger(loggers.SCHEDULES)

HISTORY = 20
DEFAULT_GRACE_MINUTES = 12 * 60
MAX_NAME = 100
ResultStatus = Literal["running", "ok", "failed", "cancelled", "taken_over", "skipped", "missed"]
MissedPolicy = Literal["run", "skip"]
ScheduleChange = Literal["created", "updated", "deleted", "recorded"]


class ScheduleError(Exception):
    """A request about schedules that cannot be carried out; one line for a person."""


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class ScheduleResult(_Camel):
    """One firing of a schedule and what came of it."""

    at: datetime = Field(default_factory=now)  # when it fired (or was skipped or found missed)
    status: ResultStatus
    run_id: str | None = None
    batch_id: str | None = None
    reason: str | None = None  # why it was skipped or missed, or the run's error
    counts: dict[str, int] | None = None  # a batch's {total, succeeded, failed}
    ended_at: datetime | None = None
    manual: bool = False  # Run now, not the timing


class Schedule(_Camel):
    id: str
    name: str
    workflow_id: str
    workflow_name: str = ""
    env: str = "env-default"
    inputs: dict[str, Any] = Field(default_factory=dict)
    rows_file: str | None = None
    broker: str | None = None
    concurrency: int = Field(default=1, ge=1, le=16)
    # Its runs' trace and video modes (workflows/tracing.py); None: the settings' (trace on-failure, video off).
    trace: TraceMode | None = None
    video: TraceMode | None = None
    timing: Timing
    missed: MissedPolicy = "run"
    grace_minutes: int = Field(default=DEFAULT_GRACE_MINUTES, ge=0, le=7 * 24 * 60)
    enabled: bool = True
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)
    handled_until: datetime = Field(default_factory=now)
    anchor: datetime = Field(default_factory=now)  # what an `every` timing counts from (set with the timing)
    next_run_at: datetime | None = None
    last: ScheduleResult | None = None
    history: list[ScheduleResult] = Field(default_factory=list)

    @property
    def grace(self) -> timedelta:
        return timedelta(minutes=self.grace_minutes)

    def view(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def next_fire(self, after: datetime) -> datetime | None:
        """The next fire time from `after` on, past what has been handled; None when off or done (a `once`
        that has fired)."""
        if not self.enabled:
            return None
        start = max(after, self.handled_until + timedelta(microseconds=1))
        return self.timing.next_time(self.anchor, start)

    def missed_time(self, until: datetime) -> datetime | None:
        """A fire time in (handledUntil, until]: a time that passed while nothing fired it."""
        return self.timing.due_between(self.anchor, self.handled_until, until) if self.enabled else None

    def catch_up_time(self, until: datetime) -> datetime | None:
        """A missed fire time young enough to run once now (policy `run`, within the grace period)."""
        if self.missed != "run" or not self.enabled:
            return None
        start = max(self.handled_until, until - self.grace)
        return self.timing.due_between(self.anchor, start, until)


class SchedulesDocument(_Camel):
    schema_version: int = Field(default=1, alias="schema_version")
    schedules: list[Schedule] = Field(default_factory=list)


Listener = Callable[[ScheduleChange, str], None]
EDITABLE = frozenset({"name", "workflow_id", "workflow_name", "env", "inputs", "rows_file", "broker", "concurrency",
                      "timing", "missed", "grace_minutes", "enabled", "trace", "video"})


def clean_name(name: str) -> str:
    cleaned = " ".join((name or "").split())
    if not cleaned:
        raise ScheduleError("the schedule's name is empty")
    if len(cleaned) > MAX_NAME:
        raise ScheduleError(f"the schedule's name is {len(cleaned)} characters long; at most {MAX_NAME} are allowed")
    return cleaned


class ScheduleStore:
    """`schedules.json` of a data folder (see the module docstring)."""

    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()
        self._file = JsonStore(data.root / "schedules.json", SchedulesDocument, SchedulesDocument)
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self._doc = loaded.document
        # A firing still "running" in the file was cut short (the app stopped): say so, keep the run id.
        for schedule in self._doc.schedules:
            if schedule.last is not None and schedule.last.status == "running":
                stopped = schedule.last.model_copy(update={"status": "failed", "ended_at": schedule.last.at,
                                                           "reason": "the app stopped while this run was going"})
                schedule.last = stopped
                schedule.history = [stopped, *schedule.history[1:]] if schedule.history else [stopped]

    @property
    def path(self) -> Any:
        return self._file.path

    # -- listeners -------------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Hear `listener(kind, schedule_id)` for every change of a schedule (from the change feed)."""

        def hear(change: StoreChange) -> None:
            listener(change.kind, change.key or "")  # type: ignore[arg-type]

        return self.changes.subscribe(hear, ("schedules",))

    def _emit(self, kind: ScheduleChange, schedule_id: str) -> None:
        self.changes.publish("schedules", kind, schedule_id)

    # -- reading ---------------------------------------------------------------------------------------
    def list(self) -> list[Schedule]:
        return [s.model_copy(deep=True) for s in self._doc.schedules]

    def get(self, schedule_id: str) -> Schedule:
        """By id, or by name (exact, then ignoring case); LookupError otherwise."""
        for schedule in self._doc.schedules:
            if schedule.id == schedule_id:
                return schedule.model_copy(deep=True)
        matches = [s for s in self._doc.schedules if s.name == schedule_id] or \
                  [s for s in self._doc.schedules if s.name.casefold() == schedule_id.casefold()]
        if len(matches) == 1:
            return matches[0].model_copy(deep=True)
        if matches:
            raise LookupError(f"{len(matches)} schedules are named {schedule_id!r}; give the id "
                              f"({', '.join(s.id for s in matches)})")
        raise LookupError(f"there is no schedule {schedule_id!r}; schedule_list shows them")

    def exists(self, schedule_id: str) -> bool:
        return any(s.id == schedule_id for s in self._doc.schedules)

    # -- changing --------------------------------------------------------------------------------------
    def create(self, *, name: str, workflow_id: str, timing: Timing, **fields: Any) -> Schedule:
        unknown = set(fields) - EDITABLE
        if unknown:
            raise ScheduleError(f"unknown schedule fields: {', '.join(sorted(unknown))}")
        schedule_id = f"sch-{secrets.token_hex(4)}"
        while self.exists(schedule_id):
            schedule_id = f"sch-{secrets.token_hex(4)}"
        created = now()
        schedule = Schedule(id=schedule_id, name=clean_name(name), workflow_id=workflow_id, timing=timing,
                            created_at=created, updated_at=created, handled_until=created, anchor=created, **fields)
        self._commit([*self._doc.schedules, schedule])
        log.info("created schedule %s (%s)", schedule_id, schedule.name)
        self._emit("created", schedule_id)
        return schedule.model_copy(deep=True)

    def update(self, schedule_id: str, **changes: Any) -> Schedule:
        """Change what is given. A timing change, or switching a schedule on, starts counting missed times
        from now (times before it belonged to another timing, or to a schedule that was off)."""
        unknown = set(changes) - EDITABLE
        if unknown:
            raise ScheduleError(f"unknown schedule fields: {', '.join(sorted(unknown))}")
        current = self._find(schedule_id)
        if "name" in changes:
            changes["name"] = clean_name(changes["name"])
        stamp = now()
        restart = ("timing" in changes and changes["timing"] != current.timing) or \
                  (changes.get("enabled") is True and not current.enabled)
        extra: dict[str, Any] = {"updated_at": stamp}
        if restart:
            extra["handled_until"] = stamp
        if "timing" in changes and changes["timing"] != current.timing:
            extra["anchor"] = stamp
        if changes.get("enabled") is False or "timing" in changes:
            extra["next_run_at"] = None  # the scheduler says again
        updated = Schedule.model_validate({**current.model_dump(), **changes, **extra})
        self._replace(updated)
        self._emit("updated", schedule_id)
        return updated.model_copy(deep=True)

    def delete(self, schedule_id: str) -> Schedule:
        target = self._find(schedule_id)
        self._commit([s for s in self._doc.schedules if s.id != target.id])
        log.info("deleted schedule %s (%s)", target.id, target.name)
        self._emit("deleted", target.id)
        return target.model_copy(deep=True)

    def record(self, schedule_id: str, result: ScheduleResult, *, handled_until: datetime | None = None) -> Schedule | None:
        """Add a firing's outcome (or replace the newest one when it is the same firing, ended), and move
        `handledUntil` forward. None when the schedule was deleted meanwhile."""
        if not self.exists(schedule_id):
            return None
        current = self._find(schedule_id)
        history = list(current.history)
        same = history and history[0].at == result.at and history[0].status == "running"
        history = [result, *(history[1:] if same else history)][:HISTORY]
        changes: dict[str, Any] = {"last": result, "history": history}
        if handled_until is not None and handled_until > current.handled_until:
            changes["handled_until"] = handled_until
        updated = current.model_copy(update=changes)
        self._replace(updated)
        self._emit("recorded", schedule_id)
        return updated.model_copy(deep=True)

    def set_next(self, schedule_id: str, when: datetime | None) -> None:
        """Remember the next fire time the scheduler computed (written only when it changed)."""
        if not self.exists(schedule_id):
            return
        current = self._find(schedule_id)
        if current.next_run_at == when:
            return
        self._replace(current.model_copy(update={"next_run_at": when}))
        self._emit("recorded", schedule_id)

    def _find(self, schedule_id: str) -> Schedule:
        for schedule in self._doc.schedules:
            if schedule.id == schedule_id:
                return schedule
        return self._find_by_name(schedule_id)

    def _find_by_name(self, name: str) -> Schedule:
        found = self.get(name)  # raises LookupError with the reason
        return next(s for s in self._doc.schedules if s.id == found.id)

    def _replace(self, updated: Schedule) -> None:
        self._commit([updated if s.id == updated.id else s for s in self._doc.schedules])

    def _commit(self, schedules: list[Schedule]) -> None:
        """Hand the new document to the saver (a snapshot: records are replaced, never changed in place),
        then make it current."""
        candidate = self._doc.model_copy(update={"schedules": schedules})
        dump = self._file.dump
        self._saver.save(self._file.path, lambda: encode_json(dump(candidate)))
        self._doc = candidate
