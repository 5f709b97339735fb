"""Command-line parts of distributed batches: the `worker` and `batch` verbs, and `run … --rows FILE --broker URL`.

`browserpilot worker --broker redis://HOST:6379/0 [--concurrency N] [--env ID] [--queue NAME]` starts the
headless app and consumes rows (app.distributed.worker). `run --broker` maps to the `workflow_distribute`
operation, which `browserpilot run` carries out like any run (in the running app, or in an app it starts
for the batch); the progress line then counts done, failed, running and queued rows. `batch resume ID`
(`batch_resume`) follows a batch again the same way, and `batch list` (`batch_list`) shows the batches on file.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.cli.common import run_here_or_forward, run_operation_verb
from app.cli.exits import EXIT_FAILED, EXIT_USAGE
from app.cli.workflows import ProgressBar, show_run_result
from app.distributed.defaults import DEFAULT_HEARTBEAT_TIMEOUT, DEFAULT_QUEUE, DEFAULT_ROW_TIME_LIMIT
from plumbing.datadir import DataDir


def add_worker_parser(verbs: Any, common: argparse.ArgumentParser) -> None:
    worker = verbs.add_parser("worker", parents=[common], help="run batch rows from a Redis broker in this "
                                                               "app (headless)")
    worker.add_argument("--broker", required=True, metavar="URL", help="redis://[:password@]host:6379/0 "
                                                                       "(rediss:// for TLS)")
    worker.add_argument("--concurrency", type=int, default=1, metavar="N", help="rows at once (tabs), default 1")
    worker.add_argument("--env", dest="worker_env", default="env-default", metavar="ID",
                        help="the environment rows run in (default env-default)")
    worker.add_argument("--queue", default=DEFAULT_QUEUE, metavar="NAME", help=f"queue (default {DEFAULT_QUEUE})")
    worker.add_argument("--name", default="", metavar="NAME", help="the worker's name (default bp-HOST-PID)")
    worker.add_argument("--row-time-limit", type=float, default=DEFAULT_ROW_TIME_LIMIT, metavar="S",
                        help="the longest a row may take here, in seconds (default 600)")
    worker.add_argument("--heartbeat-timeout", type=float, default=DEFAULT_HEARTBEAT_TIMEOUT, metavar="S",
                        help="seconds without a heartbeat after which this worker takes another for dead and puts "
                             f"its rows back in the queue (default {DEFAULT_HEARTBEAT_TIMEOUT:g})")


def add_batch_parser(verbs: Any, common: argparse.ArgumentParser) -> None:
    batch = verbs.add_parser("batch", parents=[common], help="distributed batches on file: list them, resume one")
    actions = batch.add_subparsers(dest="batch_verb", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=[common], help="the batches this data folder submitted")
    listing.add_argument("--json", action="store_true")
    resume = actions.add_parser("resume", parents=[common], help="follow a batch again: collect what finished, "
                                                                "send again only what the broker lost")
    resume.add_argument("batch_id", metavar="ID")
    resume.add_argument("--json", action="store_true", help="print the batch's result as JSON")
    resume.add_argument("-q", "--quiet", action="store_true", help="no progress bar on stderr")


def run_worker_verb(args: argparse.Namespace, data: DataDir) -> int:
    from app.distributed.worker import WorkerOptions
    from app.wiring.worker import run_worker
    from app.startup.logsetup import setup_logging

    setup_logging(data.logs, debug=getattr(args, "debug", False))  # a worker tells what it does (not quiet)

    if args.concurrency < 1 or args.row_time_limit <= 0 or args.heartbeat_timeout < 2:
        print("browserpilot: --concurrency must be at least 1, --row-time-limit positive and --heartbeat-timeout "
              "at least 2 s", file=sys.stderr)
        return EXIT_USAGE
    if not args.broker.startswith(("redis://", "rediss://", "redis+socket://")):
        print(f"browserpilot: the broker must be a redis:// or rediss:// URL, not {args.broker!r}", file=sys.stderr)
        return EXIT_USAGE
    options = WorkerOptions(broker=args.broker, concurrency=args.concurrency, env_id=args.worker_env,
                            queue=args.queue, name=args.name, row_time_limit=args.row_time_limit,
                            heartbeat_timeout=args.heartbeat_timeout)
    return run_worker(data, options)


def run_batch_verb(args: argparse.Namespace, data: DataDir) -> int:
    """`batch list` here (or in the running app); `batch resume ID` as `run` carries out a batch."""
    if args.batch_verb == "list":
        def show(result: dict[str, Any]) -> None:
            if args.json:
                print(json.dumps(result["batches"], ensure_ascii=False, indent=2))
                return
            for batch in result["batches"]:
                print(f"{batch['batchId']}\t{batch['status']}\t{batch['workflow']}\t{batch['succeeded']} ok, "
                      f"{batch['failed']} failed, {batch['open']} open of {batch['total']}"
                      + (f", {batch['duplicates']} duplicate(s)" if batch["duplicates"] else ""))
        return run_operation_verb(data, "batch_list", {}, show)
    bar = ProgressBar(quiet=args.quiet)
    result = run_here_or_forward(data, "batch_resume", {"batchId": args.batch_id}, headless=True,
                                               progress=bar)
    bar.finish()
    if result is None:
        return EXIT_FAILED
    return show_run_result(args, "batch_resume", result)
