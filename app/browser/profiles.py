"""One persistent `QWebEngineProfile` per environment, keyed by environment id.

Every environment's cookies, local storage, IndexedDB, cache and service workers live in its own
`partitions/<env-id>/` folder, so environments never see each other. Session cookies are kept too
(ForcePersistentCookies): a person logs in once per environment and stays logged in across restarts.
Pages must be deleted before their profile; `release` and `close_all` do it in that order. With a
`PolicyRegistry`, each profile gets its environment's domain policy (app/browser/policy.py) when created; with
an `IdentityRegistry`, its identity (app/browser/identity.py: user agent, languages, time zone, geolocation).
"""

from __future__ import annotations

import logging

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineProfileBuilder

from app.browser.downloads import DownloadManager
from app.browser.identity import IdentityRegistry
from app.browser.js import install_helper_scripts
from app.browser.policy import PolicyRegistry
from plumbing import loggers
from plumbing.datadir import DataDir

log = logging.getLogger(loggers.BROWSER)


class ProfileRegistry(QObject):
    def __init__(self, data: DataDir, parent: QObject | None = None, policies: PolicyRegistry | None = None,
                 identities: IdentityRegistry | None = None) -> None:
        super().__init__(parent)
        self.data = data
        self.policies = policies
        self.identities = identities
        self._profiles: dict[str, QWebEngineProfile] = {}
        self._downloads: dict[str, DownloadManager] = {}

    def get(self, env_id: str) -> QWebEngineProfile:
        profile = self._profiles.get(env_id)
        if profile is None:
            profile = self._create(env_id)
            self._profiles[env_id] = profile
        return profile

    def has(self, env_id: str) -> bool:
        return env_id in self._profiles

    def _create(self, env_id: str) -> QWebEngineProfile:
        storage = self.data.partition(env_id)
        storage.mkdir(parents=True, exist_ok=True)
        builder = QWebEngineProfileBuilder()
        builder.setPersistentStoragePath(str(storage))
        builder.setCachePath(str(storage / "cache"))
        builder.setHttpCacheType(QWebEngineProfile.HttpCacheType.DiskHttpCache)
        builder.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.ForcePersistentCookies)
        profile = builder.createProfile(f"browserpilot-{env_id}")
        install_helper_scripts(profile)
        downloads = self.data.downloads(env_id)
        profile.setDownloadPath(str(downloads))
        # Every download (a person's or an operation's): safe de-duplicated name, tracked per page.
        manager = DownloadManager(downloads, profile)
        profile.downloadRequested.connect(manager.handle)
        self._downloads[env_id] = manager
        if self.policies is not None:
            self.policies.attach_profile(env_id, profile)
        if self.identities is not None:
            self.identities.attach_profile(env_id, profile)
        log.info("profile for %s at %s", env_id, storage)
        return profile

    def downloads(self, env_id: str) -> DownloadManager:
        """The environment's download manager (its profile is created if needed)."""
        self.get(env_id)
        return self._downloads[env_id]

    def release(self, env_id: str) -> None:
        """Forget an environment's profile: drop its cookies, then delete it. Its pages must already be
        deleted. The disk cache and storage go with the partition folder, which the caller removes."""
        profile = self._profiles.pop(env_id, None)
        manager = self._downloads.pop(env_id, None)
        if manager is not None:
            manager.delete_doomed()  # closed tabs not deleted yet: pages before their profile
        if profile is None:
            return
        if self.policies is not None:
            self.policies.detach_profile(env_id)
        if self.identities is not None:
            self.identities.detach_profile(env_id)
        profile.cookieStore().deleteAllCookies()
        shiboken6.delete(profile)

    def close_all(self) -> None:
        for env_id in list(self._profiles):
            profile = self._profiles.pop(env_id)
            manager = self._downloads.pop(env_id, None)
            if manager is not None:
                manager.delete_doomed()  # closed tabs not deleted yet: pages before their profile
            if self.policies is not None:
                self.policies.detach_profile(env_id)
            if self.identities is not None:
                self.identities.detach_profile(env_id)
            shiboken6.delete(profile)
