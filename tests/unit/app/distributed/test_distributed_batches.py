"""The submitter's record of a distributed batch: the first outcome of a row is kept and later ones are
duplicates, rows the broker no longer has are sent again, and the record on file survives its process."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from app.distributed.batches import BatchFiles, BatchState, RowState
from app.distributed.ledger import Event
from app.distributed.models import RowResult
from plumbing.datadir import DataDir


def state(rows: int = 3) -> BatchState:
    return BatchState(id="batch-0001", workflow_name="Order", document={"kind": "app"},
                      broker="redis://:secret@broker:6379/0", rows=[RowState(inputs={"n": i}) for i in range(rows)])


def result(run_id: str, worker: str, status: str = "ok") -> RowResult:
    return RowResult(record={"id": run_id, "status": status}, worker=worker, started_at=1.0, ended_at=2.0)


def test_the_first_outcome_of_a_row_is_kept_and_a_later_one_is_a_duplicate() -> None:
    batch = state()
    assert batch.accept(Event("1-0", "started", 1, "w1", attempt=1)) == "started"
    assert batch.accept(Event("2-0", "started", 1, "w2", attempt=2)) == "started"
    assert batch.counts() == {"total": 3, "done": 0, "failed": 0, "running": 1, "queued": 2}
    assert batch.accept(Event("3-0", "result", 1, "w2", result=result("run-b", "w2"))) == "kept"
    assert batch.accept(Event("4-0", "result", 1, "w1", result=result("run-a", "w1", "failed"))) == "duplicate"
    row = batch.rows[1]
    assert (row.outcome, row.worker, row.run_id, row.entry) == ("ok", "w2", "run-b", "3-0")
    assert [(d.worker, d.run_id, d.status) for d in row.duplicates] == [("w1", "run-a", "failed")]
    # An event already taken into account (a resumed submitter reading from its cursor) changes nothing.
    assert batch.accept(Event("4-0", "result", 1, "w1", result=result("run-a", "w1"))) == "seen"
    assert batch.accept(Event("3-9", "failed", 2, "w1", error="x")) == "seen"
    assert batch.accept(Event("5-0", "failed", 2, "w1", error="the renderer died 3 times")) == "kept"
    assert (batch.rows[2].outcome, batch.rows[2].error) == ("failed", "the renderer died 3 times")
    assert batch.counts() == {"total": 3, "done": 1, "failed": 1, "running": 0, "queued": 1}
    assert batch.open_rows() == [0] and batch.cursor == "5-0"


def test_rows_never_sent_or_gone_from_the_broker_are_missing() -> None:
    batch = state(4)
    assert batch.missing({}) == [0, 1, 2, 3]  # nothing sent yet
    for index, row in enumerate(batch.rows):
        row.message_ids = [f"m{index}"]
    batch.rows[3].message_ids.append("m3b")
    batch.accept(Event("1-0", "result", 0, "w1", result=result("run-0", "w1")))
    # m0's row has its outcome; m1 is queued; m2 was lost; row 3's second copy is still there.
    assert batch.missing({"m0": False, "m1": True, "m2": False, "m3": False, "m3b": True}) == [2]


def test_the_record_on_file_round_trips_is_private_and_has_one_follower(tmp_path: Path) -> None:
    files = BatchFiles(DataDir(tmp_path))
    batch = state()
    batch.rows[0].message_ids = ["m0"]
    batch.accept(Event("7-1", "result", 0, "w1", result=result("run-0", "w1")))
    files.save(batch)
    path = tmp_path / "batches" / "batch-0001.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the broker URL may carry a password
    again = files.load("batch-0001")
    assert again == batch and [b.id for b in files.list()] == ["batch-0001"]
    with files.following("batch-0001"):
        with pytest.raises(LookupError, match="being followed already"):
            with files.following("batch-0001"):
                pass
    with files.following("batch-0001"):  # free again
        pass
    with pytest.raises(LookupError, match="no batch"):
        files.load("batch-nope")
    with pytest.raises(LookupError):
        files.path("../evil")
