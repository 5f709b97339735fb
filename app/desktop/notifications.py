"""Desktop notifications: freedesktop notifications over D-Bus, through `desktop-notifier` (its dbus-fast
backend, on the app's asyncio loop).

Why this library and not QtDBus: PySide6's QtDBus cannot build the `u` and `a{sv}` arguments of
`org.freedesktop.Notifications.Notify` from Python (it has no typed QVariant), so a call from Python is refused
by the server for its signature; desktop-notifier speaks the protocol with explicit types, follows the
server's capabilities (actions, timeouts) and hands an action (the button, or a click on the notification) to a
Python callback on the loop.

Kinds: a person is needed, a run failed, a batch finished, a schedule skipped (or missed) a time; each can be
switched off in Settings (`enabled(kind)` reads the setting every time). Where no notification service runs
(no session bus, no server), a send is logged once and dropped: the tray menu keeps the same events.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from plumbing import loggers

log = logging.getLogger(loggers.NOTIFICATIONS)

NotificationKind = Literal["needs_person", "run_failed", "batch_finished", "schedule_skipped"]
SEND_TIMEOUT = 5.0


@dataclass(frozen=True)
class Action:
    label: str
    callback: Callable[[], None]
    default: bool = True  # also what a click on the notification itself does


def bus_available() -> bool:
    """A session bus to talk to (its address, or the systemd user bus at its usual place)."""
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return True
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return bool(runtime) and os.path.exists(os.path.join(runtime, "bus"))


class Notifier:
    """Sends notifications of the kinds the settings allow (see the module docstring)."""

    def __init__(self, enabled: Callable[[NotificationKind], bool], app_name: str = "BrowserPilot",
                 icon: str | None = None) -> None:
        self._enabled = enabled
        self._app_name = app_name
        self._icon = icon
        self._notifier: Any = None
        self._unavailable: str | None = None if bus_available() else "no D-Bus session bus"
        self._tasks: set[asyncio.Task[Any]] = set()
        self.sent: list[tuple[NotificationKind, str, str]] = []  # what was handed to the server, newest last

    @property
    def available(self) -> bool:
        return self._unavailable is None

    def notify(self, kind: NotificationKind, title: str, body: str, action: Action | None = None) -> None:
        """Send one notification (in the background) unless its kind is switched off."""
        if not self._enabled(kind):
            return
        if self._unavailable is not None:
            log.debug("not sent (%s): %s", self._unavailable, title)
            return
        task = asyncio.ensure_future(self._send(kind, title, body, action))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, kind: NotificationKind, title: str, body: str, action: Action | None) -> None:
        try:
            from desktop_notifier import Button, DesktopNotifier, Icon

            if self._notifier is None:
                icon = Icon(path=Path(self._icon)) if self._icon else None  # a Path: it is sent as a URI
                self._notifier = DesktopNotifier(app_name=self._app_name, app_icon=icon)
            buttons = [Button(title=action.label, on_pressed=action.callback, identifier="open")] if action else []
            await asyncio.wait_for(self._notifier.send(
                title=title, message=body, buttons=buttons,
                on_clicked=action.callback if action is not None and action.default else None,
                timeout=-1), SEND_TIMEOUT)
            self.sent.append((kind, title, body))
            log.info("notified: %s", title)
        except Exception as exc:  # no server on the bus, a bus that went away: the tray still has it
            if self._unavailable is None:
                log.warning("desktop notifications are not available (%s); the tray menu lists the events", exc)
            self._unavailable = str(exc) or type(exc).__name__
