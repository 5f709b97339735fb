"""How every store says that it changed: one feed of `StoreChange`s, for whoever needs to follow the data.

Each store of the data folder (environments, tab groups, settings, workflows and their versions, runs,
schedules, agent runs, agent settings) is given the app's one `StoreChanges` and publishes to it after each
change it made in memory: which store, what kind of change (`created`, `updated`, `deleted`, or a store's own
word such as a schedule's `recorded`) and the key of the record (an environment, workflow, run, schedule or
agent run id; for tab groups the environment whose groups changed; None for a store that is one document,
the settings). Whoever made the change (the GUI, an MCP call, a command forwarded by the CLI, an agent, a
schedule firing, a worker thread) does not matter: the store says it, once, in one way.

Listeners are called on the thread that changed the store, in the order they subscribed, before the store's
method returns; a listener that fails is logged and the others still hear of it. The GUI does not listen here
directly: app/ui/follow.py brings the changes onto the Qt thread. Pure Python (threading), no Qt.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Literal

from plumbing import loggers

log = logging.getLogger(loggers.STORE)

StoreName = Literal["envs", "groups", "settings", "workflows", "versions", "runs", "schedules", "agent_runs",
                    "agent_settings"]
STORES: tuple[StoreName, ...] = ("envs", "groups", "settings", "workflows", "versions", "runs", "schedules",
                                 "agent_runs", "agent_settings")


@dataclass(frozen=True)
class StoreChange:
    store: StoreName
    kind: str  # created | updated | deleted | a store's own word (a schedule's "recorded")
    key: str | None = None  # the record's id; None: the store as a whole


Listener = Callable[[StoreChange], None]


class StoreChanges:
    """The change feed of one data folder's stores (see the module docstring). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: tuple[tuple[frozenset[str] | None, Listener], ...] = ()

    def subscribe(self, listener: Listener, stores: Iterable[StoreName] | None = None) -> Callable[[], None]:
        """Call `listener(change)` for every change (of `stores` only, when given); returns the unsubscribe."""
        entry = (frozenset(stores) if stores is not None else None, listener)
        with self._lock:
            self._listeners = (*self._listeners, entry)

        def unsubscribe() -> None:
            with self._lock:
                self._listeners = tuple(item for item in self._listeners if item is not entry)

        return unsubscribe

    def publish(self, store: StoreName, kind: str, key: str | None = None) -> None:
        change = StoreChange(store, kind, key)
        for stores, listener in self._listeners:  # a snapshot: (un)subscribing meanwhile is safe
            if stores is not None and store not in stores:
                continue
            try:
                listener(change)
            except Exception:  # a broken listener must not break the store, nor the other listeners
                log.exception("a listener failed on %s %s %s", store, kind, key)
