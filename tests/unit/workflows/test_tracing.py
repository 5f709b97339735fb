"""Traces and videos without a browser: which mode keeps what, the disk cap, the export zip, the chapters, and the
command line's options."""

from __future__ import annotations

import json
import os
import time
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from app.browser.tabvideo import chapters_text
from app.cli.main import build_parser
from app.cli.workflows import run_call
from workflows.run_export import export_run
from workflows.runs import RunRecord, TraceEntry
from workflows.tracing import check_mode, keeps, prune, size_of, trace_files


@pytest.mark.parametrize(("mode", "status", "kept"), [
    ("off", "failed", False), ("on-failure", "ok", False), ("on-failure", "failed", True),
    ("on-failure", "cancelled", True), ("on-failure", "taken_over", True), ("always", "ok", True)])
def test_which_runs_keep_what_their_mode_recorded(mode: str, status: str, kept: bool) -> None:
    assert keeps(check_mode(mode), status) is kept


def test_an_unknown_mode_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="off, on-failure, always"):
        check_mode("sometimes")


def make_run(runs: Path, run_id: str, kilobytes: int, age: float) -> Path:
    folder = runs / run_id
    (folder / "trace").mkdir(parents=True)
    (folder / "trace" / "0001.jpg").write_bytes(b"j" * (kilobytes // 2 * 1024))
    (folder / "video.webm").write_bytes(b"v" * (kilobytes // 2 * 1024))
    (folder / "record.json").write_text("{}")
    stamp = time.time() - age
    for path in (folder / "trace" / "0001.jpg", folder / "video.webm", folder / "trace"):
        os.utime(path, (stamp, stamp))
    return folder


def test_the_oldest_traces_go_first_until_all_fit_under_the_cap_and_the_records_stay(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    old, middle, new = (make_run(runs, f"run-{name}", 100, age) for name, age in (("a", 300), ("b", 200), ("c", 100)))
    (runs / "run-plain").mkdir()  # a run without a trace is not counted
    assert prune(runs, 250 * 1024, keep={"run-a"}) == ["run-b"]  # the one just ended goes last, even when oldest
    assert trace_files(middle) == [] and (middle / "record.json").exists()
    assert len(trace_files(old)) == 2 and len(trace_files(new)) == 2
    assert prune(runs, 120 * 1024) == ["run-a"]
    assert sum(size_of(path) for folder in (old, middle, new) for path in trace_files(folder)) <= 120 * 1024
    assert prune(runs, 10 ** 9) == [] and prune(tmp_path / "nowhere", 0) == []


def test_the_export_zip_holds_exactly_what_the_record_names_with_relative_paths(tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "run-1"
    (folder / "trace").mkdir(parents=True)
    for name in ("0001.jpg", "0002.jpg"):
        (folder / "trace" / name).write_bytes(b"jpeg " + name.encode())
    (folder / "video.webm").write_bytes(b"webm")
    (folder / "network.har").write_text('{"log": {}}')
    (folder / "failure-shot.png").write_bytes(b"png")
    (folder / "outputs").mkdir()
    (folder / "outputs" / "rows.json").write_text("[1, 2]")
    (folder / "export.csv").write_text("a,b")  # a file the run produced: not part of the story
    now = datetime.now(timezone.utc)
    record = RunRecord(id="run-1", workflow_name="W", env="env-default", status="failed", screenshot=str(
        folder / "failure-shot.png"), har=str(folder / "network.har"), video=str(folder / "video.webm"),
        files=[str(folder / "export.csv")], outputs={"rows": {"$file": str(folder / "outputs" / "rows.json"),
                                                             "bytes": 6}},
        trace=[TraceEntry(node="a", type="click", start=now, ms=1, ok=True, before=str(folder / "trace" / "0001.jpg"),
                          after=str(folder / "trace" / "0002.jpg")),
               TraceEntry(node="b", type="end", start=now, ms=1, ok=False, after=str(folder / "trace" / "0002.jpg")),
               TraceEntry(node="c", type="end", start=now, ms=1, ok=False, after=str(folder / "trace" / "0009.jpg"))])
    result = export_run(record, folder, tmp_path / "out" / "run.zip")
    with zipfile.ZipFile(result["path"]) as archive:
        assert sorted(archive.namelist()) == ["network.har", "outputs/rows.json", "record.json",
                                             "screenshots/failure-shot.png", "trace/0001.jpg", "trace/0002.jpg",
                                             "video.webm"]
        inside = json.loads(archive.read("record.json"))
        assert archive.read("trace/0001.jpg") == b"jpeg 0001.jpg"
    assert inside["trace"][0]["before"] == "trace/0001.jpg" and inside["trace"][1]["after"] == "trace/0002.jpg"
    assert "after" not in inside["trace"][2] and inside["video"] == "video.webm" and inside["har"] == "network.har"
    assert inside["outputs"]["rows"]["$file"] == "outputs/rows.json" and inside["screenshot"].startswith("screenshots/")
    assert result["files"] == 7 and result["missing"] == [str(folder / "trace" / "0009.jpg")]
    assert not list((tmp_path / "out").glob(".*"))  # written atomically: no temporary file left


def test_chapters_start_one_after_another_and_say_each_node() -> None:
    text = chapters_text([(0.0, "start (start)"), (0.0, "open; it = now # (goto)"), (1.5, "end (end)")], 2.0)
    chapters = text.split("[CHAPTER]")[1:]
    assert text.startswith(";FFMETADATA1\n") and len(chapters) == 3
    assert [line for line in chapters[1].splitlines() if line.startswith(("START", "END", "title"))] == \
        ["START=1", "END=1500", "title=open\\; it \\= now \\# (goto)"]
    assert "END=2000" in chapters[2]


def test_the_command_line_takes_trace_and_video_modes() -> None:
    parser = build_parser()
    args = parser.parse_args(["run", "Shop", "--trace", "--video", "on-failure"])
    assert run_call(args) == ("workflow_run", {"inputs": {}, "name": "Shop", "trace": "always",
                                               "video": "on-failure"})
    args = parser.parse_args(["run", "Shop", "--rows", "rows.csv", "--trace", "always"])
    name, params = run_call(args)
    assert name == "workflow_batch" and params["trace"] == "always" and "video" not in params
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "Shop", "--trace", "sometimes"])
    shown = parser.parse_args(["runs", "show", "run-1", "--trace"])
    assert shown.trace is True
    exported = parser.parse_args(["runs", "export", "run-1", "-o", "x.zip"])
    assert exported.runs_verb == "export" and exported.output == "x.zip"
    scheduled = parser.parse_args(["schedule", "add", "Shop", "--daily", "09:00", "--video"])
    assert scheduled.video == "always" and scheduled.trace is None
