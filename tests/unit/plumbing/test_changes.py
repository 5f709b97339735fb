"""Issue 35: every store of a data folder says it changed on one feed (plumbing/changes.py), whoever changed it and
on whichever thread, with the record's key: what the GUI follows (app/ui/follow.py brings it onto Qt's thread)."""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from app.stores.agent_runs import AgentRecord, AgentRunStore
from app.stores.agent_settings import AgentSettingsStore
from app.stores.settings import SettingsStore
from plumbing.changes import StoreChange, StoreChanges
from plumbing.datadir import DataDir
from envs.groups import GroupStore
from envs.store import EnvStore
from workflows.runs import MAX_RUNS, RunRecord, RunStore
from workflows.schedule_timing import Timing
from workflows.schedules import ScheduleStore
from workflows.store import WorkflowStore


@pytest.fixture
def data(tmp_path: Path) -> DataDir:
    return DataDir(tmp_path)


@pytest.fixture
def feed() -> tuple[StoreChanges, list[StoreChange]]:
    changes = StoreChanges()
    heard: list[StoreChange] = []
    changes.subscribe(heard.append)
    return changes, heard


def document(name: str) -> dict[str, object]:
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": [], "edges": []}}}


def test_listeners_hear_what_they_follow_and_a_broken_one_stops_nobody() -> None:
    changes = StoreChanges()
    everything: list[StoreChange] = []
    runs: list[StoreChange] = []
    changes.subscribe(lambda change: 1 / 0)  # a broken listener: logged, the others still hear
    changes.subscribe(everything.append)
    stop = changes.subscribe(runs.append, ("runs",))
    changes.publish("workflows", "created", "wf-1")
    changes.publish("runs", "updated", "run-1")
    stop()
    changes.publish("runs", "updated", "run-2")
    assert [c.key for c in everything] == ["wf-1", "run-1", "run-2"]
    assert runs == [StoreChange("runs", "updated", "run-1")]


def test_every_store_publishes_its_changes_with_their_keys(data: DataDir, feed: tuple[StoreChanges, list[StoreChange]]
                                                          ) -> None:
    changes, heard = feed
    envs = EnvStore(data, changes=changes)
    env = envs.create("Work")
    envs.record_visit(env.id, "https://shop.example/cart")
    envs.delete(env.id)
    assert [(c.store, c.kind, c.key) for c in heard] == [("envs", "created", env.id), ("envs", "updated", env.id),
                                                         ("envs", "deleted", env.id)]
    heard.clear()

    groups = GroupStore(data, changes=changes)
    group = groups.create("env-default", "Shops", "blue")
    groups.update(group.id, name="Stores")
    workflows = WorkflowStore(data, changes=changes)
    saved, _replaced = workflows.save("Morning", "", document("Morning"), 0)
    workflows.save("Morning", "again", document("Morning"), 0)
    workflows.delete(saved.id)
    settings = SettingsStore(data, changes=changes)
    settings.update(home_url="https://example.org/")
    AgentSettingsStore(data, changes=changes).update(max_steps=7)
    assert [(c.store, c.kind, c.key) for c in heard] == [
        ("groups", "updated", "env-default"), ("groups", "updated", "env-default"),
        ("versions", "created", saved.id), ("workflows", "created", saved.id),
        ("versions", "created", saved.id), ("workflows", "updated", saved.id),
        ("workflows", "deleted", saved.id),
        ("settings", "updated", None), ("agent_settings", "updated", None)]
    heard.clear()

    schedules = ScheduleStore(data, changes=changes)
    schedule = schedules.create(name="Nightly", workflow_id="wf-1", timing=Timing(kind="daily", time="03:00"))
    schedules.delete(schedule.id)
    agent_runs = AgentRunStore(data, changes=changes)
    agent_runs.save(AgentRecord(id="agent-1", task="Read the total", env="env-default", model="m",
                                started_at=datetime.now(timezone.utc)))
    assert [(c.store, c.kind, c.key) for c in heard if c.store != "agent_runs" or c.key] == [
        ("schedules", "created", schedule.id), ("schedules", "deleted", schedule.id),
        ("agent_runs", "updated", "agent-1")]


def test_the_run_store_says_which_runs_came_and_which_were_evicted(
        data: DataDir, feed: tuple[StoreChanges, list[StoreChange]]) -> None:
    changes, heard = feed
    runs = RunStore(data, changes=changes)
    first = runs.save(RunRecord(id="run-first", workflow_name="w", env="env-default"))
    runs.save(first.model_copy(update={"status": "ok"}))
    assert [(c.kind, c.key) for c in heard] == [("created", "run-first"), ("updated", "run-first")]
    assert runs.entry("run-first").status == "ok" and runs.entry("run-none") is None  # type: ignore[union-attr]
    for n in range(MAX_RUNS):
        runs.save(RunRecord(id=f"run-{n:04d}", workflow_name="w", env="env-default"))
    assert heard[-1] == StoreChange("runs", "deleted", "run-first") and runs.entry("run-first") is None


def test_a_store_changed_on_another_thread_tells_its_listeners_there(
        data: DataDir, feed: tuple[StoreChanges, list[StoreChange]]) -> None:
    changes, _heard = feed
    threads: list[str] = []
    changes.subscribe(lambda change: threads.append(threading.current_thread().name), ("workflows",))
    store = WorkflowStore(data, changes=changes)
    worker = threading.Thread(target=lambda: store.save("Night", "", document("Night"), 0), name="a-worker")
    worker.start()
    worker.join()
    assert threads == ["a-worker"]  # the feed does not marshal: app/ui/follow.py brings it to the Qt thread
