"""What every verb of the command line shares: running an operation here (under the instance lock) or in the
app that already runs on the data folder (over its MCP endpoint), starting an app for a verb that needs the
browser, printing JSON, and reading `--input k=v` pairs."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

from app.cli.exits import EXIT_FAILED, EXIT_OK
from app.startup.instance import AlreadyRunningError, InstanceLock
from plumbing.datadir import DataDir
from plumbing.errors import StoreError


def print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def local_context(data: DataDir) -> Any:
    """The operations' context for a command that runs its operation itself (under the instance lock)."""
    from app.ops import OpContext
    from envs.store import EnvStore

    store = EnvStore(data)
    if store.load_problem:
        print(f"warning: {store.load_problem}", file=sys.stderr)
    return OpContext(data=data, envs=store)


def execute_operation(data: DataDir, name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one operation for a command and return its envelope: here, under the instance lock, or - when
    the app already runs on this data folder - inside the app, as a tool call to its MCP endpoint.

    Raises `AlreadyRunningError` (the app runs but cannot be reached: the message says why), `StoreError`
    or `OSError`. Every verb (env now; run, workflow, runs as they come) goes through here.
    """
    from app.wiring.registry import build_registry

    try:
        with InstanceLock(data.lock_file):
            import asyncio

            return asyncio.run(build_registry().call(local_context(data), name, params))
    except AlreadyRunningError:
        from app.mcp.client import EndpointUnavailable, forward_operation

        try:
            return forward_operation(data, name, params)
        except EndpointUnavailable as exc:
            raise AlreadyRunningError(str(exc)) from None


def run_operation_verb(data: DataDir, name: str, params: dict[str, Any],
                       show: Callable[[dict[str, Any]], None]) -> int:
    """`execute_operation`, then the command's output (`show`) or one error line; the exit status."""
    try:
        result = execute_operation(data, name, params)
    except (AlreadyRunningError, StoreError, OSError) as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not result.get("ok"):
        print(f"browserpilot: {result.get('error')}", file=sys.stderr)
        return EXIT_FAILED
    show(result)
    return EXIT_OK


def run_here_or_forward(data: DataDir, name: str, params: dict[str, Any], *, headless: bool,
                        progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any] | None:
    """Run one operation in an app started for it, or in the app already running on this data folder (over
    MCP); the envelope, or None after printing why neither could be done."""
    from app.wiring.application import run_operation
    from app.startup.instance import AlreadyRunningError
    from app.startup.runtime import NoDisplayError
    from plumbing.jsonstore import StoreError

    try:
        return run_operation(data, name, params, headless=headless, progress=progress)
    except AlreadyRunningError:
        try:
            return execute_operation(data, name, params)
        except (AlreadyRunningError, StoreError, OSError) as exc:
            print(f"browserpilot: {exc}", file=sys.stderr)
            return None
    except (NoDisplayError, StoreError, OSError) as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return None


def parse_inputs(pairs: list[str]) -> dict[str, str]:
    inputs: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--input takes KEY=VALUE, not {pair!r}")
        key, _, value = pair.partition("=")
        inputs[key.strip()] = value
    return inputs


