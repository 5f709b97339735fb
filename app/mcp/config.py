"""`mcp.json`: where the running app's MCP endpoint is and the bearer token that opens it.

```
{"schema_version": 1, "url": "http://127.0.0.1:39221/mcp", "port": 39221, "token": "…", "pid": 4242}
```

- The token is random (`secrets.token_urlsafe`), made on first start and kept until someone regenerates it
  (`browserpilot mcp token --regenerate` or the settings dialog), whether or not the app runs.
- `pid` is the process that serves `url` right now; it is cleared when the server stops, so a reader can tell
  a live endpoint from the address of the last run.
- `quickPort`/`quickPid`: the app's private line-JSON endpoint for the stdio bridge (`app.mcp.quick`), up
  before the MCP SDK has loaded; cleared like `pid`.
- The file is private to the user: written atomically (temp file, fsync, rename) with mode 0600 from the
  start (mkstemp), and chmod'ed again after the rename in case the folder's umask or an old file said
  otherwise.

This module is plain Python (no Qt): the command line and the stdio bridge read it without starting Qt.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from plumbing import loggers
from plumbing.datadir import DataDir
from plumbing.atomic import atomic_write_text
from plumbing.errors import StoreError

log = logging.getLogger(loggers.MCP)

SCHEMA_VERSION = 1
DEFAULT_PORT = 39221
MCP_PATH = "/mcp"
SERVER_NAME = "browserpilot"


def mcp_json(data: DataDir) -> Path:
    return data.root / "mcp.json"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def endpoint_url(port: int) -> str:
    return f"http://127.0.0.1:{port}{MCP_PATH}"


@dataclass(frozen=True)
class McpFile:
    """The contents of `mcp.json`."""

    token: str
    url: str | None = None
    port: int | None = None
    pid: int | None = None
    # The app's private endpoint for the stdio bridge (`app.mcp.quick`): its port and the process serving it.
    quick_port: int | None = None
    quick_pid: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "url": self.url, "port": self.port, "token": self.token,
                "pid": self.pid, "quickPort": self.quick_port, "quickPid": self.quick_pid}


def read_mcp_file(data: DataDir) -> McpFile | None:
    """The file's contents, or None when it is missing or unusable (a reader never repairs it)."""
    try:
        raw = json.loads(mcp_json(data).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("token"), str) or not raw["token"]:
        return None
    url = raw.get("url") if isinstance(raw.get("url"), str) else None
    port = raw.get("port") if isinstance(raw.get("port"), int) else None
    pid = raw.get("pid") if isinstance(raw.get("pid"), int) else None
    quick_port = raw.get("quickPort") if isinstance(raw.get("quickPort"), int) else None
    quick_pid = raw.get("quickPid") if isinstance(raw.get("quickPid"), int) else None
    return McpFile(token=raw["token"], url=url, port=port, pid=pid, quick_port=quick_port, quick_pid=quick_pid)


def write_mcp_file(data: DataDir, content: McpFile) -> None:
    """Write `mcp.json` atomically, readable and writable by the user only."""
    path = mcp_json(data)
    atomic_write_text(path, json.dumps(content.to_json(), indent=2) + "\n")
    try:
        os.chmod(path, 0o600)
    except OSError as exc:
        raise StoreError(f"cannot make {path} private: {exc.strerror or exc}") from exc


def load_or_create(data: DataDir) -> McpFile:
    """The current file, creating it (with a new token) when it is missing or unusable."""
    current = read_mcp_file(data)
    if current is not None:
        return current
    if mcp_json(data).exists():
        log.warning("%s was unusable; a new token was made", mcp_json(data))
    created = McpFile(token=new_token())
    write_mcp_file(data, created)
    return created


def update_mcp_file(data: DataDir, **changes: Any) -> McpFile:
    """Read, change some fields, write back. The token is kept unless `token` is among the changes."""
    updated = replace(load_or_create(data), **changes)
    write_mcp_file(data, updated)
    return updated


def regenerate_token(data: DataDir) -> McpFile:
    """A new token; the old one stops working at once (the running server re-reads the file)."""
    return update_mcp_file(data, token=new_token())


# -- what a person pastes into their MCP client ------------------------------------------------------------
def browserpilot_command() -> str:
    """The full path of the `browserpilot` command of this installation."""
    script = Path(sys.executable).with_name("browserpilot")
    if script.exists():
        return str(script)
    return str(Path(sys.argv[0]).resolve()) if sys.argv and sys.argv[0] else "browserpilot"


def client_configs(url: str, token: str, data_root: Path, command: str | None = None,
                   profile: str = "core") -> dict[str, str]:
    """Ready-to-paste configurations for the usual clients, keyed by a human name. `profile`: the tools the
    client is shown (app/catalog/profiles.py); the default, core, needs no parameter."""
    command = command or browserpilot_command()
    args = ["mcp", *(["--tools", profile] if profile != "core" else []), "--data-dir", str(data_root)]
    url = f"{url}?tools={profile}" if profile != "core" else url
    stdio = {"mcpServers": {SERVER_NAME: {"command": command, "args": args}}}
    http = {"mcpServers": {SERVER_NAME: {"url": url, "headers": {"Authorization": f"Bearer {token}"}}}}
    # Tokens are URL-safe base64 ([A-Za-z0-9_-]): double quotes are enough in every shell; a URL with a query is
    # quoted too (the shell would take `?` as a pattern).
    shown = f'"{url}"' if "?" in url else url
    claude_code = f'claude mcp add --transport http {SERVER_NAME} {shown} --header "Authorization: Bearer {token}"'
    return {
        "Claude Desktop (stdio)": json.dumps(stdio, indent=2),
        "Claude Code (HTTP)": claude_code,
        "Cursor (HTTP)": json.dumps(http, indent=2),
    }
