"""Command-line verbs for workflows and runs: `run`, `workflow list|import|export|update|history|diff|restore|
delete`, `runs list|show|export`.

Every verb maps to an operation. `workflow` and `runs` run it here (or in the running app); `run` needs the
browser: it goes to the running app when there is one, otherwise it starts the app for the run (headless
with `--headless` or without a display) and stops it afterwards. Exit status: 0 when every run succeeded,
1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, TextIO

from app.cli.common import parse_inputs, print_json, run_here_or_forward
from app.cli.exits import EXIT_FAILED, EXIT_OK
from app.distributed.defaults import DEFAULT_FILE_LIMIT, DEFAULT_QUEUE, DEFAULT_ROW_TIME_LIMIT
from plumbing.datadir import DataDir


def add_parsers(verbs: Any, common: argparse.ArgumentParser) -> None:
    run = verbs.add_parser("run", parents=[common], help="run a workflow (a file or a saved name)")
    run.add_argument("workflow", metavar="FILE_OR_NAME")
    run.add_argument("--env", dest="run_env", metavar="ID", default=None, help="environment (default env-default)")
    run.add_argument("--input", dest="inputs", metavar="KEY=VALUE", action="append", default=[],
                     help="a start variable (repeatable)")
    run.add_argument("--rows", metavar="FILE", help="CSV or JSON rows: one run per row")
    run.add_argument("--concurrency", type=int, default=1, metavar="N", help="tabs at once for --rows")
    run.add_argument("--headless", dest="run_headless", action="store_true", help="no visible window")
    run.add_argument("--json", action="store_true", help="print the run record(s) as JSON")
    run.add_argument("-q", "--quiet", action="store_true",
                     help="no progress bar on stderr for --rows (it only shows on a terminal anyway)")
    add_trace_options(run)
    add_run_options(run)

    workflow = verbs.add_parser("workflow", parents=[common], help="list, import, export or delete workflows")
    actions = workflow.add_subparsers(dest="workflow_verb", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=[common], help="list saved workflows")
    listing.add_argument("--json", action="store_true")
    imported = actions.add_parser("import", parents=[common], help="import a workflow file or Chrome recording")
    imported.add_argument("file")
    imported.add_argument("--json", action="store_true")
    exported = actions.add_parser("export", parents=[common], help="export a saved workflow to a file")
    exported.add_argument("name")
    exported.add_argument("-o", "--output", metavar="FILE")
    exported.add_argument("--json", action="store_true")
    updated = actions.add_parser("update", parents=[common], help="rename a saved workflow, change its "
                                 "description, or remove nodes or edges (workflow_update)")
    updated.add_argument("name")
    updated.add_argument("--rename", metavar="NEW_NAME", help="a new name (the id stays; the name must be free)")
    updated.add_argument("--description", metavar="TEXT")
    updated.add_argument("--remove-node", dest="remove_nodes", metavar="ID", action="append", default=[],
                         help="remove a node and its edges (repeatable)")
    updated.add_argument("--remove-edge", dest="remove_edges", metavar="ID", action="append", default=[],
                         help="remove an edge (repeatable)")
    updated.add_argument("--json", action="store_true")
    history = actions.add_parser("history", parents=[common], help="the kept versions of a saved workflow")
    history.add_argument("name")
    history.add_argument("--json", action="store_true")
    diffed = actions.add_parser("diff", parents=[common], help="what changed between two versions")
    diffed.add_argument("name")
    diffed.add_argument("a", type=int, metavar="A")
    diffed.add_argument("b", type=int, metavar="B", nargs="?", default=None, help="default: the newest version")
    diffed.add_argument("--json", action="store_true")
    restored = actions.add_parser("restore", parents=[common], help="go back to a version (itself a new version)")
    restored.add_argument("name")
    restored.add_argument("version", type=int, metavar="V")
    restored.add_argument("--json", action="store_true")
    deleted = actions.add_parser("delete", parents=[common], help="delete a saved workflow")
    deleted.add_argument("name")
    deleted.add_argument("--json", action="store_true")

    runs = verbs.add_parser("runs", parents=[common], help="list runs or show one")
    run_actions = runs.add_subparsers(dest="runs_verb", metavar="ACTION", required=True)
    run_list = run_actions.add_parser("list", parents=[common], help="the latest runs")
    run_list.add_argument("--limit", type=int, default=50)
    run_list.add_argument("--json", action="store_true")
    show = run_actions.add_parser("show", parents=[common], help="one run record, or one of its tables")
    show.add_argument("run_id", metavar="RUN_ID")
    show.add_argument("--table", nargs="?", const="", default=None, metavar="NAME",
                      help="print a table of the run instead (an exported table or a list output; NAME or its "
                           "number from 1, default the first; the others are listed after it)")
    show.add_argument("--trace", action="store_true", help="print the run's trace: each node's timing, locator and "
                                                           "heal, screenshots, console, page errors and requests")
    show.add_argument("--json", action="store_true")
    exported = run_actions.add_parser("export", parents=[common], help="write one zip with the run's record, trace, "
                                                                      "screenshots, video and HAR (for a bug report)")
    exported.add_argument("run_id", metavar="RUN_ID")
    exported.add_argument("-o", "--output", metavar="FILE", help="the zip to write (default exports/RUN_ID.zip in the "
                                                                 "data folder)")
    exported.add_argument("--json", action="store_true")


MODES = ("off", "on-failure", "always")


def add_trace_options(parser: argparse.ArgumentParser) -> None:
    """`--trace [MODE]` and `--video [MODE]` (alone: always); default: the settings' (trace on-failure, video off)."""
    parser.add_argument("--trace", nargs="?", const="always", choices=MODES, metavar="MODE",
                        help="keep a trace of every node (screenshots, console, requests): off, on-failure, always "
                             "(alone: always; default: the setting, on-failure)")
    parser.add_argument("--video", nargs="?", const="always", choices=MODES, metavar="MODE",
                        help="keep a video of the run's tab: off, on-failure, always (alone: always; default: the "
                             "setting, off)")


def add_run_options(run: argparse.ArgumentParser) -> None:
    run.add_argument("--broker", metavar="URL", help="with --rows: run the rows on workers through this Redis broker")
    run.add_argument("--queue", default=DEFAULT_QUEUE, metavar="NAME", help="with --broker: the workers' queue")
    run.add_argument("--retries", type=int, default=0, metavar="N",
                     help="with --broker: run a row that failed for a workflow reason up to N times more (on the "
                          "same worker, in a fresh tab)")
    run.add_argument("--ship-login", metavar="ENV", help="with --broker: send ENV's cookies with the rows "
                                                         "(the broker then carries session cookies)")
    run.add_argument("--row-time-limit", type=float, default=DEFAULT_ROW_TIME_LIMIT, metavar="S",
                     help="with --broker: seconds a row may take on a worker (default 600)")
    run.add_argument("--file-limit-mb", type=float, default=DEFAULT_FILE_LIMIT / 1024 / 1024, metavar="MB",
                     help="with --broker: files per row shipped back, in MB (default 20)")


def distribute_params(args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """`run`'s batch parameters for `workflow_distribute` (ValueError on a usage mistake)."""
    if not args.rows:
        raise ValueError("--broker needs --rows FILE (one run per row)")
    params = {key: value for key, value in params.items() if key != "concurrency"}
    params.update(broker=args.broker, queue=args.queue, retries=args.retries, rowTimeLimit=args.row_time_limit,
                  fileLimit=int(args.file_limit_mb * 1024 * 1024))
    if args.ship_login:
        params["shipLogin"] = args.ship_login
    return params


def workflow_call(args: argparse.Namespace) -> tuple[str, dict[str, Any], Callable[[dict[str, Any]], None]]:
    as_json = args.json
    verb = args.workflow_verb
    if verb == "list":
        def show(result: dict[str, Any]) -> None:
            if as_json:
                return print_json(result["workflows"])
            for wf in result["workflows"]:
                last = wf["lastRun"]["status"] if wf.get("lastRun") else "never run"
                print(f"{wf['id']}\t{wf['name']}\t{wf['nodeCount']} nodes\t{last}")
        return "workflow_list", {}, show
    if verb == "import":
        def show_import(result: dict[str, Any]) -> None:
            if as_json:
                return print_json(result)
            print(f"{'replaced' if result['replaced'] else 'imported'} {result['workflow']['id']}\t"
                  f"{result['workflow']['name']}")
            for note in result.get("notes", []):
                print(f"note: {note}", file=sys.stderr)
            for warning in result.get("warnings", []):
                print(f"warning: {warning}", file=sys.stderr)
        return "workflow_import", {"path": str(Path(args.file).expanduser().resolve())}, show_import
    if verb == "update":
        changes: dict[str, Any] = {"name": args.name}
        for key, value in (("rename", args.rename), ("description", args.description)):
            if value is not None:
                changes[key] = value
        if args.remove_nodes:
            changes["removeNodes"] = args.remove_nodes
        if args.remove_edges:
            changes["removeEdges"] = args.remove_edges

        def show_update(result: dict[str, Any]) -> None:
            if as_json:
                return print_json(result)
            print(f"updated {result['id']}\t{result['name']}")
            for warning in result.get("warnings", []):
                print(f"warning: {warning}", file=sys.stderr)
        return "workflow_update", changes, show_update
    if verb == "history":
        def show_history(result: dict[str, Any]) -> None:
            if as_json:
                return print_json(result)
            for v in result["versions"]:
                note = f"\t{v['note']}" if v.get("note") else ""
                print(f"{v['version']}\t{v['at']}\t{v['reason']}\t{v['nodes']} nodes\t{v['name']}{note}")
        return "workflow_history", {"name": args.name}, show_history
    if verb == "diff":
        def show_diff(result: dict[str, Any]) -> None:
            if as_json:
                return print_json(result)
            print(f"version {result['from']} -> {result['to']}")
            for change in result["changes"] or ["no change"]:
                print(f"  {change}")
            if result["diff"]:
                print(result["diff"])
        params_diff: dict[str, Any] = {"name": args.name, "a": args.a}
        if args.b is not None:
            params_diff["b"] = args.b
        return "workflow_diff", params_diff, show_diff
    if verb == "restore":
        return "workflow_restore", {"name": args.name, "version": args.version}, (
            lambda r: print_json(r) if as_json else print(f"restored version {r['restored']} of {r['name']} as "
                                                          f"version {r['version']}"))
    if verb == "export":
        params: dict[str, Any] = {"name": args.name}
        if args.output:
            params["path"] = str(Path(args.output).expanduser().resolve())
        return "workflow_export", params, (lambda r: print_json(r) if as_json else print(r["path"]))
    return "workflow_delete", {"name": args.name}, (
        lambda r: print_json(r) if as_json else print(f"deleted {r['deleted']['id']}\t{r['deleted']['name']}"))


def runs_call(args: argparse.Namespace) -> tuple[str, dict[str, Any], Callable[[dict[str, Any]], None]]:
    if args.runs_verb == "list":
        def show(result: dict[str, Any]) -> None:
            if args.json:
                return print_json(result["runs"])
            for run in result["runs"]:
                duration = f"{run['durationMs'] / 1000:.1f} s" if run.get("durationMs") is not None else "-"
                print(f"{run['id']}\t{run['status']}\t{run['workflow']}\t{run['env']}\t{run['startedAt']}\t{duration}")
        return "run_list", {"limit": args.limit}, show
    if args.runs_verb == "export":
        params: dict[str, Any] = {"runId": args.run_id}
        if args.output:
            params["path"] = str(Path(args.output).expanduser().resolve())
        return "run_export", params, (lambda r: print_json(r) if args.json else print(
            f"{r['path']}\t{r['files']} files, {r['bytes']} bytes"))
    if args.table is not None:
        return "run_tables", {"runId": args.run_id}, lambda result: print_table(result, args.table, args.json)
    if args.trace:
        return "run_read", {"runId": args.run_id}, (lambda r: print_json(r["run"].get("trace", [])) if args.json
                                                    else print_trace(r["run"]))
    return "run_read", {"runId": args.run_id}, (lambda r: print_json(r["run"]) if args.json else print_record(r["run"]))


def print_table(result: dict[str, Any], wanted: str, as_json: bool) -> None:
    """One table of a `run_tables` result, in aligned columns (or JSON), and the names of the others."""
    from workflows.tables import RunTable, find_table, format_text_table

    tables = [RunTable(t["name"], t["source"], t["headers"], t["rows"], t.get("path"), t.get("truncated", False))
              for t in result["tables"]]
    try:
        table = find_table(tables, wanted or None)
    except LookupError as exc:
        raise SystemExit(f"browserpilot: {exc}") from None
    if as_json:
        return print_json(table.view())
    print(format_text_table(table.headers, table.rows))
    origin = table.path or f"output {table.name}"
    print(f"({len(table.rows)} rows{', cut' if table.truncated else ''}; {origin})", file=sys.stderr)
    others = [f"{i + 1}. {t.name}" for i, t in enumerate(tables) if t is not table]
    if others:
        print("other tables: " + ", ".join(others), file=sys.stderr)


def print_record(run: dict[str, Any]) -> None:
    print(f"{run['id']}  {run['status']}  {run['workflowName']}  env {run['env']}  "
          f"{(run.get('durationMs') or 0) / 1000:.2f} s")
    if run.get("error"):
        print(f"error: {run['error']}")
    if run.get("stoppedAt"):
        print(f"stopped at: {run['stoppedAt']}")
    for key, value in (run.get("outputs") or {}).items():
        print(f"output {key}: {json.dumps(value, ensure_ascii=False)}")
    for path in run.get("files") or []:
        print(f"file: {path}")
    for key in ("screenshot", "har"):
        if run.get(key):
            print(f"{key}: {run[key]}")
    healed = [entry for entry in run.get("trace") or [] if entry.get("healed")]
    if healed:
        print(f"healed: {len(healed)} node{'s' if len(healed) != 1 else ''} (no locator found the element; its "
              "fingerprint did)")
        for entry in healed:
            heal = entry["healed"]
            print(f"  {entry['node']}{' ' + repr(entry['title']) if entry.get('title') else ''}: {heal.get('from')} "
                  f"-> {heal.get('element')} (score {heal.get('score')}: {heal.get('why')})")


def print_trace(run: dict[str, Any]) -> None:
    """The run's steps: one line each (offset, time, status, node, locator or heal, element), then its pictures,
    console, page errors and requests, indented."""
    print(f"{run['id']}  {run['status']}  {run['workflowName']}  {(run.get('durationMs') or 0) / 1000:.2f} s")
    steps = run.get("trace") or []
    if run.get("traceRemoved"):
        print("(the screenshots and video were deleted since: traces take at most the size set in the settings)")
    elif not any(step.get("before") or step.get("after") for step in steps):
        mode = (run.get("tracing") or {}).get("trace", "off")
        print("no screenshots kept: " + ("the trace was off" if mode == "off" else
                                         f"the trace was {mode} and the run ended {run['status']}"))
    for step in steps:
        at = f"{step['atMs'] / 1000:7.2f}s" if step.get("atMs") is not None else "        "
        title = f" {step['title']!r}" if step.get("title") else ""
        where = ""
        if step.get("healed"):
            where = f"  healed: {step['healed'].get('from')} -> {step['healed'].get('element')}"
        elif step.get("locator"):
            where = f"  by {step['locator']}"
        print(f"{at} {step.get('ms', 0):7.0f} ms  {'ok ' if step.get('ok') else 'ERR'}  {step['node']} "
              f"({step['type']}){title}{where}")
        if step.get("element"):
            print(f"      element: {step['element']}")
        if step.get("error"):
            print(f"      error: {step['error']}")
        for key in ("before", "after"):
            if step.get(key):
                print(f"      {key}: {step[key]}")
        for message in step.get("console") or []:
            print(f"      console {message['level']}: {message['text']}")
        for error in step.get("pageErrors") or []:
            print(f"      page error: {error['text']}")
        for request in step.get("requests") or []:
            status = request.get("status") or (request.get("error") or "-")
            timing = f" {request['ms']:.0f} ms" if request.get("ms") is not None else ""
            print(f"      {request.get('method', 'GET')} {request['url']} {status}{timing} ({request.get('type')})")
    if run.get("video"):
        print(f"video: {run['video']}")


def run_call(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    target = Path(args.workflow).expanduser()
    params: dict[str, Any] = {"inputs": parse_inputs(args.inputs)}
    if target.is_file():
        from workflows.io import load_any

        doc, notes = load_any(target)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        params["workflow"] = doc.to_data()
    else:
        params["name"] = args.workflow
    if args.run_env:
        params["env"] = args.run_env
    for key in ("trace", "video"):
        if getattr(args, key, None):
            params[key] = getattr(args, key)
    if args.rows:
        params.update(rowsFile=str(Path(args.rows).expanduser().resolve()), concurrency=args.concurrency)
        if getattr(args, "broker", None):
            return "workflow_distribute", distribute_params(args, params)
        return "workflow_batch", params
    if getattr(args, "broker", None):
        raise ValueError("--broker needs --rows FILE (one run per row)")
    return "workflow_run", params


class ProgressBar:
    """A batch's progress on one line of stderr, rewritten as rows end:

        [##########..........] 5/10  ok 4  failed 1  left 5  about 12 s left

    Only on a terminal (off when stderr is a pipe or a file) and not with `--quiet`. The time left is the
    time per row so far times the rows left."""

    WIDTH = 24

    def __init__(self, *, quiet: bool = False, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self._clock = clock
        self._started = clock()
        self._open = False  # a line is drawn and not ended yet

    def line(self, progress: dict[str, Any]) -> str:
        total, done = int(progress["total"]), int(progress["done"])
        filled = int(self.WIDTH * done / total) if total else self.WIDTH
        parts = [f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total}", f"ok {progress['succeeded']}",
                 f"failed {progress['failed']}"]
        if "queued" in progress:  # the distributed batch counts its rows in flight
            parts += [f"running {progress['running']}", f"queued {progress['queued']}"]
        else:
            parts.append(f"left {total - done}")
        if 0 < done < total:
            parts.append(f"about {format_seconds((self._clock() - self._started) / done * (total - done))} left")
        return "  ".join(parts)

    def __call__(self, progress: dict[str, Any]) -> None:
        if not self.enabled:
            return
        self.stream.write("\r" + self.line(progress) + "\x1b[K")
        self._open = int(progress["done"]) < int(progress["total"])
        if not self._open:
            self.stream.write("\n")
        self.stream.flush()

    def finish(self) -> None:
        """End a line left open (a batch that stopped before its last row)."""
        if self.enabled and self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


def format_seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def run_verb(args: argparse.Namespace, data: DataDir) -> int:
    from app.startup.runtime import has_display
    from workflows.document import DocumentError

    try:
        name, params = run_call(args)
    except (DocumentError, ValueError, OSError) as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    headless = args.run_headless or name == "workflow_distribute" or not (has_display() or os.environ.get("QT_QPA_PLATFORM"))
    bar = ProgressBar(quiet=args.quiet)
    result = run_here_or_forward(data, name, params, headless=headless, progress=bar)
    bar.finish()
    if result is None:
        return EXIT_FAILED
    return show_run_result(args, name, result)


def show_run_result(args: argparse.Namespace, name: str, result: dict[str, Any]) -> int:
    if name in ("workflow_batch", "workflow_distribute", "batch_resume"):
        if args.json:
            print_json(result)
        elif result.get("ok"):
            for row in result["results"]:
                worker = f"\t{row['worker']}" if row.get("worker") else ""
                print(f"row {row['row']}\t{row['status']}\t{row.get('runId', '-')}{worker}\t{row.get('error') or ''}"
                      .rstrip())
            print(f"{result['succeeded']} ok, {result['failed']} failed of {result['total']}")
        if not result.get("ok"):
            print(f"browserpilot: {result.get('error')}", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_OK if result["failed"] == 0 else EXIT_FAILED
    run = result.get("run")
    if args.json:
        print_json(run if run is not None else result)
    elif run is not None:
        print_record(run)
    if not result.get("ok"):
        if run is None or not args.json:
            print(f"browserpilot: {result.get('error')}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
