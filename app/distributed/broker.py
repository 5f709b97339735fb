"""The Redis broker of distributed batches: Dramatiq's RedisBroker, set up so a dead worker's rows come back.

- **Heartbeats.** Every command a worker's broker sends records its heartbeat, and its consumers poll at
  least every 0.05 s (the delay queue's consumer keeps polling while every slot is busy with a row). A
  worker whose last heartbeat is older than `heartbeat_timeout` (15 s by default) is dead: the rows it held,
  running or fetched, go back to the queue the next time a live worker polls. Dramatiq does that
  "maintenance" in 1 of 1000 commands by default; a worker here does it in every command, so a dead worker's
  row is back in the queue as soon as an idle worker polls after the timeout.
- **Acknowledgement** when the row has ended: Dramatiq acknowledges a message after its actor returns, and
  the row's actor returns only when the row has a result (app.distributed.worker).
- **No middleware** but `CurrentMessage` (the actor puts its own message back in the queue after a renderer
  crash): no thread-killing time limit, no retries with back-off, no age limit. A row's time limit, workflow
  retries and recoveries are the row's own.
- JSON only (Dramatiq's default encoder): a worker never unpickles what a broker hands it.

`retrying` is the one way both sides wait out an unreachable broker (1 s doubling to 30 s, saying so each
time); `in_broker` tells whether published rows are still in the broker (queued, or held by a worker, live
or not yet found dead).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

from app.distributed.defaults import DEFAULT_HEARTBEAT_TIMEOUT, NAMESPACE
from app.distributed.models import RowTask

ACTOR = "browserpilot.run_row"
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
POLL_MS = 50
"""A consumer with nothing to fetch (idle, or every slot busy) asks the broker again within this: it is also
how soon a worker takes its next row after one ends (Dramatiq's 1 s cost ~100 ms a row, 0.1 s ~25 ms), and
its heartbeat. The price: an idle worker sends Redis about 50 small scripted commands a second."""

T = TypeVar("T")


def make_broker(url: str, *, consuming: bool, heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT) -> Any:
    """A RedisBroker on `url` (redis://, rediss://): a worker's (`consuming`, with `CurrentMessage` and
    maintenance in every command) or a submitter's (publishing and reading only)."""
    import redis
    from dramatiq.brokers.redis import MAINTENANCE_SCALE, RedisBroker
    from dramatiq.middleware import CurrentMessage

    pool = redis.ConnectionPool.from_url(url, socket_connect_timeout=5, socket_timeout=30, socket_keepalive=True,
                                         health_check_interval=10)
    return RedisBroker(client=redis.Redis(connection_pool=pool), namespace=NAMESPACE,
                       middleware=[CurrentMessage()] if consuming else [],
                       heartbeat_timeout=int(heartbeat_timeout * 1000),
                       maintenance_chance=MAINTENANCE_SCALE if consuming else 0)


def row_message(row: RowTask, queue: str) -> Any:
    """The broker message of one row (its payload is the whole row task, document included)."""
    from dramatiq import Message

    payload = row.model_dump(mode="json", by_alias=True)
    return Message(queue_name=queue, actor_name=ACTOR, args=(), kwargs={"row": payload}, options={})


def in_broker(client: Any, queue: str, message_ids: list[str]) -> list[bool]:
    """Whether each published message is still in the broker: queued, or fetched by a worker and not yet
    acknowledged (Dramatiq keeps a message's body in `<queue>.msgs` until it is acknowledged)."""
    if not message_ids:
        return []
    key = f"{NAMESPACE}:{queue}.msgs"
    with client.pipeline(transaction=False) as pipe:
        for message_id in message_ids:
            pipe.hexists(key, message_id)
        return [bool(found) for found in pipe.execute()]


def transient(exc: BaseException) -> bool:
    """An error that waiting may cure: the broker is unreachable, restarting or loading its data (not a wrong
    password, not a command Redis refused)."""
    from redis.exceptions import AuthenticationError, AuthorizationError, ConnectionError, TimeoutError

    if isinstance(exc, (AuthenticationError, AuthorizationError)):
        return False
    return isinstance(exc, (ConnectionError, TimeoutError, OSError))


def retrying(what: str, action: Callable[[], T], *, stop: threading.Event,
             notice: Callable[[str], None]) -> tuple[bool, T | None]:
    """Run `action` until it works, telling `notice` about each failure; (False, None) when `stop` is set
    meanwhile. Errors that waiting cannot cure are raised."""
    delay = BACKOFF_FIRST
    while not stop.is_set():
        try:
            return True, action()
        except Exception as exc:
            if not transient(exc):
                raise
            notice(f"cannot reach the broker to {what} ({exc}); retrying in {delay:g} s")
            if stop.wait(delay):
                break
            delay = min(BACKOFF_MAX, delay * 2)
    return False, None


def safe_url(url: str) -> str:
    """The broker URL without its password, for logs."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
