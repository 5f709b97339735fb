"""Each environment's domain policy, enforced on every request of its profile.

- `PolicyRegistry` compiles each environment's `allowedDomains`/`blockedDomains` (envs/domains.py) and
  follows the environment store: a changed policy applies at once to the live profile. A profile whose
  environment has no policy gets no interceptor at all (QtWebEngine then skips the hook: zero cost).
- `_Interceptor` (a `QWebEngineUrlRequestInterceptor` per profile, on the UI thread) blocks every request
  type before it is sent: navigations, frames, scripts, styles, images, fonts, fetch/XHR, WebSockets,
  beacons, workers, downloads. Decisions are cached per (scheme, host, port). `about:`, `data:`, `blob:` and
  `filesystem:` URLs follow their initiator; QtWebEngine's own schemes (devtools:, chrome:, qrc:) pass.
- Redirects: QtWebEngine asks the interceptor about a redirect target only *after* it has told the network
  service to follow the redirect (proxying_url_loader_factory_qt.cpp, `FollowRedirect`), so the blocked
  host can still receive that one request. Navigations (pages and frames) are therefore also checked in
  `navigationRequested`, which runs before a redirect is followed, and rejected there: a redirect from an
  allowed page to a blocked host never reaches that host. Sub-resource redirects (an image or beacon
  answered with a redirect to a blocked host) are only caught by the interceptor: the page never gets the
  response, but the request may reach the blocked host (a QtWebEngine limitation).
- A blocked top-level navigation ends on Chromium's error page; `PageGuard` replaces its text with which
  rule blocked which host, and `block_reason` lets navigations report `blocked by the policy of env-…: host`.
- `blocked(env, tab)` lists recent blocked requests (time, URL, type, rule), at most `MAX_BLOCKED` per
  environment. A request is attributed to the tabs of its environment whose address is the request's first
  party (the tab's address when the request was made), else to those on the first party's origin (WebSocket
  requests carry only the origin); a request of no tab (a service worker) has none. Two tabs showing the same
  address share the attribution: QtWebEngine does not tell a profile's interceptor which page asked.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

import shiboken6
from PySide6.QtCore import QObject, QTimer, QUrl
from PySide6.QtWebEngineCore import (
    QWebEngineLoadingInfo,
    QWebEngineNavigationRequest,
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)

from plumbing import loggers
from envs.domains import DomainPolicy, PatternError, Verdict, parse_pattern
from envs.store import EnvEvent, EnvStore
from workflows.results_devtools import BlockedRequestView

log = logging.getLogger(loggers.NET)

MAX_BLOCKED = 500  # recent blocked requests kept per environment
NAVIGATION_MEMORY = 30.0  # seconds a blocked top-level navigation is remembered for its error page and report
INTERNAL_SCHEMES = frozenset({"devtools", "chrome", "chrome-error", "chrome-untrusted", "qrc"})
INITIATOR_SCHEMES = frozenset({"about", "data", "blob", "filesystem"})
_ENCODED = QUrl.ComponentFormattingOption.FullyEncoded
_RT = QWebEngineUrlRequestInfo.ResourceType
_TYPES = {
    _RT.ResourceTypeMainFrame: "document", _RT.ResourceTypeSubFrame: "frame",
    _RT.ResourceTypeStylesheet: "stylesheet", _RT.ResourceTypeScript: "script", _RT.ResourceTypeImage: "image",
    _RT.ResourceTypeFontResource: "font", _RT.ResourceTypeSubResource: "other", _RT.ResourceTypeObject: "object",
    _RT.ResourceTypeMedia: "media", _RT.ResourceTypeWorker: "worker", _RT.ResourceTypeSharedWorker: "worker",
    _RT.ResourceTypePrefetch: "prefetch", _RT.ResourceTypeFavicon: "favicon", _RT.ResourceTypeXhr: "fetch",
    _RT.ResourceTypePing: "beacon", _RT.ResourceTypeServiceWorker: "serviceworker",
    _RT.ResourceTypeCspReport: "csp-report", _RT.ResourceTypePluginResource: "plugin",
    _RT.ResourceTypeNavigationPreloadMainFrame: "document", _RT.ResourceTypeNavigationPreloadSubFrame: "frame",
    _RT.ResourceTypeJson: "json", _RT.ResourceTypeWebSocket: "websocket",
}
_MAIN_FRAME = _RT.ResourceTypeMainFrame
GUARD_OBJECT_NAME = "browserpilot-policy-guard"


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class BlockedRequest:
    """One request the policy stopped."""

    time: float
    env_id: str
    url: str
    type: str
    verdict: Verdict
    first_party: str = ""
    download: bool = False
    tab_ids: list[str] = field(default_factory=list)

    def view(self) -> BlockedRequestView:
        """As net_blocked shows it (`page` and `download` only when known)."""
        known: dict[str, Any] = {"page": self.first_party} if self.first_party else {}
        if self.download:
            known["download"] = True
        return BlockedRequestView(time=_iso(self.time), env=self.env_id, url=self.url, type=self.type,
                                  host=self.verdict.host, rule=self.verdict.rule, tab_ids=list(self.tab_ids), **known)


def decide(policy: DomainPolicy, url: QUrl, initiator: QUrl | None) -> Verdict | None:
    """The policy's verdict for a request URL (None: allowed). Hostless URLs follow their initiator."""
    scheme = url.scheme()
    if scheme in INTERNAL_SCHEMES:
        return None
    if scheme in INITIATOR_SCHEMES:
        if initiator is None or initiator.isEmpty() or initiator.scheme() in INITIATOR_SCHEMES:
            return None  # typed by a person, or opened by the browser itself
        url, scheme = initiator, initiator.scheme()
        if scheme in INTERNAL_SCHEMES:
            return None
    port = url.port()
    return policy.check(scheme, url.host(_ENCODED).rstrip("."), port if port >= 0 else None)


class _Interceptor(QWebEngineUrlRequestInterceptor):
    """The profile's hook: blocks what the environment's policy does not allow."""

    def __init__(self, registry: "PolicyRegistry", env_id: str, policy: DomainPolicy) -> None:
        super().__init__()
        self.registry = registry
        self.env_id = env_id
        self.policy = policy

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        verdict = decide(self.policy, url, info.initiator() if url.scheme() in INITIATOR_SCHEMES else None)
        if verdict is None:
            return
        info.block(True)
        self.registry._record(self.env_id, url.toString(), info.resourceType(), verdict,
                              info.firstPartyUrl().toString(), info.isDownload())


class PolicyRegistry(QObject):
    """Compiled policies per environment, their interceptors on live profiles, and the blocked log."""

    def __init__(self, store: EnvStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._policies: dict[str, DomainPolicy] = {}
        self._profiles: dict[str, QWebEngineProfile] = {}
        self._interceptors: dict[str, _Interceptor] = {}
        self._blocked: dict[str, deque[BlockedRequest]] = {}
        self._navigations: dict[str, dict[str, tuple[float, Verdict]]] = {}  # env -> url -> (when, verdict)
        self.tabs_of_env: Callable[[str], Iterable[tuple[str, QWebEnginePage]]] = lambda env_id: ()
        self._unsubscribe = store.subscribe(self._on_env_event)

    # -- policies ----------------------------------------------------------------------------------------
    def policy(self, env_id: str) -> DomainPolicy:
        policy = self._policies.get(env_id)
        if policy is None:
            policy = self._policies[env_id] = self._compile(env_id)
        return policy

    def _compile(self, env_id: str) -> DomainPolicy:
        if not self._store.exists(env_id):
            return DomainPolicy()
        env = self._store.get(env_id)
        return DomainPolicy(_valid(env.allowed_domains, env_id, "allowedDomains"),
                            _valid(env.blocked_domains, env_id, "blockedDomains"))

    def attach_profile(self, env_id: str, profile: QWebEngineProfile) -> None:
        """Enforce the environment's policy on a newly created profile."""
        self._profiles[env_id] = profile
        self._apply(env_id)

    def detach_profile(self, env_id: str) -> None:
        profile = self._profiles.pop(env_id, None)
        interceptor = self._interceptors.pop(env_id, None)
        if profile is not None and interceptor is not None and shiboken6.isValid(profile):
            profile.setUrlRequestInterceptor(None)
        self._policies.pop(env_id, None)
        self._navigations.pop(env_id, None)

    def refresh(self, env_id: str) -> None:
        """Re-read the environment's patterns and apply them to its live profile at once."""
        old = self._policies.get(env_id)
        new = self._compile(env_id)
        if old is not None and old.allowed == new.allowed and old.blocked == new.blocked:
            return
        self._policies[env_id] = new
        if env_id in self._profiles:
            self._apply(env_id)
        log.info("policy of %s: allowed %s, blocked %s", env_id, [p.text for p in new.allowed] or "all",
                 [p.text for p in new.blocked] or "none")

    def _apply(self, env_id: str) -> None:
        profile = self._profiles[env_id]
        policy = self.policy(env_id)
        interceptor = self._interceptors.get(env_id)
        if not policy.active:
            if interceptor is not None:
                profile.setUrlRequestInterceptor(None)
                del self._interceptors[env_id]
            return
        if interceptor is None:
            interceptor = self._interceptors[env_id] = _Interceptor(self, env_id, policy)
            profile.setUrlRequestInterceptor(interceptor)
        else:
            interceptor.policy = policy  # one attribute swap: the next request sees the new policy

    def _on_env_event(self, event: EnvEvent) -> None:
        if event.kind == "updated":
            self.refresh(event.env_id)
        elif event.kind == "deleted":
            self._blocked.pop(event.env_id, None)

    def close(self) -> None:
        self._unsubscribe()
        for env_id in list(self._profiles):
            self.detach_profile(env_id)

    # -- the blocked log ---------------------------------------------------------------------------------
    def _record(self, env_id: str, url: str, resource_type: QWebEngineUrlRequestInfo.ResourceType,
                verdict: Verdict, first_party: str, download: bool) -> None:
        now = time.time()
        if resource_type == _MAIN_FRAME and self.navigation_verdict(env_id, url, now - 2.0) is not None:
            self._remember_navigation(env_id, url, verdict, now)
            return  # the page re-opening a redirect target it was refused (see PageGuard): logged already
        kind = _TYPES.get(resource_type, "other")
        entry = BlockedRequest(now, env_id, url, "download" if download else kind, verdict, first_party, download)
        entry.tab_ids = self._tabs_for(env_id, first_party, url)
        log_for_env = self._blocked.get(env_id)
        if log_for_env is None:
            log_for_env = self._blocked[env_id] = deque(maxlen=MAX_BLOCKED)
        log_for_env.append(entry)
        if resource_type == _MAIN_FRAME:
            self._remember_navigation(env_id, url, verdict, now)
        log.info("%s: blocked %s %s (%s)", env_id, entry.type, url[:200], verdict.rule)

    def _remember_navigation(self, env_id: str, url: str, verdict: Verdict, now: float) -> None:
        recent = self._navigations.setdefault(env_id, {})
        for key in [k for k, (when, _v) in recent.items() if now - when > NAVIGATION_MEMORY]:
            del recent[key]
        recent[url] = (now, verdict)

    def _tabs_for(self, env_id: str, first_party: str, url: str) -> list[str]:
        exact, same_origin = [], []
        origin = _origin(first_party)
        for tab_id, page in self.tabs_of_env(env_id):
            address = page.url()
            if address.toString() in (first_party, url) or page.requestedUrl().toString() == url:
                exact.append(tab_id)
            elif origin and _origin(address.toString()) == origin:
                same_origin.append(tab_id)  # some requests (WebSockets) carry only the page's origin
        return exact or same_origin

    def record_rejected_navigation(self, env_id: str, url: str, main_frame: bool, verdict: Verdict,
                                   tab_id: str | None, first_party: str) -> None:
        now = time.time()
        entry = BlockedRequest(now, env_id, url, "document" if main_frame else "frame", verdict, first_party,
                               tab_ids=[tab_id] if tab_id else self._tabs_for(env_id, first_party, url))
        self._blocked.setdefault(env_id, deque(maxlen=MAX_BLOCKED)).append(entry)
        if main_frame:
            self._remember_navigation(env_id, url, verdict, now)
        log.info("%s: stopped a redirect to %s (%s)", env_id, url[:200], verdict.rule)

    def blocked(self, env_id: str | None = None, tab_id: str | None = None,
                limit: int = MAX_BLOCKED) -> list[BlockedRequestView]:
        """Recent blocked requests, oldest first, of one environment (or all), optionally of one tab."""
        entries = [e for key, log_for_env in self._blocked.items() if env_id in (None, key) for e in log_for_env]
        if tab_id is not None:
            entries = [e for e in entries if tab_id in e.tab_ids]
        entries.sort(key=lambda e: e.time)
        return [e.view() for e in entries[-limit:]] if limit > 0 else []

    def navigation_verdict(self, env_id: str, url: str, since: float = 0.0) -> Verdict | None:
        """The verdict that blocked a top-level navigation to `url` (recently, and not before `since`)."""
        found = self._navigations.get(env_id, {}).get(url)
        if found is None:
            return None
        when, verdict = found
        if time.time() - when > NAVIGATION_MEMORY or when < since:
            return None
        return verdict

    # -- pages -------------------------------------------------------------------------------------------
    def guard_page(self, page: QWebEnginePage, env_id: str, tab_id: str | None = None) -> "PageGuard":
        """Check the page's redirects before they are followed, and explain blocked navigations on it."""
        existing = PageGuard.of(page)
        if existing is not None:
            existing.tab_id = tab_id or existing.tab_id
            return existing
        return PageGuard(page, self, env_id, tab_id)


def _origin(url: str) -> str:
    parsed = QUrl(url)
    if not parsed.isValid() or not parsed.host():
        return ""
    return f"{parsed.scheme()}://{parsed.host(_ENCODED)}:{parsed.port()}"


def _valid(patterns: list[str], env_id: str, label: str) -> list[str]:
    good = []
    for text in patterns:
        try:
            parse_pattern(text)
        except PatternError as exc:
            log.warning("%s: ignoring an invalid pattern in %s: %s", env_id, label, exc)
            continue
        good.append(text)
    return good


_BLOCK_PAGE_JS = """(() => {
  const d = %s;
  if (!String(location.href).startsWith('chrome-error:')) return false;
  document.title = d.title;
  const body = document.body || document.documentElement.appendChild(document.createElement('body'));
  document.querySelectorAll('style, link[rel=stylesheet]').forEach((e) => e.remove());
  body.replaceChildren();
  body.setAttribute('style', 'font: 15px/1.5 system-ui, sans-serif; margin: 12vh auto; max-width: 640px; '
    + 'padding: 0 24px; color: #202124; background: #fff');
  body.id = 'browserpilot-blocked';
  const add = (tag, text, style) => { const e = document.createElement(tag); e.textContent = text;
    if (style) e.setAttribute('style', style); body.appendChild(e); return e; };
  add('h1', d.heading, 'font-size: 22px; font-weight: 600');
  add('p', d.message);
  add('p', d.rule, 'font-family: monospace');
  add('p', d.url, 'font-family: monospace; color: #5f6368; word-break: break-all');
  add('p', d.hint, 'color: #5f6368');
  return true;
})()"""


class PageGuard(QObject):
    """One page's redirect check (`navigationRequested`) and its explanation of blocked navigations."""

    def __init__(self, page: QWebEnginePage, registry: PolicyRegistry, env_id: str, tab_id: str | None) -> None:
        super().__init__(page)
        self.setObjectName(GUARD_OBJECT_NAME)
        self.page = page
        self.registry = registry
        self.env_id = env_id
        self.tab_id = tab_id
        page.navigationRequested.connect(self._on_navigation_requested)
        page.loadingChanged.connect(self._on_loading_changed)

    @staticmethod
    def of(page: QWebEnginePage) -> "PageGuard | None":
        guard = page.findChild(QObject, GUARD_OBJECT_NAME)
        return guard if isinstance(guard, PageGuard) else None

    def _on_navigation_requested(self, request: QWebEngineNavigationRequest) -> None:
        if request.navigationType() != QWebEngineNavigationRequest.NavigationType.RedirectNavigation:
            return  # a new navigation's first request goes through the interceptor before it is sent
        policy = self.registry.policy(self.env_id)
        if not policy.active:
            return
        url = request.url()
        verdict = decide(policy, url, None)
        if verdict is None:
            return
        request.reject()
        main_frame = request.isMainFrame()
        self.registry.record_rejected_navigation(self.env_id, url.toString(), main_frame, verdict, self.tab_id,
                                                 self.page.url().toString())
        if main_frame:
            QTimer.singleShot(0, lambda: self._open_blocked(url))

    def _open_blocked(self, url: QUrl) -> None:
        """Show the explanation at the blocked address: this navigation's request is blocked by the
        interceptor before it is sent, and its error page is rewritten by `_on_loading_changed`."""
        if shiboken6.isValid(self.page):
            self.page.setUrl(url)

    def _on_loading_changed(self, info: QWebEngineLoadingInfo) -> None:
        if info.status() != QWebEngineLoadingInfo.LoadStatus.LoadFailedStatus or not info.isErrorPage():
            return
        url = info.url().toString()
        verdict = self.registry.navigation_verdict(self.env_id, url)
        if verdict is not None:
            self._show_block_page(url, verdict, attempts=10)

    def _show_block_page(self, url: str, verdict: Verdict, attempts: int) -> None:
        if not shiboken6.isValid(self.page) or self.page.url().toString() != url:
            return
        data = json.dumps({"url": url, **self._block_texts(url, verdict)})

        def done(shown: object) -> None:
            if shown is not True and attempts > 1:  # the error page may not be committed yet
                QTimer.singleShot(50, lambda: self._show_block_page(url, verdict, attempts - 1))

        self.page.runJavaScript(_BLOCK_PAGE_JS % data, 0, done)

    def _block_texts(self, url: str, verdict: Verdict) -> dict[str, str]:
        """The explanation's words, in the UI's language (the page shows them as plain text)."""
        env = self.env_id
        return {"title": self.tr("Blocked: {host}").format(host=verdict.host or url),
                "heading": self.tr("Blocked by this environment’s network policy"),
                "message": (self.tr("{host} is not allowed in {env}.").format(host=verdict.host, env=env)
                            if verdict.host else self.tr("This address is not allowed in {env}.").format(env=env)),
                "rule": self.tr("Rule: {rule}").format(rule=verdict.rule),
                "hint": self.tr("To open it, change the allowed or blocked domains in the environment’s settings "
                                "(Environments → Settings…), then reload.")}

    def block_reason(self, url: str, since: float) -> str | None:
        """`blocked by the policy of env-…: host (rule)` when the policy stopped a navigation of this page to
        `url` (or a redirect of it) at or after `since` (epoch seconds)."""
        verdict = self.registry.navigation_verdict(self.env_id, url, since)
        return verdict.describe(self.env_id) if verdict is not None else None


def block_reason(page: QWebEnginePage, url: str, since: float) -> str | None:
    """For navigations: why the policy stopped `page` loading `url`, or None (no policy, or not blocked)."""
    guard = PageGuard.of(page)
    return guard.block_reason(url, since) if guard is not None else None
