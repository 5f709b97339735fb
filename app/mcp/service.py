"""The MCP server as the app sees it: switched on or off by a setting, started with the app, stopped last.

`McpService` is what the shell and the settings dialog hold. It follows the `mcpEnabled` setting (default
on), starts the HTTP server (`app.mcp.server`) on the app's main loop, and reports its state for the
dialog: `running` with the URL, `starting`, `off`, or `failed` with the reason (the app itself keeps
running). The SDK is imported on the server thread (or ahead of time by `prefetch_sdk`, which the entry point
calls before Qt starts), so an in-process test that never serves MCP does not load it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from app.mcp.config import client_configs, load_or_create, regenerate_token
from app.ops import OpContext, OperationRegistry
from envs.datadir import DataDir
from envs.jsonstore import StoreError

if TYPE_CHECKING:
    from app.mcp.server import McpHttpServer
    from app.settings import SettingsStore

log = logging.getLogger("browserpilot.mcp")

Status = Literal["running", "starting", "off", "failed"]


class McpService:
    def __init__(self, data: DataDir, registry: OperationRegistry, ctx: OpContext, settings: "SettingsStore") -> None:
        self.data = data
        self.registry = registry
        self.ctx = ctx
        self.settings = settings
        self.error: str | None = None
        self._server: McpHttpServer | None = None
        self._listeners: list[Callable[[], None]] = []

    # -- state -----------------------------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        return bool(self.settings.current.mcp_enabled)

    @property
    def status(self) -> Status:
        server = self._server
        if server is not None and server.running:
            return "running"
        if server is not None and server.starting:
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

    def token(self) -> str:
        return self._server.token() if self._server is not None else load_or_create(self.data).token

    def configs(self, command: str | None = None) -> dict[str, str]:
        """Client configurations with the live URL (or the one the server will use)."""
        url = self.url or load_or_create(self.data).url or f"http://127.0.0.1:{self.settings.current.mcp_port}/mcp"
        return client_configs(url, self.token(), Path(self.data.root), command)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` after every change of state or token; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # -- actions (main thread) ---------------------------------------------------------------------------
    def start_if_enabled(self) -> None:
        if self.enabled:
            self.start()
        else:
            log.info("the MCP server is switched off in the settings")

    def start(self) -> None:
        if self.status in ("running", "starting"):
            return
        from app.mcp.server import McpHttpServer, McpStartError

        if self._server is not None:
            self._server.stop()
        self.error = None
        server = McpHttpServer(self.data, self.registry, self.ctx, asyncio.get_event_loop(),
                               port=self.settings.current.mcp_port, on_change=self._changed)
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
        server, self._server = self._server, None
        if server is not None:
            server.stop()
        self.error = None
        self._changed()

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



def prefetch_sdk(data: DataDir) -> None:
    """Start importing the MCP SDK and uvicorn on a worker thread (about a second of imports), so that they
    load while Qt and QtWebEngine start instead of after; skipped when the server is switched off."""
    from app.mcp.client import mcp_switched_off

    if mcp_switched_off(data):
        return

    def load() -> None:
        try:
            import mcp.server  # noqa: F401
            import uvicorn  # noqa: F401
        except Exception as exc:  # noqa: BLE001 - the server's own start reports real problems
            log.debug("prefetching the MCP SDK failed: %s", exc)

    threading.Thread(target=load, name="browserpilot-mcp-import", daemon=True).start()
