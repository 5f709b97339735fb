"""The requests of a page's workers (dedicated, shared and service workers), which the page's own world cannot
see: the part of "in flight" (app/browser/inflight.py) that only DevTools shows.

Only pages that have workers pay for it: resources/js/inflight.js says so on the console the first time a
document creates a `Worker` or a `SharedWorker`, registers a service worker or is controlled by one, and the tab
starts `WorkerTraffic` on its DevTools channel (app/browser/cdp.py, which then stays attached for the tab's
life). It works in a session of its own to the page (so network capture's own auto-attach, started and stopped
with `net_start`/`net_stop`, never disturbs it): auto-attach to the page's workers only, each worker held at its
start until `Network` is enabled in it (so its first request is seen too), then every request from
`requestWillBeSent` until it is answered (`responseReceived`; a body the worker never reads never finishes
loading) or fails. An action waits until the watch is in place
(`ready`), so what the worker does for it is not missed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

from app.browser.cdp import CdpChannel, CdpClosed, CdpError
from app.browser.js import PageTimeout
from plumbing import loggers

log = logging.getLogger(loggers.NET)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WORKER_TYPES = ("worker", "shared_worker", "service_worker")
START_TIMEOUT = 10.0


@dataclass
class _Request:
    method: str
    url: str
    since: float  # monotonic seconds
    worker: str   # the worker's script address


class WorkerTraffic:
    HOLDER = "inflight-workers"

    def __init__(self, channel: CdpChannel) -> None:
        self.channel = channel
        self.active_at: float | None = None  # the last write request of a worker sent or answered
        self._requests: dict[tuple[str, str], _Request] = {}
        self._workers: dict[str, str] = {}  # session -> the worker's address
        self._session: str | None = None
        self._unlisten: Callable[[], None] | None = None
        self._started: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin watching (once); `ready()` waits until the watch is in place."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())

    async def ready(self) -> None:
        if self._started is not None and not self._started.done():
            await asyncio.wait({self._started}, timeout=START_TIMEOUT)

    async def _start(self) -> None:
        began = time.perf_counter()
        self.channel.hold(self.HOLDER)
        self._unlisten = self.channel.add_listener(self._on_event)
        try:
            attached = await self.channel.send("Target.attachToTarget", {"targetId": self.channel.target_id,
                                                                         "flatten": True})
            self._session = str(attached["sessionId"])
            await self.channel.send("Target.setAutoAttach", {
                "autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True,
                "filter": [*({"type": kind} for kind in WORKER_TYPES), {"exclude": True}]}, session_id=self._session)
        except (CdpError, CdpClosed, PageTimeout) as exc:
            log.warning("the requests of this page's workers cannot be watched: %s", exc)
            self.stop()
            return
        log.info("watching the requests of the workers of %s (%.0f ms to start)",
                 self.channel.page.url().toString()[:120], (time.perf_counter() - began) * 1000)

    def stop(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self._requests.clear()
        self.channel.release(self.HOLDER)

    def pending(self, input_at: float | None) -> list[dict[str, Any]]:
        """The workers' requests without their answer, as `inflight.look` lists them; a write request that
        started after the last input is the last action's."""
        now = time.monotonic()
        return [{"kind": "worker", "method": request.method, "url": request.url,
                 "ms": round((now - request.since) * 1000), "worker": request.worker,
                 "lastAction": request.method not in SAFE_METHODS and (input_at is None or request.since >= input_at)}
                for request in self._requests.values()]

    # -- events ------------------------------------------------------------------------------------------
    def _on_event(self, method: str, params: dict[str, Any], session: str | None) -> None:
        if method == "Target.attachedToTarget" and session == self._session:
            child = str(params.get("sessionId"))
            info = params.get("targetInfo") or {}
            if info.get("type") in WORKER_TYPES:
                self._workers[child] = str(info.get("url", ""))
                asyncio.ensure_future(self._follow(child, bool(params.get("waitingForDebugger"))))
            return
        if method == "Target.detachedFromTarget":
            child = str(params.get("sessionId"))
            if self._workers.pop(child, None) is not None:
                for key in [key for key in self._requests if key[0] == child]:
                    del self._requests[key]
            return
        if session not in self._workers:
            return
        if method == "Network.requestWillBeSent":
            request = params.get("request") or {}
            key = (session, str(params.get("requestId")))
            previous = self._requests.get(key)  # a redirect: the same request goes on
            verb = str(request.get("method", "GET")).upper()
            self._requests[key] = _Request(verb, str(request.get("url", "")),
                                           previous.since if previous else time.monotonic(), self._workers[session])
            if verb not in SAFE_METHODS:
                self.active_at = time.monotonic()
        elif method in ("Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed"):
            # Answered (the body is the worker's to read: a body nobody reads never "finishes")
            done = self._requests.pop((session, str(params.get("requestId"))), None)
            if done is not None and done.method not in SAFE_METHODS:
                self.active_at = time.monotonic()

    async def _follow(self, child: str, waiting: bool) -> None:
        """Watch a worker's requests, then let it run (it was held at its start). Both commands leave together,
        in this order (tasks start in the order they are made), and the worker's session handles them in order:
        `Network.enable` still comes first, and a worker whose `Network.enable` is slow to answer (a service
        worker starting under load) is not held until it does."""
        commands = [("Network.enable", "could not watch the requests of worker"),
                    *([("Runtime.runIfWaitingForDebugger", "could not let run worker")] if waiting else [])]
        sent = [asyncio.ensure_future(self.channel.send(method, {}, session_id=child)) for method, _ in commands]
        for (_method, failure), outcome in zip(commands, await asyncio.gather(*sent, return_exceptions=True)):
            if isinstance(outcome, (CdpError, CdpClosed, PageTimeout)):
                log.info("%s %s: %s", failure, self._workers.get(child), outcome)
            elif isinstance(outcome, BaseException):
                raise outcome
