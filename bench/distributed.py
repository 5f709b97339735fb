"""Distributed batches: rows per minute (the in-app batch vs 1 and 2 `browserpilot worker`s through a local
Redis, and the broker's overhead per row), and how long a dead worker's row waits (the time from a worker's
death, SIGKILL, or hang, SIGSTOP, to its row running and finishing on the other worker).

Rates: every row opens a local page (a real HTTP server on 127.0.0.1) and reads its heading. The in-app batch
is `browserpilot run … --rows --concurrency 1` (the app started for the batch); the distributed runs are
`browserpilot run … --rows --broker` with 1 and 2 workers (1 slot each), already started and ready, so the
timings compare the rows, not start-up: each rate is rows / (time from the first row's start to the last
row's end, from the run records). The overhead per row is the time per row with 1 worker minus the time per
row in the app; of it, the worker-side part (a fresh tab per row, collecting files, building the result) is
the worker's wall time of a row minus its run's duration, the rest is the broker (publish, deliver, ack,
result, the submitter's read).

Deaths: two workers with default settings (heartbeat timeout 15 s) and a batch of 4 rows whose pages the
site holds until both workers are mid-row; then one worker is killed (or stopped) and the site lets every
row go. Measured from the signal: when its row reached the site again (from the other worker), and when
that row's run ended (its record, as the submitter stored it). The killed worker is replaced by a fresh one
between trials; a stopped one is woken up, and its late run of the row is the batch's duplicate.

    .venv/bin/python bench/distributed.py [--rows 40] [--deaths 3]
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from statistics import mean
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.app_process import app_command, app_env  # noqa: E402
from tests.support.distributed import Site, Worker, until, workflow  # noqa: E402
from tests.support.redis_server import RedisServer  # noqa: E402
from tests.support.server import LocalServer, Response  # noqa: E402

PLAIN_PAGE = "<title>Row</title><h1>{who}</h1><p id=user></p><p id=done>done</p>"


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


def rates(root: Path, site: Site, redis: RedisServer, count: int) -> tuple[dict[str, float], list[float]]:
    wf = root / "plain.json"
    wf.write_text(json.dumps(workflow(site.url("/plain"))))
    rows = root / "rows.csv"
    rows.write_text("who\n" + "\n".join(f"row{i}" for i in range(count)) + "\n")
    results: dict[str, float] = {}
    local = root / "local"
    out = run([*app_command(), "run", str(wf), "--data-dir", str(local), "--rows", str(rows), "--headless",
               "--json", "--concurrency", "1"])
    results["in-app batch, 1 tab"] = rate(batch_runs(local, out["batchId"]))
    overheads: list[float] = []
    for workers_count in (1, 2):
        workers = [Worker(root / f"w{workers_count}-{i}", redis.url, f"w{workers_count}-{i}",
                          root / f"w{workers_count}-{i}.log") for i in range(workers_count)]
        try:
            for worker in workers:
                worker.wait_for("ready")
            submitter = root / f"submitter{workers_count}"
            out = run([*app_command(), "run", str(wf), "--data-dir", str(submitter), "--rows", str(rows),
                       "--broker", redis.url, "--json"])
            records = batch_runs(submitter, out["batchId"])
            assert len(records) == count and all(r["status"] == "ok" for r in records), out
            results[f"{workers_count} worker{'s' if workers_count > 1 else ''}, 1 slot each"] = rate(records)
            overheads += [r["remote"]["workerMs"] - (r["durationMs"] or 0) for r in records]
        finally:
            for worker in workers:
                worker.stop()
    return results, overheads


def deaths(root: Path, site: Site, redis: RedisServer, trials: int) -> dict[str, list[tuple[float, float]]]:
    """For SIGKILL and SIGSTOP: (seconds to the row reaching the site again, seconds to its run's end)."""
    wf = root / "row.json"
    wf.write_text(json.dumps(workflow(site.url("/row"))))
    started = 0

    def new_worker() -> Worker:
        nonlocal started
        started += 1
        return Worker(root / f"d{started}", redis.url, f"d{started}", root / f"d{started}.log")

    pool = [new_worker(), new_worker()]
    measured: dict[str, list[tuple[float, float]]] = {"SIGKILL": [], "SIGSTOP": []}
    try:
        for trial in range(trials):
            for kind in ("SIGKILL", "SIGSTOP"):
                for worker in pool:
                    worker.wait_for("ready")
                names = [f"{kind.lower()}{trial}-{i}" for i in range(4)]
                rows = root / f"{names[0]}.json"
                rows.write_text(json.dumps([{"who": name} for name in names]))
                data = root / f"submitter-{names[0]}"
                site.hold(*names)
                process = subprocess.Popen([*app_command(), "run", str(wf), "--data-dir", str(data), "--rows",
                                            str(rows), "--broker", redis.url, "--json"], stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, text=True, env=app_env(), stdin=subprocess.DEVNULL)
                first = until(lambda: site.first_in(names, 2), 60, "two rows in hand")[0]
                victim = until(lambda: next((w for w in pool if any(r["status"] == "running" for r in w.runs(first))),
                                            None), 10, "the worker running the first row")
                victim.signal_group(signal.SIGKILL if kind == "SIGKILL" else signal.SIGSTOP)
                at, at_wall = time.monotonic(), time.time()
                site.release(*names)
                out, err = process.communicate(timeout=300)
                if process.returncode != 0:
                    raise SystemExit(f"the batch failed:\n{err}")
                again = site.wait_reached(first, times=2, timeout=1) - at
                record = next(r for r in batch_runs(data, json.loads(out)["batchId"])
                              if r["rowIndex"] == names.index(first))
                ended = datetime.fromisoformat(record["endedAt"]).timestamp() - at_wall
                measured[kind].append((again, ended))
                if kind == "SIGSTOP":
                    victim.signal_group(signal.SIGCONT)
                victim.kill()
                pool[pool.index(victim)] = new_worker()
    finally:
        for worker in pool:
            if worker.process.poll() is None:
                worker.kill()
    return measured


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--deaths", type=int, default=3, help="trials of each kind of death")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalServer() as server:
        root = Path(tmp)
        site = Site(server)
        server.route("/plain", lambda r: Response(PLAIN_PAGE.format(who=r.arg("who"))))
        with RedisServer(root / "redis") as redis:
            results, overheads = rates(root, site, redis, args.rows)
            died = deaths(root, site, redis, args.deaths) if args.deaths else {}
    base = results["in-app batch, 1 tab"]
    print(f"{args.rows} rows, each: open a local page and read its heading")
    for name, value in results.items():
        print(f"  {name:26s} {value:7.0f} rows/min  ({value / base:.2f}x)")
    total = 60_000 / results["1 worker, 1 slot each"] - 60_000 / base
    print(f"  overhead per row with 1 worker: {total:.0f} ms, of which worker-side (fresh tab, files, result) "
          f"{mean(overheads):.0f} ms and broker {total - mean(overheads):.0f} ms")
    for kind, values in died.items():
        again = ", ".join(f"{a:.1f}" for a, _ in values)
        ended = ", ".join(f"{e:.1f}" for _, e in values)
        print(f"  a worker {'killed' if kind == 'SIGKILL' else 'stopped'} mid-row ({kind}, heartbeat timeout 15 s): "
              f"its row ran again on the other worker after {again} s and finished after {ended} s")


if __name__ == "__main__":
    main()
