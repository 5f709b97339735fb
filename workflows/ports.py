"""The browser port: what the engine and the operations need from a browser, as a Protocol (no Qt).

`app/browser` implements it over QtWebEngine. Everything above this line talks to pages only through it.
"""

from __future__ import annotations

from typing import Protocol


class BrowserPort(Protocol):
    async def open_environment(self, env_id: str) -> None:
        """Open (or raise) the environment's window."""

    async def release_environment(self, env_id: str) -> None:
        """Close the environment's window and free its profile, clearing its cookies and cache, so its
        partition folder can be deleted."""

    async def open_tab(self, env_id: str, url: str) -> str:
        """Open `url` in a new tab of the environment's window; return the tab id."""
