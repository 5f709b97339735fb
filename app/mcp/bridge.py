"""`browserpilot mcp`: a stdio MCP server for clients that only speak stdio (Claude Desktop, for one).

It owns no browser. Every `tools/list` and `tools/call` is forwarded to the app running on the same data
folder, through that app's private bridge endpoint (`app.mcp.quick`: one JSON line each way, the same tool
listing, calls and results as its streamable HTTP server, but up before the app has loaded the MCP SDK) with
the token from `mcp.json`; when no app runs, the
bridge starts one headless (detached: it stays up after the bridge ends, with its logins, until no bridge has
used it for the idle timeout: `app.mcp.idle`; each request names this bridge's pid) and waits until
`mcp.json`'s URL answers. One client session is reused across requests (the tool listing is fetched once
per session, not per call) and replaced when `mcp.json` names another app, port or token, or when a request
fails, so a bridge outlives app restarts and token regenerations. A call that fails mid-way is reported, never
repeated (it may have acted). Nothing but protocol goes to stdout.

The MCP protocol (every version the SDK supports) is spoken on stdio only, by the SDK's own server; towards
the app, the bridge endpoint has no sessions that could expire and needs no version probe.
"""

from __future__ import annotations

import json
import logging
import subprocess
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from app import __version__
from app.mcp.client import (APP_START_TIMEOUT, Endpoint, EndpointUnavailable, connect, connect_quick, ensure_app,
                            reason)
from app.mcp.config import SERVER_INSTRUCTIONS, SERVER_NAME, read_mcp_file
from envs.datadir import DataDir

log = logging.getLogger("browserpilot.mcp")


@dataclass
class _Connection:
    endpoint: Endpoint
    client: Any
    closed: anyio.Event = field(default_factory=anyio.Event)


@dataclass
class _Request:
    done: anyio.Event = field(default_factory=anyio.Event)
    connection: _Connection | None = None
    error: BaseException | None = None


class RemoteApp:
    """One client session to the running app, reused across requests and replaced when `mcp.json` changes
    (a restarted app, a new token) or a request fails. A keeper task opens and closes each session (anyio
    wants a context entered and left in one task); request handlers only use it. The first connection is
    made at start-up, so the app boots while the MCP client initialises."""

    def __init__(self, data: DataDir, started: subprocess.Popen[bytes] | None = None) -> None:
        self.data = data
        self._started = started
        self._lock = anyio.Lock()
        self._connection: _Connection | None = None
        self._requests, self._incoming = anyio.create_memory_object_stream[_Request](4)

    async def keeper(self) -> None:
        async with self._incoming:
            async for request in self._incoming:
                try:
                    endpoint = await anyio.to_thread.run_sync(ensure_app, self.data, APP_START_TIMEOUT,
                                                              self._started, True)
                    # An app of an older version has no bridge endpoint: its MCP server then.
                    opened = connect_quick if endpoint.quick_port is not None else connect
                    async with opened(endpoint, role="bridge") as client:
                        request.connection = _Connection(endpoint, client)
                        log.info("bridge connected to %s (pid %d)", endpoint.url, endpoint.pid)
                        request.done.set()
                        await request.connection.closed.wait()
                except Exception as exc:  # noqa: BLE001 - handed to the waiting request
                    log.warning("bridge could not reach the app: %s", reason(exc))
                    request.error = exc
                finally:
                    request.done.set()

    def _still_current(self, connection: _Connection) -> bool:
        """The app and token the session was opened with are still the ones in `mcp.json`."""
        if connection.closed.is_set():
            return False
        content = read_mcp_file(self.data)
        endpoint = connection.endpoint
        if content is None or content.token != endpoint.token:
            return False
        if endpoint.quick_port is None:
            return content.url == endpoint.url and content.pid == endpoint.pid
        return content.quick_port == endpoint.quick_port and content.quick_pid == endpoint.pid

    async def client(self) -> Any:
        async with self._lock:
            connection = self._connection
            if connection is not None and self._still_current(connection):
                return connection.client
            if connection is not None:
                connection.closed.set()
                self._connection = None
            request = _Request()
            await self._requests.send(request)
            await request.done.wait()
            if request.connection is None:
                failure = request.error
                raise EndpointUnavailable(str(failure) if isinstance(failure, EndpointUnavailable) else
                                          reason(failure or RuntimeError("no connection")))
            self._connection = request.connection
            return request.connection.client

    def drop(self, client: Any) -> None:
        """Forget a session that failed; the next request opens a new one."""
        connection = self._connection
        if connection is not None and connection.client is client:
            connection.closed.set()
            self._connection = None

    async def warm_up(self) -> None:
        try:
            await self.client()
        except EndpointUnavailable as exc:
            log.warning("bridge: %s", exc)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.closed.set()
        self._requests.close()


def build_bridge(remote: RemoteApp) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        for attempt in (1, 2):
            client = None
            try:
                client = await remote.client()
                listing = await client.list_tools()
                return types.ListToolsResult(tools=listing.tools)
            except MCPError:
                raise
            except Exception as exc:  # noqa: BLE001 - listing is safe to repeat once on a new session
                remote.drop(client)
                if attempt == 2:
                    raise MCPError(code=types.INTERNAL_ERROR, message=f"BrowserPilot is not reachable: {exc}")
        raise AssertionError("unreachable")

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            client = await remote.client()
        except EndpointUnavailable as exc:
            return _error(f"BrowserPilot is not reachable: {exc}")
        try:
            result = await client.call_tool(params.name, dict(params.arguments or {}))
        except MCPError:
            raise
        except Exception as exc:  # noqa: BLE001 - the app went away mid-call: never repeat an action
            remote.drop(client)
            return _error(f"the connection to BrowserPilot was lost during {params.name} ({reason(exc)}); it may "
                          "or may not have run. The next call reconnects, starting the app if needed.")
        return types.CallToolResult(content=result.content, structured_content=result.structured_content,
                                    is_error=result.is_error)

    @asynccontextmanager
    async def lifespan(_server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(remote.keeper)
            tasks.start_soon(remote.warm_up)
            try:
                yield {}
            finally:
                remote.close()
                tasks.cancel_scope.cancel()

    return Server(SERVER_NAME, version=__version__, title="BrowserPilot", instructions=SERVER_INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool, lifespan=lifespan)


def _error(message: str) -> types.CallToolResult:
    envelope = {"ok": False, "control": None, "error": message}
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(envelope))],
                                structured_content=envelope, is_error=True)


async def serve_stdio(data: DataDir, started: subprocess.Popen[bytes] | None = None) -> None:
    server = build_bridge(RemoteApp(data, started))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_bridge(data: DataDir, started: subprocess.Popen[bytes] | None = None) -> int:
    """Serve MCP on stdin/stdout until the client closes it. `started`: the app the caller already started."""
    log.info("stdio bridge started for %s", data.root)
    try:
        anyio.run(serve_stdio, data, started)
    except KeyboardInterrupt:
        pass
    log.info("stdio bridge ended")
    return 0
