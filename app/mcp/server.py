"""The MCP server inside the app: streamable HTTP on 127.0.0.1, its own thread, calls run on the Qt loop.

```
client --HTTP--> guard (Host/Origin: 403, bearer token: 401) --> mcp streamable HTTP (server thread, asyncio)
            --> run_coroutine_threadsafe(registry.call(ctx, name, args), main loop) --> envelope --> result
```

- One listening socket on 127.0.0.1 only: the default port (39221), or the next free one; a port set in the
  settings comes first, then the previous run's port (so pasted client configurations keep working).
- The token lives in `mcp.json` (see `app.mcp.config`); the guard re-reads the file whenever it changes, so
  `browserpilot mcp token --regenerate` takes effect at once and the old token stops working.
- Tools are the registry's operations (`app.catalog.tools.ToolCatalog`), listed afresh on every `tools/list`:
  those of the client's profile (`?tools=core|full|original|group,…`, app/catalog/profiles.py; a profile naming
  something unknown is refused with 400 by the guard) and the groups its session turned on with
  `tools_enable`, after which the session is sent `notifications/tools/list_changed` (on its standalone GET
  stream). A 2026-07-28 client has no session: its list is always its address's profile (tools_enable says so).
- Each call is handed to the app's main (Qt + asyncio) loop and awaited a little longer than the operation's
  own timeout; concurrent calls simply become concurrent tasks there.
- Beside it, on a second loopback port, the private endpoint of the stdio bridge (`app.mcp.quick`): it needs
  no SDK, so it is up at once. Both ports listen from `start()` on, and `mcp.json` names them together.
- The SDK and uvicorn (about 1.5 s of CPU to import, and ~30 MB that stay in the process) are loaded only when
  the first client connects to the HTTP port: until then that connection waits in the socket's backlog, and is
  answered once they have loaded. The stdio bridge and the command line talk to the bridge endpoint, so an
  app that only they use never loads them.

We use the SDK's low-level `mcp.server.Server` (same package, same transport) rather than `MCPServer`:
`MCPServer` builds each tool's schema and argument model from a Python function signature, which would be a
second definition of every parameter model, and it silently drops argument names the signature does not know
(checked with mcp 2.3.0: `{"name": "a", "colour": "red"}` reaches the function as `name="a"`), so the registry
could never refuse them with the list of valid ones. The low-level server takes our schemas and arguments as
they are; the streamable HTTP transport, sessions and protocol versions are the SDK's own.

Each tool call is answered as one `application/json` response (`json_response=True`) rather than a one-event
SSE stream: the server sends nothing else while a tool runs (no progress, logging or sampling), and the SSE
framing cost 1-2 ms per call on the server (an `app_status` round trip 3.4-4.9 ms with it, 2.3-3.0 ms without,
measured over a raw keep-alive connection). Streamable HTTP clients accept both kinds of answer (the spec
requires it); the standalone GET stream for server notifications is unchanged.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import select
import socket
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import parse_qs, urlsplit

from app import __version__
from app.mcp.config import (
    DEFAULT_PORT,
    MCP_PATH,
    SERVER_NAME,
    endpoint_url,
    load_or_create,
    mcp_json,
    read_mcp_file,
    regenerate_token,
    update_mcp_file,
)
from app.mcp.idle import CLIENT_HEADER, BridgeClients
from app.catalog.profiles import TOOLS_ENABLE, ProfileError, ToolSelection, parse_profile
from app.mcp.quick import QuickServer
from app.catalog.tools import SERVER_INSTRUCTIONS, ToolCatalog, call_timeout, tool_result
from app.ops import OpContext, OperationRegistry, failure
from plumbing import loggers
from plumbing.datadir import DataDir

if TYPE_CHECKING:
    from mcp_types import CallToolResult

log = logging.getLogger(loggers.MCP)

PORT_ATTEMPTS = 50
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
START_TIMEOUT = 15.0
QUICK_WAIT = 2.0  # at most this long (seconds) the HTTP endpoint waits for the bridge endpoint to listen or fail
MAX_SESSIONS = 512  # tool selections kept (one per MCP session that turned groups on), the oldest dropped first
NO_SESSION_NOTE = ("this client speaks MCP without sessions (2026-07-28): its list stays what its address says; "
                   "the added tools can be called all the same, or connect with ?tools={profile}")


class McpStartError(RuntimeError):
    """The server could not start (no free port, the SDK failed); the message says why."""


# -- request guard ---------------------------------------------------------------------------------------
class TokenSource:
    """The accepted bearer token: `mcp.json`'s, re-read whenever the file changes (thread-safe)."""

    def __init__(self, data: DataDir, token: str) -> None:
        self._path = mcp_json(data)
        self._data = data
        self._token = token
        self._stamp = self._stat()
        self._lock = threading.Lock()

    def _stat(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self._path)
        except OSError:
            return None
        return info.st_mtime_ns, info.st_ino

    def current(self) -> str:
        stamp = self._stat()
        with self._lock:
            if stamp != self._stamp:
                content = read_mcp_file(self._data)
                if content is not None and content.token != self._token:
                    log.info("mcp.json changed: the new token is in force")
                    self._token = content.token
                self._stamp = stamp
            return self._token

    def set(self, token: str) -> None:
        with self._lock:
            self._token = token
            self._stamp = self._stat()

    def accepts(self, header: str | None) -> bool:
        if not header or not header[:7].lower() == "bearer ":
            return False
        presented = header[7:].strip().encode("utf-8")
        return hmac.compare_digest(presented, self.current().encode("utf-8"))


def is_local_host(host: str | None) -> bool:
    """`Host` names this machine's loopback (with or without a port)."""
    if not host:
        return False
    try:
        name = urlsplit(f"//{host}").hostname
    except ValueError:
        return False
    return name in LOCAL_HOSTS


def is_local_origin(origin: str | None) -> bool:
    """No `Origin` (not a browser), or an http(s) page on loopback."""
    if origin is None:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.hostname in LOCAL_HOSTS


class Guard:
    """ASGI middleware in front of everything: DNS-rebinding protection (403), then the bearer token (401),
    then the tool profile of `?tools=` (400 when it names something unknown); an accepted request is reported
    to `clients` (which bridge sent it: the idle exit's view)."""

    def __init__(self, app: Any, tokens: TokenSource, clients: BridgeClients | None = None) -> None:
        self.app = app
        self.tokens = tokens
        self.clients = clients

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        if not is_local_host(headers.get("host")):
            log.warning("refused a request with Host %r (403)", headers.get("host"))
            await _reply(send, 403, "forbidden: the Host header does not name this computer")
            return
        if not is_local_origin(headers.get("origin")):
            log.warning("refused a request from Origin %r (403)", headers.get("origin"))
            await _reply(send, 403, "forbidden: requests from web pages on other sites are refused")
            return
        if not self.tokens.accepts(headers.get("authorization")):
            log.info("refused a request without a valid token (401)")
            await _reply(send, 401, "unauthorized: send Authorization: Bearer <token> (the token is in mcp.json "
                                    "in the data folder, or run `browserpilot mcp token`)",
                         [(b"www-authenticate", b'Bearer realm="browserpilot"')])
            return
        problem = profile_problem(scope.get("query_string", b""))
        if problem is not None:
            await _reply(send, 400, f"bad request: {problem}")
            return
        if self.clients is not None:
            self.clients.request(headers.get(CLIENT_HEADER))
        await self.app(scope, receive, send)


def profile_problem(query_string: bytes) -> str | None:
    """What is wrong with the `tools` profile of a request's query string (None: nothing, or none given)."""
    values = parse_qs(query_string.decode("latin-1")).get("tools")
    if not values:
        return None
    try:
        parse_profile(values[-1])
    except ProfileError as exc:
        return str(exc)
    return None


async def _reply(send: Any, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = (message + "\n").encode("utf-8")
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


# -- logging of the libraries --------------------------------------------------------------------------------
# While the server stops, the libraries report connections they close and streams they cut (an agent's open
# SSE stream, say) as errors; that is the expected end of a session, so it is logged at debug level then.
_STOPPING = threading.Event()


class _ToOurLog(logging.Handler):
    """Send the SDK's and uvicorn's records to `browserpilot.mcp` (our file, our stderr policy)."""

    def emit(self, record: logging.LogRecord) -> None:
        level = logging.DEBUG if _STOPPING.is_set() else record.levelno
        log.log(level, "%s: %s", record.name, record.getMessage())


def _route_library_logs() -> None:
    for name in ("mcp", "uvicorn", "uvicorn.error", "uvicorn.access", "sse_starlette"):
        library = logging.getLogger(name)
        if not any(isinstance(h, _ToOurLog) for h in library.handlers):
            library.addHandler(_ToOurLog(level=logging.WARNING))
        library.propagate = False


# -- ports -----------------------------------------------------------------------------------------------------
def bind_loopback(preferred: list[int], attempts: int = PORT_ATTEMPTS) -> socket.socket:
    """A listening socket on 127.0.0.1: the first free port among `preferred`, then upward from the last."""
    candidates: list[int] = []
    for port in preferred or [DEFAULT_PORT]:
        if port not in candidates:
            candidates.append(port)
    start = candidates[-1]
    if start:  # 0 asks the system for any free port: nothing to scan
        candidates += [p for p in range(start + 1, start + attempts) if p not in candidates and p < 65536]
    errors: list[str] = []
    for port in candidates:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # Without TCP_NODELAY on the listener the accepted sockets inherit Nagle's algorithm, and every
        # response whose headers and body go out in two writes waits ~40 ms for a delayed ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Reuse a port whose connections of the previous run linger in TIME_WAIT (a restart keeps its URL);
        # on Linux this never allows a second listener on a port someone listens on.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen(64)
        except OSError as exc:
            sock.close()
            errors.append(f"{port}: {exc.strerror or exc}")
            continue
        sock.setblocking(False)
        return sock
    raise McpStartError(f"no free port on 127.0.0.1 from {candidates[0]} to {candidates[-1]} ({errors[-1]})")


# -- the server ------------------------------------------------------------------------------------------------
class McpHttpServer:
    """The app's MCP endpoint. `start()` and `stop()` are called on the main thread; `start()` binds the port
    and returns at once, the server thread imports the SDK and serves (the GUI never waits for it), and
    `on_change` is called on the main loop when the server is up or has failed."""

    def __init__(self, data: DataDir, registry: OperationRegistry, ctx: OpContext,
                 main_loop: asyncio.AbstractEventLoop, *, port: int = DEFAULT_PORT,
                 on_change: Callable[[], None] | None = None, clients: BridgeClients | None = None,
                 on_first_call: Callable[[], None] | None = None) -> None:
        self.data = data
        self.registry = registry
        self.ctx = ctx
        self.main_loop = main_loop
        self.port_setting = port
        self.on_change = on_change
        self.clients = clients
        self.on_first_call = on_first_call  # called (on the bridge endpoint's thread) after each of its calls
        self.in_flight: dict[str, int] = {}  # tool calls being answered now, by name (read by the idle exit)
        self.superseded = False  # a newer server of this app owns mcp.json: a late stop must not clear it
        self.catalog = ToolCatalog(registry)
        self._selections: OrderedDict[str, ToolSelection] = OrderedDict()  # by MCP session id (server thread)
        self.port: int | None = None
        self.error: str | None = None
        self._started = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._uvicorn: Any = None
        self._tokens: TokenSource | None = None
        # One per loop that answers calls (the HTTP server's, the bridge endpoint's), set when stopping: in-flight
        # calls answer at once.
        self._quits: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}
        self._quits_lock = threading.Lock()
        self._server_loop: asyncio.AbstractEventLoop | None = None
        self._quick: QuickServer | None = None
        self._file_lock = threading.Lock()  # mcp.json is updated from the server, bridge endpoint and stopper threads
        self._wake: tuple[socket.socket, socket.socket] | None = None  # stop() wakes the wait for a first client
        self._sdk_loaded = threading.Event()
        self._stopped: threading.Event | None = None  # set once the last stop() has finished

    @property
    def tokens(self) -> TokenSource | None:
        return self._tokens

    @property
    def quick_port(self) -> int | None:
        return self._quick.port if self._quick is not None else None

    @property
    def url(self) -> str | None:
        return endpoint_url(self.port) if self.port is not None else None

    @property
    def running(self) -> bool:
        """Serving requests now."""
        return self._started.is_set() and self._thread is not None and self._thread.is_alive()

    @property
    def sdk_loaded(self) -> bool:
        """The SDK serves the HTTP port (a client has connected); until then connections wait for it."""
        return self._sdk_loaded.is_set()

    @property
    def starting(self) -> bool:
        return not self._started.is_set() and self._thread is not None and self._thread.is_alive()

    def token(self) -> str:
        if self._tokens is not None:
            return self._tokens.current()
        return load_or_create(self.data).token

    def regenerate_token(self) -> str:
        with self._file_lock:
            content = regenerate_token(self.data)
        if self._tokens is not None:
            self._tokens.set(content.token)
        log.info("MCP token regenerated")
        return content.token

    # -- MCP handlers (server thread) --------------------------------------------------------------------
    def _build_sdk_server(self) -> Any:
        import mcp_types as types
        from mcp.server import NotificationOptions, Server

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=self.catalog.tools(self.selection(ctx.request)[0]))

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            name, arguments = params.name, dict(params.arguments or {})
            selection, session = self.selection(ctx.request)
            if name != TOOLS_ENABLE:
                return await self.call(name, arguments, json_text=selection.profile.original)
            envelope = self.catalog.enable(selection, arguments)
            if envelope.get("listChanged"):
                if session is None:  # nothing to remember it by: the list stays, the tools answer all the same
                    envelope["listChanged"] = False
                    envelope["notes"] = [NO_SESSION_NOTE.format(profile=",".join(envelope["enabled"]))]
                else:
                    await ctx.session.send_tool_list_changed()
            return tool_result(name, envelope, self.data.root)

        server = Server(SERVER_NAME, version=__version__, title="BrowserPilot", instructions=SERVER_INSTRUCTIONS,
                        get_tool_input_schema=self.catalog.schema, on_list_tools=list_tools,
                        on_call_tool=call_tool)
        # The handshake's capabilities say the tool list changes (tools_enable); the 2026-07-28 era derives its
        # own (no listen stream is served, so no change notifications there).
        plain = server.create_initialization_options
        server.create_initialization_options = (  # type: ignore[method-assign]
            lambda notification_options=None, *args, **kwargs: plain(
                notification_options or NotificationOptions(tools_changed=True), *args, **kwargs))
        return server

    def selection(self, request: Any) -> tuple[ToolSelection, str | None]:
        """The tools of the client that sent `request` (a Starlette request): its address's profile and the
        groups its MCP session turned on; and that session's id (None: a client without sessions)."""
        query = request.query_params.get("tools") if request is not None else None
        session = request.headers.get("mcp-session-id") if request is not None else None
        profile = parse_profile(query)  # the guard has refused an unknown one
        if session is None:
            return ToolSelection(profile), None
        selection = self._selections.get(session)
        if selection is None or selection.profile != profile:
            selection = ToolSelection(profile, set(selection.enabled) if selection is not None else set())
            self._selections[session] = selection
            while len(self._selections) > MAX_SESSIONS:
                self._selections.popitem(last=False)
        self._selections.move_to_end(session)
        return selection, session

    async def call(self, name: str, arguments: dict[str, Any], *, json_text: bool = False) -> "CallToolResult":
        """Run one operation on the main loop and turn its envelope into a tool result (`json_text`: the text is
        the envelope as JSON, for the original BrowserPilot's clients)."""
        return tool_result(name, await self.call_envelope(name, arguments), self.data.root, json_text=json_text)

    def _quit_event(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        with self._quits_lock:
            event = self._quits.get(loop)
            if event is None:
                event = self._quits[loop] = asyncio.Event()
                if self._stopping.is_set():
                    event.set()
            return event

    async def call_envelope(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one operation on the main loop (from any other loop) and return its envelope: the one way both
        the HTTP server and the bridge endpoint call operations."""
        started = time.perf_counter()
        if self._stopping.is_set():  # stopping: never hand a call to a main loop that is shutting down
            return failure(f"BrowserPilot is quitting; {name} was not run")
        self.in_flight[name] = self.in_flight.get(name, 0) + 1
        op = self.registry.operations.get(name)
        timeout = call_timeout(op, arguments)
        future: Future[dict[str, Any]] = asyncio.run_coroutine_threadsafe(
            self.registry.call(self.ctx, name, arguments), self.main_loop)
        wrapped: asyncio.Future[Any] = asyncio.wrap_future(future)
        quitting: asyncio.Future[Any] = asyncio.ensure_future(self._quit_event().wait())
        try:
            done, _pending = await asyncio.wait({wrapped, quitting}, timeout=timeout,
                                                return_when=asyncio.FIRST_COMPLETED)
            if wrapped in done:
                envelope = wrapped.result()
            else:
                future.cancel()
                envelope = failure(f"BrowserPilot is quitting; {name} was cancelled" if quitting in done else
                                   f"{name} did not finish within {timeout:g} s and was cancelled")
        except asyncio.CancelledError:  # the client went away
            future.cancel()
            raise
        except Exception as exc:  # a bug in an operation: report it to the caller, keep serving
            log.exception("%s raised", name)
            envelope = failure(f"{name} failed unexpectedly: {type(exc).__name__}: {exc}")
        finally:
            quitting.cancel()
            self.in_flight[name] -= 1
            if not self.in_flight[name]:
                del self.in_flight[name]
        log.debug("%s answered in %.1f ms (ok=%s)", name, (time.perf_counter() - started) * 1000,
                  envelope.get("ok"))
        return envelope

    # -- the server thread ---------------------------------------------------------------------------------
    def _serve(self, sock: socket.socket, wake: socket.socket) -> None:
        try:
            # mcp.json names both endpoints in one write once the bridge endpoint listens, so a bridge never
            # finds the HTTP URL without the bridge endpoint beside it (the HTTP one alone if that one failed).
            quick = self._quick
            self._publish(quick if quick is not None and quick.wait_listening(QUICK_WAIT) else None)
            if self._wait_for_first_client(sock, wake):
                asyncio.run(self._main(sock))
        except BaseException as exc:  # noqa: BLE001 - reported through `error` and the log
            self.error = f"the MCP server stopped: {type(exc).__name__}: {exc}"
            log.exception("the MCP server stopped with an error")
        finally:
            sock.close()
            wake.close()
            self._notify()

    def _wait_for_first_client(self, sock: socket.socket, wake: socket.socket) -> bool:
        """Until a client connects to the HTTP port (True: its connection stays queued for uvicorn) or the
        server stops (False). A listening socket is readable once a connection is pending. `poll`, not
        `select`: the app may hold more than 1024 descriptors by the time the server is switched back on."""
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        poller.register(wake, select.POLLIN)  # written to by stop()
        ready = {fd for fd, _events in poller.poll()}
        return sock.fileno() in ready and not self._stopping.is_set()

    async def _main(self, sock: socket.socket) -> None:
        began = time.perf_counter()
        import uvicorn

        assert self._tokens is not None
        self._server_loop = asyncio.get_running_loop()
        sdk = self._build_sdk_server()
        http_app = sdk.streamable_http_app(streamable_http_path=MCP_PATH, host="127.0.0.1", json_response=True)
        app = Guard(http_app, self._tokens, self.clients)
        config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on", log_level="warning",
                                timeout_graceful_shutdown=1, ws="none", http="h11")
        server = uvicorn.Server(config)
        self._uvicorn = server
        if self._stopping.is_set():
            return
        # Loaded before uvicorn accepts: the first client's answer can go out before this coroutine runs
        # again, and whoever asks after that answer must see the SDK loaded.
        self._sdk_loaded.set()
        log.info("the first HTTP client connected: the MCP SDK loaded in %.2f s", time.perf_counter() - began)
        self._notify()
        await server.serve(sockets=[sock])

    def _notify(self) -> None:
        if self.on_change is not None and not self.main_loop.is_closed():
            try:
                self.main_loop.call_soon_threadsafe(self.on_change)
            except RuntimeError:  # the loop closed meanwhile
                pass

    # -- start and stop (main thread) --------------------------------------------------------------------
    def start(self) -> str:
        """Bind the HTTP port and the bridge endpoint's on 127.0.0.1 and serve them on threads of their own;
        return the URL at once.

        Raises `McpStartError` when no port is free. `mcp.json` names both once they listen (see the module's
        notes on when the SDK loads).
        """
        if self._thread is not None and self._thread.is_alive():
            assert self.url is not None
            return self.url
        _route_library_logs()
        content = load_or_create(self.data)
        # A port chosen in the settings wins; otherwise the previous run's port (pasted client configurations
        # keep working), then the default and upward.
        explicit = self.port_setting if self.port_setting != DEFAULT_PORT else None
        preferred = [p for p in (explicit, content.port, self.port_setting) if p is not None]
        sock = bind_loopback(preferred)
        self.port = sock.getsockname()[1]
        self.error = None
        self._tokens = TokenSource(self.data, content.token)
        self._started.clear()
        self._stopping.clear()
        self._sdk_loaded.clear()
        with self._quits_lock:
            self._quits.clear()
        quick_sock = bind_loopback([0])
        self._quick = QuickServer(self, quick_sock, self._call_answered)
        self._quick.start()
        wake = self._wake = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, args=(sock, wake[0]), name="browserpilot-mcp",
                                        daemon=True)
        self._thread.start()
        assert self.url is not None
        return self.url

    def _call_answered(self) -> None:
        """The bridge endpoint answered a call (its thread)."""
        if self.on_first_call is not None:
            self.on_first_call()

    def _publish(self, quick: QuickServer | None) -> None:
        """The HTTP port listens, and the bridge endpoint `quick` (None: it failed): name them in `mcp.json`
        (server thread); from now on requests are answered."""
        if self._stopping.is_set():
            return
        bridge = {"quick_port": quick.port, "quick_pid": os.getpid()} if quick is not None else {}
        with self._file_lock:
            update_mcp_file(self.data, url=self.url, port=self.port, pid=os.getpid(), **bridge)
        self._started.set()
        if quick is not None:
            log.info("bridge endpoint listening on 127.0.0.1:%d", quick.port)
        log.info("MCP server listening on %s (the SDK loads when the first HTTP client connects)", self.url)
        self._notify()

    def wait_started(self, timeout: float = START_TIMEOUT) -> bool:
        return self._started.wait(timeout)

    def stop(self, timeout: float = 5.0, *, wait: bool = False) -> None:
        """Stop serving: in-flight calls are answered "quitting" at once, new ones are refused, and `mcp.json`
        stops naming this server. Returns at once (the Qt thread never waits for uvicorn's graceful end); a
        stopper thread joins the server thread and updates `mcp.json`. The stopper is not a daemon, so the
        process finishes it before exiting. `wait=True` blocks until it is done (tests, scripts)."""
        thread, was_started = self._thread, self._started.is_set()
        self._stopping.set()
        _STOPPING.set()
        wake, self._wake = self._wake, None
        if wake is not None:
            try:
                # A server thread still waiting for its first client goes on, and finds it is stopping.
                wake[1].send(b"x")
            except OSError:  # it has closed its end already
                pass
            wake[1].close()
        with self._quits_lock:
            quits = list(self._quits.items())
        for loop, event in quits:
            if not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(event.set)
                except RuntimeError:  # the loop closed meanwhile
                    pass
        quick, self._quick = self._quick, None
        if quick is not None:
            quick.stop()
        server = self._uvicorn
        if server is not None:
            server.should_exit = True
        self._started.clear()
        self._thread = None
        stopped = self._stopped = threading.Event()
        stopper = threading.Thread(target=self._finish_stop,
                                   args=(thread, server, was_started, timeout, stopped, quick),
                                   name="browserpilot-mcp-stop", daemon=False)
        stopper.start()
        if wait:
            stopped.wait()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        """Until the last `stop()` has finished (the port is closed, `mcp.json` updated); True when it has."""
        stopped = self._stopped
        return stopped.wait(timeout) if stopped is not None else True

    def _finish_stop(self, thread: threading.Thread | None, server: Any, was_started: bool, timeout: float,
                     stopped: threading.Event, quick: QuickServer | None = None) -> None:
        """The stopper thread: wait for the server thread, then say in `mcp.json` that nobody serves it."""
        if quick is not None:
            quick.thread.join(timeout)
            if not self.superseded:
                try:
                    with self._file_lock:
                        current = read_mcp_file(self.data)
                        if (current is not None and current.quick_pid == os.getpid()
                                and current.quick_port == quick.port):
                            update_mcp_file(self.data, quick_port=None, quick_pid=None)
                except Exception as exc:  # noqa: BLE001 - shutting down: log, never raise
                    log.warning("could not update mcp.json: %s", exc)
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive() and server is not None:
                server.force_exit = True
                thread.join(2)
            if thread.is_alive():
                log.warning("the MCP server thread did not stop in time")
        _STOPPING.clear()
        if was_started and not self.superseded:
            try:
                with self._file_lock:
                    current = read_mcp_file(self.data)
                    if current is not None and current.pid == os.getpid() and current.url == self.url:
                        update_mcp_file(self.data, pid=None)
            except Exception as exc:  # noqa: BLE001 - shutting down: log, never raise
                log.warning("could not update mcp.json: %s", exc)
        if was_started:
            log.info("MCP server stopped")
        stopped.set()
        self._notify()

__all__ = ["Guard", "McpHttpServer", "McpStartError", "TokenSource", "bind_loopback", "is_local_host",
           "is_local_origin"]
