"""Agent run records: two runs writing at once (two store objects on one data folder) both stay listed, and a
record's folder holds its whole record."""

from __future__ import annotations

from pathlib import Path

from app.stores.agent_runs import AgentRecord, AgentRunStore
from plumbing.datadir import DataDir


def test_two_stores_on_one_data_folder_keep_each_others_runs(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    first, second = AgentRunStore(data), AgentRunStore(data)
    one = first.save(AgentRecord(task="one", model="m", env="env-default"))
    two = second.save(AgentRecord(task="two", model="m", env="env-default"))
    first.save(one.model_copy(update={"status": "succeeded"}))
    listed = {record.task: record.status for record in AgentRunStore(data).list()}
    # A new store reads a run still marked running as cut short (the app stopped meanwhile).
    assert listed == {"one": "succeeded", "two": "error"}
    assert (tmp_path / "agent_runs" / two.id / "record.json").exists()
