"""`browserpilot mcp`: a stdio MCP server for clients that only speak stdio (Claude Desktop, for one).

It owns no browser. Every `tools/list` and `tools/call` is forwarded to the app running on the same data
folder, through that app's private bridge endpoint (`app.mcp.quick`: one JSON line each way, the same tool
listing, calls and results as its streamable HTTP server, but up before the app has loaded the MCP SDK) with
the token from `mcp.json`; when no app runs, the bridge starts one headless (detached: it stays up after the
bridge ends, with its logins, until no bridge has used it for the idle timeout: `app.mcp.idle`; each request
names this bridge's pid) and waits until `mcp.json`'s endpoint answers. One connection is reused across
requests and replaced when `mcp.json` names another app, port or token, or when a request fails, so a bridge
outlives app restarts and token regenerations. A call that fails mid-way is reported, never repeated (it may
have acted). Nothing but protocol goes to stdout.

MCP on stdio is spoken by `StdioRelay`: plain JSON-RPC over lines, with no SDK, in the era the client's first
request opens:

- a client that begins with `initialize` (every protocol version up to 2025-11-25, which is every client in
  use) gets the handshake era: the same negotiation as the SDK's server (`HANDSHAKE_VERSIONS`, the latest for
  an unknown version), capabilities, server info and instructions, the same errors, and results in the
  2025-11-25 shape the SDK serves to every handshake version;
- a client of the 2026-07-28 protocol (no `initialize`: a `server/discover`, or a request carrying the version
  in `_meta`) gets that era: each request's envelope checked, results with `resultType`, cache hints and the
  server's identity.

The bridge is one client session, so it keeps that session's tools: its `--tools` profile (app/catalog/profiles.py)
and the groups `tools_enable` turned on, sent with each request; when a `tools_enable` call added tools, a
handshake-era client is sent `notifications/tools/list_changed` right after its answer (the 2026-07-28 era
delivers change notifications only to a `subscriptions/listen` stream, which the bridge does not serve: such a
client sees the new tools at its next `tools/list`). An app of an older version, reached over its MCP server
because it has no bridge endpoint, knows no profiles: it lists what it lists.

tests/unit/app/mcp/test_mcp_relay.py holds the relay to the SDK's own server, answer by answer. The bridge's own
work is a JSON relay, so it starts in ~0.1 s instead of the ~1.2 s of CPU the SDK takes to import (pydantic
building the protocol types), which on a 2-core machine competed with the app it had just started.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

import anyio
import anyio.abc

from app import __version__
from app.mcp.client import (APP_START_TIMEOUT, Endpoint, EndpointUnavailable, QuickClient, connect, connect_quick,
                            ensure_app, reason)
from app.catalog.conventions import SERVER_INSTRUCTIONS
from app.mcp.config import SERVER_NAME, read_mcp_file
from app.catalog.profiles import TOOLS_ENABLE, ToolSelection, parse_profile
from plumbing import loggers
from plumbing.datadir import DataDir

log = logging.getLogger(loggers.MCP)

# The handshake-era protocol versions the SDK negotiates (`mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS`;
# tests/unit/app/mcp/test_mcp_relay.py checks that they are still the SDK's).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# The 2026-07-28 protocol: no handshake, every request carries its envelope in `params._meta`
# (`mcp_types.version.MODERN_PROTOCOL_VERSIONS`, `mcp.shared.inbound`).
MODERN_VERSIONS = ("2026-07-28",)
MODERN_VERSION_META = "io.modelcontextprotocol/protocolVersion"
MODERN_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
UNSUPPORTED_PROTOCOL_VERSION = -32022
CACHEABLE = ("server/discover", "tools/list")  # answered with the SDK's default hint: stale at once, private

INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32600, -32601, -32602, -32603


class RpcError(Exception):
    """A JSON-RPC error answer: code, message and data as the SDK sends them."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


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
    made at start-up, so the app boots while the MCP client initialises.

    `tool_listing` and `tool_call` are the bridge's two forwards, as the JSON dicts they travel as; both ways
    of speaking MCP use them."""

    def __init__(self, data: DataDir, started: subprocess.Popen[bytes] | None = None,
                 tools: str | None = None) -> None:
        self.data = data
        self._started = started
        self.selection = ToolSelection(parse_profile(tools))  # this session's tools (ProfileError: --tools)
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

    # -- the two forwards --------------------------------------------------------------------------------
    async def tool_listing(self) -> dict[str, Any]:
        """`tools/list`'s result; safe to repeat once on a new session. Raises RpcError."""
        for attempt in (1, 2):
            client = None
            try:
                client = await self.client()
                if isinstance(client, QuickClient):
                    return await client.list_json(**self._selection())
                listing = await client.list_tools()
                return {"tools": [tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                                  for tool in listing.tools]}
            except Exception as exc:  # noqa: BLE001 - the SDK's own errors pass through as they are
                if _is_mcp_error(exc):
                    raise RpcError(exc.code, exc.message, exc.data) from exc  # type: ignore[attr-defined]
                self.drop(client)
                if attempt == 2:
                    raise RpcError(INTERNAL_ERROR, f"BrowserPilot is not reachable: {exc}") from exc
        raise AssertionError("unreachable")

    async def tool_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """`tools/call`'s result (a tool error when the app cannot be reached or went away mid-call: a call
        is never repeated, it may have acted). Raises RpcError for the SDK's protocol errors."""
        try:
            client = await self.client()
        except EndpointUnavailable as exc:
            return tool_error(f"BrowserPilot is not reachable: {exc}")
        try:
            if isinstance(client, QuickClient):
                result = await client.call_json(name, arguments, **self._selection())
                if name == TOOLS_ENABLE:
                    self._take_enabled(result)
                return result
            result = await client.call_tool(name, arguments)
            return result.model_dump(by_alias=True, mode="json", exclude_none=True)  # type: ignore[no-any-return]
        except Exception as exc:  # noqa: BLE001 - the app went away mid-call: never repeat an action
            if _is_mcp_error(exc):
                raise RpcError(exc.code, exc.message, exc.data) from exc  # type: ignore[attr-defined]
            self.drop(client)
            return tool_error(f"the connection to BrowserPilot was lost during {name} ({reason(exc)}); it may "
                              "or may not have run. The next call reconnects, starting the app if needed.")


    def _selection(self) -> dict[str, Any]:
        """The session's tool selection, as the bridge endpoint takes it with each request."""
        return {"tools": self.selection.profile.text, "enabled": sorted(self.selection.enabled)}

    def _take_enabled(self, result: dict[str, Any]) -> None:
        """After tools_enable: the groups the app says are on now."""
        envelope = result.get("structuredContent")
        if isinstance(envelope, dict) and envelope.get("ok") and isinstance(envelope.get("enabled"), list):
            self.selection.enabled = {str(group) for group in envelope["enabled"]}


def list_changed(result: dict[str, Any]) -> bool:
    """A tools_enable result that added tools to the session's list."""
    envelope = result.get("structuredContent")
    return isinstance(envelope, dict) and bool(envelope.get("ok")) and bool(envelope.get("listChanged"))


def _is_mcp_error(exc: BaseException) -> bool:
    """An `mcp.shared.exceptions.MCPError` (only an SDK session raises one; its module is loaded by then)."""
    errors = sys.modules.get("mcp.shared.exceptions")
    return errors is not None and isinstance(exc, errors.MCPError)


def tool_error(message: str) -> dict[str, Any]:
    envelope = {"ok": False, "control": None, "error": message}
    return {"content": [{"type": "text", "text": json.dumps(envelope)}], "structuredContent": envelope,
            "isError": True}


SERVER_INFO = {"name": SERVER_NAME, "title": "BrowserPilot", "version": __version__}


def initialize_result(requested: Any) -> dict[str, Any]:
    """The answer to `initialize`: the client's version when it is one we speak, else the latest."""
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {"capabilities": {"tools": {"listChanged": True}}, "instructions": SERVER_INSTRUCTIONS,
            "protocolVersion": version, "serverInfo": dict(SERVER_INFO)}


def is_initialize_params(params: Any) -> bool:
    """`initialize`'s required parameters are there: a version string, the client's capabilities and its name
    and version."""
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
        return False
    info = params.get("clientInfo")
    return (isinstance(params.get("capabilities"), dict) and isinstance(info, dict)
            and isinstance(info.get("name"), str) and isinstance(info.get("version"), str))


def discover_result() -> dict[str, Any]:
    """The answer to a 2026-07-28 `server/discover`."""
    return {"capabilities": {"tools": {"listChanged": False}}, "instructions": SERVER_INSTRUCTIONS,
            "supportedVersions": list(MODERN_VERSIONS)}


def modern_envelope_problem(params: Any) -> RpcError | None:
    """What is wrong with a 2026-07-28 request's envelope (`params._meta`), as the SDK says it; None when
    nothing is."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return RpcError(INVALID_PARAMS, "params._meta must be an object carrying the required "
                                        f"{MODERN_VERSION_META!r} and {MODERN_CAPABILITIES_META!r} envelope keys")
    missing = [key for key in (MODERN_VERSION_META, MODERN_CAPABILITIES_META) if key not in meta]
    if missing:
        return RpcError(INVALID_PARAMS,
                        f"params._meta is missing the required envelope key(s): {', '.join(missing)}")
    version = meta[MODERN_VERSION_META]
    if not isinstance(version, str):
        return RpcError(INVALID_PARAMS, "the protocol-version envelope value must be a string")
    if version not in MODERN_VERSIONS:
        return RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                        {"supported": list(MODERN_VERSIONS), "requested": version})
    return None


def modern_result(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """A result as the 2026-07-28 protocol sends it: cache hints first, `resultType`, the server's identity."""
    shaped = {"ttlMs": 0, "cacheScope": "private", **result} if method in CACHEABLE else dict(result)
    shaped.setdefault("resultType", "complete")
    meta = shaped.get("_meta")
    shaped["_meta"] = {**(meta if isinstance(meta, dict) else {}), SERVER_INFO_META: dict(SERVER_INFO)}
    return shaped


def has_modern_envelope(params: Any) -> bool:
    """The request carries the 2026-07-28 envelope (its version key in `params._meta`)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and MODERN_VERSION_META in meta


# -- the relay: MCP as plain JSON-RPC lines ------------------------------------------------------------------
class StdioRelay:
    """Answers one stdio session's JSON-RPC messages, in the protocol era its first request opens (as the
    SDK's dual-era server decides it: a request other than `initialize` that carries the 2026-07-28
    envelope opens a modern session, anything else a handshake one; a later request of the other era is
    refused).

    - Handshake era: `initialize` (answered in order, before what follows it; tool requests before it are
      refused, as the SDK refuses them), `ping`, `tools/list`, `tools/call`.
    - Modern era: `server/discover`, `tools/list`, `tools/call`, each request's envelope checked.

    Tool requests run in tasks of their own, so calls overlap; `notifications/cancelled` stops one, which then
    gets no answer. A request that is not JSON-RPC 2.0 is answered -32600 (the SDK drops it). `write` sends
    one encoded line."""

    def __init__(self, remote: RemoteApp, write: Callable[[bytes], None]) -> None:
        self.remote = remote
        self._write = write
        self._running: dict[Any, anyio.CancelScope] = {}
        self.modern: bool | None = None  # the session's era, once its first request has set it
        self.initialized = False  # a handshake session answers tool requests only after `initialize`

    def send(self, message: dict[str, Any]) -> None:
        self._write(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")

    def answer(self, request_id: Any, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def answer_error(self, request_id: Any, error: RpcError) -> None:
        body: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.data is not None:
            body["data"] = error.data
        self.send({"jsonrpc": "2.0", "id": request_id, "error": body})

    def parse(self, line: bytes) -> dict[str, Any] | None:
        """A message to act on, or None (a blank line, a response to nothing we asked, or a malformed message,
        which is answered when it has an id and otherwise only logged, as the SDK does)."""
        if not line.strip():
            return None
        try:
            message = json.loads(line)
        except ValueError:
            log.warning("bridge: a line on stdin is not JSON: %.200r", line)
            return None
        if not isinstance(message, dict):
            log.warning("bridge: a message on stdin is not a JSON object: %.200r", line)
            return None
        if "method" not in message:
            return None  # a response: the bridge sends no requests
        if message.get("jsonrpc") != "2.0" or not isinstance(message["method"], str):
            if "id" in message:
                self.answer_error(message["id"], RpcError(INVALID_REQUEST, "Invalid request"))
            else:
                log.warning("bridge: an invalid notification on stdin: %.200r", line)
            return None
        return message

    def take(self, message: dict[str, Any], tasks: anyio.abc.TaskGroup) -> None:
        """Act on one parsed message: answer it now, or start the task that will."""
        method, params = message["method"], message.get("params")
        if "id" not in message:
            if method == "notifications/cancelled" and isinstance(params, dict):
                scope = self._running.pop(params.get("requestId"), None)
                if scope is not None:
                    scope.cancel()
            return  # initialized, progress, roots changed…: nothing to do
        request_id = message["id"]
        if self.modern is None:
            self.modern = method != "initialize" and has_modern_envelope(params)
        try:
            if self.modern:
                self._take_modern(request_id, method, params, tasks)
            else:
                self._take_handshake(request_id, method, params, tasks)
        except RpcError as exc:
            self.answer_error(request_id, exc)

    def _take_handshake(self, request_id: Any, method: str, params: Any, tasks: anyio.abc.TaskGroup) -> None:
        if has_modern_envelope(params):
            raise RpcError(INVALID_REQUEST, "this connection serves the handshake protocol era; requests carrying "
                                            "the 2026-07-28 envelope are not accepted on it")
        if method == "initialize":
            if not is_initialize_params(params):
                raise RpcError(INVALID_PARAMS, "Invalid request parameters", "")
            self.answer(request_id, initialize_result(params["protocolVersion"]))
            self.initialized = True
        elif method == "ping":
            self.answer(request_id, {})
        elif not self.initialized:
            raise RpcError(INVALID_PARAMS, "Invalid request parameters", "")  # the SDK's answer before initialize
        elif method in ("tools/list", "tools/call"):
            self._start(request_id, method, params, tasks)
        else:
            raise RpcError(METHOD_NOT_FOUND, "Method not found", method)

    def _take_modern(self, request_id: Any, method: str, params: Any, tasks: anyio.abc.TaskGroup) -> None:
        if method == "initialize":
            requested = params.get("protocolVersion") if isinstance(params, dict) else None
            data: dict[str, Any] = {"supported": list(MODERN_VERSIONS)}
            if isinstance(requested, str):
                data["requested"] = requested
            raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, "connection is serving the 2026-07-28 protocol; the "
                                                         "initialize handshake is not accepted", data)
        problem = modern_envelope_problem(params)
        if problem is not None:
            raise problem
        if method == "server/discover":
            self.answer(request_id, modern_result(method, discover_result()))
        elif method in ("tools/list", "tools/call"):
            self._start(request_id, method, params, tasks)
        else:
            raise RpcError(METHOD_NOT_FOUND, "Method not found", method)

    def _start(self, request_id: Any, method: str, params: Any, tasks: anyio.abc.TaskGroup) -> None:
        scope = anyio.CancelScope()
        self._running[request_id] = scope
        tasks.start_soon(self._forward, request_id, method, params, scope)

    async def _forward(self, request_id: Any, method: str, params: Any, scope: anyio.CancelScope) -> None:
        with scope:
            try:
                if method == "tools/list":
                    result = await self.remote.tool_listing()
                else:
                    name = params.get("name") if isinstance(params, dict) else None
                    arguments = params.get("arguments") if isinstance(params, dict) else None
                    if not isinstance(name, str) or not isinstance(arguments, (dict, type(None))):
                        raise RpcError(INVALID_PARAMS, "Invalid request parameters", "")
                    result = await self.remote.tool_call(name, arguments or {})
            except RpcError as exc:
                self._running.pop(request_id, None)
                self.answer_error(request_id, exc)
                return
            self._running.pop(request_id, None)
            self.answer(request_id, modern_result(method, result) if self.modern else result)
            if method == "tools/call" and not self.modern and list_changed(result):
                self.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        if scope.cancel_called:
            log.info("bridge: request %r was cancelled by the client", request_id)


# -- the wire ------------------------------------------------------------------------------------------------
class _Wire:
    """stdin and stdout as private descriptors, with fd 0 on /dev/null and fd 1 on stderr meanwhile, so nothing
    this process or a child prints can reach the protocol stream (as the SDK's stdio transport does)."""

    def __init__(self) -> None:
        self._in = os.fdopen(os.dup(0), "rb")  # buffered: a line of megabytes is read in large chunks
        self._out = os.fdopen(os.dup(1), "wb", buffering=0)
        self._write_lock = threading.Lock()
        self._client_gone = False
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)

    def write(self, data: bytes) -> None:
        """Send one line; once the client has closed its end, answers are dropped (its stdin ends next)."""
        with self._write_lock:
            if self._client_gone:
                return
            view = memoryview(data)
            try:
                while view:
                    written = self._out.write(view)
                    view = view[written or 0:]
            except OSError as exc:  # the client closed the pipe (it quit or was killed)
                self._client_gone = True
                log.info("bridge: the client stopped reading (%s); answers are dropped", exc)

    async def lines(self) -> AsyncIterator[bytes]:
        """stdin's lines until it closes, read on a thread (stdin may be a pipe, a file or a socket)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        reader = self._in

        def read_all() -> None:
            try:
                for line in iter(reader.readline, b""):
                    loop.call_soon_threadsafe(queue.put_nowait, line)
            except (OSError, ValueError):
                pass
            finally:
                try:
                    loop.call_soon_threadsafe(queue.put_nowait, None)
                except RuntimeError:  # the bridge has ended meanwhile
                    pass

        threading.Thread(target=read_all, name="browserpilot-bridge-stdin", daemon=True).start()
        while (line := await queue.get()) is not None:
            yield line


async def serve_stdio(data: DataDir, started: subprocess.Popen[bytes] | None = None, tools: str | None = None) -> None:
    wire = _Wire()
    remote = RemoteApp(data, started, tools)
    relay = StdioRelay(remote, wire.write)
    lines = wire.lines()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(remote.keeper)
        tasks.start_soon(remote.warm_up)
        async for line in lines:
            message = relay.parse(line)
            if message is not None:
                relay.take(message, tasks)
        remote.close()  # stdin closed: the client has gone, and what it still asked for with it
        tasks.cancel_scope.cancel()


def run_bridge(data: DataDir, started: subprocess.Popen[bytes] | None = None, tools: str | None = None) -> int:
    """Serve MCP on stdin/stdout until the client closes it. `started`: the app the caller already started;
    `tools`: the session's tool profile (checked by the caller: `parse_profile`)."""
    log.info("stdio bridge started for %s (tools: %s)", data.root, tools or "core")
    try:
        anyio.run(serve_stdio, data, started, tools)
    except KeyboardInterrupt:
        pass
    log.info("stdio bridge ended")
    return 0
