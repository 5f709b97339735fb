"""The window of one environment: a browser people know.

A compact toolbar (back, forward, reload that turns into stop while a page loads, home, the address bar, the
tab's control state as a coloured chip, record, downloads with a badge, and a menu), the tab strip with
favicons (a spinning loader while a tab loads, a globe where a site has no icon), and the page. Load progress
is a thin accent line along the bottom of the address bar, not a separate bar. Icons come from `app.ui.theme`
and follow the light or dark theme.

The window only shows tabs: the browser service (app/browser/service.py) makes, keeps and closes them, and hands
this window the ones of its environment to show (`add_tab`; app/ui/env_windows.py routes them). All of them use
the environment's profile, so they share its login. Pages that open a new window (`target=_blank`,
`window.open`) open as tabs beside their opener. Closing a tab or the window asks the service to close the
tabs; the window closes with its last tab (the profile and its login stay).

Every tab has a `TabControl` (app/browser/control.py: agent / handoff / shared); the window gives the tabs it
shows their overlay and banner (app/ui/control_overlay.py). The tab's icon gets a coloured dot and its tooltip a
line for the state, and the toolbar's chip shows the current tab's state (Agent in the accent colour, Your turn
in amber, Shared in grey).

Tabs can be grouped (groups of envs/groups.py, kept by the browser service, shown by `GroupedTabBar`, app/ui/window_chrome.py): a
group's tabs sit together, each underlined in the group's colour, the first one with a chip bearing the group's
name. A person groups tabs by right-clicking a tab; agents with tab_group. Both go through the operations
registry.

Downloads (app/ui/downloads_panel.py) is a dock listing the environment's downloads; the toolbar button's
badge counts the ones not seen yet, and a download a person starts opens the list.
"""

from __future__ import annotations

import logging
from typing import Callable

from PySide6.QtCore import (QEvent, QMetaObject, QObject, QPoint, QSize, Qt,
                            QTimer, QUrl, Signal)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QColor,
    QIcon,
    QKeySequence,
)
from PySide6.QtWebEngineCore import QWebEngineDownloadRequest
from PySide6.QtWidgets import (
    QDockWidget,
    QInputDialog,
    QLabel,
    QMenu,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QTabBar,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from app.browser.control import ControlState, TabControl
from app.browser.downloads import DownloadRecord
from app.browser.parts.tab import Tab
from app.browser.recorder import TabRecorder
from app.browser.service import BrowserService
from app.ops import group_ops, recording_ops
from app.browser.tab import BrowserTab
from app.browser.urls import address_to_url
from app.ui.control_overlay import ControlDecorations, attach_control_ui, state_chip, state_icon, state_text
from app.ui.downloads_panel import DownloadsPanel
from app.ui.op_runner import OpRunner
from app.ui.recording_panel import RECORDING_RED, RecordingWatcher, RecordPanel
from app.ui.theme import icon
from app.ui.window_chrome import AddressBar, BadgeButton, GroupedTabBar, TabSpinner, group_chip, window_title
from plumbing import loggers
from envs.groups import GroupError, GroupStore, TabGroup

log = logging.getLogger(loggers.UI)

TAB_TITLE_CHARS = 28
TOOLBAR_ICON = QSize(18, 18)
TAB_ICON = 16
PANEL_ICONS = {"agent-dock": "bot"}  # docks that others add to the window, shown on the toolbar


class EnvWindow(QMainWindow):
    closed = Signal(str)  # env id
    close_refused = Signal(str)  # env id: a person kept the window open (its recording), quitting too
    tab_opened = Signal(object)  # BrowserTab

    def __init__(self, env_id: str, env_name: str, service: BrowserService,
                 search_url: Callable[[], str], home_url: Callable[[], str],
                 show_main_window: Callable[[], None], parent: QWidget | None = None,
                 groups: GroupStore | None = None, ops: OpRunner | None = None) -> None:
        super().__init__(parent)
        self.env_id = env_id
        self.service = service
        self._groups = groups
        self._ops = ops
        self._load_progress: dict[str, int] = {}  # tab id -> last load progress
        self._favicons: dict[str, tuple[str, QIcon]] = {}  # tab id -> (address, its last favicon)
        self._followed: dict[str, list[QMetaObject.Connection]] = {}  # tab id -> this window's connections
        self._search_url = search_url
        self._home_url = home_url
        self._ask_before_closing = True  # about a recording; not while the app shuts down (`close_quietly`)
        self.setObjectName(f"env-window-{env_id}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.resize(1200, 800)
        self.set_env_name(env_name)

        self.tabs = QTabWidget(self)
        self.tabs.setTabBar(GroupedTabBar(self._group_colour_at, self.tabs))
        self.tabs.tabBar().setObjectName("envTabs")
        self.tabs.tabBar().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tabs.tabBar().customContextMenuRequested.connect(self._tab_menu)
        self.tabs.tabBar().setExpanding(False)
        self.tabs.tabBar().setDrawBase(False)
        self.tabs.setIconSize(QSize(TAB_ICON, TAB_ICON))
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(False)  # each tab gets a close button of ours (a themed icon): _add_close_button
        self.tabs.setMovable(True)
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.tabCloseRequested.connect(self.close_tab_at)
        self.tabs.currentChanged.connect(self._on_current_changed)
        new_tab_button = QToolButton(self)
        new_tab_button.setObjectName("new-tab")
        new_tab_button.setIcon(icon("plus"))
        new_tab_button.setToolTip(self.tr("New tab (Ctrl+T)"))
        new_tab_button.setAccessibleName(self.tr("New tab"))
        new_tab_button.setAutoRaise(True)
        new_tab_button.clicked.connect(lambda: self.new_tab(focus_address=True))
        self.tabs.setCornerWidget(new_tab_button, Qt.Corner.TopRightCorner)
        self.setCentralWidget(self.tabs)
        self._fallback_icon = icon("globe")
        self._spinner = TabSpinner(self, TAB_ICON)
        self._spinner.turned.connect(self._spin)

        self.address = AddressBar(self)
        self.address.setPlaceholderText(self.tr("Search or enter an address"))
        self.address.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.address.returnPressed.connect(self._on_address_entered)

        self.control_label = QToolButton(self)
        self.control_label.setObjectName("control-state")
        self.control_label.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.control_label.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.control_label.setIconSize(QSize(14, 14))

        self._build_actions(show_main_window)
        self._build_recording()
        self._build_downloads()
        self._build_menu()
        self._built = True

    # -- building --------------------------------------------------------------------------------------
    def _action(self, text: str, shortcuts: list[QKeySequence | str], handler: Callable[[], object],
                icon_name: str | None = None, tip: str | None = None) -> QAction:
        action = QAction(text, self)
        if icon_name is not None:
            action.setIcon(icon(icon_name))
        action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: handler())
        self.addAction(action)
        return action

    def _build_actions(self, show_main_window: Callable[[], None]) -> None:
        self.back_action = self._action(self.tr("Back"), [QKeySequence.StandardKey.Back, "Alt+Left"],
                                        lambda: self._current_do("back"), "arrow-left", self.tr("Back (Alt+Left)"))
        self.forward_action = self._action(self.tr("Forward"), [QKeySequence.StandardKey.Forward, "Alt+Right"],
                                           lambda: self._current_do("forward"), "arrow-right",
                                           self.tr("Forward (Alt+Right)"))
        self.reload_action = self._action(self.tr("Reload"), ["F5", "Ctrl+R"], lambda: self._current_do("reload"),
                                          "rotate-cw", self.tr("Reload (F5)"))
        self.stop_action = self._action(self.tr("Stop"), ["Esc"], lambda: self._current_do("stop"), "x",
                                        self.tr("Stop loading (Esc)"))
        self.stop_action.setVisible(False)
        self.home_action = self._action(self.tr("Home"), ["Alt+Home"], self._go_home, "house",
                                        self.tr("Home page (Alt+Home)"))
        self.new_tab_action = self._action(self.tr("New Tab"), ["Ctrl+T"], lambda: self.new_tab(focus_address=True),
                                           "plus")
        self.close_tab_action = self._action(self.tr("Close Tab"), ["Ctrl+W", "Ctrl+F4"],
                                             lambda: self.close_tab_at(self.tabs.currentIndex()), "x")
        self.next_tab_action = self._action(self.tr("Next Tab"), ["Ctrl+Tab", "Ctrl+PgDown"], lambda: self._cycle_tab(1),
                                            "chevron-right")
        self.previous_tab_action = self._action(self.tr("Previous Tab"), ["Ctrl+Shift+Tab", "Ctrl+PgUp"],
                                                lambda: self._cycle_tab(-1), "chevron-left")
        self.focus_address_action = self._action(self.tr("Open Location"), ["Ctrl+L", "F6", "Alt+D"],
                                                 self._focus_address, "search")
        self.close_window_action = self._action(self.tr("Close Window"), ["Ctrl+Shift+W"], self.close, "log-out")
        self.environments_action = self._action(self.tr("Environments"), ["Ctrl+Shift+E"], show_main_window,
                                                "layout-grid", self.tr("Show the environments (Ctrl+Shift+E)"))
        for action in (self.back_action, self.forward_action):
            action.setEnabled(False)

        toolbar = QToolBar(self.tr("Navigation"), self)
        toolbar.setObjectName("navigation")
        toolbar.setMovable(False)
        toolbar.setFloatable(False)
        toolbar.setIconSize(TOOLBAR_ICON)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        toolbar.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        for action in (self.back_action, self.forward_action, self.reload_action, self.stop_action,
                       self.home_action):
            toolbar.addAction(action)
        toolbar.addWidget(self.address)
        self.control_chip_action = toolbar.addWidget(self.control_label)
        self.navigation = toolbar
        self.addToolBar(toolbar)

        menu = self.menuBar()
        file_menu = menu.addMenu(self.tr("&File"))
        for action in (self.new_tab_action, self.focus_address_action, self.close_tab_action, self.close_window_action):
            file_menu.addAction(action)
        view_menu = menu.addMenu(self.tr("&View"))
        view_menu.setObjectName("view-menu")
        for action in (self.back_action, self.forward_action, self.reload_action, self.stop_action,
                       self.home_action, self.next_tab_action, self.previous_tab_action):
            view_menu.addAction(action)
        window_menu = menu.addMenu(self.tr("&Window"))
        window_menu.addAction(self.environments_action)
        self._menus = (file_menu, view_menu, window_menu)

    def _build_menu(self) -> None:
        """The browser's menu button at the end of the toolbar: the menu bar's menus (File, View, Window),
        so the window needs no menu bar of its own."""
        button = QToolButton(self)
        button.setObjectName("main-menu")
        button.setIcon(icon("ellipsis-vertical"))
        button.setIconSize(TOOLBAR_ICON)
        button.setToolTip(self.tr("Menu"))
        button.setAccessibleName(self.tr("Menu"))
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        main_menu = QMenu(button)
        main_menu.addAction(self.new_tab_action)
        main_menu.addAction(self.environments_action)
        main_menu.addSeparator()
        for menu in self._menus:
            main_menu.addMenu(menu)
        button.setMenu(main_menu)
        self.main_menu = main_menu
        self.navigation.addWidget(button)
        self.menuBar().hide()  # its menus live in the menu button; their shortcuts are the window's actions
    # -- tabs ------------------------------------------------------------------------------------------
    def set_env_name(self, name: str) -> None:
        self.env_name = name
        self._update_window_title(self.current_tab() if hasattr(self, "tabs") else None)

    def tab_list(self) -> list[BrowserTab]:
        return [self.tabs.widget(i) for i in range(self.tabs.count())]  # type: ignore[misc]

    def current_tab(self) -> BrowserTab | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, BrowserTab) else None

    def new_tab(self, url: str | None = None, focus_address: bool = False) -> BrowserTab:
        """A person's new tab (Ctrl+T, the + button): shared, in front; the browser service makes it and this
        window shows it (`add_tab`)."""
        tab = self.service.new_tab(self.env_id, url, control=ControlState.SHARED, show=True)
        if focus_address:
            self._focus_address()
        return tab.view

    def add_tab(self, tab: Tab, activate: bool = True) -> None:
        """Show a tab the browser service made (or one it had kept without a window) in this window."""
        view = tab.view
        tab_control = tab.control_state
        if view.findChild(ControlDecorations) is None:
            attach_control_ui(tab_control)
        # What this window follows of the tab, undone when the tab leaves it (the tab may outlive the window).
        self._followed[view.tab_id] = [
            tab_control.state_changed.connect(lambda _state, t=view: self._on_control_state(t)),
            view.titleChanged.connect(lambda title, t=view: self._on_title(t, title)),
            view.iconChanged.connect(lambda icon, t=view: self._set_tab_icon(t, icon)),
            view.urlChanged.connect(lambda qurl, t=view: self._on_url(t, qurl)),
            view.loadStarted.connect(lambda t=view: self._on_load_progress(t, 0)),
            view.loadProgress.connect(lambda value, t=view: self._on_load_progress(t, value)),
            view.loadFinished.connect(lambda ok, t=view: self._on_load_progress(t, 100)),
            view.browser_page.linkHovered.connect(lambda link: self.statusBar().showMessage(link, 3000)),
        ]
        current = self.tabs.currentIndex()
        index = self.tabs.insertTab(current + 1 if current >= 0 else 0, view, self.tr("New Tab"))
        self._add_close_button(view)
        self._on_title(view, view.title())
        self._on_control_state(view)
        if activate:
            self.tabs.setCurrentIndex(index)
        self.tab_opened.emit(view)

    def remove_tab(self, tab_id: str) -> None:
        """The browser service closed the tab: take it out of this window (the service deletes it); the window
        closes with its last tab."""
        view = next((t for t in self.tab_list() if t.tab_id == tab_id), None)
        if view is None:
            return
        self._unfollow(tab_id)
        self.tabs.removeTab(self.tabs.indexOf(view))
        view.hide()
        view.setParent(None)
        self.refresh_groups()
        if self.tabs.count() == 0:
            self.close()

    def _unfollow(self, tab_id: str) -> None:
        for connection in self._followed.pop(tab_id, []):
            QObject.disconnect(connection)
        self._load_progress.pop(tab_id, None)
        self._favicons.pop(tab_id, None)

    def _add_close_button(self, tab: BrowserTab) -> None:
        bar = self.tabs.tabBar()
        button = QToolButton(bar)
        button.setObjectName("tab-close")
        button.setIcon(icon("x"))
        button.setIconSize(QSize(12, 12))
        button.setAutoRaise(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setToolTip(self.tr("Close tab (Ctrl+W)"))
        button.setAccessibleName(self.tr("Close tab"))
        button.clicked.connect(lambda _checked=False, t=tab: self.tabs.tabCloseRequested.emit(self.tabs.indexOf(t)))
        bar.setTabButton(self.tabs.indexOf(tab), QTabBar.ButtonPosition.RightSide, button)

    @staticmethod
    def control_of(tab: BrowserTab) -> TabControl:
        control = TabControl.of(tab)
        assert control is not None, "every tab of an EnvWindow has a TabControl"
        return control

    def close_tab_at(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if isinstance(widget, BrowserTab):
            self.close_tab(widget)

    def close_tab(self, tab: BrowserTab) -> None:
        """A person closes a tab: the browser service closes it (and `remove_tab` takes it out of here)."""
        if self.tabs.indexOf(tab) >= 0:
            self.service.close(tab.tab_id)

    def _cycle_tab(self, step: int) -> None:
        if self.tabs.count():
            self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())

    def _current_do(self, what: str) -> None:
        tab = self.current_tab()
        if tab is not None:
            getattr(tab, what)()

    # -- tab groups ------------------------------------------------------------------------------------
    def _group(self, group_id: str | None) -> TabGroup | None:
        if group_id is None or self._groups is None:
            return None
        try:
            return self._groups.get(group_id)
        except GroupError:
            return None

    def _group_colour_at(self, index: int) -> QColor | None:
        widget = self.tabs.widget(index)
        group = self._group(self._group_of(widget.tab_id)) if isinstance(widget, BrowserTab) else None
        return QColor(group.color) if group is not None else None

    def _group_of(self, tab_id: str) -> str | None:
        return self.service.tab_groups(self.env_id).get(tab_id)

    def group_changed(self, tab_id: str) -> None:
        """A tab of this window joined or left a group (the browser service keeps which): it moves next to its
        group's other tabs, and the chips are redrawn."""
        view = next((t for t in self.tab_list() if t.tab_id == tab_id), None)
        group_id = self._group_of(tab_id)
        if view is not None and group_id is not None:
            members = [i for i, t in enumerate(self.tab_list()) if t is not view and self._group_of(t.tab_id) == group_id]
            if members:
                here, last = self.tabs.indexOf(view), members[-1]
                self.tabs.tabBar().moveTab(here, last + 1 if here > last else last)
        self.refresh_groups()

    def refresh_groups(self) -> None:
        """Redraw the groups: chips on each group's first tab, colours, tooltips."""
        bar = self.tabs.tabBar()
        seen: set[str] = set()
        for index, tab in enumerate(self.tab_list()):
            group = self._group(self._group_of(tab.tab_id))
            first = group is not None and group.id not in seen
            if group is not None:
                seen.add(group.id)
            bar.setTabButton(index, QTabBar.ButtonPosition.LeftSide, group_chip(group) if first and group else None)
            self._update_tab_tooltip(tab)
        bar.update()

    def _tab_menu(self, pos: QPoint) -> None:
        index = self.tabs.tabBar().tabAt(pos)
        tab = self.tabs.widget(index)
        if not isinstance(tab, BrowserTab) or self._ops is None or self._groups is None:
            return
        menu = QMenu(self)
        menu.addAction(icon("plus"), self.tr("Add to new group…"), lambda: self._new_group_for(tab))
        current = self._group_of(tab.tab_id)
        others = [g for g in self._groups.list(self.env_id) if g.id != current]
        if others:
            submenu = menu.addMenu(icon("layers"), self.tr("Add to group"))
            for group in others:
                submenu.addAction(group.name or group.color, lambda g=group.id: self._join(tab, g))
        if current is not None:
            menu.addAction(icon("minus"), self.tr("Remove from group"), lambda: self._join(tab, None))
        menu.addSeparator()
        menu.addAction(icon("x"), self.tr("Close tab"), lambda: self.close_tab(tab))
        menu.popup(self.tabs.tabBar().mapToGlobal(pos))

    def _new_group_for(self, tab: BrowserTab) -> None:
        name, ok = QInputDialog.getText(self, self.tr("New tab group"), self.tr("Name of the group:"))
        if ok and self._ops is not None:
            self._ops.run(group_ops.group_create, {"name": name, "env": self.env_id}, self,
                          on_ok=lambda answer: self._join(tab, answer.result.id))

    def _join(self, tab: BrowserTab, group_id: str | None) -> None:
        if self._ops is not None:
            self._ops.run(group_ops.tab_group, {"tab_id": tab.tab_id, "group_id": group_id}, self)

    # -- reacting to pages -----------------------------------------------------------------------------
    def _on_title(self, tab: BrowserTab, title: str) -> None:
        index = self.tabs.indexOf(tab)
        if index < 0:
            return
        text = title or tab.url().toString() or self.tr("New Tab")
        short = text if len(text) <= TAB_TITLE_CHARS else text[: TAB_TITLE_CHARS - 1] + "…"
        self.tabs.setTabText(index, short)
        self._update_tab_tooltip(tab)
        if tab is self.current_tab():
            self._update_window_title(tab)

    def _set_tab_icon(self, tab: BrowserTab, icon: QIcon | None = None) -> None:
        """The tab's icon: a spinning loader while it loads, else its favicon (a globe when the site has
        none), with the control state's dot."""
        index = self.tabs.indexOf(tab)
        if index < 0:
            return
        favicon = self._favicon(tab, icon if icon is not None else tab.icon())
        base = self._spinner.frame() if tab.loading else (favicon if not favicon.isNull() else self._fallback_icon)
        control = TabControl.of(tab)
        self.tabs.setTabIcon(index, state_icon(base, control.state, self.palette(), TAB_ICON) if control else base)

    def _favicon(self, tab: BrowserTab, favicon: QIcon) -> QIcon:
        """The page's favicon; QtWebEngine drops it when a link turns out to be a download (the page stays),
        so the last one of the same address is kept."""
        url = tab.url().toString()
        if not favicon.isNull():
            self._favicons[tab.tab_id] = (url, favicon)
            return favicon
        kept = self._favicons.get(tab.tab_id)
        return kept[1] if kept is not None and kept[0] == url else favicon

    def _spin(self) -> None:
        """The spinner turned: redraw the loading tabs' icons; it stops when none loads."""
        loading = [tab for tab in self.tab_list() if tab.loading]
        for tab in loading:
            self._set_tab_icon(tab)
        if not loading:
            self._spinner.stop()

    def _update_tab_tooltip(self, tab: BrowserTab) -> None:
        index = self.tabs.indexOf(tab)
        control = TabControl.of(tab)
        if index < 0:
            return
        text = tab.title() or tab.url().toString() or self.tr("New Tab")
        group = self._group(self._group_of(tab.tab_id))
        if group is not None:
            text += "\n" + self.tr("Group: {name}").format(name=group.name or group.color)
        self.tabs.setTabToolTip(index, f"{text}\n{state_text(control.state)}" if control else text)

    def _on_control_state(self, tab: BrowserTab) -> None:
        self._set_tab_icon(tab)
        self._update_tab_tooltip(tab)
        if tab is self.current_tab():
            self._show_control_state(tab)

    def _show_control_state(self, tab: BrowserTab) -> None:
        """The toolbar's chip: the state in a word or two, on its colour; the full sentence as tooltip."""
        control = TabControl.of(tab)
        if control is None:
            self.control_chip_action.setVisible(False)
            return
        chip = state_chip(control.state, self.palette())
        self.control_label.setText(chip.text)
        self.control_label.setIcon(icon(chip.icon, color=chip.foreground))
        self.control_label.setProperty("controlState", str(control.state))
        self.control_label.setStyleSheet(
            f"QToolButton#control-state {{ background: {chip.background.name()}; color: {chip.foreground.name()}; "
            f"border: none; border-radius: 11px; padding: 2px 10px 2px 8px; font-weight: 600; margin: 0 4px; }}")
        tip = state_text(control.state)
        if control.message and control.state is not ControlState.SHARED:
            tip = f"{tip}\n{control.message}"
        self.control_label.setToolTip(tip)
        self.control_label.setAccessibleName(state_text(control.state))
        self.control_chip_action.setVisible(True)

    def _on_url(self, tab: BrowserTab, url: QUrl) -> None:
        if tab is self.current_tab():
            self._show_address(url)
            self._update_history_actions()

    def _on_load_progress(self, tab: BrowserTab, value: int) -> None:
        self._load_progress[tab.tab_id] = value
        self._set_tab_icon(tab)
        if tab.loading and not self._spinner.isActive():
            self._spinner.start()
        if tab is not self.current_tab():
            return
        self._show_loading(tab)
        self._update_history_actions()

    def _show_loading(self, tab: BrowserTab) -> None:
        """The address bar's progress line and reload/stop, for the front tab."""
        value = self._load_progress.get(tab.tab_id, 0)
        loading = tab.loading and value < 100
        self.address.set_load_progress(value if loading else None)
        self.reload_action.setVisible(not loading)
        self.stop_action.setVisible(loading)

    def _on_current_changed(self, index: int) -> None:
        tab = self.current_tab()
        if tab is None:
            return
        self.service.note_current(tab.tab_id)
        self._show_address(tab.url())
        self._update_history_actions()
        self._show_loading(tab)
        self._update_window_title(tab)
        self._show_control_state(tab)
        self._show_recording(tab)

    def _update_window_title(self, tab: BrowserTab | None) -> None:
        title = tab.title() if tab is not None else ""
        if title and not title.startswith(("about:", "data:")):
            self.setWindowTitle(f"{title} — {window_title(self.env_name)}")
        else:
            self.setWindowTitle(window_title(self.env_name))

    def _update_history_actions(self) -> None:
        tab = self.current_tab()
        history = tab.history() if tab is not None else None
        self.back_action.setEnabled(bool(history and history.canGoBack()))
        self.forward_action.setEnabled(bool(history and history.canGoForward()))

    def _show_address(self, url: QUrl) -> None:
        self.address.show_site(url)
        if not self.address.hasFocus():
            text = url.toString()
            self.address.setText("" if text == "about:blank" else text)

    def _focus_address(self) -> None:
        self.address.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.address.selectAll()

    def _on_address_entered(self) -> None:
        url = address_to_url(self.address.text(), self._search_url())
        tab = self.current_tab() or self.new_tab()
        tab.open(url)
        tab.setFocus()

    def _go_home(self) -> None:
        tab = self.current_tab() or self.new_tab()
        tab.open(self._home_url())

    # -- recording ---------------------------------------------------------------------------
    def _build_recording(self) -> None:
        """The Record button (Ctrl+Shift+R) for the front tab, its red indicators and the Recording panel."""
        self.record_action = self._action(self.tr("Record"), ["Ctrl+Shift+R"], self._toggle_recording, None,
                                          self.tr("Record what you do in this tab as a workflow (Ctrl+Shift+R)"))
        self.record_action.setIcon(icon("circle-dot", color=RECORDING_RED))
        self.record_action.setObjectName("record")
        self.record_action.setCheckable(True)
        self.navigation.addAction(self.record_action)
        self.record_label = QLabel(self)
        self.record_label.setObjectName("record-state")
        self.record_label.setTextFormat(Qt.TextFormat.RichText)
        self.record_label.hide()
        self.statusBar().addPermanentWidget(self.record_label)
        self.recording_panel: RecordPanel | None = None
        self._recording_watcher = RecordingWatcher(self._show_recording, self)
        self.tab_opened.connect(self._recording_watcher.watch)
        if self._ops is not None:
            self.recording_panel = RecordPanel(self._ops, self)
            self.recording_panel.stopped.connect(lambda _name: self._show_recording(self.current_tab()))
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.recording_panel)
            self.recording_panel.hide()

    def _toggle_recording(self) -> None:
        tab = self.current_tab()
        if tab is None or self._ops is None or self.recording_panel is None:
            self.record_action.setChecked(False)
            return
        if TabRecorder.of(tab) is not None:
            self.recording_panel.show()
            self.recording_panel.stop()
            self._show_recording(tab)
            return
        self._ops.run(recording_ops.record_start, {"tab_id": tab.tab_id}, self)

    def _show_recording(self, tab: BrowserTab | None) -> None:
        """Red indicators: the tab's text and the status bar while its tab records; the panel follows the
        front tab."""
        import shiboken6

        for other in self.tab_list():
            index = self.tabs.indexOf(other)
            recording = TabRecorder.of(other) is not None
            self.tabs.tabBar().setTabTextColor(index, QColor(RECORDING_RED) if recording else QColor())
        if tab is None or not shiboken6.isValid(tab) or tab is not self.current_tab():
            return
        recording = TabRecorder.of(tab) is not None
        self.record_action.setChecked(recording)
        self.record_action.setText(self.tr("Stop recording") if recording else self.tr("Record"))
        self.record_action.setIcon(icon("square" if recording else "circle-dot", color=RECORDING_RED))
        recording_text = self.tr("Recording")  # outside the f-string, where lupdate finds it
        self.record_label.setText(f'<span style="color:{RECORDING_RED}">●</span> <b>{recording_text}</b>')
        self.record_label.setVisible(recording)
        if self.recording_panel is not None:
            self.recording_panel.show_tab(tab)
            if recording:
                self.recording_panel.show()

    # -- downloads ---------------------------------------------------------------------------------------
    def _build_downloads(self) -> None:
        """The Downloads dock (this environment's downloads) and its toolbar button with a badge of the
        downloads not seen yet."""
        manager = self.service.downloads(self.env_id)
        self.downloads_panel = DownloadsPanel(manager, self)
        self.downloads_dock = QDockWidget(self.tr("Downloads"), self)
        self.downloads_dock.setObjectName("downloads-dock")
        self.downloads_dock.setWidget(self.downloads_panel)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.downloads_dock)
        self.downloads_dock.hide()
        self.downloads_action = self.downloads_dock.toggleViewAction()
        self.downloads_action.setObjectName("downloads")
        self.downloads_action.setText(self.tr("Downloads"))
        self.downloads_action.setIcon(icon("download"))
        self.downloads_action.setToolTip(self.tr("Downloads (Ctrl+Shift+Y)"))
        self.downloads_action.setShortcut(QKeySequence("Ctrl+Shift+Y"))
        self.downloads_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.addAction(self.downloads_action)
        self.downloads_button = BadgeButton(self)
        self.downloads_button.setObjectName("downloads-button")
        self.downloads_button.setDefaultAction(self.downloads_action)
        self.downloads_button.setIconSize(TOOLBAR_ICON)
        self.downloads_button.setAutoRaise(True)
        self._downloads_button_action = self.navigation.addWidget(self.downloads_button)
        self._menus[1].addAction(self.downloads_action)
        self._unseen_downloads = 0
        self.downloads_dock.visibilityChanged.connect(self._on_downloads_visibility)
        manager.download_started.connect(self._on_download_started)

    def addDockWidget(self, area: Qt.DockWidgetArea, dock: QDockWidget, *args: object) -> None:  # noqa: N802
        """A panel docked from outside (the Agent panel) also gets a toolbar button: its toggle action."""
        super().addDockWidget(area, dock, *args)  # type: ignore[call-overload]
        icon_name = PANEL_ICONS.get(dock.objectName())
        if icon_name is not None and hasattr(self, "_downloads_button_action"):
            action = dock.toggleViewAction()
            action.setIcon(icon(icon_name))
            self.navigation.insertAction(self._downloads_button_action, action)

    def _on_download_started(self, record: DownloadRecord, request: QWebEngineDownloadRequest) -> None:
        if self.downloads_dock.isVisible():
            return
        if not record.expected:  # a person's download (an operation's waits for its file itself)
            self.downloads_dock.show()
            return
        self._unseen_downloads += 1
        self.downloads_button.set_count(self._unseen_downloads)

    def _on_downloads_visibility(self, visible: bool) -> None:
        if visible:
            self._unseen_downloads = 0
            self.downloads_button.set_count(0)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        """The theme changed (light/dark): redraw what was drawn in the old colours."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) \
                and getattr(self, "_built", False):
            for tab in self.tab_list():
                self._set_tab_icon(tab)
            current = self.current_tab()
            if current is not None:
                self._show_control_state(current)
                self._show_recording(current)

    # -- closing ---------------------------------------------------------------------------------------
    def close_quietly(self) -> None:
        """Close without asking (the app is shutting down)."""
        self._ask_before_closing = False
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the window closes the tabs it shows (the browser service deletes them; the environment's
        profile and login stay). A tab that records asks first: save the recording, discard it, or keep
        recording."""
        if self._ask_before_closing and not self._recordings_settled():
            event.ignore()
            self.close_refused.emit(self.env_id)
            return
        for tab in self.tab_list():
            self.service.close(tab.tab_id)
        for tab_id in list(self._followed):  # tabs that left without the service (none, normally)
            self._unfollow(tab_id)
        self.closed.emit(self.env_id)
        super().closeEvent(event)

    def _recordings_settled(self) -> bool:
        """Whether the window may close now: no tab records, or the person chose to discard the recordings.
        Saving stops the first recording with a name (then the window asks again for the next one, if any,
        and closes); keeping them leaves the window open."""
        recording = [tab for tab in self.tab_list() if TabRecorder.of(tab) is not None]
        if not recording:
            return True
        tab = recording[0]
        if self.current_tab() is not tab:
            self.tabs.setCurrentWidget(tab)
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Close while recording"),
                          self.tr("This window is recording “{title}”. Save the recording as a workflow before the "
                                  "window closes?").format(title=tab.title() or tab.url().toString() or self.env_name),
                          QMessageBox.StandardButton.NoButton, self)
        box.setObjectName("close-recording")
        save = box.addButton(self.tr("Save Recording…"), QMessageBox.ButtonRole.AcceptRole)
        save.setObjectName("close-recording-save")
        discard = box.addButton(self.tr("Discard Recording"), QMessageBox.ButtonRole.DestructiveRole)
        discard.setObjectName("close-recording-discard")
        keep = box.addButton(self.tr("Keep Recording"), QMessageBox.ButtonRole.RejectRole)
        keep.setObjectName("close-recording-keep")
        box.setDefaultButton(save)
        box.setEscapeButton(keep)
        box.exec()
        clicked = box.clickedButton()
        box.deleteLater()
        if clicked is discard:
            return True
        if clicked is save and self.recording_panel is not None:
            self.recording_panel.show_tab(tab)
            self.recording_panel.stop(then=self._close_after_save)
        return False

    def _close_after_save(self) -> None:
        """A recording was saved on the way out: close (asking again if another tab still records)."""
        QTimer.singleShot(0, self.close)
