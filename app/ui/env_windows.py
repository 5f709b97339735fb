"""The environments' windows, keyed by environment id: each shows the tabs of its environment that the browser
service (app/browser/service.py) asks to show, and nothing owns a tab's life here.

- A tab made to be shown (an agent's tab, a person's new tab, a popup of a shown tab) goes into its
  environment's window, which is made (with its Agent panel) the first time it is needed.
- A windowless tab that needs a person (a handoff) is shown the same way, and its window comes to the front.
- A tab the service closed leaves its window; a window closes with its last tab.
- `show_environment` opens (or raises) an environment's window for a person, with a tab.
- A window follows its environment's name and tab groups in the stores, whoever changed them (app/ui/follow.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox

from app.browser.parts.tab import Tab
from app.browser.service import BrowserService, EnvironmentStartError
from app.ui.env_window import EnvWindow
from app.ui.follow import Changed
from app.ui.op_runner import OpRunner
from plumbing import loggers
from envs.groups import GroupStore
from envs.store import EnvStore

log = logging.getLogger(loggers.UI)


class EnvWindows(QObject):
    close_refused = Signal(str)  # env id: a window a person kept open when asked (its recording)

    def __init__(self, service: BrowserService, envs: EnvStore, groups: GroupStore, ops: OpRunner, *,
                 search_url: Callable[[], str], home_url: Callable[[], str], show_main_window: Callable[[], None],
                 furnish: Callable[[EnvWindow], None] = lambda _window: None) -> None:
        super().__init__(service)
        self.service = service
        self.envs = envs
        self.groups = groups
        self.ops = ops
        self._search_url = search_url
        self._home_url = home_url
        self._show_main_window = show_main_window
        self._furnish = furnish  # what the app adds to each new window (the Agent panel)
        self.windows: dict[str, EnvWindow] = {}
        service.tab_opened.connect(self._on_tab_opened)
        service.tab_shown.connect(self._on_tab_shown)
        service.tab_closed.connect(self._on_tab_closed)
        service.tab_activated.connect(self._on_tab_activated)
        service.groups_changed.connect(self._on_groups_changed)
        ops.changes.changed.connect(self._on_stores_changed)

    def window_for(self, env_id: str, raise_window: bool = True) -> tuple[EnvWindow, bool]:
        window = self.windows.get(env_id)
        created = window is None
        if window is None:
            env = self.envs.get(env_id)
            window = EnvWindow(env.id, env.name, self.service, search_url=self._search_url, home_url=self._home_url,
                               show_main_window=self._show_main_window, groups=self.groups, ops=self.ops)
            window.closed.connect(self._on_window_closed)
            window.close_refused.connect(self.close_refused)
            self._furnish(window)
            self.windows[env_id] = window
            window.show()
        elif raise_window:
            window.showNormal()
        if raise_window:
            window.raise_()
            window.activateWindow()
        return window, created

    def show_environment(self, env_id: str) -> EnvWindow | None:
        """Open (with a tab) or raise the environment's window; an environment that cannot start says why (and
        None)."""
        try:
            self.service.profile(env_id)
        except EnvironmentStartError as exc:
            QMessageBox.warning(None, self.tr("Open Environment"), str(exc)[:1].upper() + str(exc)[1:])
            return None
        window, _created = self.window_for(env_id)
        if not window.tab_list():
            window.new_tab()
        return window

    def close_all(self) -> None:
        for window in list(self.windows.values()):
            window.close_quietly()
        self.windows.clear()

    # -- following the service ---------------------------------------------------------------------------
    def _on_tab_opened(self, tab: Tab) -> None:
        if self.service.shown(tab.tab_id):
            window, _created = self.window_for(tab.env_id, raise_window=False)
            window.add_tab(tab, activate=self.service.active_tab(tab.env_id) is tab)

    def _on_tab_shown(self, tab: Tab) -> None:
        """A windowless tab needs a person: into its window, in front."""
        window, _created = self.window_for(tab.env_id)
        window.add_tab(tab)

    def _on_tab_closed(self, tab_id: str, env_id: str) -> None:
        window = self.windows.get(env_id)
        if window is not None:
            window.remove_tab(tab_id)

    def _on_tab_activated(self, tab: Tab) -> None:
        window = self.windows.get(tab.env_id)
        if window is not None and window.tabs.indexOf(tab.view) >= 0:
            window.tabs.setCurrentWidget(tab.view)
            window.showNormal()
            window.raise_()
            window.activateWindow()

    def _on_groups_changed(self, env_id: str, tab_id: str) -> None:
        window = self.windows.get(env_id)
        if window is not None:
            window.group_changed(tab_id)

    def _on_stores_changed(self, changed: Changed) -> None:
        """An environment renamed (its window's title), or its tab groups changed (its tab bar)."""
        for env_id in changed.of("envs"):
            window = self.windows.get(env_id or "")
            if window is not None and self.envs.exists(window.env_id):
                window.set_env_name(self.envs.get(window.env_id).name)
        for env_id in changed.of("groups"):
            window = self.windows.get(env_id or "")
            if window is not None:
                window.refresh_groups()

    def _on_window_closed(self, env_id: str) -> None:
        self.windows.pop(env_id, None)
