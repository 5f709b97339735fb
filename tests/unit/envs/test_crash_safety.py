"""SIGKILL while a store is being rewritten in a tight loop never leaves a store that fails to parse."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from envs.datadir import DataDir
from envs.jsonstore import JsonStore
from envs.model import EnvsDocument

WRITER = """
import sys
from envs.datadir import DataDir
from envs.store import EnvStore
store = EnvStore(DataDir(__import__("pathlib").Path(sys.argv[1])))
env = store.create("writer-" + sys.argv[2])
print("ready", flush=True)
i = 0
while True:
    i += 1
    store.update(env.id, remark="x" * (i % 997))
    store.record_visit(env.id, f"https://site{i % 150}.example/")
"""


def test_sigkill_during_rewrites_never_corrupts_envs_json(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    rng = random.Random(7)
    root = Path(__file__).resolve().parents[3]
    for round_number in range(25):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(round_number)],
                                  stdout=subprocess.PIPE, text=True, cwd=root)
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.05))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        loaded = JsonStore(data.envs_json, EnvsDocument, EnvsDocument).load()
        assert loaded.problem is None, f"round {round_number}: {loaded.problem}"
        assert any(env.name == f"writer-{round_number}" for env in loaded.document.environments)
    assert not list(tmp_path.glob("envs.json.corrupt-*"))
