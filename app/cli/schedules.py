"""Command-line verbs for schedules: `schedule add|list|enable|disable|remove|run`.

    browserpilot schedule add WORKFLOW (--cron EXPR | --every 15m | --daily 09:00 [--weekdays] | --at DATETIME)
        [--name NAME] [--env ID] [--input k=v ...] [--rows FILE [--broker URL] [--concurrency N]]
        [--missed run|skip] [--grace-hours H] [--trace [MODE]] [--video [MODE]]
    browserpilot schedule list [--json]
    browserpilot schedule enable|disable|remove ID
    browserpilot schedule run ID [--json]

Each verb is an operation (app/ops/schedule_ops.py), run here under the instance lock or in the running app (which
then reschedules at once). `run` needs the browser: in the running app, or in an app started for it that stops
when the run has ended. Exit status: 0 success (for `run`: the run or every row ok), 1 failure, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from app.cli.common import parse_inputs, print_json, run_here_or_forward, run_operation_verb
from app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.cli.workflows import add_trace_options
from plumbing.datadir import DataDir


def add_parser(verbs: Any, common: argparse.ArgumentParser) -> None:
    schedule = verbs.add_parser("schedule", parents=[common], help="run workflows at given times")
    actions = schedule.add_subparsers(dest="schedule_verb", metavar="ACTION", required=True)
    add = actions.add_parser("add", parents=[common], help="schedule a saved workflow",
                             description="Times are local. --at takes ISO 8601 local time: 2026-12-03T09:00. "
                                         "Cron weekday 0 and 7 are Sunday.")
    add.add_argument("workflow", metavar="WORKFLOW", help="a saved workflow's name or id")
    timing = add.add_argument_group("when (exactly one)")
    timing.add_argument("--cron", metavar="EXPR", help='a crontab expression, e.g. "0 9 * * 1-5"')
    timing.add_argument("--every", metavar="INTERVAL", help="15m, 2h, 30s, 1d")
    timing.add_argument("--daily", metavar="HH:MM", help="every day at HH:MM")
    timing.add_argument("--weekdays", action="store_true", help="with --daily: Monday to Friday only")
    timing.add_argument("--at", metavar="DATETIME", help="once, at 2026-12-03T09:00")
    add.add_argument("--name", help="the schedule's name (default: the workflow's)")
    add.add_argument("--env", dest="schedule_env", metavar="ID", help="environment (default env-default)")
    add.add_argument("--input", dest="inputs", metavar="KEY=VALUE", action="append", default=[],
                     help="a start variable (repeatable)")
    add.add_argument("--rows", metavar="FILE", help="CSV or JSON rows: a batch, one run per row (read at each run)")
    add.add_argument("--broker", metavar="URL", help="with --rows: run the rows on workers through this Redis broker")
    add.add_argument("--concurrency", type=int, metavar="N", help="with --rows: tabs at once")
    add.add_argument("--missed", choices=("run", "skip"), default="run",
                     help="a time missed while the app was closed: run once when back (default) or skip")
    add.add_argument("--grace-hours", type=float, metavar="H", help="how old a missed time may be to still run "
                                                                     "(default 12)")
    add.add_argument("--disabled", action="store_true", help="make it switched off")
    add_trace_options(add)
    add.add_argument("--json", action="store_true", help="print JSON")
    listing = actions.add_parser("list", parents=[common], help="the schedules and their next times")
    listing.add_argument("--json", action="store_true", help="print JSON")
    for verb, text in (("enable", "switch a schedule on"), ("disable", "switch a schedule off"),
                       ("remove", "delete a schedule")):
        one = actions.add_parser(verb, parents=[common], help=text)
        one.add_argument("id", metavar="ID")
        one.add_argument("--json", action="store_true", help="print JSON")
    run = actions.add_parser("run", parents=[common], help="run a schedule now and wait for its end")
    run.add_argument("id", metavar="ID")
    run.add_argument("--headless", dest="run_headless", action="store_true", help="no visible window")
    run.add_argument("--json", action="store_true", help="print JSON")


def line(view: dict[str, Any]) -> str:
    """One schedule on one line: id, name, when, next, last result."""
    last = view.get("last") or {}
    result = last.get("status", "never run")
    if last.get("reason") and result in ("skipped", "missed", "failed"):
        result += f" ({last['reason']})"
    state = "" if view.get("enabled") else "off"
    upcoming = f"next {view['next']}" if view.get("next") else "no next time"
    return "\t".join(part for part in (view["id"], view["name"], view["when"], state or upcoming, result))


def schedule_call(args: argparse.Namespace) -> tuple[str, dict[str, Any], Callable[[dict[str, Any]], None]]:
    """Map a `schedule` verb (other than run) to its operation, parameters and output (ValueError: usage)."""
    as_json = args.json
    verb = args.schedule_verb
    if verb == "list":
        def show(result: dict[str, Any]) -> None:
            if as_json:
                return print_json(result["schedules"])
            if result.get("paused"):
                print("all schedules are paused")
            for view in result["schedules"]:
                print(line(view))
        return "schedule_list", {}, show
    if verb == "add":
        params: dict[str, Any] = {"workflow": args.workflow, "missed": args.missed}
        for key, value in (("cron", args.cron), ("every", args.every), ("daily", args.daily), ("at", args.at),
                           ("name", args.name), ("env", args.schedule_env), ("broker", args.broker),
                           ("concurrency", args.concurrency), ("trace", args.trace), ("video", args.video)):
            if value is not None:
                params[key] = value
        if args.weekdays:
            params["weekdays"] = True
        if args.inputs:
            params["inputs"] = parse_inputs(args.inputs)
        if args.rows:
            from pathlib import Path

            params["rowsFile"] = str(Path(args.rows).expanduser().resolve())
        if args.grace_hours is not None:
            params["graceMinutes"] = round(args.grace_hours * 60)
        if args.disabled:
            params["enabled"] = False
        return "schedule_create", params, _show_one(as_json, "added")
    if verb in ("enable", "disable"):
        return "schedule_update", {"schedule": args.id, "enabled": verb == "enable"}, _show_one(as_json, verb + "d")
    return "schedule_delete", {"schedule": args.id}, (
        lambda r: print_json(r) if as_json else print(f"removed {r['deleted']['id']}\t{r['deleted']['name']}"))


def _show_one(as_json: bool, verb: str) -> Callable[[dict[str, Any]], None]:
    def show(result: dict[str, Any]) -> None:
        if as_json:
            return print_json(result["schedule"])
        print(f"{verb} {line(result['schedule'])}")
    return show


def schedule_verb(args: argparse.Namespace, data: DataDir) -> int:
    if args.schedule_verb == "run":
        return _run_verb(args, data)
    try:
        name, params, show = schedule_call(args)
    except ValueError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return run_operation_verb(data, name, params, show)


def _run_verb(args: argparse.Namespace, data: DataDir) -> int:
    import os

    from app.startup.runtime import has_display

    headless = args.run_headless or not (has_display() or os.environ.get("QT_QPA_PLATFORM"))
    result = run_here_or_forward(data, "schedule_run", {"schedule": args.id, "wait": True}, headless=headless)
    if result is None:
        return EXIT_FAILED
    if args.json:
        print_json(result)
    if not result.get("ok"):
        print(f"browserpilot: {result.get('error')}", file=sys.stderr)
        return EXIT_FAILED
    outcome = result.get("result") or {}
    if not args.json:
        target = outcome.get("runId") or outcome.get("batchId") or "-"
        print(f"{args.id}\t{outcome.get('status')}\t{target}\t{outcome.get('reason') or ''}".rstrip())
    return EXIT_OK if outcome.get("status") == "ok" else EXIT_FAILED
