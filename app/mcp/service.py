"""The MCP server as the app sees it: switched on or off by a setting, started with the app, stopped last.

`McpService` is what the shell and the settings dialog hold. It follows the `mcpEnabled` setting (default
on), starts the HTTP server (`app.mcp.server`) on the app's main loop, and reports its state for the
dialog: `running` with the URL, `starting`, `off`, or `failed` with the reason (the app itself keeps
running). The SDK is imported on the server thread when the first HTTP client connects, so an app that only
the stdio bridge and the command line use never loads it.

Stopping never blocks the Qt thread: the server stops on a thread of its own, and switching the server back on
meanwhile starts the new one as soon as the old one has let go of its port (status `starting` until then).

It also owns the idle exit (`app.mcp.idle`): who started the app, the bridges that use it, and the watch that
quits an app started headless by `browserpilot mcp` once nobody needs it; `app_status` reports it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal

from app.mcp.config import client_configs, load_or_create, regenerate_token
from app.mcp.idle import BridgeClients, IdleWatch, Starter, idle_timeout
from app.ops import OpContext, OperationRegistry
from app.ops.results import AppStatusResult
from app.ops.registry import Operation, Params, operation
from plumbing import loggers
from plumbing.datadir import DataDir
from plumbing.jsonstore import StoreError

if TYPE_CHECKING:
    from app.mcp.server import McpHttpServer
    from app.stores.settings import SettingsStore

log = logging.getLogger(loggers.MCP)

Status = Literal["running", "starting", "off", "failed"]

FIRST_CALL_WAIT = 3.0  # seconds a bridge-started app defers work past its first call at most (`after_first_call`)


class McpService:
    def __init__(self, data: DataDir, registry: OperationRegistry, ctx: OpContext, settings: "SettingsStore", *,
                 headless: bool = False, quit_app: Callable[[], None] = lambda: None,
                 editors_open: Callable[[], bool] = lambda: False) -> None:
        self.data = data
        self.registry = registry
        self.ctx = ctx
        self.settings = settings
        self.error: str | None = None
        self._server: McpHttpServer | None = None
        self._stopping: McpHttpServer | None = None  # the previous server, until its port is free
        self._start_pending = False
        self._after_first_call: list[tuple[asyncio.AbstractEventLoop, Callable[[], None]]] = []
        self._listeners: list[Callable[[], None]] = []
        self.clients = BridgeClients()
        self.editors_open = editors_open  # a workflow editor is open: a person's window
        self.idle = IdleWatch(Starter.take_from(os.environ), headless, self.clients, self._idle_timeout,
                              self.busy_reason, quit_app)
        self._idle_timer: asyncio.TimerHandle | None = None
        if "app_status" not in registry.operations:
            registry.add(_status_operation(self))

    # -- state -----------------------------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        return bool(self.settings.current.mcp_enabled)

    @property
    def status(self) -> Status:
        server = self._server
        if server is not None and server.running:
            return "running"
        if (server is not None and server.starting) or self._start_pending:
            return "starting"
        return "failed" if self.error or (server is not None and server.error) else "off"

    @property
    def problem(self) -> str | None:
        """Why the server is not running although it should."""
        return self.error or (self._server.error if self._server is not None else None)

    @property
    def url(self) -> str | None:
        server = self._server
        return server.url if server is not None and (server.running or server.starting) else None

    @property
    def sdk_loaded(self) -> bool:
        """The HTTP endpoint has had a client, so the SDK serves it (it loads on the first connection)."""
        return self._server is not None and self._server.sdk_loaded

    def token(self) -> str:
        return self._server.token() if self._server is not None else load_or_create(self.data).token

    def configs(self, command: str | None = None, profile: str = "core") -> dict[str, str]:
        """Client configurations with the live URL (or the one the server will use), for the tool `profile`."""
        url = self.url or load_or_create(self.data).url or f"http://127.0.0.1:{self.settings.current.mcp_port}/mcp"
        return client_configs(url, self.token(), Path(self.data.root), command, profile)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` after every change of state or token; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def after_first_call(self, callback: Callable[[], None]) -> None:
        """Call `callback` once on the main loop, when the bridge endpoint has answered its first call or
        `FIRST_CALL_WAIT` seconds from now, whichever comes first (what a bridge-started app defers past that
        call)."""
        loop = asyncio.get_event_loop()
        done = False

        def once() -> None:
            nonlocal done
            if not done:
                done = True
                callback()

        self._after_first_call.append((loop, once))
        loop.call_later(FIRST_CALL_WAIT, once)

    def _first_call_answered(self) -> None:
        """The bridge endpoint answered a call (its thread)."""
        callbacks, self._after_first_call = self._after_first_call, []
        for loop, callback in callbacks:
            try:
                loop.call_soon_threadsafe(callback)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # -- actions (main thread) ---------------------------------------------------------------------------
    def start_if_enabled(self) -> None:
        self._watch_idle()
        if self.enabled:
            self.start()
        else:
            log.info("the MCP server is switched off in the settings")

    def start(self) -> None:
        if self.status in ("running", "starting"):
            return
        from app.mcp.server import McpHttpServer, McpStartError

        if self._server is not None:
            self._retire(self._server)
            self._server = None
        self.error = None
        if self._stopping is not None and not self._stopping.wait_stopped(0):
            self._start_pending = True  # started by `_server_changed` once the old server has let go
            self._changed()
            return
        self._start_pending = False
        if self._stopping is not None:
            self._stopping.superseded = True
            self._stopping = None
        server = McpHttpServer(self.data, self.registry, self.ctx, asyncio.get_event_loop(),
                               port=self.settings.current.mcp_port, on_change=self._server_changed,
                               clients=self.clients, on_first_call=self._first_call_answered)
        try:
            server.start()
        except (McpStartError, StoreError, OSError) as exc:
            self.error = str(exc)
            self._server = None
            log.error("%s", exc)
        else:
            self._server = server
        self._changed()

    def stop(self) -> None:
        """Stop serving; returns at once (the old server finishes stopping on its own thread)."""
        server, self._server = self._server, None
        self._start_pending = False
        if server is not None:
            self._retire(server)
        self.error = None
        self._changed()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        """Until a server that is stopping has finished (its port closed, `mcp.json` updated)."""
        return self._stopping.wait_stopped(timeout) if self._stopping is not None else True

    def _retire(self, server: "McpHttpServer") -> None:
        server.stop()
        self._stopping = server

    def _server_changed(self) -> None:
        """A server came up, failed or finished stopping (main loop)."""
        if self._start_pending and self._stopping is not None and self._stopping.wait_stopped(0):
            self._start_pending = False
            self.start()
            return
        self._changed()

    # -- idle exit ----------------------------------------------------------------------------------------
    def _idle_timeout(self) -> float | None:
        return idle_timeout(self.settings.current.idle_exit_minutes, os.environ)

    def busy_reason(self) -> str | None:
        """What keeps the app from quitting by itself now: a run, a batch, a recording, a tool call, a window a
        person uses; None when nothing does."""
        runner = self.ctx.runner
        if runner is not None:
            runs = runner.active_runs()
            if runs:
                return f"a run is in progress ({', '.join(runs[:3])})"
            batches = runner.active_batches()
            if batches:
                return f"a batch is in progress ({', '.join(batches[:3])})"
        server = self._server
        calls = [name for name in (server.in_flight if server is not None else {}) if name != "app_status"]
        if calls:
            return f"a tool call is in progress ({', '.join(sorted(calls)[:3])})"
        browser = self.ctx.browser
        if browser is None:
            return None
        recording = browser.recording_tabs()
        if recording:
            return f"a recording is in progress (tab {recording[0]})"
        # A tab only an agent drives is not a person's; a shared tab, or one handed over to a person, is.
        personal = [info for info in browser.list_tabs() if info.control != "agent"]
        if personal:
            return f"a person's window is open (tab {personal[0].id} is {personal[0].control})"
        if self.editors_open():
            return "a person's window is open (the workflow editor)"
        return None

    def _watch_idle(self) -> None:
        if not self.idle.armed or self._idle_timer is not None:
            return
        log.info("started by a bridge (pid %d): quits after %s without a bridge client", self.idle.starter.pid
                 if self.idle.starter else 0, _seconds(self._idle_timeout()))
        loop = asyncio.get_event_loop()

        def look() -> None:
            self._idle_timer = None
            try:
                if self.idle.tick():
                    return
            except Exception:  # a bug in a look must not end the watch (the app would then never quit)
                log.exception("the idle exit's look failed")
            self._idle_timer = loop.call_later(self.idle.poll_interval(), look)

        self._idle_timer = loop.call_later(self.idle.poll_interval(), look)

    def set_enabled(self, enabled: bool) -> None:
        """Persist the switch and apply it at once."""
        if enabled != self.enabled:
            self.settings.update(mcp_enabled=enabled)
        if enabled:
            self.start()
        else:
            self.stop()

    def regenerate_token(self) -> str:
        token = self._server.regenerate_token() if self._server is not None else regenerate_token(self.data).token
        self._changed()
        return token



def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:g} s"


class AppStatusParams(Params):
    pass


def _status_operation(service: McpService) -> Operation[Any, Any]:
    @operation("app_status", AppStatusParams, AppStatusResult, read_only=True, group="app")
    async def app_status(ctx: OpContext, params: AppStatusParams) -> AppStatusResult:
        """Who started this app (a person, or `browserpilot mcp` for an agent client; headless or not), the
        stdio bridges using it, and when it will quit by itself (or why it won't)."""
        return AppStatusResult.model_validate({
            "mcp": {"status": service.status, "url": service.url, "sdkLoaded": service.sdk_loaded},
            **service.idle.state()})

    return app_status
