"""A tab's network part: what the tab still has in flight (app/browser/inflight.py), the DevTools protocol
over its port-less channel (app/browser/cdp.py), capture (app/browser/netcapture.py) written as HAR
(app/browser/har.py), requests the app sends for the tab (app/browser/direct.py) and request mocks
(app/browser/netmock.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Mapping, Sequence

from PySide6.QtWebEngineCore import qWebEngineChromiumVersion

from app import __version__
from app.browser import direct, inflight
from app.browser.cdp import refusal
from app.browser.har import write_har_file
from app.browser.identity import request_headers
from app.browser.netcapture import CaptureError, NetworkCapture
from app.browser.netmock import MockRule
from app.browser.parts.core import TabCore, capture_name
from plumbing.savemanager import in_thread
from workflows.ports import PageError
from workflows.results_devtools import CdpBatchResult, CdpCommandResult, MockStartResult, MockStopResult
from workflows.results import (CdpResult, DirectResult, HarResult, NetCaptureResult, NetGetResult, NetListResult,
                               SettleResult)


class TabNetwork:
    def __init__(self, core: TabCore) -> None:
        self._core = core

    async def settle(self, timeout: float) -> SettleResult:
        """Let what the tab's last actions started land (app/browser/inflight.py: a navigation, a form post,
        fetch/XHR, beacons, WebSocket messages, EventSource answers, workers' requests, and the Save that leaves a
        moment after the click), at most `timeout` seconds: `{pending}` lists what had not (empty: everything
        landed), each item saying whether the last action started it (`lastAction`)."""
        core = self._core
        pending = await inflight.settle(core.page, timeout, lambda: core.view.loading or core.page.isLoading(),
                                        core.workers)
        return SettleResult(pending=pending, settled=not pending)

    async def cdp(self, method: str, params: dict[str, Any] | None, timeout: float) -> CdpResult:
        return CdpResult(result=await self._command(method, params, timeout))

    async def _command(self, method: str, params: dict[str, Any] | None, timeout: float) -> Any:
        """One caller's command on the tab's channel (page_cdp's rules), its answer as the browser gave it."""
        core = self._core
        net = core.net_services()
        if method == "Network.loadNetworkResource":
            # This command loads through the browser without the profile's request interceptor.
            refused = core.blocked(str((params or {}).get("url", "")))
            if refused is not None:
                raise PageError(f"page_cdp refuses {method}: {refused}", code="blocked")
        channel = net.cdp.channel(core.page)
        return await core.guarded(channel.user_command(method, params, timeout))

    async def cdp_batch(self, commands: Sequence[Mapping[str, Any]], timeout: float) -> CdpBatchResult:
        """Commands in order on the caller's session; all are checked before the first is sent, and the
        batch stops at the first failure (its error is its result)."""
        for index, command in enumerate(commands):
            reason = refusal(str(command["method"]), command.get("params"))
            if reason is not None:
                raise PageError(f"page_cdp_batch refuses commands[{index}] {command['method']}: {reason}; "
                                f"nothing was sent", code="cdp_refused")
        results: list[CdpCommandResult] = []
        for command in commands:
            method = str(command["method"])
            try:
                answer = await self._command(method, command.get("params"), timeout)
            except PageError as exc:
                results.append(CdpCommandResult(method=method, ok=False, error=str(exc), code=exc.code))
                break
            results.append(CdpCommandResult(method=method, ok=True, result=answer))
            if command.get("delay_ms"):
                await asyncio.sleep(float(command["delay_ms"]) / 1000)
        return CdpBatchResult(results=results, completed=len(results) == len(commands) and results[-1].ok)

    def _capture(self, create: bool = False) -> NetworkCapture:
        core = self._core
        net = core.net_services()
        recording = net.captures.get(core.tab_id)
        if recording is None and create:
            page = core.page
            recording = net.captures.ensure(core.tab_id, net.cdp.channel(page),
                                            lambda: (page.url().toString(), page.title()))
        if recording is None:
            raise CaptureError("network capture was never started on this tab; call net_start first")
        return recording

    async def net_start(self) -> NetCaptureResult:
        recording = self._capture(create=True)
        await self._core.guarded(recording.start())
        return NetCaptureResult(capturing=True)

    async def net_stop(self) -> NetCaptureResult:
        recording = self._capture()
        await recording.stop()
        return NetCaptureResult(capturing=False, entries=len(recording.entries))

    async def net_list(self, url_contains: str | None, limit: int) -> NetListResult:
        recording = self._capture()
        await recording.settle(2.0)
        return NetListResult(capturing=recording.running, requests=recording.list(url_contains, limit),
                             dropped=recording.dropped)

    async def net_get(self, request_id: str) -> NetGetResult:
        recording = self._capture()
        await recording.settle(2.0)
        # Built as it is: the capture's own record, with a body of up to 1 MB.
        return NetGetResult.model_construct(request=recording.get(request_id))

    async def net_export(self, path: str | None = None,
                         redact: Sequence[str] | Mapping[str, str] = ()) -> HarResult:
        """Write the tab's capture as HAR 1.2 (default: the environment's captures folder)."""
        recording = self._capture()
        await recording.settle(5.0)
        target = Path(path) if path else self._core.folders.captures / capture_name("net", ".har")
        har = recording.har(__version__, qWebEngineChromiumVersion())  # here: it reads the live capture
        result = await in_thread(write_har_file, target, har, redact, name="browserpilot-har")  # redacted off the Qt thread
        return HarResult(**result, capturing=recording.running)

    async def direct_request(self, method: str, url: str, headers: dict[str, str], body: str | None,
                             timeout: float) -> DirectResult:
        core = self._core
        net = core.net_services()

        async def cookies_for(target: str) -> dict[str, str]:
            channel = net.cdp.channel(core.page)
            found = await core.guarded(channel.user_command("Network.getCookies", {"urls": [target]}, 10.0))
            return {cookie["name"]: cookie["value"] for cookie in found.get("cookies", [])}

        recording = net.captures.get(core.tab_id)
        record = recording.add_direct if recording is not None and recording.running else None
        given = {name.lower() for name in headers}
        # The environment's identity, as the browser sends it; a header the caller gives wins.
        headers = {**{k: v for k, v in request_headers(core.page.env_profile).items() if k.lower() not in given},
                   **headers}
        try:
            return DirectResult.model_validate(await direct.send(method, url, headers, body, timeout,
                                                                 blocked=core.blocked, cookies_for=cookies_for,
                                                                 record=record))
        except direct.DirectRequestError as exc:
            raise PageError(str(exc), code="request_failed") from None

    async def mock_start(self, rules: Sequence[Mapping[str, Any]]) -> MockStartResult:
        """Rules: `{url_contains, status, body, headers}` each (see app/browser/netmock.py)."""
        core = self._core
        net = core.net_services()
        page = core.page
        mock = net.mocks.ensure(core.tab_id, net.cdp.channel(page), core.blocked, lambda: page.url().toString())
        await core.guarded(mock.start([MockRule(str(r["url_contains"]), int(r.get("status", 200)),
                                                str(r.get("body", "{}")), dict(r.get("headers") or {}))
                                       for r in rules]))
        return MockStartResult(rules=len(rules))

    async def mock_stop(self) -> MockStopResult:
        mock = self._core.net_services().mocks.drop(self._core.tab_id)
        if mock is None:
            return MockStopResult(mocked=False)
        return MockStopResult(mocked=False, **(await mock.stop()))
