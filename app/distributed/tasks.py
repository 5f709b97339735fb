"""The Celery application and the one task, `browserpilot.run_row`, configured for at-least-once delivery.

- late acknowledgement (a row is acknowledged when it has ended, not when it was received), reject on worker
  loss, one row prefetched per slot: a worker that dies mid-row leaves its rows unacknowledged, and Redis
  delivers them to another worker once the visibility timeout has passed;
- the visibility timeout is longer than a row's time limit (`visibility_timeout(limit)`), so a row that is
  only slow is never delivered twice;
- JSON only (a worker never unpickles what a broker hands it);
- connection retries forever with back-off on both sides (the broker may be restarted under a batch).

`make_celery` builds a fresh app per caller (no module-level app): the worker passes the function that runs
a row, the submitter only sends by name.
"""

from __future__ import annotations

from typing import Any, Callable

from celery import Celery

from app.distributed.defaults import DEFAULT_QUEUE

TASK_NAME = "browserpilot.run_row"
RESULT_EXPIRES = 7 * 24 * 3600


def visibility_timeout(row_time_limit: float) -> float:
    """How long Redis waits for an acknowledgement before it delivers a row again: twice the row limit + 5 s."""
    return row_time_limit * 2 + 5


def make_celery(broker: str, *, row_time_limit: float, run_row: Callable[..., Any] | None = None) -> Celery:
    """The worker's app (with `run_row`: it stores results in Redis) or the submitter's (sending only: it
    reads results with `result_reader`, so sending never waits on Celery's result subscriber)."""
    celery = Celery("browserpilot", broker=broker, backend=broker if run_row is not None else None,
                    set_as_current=False)
    # kombu sweeps for rows whose acknowledgement is overdue every interval x throttle seconds (100 s by
    # default): sweep every few seconds instead, so a dead worker's row waits little past the timeout; a
    # worker killed while it holds the sweep's lock blocks sweeping for `unacked_mutex_expire` only.
    transport = {"visibility_timeout": visibility_timeout(row_time_limit),
                 "unacked_restore_interval": max(1.0, min(10.0, row_time_limit / 2)), "unacked_restore_throttle": 1,
                 "unacked_mutex_expire": 30,
                 "socket_connect_timeout": 5, "socket_timeout": 30, "retry_on_timeout": True,
                 "health_check_interval": 10}
    if run_row is None:
        transport["max_retries"] = 0  # the submitter's own back-off retries, and says so each time
    celery.conf.update(
        task_serializer="json", result_serializer="json", accept_content=["json"],
        task_acks_late=True, task_reject_on_worker_lost=True, task_acks_on_failure_or_timeout=True,
        task_track_started=True, worker_prefetch_multiplier=1, task_default_queue=DEFAULT_QUEUE,
        result_expires=RESULT_EXPIRES, result_extended=False,
        broker_transport_options=transport, result_backend_transport_options=transport,
        broker_connection_retry=True, broker_connection_retry_on_startup=True, broker_connection_timeout=5,
        # the worker's consumer retries forever (and says so); the submitter retries itself, with back-off
        broker_connection_max_retries=None if run_row is not None else 0,
        broker_channel_error_retry=True, redis_backend_health_check_interval=10, redis_socket_timeout=30,
        redis_socket_connect_timeout=5, redis_retry_on_timeout=True,
        worker_hijack_root_logger=False, worker_redirect_stdouts=False, worker_send_task_events=False,
        worker_cancel_long_running_tasks_on_connection_loss=False,
    )
    if run_row is not None:
        celery.task(name=TASK_NAME, bind=True, shared=False, acks_late=True, reject_on_worker_lost=True,
                    max_retries=None)(run_row)
    return celery


def result_reader(celery: Celery, broker: str) -> Any:
    """The Redis result backend the workers write to, for reading only (`get_key_for_task`, `client.mget`)."""
    from celery.backends.redis import RedisBackend

    return RedisBackend(app=celery, url=broker)
