"""The app's MCP endpoint as an agent client reaches it: the SDK's own client over streamable HTTP, with the
bearer token from the data folder's mcp.json (tests/e2e/test_mcp.py, tests/e2e/test_mcp_profiles.py); and a bare
`initialize` request, for what the server refuses (tests/unit/app/mcp/test_mcp_unit.py too)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from app.mcp.client import Endpoint, wait_for_endpoint
from plumbing.datadir import DataDir


def initialize(url: str, headers: dict[str, str]) -> httpx.Response:
    """One bare `initialize` POST to the endpoint at `url` with `headers` (what the server lets in or refuses:
    tokens, origins, hosts, profiles), without a client session."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "probe", "version": "1"}}}
    return httpx.post(url, json=body, headers={"Accept": "application/json, text/event-stream", **headers},
                      timeout=10, trust_env=False)


def endpoint(data_dir: Path) -> Endpoint:
    return wait_for_endpoint(DataDir(data_dir), timeout=30)


@asynccontextmanager
async def mcp_client(data_dir: Path, mode: str = "auto", tools: str | None = None,
                     notifications: list[Any] | None = None) -> AsyncIterator[Client]:
    """A connected client. `tools`: the profile it asks for (`?tools=`); `notifications`: where to keep what the
    server sends unasked (list_changed…)."""
    found = endpoint(data_dir)
    url = found.url + (f"?tools={tools}" if tools else "")

    async def keep(message: Any) -> None:
        if notifications is not None:
            notifications.append(message)

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {found.token}"}, trust_env=False,
                                  timeout=httpx2.Timeout(30, read=120)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode, message_handler=keep) as client:
            yield client
