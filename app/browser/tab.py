"""A tab: a `QWebEngineView` showing a `BrowserPage` of one environment's profile.

Pages that ask for a new window (`target=_blank`, `window.open`) get a new `BrowserPage` of the same
profile; the window hosting the tab puts it in a new tab (`popup_requested`).
"""

from __future__ import annotations

import logging
import secrets

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

log = logging.getLogger("browserpilot.browser")


def new_tab_id() -> str:
    return f"tab-{secrets.token_hex(4)}"


class BrowserPage(QWebEnginePage):
    popup_requested = Signal(object)  # the new BrowserPage

    def createWindow(self, kind: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        page = BrowserPage(self.profile())
        self.popup_requested.emit(page)
        return page


class BrowserTab(QWebEngineView):
    """One tab of an environment window."""

    def __init__(self, env_id: str, profile: QWebEngineProfile, page: BrowserPage | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tab_id = new_tab_id()
        self.env_id = env_id
        self.browser_page = page if page is not None else BrowserPage(profile)
        self.browser_page.setParent(self)
        self.setPage(self.browser_page)
        self.loading = False
        self.loadStarted.connect(self._on_load_started)
        self.loadFinished.connect(self._on_load_finished)

    def _on_load_started(self) -> None:
        self.loading = True

    def _on_load_finished(self, ok: bool) -> None:
        self.loading = False

    def open(self, url: str) -> None:
        self.loading = True  # before loadStarted arrives, so nobody mistakes the old page for the new one
        self.setUrl(QUrl(url))
