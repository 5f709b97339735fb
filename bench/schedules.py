"""The scheduler's cost and precision in the real app (`browserpilot --headless` as a subprocess):

- idle CPU of the app process (and its children) over a minute with 50 switched-on schedules (daily times that
  do not come during the minute), against the same app with none: target under 0.5 %;
- firing delay: a once-schedule at a whole second ~25 s ahead, and a cron `* * * * *` schedule over the next
  minutes; the delay is the recorded firing time (`history[].at`) minus the scheduled time: target under 1 s.

    .venv/bin/python bench/schedules.py [--seconds 60] [--minutes 2] [--only idle|firing]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
APP = [str(Path(sys.executable).with_name("browserpilot"))]
WORKFLOW = {"kind": "app", "version": "0.3.0", "app": {"name": "Noop", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": [{"id": "start", "data": {"type": "start"}},
                                             {"id": "end", "data": {"type": "end"}}],
                                   "edges": [{"source": "start", "target": "end"}]}}}


def cli(data: Path, *args: str) -> str:
    done = subprocess.run([*APP, "--data-dir", str(data), *args], capture_output=True, text=True, check=True)
    return done.stdout


def cpu_seconds(process: psutil.Process) -> float:
    total = 0.0
    for proc in [process, *process.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def idle_cpu(data: Path, seconds: float) -> float:
    """Percent of one core the app used over `seconds`, after it settled."""
    app = subprocess.Popen([*APP, "--data-dir", str(data), "--headless"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        proc = psutil.Process(app.pid)
        time.sleep(8)  # start-up done (Chromium, the MCP server), not measured
        before, started = cpu_seconds(proc), time.monotonic()
        time.sleep(seconds)
        return 100 * (cpu_seconds(proc) - before) / (time.monotonic() - started)
    finally:
        app.terminate()
        app.wait(30)


def prepared(folder: Path, name: str) -> Path:
    data = folder / name
    data.mkdir()
    (folder / "noop.json").write_text(json.dumps(WORKFLOW))
    cli(data, "workflow", "import", str(folder / "noop.json"))
    return data


def measure_idle(folder: Path, seconds: float) -> None:
    base, many = prepared(folder, "none"), prepared(folder, "fifty")
    now = datetime.now()
    for index in range(50):  # daily times at least an hour away
        at = (now + timedelta(hours=1, minutes=index)).strftime("%H:%M")
        cli(many, "schedule", "add", "Noop", "--daily", at, "--name", f"daily-{index}")
    none_cpu = idle_cpu(base, seconds)
    fifty_cpu = idle_cpu(many, seconds)
    print(f"idle CPU over {seconds:.0f} s: no schedules {none_cpu:.2f} %, 50 schedules {fifty_cpu:.2f} % "
          f"(difference {fifty_cpu - none_cpu:+.2f} points; target < 0.5 %)", flush=True)


def measure_firing(folder: Path, minutes: int) -> None:
    """A once-schedule ~25 s ahead and `* * * * *` over `minutes` minutes: each firing's delay."""
    timing = prepared(folder, "timing")
    once_at = (datetime.now() + timedelta(seconds=25)).replace(microsecond=0)
    cli(timing, "schedule", "add", "Noop", "--at", once_at.isoformat(), "--name", "once")
    cli(timing, "schedule", "add", "Noop", "--cron", "* * * * *", "--name", "minute")
    app = subprocess.Popen([*APP, "--data-dir", str(timing), "--headless"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    delays: dict[str, list[float]] = {"once": [], "minute": []}
    try:
        deadline = time.monotonic() + 60 * minutes + 45
        while time.monotonic() < deadline and (not delays["once"] or len(delays["minute"]) < minutes):
            time.sleep(0.5)
            try:
                data = json.loads((timing / "schedules.json").read_text())
            except (OSError, ValueError):
                continue
            for schedule in data["schedules"]:
                fired = [datetime.fromisoformat(entry["at"]) for entry in schedule["history"]]
                due = [once_at.astimezone(timezone.utc) if schedule["name"] == "once"
                       else moment.replace(second=0, microsecond=0) for moment in fired]
                delays[schedule["name"]] = [(a - b).total_seconds() for a, b in zip(fired, due)]
    finally:
        app.terminate()
        app.wait(30)
    for name, found in sorted(delays.items()):
        shown = ", ".join(f"{delay * 1000:.0f}" for delay in found) or "none"
        print(f"firing delay ({name}): {shown} ms (target < 1000 ms)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60, help="how long idle CPU is measured")
    parser.add_argument("--minutes", type=int, default=2, help="how many firings of the every-minute schedule")
    parser.add_argument("--only", choices=("idle", "firing"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.only != "firing":
            measure_idle(Path(folder), args.seconds)
        if args.only != "idle":
            measure_firing(Path(folder), args.minutes)


if __name__ == "__main__":
    main()
