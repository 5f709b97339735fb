"""The idle exit's rules (`app.mcp.idle`), with a clock we move by hand and real processes as bridges."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Iterator

import pytest

from app.mcp.idle import STARTER_ENV, BridgeClients, IdleWatch, Starter, idle_timeout


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def bridge() -> Iterator[subprocess.Popen[bytes]]:
    """A live process standing in for a bridge (only its pid and liveness matter)."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    yield process
    if process.poll() is None:
        process.kill()
    process.wait()


def end(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    process.wait(10)


def watch(starter: Starter | None, clock: Clock, busy: list[str | None], quits: list[int],
          headless: bool = True, timeout: float | None = 60) -> IdleWatch:
    return IdleWatch(starter, headless, BridgeClients(clock), lambda: timeout, lambda: busy[0],
                     lambda: quits.append(1), clock)


def test_quits_only_after_the_last_bridge_has_been_gone_for_the_timeout(bridge: subprocess.Popen[bytes]) -> None:
    clock, busy, quits = Clock(), [None], []
    idle = watch(Starter(bridge.pid, "browserpilot mcp"), clock, busy, quits)
    clock.now += 600
    assert idle.tick() is False and idle.state()["idleExit"]["wontStopBecause"] == \
        "not while a bridge client is connected (1)"
    second = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        idle.clients.request(f"bridge {second.pid}")
        end(bridge)
        clock.now += 600
        assert idle.tick() is False and [b["pid"] for b in idle.state()["bridges"]] == [second.pid]
        end(second)
        assert idle.tick() is False  # the clock starts now
        clock.now += 59
        assert idle.tick() is False and idle.state()["idleExit"]["stopsInSeconds"] == pytest.approx(1)
        idle.clients.request(f"cli {os.getpid()}")  # `browserpilot mcp status` does not keep it alive
        clock.now += 1
        assert idle.tick() is True and quits == [1]
        assert idle.tick() is False and quits == [1]  # asked once
    finally:
        if second.poll() is None:
            second.kill()
        second.wait()


def test_never_while_busy_and_the_clock_restarts_when_work_or_requests_end(bridge: subprocess.Popen[bytes]) -> None:
    clock, busy, quits = Clock(), ["a run is in progress (run-1)"], []
    idle = watch(Starter(bridge.pid), clock, busy, quits)
    end(bridge)
    clock.now += 3600
    assert idle.tick() is False
    assert idle.state()["idleExit"]["wontStopBecause"] == "not while a run is in progress (run-1)"
    busy[0] = None
    assert idle.tick() is False
    clock.now += 30
    idle.clients.request(None)  # an HTTP client without our header: activity
    clock.now += 59
    assert idle.tick() is False
    clock.now += 1
    assert idle.tick() is True and quits == [1]


def test_an_app_a_person_started_or_with_windows_never_quits(bridge: subprocess.Popen[bytes]) -> None:
    clock, busy, quits = Clock(), [None], []
    person = watch(None, clock, busy, quits)
    windows = watch(Starter(bridge.pid), clock, busy, quits, headless=False)
    switched_off = watch(Starter(bridge.pid), clock, busy, quits, timeout=None)
    end(bridge)
    clock.now += 10 ** 6
    assert not any(w.tick() for w in (person, windows, switched_off)) and quits == []
    assert person.state()["idleExit"]["wontStopBecause"] == "started by a person: it never quits by itself"
    assert windows.state()["idleExit"]["wontStopBecause"] == "it has windows: it never quits by itself"
    assert switched_off.state()["idleExit"]["wontStopBecause"] == "idle exit is switched off in the settings"


def test_the_starter_travels_in_the_environment_and_is_removed_from_it() -> None:
    environ = {STARTER_ENV: Starter(42, "browserpilot mcp", 41, "claude").to_env(), "OTHER": "x"}
    assert Starter.take_from(environ) == Starter(42, "browserpilot mcp", 41, "claude")
    assert environ == {"OTHER": "x"}
    assert Starter.take_from({STARTER_ENV: "not json"}) is None


def test_timeout_from_settings_or_the_environment() -> None:
    assert idle_timeout(10, {}) == 600
    assert idle_timeout(0, {}) is None
    assert idle_timeout(10, {"BROWSERPILOT_IDLE_EXIT_SECONDS": "1.5"}) == 1.5
    assert idle_timeout(10, {"BROWSERPILOT_IDLE_EXIT_SECONDS": "soon"}) == 600
