"""SIGKILL while a store is being rewritten in a tight loop never leaves a store that fails to parse: written at
once on the caller's thread (the command line's way), or through the app's debounced save manager (its worker
thread; what a kill loses is at most the last debounce window, never the file)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore
from envs.model import EnvsDocument

WRITER = """
import sys
from plumbing.datadir import DataDir
from plumbing.savemanager import SaveManager
from envs.store import EnvStore
saves = SaveManager(delay=0.25) if sys.argv[3] == "manager" else None
store = EnvStore(DataDir(__import__("pathlib").Path(sys.argv[1])), saves)
env = store.create("writer-" + sys.argv[2])
if saves is not None:
    saves.flush()
print("ready", flush=True)
i = 0
while True:
    i += 1
    store.update(env.id, remark="x" * (i % 997))
    store.record_visit(env.id, f"https://site{i % 150}.example/")
"""


@pytest.mark.parametrize(("mode", "rounds", "longest_wait"), [("immediate", 25, 0.05), ("manager", 8, 0.4)])
def test_sigkill_during_rewrites_never_corrupts_envs_json(tmp_path: Path, mode: str, rounds: int,
                                                          longest_wait: float) -> None:
    data = DataDir(tmp_path)
    rng = random.Random(7)
    root = Path(__file__).resolve().parents[3]
    for round_number in range(rounds):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(round_number), mode],
                                  stdout=subprocess.PIPE, text=True, cwd=root)
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, longest_wait))  # the moment of the kill, not a synchronisation
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        loaded = JsonStore(data.envs_json, EnvsDocument, EnvsDocument).load()
        assert loaded.problem is None, f"round {round_number}: {loaded.problem}"
        assert any(env.name == f"writer-{round_number}" for env in loaded.document.environments)
    assert not list(tmp_path.glob("envs.json.corrupt-*"))
