"""The app's private endpoint for its stdio bridge: `tools/list` and `tools/call` as one JSON line each way.

```
bridge --TCP 127.0.0.1--> {"token": "…", "client": "bridge 4242", "method": "tools/call", "name": …,
                           "arguments": {…}, "tools": "core", "enabled": ["network"]}\\n
       <--------------- {"result": {CallToolResult by alias}}\\n   or   {"error": "unauthorized: …"}\\n
```

`tools` and `enabled` are the bridge session's tool selection (app/catalog/profiles.py: its `--tools` profile and
the groups `tools_enable` turned on); the bridge keeps them, this endpoint lists and answers by them
(`tools_enable` included: its result says which groups are on now, and the bridge takes that).

Why: the MCP SDK and uvicorn take ~1.5 s of CPU to import (pydantic building the protocol types), and an app
that `browserpilot mcp` has just started for an agent client would otherwise make that client's first call
wait for them. This endpoint needs nothing but asyncio, so it answers as soon as the app's first page can; the
full streamable HTTP server (`app.mcp.server`) starts right after and serves every other client.

Nothing here is a second tool layer: the listing is `ToolCatalog.listing()`, each call goes through
`McpHttpServer.call_envelope` (the same timeouts, in-flight count, "quitting" answers as over HTTP) and its
result is `result_json` (the same dict the SDK server validates into a `CallToolResult`). The bearer token is
the same `TokenSource`, and each request names its sender as the HTTP requests do (`app.mcp.idle`). Only
loopback is bound; the port is in `mcp.json` (`quickPort`, `quickPid`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
from typing import TYPE_CHECKING, Any, Callable, Protocol

from app.catalog.profiles import TOOLS_ENABLE, ToolSelection, parse_profile
from plumbing import loggers
from plumbing.datadir import DataDir

if TYPE_CHECKING:
    from app.mcp.idle import BridgeClients
    from app.catalog.tools import ToolCatalog

log = logging.getLogger(loggers.MCP)

LINE_LIMIT = 256 * 1024 * 1024  # a full-page screenshot travels inline (base64) in one line


class Tokens(Protocol):
    def accepts(self, authorization: str | None) -> bool: ...


class BridgeOwner(Protocol):
    """What the endpoint needs of the MCP server that owns it (app/mcp/server.py `McpHttpServer`): the token,
    the bridge clients, the tool listing, the data folder, and its one way of calling operations."""

    data: DataDir
    clients: "BridgeClients | None"
    catalog: "ToolCatalog"

    @property
    def tokens(self) -> Tokens | None: ...

    async def call_envelope(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...


class QuickServer:
    """Serves `sock` on a thread of its own until `stop()`."""

    def __init__(self, owner: BridgeOwner, sock: socket.socket, on_first_call: Callable[[], None]) -> None:
        self.owner = owner
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        self._on_first_call = on_first_call
        self._loop: asyncio.AbstractEventLoop | None = None
        self._done: asyncio.Event | None = None
        self._ready = threading.Event()  # it listens, or it has failed to
        self._listening = False
        self.thread = threading.Thread(target=self._serve, name="browserpilot-mcp-quick", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def wait_listening(self, timeout: float) -> bool:
        """Until the endpoint listens (True) or has failed to (False), for at most `timeout` seconds."""
        self._ready.wait(timeout)
        return self._listening

    def stop(self) -> None:
        self._ready.wait(2)
        loop, done = self._loop, self._done
        if loop is not None and done is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(done.set)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def _serve(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException:  # noqa: BLE001 - the HTTP server still serves; logged
            log.exception("the bridge endpoint stopped with an error")
        finally:
            self._ready.set()
            self.sock.close()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._done = asyncio.Event()
        server = await asyncio.start_server(self._handle, sock=self.sock, limit=LINE_LIMIT)
        self._listening = True
        self._ready.set()
        async with server:
            await self._done.wait()
        log.debug("bridge endpoint stopped")

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while line := await reader.readline():
                reply = await self._answer(line)
                writer.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            log.info("bridge connection ended: %s", exc)
        finally:
            writer.close()

    async def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line)
        except ValueError:
            return {"error": "bad request: not one JSON object per line"}
        if not isinstance(request, dict):
            return {"error": "bad request: not a JSON object"}
        owner = self.owner
        tokens = owner.tokens
        token = request.get("token")
        if tokens is None or not isinstance(token, str) or not tokens.accepts(f"Bearer {token}"):
            log.info("refused a bridge request without a valid token")
            return {"error": "unauthorized: the token is not the one in mcp.json"}
        if owner.clients is not None:
            sender = request.get("client")
            owner.clients.request(sender if isinstance(sender, str) else None)
        method = request.get("method")
        try:
            selection = _selection(request)
        except ValueError as exc:
            return {"error": f"bad request: {exc}"}
        if method == "tools/list":
            return {"result": {"tools": owner.catalog.listing(selection)}}
        if method == "tools/call":
            name, arguments = request.get("name"), request.get("arguments") or {}
            if not isinstance(name, str) or not isinstance(arguments, dict):
                return {"error": "bad request: tools/call needs a name and an arguments object"}
            from app.catalog.tools import result_json  # here: the bridge imports `request` without the registry

            if name == TOOLS_ENABLE:
                return {"result": result_json(name, owner.catalog.enable(selection, arguments), owner.data.root)}
            envelope = await owner.call_envelope(name, arguments)
            self._on_first_call()
            return {"result": result_json(name, envelope, owner.data.root, json_text=selection.profile.original)}
        return {"error": f"bad request: unknown method {method!r}"}


def _selection(request: dict[str, Any]) -> ToolSelection:
    """The sender's tool selection (ValueError names what is wrong with it)."""
    profile, enabled = request.get("tools"), request.get("enabled") or []
    if not (profile is None or isinstance(profile, str)) or not isinstance(enabled, list):
        raise ValueError("tools is a profile and enabled a list of groups")
    selection = ToolSelection(parse_profile(profile))
    selection.enable(str(group) for group in enabled)
    return selection


async def request(port: int, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    """Send one request to the endpoint on `port` and return its `result`; raise ConnectionError (or
    OSError) when the app cannot be reached or refuses, TimeoutError after `timeout`."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port, limit=LINE_LIMIT), 10)
    try:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        writer.write(json.dumps(message).encode("utf-8") + b"\n")
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout)
    finally:
        writer.close()
    if not line:
        raise ConnectionError("the app closed the connection without answering")
    reply = json.loads(line)
    if not isinstance(reply, dict) or "result" not in reply:
        raise ConnectionError(str(reply.get("error") if isinstance(reply, dict) else reply))
    result: dict[str, Any] = reply["result"]
    return result
