"""The environment store: the rules for environments over `envs.json`, and their partition folders.

Rules: `env-default` always exists (it can be renamed, never deleted); names are 1-100 characters after
trimming and unique (ignoring case); other ids are `env-<hex>`; domain patterns are validated and stored in
canonical form (envs/domains.py). Every change is published on the store's change feed (plumbing/changes.py) so
views can follow the model instead of owning state (the browser applies a changed domain policy to the live
profile at once); `subscribe` hears the environments' changes there as `EnvEvent`s.

The document in memory is the truth. Each change builds a new document that shares the unchanged
`Environment` records with the old one (a record is never changed in place once it is in a document, so a
document handed to the saver stays as it was), and hands it to the store's saver (plumbing/savemanager.py): in
the app a `SaveManager` writes it off the Qt thread, debounced; by default (`ImmediateSaver`, the command
line) it is written at once and a failed write leaves the store unchanged. Deleting an environment renames
its partition folder aside at once and leaves the slow removal of the tree to the saver.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence

from plumbing import loggers
from plumbing.changes import StoreChange, StoreChanges
from plumbing.datadir import DataDir
from envs.domains import PatternError, normalize_patterns
from envs.identity import IdentityError, clean_geolocation, clean_languages, clean_timezone, clean_user_agent
from plumbing.jsonstore import JsonStore, encode_json
from envs.model import (
    DEFAULT_ENV_ID,
    MAX_NAME_LENGTH,
    MAX_REMARK_LENGTH,
    MAX_SITES,
    EnvsDocument,
    Environment,
    Geolocation,
    Site,
    default_environment,
    utc_now,
)
from plumbing.savemanager import ImmediateSaver, Saver

log = logging.getLogger(loggers.ENVS)

TRASH_PREFIX = ".trash-"
SITE_REFRESH_SECONDS = 60
SWEEP_AFTER = (0.3, 1.0, 3.0)  # seconds after a deletion at which its partition's old place is checked again


class EnvError(Exception):
    """A request about environments that cannot be carried out; the message is one line for a person."""


@dataclass(frozen=True)
class EnvEvent:
    kind: Literal["created", "updated", "deleted"]
    env_id: str


EnvListener = Callable[[EnvEvent], None]


def clean_name(name: str) -> str:
    cleaned = " ".join((name or "").split())
    if not cleaned:
        raise EnvError("the environment name is empty")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise EnvError(f"the environment name is {len(cleaned)} characters long; at most {MAX_NAME_LENGTH} are allowed")
    return cleaned


def clean_remark(remark: str) -> str:
    cleaned = (remark or "").strip()
    if len(cleaned) > MAX_REMARK_LENGTH:
        raise EnvError(f"the remark is {len(cleaned)} characters long; at most {MAX_REMARK_LENGTH} are allowed")
    return cleaned


def clean_domains(patterns: Sequence[str], label: str) -> list[str]:
    if isinstance(patterns, str):
        raise EnvError(f"{label} is a list of patterns, not one string")
    try:
        return normalize_patterns(patterns, label)
    except PatternError as exc:
        raise EnvError(str(exc)) from None


def identity_changes(user_agent: str | None = None, languages: Sequence[str] | None = None,
                     timezone: str | None = None, geolocation: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record fields for the identity values given (None: keep; '', [] and {} clear one)."""
    changes: dict[str, Any] = {}
    try:
        if user_agent is not None:
            changes["user_agent"] = clean_user_agent(user_agent)
        if languages is not None:
            changes["languages"] = clean_languages(languages)
        if timezone is not None:
            changes["timezone"] = clean_timezone(timezone)
        if geolocation is not None:
            cleaned = clean_geolocation(geolocation) if geolocation else None
            changes["geolocation"] = Geolocation(**cleaned) if cleaned else None
    except IdentityError as exc:
        raise EnvError(str(exc)) from None
    return changes


def domain_of(url: str) -> str | None:
    """The host a site list remembers for a URL (`www.` dropped); None for non-web URLs."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    return host[4:] if host.startswith("www.") else host


class EnvStore:
    """Environments of one data folder. Every change is handed to the saver before listeners hear of it."""

    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self.data = data
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()
        self._file = JsonStore(data.envs_json, EnvsDocument, EnvsDocument)
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self._doc = loaded.document
        if not self.exists(DEFAULT_ENV_ID):
            self._commit(lambda doc: doc.environments.insert(0, default_environment()))

    # -- listeners -------------------------------------------------------------------------------------
    def subscribe(self, listener: EnvListener) -> Callable[[], None]:
        """Hear every change of an environment (from the change feed); returns the unsubscribe function."""

        def hear(change: StoreChange) -> None:
            listener(EnvEvent(change.kind, change.key or ""))  # type: ignore[arg-type]

        return self.changes.subscribe(hear, ("envs",))

    def _emit(self, kind: Literal["created", "updated", "deleted"], env_id: str) -> None:
        self.changes.publish("envs", kind, env_id)

    # -- reading ---------------------------------------------------------------------------------------
    def list(self) -> list[Environment]:
        return [_copy(env) for env in self._doc.environments]

    def get(self, env_id: str) -> Environment:
        return _copy(self._find(env_id))

    def exists(self, env_id: str) -> bool:
        return any(env.id == env_id for env in self._doc.environments)

    def _find(self, env_id: str) -> Environment:
        for env in self._doc.environments:
            if env.id == env_id:
                return env
        raise EnvError(f"there is no environment with id {env_id!r}")

    def _check_unique(self, name: str, except_id: str | None = None) -> None:
        for env in self._doc.environments:
            if env.id != except_id and env.name.casefold() == name.casefold():
                raise EnvError(f"an environment named {env.name!r} already exists ({env.id})")

    # -- changing --------------------------------------------------------------------------------------
    def create(self, name: str, remark: str = "", **identity: Any) -> Environment:
        """A new environment; `identity`: user_agent, languages, timezone, geolocation (see `identity_changes`)."""
        name = clean_name(name)
        remark = clean_remark(remark)
        self._check_unique(name)
        fields = identity_changes(**identity)
        env_id = f"env-{secrets.token_hex(4)}"
        while self.exists(env_id):
            env_id = f"env-{secrets.token_hex(4)}"
        env = Environment(id=env_id, name=name, remark=remark, **fields)
        self._commit(lambda doc: doc.environments.append(env))
        log.info("created environment %s (%s)", env_id, name)
        self._emit("created", env_id)
        return _copy(env)

    def update(self, env_id: str, *, name: str | None = None, remark: str | None = None,
               allowed_domains: Sequence[str] | None = None,
               blocked_domains: Sequence[str] | None = None, user_agent: str | None = None,
               languages: Sequence[str] | None = None, timezone: str | None = None,
               geolocation: Mapping[str, Any] | None = None) -> Environment:
        """Change what is given (None: keep). Domain lists replace the current lists; [] clears one; the
        identity's '', [] and {} clear its user agent, languages, time zone and geolocation."""
        target = self._find(env_id)
        new_name = clean_name(name) if name is not None else target.name
        new_remark = clean_remark(remark) if remark is not None else target.remark
        if name is not None:
            self._check_unique(new_name, except_id=env_id)
        changes: dict[str, object] = {"name": new_name, "remark": new_remark}
        for key, value, label in (("allowed_domains", allowed_domains, "allowedDomains"),
                                  ("blocked_domains", blocked_domains, "blockedDomains")):
            if value is not None:
                changes[key] = clean_domains(value, label)
        changes.update(identity_changes(user_agent, languages, timezone, geolocation))
        updated = target.model_copy(update=changes)
        self._replace(updated)
        log.info("updated environment %s", env_id)
        self._emit("updated", env_id)
        return _copy(updated)

    def delete(self, env_id: str) -> Environment:
        """Remove the record and the partition folder (renamed aside now, removed by the saver: in the app on
        its worker thread, so this returns before the files are gone). The browser must have released the
        profile first."""
        if env_id == DEFAULT_ENV_ID:
            raise EnvError("the default environment (env-default) cannot be deleted; rename it instead")
        target = self._find(env_id)
        self._commit(lambda doc: doc.environments.remove(next(e for e in doc.environments if e.id == env_id)))
        remove_partition(self.data, env_id, self._saver)
        log.info("deleted environment %s (%s)", env_id, target.name)
        self._emit("deleted", env_id)
        return _copy(target)

    def record_visit(self, env_id: str, url: str) -> bool:
        """Remember the URL's domain as visited now. Returns whether the record changed (and was saved)."""
        domain = domain_of(url)
        if domain is None or not self.exists(env_id):
            return False
        target = self._find(env_id)
        now = utc_now()
        sites = list(target.sites)
        current = next((site for site in sites if site.domain == domain), None)
        if current is not None and sites[0] is current and (now - current.last_opened).total_seconds() < SITE_REFRESH_SECONDS:
            return False
        sites = [site for site in sites if site.domain != domain]
        sites.insert(0, Site(domain=domain, last_opened=now))
        self._replace(target.model_copy(update={"sites": sites[:MAX_SITES]}))
        self._emit("updated", env_id)
        return True

    def _replace(self, updated: Environment) -> None:
        def apply(doc: EnvsDocument) -> None:
            index = next(i for i, env in enumerate(doc.environments) if env.id == updated.id)
            doc.environments[index] = updated

        self._commit(apply)

    def _commit(self, change: Callable[[EnvsDocument], None]) -> None:
        """Apply a change to a new document (a new list; the records it keeps are shared, never changed in
        place), hand it to the saver, and then make it the current document. The saver renders it later,
        maybe on another thread: nothing here touches it again."""
        candidate = self._doc.model_copy(update={"environments": list(self._doc.environments)})
        change(candidate)
        dump = self._file.dump
        self._saver.save(self._file.path, lambda: encode_json(dump(candidate)))
        self._doc = candidate


def _copy(env: Environment) -> Environment:
    """A caller's own copy of a record: its lists are new; the `Site` entries (never changed in place) are shared.
    Much cheaper than a deep copy, which a panel refreshing on every visited site paid for every environment."""
    return env.model_copy(update={"sites": list(env.sites), "allowed_domains": list(env.allowed_domains),
                                  "blocked_domains": list(env.blocked_domains), "languages": list(env.languages)})


def remove_partition(data: DataDir, env_id: str, saver: Saver | None = None) -> None:
    """Delete an environment's browser data. The folder is first renamed into the trash (atomic and quick),
    so a half-deleted partition can never be picked up again; the saver removes the tree (in the app: on its
    worker thread). Leftovers of a crash are purged by `purge_trash` at the next start."""
    if not data.partition(env_id).exists():
        return
    saver = saver or ImmediateSaver()
    _move_to_trash(data, env_id, saver)
    # Chromium finishes tearing a profile down on its own threads and may write a few files (its prefs, the
    # cache index) after the folder was moved: whatever comes back at the old place goes too.
    for after in SWEEP_AFTER:
        saver.run(lambda: _move_to_trash(data, env_id, saver, swept=True), f"sweep {env_id}", after=after)


def _move_to_trash(data: DataDir, env_id: str, saver: Saver, swept: bool = False) -> None:
    folder = data.partition(env_id)
    if not folder.exists():
        return
    trash = data.partitions / f"{TRASH_PREFIX}{env_id}-{secrets.token_hex(3)}"
    os.replace(folder, trash)
    if swept:
        log.info("removed what the browser wrote into %s after it was deleted", folder)
    saver.run(lambda: _remove_tree(trash), f"remove {trash.name}")


def _remove_tree(trash: Path) -> None:
    shutil.rmtree(trash, ignore_errors=True)
    if trash.exists():
        log.warning("could not remove all of %s yet; it will be purged at the next start", trash)


def purge_trash(data: DataDir, saver: Saver | None = None) -> None:
    """Finish deletions that an earlier run could not complete (with a saver: on its thread)."""
    if not data.partitions.is_dir():
        return
    for entry in data.partitions.iterdir():
        if entry.name.startswith(TRASH_PREFIX):
            (saver or ImmediateSaver()).run(lambda entry=entry: shutil.rmtree(entry, ignore_errors=True),
                                           f"purge {entry.name}")
