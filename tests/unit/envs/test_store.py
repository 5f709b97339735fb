"""Environment rules: default environment, names, remarks, recent sites, deletion of partitions."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from plumbing.datadir import DataDir, resolve_data_dir
from envs.model import DEFAULT_ENV_ID, MAX_SITES
from envs.store import EnvError, EnvEvent, EnvStore, domain_of, purge_trash


@pytest.fixture
def data(tmp_path: Path) -> DataDir:
    return DataDir(tmp_path)


def test_default_environment_always_exists_and_is_saved(data: DataDir) -> None:
    store = EnvStore(data)
    assert [env.id for env in store.list()] == [DEFAULT_ENV_ID]
    assert data.envs_json.exists()


def test_default_cannot_be_deleted_but_renames_persist(data: DataDir) -> None:
    store = EnvStore(data)
    with pytest.raises(EnvError, match="cannot be deleted"):
        store.delete(DEFAULT_ENV_ID)
    store.update(DEFAULT_ENV_ID, name="Personal")
    assert EnvStore(data).get(DEFAULT_ENV_ID).name == "Personal"


def test_create_update_delete_and_events(data: DataDir) -> None:
    store = EnvStore(data)
    events: list[EnvEvent] = []
    store.subscribe(events.append)
    env = store.create("  Work   account ", remark=" alice@example.com ")
    assert env.id.startswith("env-") and env.id != DEFAULT_ENV_ID
    assert env.name == "Work account" and env.remark == "alice@example.com"
    store.update(env.id, remark="bob")
    data.partition(env.id).mkdir(parents=True)
    (data.partition(env.id) / "Cookies").write_text("x")
    store.delete(env.id)
    assert not data.partition(env.id).exists()
    assert [e.kind for e in events] == ["created", "updated", "deleted"]
    assert [e.id for e in EnvStore(data).list()] == [DEFAULT_ENV_ID]


@pytest.mark.parametrize("name, message", [
    ("", "name is empty"),
    ("   \t ", "name is empty"),
    ("x" * 101, "101 characters long; at most 100"),
])
def test_bad_names_are_refused_and_nothing_is_written(data: DataDir, name: str, message: str) -> None:
    store = EnvStore(data)
    before = data.envs_json.read_bytes()
    with pytest.raises(EnvError, match=message):
        store.create(name)
    assert data.envs_json.read_bytes() == before


def test_names_are_unique_ignoring_case(data: DataDir) -> None:
    store = EnvStore(data)
    first = store.create("Shop")
    with pytest.raises(EnvError, match="already exists"):
        store.create("shop")
    store.update(first.id, name="SHOP")  # renaming to itself is fine


def test_unknown_ids_name_the_id(data: DataDir) -> None:
    store = EnvStore(data)
    for action in (lambda: store.get("env-nope"), lambda: store.update("env-nope", name="x"),
                   lambda: store.delete("env-nope")):
        with pytest.raises(EnvError, match="env-nope"):
            action()


def test_recent_sites_keep_the_newest_hundred_domains(data: DataDir) -> None:
    store = EnvStore(data)
    for i in range(MAX_SITES + 20):
        assert store.record_visit(DEFAULT_ENV_ID, f"https://site{i}.example/page")
    sites = store.get(DEFAULT_ENV_ID).sites
    assert len(sites) == MAX_SITES
    assert sites[0].domain == f"site{MAX_SITES + 19}.example"
    # A repeat visit to the most recent site within a minute is not rewritten; an older one moves to the top.
    assert not store.record_visit(DEFAULT_ENV_ID, f"https://www.site{MAX_SITES + 19}.example/other")
    assert store.record_visit(DEFAULT_ENV_ID, "https://site50.example/")
    assert store.get(DEFAULT_ENV_ID).sites[0].domain == "site50.example"
    assert len(EnvStore(data).get(DEFAULT_ENV_ID).sites) == MAX_SITES


def test_recent_site_time_is_refreshed_after_a_minute(data: DataDir) -> None:
    store = EnvStore(data)
    store.record_visit(DEFAULT_ENV_ID, "https://a.example/")
    first = store.get(DEFAULT_ENV_ID).sites[0].last_opened
    env = store._find(DEFAULT_ENV_ID)
    env.sites[0].last_opened = first - timedelta(minutes=2)
    assert store.record_visit(DEFAULT_ENV_ID, "https://a.example/x")
    assert store.get(DEFAULT_ENV_ID).sites[0].last_opened >= first


@pytest.mark.parametrize("url, domain", [
    ("https://www.Example.com/x", "example.com"),
    ("http://127.0.0.1:8000/", "127.0.0.1"),
    ("about:blank", None),
    ("data:text/html,hi", None),
    ("file:///tmp/x.html", None),
])
def test_domain_of(url: str, domain: str | None) -> None:
    assert domain_of(url) == domain


def test_corrupt_envs_json_is_moved_aside_and_reported(data: DataDir) -> None:
    data.envs_json.write_text("{ broken")
    store = EnvStore(data)
    assert store.load_problem and "envs.json" in store.load_problem and "moved aside" in store.load_problem
    assert [p.name for p in data.root.glob("envs.json.corrupt-*")]
    assert [env.id for env in store.list()] == [DEFAULT_ENV_ID]


def test_leftover_trash_is_purged(data: DataDir) -> None:
    leftover = data.partitions / ".trash-env-1-abc"
    (leftover / "sub").mkdir(parents=True)
    purge_trash(data)
    assert not leftover.exists()


def test_data_dir_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSERPILOT_HOME", str(tmp_path / "home"))
    assert resolve_data_dir() == (tmp_path / "home").resolve()
    assert resolve_data_dir(tmp_path / "explicit") == (tmp_path / "explicit").resolve()
    monkeypatch.delenv("BROWSERPILOT_HOME")
    assert resolve_data_dir().name == "BrowserPilot"
