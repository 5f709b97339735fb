"""The pure parts of distributed batches: result shipping within the size limit, batch grouping, row models."""

from __future__ import annotations

from pathlib import Path

from app.distributed.models import RowResult, RowTask, group_batches
from app.distributed.shipping import collect_files, land_files, relocate


def test_files_within_the_limit_come_back_bigger_ones_stay_where_the_record_says(tmp_path: Path) -> None:
    worker_run = tmp_path / "worker" / "runs" / "run-1"
    (worker_run / "downloads").mkdir(parents=True)
    small, big = worker_run / "export.csv", worker_run / "downloads" / "big.bin"
    small.write_bytes(b"a,b\r\n1,2")
    big.write_bytes(b"x" * 5000)
    record = {"id": "run-1", "files": [str(small), str(big)], "screenshot": str(small)}
    shipped = collect_files(record, worker_run, limit=1000)
    assert [(f.name, f.data is not None) for f in shipped] == [("export.csv", True), ("downloads/big.bin", False)]
    result = RowResult(record=record, worker="w1", files=shipped, started_at=1.0, ended_at=2.5)
    back = RowResult.model_validate(result.model_dump(mode="json", by_alias=True))  # through JSON, as the broker
    local = tmp_path / "submitter" / "runs" / "run-1"
    moved, left = land_files(back.files, local)
    assert (local / "export.csv").read_bytes() == b"a,b\r\n1,2"
    assert left == [{"path": str(big), "bytes": 5000}]
    relocated = relocate(record, moved)
    assert relocated["files"] == [str(local / "export.csv"), str(big)]
    assert relocated["screenshot"] == str(local / "export.csv")
    assert back.timings()["workerMs"] == 1500.0


def test_a_failed_rows_trace_and_video_come_back_into_the_runs_folder(tmp_path: Path) -> None:
    worker_run = tmp_path / "worker" / "runs" / "run-2"
    (worker_run / "trace").mkdir(parents=True)
    for name in ("0001.jpg", "0002.jpg"):
        (worker_run / "trace" / name).write_bytes(b"jpeg" + name.encode())
    (worker_run / "video.webm").write_bytes(b"webm")
    record = {"id": "run-2", "video": str(worker_run / "video.webm"),
              "trace": [{"node": "a", "before": str(worker_run / "trace" / "0001.jpg"),
                         "after": str(worker_run / "trace" / "0002.jpg")},
                        {"node": "b", "after": str(worker_run / "trace" / "0002.jpg")}, {"node": "c"}]}
    shipped = collect_files(record, worker_run, limit=10_000)
    assert sorted(f.name for f in shipped) == ["trace/0001.jpg", "trace/0002.jpg", "video.webm"]
    local = tmp_path / "submitter" / "runs" / "run-2"
    moved, left = land_files(shipped, local)
    relocated = relocate(record, moved)
    assert left == [] and relocated["video"] == str(local / "video.webm")
    assert [entry.get("after") for entry in relocated["trace"]] == [str(local / "trace" / "0002.jpg")] * 2 + [None]
    assert (local / "trace" / "0001.jpg").read_bytes() == b"jpeg0001.jpg"


def test_a_shipped_name_cannot_leave_the_run_folder(tmp_path: Path) -> None:
    from app.distributed.models import ShippedFile

    moved, _left = land_files([ShippedFile(name="../../evil.txt", bytes=2, data="aGk=", worker_path="/w/evil.txt")],
                              tmp_path / "run")
    assert Path(moved["/w/evil.txt"]) == tmp_path / "run" / "evil.txt"


def test_a_batch_is_grouped_in_row_order_where_its_newest_row_was() -> None:
    runs = [{"id": "a", "batchId": "b1", "rowIndex": 2}, {"id": "x"}, {"id": "c", "batchId": "b1", "rowIndex": 0},
            {"id": "d", "batchId": "b1", "rowIndex": 1}, {"id": "y"}]
    assert [r["id"] for r in group_batches(runs)] == ["c", "d", "a", "x", "y"]


def test_a_row_task_round_trips_through_json_with_its_document() -> None:
    row = RowTask(batch_id="batch-1", row_index=3, total=4, document={"kind": "app"}, inputs={"who": "Zoë"},
                  retries=2)
    again = RowTask.model_validate(row.model_dump(mode="json", by_alias=True))
    assert again == row and again.file_limit == 20 * 1024 * 1024
