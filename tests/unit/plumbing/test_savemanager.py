"""The save manager (plumbing/savemanager.py): debounce, order, one writer per file, flush, errors kept and reported,
other processes seeing consistent files, and the stores over it (a reader sees its own writes at once). SIGKILL
with the save manager: tests/unit/envs/test_crash_safety.py."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, StoreError
from envs.model import EnvsDocument
from plumbing.savemanager import SaveManager, in_thread
from envs.store import EnvStore
from workflows.runs import MAX_RUNS, RunRecord, RunsDocument, RunStore, TraceEntry, now

ROOT = Path(__file__).resolve().parents[3]


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll a condition (the worker thread has no signal to wait on from here)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.005)


class Gate:
    """A job that holds the worker thread until opened: nothing queued after it is written meanwhile."""

    def __init__(self, saves: SaveManager) -> None:
        self.entered = threading.Event()
        self._open = threading.Event()
        saves.run(self._hold, "gate")
        assert self.entered.wait(10)

    def _hold(self) -> None:
        self.entered.set()
        self._open.wait(30)

    def open(self) -> None:
        self._open.set()


def test_a_burst_is_written_first_at_once_then_once_with_the_newest_state(tmp_path: Path) -> None:
    saves = SaveManager(delay=3600)
    target = tmp_path / "doc.json"
    rendered: list[int] = []

    def render(n: int) -> Callable[[], bytes]:
        return lambda: (rendered.append(n), json.dumps({"n": n}).encode())[1]

    saves.save(target, render(0))
    wait_until(target.exists)  # leading edge: an idle file is written at once
    for n in range(1, 11):
        saves.save(target, render(n))
    assert json.loads(target.read_text()) == {"n": 0} and saves.dirty() == {target}
    assert saves.flush() == {}
    assert json.loads(target.read_text()) == {"n": 10}
    assert rendered == [0, 10]  # the states in between were never rendered: only the newest counts
    assert saves.dirty() == set()
    saves.close()


def test_a_file_being_written_is_still_dirty_and_a_save_meanwhile_waits_its_turn(tmp_path: Path) -> None:
    """While the worker writes a file, `dirty()` still names it, and a save that comes then is debounced like
    any other: the file was not idle, so it is not written again at once."""
    saves = SaveManager(delay=3600)
    target = tmp_path / "doc.json"
    rendering, release = threading.Event(), threading.Event()
    rendered: list[int] = []

    def slow_first() -> bytes:
        rendering.set()
        assert release.wait(10)
        rendered.append(0)
        return b'{"n": 0}'

    saves.save(target, slow_first)
    assert rendering.wait(10)
    assert saves.dirty() == {target}  # taken in hand, not on disk yet
    saves.save(target, lambda: (rendered.append(1), b'{"n": 1}')[1])
    release.set()
    wait_until(target.exists)
    assert saves.dirty() == {target}  # the second state waits out the debounce
    assert json.loads(target.read_text()) == {"n": 0} and rendered == [0]
    assert saves.flush() == {}
    assert json.loads(target.read_text()) == {"n": 1} and rendered == [0, 1] and saves.dirty() == set()
    saves.close()


def test_writes_are_in_order_and_never_two_at_once(tmp_path: Path) -> None:
    saves = SaveManager(delay=0.002)
    files = [tmp_path / f"f{i}.json" for i in range(3)]
    inside = 0
    most = 0
    lock = threading.Lock()

    def render(value: int) -> Callable[[], bytes]:
        def go() -> bytes:
            nonlocal inside, most
            with lock:
                inside += 1
                most = max(most, inside)
            data = json.dumps({"v": value}).encode()
            with lock:
                inside -= 1
            return data
        return go

    flusher_done = threading.Event()

    def flusher() -> None:  # flushes from another thread race the worker
        while not flusher_done.is_set():
            saves.flush()

    thread = threading.Thread(target=flusher)
    thread.start()
    order: list[str] = []
    for value in range(300):
        saves.save(files[value % 3], render(value))
        if value % 50 == 0:
            saves.run(lambda value=value: order.append(f"job{value}"), "job")
    flusher_done.set()
    thread.join()
    saves.close()
    assert most == 1
    assert [json.loads(f.read_text())["v"] for f in files] == [297, 298, 299]  # each file ends at its newest
    assert order == [f"job{v}" for v in range(0, 300, 50)]  # jobs keep their order


def test_close_flushes_and_a_second_process_sees_the_file(tmp_path: Path) -> None:
    saves = SaveManager(delay=3600)
    store = EnvStore(DataDir(tmp_path), saves)
    store.create("First")
    assert saves.flush() == {} and saves.dirty() == set()  # "Default" and "First" are on disk
    store.create("Second")  # the file was just written: this waits out the debounce (an hour here)
    reader = [sys.executable, "-c", "import sys, json; from plumbing.datadir import DataDir; from envs.store import "
              "EnvStore; print(json.dumps([e.name for e in EnvStore(DataDir(__import__('pathlib').Path(sys.argv[1])))"
              ".list()]))", str(tmp_path)]
    before = json.loads(subprocess.run(reader, capture_output=True, text=True, cwd=ROOT, check=True).stdout)
    assert before == ["Default", "First"]
    assert [e.name for e in store.list()] == ["Default", "First", "Second"]  # memory is the truth meanwhile
    assert saves.close() == {}
    after = json.loads(subprocess.run(reader, capture_output=True, text=True, cwd=ROOT, check=True).stdout)
    assert after == ["Default", "First", "Second"]
    store.create("Third")  # after close: written at once on this thread, not lost
    assert "Third" in {e.name for e in JsonStore(store.data.envs_json, EnvsDocument, EnvsDocument).load()
                       .document.environments}


def test_a_full_disk_keeps_memory_reports_and_catches_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reported: list[str] = []
    saves = SaveManager(delay=0.01, on_error=lambda path, message: reported.append(f"{path.name}: {message}"))
    store = EnvStore(DataDir(tmp_path), saves)
    saves.flush()
    real_fsync = os.fsync

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    shop = store.create("Shop")
    wait_until(lambda: bool(reported))
    assert "envs.json: cannot write" in reported[0] and "No space left on device" in reported[0]
    assert store.get(shop.id).name == "Shop"  # the change is kept
    assert set(saves.problems()) == {store.data.envs_json}
    on_disk = JsonStore(store.data.envs_json, EnvsDocument, EnvsDocument).load()
    assert on_disk.problem is None and [e.name for e in on_disk.document.environments] == ["Default"]
    assert not list(tmp_path.glob(".envs.json.*.tmp"))  # the failed attempt left no temp file
    assert store.data.envs_json in saves.flush()  # a flush tries once and reports instead of hanging
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert saves.flush() == {}
    names = [e.name for e in JsonStore(store.data.envs_json, EnvsDocument, EnvsDocument).load().document.environments]
    assert names == ["Default", "Shop"] and saves.problems() == {}
    saves.close()


def test_deleting_an_environment_returns_before_its_partition_is_gone(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    saves = SaveManager()
    store = EnvStore(data, saves)
    env = store.create("Temp")
    partition = data.partition(env.id)
    (partition / "Cache").mkdir(parents=True)
    (partition / "Cache" / "blob").write_bytes(b"x" * 100_000)
    gate = Gate(saves)
    store.delete(env.id)
    assert not partition.exists()  # renamed aside at once: never picked up again
    trash = [p for p in data.partitions.iterdir() if p.name.startswith(".trash-")]
    assert len(trash) == 1 and (trash[0] / "Cache" / "blob").exists()  # the removal waits for the worker
    assert not store.exists(env.id)
    partition.mkdir()  # as Chromium does, tearing the profile down: a few files written back at the old place
    (partition / "user_prefs.json").write_text("{}")
    gate.open()
    wait_until(lambda: not trash[0].exists())
    saves.flush()  # the sweeps (due within seconds) run now
    assert not partition.exists() and not any(data.partitions.iterdir())
    saves.close()


def record(run_id: str, with_trace: bool = True) -> RunRecord:
    started = now()
    trace = [TraceEntry(node="a", type="goto", start=started, ms=1.0, ok=True)] if with_trace else []
    return RunRecord(id=run_id, workflow_name="W", env="env-default", status="ok", ended_at=started, trace=trace)


def test_the_run_store_reads_its_own_writes_and_evicts_on_the_worker(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    saves = SaveManager()
    runs = RunStore(data, saves)
    for i in range(MAX_RUNS):
        runs.save(record(f"run-{i:010x}", with_trace=False))
        runs.folder(f"run-{i:010x}").mkdir(parents=True, exist_ok=True)
    saves.flush()
    gate = Gate(saves)
    runs.save(record("run-new0000001"))
    assert runs.get("run-new0000001").trace[0].node == "a"  # from memory: record.json is not written yet
    assert not (runs.folder("run-new0000001") / "record.json").exists()
    oldest = runs.folder(f"run-{0:010x}")
    assert oldest.exists() and len(runs.list(limit=500)) == MAX_RUNS  # evicted from the index, folder later
    gate.open()
    saves.flush()
    assert not oldest.exists() and (runs.folder("run-new0000001") / "record.json").exists()
    loaded = JsonStore(data.root / "runs.json", RunsDocument, RunsDocument).load()
    assert loaded.problem is None and loaded.document.runs[0].id == "run-new0000001"
    assert len(loaded.document.runs) == MAX_RUNS
    assert RunStore(data).get("run-new0000001").trace[0].node == "a"  # another instance reads it from disk
    saves.close()


def test_in_thread_runs_elsewhere_and_hands_back_the_result_or_the_error() -> None:
    async def main() -> tuple[int | None, str]:
        ident = await in_thread(threading.get_ident)
        with pytest.raises(StoreError, match="disk full"):
            await in_thread(lambda: (_ for _ in ()).throw(StoreError("disk full")))
        return ident, await in_thread(lambda a, b: a + b, "x", "y")

    ident, joined = asyncio.run(main())
    assert ident != threading.get_ident() and joined == "xy"
