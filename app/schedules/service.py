"""The scheduler: fires schedules (workflows/schedules.py) at their times, on the app's asyncio loop.

Built on APScheduler 3 (`AsyncIOScheduler` on the qasync loop, the memory job store, one job per enabled
schedule with the schedule's cron / interval / date trigger). `schedules.json` is the truth; the jobs are made
from it at start and remade whenever the store changes (the panel, the CLI through the app, MCP).

- **On time.** APScheduler sleeps until the next fire time (one timer on the loop, no polling), in two hops
  (`PunctualScheduler`): the loop's long timers are coarse (qasync's are Qt's default timers, and Qt fires one
  of 20 s or more on a whole second of its own clock: up to a second late), so it wakes `FINAL_HOP` seconds
  early and waits the rest with a short timer, which Qt keeps within 5 %. The job starts
  the workflow through the operations registry (`workflow_start` + `run_wait`, `workflow_batch`, or
  `workflow_distribute` when the schedule names a broker) with a context whose runs carry
  `trigger: {schedule: ID}` (`OpContext.with_trigger`).
- **Missed while the app was closed.** The memory job store forgets; each schedule's `handledUntil` says up to
  when its times were dealt with. At start, a time in (handledUntil, now] is a missed one: policy `run` runs
  it once now if it is at most `graceMinutes` old (several missed times count once), otherwise it is recorded
  as `missed` with the reason.
- **Missed while the app ran** (the machine slept, the clock jumped): APScheduler's `misfire_grace_time` is the
  schedule's grace for policy `run` (late within it: runs once, `coalesce=True`) and `SKIP_GRACE` for policy
  `skip`; a job later than that is reported by APScheduler (EVENT_JOB_MISSED) and recorded as `missed`. The
  loop's timers run on the monotonic clock, which stands still while the machine sleeps: a check every minute
  compares it with the wall clock and wakes APScheduler up when they part.
- **Overlap.** A schedule whose previous run (or batch) is still going does not start another: the tick is
  recorded as `skipped` with the run's id. This is decided here, by the schedule's live run, not by
  APScheduler's `max_instances` (kept at 1 anyway): a job here only starts a run and returns, and Run now
  (`run_now`, refused while a run is going) must obey the same rule.
- **Pause all** (the tray, `set_paused`): APScheduler's pause; resuming treats the times passed meanwhile as
  late ones (the grace rules above).

Every outcome is written into the schedule (`last`, `history`, `nextRunAt`) and told to the listeners
(`ScheduleNotice`: the tray and the desktop notifications). No Qt here: asyncio and the registry only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Literal

from apscheduler.events import EVENT_JOB_MISSED, JobExecutionEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from app.ops.context import OpContext
from app.ops.registry import OperationRegistry
from plumbing import loggers
from workflows.schedule_timing import TimingError, local_zone
from workflows.schedules import Schedule, ScheduleChange, ScheduleError, ScheduleResult

log = logging.getLogger(loggers.SCHEDULES)

SKIP_GRACE = 60  # seconds: how late a `skip` schedule's tick may still run (a busy machine, not a missed time)
CLOCK_CHECK = 60.0  # seconds between two comparisons of the wall clock with the loop's monotonic clock
CLOCK_DRIFT = 2.0  # seconds of difference that count as a sleep or a clock change
RUN_WAIT_MS = 3_600_000  # one run_wait call; asked again while the run goes on
NoticeKind = Literal["run_failed", "batch_finished", "skipped", "missed"]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class ScheduleNotice:
    """Something about a schedule a person may want to hear of (tray menu, desktop notification)."""

    kind: NoticeKind
    schedule_id: str
    schedule_name: str
    workflow_name: str
    env: str
    text: str  # one line: the error, the counts, why it was skipped
    run_id: str | None = None
    batch_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


NoticeListener = Callable[[ScheduleNotice], None]


FINAL_HOP = 1.0
"""Seconds before a fire time at which the scheduler wakes, to wait the rest with a short, precise timer."""


class PunctualScheduler(AsyncIOScheduler):  # type: ignore[misc]
    """APScheduler's asyncio scheduler, waking `FINAL_HOP` seconds before a fire time, then once more."""

    def _start_timer(self, wait_seconds: float | None) -> None:
        if wait_seconds is not None and wait_seconds > 2 * FINAL_HOP:
            wait_seconds -= FINAL_HOP  # woken early, APScheduler finds nothing due and waits the rest
        super()._start_timer(wait_seconds)


class Scheduler:
    """Fires the schedules of `ctx.schedules` (see the module docstring)."""

    def __init__(self, registry: OperationRegistry, ctx: OpContext, *, paused: bool = False) -> None:
        self.registry = registry
        self.ctx = ctx
        self._paused = paused
        self._live: dict[str, asyncio.Task[dict[str, Any]]] = {}
        self._listeners: list[NoticeListener] = []
        self._scheduler: AsyncIOScheduler | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._clock: asyncio.TimerHandle | None = None
        self._clock_mark = (time.time(), time.monotonic())
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- life ----------------------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._scheduler is not None

    @property
    def paused(self) -> bool:
        return self._paused

    def start(self) -> None:
        """Make the jobs, run or record what was missed while the app was closed, and start firing."""
        if self._scheduler is not None:
            return
        loop = asyncio.get_event_loop()
        scheduler = PunctualScheduler(event_loop=loop, timezone=local_zone(),
                                     job_defaults={"coalesce": True, "max_instances": 1})
        scheduler.add_listener(self._on_missed, EVENT_JOB_MISSED)
        self._scheduler = scheduler
        self._catch_up()
        for schedule in self.ctx.schedules.list():
            self._sync(schedule.id)
        scheduler.start(paused=self._paused)
        self._unsubscribe = self.ctx.schedules.subscribe(self._on_store)
        self._clock_mark = (time.time(), time.monotonic())
        self._clock = loop.call_later(CLOCK_CHECK, self._check_clock)
        log.info("scheduler started: %d schedule(s)%s", len(scheduler.get_jobs()), ", paused" if self._paused else "")

    def stop(self) -> None:
        """Stop firing (runs going on are the run manager's; the app's shutdown ends them)."""
        scheduler, self._scheduler = self._scheduler, None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        if scheduler is not None:
            scheduler.remove_all_jobs()
            scheduler.pause()  # anything still queued on the loop finds nothing to do
            scheduler.shutdown(wait=False)

    def subscribe(self, listener: NoticeListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def set_paused(self, paused: bool) -> None:
        """Pause or resume every schedule (the tray's Pause all schedules)."""
        self._paused = paused
        if self._scheduler is None:
            return
        if paused:
            self._scheduler.pause()
        else:
            self._scheduler.resume()
        log.info("schedules %s", "paused" if paused else "resumed")

    def live_runs(self) -> dict[str, str]:
        """Schedule id -> what it started and is still going (for the tray)."""
        return {schedule_id: task.get_name() for schedule_id, task in self._live.items()}

    # -- jobs ----------------------------------------------------------------------------------------------
    def _sync(self, schedule_id: str) -> None:
        """Make the schedule's job anew from the store (or remove it)."""
        scheduler = self._scheduler
        if scheduler is None:
            return
        if scheduler.get_job(schedule_id) is not None:
            scheduler.remove_job(schedule_id)
        if not self.ctx.schedules.exists(schedule_id):
            return
        schedule = self.ctx.schedules.get(schedule_id)
        upcoming: datetime | None = None
        try:
            upcoming = schedule.next_fire(utc_now())
            if upcoming is not None:
                grace = schedule.grace_minutes * 60 if schedule.missed == "run" else SKIP_GRACE
                scheduler.add_job(self._job, schedule.timing.trigger(schedule.anchor), args=[schedule_id],
                                  id=schedule_id, name=schedule.name, next_run_time=upcoming,
                                  misfire_grace_time=max(grace, 1), coalesce=True, max_instances=1)
        except TimingError as exc:  # a file edited by hand: keep the others going
            log.error("schedule %s cannot be scheduled: %s", schedule_id, exc)
            upcoming = None
        self.ctx.schedules.set_next(schedule_id, upcoming)

    def _on_store(self, kind: ScheduleChange, schedule_id: str) -> None:
        if kind != "recorded":
            self._sync(schedule_id)

    def _refresh_next(self, schedule_id: str) -> None:
        job = self._scheduler.get_job(schedule_id) if self._scheduler is not None else None
        self.ctx.schedules.set_next(schedule_id, job.next_run_time if job is not None else None)

    async def _job(self, schedule_id: str) -> None:
        """APScheduler's job: the schedule's time has come."""
        self._refresh_next(schedule_id)
        try:
            self._fire(schedule_id, manual=False)
        except LookupError:
            log.info("schedule %s is gone; its tick is dropped", schedule_id)

    def _on_missed(self, event: JobExecutionEvent) -> None:
        """APScheduler found a tick later than its grace (the machine slept through it)."""
        if not self.ctx.schedules.exists(event.job_id):
            return
        schedule = self.ctx.schedules.get(event.job_id)
        when = event.scheduled_run_time.astimezone(local_zone()).strftime("%Y-%m-%d %H:%M")
        reason = (f"the time {when} passed while the machine was asleep or busy; "
                  + ("this schedule skips missed times" if schedule.missed == "skip"
                     else f"it was more than {schedule.grace_minutes} min late"))
        self._record_missed(schedule, reason)
        self._refresh_next(schedule.id)

    # -- missed while closed -------------------------------------------------------------------------------
    def _catch_up(self) -> None:
        moment = utc_now()
        for schedule in self.ctx.schedules.list():
            try:
                missed = schedule.missed_time(moment)
                young = schedule.catch_up_time(moment)
            except TimingError as exc:
                log.error("schedule %s cannot be scheduled: %s", schedule.id, exc)
                continue
            if missed is None:
                continue
            when = missed.astimezone(local_zone()).strftime("%Y-%m-%d %H:%M")
            if young is not None:
                log.info("schedule %s missed %s while the app was closed: running it now", schedule.id, when)
                self._fire(schedule.id, manual=False)
                continue
            reason = (f"the app was not running at {when}; "
                      + ("this schedule skips missed times" if schedule.missed == "skip"
                         else f"that is more than the {schedule.grace_minutes} min grace period ago"))
            self._record_missed(schedule, reason)

    def _record_missed(self, schedule: Schedule, reason: str) -> None:
        log.info("schedule %s: %s", schedule.id, reason)
        self.ctx.schedules.record(schedule.id, ScheduleResult(status="missed", reason=reason),
                                  handled_until=utc_now())
        self._tell(ScheduleNotice("missed", schedule.id, schedule.name, schedule.workflow_name, schedule.env, reason))

    # -- firing --------------------------------------------------------------------------------------------
    async def run_now(self, schedule_id: str, wait: bool) -> dict[str, Any]:
        """Run now (Run now, `schedule run`): refused while the previous run goes on. With `wait`, the
        result when it has ended; otherwise what was started."""
        if schedule_id in self._live:
            raise ScheduleError(f"the schedule's previous run ({self._live[schedule_id].get_name()}) is still going")
        task = self._fire(schedule_id, manual=True)
        assert task is not None
        if wait:
            return await asyncio.shield(task)
        await asyncio.sleep(0)  # let it start, so the caller sees its run id in the schedule
        return {"started": True}

    def _fire(self, schedule_id: str, *, manual: bool) -> asyncio.Task[dict[str, Any]] | None:
        """Start the schedule's workflow, or record a skip when its previous run is still going."""
        schedule = self.ctx.schedules.get(schedule_id)
        moment = utc_now()
        handled = None if manual else moment
        running = self._live.get(schedule_id)
        if running is not None:
            reason = f"the previous run ({running.get_name()}) was still going"
            log.info("schedule %s skipped: %s", schedule_id, reason)
            self.ctx.schedules.record(schedule_id, ScheduleResult(at=moment, status="skipped", reason=reason),
                                      handled_until=handled)
            self._tell(ScheduleNotice("skipped", schedule.id, schedule.name, schedule.workflow_name, schedule.env,
                                      reason))
            return None
        first = ScheduleResult(at=moment, status="running", manual=manual)
        self.ctx.schedules.record(schedule_id, first, handled_until=handled)
        task = asyncio.ensure_future(self._run(schedule, first))
        task.set_name("starting")
        self._live[schedule_id] = task
        task.add_done_callback(lambda _done: self._live.pop(schedule_id, None))
        return task

    async def _run(self, schedule: Schedule, first: ScheduleResult) -> dict[str, Any]:
        ctx = self.ctx.with_trigger({"schedule": schedule.id})
        try:
            if schedule.rows_file:
                result, envelope = await self._batch(ctx, schedule, first)
            else:
                result, envelope = await self._single(ctx, schedule, first)
        except asyncio.CancelledError:
            result, envelope = first.model_copy(update={"status": "cancelled", "ended_at": utc_now()}), {}
            self.ctx.schedules.record(schedule.id, result)
            raise
        except Exception as exc:  # a defect must still end the firing in the record
            log.exception("schedule %s: the run could not be carried out", schedule.id)
            result, envelope = first.model_copy(update={"status": "failed", "reason": str(exc),
                                                        "ended_at": utc_now()}), {"ok": False, "error": str(exc)}
        self.ctx.schedules.record(schedule.id, result)
        log.info("schedule %s ended %s (%s)", schedule.id, result.status, result.run_id or result.batch_id or "-")
        if schedule.rows_file and result.counts is not None:
            self._tell(ScheduleNotice("batch_finished", schedule.id, schedule.name, schedule.workflow_name,
                                      schedule.env, result.reason or "", batch_id=result.batch_id,
                                      counts=result.counts))
        elif result.status in ("failed", "taken_over") or (schedule.rows_file and result.status != "ok"):
            self._tell(ScheduleNotice("run_failed", schedule.id, schedule.name, schedule.workflow_name, schedule.env,
                                      result.reason or result.status, run_id=result.run_id,
                                      batch_id=result.batch_id))
        return {"result": result.model_dump(mode="json", by_alias=True), **envelope}

    async def _single(self, ctx: OpContext, schedule: Schedule,
                      first: ScheduleResult) -> tuple[ScheduleResult, dict[str, Any]]:
        started = await self.registry.call(ctx, "workflow_start", {"name": schedule.workflow_id,
                                                                   "inputs": schedule.inputs, "env": schedule.env,
                                                                   **_tracing(schedule)})
        if not started.get("ok"):
            return first.model_copy(update={"status": "failed", "reason": started.get("error"),
                                            "ended_at": utc_now()}), started
        run_id = str(started["runId"])
        task = self._live.get(schedule.id)
        if task is not None:
            task.set_name(run_id)
        self.ctx.schedules.record(schedule.id, first.model_copy(update={"run_id": run_id}))
        while True:
            waited = await self.registry.call(ctx, "run_wait", {"runId": run_id, "timeoutMs": RUN_WAIT_MS})
            if waited.get("ok") or not waited.get("running"):
                break
        run = waited.get("run") or {}
        status = run.get("status") or ("ok" if waited.get("ok") else "failed")
        return first.model_copy(update={"status": status, "run_id": run_id, "ended_at": utc_now(),
                                        "reason": None if status == "ok" else (run.get("error") or waited.get("error"))}), \
            waited

    async def _batch(self, ctx: OpContext, schedule: Schedule,
                     first: ScheduleResult) -> tuple[ScheduleResult, dict[str, Any]]:
        params: dict[str, Any] = {"name": schedule.workflow_id, "rowsFile": schedule.rows_file,
                                  "inputs": schedule.inputs, "env": schedule.env}
        if schedule.broker:
            name = "workflow_distribute"
            params["broker"] = schedule.broker
        else:
            name = "workflow_batch"
            params["concurrency"] = schedule.concurrency
            params.update(_tracing(schedule))
        task = self._live.get(schedule.id)
        if task is not None:
            task.set_name("batch")
        done = await self.registry.call(ctx, name, params)
        if not done.get("ok"):
            return first.model_copy(update={"status": "failed", "reason": done.get("error"),
                                            "ended_at": utc_now()}), done
        counts = {"total": int(done["total"]), "succeeded": int(done["succeeded"]), "failed": int(done["failed"])}
        text = f"{counts['succeeded']} ok, {counts['failed']} failed of {counts['total']}"
        return first.model_copy(update={"status": "ok" if counts["failed"] == 0 else "failed", "counts": counts,
                                        "batch_id": done.get("batchId"), "reason": text,
                                        "ended_at": utc_now()}), done

    # -- listeners and the clock ---------------------------------------------------------------------------
    def _tell(self, notice: ScheduleNotice) -> None:
        for listener in list(self._listeners):
            try:
                listener(notice)
            except Exception:  # a broken listener must not stop the scheduler
                log.exception("a schedule listener failed on %s", notice.kind)

    def _check_clock(self) -> None:
        """Wake APScheduler up when the wall clock moved unlike the monotonic one (a sleep, a clock change):
        its timer runs on the monotonic clock and would fire late."""
        if self._scheduler is None:
            return
        wall, mono = time.time(), time.monotonic()
        drift = (wall - self._clock_mark[0]) - (mono - self._clock_mark[1])
        self._clock_mark = (wall, mono)
        if abs(drift) > CLOCK_DRIFT:
            log.info("the wall clock moved %.0f s against the monotonic one (a sleep?): looking at the schedules", drift)
            self._scheduler.wakeup()
        self._clock = asyncio.get_event_loop().call_later(CLOCK_CHECK, self._check_clock)


def _tracing(schedule: Schedule) -> dict[str, str]:
    """The trace and video modes a schedule gives its runs (none: the settings')."""
    return {key: value for key, value in (("trace", schedule.trace), ("video", schedule.video)) if value}
