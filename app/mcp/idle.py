"""Idle exit: an app that `browserpilot mcp` started headless for an agent quits once nobody needs it.

- The bridge that starts the app names itself in the child's environment (`BROWSERPILOT_STARTED_BY`, JSON:
  its pid and command line, and those of its own parent, the agent client). Only an app started that way and
  headless can idle-exit; an app a person started never does.
- Every bridge names its pid on each request to the app (`X-BrowserPilot-Client: bridge <pid>`); the server's
  guard reports it to `BridgeClients`. A bridge counts as a client while its process is alive (it lives as long
  as its agent client keeps stdio open). The command line's own requests (`cli <pid>`) are not activity.
- `IdleWatch` looks every few seconds (main thread, no disk): with no live bridge, no request for the timeout
  (`idleExitMinutes` in the settings, default 10, 0 for never; `BROWSERPILOT_IDLE_EXIT_SECONDS` overrides
  it, for tests), and nothing in progress (a run, a batch, a recording, a window a person uses, a tool call),
  it quits the app in order. `state()` is what `browserpilot mcp status` shows (the `app_status` operation).

Plain Python (no Qt, no MCP SDK).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, MutableMapping

from plumbing import loggers

log = logging.getLogger(loggers.MCP)

STARTER_ENV = "BROWSERPILOT_STARTED_BY"
IDLE_SECONDS_ENV = "BROWSERPILOT_IDLE_EXIT_SECONDS"
CLIENT_HEADER = "x-browserpilot-client"
MAX_POLL = 5.0
MIN_POLL = 0.1


# -- who started the app ------------------------------------------------------------------------------------
def process_command(pid: int) -> str | None:
    """A process's command line (Linux /proc; None elsewhere or when it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    return " ".join(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part) or None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A child that exited but was not reaped yet is a zombie: gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


@dataclass(frozen=True)
class Starter:
    """The bridge that started this app, and the agent client that runs that bridge."""

    pid: int
    command: str | None = None
    client_pid: int | None = None
    client_command: str | None = None

    @staticmethod
    def of_this_process() -> "Starter":
        parent = os.getppid()
        return Starter(os.getpid(), process_command(os.getpid()), parent, process_command(parent))

    def to_env(self) -> str:
        return json.dumps({"pid": self.pid, "command": self.command, "clientPid": self.client_pid,
                           "clientCommand": self.client_command})

    @staticmethod
    def take_from(environ: MutableMapping[str, str]) -> "Starter | None":
        """Read and remove the variable (the app's own child processes must not inherit it)."""
        raw = environ.pop(STARTER_ENV, None)
        if not raw:
            return None
        try:
            value = json.loads(raw)
            return Starter(int(value["pid"]), value.get("command"), value.get("clientPid"), value.get("clientCommand"))
        except (ValueError, KeyError, TypeError):
            log.warning("ignored an unreadable %s=%r", STARTER_ENV, raw)
            return None

    def as_dict(self) -> dict[str, Any]:
        return {"pid": self.pid, "command": self.command, "alive": pid_alive(self.pid),
                "clientPid": self.client_pid, "clientCommand": self.client_command}


def client_header(role: str) -> dict[str, str]:
    """The header a bridge (`role="bridge"`) or the command line (`"cli"`) sends with every request."""
    return {CLIENT_HEADER: f"{role} {os.getpid()}"}


# -- the bridges that use the app ----------------------------------------------------------------------------
class BridgeClients:
    """Bridge pids seen on requests, and when the last request that counts as activity came (thread-safe:
    the server thread reports, the main thread reads)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._bridges: dict[int, float] = {}
        self.last_activity = clock()

    def request(self, header: str | None) -> None:
        """One request arrived with this `X-BrowserPilot-Client` header (or none)."""
        role, _, pid_text = (header or "").partition(" ")
        now = self._clock()
        with self._lock:
            if role == "cli":
                return  # `browserpilot mcp status` and forwarded verbs do not keep the app alive
            self.last_activity = now
            if role == "bridge" and pid_text.strip().isdigit():
                self._bridges[int(pid_text)] = now

    def add(self, pid: int) -> None:
        with self._lock:
            self._bridges.setdefault(pid, self._clock())

    def alive(self) -> list[int]:
        """Bridges whose process still runs (the gone ones are forgotten)."""
        with self._lock:
            pids = list(self._bridges)
        living = [pid for pid in pids if pid_alive(pid)]
        with self._lock:
            for pid in pids:
                if pid not in living:
                    self._bridges.pop(pid, None)
        return living


# -- the watch ---------------------------------------------------------------------------------------------
def idle_timeout(minutes: int, environ: Mapping[str, str]) -> float | None:
    """Seconds of idleness before the app quits, None for never."""
    override = environ.get(IDLE_SECONDS_ENV)
    if override:
        try:
            seconds = float(override)
        except ValueError:
            log.warning("ignored %s=%r (not a number of seconds)", IDLE_SECONDS_ENV, override)
        else:
            return seconds if seconds > 0 else None
    return minutes * 60.0 if minutes > 0 else None


class IdleWatch:
    """Quits an app started headless by a bridge once it has been idle for the timeout.

    `busy()` says what keeps the app (a run, a recording, a person's window…) or None; `timeout()` is read at
    every look, so a change in the settings applies at once; `quit()` ends the app in order."""

    def __init__(self, starter: Starter | None, headless: bool, clients: BridgeClients,
                 timeout: Callable[[], float | None], busy: Callable[[], str | None], quit: Callable[[], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.starter = starter
        self.headless = headless
        self.clients = clients
        self._timeout = timeout
        self._busy = busy
        self._quit = quit
        self._clock = clock
        self._quiet_since = clock()
        self._quitting = False
        if starter is not None:
            clients.add(starter.pid)

    @property
    def armed(self) -> bool:
        """Can this app idle-exit at all: started by a bridge, and headless."""
        return self.starter is not None and self.headless

    def poll_interval(self) -> float:
        timeout = self._timeout()
        return MAX_POLL if timeout is None else max(MIN_POLL, min(MAX_POLL, timeout / 10))

    def _look(self) -> tuple[list[int], str | None, float | None]:
        """Live bridges, what keeps the app busy, and the seconds left before it quits (None: it won't)."""
        now = self._clock()
        bridges = self.clients.alive()
        busy = self._busy()
        if bridges or busy:
            self._quiet_since = now
        self._quiet_since = max(self._quiet_since, self.clients.last_activity)
        timeout = self._timeout()
        if not self.armed or timeout is None or bridges or busy:
            return bridges, busy, None
        return bridges, busy, max(0.0, self._quiet_since + timeout - now)

    def tick(self) -> bool:
        """Look once; quit when the time has come. True when it asked the app to quit."""
        if self._quitting or not self.armed:
            return False
        bridges, busy, left = self._look()
        if left is not None and left <= 0:
            self._quitting = True
            log.info("idle exit: no bridge client and nothing in progress for %.0f s; quitting", self._timeout())
            self._quit()
            return True
        return False

    def state(self) -> dict[str, Any]:
        """Who started the app, its bridge clients, and when it will stop (or why it won't)."""
        bridges, busy, left = self._look()
        timeout = self._timeout()
        if self.starter is None:
            why = "started by a person: it never quits by itself"
        elif not self.headless:
            why = "it has windows: it never quits by itself"
        elif timeout is None:
            why = "idle exit is switched off in the settings"
        elif busy:
            why = f"not while {busy}"
        elif bridges:
            why = f"not while a bridge client is connected ({len(bridges)})"
        else:
            why = None
        return {
            "pid": os.getpid(),
            "startedBy": self.starter.as_dict() if self.starter is not None else None,
            "headless": self.headless,
            "bridges": [{"pid": pid, "command": process_command(pid)} for pid in bridges],
            "idleExit": {"timeoutSeconds": timeout, "stopsInSeconds": left, "wontStopBecause": why},
        }
