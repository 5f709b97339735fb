"""A Chrome DevTools Protocol channel to one tab, with no TCP port.

How it works (QtWebEngine 6.12 / Chromium 140, verified here):

- A hidden DevTools front-end page (`_FrontendPage`, in one shared off-the-record profile that `CdpHub` keeps
  alive) is attached to the tab with `page.setDevToolsPage(frontend)`. QtWebEngine then loads
  `devtools://devtools/bundled/inspector.html` into it, gives it the embedder bindings (`DevToolsHost`,
  `DevToolsAPI`, `InspectorFrontendHost`) and connects it to the tab's DevTools agent.
- The stock DevTools UI never boots: the front-end profile's request interceptor lets only the main document
  load and blocks its scripts and styles (`_FrontendInterceptor`). So the front-end sends nothing of its own;
  every command on the channel is ours. (Without this, the full inspector boots, loads over 100 modules and
  enables Debugger, Runtime, DOM, CSS, ... on the tab.)
- A script injected into the front-end's main world (`_BRIDGE_JS`) replaces `DevToolsAPI.dispatchMessage`
  and `dispatchMessageChunk` (how the embedder delivers replies and events; chunks are re-assembled) and
  hands each message to Python as one console message with a private prefix (`javaScriptConsoleMessage`).
  To spare the UI thread, it sums `Network.dataReceived` per request into the `loadingFinished` /
  `loadingFailed` event (`dataLength`, `encodedBodyLength`) and drops `Network.resourceChangedPriority`;
  commands go out with `runJavaScript` → `InspectorFrontendHost.sendMessageToBackend`. Messages of several
  MB arrive whole. The inspected page cannot reach the front-end page: it is another renderer.
- Commands of `page_cdp` run in a separate session to the same page (`Target.attachToTarget`, flatten), so
  a caller's `Network.disable` or `Runtime.disable` cannot disturb the capture on the main session; commands
  that would break our control of the tab or reach beyond its environment are refused (`refusal`).
- A channel attaches on first use and detaches when nothing holds it (capture holds it while it runs) and no
  command came for `IDLE_DETACH` seconds; a closed tab, a crashed front-end or `Inspector.detached` close it.

Every command has an id and a timeout; a reply with `error` raises `CdpError` naming the method.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer, QUrl, Signal
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)

from app.browser.js import PageError, PageTimeout
from plumbing import loggers

log = logging.getLogger(loggers.NET)

MAIN_WORLD = int(QWebEngineScript.ScriptWorldId.MainWorld)

MESSAGE_PREFIX = "\x01browserpilot-cdp:"
ATTACH_TIMEOUT = 10.0
COMMAND_TIMEOUT = 30.0
IDLE_DETACH = 30.0  # seconds without commands after which an unheld channel detaches

Listener = Callable[[str, dict[str, Any], str | None], None]  # method, params, sessionId


class CdpError(PageError):
    """The browser answered a command with an error."""

    code = "cdp_error"

    def __init__(self, method: str, message: str, code: int | None = None) -> None:
        super().__init__(f"CDP {method} failed: {message}" + (f" (code {code})" if code is not None else ""))
        self.method = method
        self.cdp_code = code  # the protocol's own error code


class CdpRefused(PageError):
    """A command BrowserPilot does not send on a caller's behalf."""

    code = "cdp_refused"


class CdpClosed(PageError):
    """The channel closed while a command was waiting (tab closed, front-end crashed, detached)."""

    code = "cdp_closed"


# -- what page_cdp refuses -------------------------------------------------------------------------------
_REFUSED_DOMAINS = {
    "Target": "Target commands could reach other environments' tabs or detach BrowserPilot from this tab",
    "Browser": "Browser commands act on the whole browser, every environment included",
    "Inspector": "it would disturb BrowserPilot's own DevTools connection to the tab",
    "Fetch": "request interception holds every matching request until it is answered, which one page_cdp "
             "call cannot do (use net_start / net_list to watch requests)",
    "Debugger": "pausing the page's scripts would stop every operation on this tab, and page_cdp cannot resume",
    "DOMDebugger": "pausing the page's scripts would stop every operation on this tab, and page_cdp cannot resume",
    "EventBreakpoints": "pausing the page's scripts would stop every operation on this tab",
    "Extensions": "extensions are not part of BrowserPilot",
    "PWA": "installing or launching web apps is not supported",
}
_ALLOWED_IN_REFUSED = {"Browser.getVersion", "Target.getTargetInfo", "Debugger.getScriptSource"}
_REFUSED_METHODS = {
    "Page.close": "closing the tab is tab_close's job",
    "Page.crash": "crashing the page is not supported",
    "Page.setDownloadBehavior": "downloads are managed per environment (use page_download)",
    "Network.setRequestInterception": _REFUSED_DOMAINS["Fetch"],
    "Emulation.setScriptExecutionDisabled": "BrowserPilot's page operations need JavaScript in the page",
    "Security.setIgnoreCertificateErrors": "certificate checks apply to every environment",
    "Security.setOverrideCertificateErrors": "certificate checks apply to every environment",
    "Runtime.terminateExecution": "it would also stop BrowserPilot's scripts in the page",
}


def refusal(method: str, params: dict[str, Any] | None) -> str | None:
    """Why `method` is not sent for a caller (None: it may be sent)."""
    domain = method.split(".", 1)[0]
    if method in _REFUSED_METHODS:
        return _REFUSED_METHODS[method]
    if domain in _REFUSED_DOMAINS and method not in _ALLOWED_IN_REFUSED:
        return _REFUSED_DOMAINS[domain]
    if method == "Target.getTargetInfo" and params and params.get("targetId"):
        return "only this tab's own target info is available (leave out targetId)"
    if params and "browserContextId" in params:
        return "commands that name a browser context could reach other environments"
    return None


# -- the front-end page ----------------------------------------------------------------------------------
_BRIDGE_JS = r"""(() => {
  if (location.protocol !== 'devtools:' || window.__bpCdpReady) return;
  const PREFIX = %s;
  const emit = (text) => console.debug(PREFIX + text);
  const encoder = new TextEncoder();
  let parts = null, expected = 0, received = 0;
  // Fewer messages to Python: Network.dataReceived (several per response) is summed per request and its
  // totals travel with loadingFinished/loadingFailed (dataLength, encodedBodyLength); priority changes are
  // dropped. Events always start with {"method":...; anything else passes through unchanged.
  const sizes = new Map();
  const keyOf = (m) => (m.sessionId || '') + ' ' + m.params.requestId;
  const deliver = (message) => {
    if (typeof message !== 'string') message = JSON.stringify(message);
    if (message.startsWith('{"method":"Network.dataReceived"')) {
      const m = JSON.parse(message), key = keyOf(m), sum = sizes.get(key) || [0, 0];
      sum[0] += m.params.dataLength || 0; sum[1] += m.params.encodedDataLength || 0;
      if (sizes.size > 5000) sizes.clear();
      sizes.set(key, sum);
      return;
    }
    if (message.startsWith('{"method":"Network.resourceChangedPriority"')) return;
    if (message.startsWith('{"method":"Network.loadingFinished"') || message.startsWith('{"method":"Network.loadingFailed"')) {
      const m = JSON.parse(message), key = keyOf(m), sum = sizes.get(key);
      if (sum) {
        sizes.delete(key);
        m.params.dataLength = sum[0]; m.params.encodedBodyLength = sum[1];
        message = JSON.stringify(m);
      }
    }
    emit(message);
  };
  const install = () => {
    const api = window.DevToolsAPI, host = window.InspectorFrontendHost;
    if (!api || !host || typeof host.sendMessageToBackend !== 'function') return false;
    api.dispatchMessage = deliver;
    api.dispatchMessageChunk = (chunk, size) => {
      if (size) { parts = []; expected = Number(size); received = 0; }
      if (!parts) return;
      parts.push(chunk);
      received += encoder.encode(chunk).length;
      if (received >= expected) { const whole = parts.join(''); parts = null; deliver(whole); }
    };
    window.__bpCdp = (text) => { host.sendMessageToBackend(text); return 1; };
    window.__bpCdpReady = true;
    return true;
  };
  if (!install()) document.addEventListener('DOMContentLoaded', install, {once: true});
})();"""


class _FrontendInterceptor(QWebEngineUrlRequestInterceptor):
    """Only the front-end's own document loads: the stock DevTools UI (its modules, styles) never boots."""

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        if info.resourceType() == QWebEngineUrlRequestInfo.ResourceType.ResourceTypeMainFrame \
                and info.requestUrl().scheme() == "devtools":
            return
        info.block(True)


class _FrontendPage(QWebEnginePage):
    def __init__(self, profile: QWebEngineProfile, deliver: Callable[[str], None]) -> None:
        super().__init__(profile)
        self._deliver = deliver

    def javaScriptConsoleMessage(self, level: QWebEnginePage.JavaScriptConsoleMessageLevel, message: str,
                                 lineNumber: int, sourceID: str) -> None:
        if message.startswith(MESSAGE_PREFIX):
            self._deliver(message[len(MESSAGE_PREFIX):])
        else:
            log.debug("devtools front-end: %s", message[:300])

    def javaScriptAlert(self, securityOrigin: QUrl, msg: str) -> None:
        pass

    def javaScriptConfirm(self, securityOrigin: QUrl, msg: str) -> bool:
        return False

    def javaScriptPrompt(self, securityOrigin: QUrl, msg: str, defaultValue: str) -> tuple[bool, str]:
        return False, ""

    def createWindow(self, kind: QWebEnginePage.WebWindowType) -> QWebEnginePage | None:  # type: ignore[override]
        return None


class CdpHub(QObject):
    """The front-end profile (off the record, kept for the app's lifetime) and one channel per page."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._profile: QWebEngineProfile | None = None
        self._interceptor: _FrontendInterceptor | None = None
        self._channels: dict[int, CdpChannel] = {}
        self._frontends: list[_FrontendPage] = []  # every front-end page not deleted yet

    def new_frontend(self, deliver: Callable[[str], None]) -> "_FrontendPage":
        frontend = _FrontendPage(self.profile(), deliver)
        self._frontends.append(frontend)
        frontend.destroyed.connect(lambda *_: self._frontends.remove(frontend) if frontend in self._frontends else None)
        return frontend

    def profile(self) -> QWebEngineProfile:
        if self._profile is None:
            profile = QWebEngineProfile(self)  # no storage name: off the record, nothing on disk
            interceptor = _FrontendInterceptor(profile)
            profile.setUrlRequestInterceptor(interceptor)
            script = QWebEngineScript()
            script.setName("browserpilot-cdp-bridge")
            script.setSourceCode(_BRIDGE_JS % json.dumps(MESSAGE_PREFIX))
            script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
            script.setWorldId(MAIN_WORLD)
            script.setRunsOnSubFrames(False)
            profile.scripts().insert(script)
            self._profile, self._interceptor = profile, interceptor
        return self._profile

    def channel(self, page: QWebEnginePage) -> "CdpChannel":
        """The page's channel (not attached until its first command)."""
        key = id(page)
        channel = self._channels.get(key)
        if channel is None or channel.page is not page:
            channel = CdpChannel(self, page)
            self._channels[key] = channel
            channel.destroyed.connect(lambda *_: self._channels.pop(key, None) if self._channels.get(key) is channel
                                      else None)
        return channel

    def existing(self, page: QWebEnginePage) -> "CdpChannel | None":
        channel = self._channels.get(id(page))
        return channel if channel is not None and channel.page is page else None

    def attached_count(self) -> int:
        return sum(1 for channel in self._channels.values() if channel.attached)

    def frontend_count(self) -> int:
        """Front-end pages alive now (each is a renderer process); 0 while no channel is attached."""
        return sum(1 for frontend in self._frontends if shiboken6.isValid(frontend))

    def frontend_pids(self) -> list[int]:
        """The renderer process ids of the front-end pages alive now."""
        return [frontend.renderProcessPid() for frontend in self._frontends if shiboken6.isValid(frontend)]

    def close_all(self) -> None:
        """Detach every channel and delete the front-end pages, then their profile (app shutdown: pages
        must go before their profile)."""
        for channel in list(self._channels.values()):
            channel.close("the app is shutting down")
        self._channels.clear()
        for frontend in list(self._frontends):
            if shiboken6.isValid(frontend):
                shiboken6.delete(frontend)
        self._frontends.clear()
        if self._profile is not None and shiboken6.isValid(self._profile):
            self._profile.setUrlRequestInterceptor(None)
            shiboken6.delete(self._profile)
        self._profile = None


class CdpChannel(QObject):
    """One tab's DevTools connection: `send` commands, `add_listener` for events, `hold` to keep it."""

    closed = Signal(str)  # why

    def __init__(self, hub: CdpHub, page: QWebEnginePage) -> None:
        super().__init__(hub)
        self.hub = hub
        self.page = page
        self._frontend: _FrontendPage | None = None
        self._ready = False
        self._opening: asyncio.Future[None] | None = None
        self._pending: dict[int, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._next_id = 0
        self._listeners: list[Listener] = []
        self._holds: set[str] = set()
        self._user_session: str | None = None
        self._page_gone = False
        self.attach_ms: float | None = None
        self.commands = 0
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(int(IDLE_DETACH * 1000))
        self._idle.timeout.connect(self._on_idle)
        page.destroyed.connect(self._on_page_destroyed)

    @property
    def attached(self) -> bool:
        return self._ready and self._frontend is not None

    @property
    def target_id(self) -> str:
        return self.page.devToolsId()

    # -- attach and detach ---------------------------------------------------------------------------------
    async def open(self, timeout: float = ATTACH_TIMEOUT) -> None:
        """Attach the hidden front-end to the tab (once) and wait until the bridge is ready."""
        if self.attached:
            return
        if self._page_gone:
            raise CdpClosed("the tab is closed")
        if self._opening is None or self._opening.done():
            self._opening = asyncio.ensure_future(self._attach(timeout))
        await asyncio.shield(self._opening)

    async def _attach(self, timeout: float) -> None:
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        frontend = self.hub.new_frontend(self._on_message)
        frontend.renderProcessTerminated.connect(
            lambda *_: self._frontend is frontend and self.close("the DevTools front-end's renderer ended"))
        loaded: asyncio.Future[bool] = loop.create_future()
        frontend.loadFinished.connect(lambda ok: loaded.done() or loaded.set_result(ok))
        self._frontend = frontend
        self.page.setDevToolsPage(frontend)
        deadline = loop.time() + timeout
        try:
            if not await asyncio.wait_for(loaded, timeout):
                raise PageError("the DevTools front-end did not load")
            while not await self._bridge_ready():
                if loop.time() > deadline:
                    raise PageTimeout(f"the DevTools channel was not ready within {timeout:g} s")
                await asyncio.sleep(0.01)
        except asyncio.TimeoutError:
            self._teardown("attach timed out")
            raise PageTimeout(f"the DevTools front-end did not load within {timeout:g} s") from None
        except BaseException:
            self._teardown("attach failed")
            raise
        self._ready = True
        self.attach_ms = (time.perf_counter() - started) * 1000
        log.info("CDP channel attached to %s in %.0f ms", self.page.url().toString()[:120], self.attach_ms)
        self._touch()

    async def _bridge_ready(self) -> bool:
        frontend = self._frontend
        if frontend is None:
            raise CdpClosed("the DevTools channel closed while attaching")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        frontend.runJavaScript("window.__bpCdpReady === true", MAIN_WORLD,
                               lambda value: future.done() or future.set_result(value))
        try:
            return await asyncio.wait_for(future, 2.0) is True
        except asyncio.TimeoutError:
            return False

    def hold(self, holder: str) -> None:
        """Keep the channel attached until `release(holder)`."""
        self._holds.add(holder)
        self._idle.stop()

    def release(self, holder: str, detach_now: bool = False) -> None:
        self._holds.discard(holder)
        if not self._holds:
            if detach_now and not self._pending:
                self.close("released")
            else:
                self._touch()

    def _touch(self) -> None:
        if not self._holds and self.attached:
            self._idle.start()

    def _on_idle(self) -> None:
        if not self._holds and not self._pending:
            self.close("idle")

    def _on_page_destroyed(self, *_args: object) -> None:
        self._page_gone = True
        self.close("the tab was closed")
        self.deleteLater()  # the hub forgets it when it is gone

    def close(self, reason: str = "closed") -> None:
        """Detach from the tab, delete the front-end page, fail waiting commands."""
        was_attached = self._frontend is not None
        self._teardown(reason)
        if was_attached:
            log.info("CDP channel detached (%s)", reason)
            self.closed.emit(reason)

    def _teardown(self, reason: str) -> None:
        frontend, self._frontend = self._frontend, None
        self._ready = False
        self._user_session = None
        self._idle.stop()
        if frontend is not None:
            if not self._page_gone and shiboken6.isValid(self.page) and shiboken6.isValid(frontend):
                if self.page.devToolsPage() is frontend:
                    self.page.setDevToolsPage(None)
            if shiboken6.isValid(frontend):
                frontend.deleteLater()
        pending, self._pending = self._pending, {}
        for method, future in pending.values():
            if not future.done():
                future.set_exception(CdpClosed(f"CDP {method}: the DevTools channel closed ({reason})"))

    # -- messages ------------------------------------------------------------------------------------------
    def add_listener(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def send(self, method: str, params: dict[str, Any] | None = None, *, session_id: str | None = None,
                   timeout: float = COMMAND_TIMEOUT) -> dict[str, Any]:
        """Send one command and return its `result`; raises `CdpError`, `PageTimeout` or `CdpClosed`."""
        await self.open()
        frontend = self._frontend
        if frontend is None:
            raise CdpClosed(f"CDP {method}: the DevTools channel is closed")
        self._next_id += 1
        message_id = self._next_id
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[message_id] = (method, future)
        self.commands += 1
        self._idle.stop()

        def sent(value: object) -> None:
            if value != 1 and not future.done():
                future.set_exception(CdpClosed(f"CDP {method}: the DevTools front-end did not take the command"))

        frontend.runJavaScript(f"window.__bpCdp({json.dumps(json.dumps(message))})",
                               MAIN_WORLD, sent)
        try:
            reply = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise PageTimeout(f"CDP {method} did not answer within {timeout:g} s") from None
        finally:
            self._pending.pop(message_id, None)
            self._touch()
        error = reply.get("error")
        if error is not None:
            raise CdpError(method, str(error.get("message", error)), error.get("code"))
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    async def user_command(self, method: str, params: dict[str, Any] | None,
                           timeout: float = COMMAND_TIMEOUT) -> dict[str, Any]:
        """A caller's command (page_cdp): refused when it would break our control, else sent in the
        caller's own session to this tab."""
        reason = refusal(method, params)
        if reason is not None:
            raise CdpRefused(f"page_cdp refuses {method}: {reason}")
        if self._user_session is None:
            attached = await self.send("Target.attachToTarget", {"targetId": self.target_id, "flatten": True})
            self._user_session = str(attached["sessionId"])
        return await self.send(method, params, session_id=self._user_session, timeout=timeout)

    def _on_message(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            log.warning("CDP: a message that is not JSON (%d characters)", len(text))
            return
        message_id = message.get("id")
        if message_id is not None and "method" not in message:
            waiting = self._pending.get(message_id)
            if waiting is not None and not waiting[1].done():
                waiting[1].set_result(message)
            return
        method = message.get("method")
        if not isinstance(method, str):
            return
        params = message.get("params") or {}
        session = message.get("sessionId")
        if method == "Target.detachedFromTarget" and params.get("sessionId") == self._user_session:
            self._user_session = None
        elif method == "Inspector.detached" and session is None:
            QTimer.singleShot(0, lambda: self.close(f"detached by the browser: {params.get('reason', '')}"))
        for listener in list(self._listeners):
            try:
                listener(method, params, session)
            except Exception:  # a broken listener must not break the channel
                log.exception("CDP listener failed on %s", method)
