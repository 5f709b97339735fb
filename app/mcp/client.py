"""Talking to the running app's MCP endpoint from another process: the command line and the stdio bridge.

- `running_pid(data)`: is an app running on this data folder (it holds the instance lock), and which pid.
- `wait_for_endpoint(data)`: until `mcp.json` names a live server of that app and its port answers.
- `ensure_app(data)`: the same, starting `browserpilot --headless --data-dir …` (detached) when no app runs
  (`start_app_if_needed` only starts it, so the bridge starts the app before anything else); the started
  app is told who started it (`app.mcp.idle`), so it quits by itself once its bridge clients have gone.
- `connect(endpoint, role)`: an `mcp.Client` session over streamable HTTP with the bearer token; every request
  names its sender (`X-BrowserPilot-Client: bridge|cli <pid>`), so the app knows which bridges use it.
- `connect_quick(endpoint, role)`: the same calls over the app's private bridge endpoint (`app.mcp.quick`),
  which is up before the app has loaded the SDK; the stdio bridge uses it (`ensure_app(..., quick=True)`).
- `forward_operation(data, name, params)`: one operation as a tool call; returns the envelope, so a command
  prints and exits exactly as if it had run the operation itself.

Plain Python (no Qt). The `mcp` SDK is imported when a connection is made, so commands that never forward
do not pay for it.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import logging
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

from app.mcp.config import McpFile, read_mcp_file
from app.mcp.idle import STARTER_ENV, Starter, client_header, pid_alive
from plumbing import loggers
from plumbing.datadir import DataDir

log = logging.getLogger(loggers.MCP)

APP_START_TIMEOUT = 90.0   # a cold start on a busy 2-core machine takes a few seconds; leave room
FORWARD_WAIT = 20.0        # an app that holds the lock but is still starting its server
POLL = 0.01        # how often a starting app is looked for (reading mcp.json and one connect: cheap)


class EndpointUnavailable(RuntimeError):
    """The app's MCP endpoint cannot be reached; the message says why and what to do."""


@dataclass(frozen=True)
class Endpoint:
    url: str
    token: str
    pid: int
    quick_port: int | None = None  # set: the bridge endpoint (`app.mcp.quick`) rather than streamable HTTP


def _lock_pid(data: DataDir) -> int | None:
    try:
        text = data.lock_file.read_text("utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def running_pid(data: DataDir) -> int | None:
    """The pid of the app holding this data folder's instance lock, or None when no app runs.

    Probes with a shared lock and writes nothing, so the probe never changes who the lock file names.
    """
    try:
        handle = open(data.lock_file, "a+", encoding="utf-8")
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _lock_pid(data) or -1
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return None


def _port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def mcp_switched_off(data: DataDir) -> bool:
    """The person switched the MCP server off in the settings (read without touching settings.json)."""
    try:
        settings = json.loads(data.settings_json.read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(settings, dict) and settings.get("mcpEnabled") is False


def live_endpoint(data: DataDir, quick: bool = False) -> Endpoint | None:
    """The endpoint when `mcp.json` names the server of the app that holds the lock and its port answers.
    `quick`: the app's bridge endpoint (up first), else its streamable HTTP server."""
    content: McpFile | None = read_mcp_file(data)
    if quick:
        if content is None or content.quick_port is None or content.quick_pid is None:
            return None
        if content.quick_pid != _lock_pid(data) or not pid_alive(content.quick_pid):
            return None
        if not _port_answers(content.quick_port):
            return None
        return Endpoint(f"tcp://127.0.0.1:{content.quick_port}", content.token, content.quick_pid,
                        content.quick_port)
    if content is None or content.url is None or content.pid is None or content.port is None:
        return None
    if content.pid != _lock_pid(data) or not pid_alive(content.pid):
        return None
    if not _port_answers(content.port):
        return None
    return Endpoint(content.url, content.token, content.pid)


def wait_for_endpoint(data: DataDir, timeout: float = FORWARD_WAIT, child: subprocess.Popen[bytes] | None = None,
                      quick: bool = False) -> Endpoint:
    """Wait until the running app's MCP server (`quick`: its bridge endpoint, or its MCP server when that app
    has no bridge endpoint: an older version) answers; raise `EndpointUnavailable` with the reason."""
    deadline = time.monotonic() + timeout
    while True:
        endpoint = live_endpoint(data, quick) or (live_endpoint(data) if quick else None)
        if endpoint is not None:
            return endpoint
        pid = running_pid(data)
        if pid is not None and mcp_switched_off(data):
            raise EndpointUnavailable(
                f"BrowserPilot is already running on the data folder {data.root} (pid {pid}) with its MCP server "
                "switched off, so commands cannot reach it; switch it on in File → Settings, or quit the app")
        if child is not None and child.poll() is not None and pid is None:
            raise EndpointUnavailable(
                f"the app started for the MCP bridge exited with status {child.returncode}; see "
                f"{data.logs / 'browserpilot.log'}")
        if time.monotonic() > deadline:
            if pid is None:
                raise EndpointUnavailable(f"BrowserPilot is not running on the data folder {data.root}")
            raise EndpointUnavailable(
                f"BrowserPilot is already running on the data folder {data.root} (pid {pid}) but its MCP server "
                f"did not answer within {timeout:g} s; see {data.logs / 'browserpilot.log'}")
        time.sleep(POLL)


def app_command() -> list[str]:
    """How to start this installation's app."""
    script = Path(sys.executable).with_name("browserpilot")
    return [str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]


def start_app_headless(data: DataDir) -> subprocess.Popen[bytes]:
    """`browserpilot --headless --data-dir …` as a detached process that outlives its starter."""
    log.info("starting the app headless on %s", data.root)
    env = {**os.environ, STARTER_ENV: Starter.of_this_process().to_env()}
    return subprocess.Popen([*app_command(), "--headless", "--data-dir", str(data.root)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True, env=env)


def start_app_if_needed(data: DataDir) -> subprocess.Popen[bytes] | None:
    """Start the app headless when none runs on this data folder; the started process, else None."""
    if running_pid(data) is not None:  # an app holds the data folder (asked without touching its ports)
        return None
    return start_app_headless(data)


def ensure_app(data: DataDir, timeout: float = APP_START_TIMEOUT,
               started: subprocess.Popen[bytes] | None = None, quick: bool = False) -> Endpoint:
    """The running app's endpoint (`quick`: its bridge endpoint), starting the app headless first when none
    runs on this data folder.

    `started` is an app this process already started (and that may not hold the lock yet): it is waited for
    rather than started a second time.
    """
    endpoint = live_endpoint(data, quick) or (live_endpoint(data) if quick else None)
    if endpoint is not None:
        return endpoint
    child = started if started is not None and started.poll() is None else None
    if child is None and running_pid(data) is None:
        child = start_app_headless(data)
    return wait_for_endpoint(data, timeout, child, quick)


@asynccontextmanager
async def connect(endpoint: Endpoint, *, read_timeout: float = 660.0, role: str = "cli") -> AsyncIterator[Any]:
    """An initialised `mcp.Client` on the endpoint, with the bearer token on every request. `role`: "bridge"
    (a stdio bridge: the app counts it as a client that keeps it running) or "cli" (a one-off command)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types.version import LATEST_PROTOCOL_VERSION

    # trust_env=False: a proxy from the environment must never see loopback traffic or the token.
    # verify=False: the endpoint is plain http on loopback, and building the unused TLS context costs ~50 ms.
    headers = {"Authorization": f"Bearer {endpoint.token}", **client_header(role)}
    async with httpx2.AsyncClient(headers=headers, trust_env=False,
                                  verify=False, timeout=httpx2.Timeout(30.0, read=read_timeout)) as http:
        # Both ends are this installation's SDK: adopt its protocol version directly (no discovery round
        # trip); every request then stands alone, with no session to keep alive.
        async with Client(streamable_http_client(endpoint.url, http_client=http), mode=LATEST_PROTOCOL_VERSION,
                          cache=None) as client:
            yield client


class QuickClient:
    """`list_tools` and `call_tool` over the app's bridge endpoint, answering the SDK's own result models (so
    the bridge treats it like an `mcp.Client`). Each request is a connection of its own: calls may overlap."""

    def __init__(self, endpoint: Endpoint, role: str) -> None:
        assert endpoint.quick_port is not None
        self.endpoint = endpoint
        self._sender = next(iter(client_header(role).values()))

    def _message(self, method: str, **fields: Any) -> dict[str, Any]:
        return {"token": self.endpoint.token, "client": self._sender, "method": method, **fields}

    async def list_tools(self) -> Any:
        import mcp_types as types

        return types.ListToolsResult.model_validate(await self.list_json())

    async def list_json(self, **selection: Any) -> dict[str, Any]:
        """The `ListToolsResult` as the JSON dict it travels as (no SDK needed); `selection`: the session's
        `tools` profile and `enabled` groups (default: the core profile)."""
        from app.mcp.quick import request

        assert self.endpoint.quick_port is not None
        return await request(self.endpoint.quick_port, self._message("tools/list", **selection), timeout=30.0)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        import mcp_types as types

        return types.CallToolResult.model_validate(await self.call_json(name, arguments))

    async def call_json(self, name: str, arguments: dict[str, Any], **selection: Any) -> dict[str, Any]:
        """The `CallToolResult` as the JSON dict it travels as (no SDK needed)."""
        from app.mcp.quick import request

        assert self.endpoint.quick_port is not None
        return await request(self.endpoint.quick_port, self._message("tools/call", name=name, arguments=arguments,
                                                                     **selection))


@asynccontextmanager
async def connect_quick(endpoint: Endpoint, *, role: str = "bridge") -> AsyncIterator[QuickClient]:
    """A `QuickClient` on the endpoint (nothing to open or close: a context for symmetry with `connect`)."""
    yield QuickClient(endpoint, role)


def envelope_of(result: Any) -> dict[str, Any]:
    """The operation's envelope from a tool result (structured content, else the JSON text)."""
    if isinstance(result, dict):  # a result as JSON, from the bridge endpoint
        structured = result.get("structuredContent")
        return structured if isinstance(structured, dict) else {"ok": False, "control": None,
                                                                "error": "the app answered without a result"}
    structured = getattr(result, "structured_content", None)
    if isinstance(structured, dict):
        return structured
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            try:
                parsed = json.loads(text)
            except ValueError:
                return {"ok": False, "control": None, "error": text}
            if isinstance(parsed, dict):
                return parsed
    return {"ok": False, "control": None, "error": "the app answered without a result"}


async def call_operation(endpoint: Endpoint, name: str, params: dict[str, Any]) -> dict[str, Any]:
    async with connect(endpoint) as client:
        return envelope_of(await client.call_tool(name, params))


def forward_operation(data: DataDir, name: str, params: dict[str, Any], timeout: float = FORWARD_WAIT
                      ) -> dict[str, Any]:
    """Run one operation in the app that holds this data folder, through its bridge endpoint when it is up
    (no SDK to import), else its MCP endpoint."""
    endpoint = wait_for_endpoint(data, timeout, quick=True)
    log.info("forwarding %s to the running app (pid %d)", name, endpoint.pid)
    try:
        if endpoint.quick_port is not None:
            return envelope_of(asyncio.run(QuickClient(endpoint, "cli").call_json(name, params)))
        return asyncio.run(call_operation(endpoint, name, params))
    except Exception as exc:  # transport failures arrive wrapped in exception groups; say what happened
        raise EndpointUnavailable(f"the running app's MCP endpoint {endpoint.url} failed: {reason(exc)}") from exc


def reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
