"""`browserpilot edit NAME`: open a saved workflow in the node-graph editor of the app running on this data
folder, starting the app (with its windows) first when none runs. The request travels as the `editor_open`
operation through the app's MCP endpoint, like every other verb that reaches a running app."""

from __future__ import annotations

import argparse
import subprocess
import sys

from app.cli.exits import EXIT_FAILED, EXIT_OK
from app.mcp.client import APP_START_TIMEOUT, EndpointUnavailable, app_command, forward_operation, \
    running_pid, wait_for_endpoint
from plumbing.datadir import DataDir


def add_parser(verbs: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    edit = verbs.add_parser("edit", parents=[common], help="open a saved workflow in the editor (starts the app if needed)")
    edit.add_argument("workflow", metavar="NAME", help="a saved workflow's name or wf- id")


def start_gui(data: DataDir) -> subprocess.Popen[bytes]:
    """The app with its windows, detached, on this data folder."""
    return subprocess.Popen([*app_command(), "--data-dir", str(data.root)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            close_fds=True)


def edit_verb(args: argparse.Namespace, data: DataDir) -> int:
    try:
        if running_pid(data) is None:
            wait_for_endpoint(data, APP_START_TIMEOUT, start_gui(data))
        result = forward_operation(data, "editor_open", {"name": args.workflow})
    except EndpointUnavailable as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not result.get("ok"):
        print(f"browserpilot: {result.get('error')}", file=sys.stderr)
        return EXIT_FAILED
    print(f"opened {result['id']}\t{result['title']}")
    return EXIT_OK
