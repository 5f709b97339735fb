"""Rows per minute: the in-app batch vs 1 and 2 `browserpilot worker`s through a local Redis, and the broker's
overhead per row.

Every row opens a local page (a real HTTP server on 127.0.0.1) and reads its heading. The in-app batch is
`browserpilot run … --rows --concurrency 1` (the app started for the batch); the distributed runs are
`browserpilot run … --rows --broker` with 1 and 2 workers (1 slot each), already started and ready, so the
timings compare the rows, not start-up: each rate is rows / (time from the first row's start to the last
row's end, from the run records). The overhead per row is the time per row with 1 worker minus the time per
row in the app; of it, the worker-side part (a fresh tab per row, collecting files, building the result) is
the worker's wall time of a row minus its run's duration, the rest is the broker (publish, deliver, ack,
result, the submitter's poll).

    .venv/bin/python bench/distributed.py [--rows 40]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from statistics import mean
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.test_distributed import Worker, workflow  # noqa: E402  (the test's worker runner and workflow)
from tests.support.app_process import app_command, app_env  # noqa: E402
from tests.support.redis_server import RedisServer  # noqa: E402
from tests.support.server import LocalServer, Response  # noqa: E402

PAGE = "<title>Row</title><h1>{who}</h1><p id=done>done</p>"


def rate(records: list[dict[str, Any]]) -> float:
    starts = [datetime.fromisoformat(r["startedAt"]).timestamp() for r in records]
    ends = [datetime.fromisoformat(r["endedAt"]).timestamp() for r in records]
    return len(records) / (max(ends) - min(starts)) * 60


def batch_runs(data_dir: Path, batch_id: str) -> list[dict[str, Any]]:
    runs = json.loads((data_dir / "runs.json").read_text())["runs"]
    return [r for r in runs if r.get("batchId") == batch_id]


def run(cmd: list[str]) -> dict[str, Any]:
    done = subprocess.run(cmd, capture_output=True, text=True, env=app_env(), timeout=1800, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalServer() as site:
        root = Path(tmp)
        site.route("/row", lambda r: Response(PAGE.format(who=r.arg("who"))))
        wf = root / "row.json"
        wf.write_text(json.dumps(workflow(site.url("/row"))))
        rows = root / "rows.csv"
        rows.write_text("who\n" + "\n".join(f"row{i}" for i in range(args.rows)) + "\n")
        results: dict[str, float] = {}
        local = root / "local"
        out = run([*app_command(), "run", str(wf), "--data-dir", str(local), "--rows", str(rows), "--headless",
                   "--json", "--concurrency", "1"])
        results["in-app batch, 1 tab"] = rate(batch_runs(local, out["batchId"]))
        overheads: list[float] = []
        with RedisServer(root / "redis") as redis:
            for count in (1, 2):
                workers = [Worker(root / f"w{count}-{i}", redis.url, f"w{count}-{i}", root / f"w{count}-{i}.log")
                           for i in range(count)]
                try:
                    for worker in workers:
                        worker.wait_for("ready")
                    submitter = root / f"submitter{count}"
                    out = run([*app_command(), "run", str(wf), "--data-dir", str(submitter), "--rows", str(rows),
                               "--broker", redis.url, "--json", "--row-time-limit", "60"])
                    records = batch_runs(submitter, out["batchId"])
                    assert len(records) == args.rows and all(r["status"] == "ok" for r in records), out
                    results[f"{count} worker{'s' if count > 1 else ''}, 1 slot each"] = rate(records)
                    overheads += [r["remote"]["workerMs"] - (r["durationMs"] or 0) for r in records]
                finally:
                    for worker in workers:
                        worker.stop()
        base = results["in-app batch, 1 tab"]
        print(f"{args.rows} rows, each: open a local page and read its heading")
        for name, value in results.items():
            print(f"  {name:26s} {value:7.0f} rows/min  ({value / base:.2f}x)")
        total = 60_000 / results["1 worker, 1 slot each"] - 60_000 / base
        print(f"  overhead per row with 1 worker: {total:.0f} ms, of which worker-side (fresh tab, files, result) "
              f"{mean(overheads):.0f} ms and broker {total - mean(overheads):.0f} ms")


if __name__ == "__main__":
    main()
