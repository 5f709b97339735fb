"""The window of one environment: tabs, address bar, navigation buttons and load progress.

Every tab of the window uses the environment's profile, so all tabs share its login. Pages that open a new
window (`target=_blank`, `window.open`) open as tabs of this window. Closing the last tab closes the window;
closing the window deletes its pages (the profile and its login stay).

Every tab has a `TabControl` (app/browser/control.py: agent / handoff / shared) with its overlay and banner
(app/ui/control_overlay.py). Tabs start `shared` unless opened with `control="agent"`; a popup starts locked
if its opener is. The tab's icon gets a coloured dot and its tooltip a line for the state, and the status bar
shows the current tab's state.

Tabs can be grouped (groups of envs/groups.py, shown by `GroupedTabBar`): a group's tabs sit together,
each underlined in the group's colour, the first one with a chip bearing the group's name. A person groups
tabs by right-clicking a tab; agents with tab_group. Both go through the operations registry.
"""

from __future__ import annotations

import logging
from typing import Callable

from PySide6.QtCore import QPoint, QRect, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QCloseEvent, QColor, QIcon, QKeySequence, QPainter, QPaintEvent
from PySide6.QtWebEngineCore import QWebEngineProfile
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QMenu,
    QLineEdit,
    QMainWindow,
    QProgressBar,
    QTabBar,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from app.browser.control import ControlState, TabControl
from app.browser.record import TabRecorder
from app.browser.tab import BrowserPage, BrowserTab
from app.browser.urls import address_to_url
from app.ui.control_overlay import attach_control_ui, state_color, state_icon, state_text
from app.ui.op_runner import OpRunner
from app.ui.record_panel import RECORDING_RED, RecordingWatcher, RecordPanel
from envs.groups import GroupError, GroupStore, TabGroup

log = logging.getLogger("browserpilot.ui")

TAB_TITLE_CHARS = 28


def window_title(env_name: str) -> str:
    return f"{env_name} — BrowserPilot"


class GroupedTabBar(QTabBar):
    """A tab bar that underlines each grouped tab in its group's colour (`colour_of(index)`)."""

    def __init__(self, colour_of: Callable[[int], QColor | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._colour_of = colour_of

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        for index in range(self.count()):
            colour = self._colour_of(index)
            if colour is not None:
                rect = self.tabRect(index)
                painter.fillRect(QRect(rect.left() + 1, rect.bottom() - 2, rect.width() - 2, 3), colour)
        painter.end()


def group_chip(group: TabGroup) -> QLabel:
    """The label before a group's first tab: its name on its colour (a dot when it has no name)."""
    chip = QLabel(group.name or " ")
    chip.setObjectName(f"group-chip-{group.id}")
    text = "#ffffff" if QColor(group.color).lightnessF() < 0.6 else "#202124"
    chip.setStyleSheet(f"QLabel {{ background: {group.color}; color: {text}; border-radius: 7px; "
                       f"padding: 0px 6px; font-weight: 600; }}")
    chip.setToolTip(f"Tab group {group.name}" if group.name else "Tab group")
    return chip


class EnvWindow(QMainWindow):
    closed = Signal(str)  # env id
    tab_opened = Signal(object)  # BrowserTab
    page_visited = Signal(str, str)  # env id, url

    def __init__(self, env_id: str, env_name: str, profile: QWebEngineProfile,
                 search_url: Callable[[], str], home_url: Callable[[], str],
                 show_main_window: Callable[[], None], parent: QWidget | None = None,
                 groups: GroupStore | None = None, ops: OpRunner | None = None) -> None:
        super().__init__(parent)
        self.env_id = env_id
        self._groups = groups
        self._ops = ops
        self._tab_group: dict[str, str] = {}  # tab id -> group id
        self.profile = profile
        self._search_url = search_url
        self._home_url = home_url
        self.setObjectName(f"env-window-{env_id}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.resize(1200, 800)
        self.set_env_name(env_name)

        self.tabs = QTabWidget(self)
        self.tabs.setTabBar(GroupedTabBar(self._group_colour_at, self.tabs))
        self.tabs.tabBar().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tabs.tabBar().customContextMenuRequested.connect(self._tab_menu)
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.tabCloseRequested.connect(self.close_tab_at)
        self.tabs.currentChanged.connect(self._on_current_changed)
        new_tab_button = QToolButton(self)
        new_tab_button.setText("+")
        new_tab_button.setToolTip("New tab (Ctrl+T)")
        new_tab_button.setAutoRaise(True)
        new_tab_button.clicked.connect(lambda: self.new_tab(focus_address=True))
        self.tabs.setCornerWidget(new_tab_button, Qt.Corner.TopRightCorner)
        self.setCentralWidget(self.tabs)

        self.address = QLineEdit(self)
        self.address.setObjectName("address")
        self.address.setPlaceholderText("Search or enter an address")
        self.address.setClearButtonEnabled(True)
        self.address.returnPressed.connect(self._on_address_entered)

        self.progress = QProgressBar(self)
        self.progress.setObjectName("progress")
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()

        self.control_label = QLabel(self)
        self.control_label.setObjectName("control-state")
        self.control_label.setTextFormat(Qt.TextFormat.RichText)

        self._build_actions(show_main_window)
        self._build_recording()
        self.statusBar().addPermanentWidget(self.control_label)
        self.statusBar().addPermanentWidget(self.progress)

    # -- building --------------------------------------------------------------------------------------
    def _action(self, text: str, shortcuts: list[QKeySequence | str], handler: Callable[[], object],
                icon: QIcon.ThemeIcon | None = None, tip: str | None = None) -> QAction:
        action = QAction(text, self)
        if icon is not None:
            action.setIcon(QIcon.fromTheme(icon))
        action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: handler())
        self.addAction(action)
        return action

    def _build_actions(self, show_main_window: Callable[[], None]) -> None:
        self.back_action = self._action("Back", [QKeySequence.StandardKey.Back, "Alt+Left"], lambda: self._current_do("back"),
                                        QIcon.ThemeIcon.GoPrevious, "Back (Alt+Left)")
        self.forward_action = self._action("Forward", [QKeySequence.StandardKey.Forward, "Alt+Right"],
                                           lambda: self._current_do("forward"), QIcon.ThemeIcon.GoNext, "Forward (Alt+Right)")
        self.reload_action = self._action("Reload", ["F5", "Ctrl+R"], lambda: self._current_do("reload"),
                                          QIcon.ThemeIcon.ViewRefresh, "Reload (F5)")
        self.stop_action = self._action("Stop", ["Esc"], lambda: self._current_do("stop"), QIcon.ThemeIcon.ProcessStop, "Stop (Esc)")
        new_tab = self._action("New Tab", ["Ctrl+T"], lambda: self.new_tab(focus_address=True))
        close_tab = self._action("Close Tab", ["Ctrl+W", "Ctrl+F4"], lambda: self.close_tab_at(self.tabs.currentIndex()))
        next_tab = self._action("Next Tab", ["Ctrl+Tab", "Ctrl+PgDown"], lambda: self._cycle_tab(1))
        prev_tab = self._action("Previous Tab", ["Ctrl+Shift+Tab", "Ctrl+PgUp"], lambda: self._cycle_tab(-1))
        focus_address = self._action("Open Location", ["Ctrl+L", "F6", "Alt+D"], self._focus_address)
        close_window = self._action("Close Window", ["Ctrl+Shift+W"], self.close)
        environments = self._action("Environments", ["Ctrl+Shift+E"], show_main_window)
        for action in (self.back_action, self.forward_action):
            action.setEnabled(False)

        toolbar = QToolBar("Navigation", self)
        toolbar.setObjectName("navigation")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonFollowStyle)
        toolbar.addAction(self.back_action)
        toolbar.addAction(self.forward_action)
        toolbar.addAction(self.reload_action)
        toolbar.addAction(self.stop_action)
        toolbar.addWidget(self.address)
        self.addToolBar(toolbar)

        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        for action in (new_tab, focus_address, close_tab, close_window):
            file_menu.addAction(action)
        view_menu = menu.addMenu("&View")
        for action in (self.back_action, self.forward_action, self.reload_action, self.stop_action, next_tab, prev_tab):
            view_menu.addAction(action)
        window_menu = menu.addMenu("&Window")
        window_menu.addAction(environments)

    # -- tabs ------------------------------------------------------------------------------------------
    def set_env_name(self, name: str) -> None:
        self.env_name = name
        self._update_window_title(self.current_tab() if hasattr(self, "tabs") else None)

    def tab_list(self) -> list[BrowserTab]:
        return [self.tabs.widget(i) for i in range(self.tabs.count())]  # type: ignore[misc]

    def current_tab(self) -> BrowserTab | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, BrowserTab) else None

    def new_tab(self, url: str | None = None, page: BrowserPage | None = None, activate: bool = True,
                focus_address: bool = False, control: ControlState | str = ControlState.SHARED) -> BrowserTab:
        """Open a tab; `control="agent"` for tabs the agent opens (locked from the start)."""
        tab = BrowserTab(self.env_id, self.profile, page=page, parent=self.tabs)
        tab_control = TabControl(tab, control)
        attach_control_ui(tab_control)
        tab_control.state_changed.connect(lambda _state, t=tab: self._on_control_state(t))
        tab.browser_page.popup_requested.connect(lambda popup, t=tab: self._on_popup(popup, t))
        tab.browser_page.windowCloseRequested.connect(lambda t=tab: self.close_tab(t))
        tab.titleChanged.connect(lambda title, t=tab: self._on_title(t, title))
        tab.iconChanged.connect(lambda icon, t=tab: self._set_tab_icon(t, icon))
        tab.urlChanged.connect(lambda qurl, t=tab: self._on_url(t, qurl))
        tab.loadStarted.connect(lambda t=tab: self._on_load_progress(t, 0))
        tab.loadProgress.connect(lambda value, t=tab: self._on_load_progress(t, value))
        tab.loadFinished.connect(lambda ok, t=tab: self._on_load_progress(t, 100))
        tab.browser_page.linkHovered.connect(lambda link: self.statusBar().showMessage(link, 3000))
        current = self.tabs.currentIndex()
        index = self.tabs.insertTab(current + 1 if current >= 0 else 0, tab, "New Tab")
        self._on_control_state(tab)
        if activate:
            self.tabs.setCurrentIndex(index)
        target = url or self._home_url()
        if page is None and target != "about:blank":
            # A new view is already blank; loading about:blank anyway would race with the first navigation
            # an operation starts right after (its load events could be taken for the operation's).
            tab.open(target)
        self.tab_opened.emit(tab)
        if focus_address:
            self._focus_address()
        return tab

    def _on_popup(self, page: BrowserPage, opener: BrowserTab) -> None:
        opener_control = TabControl.of(opener)
        locked = opener_control is not None and opener_control.state is ControlState.AGENT
        self.new_tab(page=page, activate=True, control=ControlState.AGENT if locked else ControlState.SHARED)

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
        index = self.tabs.indexOf(tab)
        if index < 0:
            return
        self.tabs.removeTab(index)
        tab.deleteLater()
        if self._tab_group.pop(tab.tab_id, None) is not None:
            self.refresh_groups()
        if self.tabs.count() == 0:
            self.close()

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
        group = self._group(self._tab_group.get(widget.tab_id)) if isinstance(widget, BrowserTab) else None
        return QColor(group.color) if group is not None else None

    def tab_groups(self) -> dict[str, str]:
        present = {tab.tab_id for tab in self.tab_list()}
        return {tab_id: group for tab_id, group in self._tab_group.items() if tab_id in present}

    def set_tab_group(self, tab: BrowserTab, group_id: str | None) -> None:
        """Put the tab into a group of this environment (None: out of its group); it moves next to the
        group's other tabs."""
        if group_id is None:
            self._tab_group.pop(tab.tab_id, None)
        else:
            group = self._groups.get(group_id) if self._groups is not None else None
            if group is None or group.env != self.env_id:
                raise GroupError(f"the tab group {group_id} belongs to {group.env if group else 'no environment'}, "
                                 f"not to {self.env_id} (the tab's environment)")
            members = [i for i, t in enumerate(self.tab_list()) if self._tab_group.get(t.tab_id) == group_id
                       and t is not tab]
            self._tab_group[tab.tab_id] = group_id
            if members:
                here, last = self.tabs.indexOf(tab), members[-1]
                self.tabs.tabBar().moveTab(here, last + 1 if here > last else last)
        self.refresh_groups()

    def refresh_groups(self) -> None:
        """Redraw the groups: chips on each group's first tab, colours, tooltips."""
        bar = self.tabs.tabBar()
        seen: set[str] = set()
        for index, tab in enumerate(self.tab_list()):
            group = self._group(self._tab_group.get(tab.tab_id))
            if group is None:
                self._tab_group.pop(tab.tab_id, None)
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
        menu.addAction("Add to new group…", lambda: self._new_group_for(tab))
        current = self._tab_group.get(tab.tab_id)
        others = [g for g in self._groups.list(self.env_id) if g.id != current]
        if others:
            submenu = menu.addMenu("Add to group")
            for group in others:
                submenu.addAction(group.name or group.color, lambda g=group.id: self._join(tab, g))
        if current is not None:
            menu.addAction("Remove from group", lambda: self._join(tab, None))
        menu.addSeparator()
        menu.addAction("Close tab", lambda: self.close_tab(tab))
        menu.popup(self.tabs.tabBar().mapToGlobal(pos))

    def _new_group_for(self, tab: BrowserTab) -> None:
        name, ok = QInputDialog.getText(self, "New tab group", "Name of the group:")
        if ok and self._ops is not None:
            self._ops.run("group_create", {"name": name, "env": self.env_id}, self,
                          on_ok=lambda result: self._join(tab, result["groupId"]))

    def _join(self, tab: BrowserTab, group_id: str | None) -> None:
        if self._ops is not None:
            self._ops.run("tab_group", {"tabId": tab.tab_id, "groupId": group_id}, self)

    # -- reacting to pages -----------------------------------------------------------------------------
    def _on_title(self, tab: BrowserTab, title: str) -> None:
        index = self.tabs.indexOf(tab)
        if index < 0:
            return
        text = title or tab.url().toString() or "New Tab"
        short = text if len(text) <= TAB_TITLE_CHARS else text[: TAB_TITLE_CHARS - 1] + "…"
        self.tabs.setTabText(index, short)
        self._update_tab_tooltip(tab)
        if tab is self.current_tab():
            self._update_window_title(tab)

    def _set_tab_icon(self, tab: BrowserTab, icon: QIcon) -> None:
        index = self.tabs.indexOf(tab)
        control = TabControl.of(tab)
        if index >= 0:
            self.tabs.setTabIcon(index, state_icon(icon, control.state, self.palette()) if control else icon)

    def _update_tab_tooltip(self, tab: BrowserTab) -> None:
        index = self.tabs.indexOf(tab)
        control = TabControl.of(tab)
        if index < 0:
            return
        text = tab.title() or tab.url().toString() or "New Tab"
        group = self._group(self._tab_group.get(tab.tab_id))
        if group is not None:
            text += f"\nGroup: {group.name or group.color}"
        self.tabs.setTabToolTip(index, f"{text}\n{state_text(control.state)}" if control else text)

    def _on_control_state(self, tab: BrowserTab) -> None:
        self._set_tab_icon(tab, tab.icon())
        self._update_tab_tooltip(tab)
        if tab is self.current_tab():
            self._show_control_state(tab)

    def _show_control_state(self, tab: BrowserTab) -> None:
        control = TabControl.of(tab)
        if control is None:
            self.control_label.clear()
            return
        color = state_color(control.state, self.palette())
        dot = f'<span style="color:{color.name()}">●</span> ' if color is not None else ""
        self.control_label.setText(f"{dot}{state_text(control.state)}")
        self.control_label.setToolTip(control.message or state_text(control.state))

    def _on_url(self, tab: BrowserTab, url: QUrl) -> None:
        if tab is self.current_tab():
            self._show_address(url)
            self._update_history_actions()
        text = url.toString()
        if text:
            self.page_visited.emit(self.env_id, text)

    def _on_load_progress(self, tab: BrowserTab, value: int) -> None:
        if tab is not self.current_tab():
            return
        self.progress.setValue(value)
        self.progress.setVisible(0 < value < 100 or (value == 0 and tab.loading))
        self.reload_action.setVisible(value >= 100 or not tab.loading)
        self.stop_action.setVisible(not self.reload_action.isVisible())
        self._update_history_actions()

    def _on_current_changed(self, index: int) -> None:
        tab = self.current_tab()
        if tab is None:
            return
        self._show_address(tab.url())
        self._update_history_actions()
        self.progress.setVisible(tab.loading)
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

    # -- recording (issue 11) ---------------------------------------------------------------------------
    def _build_recording(self) -> None:
        """The Record button (Ctrl+Shift+R) for the front tab, its red indicators and the Recording panel."""
        self.record_action = self._action("Record", ["Ctrl+Shift+R"], self._toggle_recording,
                                          QIcon.ThemeIcon.MediaRecord, "Record what you do in this tab as a workflow "
                                                                     "(Ctrl+Shift+R)")
        self.record_action.setObjectName("record")
        self.record_action.setCheckable(True)
        navigation = self.findChild(QToolBar, "navigation")
        if navigation is not None:
            navigation.addAction(self.record_action)
        self.record_label = QLabel(self)
        self.record_label.setObjectName("record-state")
        self.record_label.setTextFormat(Qt.TextFormat.RichText)
        self.record_label.hide()
        self.statusBar().addPermanentWidget(self.record_label)
        self.record_panel: RecordPanel | None = None
        self._recording_watcher = RecordingWatcher(self._show_recording, self)
        self.tab_opened.connect(self._recording_watcher.watch)
        if self._ops is not None:
            self.record_panel = RecordPanel(self._ops, self)
            self.record_panel.stopped.connect(lambda _name: self._show_recording(self.current_tab()))
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.record_panel)
            self.record_panel.hide()

    def _toggle_recording(self) -> None:
        tab = self.current_tab()
        if tab is None or self._ops is None or self.record_panel is None:
            self.record_action.setChecked(False)
            return
        if TabRecorder.of(tab) is not None:
            self.record_panel.show()
            self.record_panel.stop()
            self._show_recording(tab)
            return
        self._ops.run("record_start", {"tabId": tab.tab_id}, self)

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
        self.record_action.setText("Stop recording" if recording else "Record")
        self.record_label.setText(f'<span style="color:{RECORDING_RED}">●</span> <b>Recording</b>')
        self.record_label.setVisible(recording)
        if self.record_panel is not None:
            self.record_panel.show_tab(tab)
            if recording:
                self.record_panel.show()

    # -- closing ---------------------------------------------------------------------------------------
    def dispose_tabs(self) -> None:
        """Delete every page now (pages must go before their profile)."""
        import shiboken6

        while self.tabs.count():
            tab = self.tabs.widget(0)
            self.tabs.removeTab(0)
            if shiboken6.isValid(tab):
                shiboken6.delete(tab)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.dispose_tabs()
        self.closed.emit(self.env_id)
        super().closeEvent(event)
