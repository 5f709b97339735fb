"""When a schedule fires: the timing forms, their APScheduler triggers, and the same timing said in words.

A timing is one of

- `cron`: a five-field crontab expression (minute hour day-of-month month day-of-week), as `crontab(5)` reads
  it: day-of-week 0 and 7 are Sunday. (APScheduler 3's `CronTrigger.from_crontab` counts day-of-week from
  *Monday* = 0, so `1-5` would mean Tuesday to Saturday; the day-of-week field is translated to day names
  here before APScheduler sees it.)
- `every`: every N seconds (the forms `15m`, `2h`, `30s`, `1d`; a bare number is minutes), counted from the
  schedule's anchor (when it was made), so a restart keeps the same phase;
- `daily` / `weekdays`: every day, or Monday to Friday, at HH:MM;
- `once`: at a local date and time (ISO 8601 without zone: `2026-12-03T09:00`, seconds allowed).

Every time is in the machine's local time zone (`local_zone()`, tzlocal). The triggers are APScheduler 3's
(cron, interval, date): the scheduler (app/schedules) runs them; this module only builds them and asks them
for fire times, so a bad expression is refused with the reason wherever it is typed (dialog, CLI, MCP).
Words: `describe` and `describe_next` fill templates (`Words`); the English ones are the defaults, the GUI
passes translated ones. Pure Python, no Qt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import Callable, Literal

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

TimingKind = Literal["cron", "every", "daily", "weekdays", "once"]
DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")  # crontab's numbering: 0 (and 7) is Sunday
MAX_EVERY_SECONDS = 366 * 24 * 3600
_EVERY = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$", re.IGNORECASE)
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 60}


class TimingError(ValueError):
    """A timing that cannot be scheduled; the message says why, for a person."""


def local_zone() -> tzinfo:
    """The machine's local time zone (what a person means by "09:00")."""
    from tzlocal import get_localzone

    return get_localzone()


def parse_every(text: str) -> int:
    """`15m`, `2h`, `30s`, `1d` or a bare number of minutes -> seconds."""
    match = _EVERY.match(text or "")
    if not match:
        raise TimingError(f"{text!r} is not an interval: write a number with s, m, h or d (15m, 2h, 30s)")
    seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
    if not 1 <= seconds <= MAX_EVERY_SECONDS:
        raise TimingError(f"{text!r}: the interval must be between 1 second and 366 days")
    return seconds


def parse_clock(text: str) -> str:
    """`9:00` / `09:00` -> `09:00`."""
    match = _CLOCK.match((text or "").strip())
    if not match:
        raise TimingError(f"{text!r} is not a time of day: write HH:MM, 00:00 to 23:59")
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def parse_local_datetime(text: str) -> datetime:
    """ISO 8601 local date and time without a zone (`2026-12-03T09:00`, seconds allowed)."""
    try:
        value = datetime.fromisoformat((text or "").strip())
    except ValueError:
        raise TimingError(f"{text!r} is not a date and time: write 2026-12-03T09:00 (local time)") from None
    if value.tzinfo is not None:
        raise TimingError(f"{text!r}: give the local time without a zone (2026-12-03T09:00)")
    return value


def _expand_days(field_text: str) -> list[int]:
    """A crontab day-of-week field -> the days it names (0 = Sunday)."""
    days: set[int] = set()

    def number(token: str) -> int:
        token = token.strip().lower()
        if token[:3] in DAY_NAMES and not token.isdigit():
            return DAY_NAMES.index(token[:3])
        if not token.isdigit() or int(token) > 7:
            raise TimingError(f"day of week {token!r}: use 0-7 (0 and 7 are Sunday) or sun..sat")
        return int(token) % 7 if int(token) != 7 else 7

    for item in field_text.split(","):
        body, _, step_text = item.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise TimingError(f"day of week {item!r}: the step must be a positive number")
            step = int(step_text)
        if body == "*":
            low, high = 0, 6
        elif "-" in body:
            first, last = body.split("-", 1)
            low, high = number(first), number(last)
            if low == 7:
                low = 0
            if low > high:
                raise TimingError(f"day of week {item!r}: the range runs backwards")
        else:
            low = high = number(body)
            if step_text:
                high = 6
        days.update(day % 7 for day in range(low, high + 1, step))
    return sorted(days)


def crontab_trigger(expression: str, zone: tzinfo) -> CronTrigger:
    """APScheduler's cron trigger for a crontab expression with crontab's day-of-week numbering."""
    fields = (expression or "").split()
    if len(fields) != 5:
        raise TimingError(f"{expression!r}: a cron expression has 5 fields (minute hour day month weekday), "
                          f"not {len(fields)}")
    minute, hour, day, month, weekday = fields
    day_of_week = weekday if weekday == "*" else ",".join(DAY_NAMES[d] for d in _expand_days(weekday))
    try:
        return CronTrigger(minute=minute, hour=hour, day=day, month=month, day_of_week=day_of_week, timezone=zone)
    except ValueError as exc:
        raise TimingError(f"{expression!r}: {exc}") from None


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Timing(_Model):
    """When a schedule fires (see the module docstring for the forms)."""

    kind: TimingKind
    cron: str | None = None
    every_seconds: int | None = Field(default=None, ge=1, le=MAX_EVERY_SECONDS)
    time: str | None = None  # HH:MM for daily / weekdays
    at: str | None = None    # local ISO date-time for once

    @model_validator(mode="after")
    def _complete(self) -> "Timing":
        needed = {"cron": "cron", "every": "every_seconds", "daily": "time", "weekdays": "time", "once": "at"}[self.kind]
        if getattr(self, needed) in (None, ""):
            raise ValueError(f"a {self.kind} timing needs {to_camel(needed)}")
        if self.time is not None:
            self.time = parse_clock(self.time)
        if self.at is not None:
            self.at = parse_local_datetime(self.at).isoformat(timespec="seconds")
        return self

    def trigger(self, anchor: datetime, zone: tzinfo | None = None) -> BaseTrigger:
        """The APScheduler trigger (TimingError when it cannot be scheduled). `anchor`: when an `every`
        timing counts from (the schedule's creation), an aware datetime."""
        zone = zone or local_zone()
        if self.kind == "cron":
            return crontab_trigger(self.cron or "", zone)
        if self.kind == "every":
            seconds = self.every_seconds or 60
            start = anchor.astimezone(zone)
            if seconds % 60 == 0:  # whole minutes: on the minute (made at 07:15:24, every 15 min: 07:30:00)
                start = start.replace(second=0, microsecond=0)
            return IntervalTrigger(seconds=seconds, start_date=start, timezone=zone)
        if self.kind in ("daily", "weekdays"):
            hour, minute = (int(part) for part in (self.time or "00:00").split(":"))
            return CronTrigger(hour=hour, minute=minute, day_of_week="mon-fri" if self.kind == "weekdays" else None,
                               timezone=zone)
        return DateTrigger(run_date=parse_local_datetime(self.at or "").replace(tzinfo=zone), timezone=zone)

    def next_time(self, anchor: datetime, after: datetime, zone: tzinfo | None = None) -> datetime | None:
        """The first fire time at or after `after` (None: a `once` timing whose time has passed)."""
        fire = self.trigger(anchor, zone).get_next_fire_time(None, after)
        return fire if fire is not None and fire >= after else None

    def due_between(self, anchor: datetime, start: datetime, end: datetime,
                    zone: tzinfo | None = None) -> datetime | None:
        """A fire time in (`start`, `end`], the first one; None when there is none."""
        fire = self.trigger(anchor, zone).get_next_fire_time(None, start + timedelta(microseconds=1))
        return fire if fire is not None and start < fire <= end else None


def timing_from_options(*, cron: str | None = None, every: str | None = None, daily: str | None = None,
                        weekdays: bool = False, at: str | None = None) -> Timing:
    """The timing of the command line's options (`--cron`, `--every`, `--daily [--weekdays]`, `--at`)."""
    given = [name for name, value in (("--cron", cron), ("--every", every), ("--daily", daily), ("--at", at))
             if value]
    if len(given) != 1:
        raise TimingError("give exactly one of --cron EXPR, --every 15m, --daily HH:MM [--weekdays], "
                          "--at DATETIME" + (f" (got {', '.join(given)})" if given else ""))
    if weekdays and not daily:
        raise TimingError("--weekdays goes with --daily HH:MM")
    if cron:
        crontab_trigger(cron, local_zone())
        return Timing(kind="cron", cron=" ".join(cron.split()))
    if every:
        return Timing(kind="every", every_seconds=parse_every(every))
    if daily:
        return Timing(kind="weekdays" if weekdays else "daily", time=parse_clock(daily))
    return Timing(kind="once", at=parse_local_datetime(at or "").isoformat(timespec="seconds"))


# -- words --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Words:
    """The templates `describe` and `describe_next` fill; English by default (the GUI passes translations)."""

    every_second: str = "every second"
    every_seconds: str = "every {n} seconds"
    every_minute: str = "every minute"
    every_minutes: str = "every {n} minutes"
    every_hour: str = "every hour"
    every_hours: str = "every {n} hours"
    every_day: str = "every day"
    every_days: str = "every {n} days"
    daily: str = "every day at {time}"
    weekdays: str = "every weekday at {time}"
    once: str = "once, {when}"
    cron: str = "cron {expr}"
    today: str = "today {time}"
    tomorrow: str = "tomorrow {time}"
    this_week: str = "{day} {time}"
    later: str = "{date} {time}"
    day_names: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    date_format: Callable[[date], str] = field(default=lambda day: day.isoformat())


ENGLISH = Words()


def _every_words(seconds: int, words: Words) -> str:
    for unit, one, many in ((86400, words.every_day, words.every_days), (3600, words.every_hour, words.every_hours),
                            (60, words.every_minute, words.every_minutes), (1, words.every_second, words.every_seconds)):
        if seconds % unit == 0:
            count = seconds // unit
            return one if count == 1 else many.format(n=count)
    return words.every_seconds.format(n=seconds)


def describe(timing: Timing, words: Words = ENGLISH, now: datetime | None = None) -> str:
    """The timing in words: "every weekday at 09:00", "every 15 minutes", "cron 0 9 * * 1-5"."""
    if timing.kind == "every":
        return _every_words(timing.every_seconds or 60, words)
    if timing.kind == "daily":
        return words.daily.format(time=timing.time)
    if timing.kind == "weekdays":
        return words.weekdays.format(time=timing.time)
    if timing.kind == "once":
        at = parse_local_datetime(timing.at or "")
        zone = local_zone()
        return words.once.format(when=describe_next(at.replace(tzinfo=zone), words, now or datetime.now(zone)))
    return words.cron.format(expr=timing.cron)


def describe_next(when: datetime, words: Words = ENGLISH, now: datetime | None = None) -> str:
    """A coming time in words, in local time: "today 09:00", "tomorrow 09:00", "Thursday 09:00", or the date."""
    zone = local_zone()
    local = when.astimezone(zone)
    today = (now or datetime.now(zone)).astimezone(zone).date()
    clock = local.strftime("%H:%M:%S" if local.second else "%H:%M")
    days = (local.date() - today).days
    if days == 0:
        return words.today.format(time=clock)
    if days == 1:
        return words.tomorrow.format(time=clock)
    if 1 < days < 7:
        return words.this_week.format(day=words.day_names[local.weekday()], time=clock)
    return words.later.format(date=words.date_format(local.date()), time=clock)
