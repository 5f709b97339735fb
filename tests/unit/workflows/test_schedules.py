"""Schedules without the app: the timing forms and their words, crontab's weekdays, what counts as missed, and
`schedules.json` (survives a restart, a corrupt file moved aside and reported, a SIGKILL mid-write)."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from plumbing.datadir import DataDir
from workflows.schedule_timing import (TimingError, describe, describe_next, local_zone, parse_every,
                                       timing_from_options)
from workflows.schedules import ScheduleResult, ScheduleStore

WEDNESDAY_10 = datetime(2026, 12, 2, 10, 0)


def at_local(value: datetime) -> datetime:
    return value.replace(tzinfo=local_zone())


@pytest.mark.parametrize(("expression", "weekday"), [("0 9 * * 0", "Sunday"), ("0 9 * * 7", "Sunday"),
                                                     ("0 9 * * 1", "Monday"), ("0 9 * * 5", "Friday"),
                                                     ("0 9 * * sat", "Saturday")])
def test_cron_weekdays_count_from_sunday_as_crontab_does(expression: str, weekday: str) -> None:
    timing = timing_from_options(cron=expression)
    fire = timing.next_time(at_local(WEDNESDAY_10), at_local(WEDNESDAY_10))
    assert fire is not None and fire.strftime("%A") == weekday and fire.hour == 9


def test_a_weekday_range_is_monday_to_friday() -> None:
    timing = timing_from_options(cron="30 8 * * 1-5")
    friday_noon = at_local(datetime(2026, 12, 4, 12, 0))
    assert timing.next_time(friday_noon, friday_noon).strftime("%A %H:%M") == "Monday 08:30"
    weekdays = timing_from_options(daily="8:30", weekdays=True)
    assert weekdays.next_time(friday_noon, friday_noon) == timing.next_time(friday_noon, friday_noon)


@pytest.mark.parametrize(("options", "reason"), [
    ({"cron": "61 * * * *"}, "maximum"), ({"cron": "* * *"}, "5 fields"), ({"cron": "0 9 * * 8"}, "day of week"),
    ({"every": "fortnight"}, "not an interval"), ({"every": "0m"}, "between"), ({"daily": "25:00"}, "HH:MM"),
    ({"at": "tomorrow"}, "not a date"), ({"at": "2026-12-03T09:00+01:00"}, "without a zone"),
    ({"every": "5m", "daily": "09:00"}, "exactly one"), ({"cron": "0 9 * * *", "weekdays": True}, "--daily")])
def test_a_timing_that_cannot_be_scheduled_is_refused_with_the_reason(options: dict[str, object], reason: str) -> None:
    with pytest.raises(TimingError, match=reason):
        timing_from_options(**options)  # type: ignore[arg-type]


def test_timings_in_words() -> None:
    assert parse_every("15m") == 900 and parse_every("2h") == 7200 and parse_every("30s") == 30
    assert describe(timing_from_options(daily="9:00", weekdays=True)) == "every weekday at 09:00"
    assert describe(timing_from_options(every="15m")) == "every 15 minutes"
    assert describe(timing_from_options(every="1h")) == "every hour"
    assert describe(timing_from_options(cron="0 9 * * 1-5")) == "cron 0 9 * * 1-5"
    now = at_local(WEDNESDAY_10)
    assert describe_next(at_local(datetime(2026, 12, 3, 9, 0)), now=now) == "tomorrow 09:00"
    assert describe_next(at_local(datetime(2026, 12, 4, 9, 0)), now=now) == "Friday 09:00"
    assert describe_next(at_local(datetime(2026, 12, 2, 17, 30)), now=now) == "today 17:30"
    assert describe_next(at_local(datetime(2027, 1, 4, 9, 0)), now=now) == "2027-01-04 09:00"


def test_every_n_minutes_keeps_its_phase_on_the_minute() -> None:
    timing = timing_from_options(every="15m")
    made = at_local(datetime(2026, 12, 2, 7, 15, 24))
    assert timing.next_time(made, made + timedelta(seconds=1)).strftime("%H:%M:%S") == "07:30:00"


def _store_with(tmp_path: Path, **timing: str) -> tuple[ScheduleStore, str]:
    store = ScheduleStore(DataDir(tmp_path))
    schedule = store.create(name="Daily report", workflow_id="wf-1", timing=timing_from_options(**timing))
    return store, schedule.id


def _move_back(tmp_path: Path, hours: float) -> None:
    """As if the schedule had been made (and last handled) `hours` ago: the app was closed since."""
    path = tmp_path / "schedules.json"
    data = json.loads(path.read_text())
    then = (datetime.now(timezone.utc) - timedelta(hours=hours)).isoformat()
    for schedule in data["schedules"]:
        schedule.update(createdAt=then, anchor=then, handledUntil=then)
    path.write_text(json.dumps(data))


def test_what_was_missed_while_closed_and_whether_it_still_runs(tmp_path: Path) -> None:
    _store, schedule_id = _store_with(tmp_path, every="30m")
    _move_back(tmp_path, 2)
    schedule = ScheduleStore(DataDir(tmp_path)).get(schedule_id)
    moment = datetime.now(timezone.utc)
    assert schedule.missed_time(moment) is not None
    assert schedule.catch_up_time(moment) is not None  # policy run, 12 h grace
    schedule.missed = "skip"
    assert schedule.catch_up_time(moment) is None
    schedule.missed, schedule.grace_minutes = "run", 60
    assert schedule.catch_up_time(moment) is not None  # the latest missed time is at most 30 min old
    _move_back(tmp_path, 0)
    assert ScheduleStore(DataDir(tmp_path)).get(schedule_id).missed_time(datetime.now(timezone.utc)) is None


def test_schedules_survive_a_restart_with_their_results(tmp_path: Path) -> None:
    store, schedule_id = _store_with(tmp_path, daily="07:45")
    fired = ScheduleResult(status="running", run_id="run-abc")
    store.record(schedule_id, fired)
    store.record(schedule_id, fired.model_copy(update={"status": "ok"}))
    store.update(schedule_id, name="Morning report", enabled=False)
    again = ScheduleStore(DataDir(tmp_path)).get(schedule_id)
    assert again.name == "Morning report" and not again.enabled and again.timing.time == "07:45"
    assert again.last is not None and again.last.status == "ok" and again.last.run_id == "run-abc"
    assert [entry.status for entry in again.history] == ["ok"]  # the same firing, ended: one entry


def test_a_firing_cut_short_by_a_crash_is_recorded_as_failed_on_the_next_start(tmp_path: Path) -> None:
    store, schedule_id = _store_with(tmp_path, every="5m")
    store.record(schedule_id, ScheduleResult(status="running", run_id="run-cut"))
    last = ScheduleStore(DataDir(tmp_path)).get(schedule_id).last
    assert last is not None and last.status == "failed" and last.run_id == "run-cut"
    assert "stopped" in (last.reason or "")


def test_a_corrupt_schedules_json_is_moved_aside_and_reported(tmp_path: Path) -> None:
    (tmp_path / "schedules.json").write_text('{"schema_version": 1, "schedules": [{"id": 3')
    store = ScheduleStore(DataDir(tmp_path))
    assert store.load_problem is not None and "schedules.json was unusable" in store.load_problem
    aside = list(tmp_path.glob("schedules.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text().startswith('{"schema_version": 1')
    assert store.list() == []


WRITER = """
import sys
from pathlib import Path
from plumbing.datadir import DataDir
from plumbing.savemanager import SaveManager
from workflows.schedule_timing import timing_from_options
from workflows.schedules import ScheduleResult, ScheduleStore
saves = SaveManager(delay=0.25)
store = ScheduleStore(DataDir(Path(sys.argv[1])), saves)
made = store.create(name="writer-" + sys.argv[2], workflow_id="wf-1", timing=timing_from_options(every="1m"))
saves.flush()
print("ready", flush=True)
i = 0
while True:
    i += 1
    store.record(made.id, ScheduleResult(status="ok" if i % 2 else "running", run_id=f"run-{i}"))
"""


def test_sigkill_while_results_are_written_never_corrupts_schedules_json(tmp_path: Path) -> None:
    rng = random.Random(11)
    root = Path(__file__).resolve().parents[3]
    for round_number in range(6):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(round_number)],
                                  stdout=subprocess.PIPE, text=True, cwd=root)
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.4))  # the moment of the kill, not a synchronisation
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        store = ScheduleStore(DataDir(tmp_path))
        assert store.load_problem is None, store.load_problem
        assert any(s.name == f"writer-{round_number}" for s in store.list())
    assert not list(tmp_path.glob("schedules.json.corrupt-*"))
