"""Sending a batch's rows to the broker and following them to the end, on one plain Python thread.

`BatchSubmitter.run` (the thread) works from the batch's own record (app.distributed.batches), which it
writes before it sends anything and after every change, so that a submitter killed at any moment can be
resumed (`browserpilot batch resume ID`):

1. it reads what the workers reported meanwhile (a resumed batch: rows that ended while no submitter ran);
2. it publishes the rows that need it: never sent, or no longer in the broker (below);
3. it follows the batch's ledger (app.distributed.ledger), keeping the first outcome of each row and
   recording any later one as a duplicate, until every row has an outcome;
4. every few seconds it asks the broker whether each open row's message is still there (queued, or held by
   a worker). A row that has no outcome and is no longer in the broker was lost (the broker restarted
   without persistence): it is published again, at most `MAX_SENDS` times in all.

It reports through callbacks, which the caller marshals to its own loop: a row's outcome, a duplicate, the
counts (done, failed, running, queued) and notices (the broker is unreachable: retrying in N s; rows sent
again). An unreachable broker never loses a row: every call retries with back-off until the broker is back
or the caller cancels. `cancel` revokes the rows that no worker has started (a worker checks the row's
claim before it starts it, so a revoked row never runs); the rows already started still come back.
No Qt, no asyncio.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from app.distributed.batches import MAX_SENDS, BatchFiles, BatchState, Duplicate
from app.distributed.broker import in_broker, make_broker, retrying, row_message
from app.distributed.ledger import BatchLedger, Event
from app.distributed.models import BatchCounts, RowResult
from plumbing import loggers

log = logging.getLogger(loggers.DISTRIBUTED)

BLOCK_MS = 250
CHECK_SECONDS = 2.0
SAVE_SECONDS = 0.5
ENDED_TTL = 24 * 3600
"""How long an ended batch's ledger stays in Redis (a late duplicate can still be collected by a resume)."""


@dataclass
class RowOutcome:
    row_index: int
    result: RowResult | None = None
    error: str | None = None
    """Why there is no result: the worker gave up on the row, or it was cancelled."""
    revoked: bool = False


@dataclass
class SubmitterCallbacks:
    on_outcome: Callable[[RowOutcome], None]
    on_duplicate: Callable[[int, Duplicate], None] = lambda row, duplicate: None
    on_counts: Callable[[BatchCounts], None] = lambda counts: None
    on_notice: Callable[[str], None] = lambda text: None


class BatchSubmitter:
    def __init__(self, state: BatchState, files: BatchFiles, callbacks: SubmitterCallbacks,
                 login: dict[str, Any] | None = None) -> None:
        self.state = state
        self.files = files
        self.callbacks = callbacks
        self.login = login
        self._stop = threading.Event()
        self._cancel = threading.Event()  # also set by abandon: publishing stops at either
        self._dirty = False
        self._saved_at = 0.0

    def cancel(self) -> None:
        """Revoke the rows that have not started (from any thread); started rows still report."""
        self._cancel.set()

    def abandon(self) -> None:
        """Stop following at once; the batch stays open on file (resume it later)."""
        self._cancel.set()
        self._stop.set()

    def run(self) -> None:
        with self.files.following(self.state.id):
            broker = make_broker(self.state.broker, consuming=False)
            ledger = BatchLedger(broker.client, self.state.id)
            try:
                self._save(force=True)  # on file before anything is sent: a killed submitter can be resumed
                self._drain(ledger)
                self._publish(broker, self.state.missing(self._present(broker)))
                self._follow(broker, ledger)
            finally:
                self._save(force=True)
                broker.client.connection_pool.disconnect()

    # -- the record on file ----------------------------------------------------------------------------
    def _save(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or (self._dirty and now - self._saved_at >= SAVE_SECONDS):
            self.files.save(self.state)
            self._dirty, self._saved_at = False, now

    # -- publishing ------------------------------------------------------------------------------------
    def _present(self, broker: Any) -> dict[str, bool]:
        """Message id -> still in the broker, for every open row's messages (all taken as there when the
        submitter is stopped before the broker answers: nothing is sent again then)."""
        ids = [message_id for index in self.state.open_rows() for message_id in self.state.rows[index].message_ids]
        if not ids:
            return {}
        ok, found = retrying("look up the rows in the broker", lambda: in_broker(broker.client, self.state.queue, ids),
                             stop=self._stop, notice=self.callbacks.on_notice)
        return dict(zip(ids, found)) if ok and found is not None else {message_id: True for message_id in ids}

    def _publish(self, broker: Any, indexes: list[int]) -> None:
        for index in indexes:
            row = self.state.rows[index]
            if self._cancel.is_set():
                break
            if len(row.message_ids) >= MAX_SENDS:
                self._final(index, error=f"the broker lost this row {MAX_SENDS} times; not sent again")
                continue
            message = row_message(self.state.task(index, self.login), self.state.queue)
            sent, published = retrying(f"send row {index}", lambda message=message: broker.enqueue(message),
                                       stop=self._cancel, notice=self.callbacks.on_notice)
            if not sent or published is None:
                break
            row.message_ids.append(str(published.options["redis_message_id"]))
            self._dirty = True
            self._save()
        self._save(force=True)

    # -- following -------------------------------------------------------------------------------------
    def _follow(self, broker: Any, ledger: BatchLedger) -> None:
        revoked = False
        checked = time.monotonic()
        self._report_counts()
        while self.state.open_rows() and not self._stop.is_set():
            ok, events = retrying("read the results", lambda: ledger.read(self.state.cursor, block_ms=BLOCK_MS),
                                  stop=self._stop, notice=self.callbacks.on_notice)
            if not ok:
                break
            self._take(events or [])
            if self._cancel.is_set() and not revoked:
                revoked = self._revoke(ledger)
            if time.monotonic() - checked >= CHECK_SECONDS:
                checked = time.monotonic()
                self._check(broker, ledger)
            self._save()
        if not self.state.open_rows() and self.state.status == "running":
            self.state.status = "cancelled" if self._cancel.is_set() else "ended"
            self._dirty = True
            retrying("let the batch's record in the broker expire", lambda: ledger.expire(ENDED_TTL),
                     stop=self._stop, notice=self.callbacks.on_notice)

    def _drain(self, ledger: BatchLedger) -> None:
        """Every event written so far (no waiting)."""
        while not self._stop.is_set():
            ok, events = retrying("read the results", lambda: ledger.read(self.state.cursor, count=200),
                                  stop=self._stop, notice=self.callbacks.on_notice)
            if not ok or not events:
                return
            self._take(events)

    def _take(self, events: list[Event]) -> None:
        changed = False
        for event in events:
            verdict = self.state.accept(event)
            if verdict == "seen":
                continue
            self._dirty = changed = True
            if verdict == "kept":
                self.callbacks.on_outcome(RowOutcome(event.row, result=event.result, error=event.error))
            elif verdict == "duplicate":
                duplicate = self.state.rows[event.row].duplicates[-1]
                log.warning("batch %s: row %d ran again on %s (attempt %d); its first outcome is kept, this one "
                            "is recorded as a duplicate", self.state.id, event.row, event.worker, event.attempt)
                self.callbacks.on_duplicate(event.row, duplicate)
        if changed:
            self._report_counts()

    def _check(self, broker: Any, ledger: BatchLedger) -> None:
        """Publish again the open rows the broker no longer has (after reading what was written before the
        look-up: a worker writes a row's outcome before the broker forgets the row)."""
        present = self._present(broker)
        self._drain(ledger)
        lost = self.state.missing(present)
        if not lost or self._stop.is_set():
            return
        if self._cancel.is_set():
            for index in lost:
                self._final(index, error="lost by the broker after the batch was cancelled", cancelled=True)
            return
        self.callbacks.on_notice(f"{len(lost)} row(s) without a result are no longer in the broker (was it "
                                 f"restarted without persistence?): sending row(s) {_listing(lost)} again")
        self._publish(broker, lost)

    def _revoke(self, ledger: BatchLedger) -> bool:
        """Revoke every open row no worker has started; True when done (the broker answered)."""
        open_rows = self.state.open_rows()
        ok, revoked = retrying("revoke the rows not started", lambda: [i for i in open_rows if ledger.revoke(i)],
                               stop=self._stop, notice=self.callbacks.on_notice)
        if not ok or revoked is None:
            return False
        for index in revoked:
            self._final(index, error="revoked before it started", cancelled=True)
        log.info("batch %s: revoked %d row(s) that had not started", self.state.id, len(revoked))
        return True

    def _final(self, index: int, *, error: str, cancelled: bool = False) -> None:
        """An outcome the submitter decides itself (cancelled, or given up)."""
        if cancelled:
            self.state.cancel(index, error)
        else:
            self.state.give_up(index, error)
        self._dirty = True
        self.callbacks.on_outcome(RowOutcome(index, error=error, revoked=cancelled))
        self._report_counts()

    def _report_counts(self) -> None:
        self.callbacks.on_counts(BatchCounts(**self.state.counts()))


def _listing(indexes: list[int], most: int = 10) -> str:
    shown = ", ".join(str(index) for index in indexes[:most])
    return shown + (f" and {len(indexes) - most} more" if len(indexes) > most else "")
