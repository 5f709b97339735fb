"""A tab's control part: who acts on it (agent, handoff, shared), the rules an acting operation follows, and
what every operation reports besides its own result (app/browser/control.py holds the state machine and the
input filter; this part is what the operations see of it)."""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from app.browser import capture, locators
from app.browser.control import ControlState
from app.browser.parts.core import TabCore, capture_name
from app.browser.recorder import app_acting
from plumbing import loggers
from workflows.ports import Control, Locator
from workflows.results import TabEvents

log = logging.getLogger(loggers.BROWSER)


class TabControlPart:
    def __init__(self, core: TabCore) -> None:
        self._core = core

    @property
    def state(self) -> Control:
        return str(self._core.control.state)  # type: ignore[return-value]

    def consume_taken_over(self) -> bool:
        return self._core.control.consume_taken_over()

    def drain_events(self) -> TabEvents:
        page = self._core.page
        new_tabs = [tab_id for tab_id in (self._core.tab_id_of_page(p) for p in page.drain_new_pages()) if tab_id]
        # Lists the app itself just took from its page (no validation: every operation on the tab asks).
        return TabEvents.model_construct(dialogs=page.drain_dialogs(), new_tabs=new_tabs)

    async def error_shot(self) -> str | None:
        try:
            result = await capture.screenshot(self._core.view, self._core.folders.captures
                                              / capture_name("error", ".png"), timeout=5.0)
        except Exception as exc:  # a failure report must not fail because its picture could not be taken
            log.info("no error screenshot for %s: %s", self._core.tab_id, exc)
            return None
        return str(result["path"])

    def app_acting(self) -> AbstractContextManager[None]:
        return app_acting(self._core.view)

    async def before_acting(self, target: Locator | None, timeout: float) -> None:
        """In handoff, wait for the person (Done) or for the target to appear, then lock for the agent."""
        view, page = self._core.view, self._core.page
        view.health.check()
        if not view.isVisible() and not page.isVisible():
            # A tab in the background of a window gets no frames, and Chromium drops input and file choosers
            # until a page has painted: let its page render while hidden.
            page.setVisible(True)
        control = self._core.control
        if control.state is not ControlState.HANDOFF:
            return

        async def target_present() -> bool:
            return target is not None and await locators.is_visible(page, target)

        await control.wait_handoff_end(target_present if target is not None else None, timeout)

    async def set_state(self, control: Control, message: str | None = None) -> None:
        self._core.control.set_state(control, message)

    async def wait_handoff_done(self, timeout: float) -> str:
        return await self._core.control.wait_handoff_end(None, timeout)
