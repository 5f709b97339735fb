"""Each environment's browser identity on its profile: user agent, client hints, languages, time zone and
geolocation (the values and their rules: envs/identity.py).

- The user agent and the languages are the profile's own (`httpUserAgent`, `httpAcceptLanguage`): Chromium
  sends them on every request of the profile's pages, frames and workers, and the pages see them as
  `navigator.userAgent`, `navigator.language(s)`. The user-agent client hints (`Sec-CH-UA*`,
  `navigator.userAgentData`) are the profile's `QWebEngineClientHints` (Qt 6.8+), set to match the user agent
  (brands, versions, platform, mobile); a user agent of a browser without client hints (Firefox, Safari)
  turns the high-entropy ones off (QtWebEngine always sends the low-entropy `Sec-CH-UA`, `-Mobile` and
  `-Platform` headers: they then stay the engine's own).
- The time zone and the geolocation are a script (resources/js/identity.js) that the profile injects into
  the main world of every frame at document creation, before the page's scripts: `Date` and `Intl` read
  times in the environment's zone; `navigator.geolocation` reports the environment's position, and the
  geolocation permission reads as granted (nothing is asked).
- `IdentityRegistry` follows the environment store, so a changed identity applies to the live profile at
  once: to every request from then on, and to every document loaded from then on (open pages see the new
  time zone or position after a reload). An environment without an identity keeps the browser's defaults;
  other environments are never touched: each profile is its own.

Limits (JavaScript cannot do more): a date *string* without an offset (`new Date("2026-01-01T10:00")`,
`Date.parse`) is still read in the machine's zone, and a dedicated or shared worker's `Date` keeps the
machine's zone (the script runs in documents only).
"""

from __future__ import annotations

import json
import logging

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWebEngineCore import QWebEngineProfile

from app.browser.js import MAIN_WORLD, document_script
from app.startup.resources import JS_DIR
from plumbing import loggers
from envs.identity import accept_language, client_hints
from envs.model import Environment
from envs.store import EnvEvent, EnvStore

log = logging.getLogger(loggers.BROWSER)

SCRIPT_NAME = "browserpilot-identity"
_PLACEHOLDER = "__BROWSERPILOT_IDENTITY__"
_source: str | None = None


def _script_source(env: Environment) -> str:
    global _source
    if _source is None:
        _source = (JS_DIR / "identity.js").read_text("utf-8")
    config = {"timezone": env.timezone,
              "geolocation": env.geolocation.model_dump() if env.geolocation is not None else None}
    return _source.replace(_PLACEHOLDER, json.dumps(config))


def apply_identity(profile: QWebEngineProfile, env: Environment, default_user_agent: str) -> None:
    """Give the profile the environment's identity (or the browser's defaults for what it leaves empty)."""
    profile.setHttpUserAgent(env.user_agent or default_user_agent)
    profile.setHttpAcceptLanguage(accept_language(env.languages))
    hints = profile.clientHints()
    hints.resetAll()
    found = client_hints(env.user_agent) if env.user_agent else None
    if env.user_agent and found is None:
        # Firefox and Safari send no client hints: the high-entropy ones go; QtWebEngine always sends the
        # low-entropy Sec-CH-UA headers (emptied, it sends them empty), so they stay the engine's own.
        hints.setAllClientHintsEnabled(False)
    elif found is not None:
        hints.setFullVersionList(dict(found.brands))
        hints.setFullVersion(found.full_version)
        hints.setPlatform(found.platform)
        hints.setPlatformVersion(found.platform_version)
        hints.setIsMobile(found.mobile)
        hints.setArch(found.architecture)
        hints.setBitness(found.bitness)
    scripts = profile.scripts()
    for old in scripts.find(SCRIPT_NAME):
        scripts.remove(old)
    if env.timezone or env.geolocation is not None:
        scripts.insert(document_script(SCRIPT_NAME, _script_source(env), MAIN_WORLD))


def request_headers(profile: QWebEngineProfile) -> dict[str, str]:
    """The identity headers the profile's own requests carry, for a request the app sends itself on its behalf
    (a direct request, a stream's download): User-Agent, Accept-Language (when set) and the low-entropy
    client hints, read from the profile so that they are exactly the browser's."""
    headers = {"User-Agent": profile.httpUserAgent()}
    languages = profile.httpAcceptLanguage()
    if languages:
        headers["Accept-Language"] = languages
    hints = profile.clientHints()
    brands = hints.fullVersionList()
    if hints.isAllClientHintsEnabled() and brands:
        headers["Sec-CH-UA"] = ", ".join(f'"{brand}";v="{str(version).split(".")[0]}"'
                                         for brand, version in brands.items())
        headers["Sec-CH-UA-Mobile"] = "?1" if hints.isMobile() else "?0"
        headers["Sec-CH-UA-Platform"] = f'"{hints.platform()}"'
    return headers


class IdentityRegistry(QObject):
    """The live profiles whose identity follows their environment's record."""

    def __init__(self, store: EnvStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._profiles: dict[str, QWebEngineProfile] = {}
        self._applied: dict[str, tuple[object, ...]] = {}
        self._default_user_agent = ""
        self._unsubscribe = store.subscribe(self._on_env_event)

    def attach_profile(self, env_id: str, profile: QWebEngineProfile) -> None:
        if not self._default_user_agent:
            self._default_user_agent = profile.httpUserAgent()  # a new profile's: QtWebEngine's own
        self._profiles[env_id] = profile
        self.refresh(env_id, initial=True)

    def detach_profile(self, env_id: str) -> None:
        self._profiles.pop(env_id, None)
        self._applied.pop(env_id, None)

    def refresh(self, env_id: str, initial: bool = False) -> None:
        profile = self._profiles.get(env_id)
        if profile is None or not shiboken6.isValid(profile) or not self._store.exists(env_id):
            return
        env = self._store.get(env_id)
        key = (env.user_agent, tuple(env.languages), env.timezone, env.geolocation)
        if self._applied.get(env_id) == key:
            return
        self._applied[env_id] = key
        if initial and not env.has_identity:
            return  # a new profile without an identity keeps the browser's defaults untouched
        apply_identity(profile, env, self._default_user_agent)
        log.info("identity of %s: user agent %s, languages %s, time zone %s, geolocation %s", env_id,
                 "set" if env.user_agent else "default", env.languages or "default", env.timezone or "default",
                 "set" if env.geolocation is not None else "none")

    def _on_env_event(self, event: EnvEvent) -> None:
        if event.kind == "updated":
            self.refresh(event.env_id)

    def close(self) -> None:
        self._unsubscribe()
        self._profiles.clear()
        self._applied.clear()
