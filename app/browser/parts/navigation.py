"""A tab's navigation part: loading an address (made the way the address bar makes one) and moving through
the tab's history, each waiting as asked and failing with its reason (app/browser/navigation.py)."""

from __future__ import annotations

from typing import Literal

from app.browser.navigation import navigate
from app.browser.parts.core import TabCore
from app.browser.urls import as_address
from workflows.ports import PageError, WaitUntil
from workflows.results import LoadResult


class TabNavigation:
    def __init__(self, core: TabCore) -> None:
        self._core = core

    async def navigate(self, url: str, wait_until: WaitUntil, timeout: float) -> LoadResult:
        """Load `url`, made an address the way the address bar makes one (`127.0.0.1:8765/x` is http://…);
        text that is no address is an error naming it, never a blank page reported as loaded."""
        address = as_address(url)
        if address is None:
            raise PageError(f"{url!r} is not an address to load (give a URL such as https://example.com/page)",
                            code="invalid_address")
        view = self._core.view
        return await self._core.guarded(navigate(self._core.page, lambda: view.open(address), wait_until, timeout,
                                                 url=address))

    async def history(self, action: Literal["back", "forward", "reload"], wait_until: WaitUntil,
                      timeout: float) -> LoadResult:
        view = self._core.view
        history = view.history()
        if action == "back" and not history.canGoBack():
            raise PageError("there is no previous page in this tab's history", code="no_history")
        if action == "forward" and not history.canGoForward():
            raise PageError("there is no next page in this tab's history", code="no_history")
        return await self._core.guarded(navigate(self._core.page, getattr(view, action), wait_until, timeout))
