"""Schedule operations: `schedule_list`, `schedule_create`, `schedule_update`, `schedule_delete` (MCP tools, the
CLI's `schedule` verbs, the Schedules panel) and `schedule_run` (Run now, `schedule run ID`).

They change `schedules.json` (workflows/schedules.py); a running app's scheduler (app/schedules/service.py)
follows the store's changes. A timing is given as the command line gives it: exactly one of `cron`, `every`
(`15m`), `daily` (`09:00`, with `weekdays`) or `at` (local ISO date-time); a bad one is refused with the reason.
The workflow, the environment and the rows file must exist when the schedule is made or changed; the rows file
is read again at every firing (a file that a job rewrites each day is the point).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import ScheduleDeleteResult, ScheduleListResult, ScheduleRunResult, ScheduleSaveResult, ScheduleView
from envs.model import DEFAULT_ENV_ID
from workflows.schedule_timing import Timing, describe, describe_next, timing_from_options
from workflows.schedules import DEFAULT_GRACE_MINUTES, Schedule
from workflows.tracing import TraceMode

BROKER_SCHEMES = ("redis://", "rediss://", "redis+socket://")


class TimingParams(Params):
    cron: str | None = Field(default=None, description="A crontab expression: minute hour day month weekday "
                                                       "(weekday 0 and 7 are Sunday), local time.")
    every: str | None = Field(default=None, description="An interval: 15m, 2h, 30s, 1d (a bare number is minutes).")
    daily: str | None = Field(default=None, description="Every day at HH:MM, local time.")
    weekdays: bool = Field(default=False, description="With daily: Monday to Friday only.")
    at: str | None = Field(default=None, description="Once, at a local date and time: 2026-12-03T09:00.")

    def timing(self) -> Timing | None:
        """The timing these fields give, None when none is given (TimingError when it is wrong)."""
        if not any((self.cron, self.every, self.daily, self.at)) and not self.weekdays:
            return None
        return timing_from_options(cron=self.cron, every=self.every, daily=self.daily, weekdays=self.weekdays,
                                   at=self.at)


class ScheduleFields(TimingParams):
    name: str | None = Field(default=None, description="The schedule's name (default: the workflow's).")
    env: str | None = Field(default=None, description="Environment id (default env-default).")
    inputs: dict[str, Any] | None = Field(default=None, description="Values for the start variables.")
    rows_file: str | None = Field(default=None, description="A CSV or JSON rows file: one run per row (a batch), "
                                                            "read at each firing.")
    broker: str | None = Field(default=None, description="With rowsFile: run the rows on workers through this "
                                                         "Redis broker.")
    concurrency: int | None = Field(default=None, ge=1, le=16, description="With rowsFile: tabs at once.")
    missed: Literal["run", "skip"] | None = Field(default=None, description="A time missed while the app was "
                                                  "closed or the machine slept: run once when back (within "
                                                  "graceMinutes), or skip. Default run.")
    grace_minutes: int | None = Field(default=None, ge=0, le=7 * 24 * 60,
                                      description=f"How old a missed time may be and still run (default "
                                                  f"{DEFAULT_GRACE_MINUTES} = 12 h).")
    enabled: bool | None = None
    trace: TraceMode | None = Field(default=None, description="Its runs keep a trace of every node: off, "
                                                              "on-failure or always (default: the setting).")
    video: TraceMode | None = Field(default=None, description="Its runs keep a video: off, on-failure or always "
                                                              "(default: the setting).")


class ScheduleCreateParams(ScheduleFields):
    workflow: str = Field(description="A saved workflow's name or wf- id.")


class ScheduleRef(Params):
    schedule: str = Field(description="A schedule's sch- id (or its name).")


class ScheduleUpdateParams(ScheduleFields):
    schedule: str = Field(description="A schedule's sch- id (or its name).")
    workflow: str | None = Field(default=None, description="Another saved workflow (name or id).")


class ScheduleRunParams(ScheduleRef):
    wait: bool = Field(default=False, description="Return when the run (or batch) has ended, with its result.")


def schedule_view(ctx: OpContext, schedule: Schedule, at: datetime | None = None) -> ScheduleView:
    """A schedule as callers see it: its record, the timing and next time in words, whether all are paused."""
    moment = at or datetime.now(timezone.utc)
    upcoming = schedule.next_fire(moment)
    paused = bool(ctx.scheduler is not None and ctx.scheduler.paused)
    return ScheduleView.model_validate({
        **schedule.view(), "nextRunAt": upcoming.isoformat() if upcoming else None,
        "when": describe(schedule.timing, now=moment),
        "next": describe_next(upcoming, now=moment) if upcoming else None, "paused": paused})


def _check_target(ctx: OpContext, fields: ScheduleFields, changes: dict[str, Any], workflow: str | None) -> None:
    """Resolve and check what the fields name, into `changes` (the store's field names)."""
    if workflow is not None:
        saved = ctx.workflows.find(workflow)
        changes.update(workflow_id=saved.id, workflow_name=saved.name)
    if fields.env is not None:
        changes["env"] = ctx.envs.get(fields.env).id
    if fields.rows_file is not None:
        if fields.rows_file == "":
            changes["rows_file"] = None
        else:
            path = Path(fields.rows_file).expanduser().resolve()
            if not path.is_file():
                raise OpError(f"the rows file {path} does not exist")
            changes["rows_file"] = str(path)
    if fields.broker is not None:
        if fields.broker and not fields.broker.startswith(BROKER_SCHEMES):
            raise OpError(f"the broker must be a redis:// or rediss:// URL, not {fields.broker!r}")
        changes["broker"] = fields.broker or None
    if (fields.trace or fields.video) and changes.get("broker"):
        raise OpError("a batch on workers cannot keep traces or videos yet")
    for key in ("inputs", "concurrency", "missed", "grace_minutes", "enabled", "trace", "video"):
        value = getattr(fields, key)
        if value is not None:
            changes[key] = value
    if fields.name is not None:
        changes["name"] = fields.name


@operation("schedule_list", Params, ScheduleListResult, read_only=True, group="schedules")
async def schedule_list(ctx: OpContext, params: Params) -> ScheduleListResult:
    """The schedules, soonest first: id, name, workflow, environment, inputs or rows file, timing (and `when`
    in words), missed policy and grace, enabled, nextRunAt (and `next` in words), last result and history."""
    moment = datetime.now(timezone.utc)
    views = [schedule_view(ctx, schedule, moment) for schedule in ctx.schedules.list()]
    views.sort(key=lambda view: (view.next_run_at is None, view.next_run_at or "", view.name.casefold()))
    return ScheduleListResult(schedules=views, paused=bool(ctx.scheduler is not None and ctx.scheduler.paused))


@operation("schedule_create", ScheduleCreateParams, ScheduleSaveResult, group="schedules")
async def schedule_create(ctx: OpContext, params: ScheduleCreateParams) -> ScheduleSaveResult:
    """Schedule a saved workflow: in an environment with inputs, or once per row of a rows file (on workers with
    broker), at times given as exactly one of cron, every, daily (+ weekdays) or at; local time. Returns the
    schedule with its next time."""
    timing = params.timing()
    if timing is None:
        raise OpError("schedule_create needs a timing: one of cron, every, daily (with weekdays) or at")
    changes: dict[str, Any] = {}
    _check_target(ctx, params, changes, params.workflow)
    if "env" not in changes:
        changes["env"] = ctx.envs.get(DEFAULT_ENV_ID).id
    if changes.get("broker") and not changes.get("rows_file"):
        raise OpError("broker needs rowsFile: workers run rows")
    name = changes.pop("name", None) or changes["workflow_name"]
    if timing.kind == "once" and timing.next_time(datetime.now(timezone.utc), datetime.now(timezone.utc)) is None:
        raise OpError(f"{timing.at} has passed; a schedule that runs once needs a time to come")
    created = ctx.schedules.create(name=name, timing=timing, **changes)
    return ScheduleSaveResult(schedule=schedule_view(ctx, created))


@operation("schedule_update", ScheduleUpdateParams, ScheduleSaveResult, group="schedules")
async def schedule_update(ctx: OpContext, params: ScheduleUpdateParams) -> ScheduleSaveResult:
    """Change a schedule: any field of schedule_create (a new timing replaces the old one), enabled to switch
    it on or off. Times missed while it was off are not run when it is switched on again."""
    current = ctx.schedules.get(params.schedule)
    changes: dict[str, Any] = {}
    timing = params.timing()
    if timing is not None:
        changes["timing"] = timing
    _check_target(ctx, params, changes, params.workflow)
    if not changes:
        raise OpError("schedule_update was given nothing to change")
    if changes.get("broker", current.broker) and not changes.get("rows_file", current.rows_file):
        raise OpError("broker needs rowsFile: workers run rows")
    updated = ctx.schedules.update(current.id, **changes)
    return ScheduleSaveResult(schedule=schedule_view(ctx, updated))


@operation("schedule_delete", ScheduleRef, ScheduleDeleteResult, destructive=True, group="schedules")
async def schedule_delete(ctx: OpContext, params: ScheduleRef) -> ScheduleDeleteResult:
    """Delete a schedule (its past runs stay in the run list; a run it started goes on)."""
    deleted = ctx.schedules.delete(ctx.schedules.get(params.schedule).id)
    return ScheduleDeleteResult(deleted={"id": deleted.id, "name": deleted.name})


@operation("schedule_run", ScheduleRunParams, ScheduleRunResult, needs_browser=True, group="schedules")
async def schedule_run(ctx: OpContext, params: ScheduleRunParams) -> ScheduleRunResult:
    """Run a schedule now (its timing is left as it is); refused while its previous run is still going. Returns
    the run or batch id at once, or with wait its result; the run's record says the schedule started it."""
    if ctx.scheduler is None:
        raise OpError("schedule_run needs the running app's scheduler")
    schedule = ctx.schedules.get(params.schedule)
    result = await ctx.scheduler.run_now(schedule.id, params.wait)
    # `result`: {started} at once, or with wait the firing and the run's (or batch's) own answer beside it
    return ScheduleRunResult.model_validate({"schedule": schedule_view(ctx, ctx.schedules.get(schedule.id)), **result})


OPERATIONS: tuple[Operation[Any, Any], ...] = (schedule_list, schedule_create, schedule_update, schedule_delete,
                                         schedule_run)
