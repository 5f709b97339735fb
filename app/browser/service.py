"""`BrowserService`: the browser of the app. It owns the environments' profiles (and their domain policies,
identities, DevTools channels, network captures, the code sandbox, the recordings of traces and videos:
app/browser/trace.py) and every tab, in a registry keyed by tab id.

Windows only show tabs (app/ui/env_windows.py): a tab is made here, with its control state, its policy guard
and its parts (app/browser/parts/), and is *shown* in its environment's window when the app has windows and
the tab asks for it (`show`), or *windowless*: a view on no screen that paints nowhere
(app/browser/windowless.py), with the size of a window's page area, so that the page lays out, animates and
takes trusted input as in a window, while no window's backing store keeps a copy of its frames. A headless
app has only windowless tabs; in an app with windows, a batch's or a worker's rows run in windowless tabs. A
windowless tab that needs a person (handed over: a captcha, a login) is shown in its environment's window at
once (`tab_shown`).

Which tab is active in an environment (the one operations without a tab id act on) is kept here, whether or
not a window shows it; a window reports the tab a person brings to the front (`note_current`).

What a long-lived tab leaves in its renderer (the documents it navigated away from) is collected now and then,
without a reload (`memory`, app/browser/memory.py).

Closing: `close` takes a tab out of the registry, tells the windows, and deletes the view on the loop's
next turn (after Qt's queued download hand-overs: `DownloadManager.delete_later`); `release_environment`
closes an environment's tabs now and frees its profile; `shutdown` deletes every page, then every profile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QSize, Signal
from PySide6.QtWebEngineCore import QWebEngineProfile

from app.browser.cdp import CdpHub
from app.browser.code_sandbox import CodeSandbox
from app.browser.control import ControlState, TabControl
from app.browser.downloads import DownloadManager, delete_pages
from app.browser.identity import IdentityRegistry
from app.browser.memory import RendererMemory
from app.browser.netcapture import CaptureRegistry, NetServices
from app.browser.parts.core import TabFolders
from app.browser.parts.tab import Tab
from app.browser.policy import PolicyRegistry
from app.browser.profiles import ProfileRegistry
from app.browser.tab import BrowserPage, BrowserTab
from app.browser.tabvideo import video_file
from app.browser.trace import Tracing
from app.browser.transfer import ProfileState
from app.browser.windowless import keep_windowless, show_in_window
from plumbing import loggers
from plumbing.datadir import DataDir
from envs.groups import GroupError, GroupStore
from envs.model import DEFAULT_ENV_ID
from envs.store import EnvError, EnvStore
from workflows.ports import Control, PageError, TabInfo
from workflows.results_devtools import BlockedRequestView, VideoFile

log = logging.getLogger(loggers.BROWSER)

PAGE_SIZE = QSize(1200, 760)  # a windowless tab's page area: an environment window's (1200x800) page


class EnvironmentStartError(EnvError):
    """An environment's browser profile cannot be made: whatever needed a tab of it fails at once, saying why."""

    code = "env_cannot_start"


class BrowserService(QObject):
    tab_opened = Signal(object)   # Tab: made (shown or windowless; `service.shown(tab_id)` says which)
    tab_shown = Signal(object)    # Tab: a windowless tab is to be shown in its environment's window now
    tab_closed = Signal(str, str)  # tab id, env id: out of the registry (its view goes on the next turn)
    tab_activated = Signal(object)  # Tab: made the active tab of its environment by an operation
    groups_changed = Signal(str, str)  # env id, tab id: a tab joined or left a group

    def __init__(self, data: DataDir, envs: EnvStore, groups: GroupStore, *, with_windows: bool,
                 home_url: Callable[[], str] = lambda: "about:blank", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data = data
        self.envs = envs
        self.groups = groups
        self.with_windows = with_windows  # an app a person sees: tabs asked to be shown go into windows
        self.home_url = home_url
        self.policies = PolicyRegistry(envs, self)
        self.policies.tabs_of_env = lambda env_id: [(t.tab_id, t.page) for t in self.tabs(env_id)]
        self.identities = IdentityRegistry(envs, self)
        self.profiles = ProfileRegistry(data, self, policies=self.policies, identities=self.identities)
        self.cdp = CdpHub(self)
        self.captures = CaptureRegistry()
        self.net = NetServices(self.cdp, self.captures, self.policies)
        self.memory = RendererMemory(self.cdp)  # what long-lived tabs leave in their renderers is collected
        self.code_sandbox = CodeSandbox(self)
        self._tabs: dict[str, Tab] = {}
        self.tracing = Tracing(self._tabs.get)  # runs' traces and videos, screen_start / screen_stop
        self._shown: set[str] = set()
        self._active: dict[str, str] = {}  # env id -> tab id
        self._groups: dict[str, str] = {}  # tab id -> group id
        self._closed = False

    # -- the registry ----------------------------------------------------------------------------------
    def get(self, tab_id: str) -> Tab:
        tab = self._tabs.get(tab_id)
        if tab is None:
            raise LookupError(f"there is no open tab with id {tab_id!r}; tab_list shows the open tabs")
        return tab

    def tabs(self, env_id: str | None = None) -> list[Tab]:
        return [tab for tab in self._tabs.values() if env_id is None or tab.env_id == env_id]

    def shown(self, tab_id: str) -> bool:
        return tab_id in self._shown

    def active_tab(self, env_id: str) -> Tab | None:
        tab = self._tabs.get(self._active.get(env_id, ""))
        if tab is not None:
            return tab
        own = self.tabs(env_id)
        return own[-1] if own else None

    def tab_id_of_page(self, page: object) -> str | None:
        return next((tab.tab_id for tab in self._tabs.values() if tab.page is page), None)

    def recording_tabs(self) -> list[str]:
        return [tab.tab_id for tab in self._tabs.values() if tab.recording.active]

    # -- opening and closing ---------------------------------------------------------------------------
    def new_tab(self, env_id: str, url: str | None = None, control: Control | ControlState = "agent",
                show: bool = True, page: BrowserPage | None = None, activate: bool = True) -> Tab:
        """Make a tab of the environment (its window shows it when `show` and the app has windows), load `url`
        (default: the home page) and return it."""
        if self._closed:
            raise LookupError("the app is shutting down")
        env = self.envs.get(env_id)
        profile = self.profile(env.id)
        view = BrowserTab(env.id, profile, page=page)
        shown = show and self.with_windows
        if not shown:
            keep_windowless(view, PAGE_SIZE)  # on no screen, painting nowhere: one frame copy, not two
        tab_control = TabControl(view, control)
        tab = Tab(view, tab_control, TabFolders(self.data.captures(env.id), self.data.downloads(env.id)),
                  self.tab_id_of_page, net=self.net)
        view.browser_page.tab_id = tab.tab_id
        self._tabs[tab.tab_id] = tab
        if shown:
            self._shown.add(tab.tab_id)
        if activate or env.id not in self._active:
            self._active[env.id] = tab.tab_id
        self.policies.guard_page(view.page(), env.id, tab.tab_id)
        self.memory.watch(view.page())
        view.browser_page.popup_requested.connect(lambda popup, opener=tab.tab_id: self._on_popup(popup, opener))
        view.browser_page.windowCloseRequested.connect(lambda tab_id=tab.tab_id: self.close(tab_id))
        tab_control.state_changed.connect(lambda state, tab_id=tab.tab_id: self._on_control(tab_id, state))
        # Every address a tab reaches is a site the environment visited (its recent sites), window or not.
        view.urlChanged.connect(lambda address, env_id=env.id: address.isEmpty() or
                                self.envs.record_visit(env_id, address.toString()))
        self.tab_opened.emit(tab)
        target = url if url is not None else self.home_url()
        if page is None and target != "about:blank":
            # A new view is already blank; loading about:blank anyway would race with the first navigation an
            # operation starts right after (its load events could be taken for the operation's).
            view.open(target)
        return tab

    def profile(self, env_id: str) -> QWebEngineProfile:
        """The environment's profile (made the first time); EnvironmentStartError when it cannot be made."""
        try:
            return self.profiles.get(env_id)
        except OSError as exc:  # its folder cannot be made or used (a file in its place, no space, no rights)
            log.error("environment %s cannot start: %s", env_id, exc)
            name = self.envs.get(env_id).name
            raise EnvironmentStartError(
                f"the environment “{name}” cannot start: its data folder {self.data.partition(env_id)} cannot "
                f"be used ({exc.strerror or exc})") from exc

    def downloads(self, env_id: str) -> DownloadManager:
        """The environment's download manager (its profile is made if needed; EnvironmentStartError)."""
        self.profile(env_id)
        return self.profiles.downloads(env_id)

    def _on_popup(self, page: BrowserPage, opener_id: str) -> None:
        """A page opened a new window (`target=_blank`, `window.open`): a tab of the same environment, shown
        where its opener is, locked when its opener is."""
        opener = self._tabs.get(opener_id)
        if opener is None:
            return
        locked = opener.control_state.state is ControlState.AGENT
        self.new_tab(opener.env_id, page=page, control=ControlState.AGENT if locked else ControlState.SHARED,
                     show=self.shown(opener_id))

    def _on_control(self, tab_id: str, state: str) -> None:
        """A windowless tab handed to the person (a captcha, a login) is shown in its environment's window."""
        if state == ControlState.HANDOFF and self.with_windows and tab_id not in self._shown:
            self.show_tab(tab_id)

    def show_tab(self, tab_id: str) -> None:
        """Show a windowless tab in its environment's window (an app with windows only)."""
        tab = self.get(tab_id)
        if tab_id in self._shown or not self.with_windows:
            return
        show_in_window(tab.view)
        self._shown.add(tab_id)
        self.tab_shown.emit(tab)

    def activate(self, tab_id: str) -> None:
        """Make the tab its environment's active tab (the windows bring it to the front)."""
        tab = self.get(tab_id)
        self._active[tab.env_id] = tab_id
        self.tab_activated.emit(tab)

    def note_current(self, tab_id: str) -> None:
        """A window brought this tab to the front (a person's click): it is its environment's active tab."""
        tab = self._tabs.get(tab_id)
        if tab is not None:
            self._active[tab.env_id] = tab_id

    def close(self, tab_id: str) -> None:
        """Take the tab out of the registry and delete its view on the loop's next turn."""
        tab = self._forget(tab_id)
        if tab is not None:
            self.profiles.downloads(tab.env_id).delete_later(tab.view)

    def _forget(self, tab_id: str) -> Tab | None:
        tab = self._tabs.pop(tab_id, None)
        if tab is None:
            return None
        self._shown.discard(tab_id)
        self.tracing.tab_closed(tab_id)
        grouped = self._groups.pop(tab_id, None)
        if self._active.get(tab.env_id) == tab_id:
            rest = self.tabs(tab.env_id)
            if rest:
                self._active[tab.env_id] = rest[-1].tab_id
            else:
                del self._active[tab.env_id]
        self.tab_closed.emit(tab_id, tab.env_id)
        if grouped is not None:
            self.groups_changed.emit(tab.env_id, tab_id)
        return tab

    async def release_environment(self, env_id: str) -> None:
        """Close the environment's tabs now and free its profile (its partition folder can then go)."""
        views = [tab.view for tab in [self._forget(t.tab_id) for t in self.tabs(env_id)] if tab is not None]
        delete_pages(*views)
        self.profiles.release(env_id)

    def shutdown(self) -> None:
        """Delete every page, then every profile. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        views = [tab.view for tab in list(self._tabs.values())]
        for tab_id in list(self._tabs):
            self._forget(tab_id)
        delete_pages(*views)
        self.cdp.close_all()  # DevTools front-end pages before any profile
        self.code_sandbox.close()
        self.policies.close()
        self.identities.close()
        self.profiles.close_all()

    # -- the browser port (workflows/ports.py BrowserPort) ------------------------------------------------
    async def open_environment(self, env_id: str) -> None:
        tab = self.active_tab(env_id)
        if tab is None:
            self.new_tab(env_id, control="shared")
        elif self.with_windows and tab.tab_id not in self._shown:
            self.show_tab(tab.tab_id)
        else:
            self.activate(tab.tab_id)

    async def open_tab(self, env_id: str, url: str, control: Control = "agent", show: bool = True) -> str:
        return self.new_tab(env_id, url, control, show=show).tab_id

    def list_tabs(self, env_id: str | None = None) -> list[TabInfo]:
        return [TabInfo(id=tab.tab_id, env=tab.env_id, url=tab.page.url().toString(), title=tab.page.title(),
                        control=tab.control.state, loading=tab.view.loading,
                        active=self._active.get(tab.env_id) == tab.tab_id)
                for tab in self._tabs.values() if env_id is None or tab.env_id == env_id]

    async def close_tab(self, tab_id: str) -> None:
        self.close(self.get(tab_id).tab_id)

    async def activate_tab(self, tab_id: str) -> None:
        self.activate(tab_id)

    async def tab(self, tab_id: str | None, env_id: str | None) -> Tab:
        if tab_id is not None:
            tab = self.get(tab_id)
            if env_id is not None and tab.env_id != env_id:
                raise LookupError(f"tab {tab_id} belongs to {tab.env_id}, not {env_id}")
            return tab
        env = self.envs.get(env_id or DEFAULT_ENV_ID)
        return self.active_tab(env.id) or self.new_tab(env.id, control="agent")

    def renderer_crashes(self, tab_id: str) -> tuple[int, str | None]:
        health = self.get(tab_id).view.health
        return health.crash_count, health.last_reason

    def tab_state(self, tab_id: str) -> tuple[str, str] | None:
        tab = self._tabs.get(tab_id)
        if tab is None or not shiboken6.isValid(tab.view):
            return None
        return tab.page.url().toString(), tab.page.title()

    async def settle_tabs(self, tab_ids: Sequence[str], timeout: float) -> list[dict[str, Any]]:
        tabs = [self._tabs[tab_id] for tab_id in tab_ids if tab_id in self._tabs]
        results = await asyncio.gather(*(tab.network.settle(timeout) for tab in tabs), return_exceptions=True)
        pending: list[dict[str, Any]] = []
        for tab, result in zip(tabs, results):
            if isinstance(result, BaseException):
                log.info("could not wait for %s: %s", tab.tab_id, result)
                continue
            pending.extend({"tabId": tab.tab_id, **item} for item in result.pending)
        return pending

    async def settle_all(self, timeout: float) -> list[dict[str, Any]]:
        """Before the app ends: what the tabs still have in flight lands, at most `timeout` seconds."""
        return await self.settle_tabs(list(self._tabs), timeout)

    def net_blocked(self, env_id: str | None = None, tab_id: str | None = None,
                    limit: int = 500) -> list[BlockedRequestView]:
        """Recent requests the domain policies blocked (oldest first), of one environment or tab."""
        return self.policies.blocked(env_id, tab_id, limit)

    async def export_har(self, tab_id: str, path: str,
                         redact: Sequence[str] | Mapping[str, str] = ()) -> str | None:
        """Write the HAR of the tab's capture (secret strings redacted) to `path`; None when capture never
        ran on that tab (or the tab is gone)."""
        tab = self._tabs.get(tab_id)
        if tab is None or self.captures.get(tab_id) is None:
            return None
        return (await tab.network.net_export(path, redact)).path

    async def start_video(self, tab_id: str, path: str, crop: tuple[float, float, float, float] | None = None,
                          max_seconds: float | None = None) -> None:
        self.get(tab_id)
        await self.tracing.start_video(tab_id, Path(path), crop=crop, max_seconds=max_seconds)

    async def stop_video(self, tab_id: str) -> VideoFile:
        video = await self.tracing.stop_video(tab_id)
        if video is None:
            raise PageError("no picture of the tab came while it was filmed: no video was written", code="no_video")
        return video_file(video)

    def _profile_state(self, env_id: str) -> ProfileState:
        return ProfileState(self.cdp, self.profiles.get(env_id), [tab.page for tab in self.tabs(env_id)])

    async def read_env_state(self, env_id: str, origins: Sequence[str] = ()) -> dict[str, Any]:
        return await self._profile_state(env_id).read(origins)

    async def write_env_state(self, env_id: str, cookies: Sequence[Mapping[str, Any]],
                              local_storage: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        return await self._profile_state(env_id).write(cookies, local_storage)

    # -- tab groups --------------------------------------------------------------------------------------
    def set_tab_group(self, tab_id: str, group_id: str | None) -> str:
        tab = self.get(tab_id)
        if group_id is None:
            self._groups.pop(tab_id, None)
        else:
            group = self.groups.get(group_id)
            if group.env != tab.env_id:
                raise GroupError(f"the tab group {group_id} belongs to {group.env}, not to {tab.env_id} (the tab's "
                                 f"environment)")
            self._groups[tab_id] = group_id
        self.groups_changed.emit(tab.env_id, tab_id)
        return tab.env_id

    def tab_groups(self, env_id: str | None = None) -> dict[str, str]:
        """Open tabs that are in a group: tab id -> group id (groups deleted meanwhile are left out)."""
        known = {group.id for group in self.groups.list(env_id)} if env_id is not None else None
        return {tab_id: group_id for tab_id, group_id in self._groups.items()
                if tab_id in self._tabs and (env_id is None or self._tabs[tab_id].env_id == env_id)
                and (known is None or group_id in known)}

    def drop_env_groups(self, env_id: str) -> None:
        for tab_id in [t for t, _g in self._groups.items() if t in self._tabs and self._tabs[t].env_id == env_id]:
            self._groups.pop(tab_id, None)

