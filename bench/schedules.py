"""The scheduler's cost and precision in the real app (`browserpilot --headless` as a subprocess):

- idle CPU of the app process (and its children) over a minute with 50 switched-on schedules (daily times that
  do not come during the minute), against the same app with none: target under 0.5 %;
- firing delay: a once-schedule at a whole second ~20 s ahead, and a cron `* * * * *` schedule at the next
  minute; the delay is the recorded firing time (`history[].at`) minus the scheduled time: target under 1 s.

    .venv/bin/python bench/schedules.py [--seconds 60]
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "none"
        many = Path(folder) / "fifty"
        for data in (base, many):
            data.mkdir()
            (Path(folder) / "noop.json").write_text(json.dumps(WORKFLOW))
            cli(data, "workflow", "import", str(Path(folder) / "noop.json"))
        now = datetime.now()
        for index in range(50):  # daily times at least an hour away
            at = (now + timedelta(hours=1, minutes=index)).strftime("%H:%M")
            cli(many, "schedule", "add", "Noop", "--daily", at, "--name", f"daily-{index}")
        none_cpu = idle_cpu(base, args.seconds)
        fifty_cpu = idle_cpu(many, args.seconds)
        print(f"idle CPU over {args.seconds:.0f} s: no schedules {none_cpu:.2f} %, 50 schedules {fifty_cpu:.2f} % "
              f"(difference {fifty_cpu - none_cpu:+.2f} points; target < 0.5 %)")

        timing = Path(folder) / "timing"
        timing.mkdir()
        (Path(folder) / "noop.json").write_text(json.dumps(WORKFLOW))
        cli(timing, "workflow", "import", str(Path(folder) / "noop.json"))
        once_at = (datetime.now() + timedelta(seconds=25)).replace(microsecond=0)
        cli(timing, "schedule", "add", "Noop", "--at", once_at.isoformat(), "--name", "once")
        cli(timing, "schedule", "add", "Noop", "--cron", "* * * * *", "--name", "minute")
        app = subprocess.Popen([*APP, "--data-dir", str(timing), "--headless"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 100
            delays: dict[str, float] = {}
            while time.monotonic() < deadline and len(delays) < 2:
                time.sleep(0.5)
                try:
                    data = json.loads((timing / "schedules.json").read_text())
                except (OSError, ValueError):
                    continue
                for schedule in data["schedules"]:
                    if schedule["name"] in delays or not schedule["history"]:
                        continue
                    fired = datetime.fromisoformat(schedule["history"][-1]["at"])
                    due = (once_at.astimezone(timezone.utc) if schedule["name"] == "once"
                           else fired.replace(second=0, microsecond=0))
                    delays[schedule["name"]] = (fired - due).total_seconds()
        finally:
            app.terminate()
            app.wait(30)
        for name, delay in sorted(delays.items()):
            print(f"firing delay ({name}): {delay * 1000:.0f} ms (target < 1000 ms)")


if __name__ == "__main__":
    main()
