"""The app's MCP endpoint as an agent client reaches it: the SDK's own client over streamable HTTP, with the
bearer token from the data folder's mcp.json (tests/e2e/test_mcp.py, tests/e2e/test_mcp_profiles.py)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from app.mcp.client import Endpoint, wait_for_endpoint
from plumbing.datadir import DataDir


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
