"""The agent's run store in the app: it writes through the save manager (the caller never waits for the disk),
merges what other writers put in the index where the index is written, takes it in when refreshed, and evicts
beyond 200 with the run folders."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import timedelta
from pathlib import Path

from app.stores.agent_runs import MAX_AGENT_RUNS, AgentRecord, AgentRunStore, now
from plumbing.datadir import DataDir
from plumbing.savemanager import SaveManager


def record(task: str, minutes_ago: float = 0.0, **fields: object) -> AgentRecord:
    return AgentRecord(task=task, model="m", env="env-default", started_at=now() - timedelta(minutes=minutes_ago),
                       **fields)


def index_tasks(folder: Path) -> list[str]:
    return [run["task"] for run in json.loads((folder / "agent_runs.json").read_text("utf-8"))["runs"]]


def test_a_save_returns_before_the_disk_is_touched_and_written_waits_for_it(tmp_path: Path) -> None:
    saves = SaveManager()
    store = AgentRunStore(DataDir(tmp_path), saves)
    entered, release = threading.Event(), threading.Event()
    saves.run(lambda: (entered.set(), release.wait(30)), "hold the saver")  # the writer is busy
    assert entered.wait(10)
    try:
        saved = store.save(record("busy writer", status="succeeded"))
        assert not (tmp_path / "agent_runs.json").exists()  # nothing on disk yet ...
        assert [r.task for r in store.list()] == ["busy writer"] and store.get(saved.id).status == "succeeded"
    finally:
        release.set()
    asyncio.run(store.written())  # ... until the writer has written it
    assert index_tasks(tmp_path) == ["busy writer"]
    assert json.loads((tmp_path / "agent_runs" / saved.id / "record.json").read_text("utf-8"))["status"] == "succeeded"
    saves.close()


def test_runs_another_writer_put_in_the_index_are_kept_and_taken_in(tmp_path: Path) -> None:
    saves = SaveManager()
    app_store = AgentRunStore(DataDir(tmp_path), saves)
    mine = app_store.save(record("mine", minutes_ago=2))
    asyncio.run(app_store.written())
    other = AgentRunStore(DataDir(tmp_path))  # another writer (writes at once)
    theirs = other.save(record("theirs", minutes_ago=1, status="succeeded"))
    app_store.save(mine.model_copy(update={"status": "failed"}))
    asyncio.run(app_store.written())
    assert index_tasks(tmp_path) == ["theirs", "mine"]  # newest first, nothing lost
    assert [r.task for r in app_store.list()] == ["mine"]  # not read yet ...
    asyncio.run(app_store.refreshed())
    assert {r.task: r.status for r in app_store.list()} == {"theirs": "succeeded", "mine": "failed"}  # ... now
    assert asyncio.run(app_store.read(theirs.id)).task == "theirs"
    saves.close()


def test_the_201st_run_evicts_the_oldest_and_its_folder(tmp_path: Path) -> None:
    saves = SaveManager()
    store = AgentRunStore(DataDir(tmp_path), saves)
    first = store.save(record("oldest", minutes_ago=1000))
    asyncio.run(store.written())
    assert (tmp_path / "agent_runs" / first.id / "record.json").exists()
    for index in range(MAX_AGENT_RUNS):
        store.save(record(f"run {index}", minutes_ago=999 - index))
    asyncio.run(store.written())
    tasks = index_tasks(tmp_path)
    assert len(tasks) == MAX_AGENT_RUNS and "oldest" not in tasks and tasks[0] == f"run {MAX_AGENT_RUNS - 1}"
    assert not (tmp_path / "agent_runs" / first.id).exists()
    assert len(store.list(limit=500)) == MAX_AGENT_RUNS
    saves.close()
