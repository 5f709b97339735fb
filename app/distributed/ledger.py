"""One batch's record in Redis, beside the broker's queue: what happened to its rows, for the submitter.

Two keys per batch (both expire a week after the last write):

- `browserpilot:batch:<id>:events`, a stream the workers append to and the submitter reads in order:
  `started` (a run of a row began on a worker: attempt N), `result` (a row's result, files included) and
  `failed` (the worker gave up on a row: its app crashed on it too often, or running it raised).
- `browserpilot:batch:<id>:rows`, a hash of row claims: `<row>` is `started`, `done` or `revoked`, set with
  HSETNX so that a worker starting a row and a submitter revoking it (Ctrl-C) never both win; `<row>:runs`
  counts the runs of the row, `<row>:recoveries` the times it went back to the queue after an app fault.

Workers write here, the submitter reads; the submitter keeps the first final event of each row (`result` or
`failed`) and records any later one as a duplicate (app.distributed.batches). Delivery itself is the
broker's (app.distributed.broker): this is a record, not a queue.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from app.distributed.defaults import NAMESPACE
from app.distributed.models import RowResult

TTL_SECONDS = 7 * 24 * 3600
EventKind = Literal["started", "result", "failed"]
Claim = Literal["go", "revoked", "done"]


@dataclass(frozen=True)
class Event:
    entry: str
    """The stream entry id (`<ms>-<seq>`): the order of events, and where a reader goes on from."""
    kind: EventKind
    row: int
    worker: str
    attempt: int = 0
    at: float = 0.0
    result: RowResult | None = None
    error: str | None = None


class BatchLedger:
    def __init__(self, client: Any, batch_id: str) -> None:
        self.client = client
        self.batch_id = batch_id
        self.events_key = f"{NAMESPACE}:batch:{batch_id}:events"
        self.rows_key = f"{NAMESPACE}:batch:{batch_id}:rows"

    # -- workers ---------------------------------------------------------------------------------------
    def claim(self, row: int) -> Claim:
        """May a worker run this row? Not when the submitter revoked it, nor when a run of it already
        delivered its result (a copy of the row sent again after a restart of the broker)."""
        if self.client.hsetnx(self.rows_key, str(row), "started"):
            self.client.expire(self.rows_key, TTL_SECONDS)
            return "go"
        state = self.client.hget(self.rows_key, str(row))
        state = state.decode() if isinstance(state, bytes) else state
        return "revoked" if state == "revoked" else "done" if state == "done" else "go"

    def started(self, row: int, worker: str, at: float) -> int:
        """A run of the row begins; its attempt number (1 for the row's first run anywhere)."""
        attempt = int(self.client.hincrby(self.rows_key, f"{row}:runs", 1))
        self._append({"kind": "started", "row": row, "worker": worker, "attempt": attempt, "at": at})
        return attempt

    def recovered(self, row: int) -> int:
        """The row goes back to the queue after an app fault; how many times it did so far."""
        return int(self.client.hincrby(self.rows_key, f"{row}:recoveries", 1))

    def finished(self, row: int, worker: str, result: RowResult | None = None, error: str | None = None) -> None:
        """The row's outcome: its result, or why the worker gave up on it. Written before the broker's
        acknowledgement, so an acknowledged row always has its outcome here."""
        event: dict[str, Any] = {"kind": "result" if result is not None else "failed", "row": row, "worker": worker,
                                 "at": result.ended_at if result is not None else 0.0}
        if result is not None:
            event["attempt"] = result.attempt
            event["result"] = result.model_dump(mode="json", by_alias=True)
        else:
            event["error"] = error
        self._append(event)
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(self.rows_key, str(row), "done")
            pipe.expire(self.rows_key, TTL_SECONDS)
            pipe.execute()

    def _append(self, event: dict[str, Any]) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.xadd(self.events_key, {"event": json.dumps(event, ensure_ascii=False)})
            pipe.expire(self.events_key, TTL_SECONDS)
            pipe.execute()

    # -- the submitter ---------------------------------------------------------------------------------
    def read(self, after: str, *, block_ms: int | None = None, count: int = 50) -> list[Event]:
        """Events after the entry `after` ("0-0": from the start), waiting up to `block_ms` for the first."""
        answer = self.client.xread({self.events_key: after}, count=count, block=block_ms)
        events: list[Event] = []
        for _key, entries in answer or []:
            for entry_id, fields in entries:
                entry = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
                raw = fields.get(b"event", fields.get("event"))
                data = json.loads(raw)
                result = RowResult.model_validate(data["result"]) if data.get("result") is not None else None
                events.append(Event(entry=entry, kind=data["kind"], row=int(data["row"]), worker=str(data["worker"]),
                                    attempt=int(data.get("attempt") or 0), at=float(data.get("at") or 0.0),
                                    result=result, error=data.get("error")))
        return events

    def revoke(self, row: int) -> bool:
        """Revoke a row that no worker has started: True when revoked, False when a run of it has begun."""
        revoked = bool(self.client.hsetnx(self.rows_key, str(row), "revoked"))
        self.client.expire(self.rows_key, TTL_SECONDS)
        return revoked

    def expire(self, seconds: int) -> None:
        """Keep the batch's keys only this long from now (the submitter has what it needs)."""
        with self.client.pipeline(transaction=False) as pipe:
            pipe.expire(self.events_key, seconds)
            pipe.expire(self.rows_key, seconds)
            pipe.execute()
