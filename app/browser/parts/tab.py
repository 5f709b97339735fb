"""`Tab`: one tab as the operations see it, its ids and its parts (`workflows.ports.TabPort`).

The view (`BrowserTab`: a `QWebEngineView` and its `BrowserPage`) may be shown in an environment window or
have none (app/browser/service.py); the parts work the same either way."""

from __future__ import annotations

from collections.abc import Callable

from app.browser.control import TabControl
from app.browser.netcapture import NetServices
from app.browser.parts.capture import TabCapture
from app.browser.parts.control import TabControlPart
from app.browser.parts.core import TabCore, TabFolders
from app.browser.parts.input import TabInput
from app.browser.parts.navigation import TabNavigation
from app.browser.parts.network import TabNetwork
from app.browser.parts.reading import TabReading
from app.browser.parts.recording import TabRecording
from app.browser.tab import BrowserPage, BrowserTab


class Tab:
    def __init__(self, view: BrowserTab, control: TabControl, folders: TabFolders,
                 tab_id_of_page: Callable[[object], str | None], net: NetServices | None = None) -> None:
        self.core = TabCore(view, control, folders, tab_id_of_page, net)
        self.tab_id = view.tab_id
        self.env_id = view.env_id
        self.view = view
        self.control = TabControlPart(self.core)
        self.navigation = TabNavigation(self.core)
        self.input = TabInput(self.core)
        self.reading = TabReading(self.core)
        self.capture = TabCapture(self.core)
        self.network = TabNetwork(self.core)
        self.recording = TabRecording(self.core)

    @property
    def page(self) -> BrowserPage:
        return self.view.browser_page

    @property
    def control_state(self) -> TabControl:
        """Who has the tab (agent, person, shared): the state machine the window's overlay and banner follow.
        `control` is the part the operations call (take over, hand back)."""
        return self.core.control

    def __repr__(self) -> str:
        return f"<Tab {self.tab_id} of {self.env_id}>"
