"""How long the Qt main thread stalls while a 40-row batch runs at concurrency 3 ("never a frozen window").

The app runs in-process (offscreen QApplication, qasync loop, `BrowserPilotApp(DataDir(tmp), headless=True)`),
on a data folder in its steady state: `runs.json` holds its maximum of 200 records (each with a run folder, so
every new run evicts one), `envs.json` has environments with full site lists. Local servers (port 0) on the
loopback addresses 127.0.0.2 … 127.0.0.(rows+2) serve a small form, so every row visits a site (a host) the
environment has not seen yet, as a batch over many shops does. The servers run in a process of their own,
so their threads take no GIL time from the app.

The batch: `workflow_batch`, 40 rows at concurrency 3 over three environments (env-default and two made for
the run, so each tab is the front tab of its own window, as in bench/replay.py) (start, goto, fill, click, wait, script,
end; every row checked: status ok and the page's answer). While it runs, a side task does what a person or an
agent also does: creates an environment, loads a page with 40 images in it with network capture on, exports
the HAR (`net_export`), types a ~500-character note into the page key by key (checked), and deletes the
environment again (its Chromium profile goes).

The probe: a thread posts a trivial callback to the main loop (`loop.call_soon_threadsafe`) every 20 ms and
waits for it to run; the latency is post to run. While an answer is late (over 30 ms) the probe samples the
main thread's Python stack every 5 ms, so the report says where the main thread was (the innermost frames of
the project's own code, with the time attributed to each). Target: p99 <= 25 ms, worst <= 100 ms.

Before and after: `--against DIR` runs the same measurement on another checkout (for example
`git worktree add /tmp/before <commit>`) in a separate process, sides alternating, and prints both with the
ratios. `--code-root DIR` (used by --against) measures the code of DIR instead of this checkout.

Where the late answers come from: `--variant NAME` measures the same with one part left out or moved, and
`--breakdown` measures every variant of this checkout in one run and prints them as one table:
`one-site` (every row on the same site, so no row needs a renderer process of its own), `no-side` (the batch
alone), `one-site-no-side`, `batch-elsewhere` (the batch runs through `browserpilot run --rows` in a second app
process on a data folder of its own, in one environment; the probe and the side task stay here) and
`batch-elsewhere-no-side` (this app runs nothing but the probe while the other batches), and `traced` (as specified,
every row keeping its trace and its video: the traced bound, p99 <= 80 ms, worst <= 200 ms; `trace-only`,
`video-only` and `trace-off` put the traced batch's late answers down to its parts). Each late answer is
also put down to the side task's operation that was running when it was asked for ("(no side operation)":
none was, only the batch).

Also printed, being less at the mercy of a loaded machine than latencies: the main thread's own CPU time
during the batch (`time.thread_time()`), and for how long (sampled) late answers found the main thread inside
the stores' disk and JSON code (plumbing/jsonstore.py, envs/store.py, workflows/runs.py, workflows/store.py,
shutil, the HAR writer). Latencies on a shared 2-core machine swing with its load (printed): compare the
sides of one run, not runs of different hours.

`--windows` measures the app as a person runs it: not headless, its windows shown on the X server in DISPLAY
(`xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python bench/ui_stall.py --windows`), so Qt draws what a
person would see.

Run: `.venv/bin/python bench/ui_stall.py [--rows 40] [--reps 1] [--against DIR | --breakdown] [--variant NAME]
[--windows] [--where] [--json]`.
Exit status: 0 when every row of every batch was ok (whether or not the targets are met), 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
INTERVAL = 0.020   # the probe asks every 20 ms
LATE = 0.030       # an answer later than this gets the main thread's stack sampled
SAMPLE_EVERY = 0.005
TARGET_P99_MS = 25.0
TARGET_WORST_MS = 100.0
IMAGES = 40
NOTE = "A longer note typed key by key into the gallery's text box. " * 8  # ~500 characters


class BenchError(Exception):
    pass


# -- the local site -----------------------------------------------------------------------------------------
FORM = """<!doctype html><title>Order</title>
<h1>Order form</h1>
<label>Name <input id="name"></label> <button id="go">Send</button>
<p id="out"></p>
<script>
document.getElementById('go').addEventListener('click', () => {
  const p = document.getElementById('out');
  p.textContent = 'Thanks ' + document.getElementById('name').value;
  const done = document.createElement('div'); done.id = 'done'; done.textContent = 'done';
  document.body.appendChild(done);
});
</script>"""

PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360606060000000050001a5f645400000000049454e44ae426082")


def gallery() -> str:
    images = "".join(f'<img src="/img/{i}.png" width="8" height="8">' for i in range(IMAGES))
    return f"<!doctype html><title>Gallery</title><h1>Gallery</h1>{images}<textarea id=\"note\"></textarea>"


class Site:
    """Threaded HTTP server on a loopback address, port 0: `/form` (the batch's page), `/gallery` and its
    images."""

    def __init__(self, address: str = "127.0.0.1") -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path = urlsplit(self.path).path
                if path == "/form":
                    body, kind = FORM.encode(), "text/html; charset=utf-8"
                elif path == "/gallery":
                    body, kind = gallery().encode(), "text/html; charset=utf-8"
                elif path.startswith("/img/"):
                    body, kind = PIXEL, "image/png"
                else:
                    body, kind = b"not found", "text/plain"
                self.send_response(200 if body != b"not found" else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer((address, 0), Handler)
        self.httpd.daemon_threads = True
        self.host = f"{address}:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# -- the workflow and the data folder --------------------------------------------------------------------------
def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def workflow_document() -> dict[str, Any]:
    nodes = [
        node("start", "start", variables=[{"variable": "host", "type": "string"}, {"variable": "who", "type": "string"}]),
        node("open", "goto", url="http://{{#input.host#}}/form"),
        node("name", "fill", locator={"selector": "#name"}, text="{{#input.who#}}"),
        node("send", "click", locator={"selector": "#go"}),
        node("wait", "wait", locator={"selector": "#done"}, state="appear", timeout="10"),
        node("read", "script", source="return {said: document.getElementById('out').textContent}"),
        node("end", "end", outputs=[{"variable": "said", "value_selector": ["read", "said"]}]),
    ]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Stall probe", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def fill_data_folder(root: Path) -> None:
    """A data folder in use: 200 runs (index entries with outputs, run folders with a record and a
    screenshot), and environments whose site lists are full."""
    now = datetime.now(timezone.utc)
    runs = []
    for i in range(200):
        run_id = f"run-{i:010x}"
        started = now - timedelta(minutes=300 - i)
        entry = {"id": run_id, "workflowId": "wf-00000000", "workflowName": "Earlier batch", "env": "env-default",
                 "tabId": f"tab-{i:08x}", "batchId": "batch-00000000", "rowIndex": i,
                 "inputs": {"host": f"old{i}.test", "who": f"Person {i}"}, "status": "ok",
                 "startedAt": started.isoformat(), "endedAt": (started + timedelta(seconds=2)).isoformat(),
                 "durationMs": 2000.0, "outputs": {"said": f"Thanks Person {i}", "rows": [[j, f"v{j}"] for j in range(20)]},
                 "files": [], "trace": [], "title": "Order", "notes": []}
        runs.append(entry)
        folder = root / "runs" / run_id
        folder.mkdir(parents=True)
        trace = [{"node": n, "type": n, "start": started.isoformat(), "ms": 12.5, "ok": True}
                 for n in ("start", "open", "name", "send", "wait", "read", "end")]
        (folder / "record.json").write_text(json.dumps({**entry, "trace": trace}, indent=1), "utf-8")
        (folder / "failure.png").write_bytes(os.urandom(60_000))
    runs.reverse()  # newest first
    (root / "runs.json").write_text(json.dumps({"schema_version": 1, "runs": runs}, indent=2), "utf-8")
    envs = [{"id": "env-default", "name": "Default", "remark": "",
             "sites": [{"domain": f"seen{j}.example", "lastOpened": (now - timedelta(hours=j)).isoformat()}
                       for j in range(100)]}]
    for k in range(20):
        envs.append({"id": f"env-{k:08x}", "name": f"Account {k}", "remark": "a shop account " * 5,
                     "sites": [{"domain": f"site{j}.shop{k}.example",
                                "lastOpened": (now - timedelta(hours=j)).isoformat()} for j in range(100)]})
    (root / "envs.json").write_text(json.dumps({"schema_version": 1, "environments": envs}, indent=2), "utf-8")


# -- the probe -------------------------------------------------------------------------------------------------
# Where a late answer found the main thread in the stores' disk and JSON work (the code most suspected of stalling it).
STORE_CODE = ("plumbing/jsonstore.py", "envs/store.py", "workflows/runs.py", "workflows/store.py", "shutil.py",
              "app/browser/har.py:write_har")


class Probe:
    """Posts a trivial callback to the loop every 20 ms from its own thread and records how late it ran."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.latencies: list[float] = []
        self.late: list[tuple[float, float]] = []  # (asked at, ms) of every answer over 25 ms
        self.where: Counter[str] = Counter()
        self.store_samples = 0  # samples with the stores' disk or JSON work on the main thread's stack
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stall-probe", daemon=True)
        self._main = threading.main_thread().ident

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        next_at = time.perf_counter()
        while not self._stop.is_set():
            answered: list[float] = []
            done = threading.Event()

            def answer() -> None:
                answered.append(time.perf_counter())
                done.set()

            sent = time.perf_counter()
            self.loop.call_soon_threadsafe(answer)
            if not done.wait(LATE):
                while not done.wait(SAMPLE_EVERY):
                    if self._stop.is_set():
                        return  # the main thread is joining this thread: its answer cannot come
                    self._sample()
            latency = (answered[0] - sent) * 1000
            self.latencies.append(latency)
            if latency > TARGET_P99_MS:
                self.late.append((sent, latency))
            next_at += INTERVAL
            pause = next_at - time.perf_counter()
            if pause > 0:
                self._stop.wait(pause)
            else:
                next_at = time.perf_counter()

    def _sample(self) -> None:
        frame = sys._current_frames().get(self._main or 0)
        stack: list[tuple[str, int, str]] = []  # innermost first; names only (no source lines read)
        while frame is not None and len(stack) < 60:
            stack.append((frame.f_code.co_filename, frame.f_lineno or 0, frame.f_code.co_name))
            frame = frame.f_back
        if not stack:
            return
        ours = [f for f in stack if any(f"/{pkg}/" in f[0] for pkg in ("app", "envs", "workflows"))
                and "/site-packages/" not in f[0]]
        inner = stack[0]
        if any(any(f"{short(f[0])}:{f[2]}".startswith(code) or short(f[0]) == code for code in STORE_CODE)
               for f in stack):
            self.store_samples += 1
        label = " <- ".join(f"{short(f[0])}:{f[1]} {f[2]}" for f in ours[:3]) or "(outside)"
        self.where[f"{short(inner[0])}:{inner[2]} | {label}"] += 1


def short(filename: str) -> str:
    parts = Path(filename).parts
    for pkg in ("app", "envs", "workflows", "site-packages"):
        if pkg in parts:
            index = len(parts) - 1 - parts[::-1].index(pkg)
            return "/".join(parts[index:] if pkg != "site-packages" else parts[index + 1:])
    return Path(filename).name


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))
    return ordered[rank]


# -- one measurement --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """What runs while the probe asks: the target's configuration, or one part of it left out or moved, to
    show which part the late answers come from (`--breakdown`)."""

    title: str
    new_sites: bool = True     # every row on a site (a host) of its own; else all rows on one site
    side: bool = True          # the side task runs in the app meanwhile
    batch_here: bool = True    # the batch runs in the app; else in another app process, on its own data folder
    trace: str | None = None   # each row's `trace` setting (None: the default, on-failure)
    video: str | None = None   # each row's `video` setting (None: the default, off)


VARIANTS = {
    "as-specified": Variant("as specified (the target)"),
    "one-site": Variant("every row on one site", new_sites=False),
    "no-side": Variant("the batch alone (no side task)", side=False),
    "one-site-no-side": Variant("one site, the batch alone", new_sites=False, side=False),
    "batch-elsewhere": Variant("the batch in another app process, the side task here", batch_here=False),
    "batch-elsewhere-no-side": Variant("the batch in another app process, nothing here", batch_here=False,
                                       side=False),
    "traced": Variant("as specified, every row with its trace and video kept", trace="always", video="always"),
    "trace-only": Variant("as specified, every row with its trace kept (no video)", trace="always"),
    "video-only": Variant("as specified, every row with its video kept (no trace)", trace="off", video="always"),
    "trace-off": Variant("as specified, no trace at all (trace off)", trace="off"),
}
BATCH_ALONE = "(no side operation)"


def late_by_operation(late: list[tuple[float, float]], spans: list[tuple[str, float, float]]) -> list[list[Any]]:
    """Each late answer put down to the side task's operation that was running when it was asked for
    (`BATCH_ALONE` when none was): [[operation, late answers, worst ms], ...], the most first."""
    count: Counter[str] = Counter()
    worst: dict[str, float] = {}
    for asked, ms in late:
        running = [name for name, began, ended in spans if began <= asked <= ended]
        name = running[-1] if running else BATCH_ALONE
        count[name] += 1
        worst[name] = max(worst.get(name, 0.0), ms)
    return [[name, n, worst[name]] for name, n in count.most_common()]


async def batch_elsewhere(document: dict[str, Any], rows: list[dict[str, str]], folder: Path) -> dict[str, Any]:
    """The batch through `browserpilot run --rows` (headless, concurrency 3, env-default) on a data folder of its
    own, so a second app process runs it; its envelope, as `workflow_batch` gives it."""
    folder.mkdir(parents=True)
    (folder / "workflow.json").write_text(json.dumps(document), "utf-8")
    (folder / "rows.json").write_text(json.dumps(rows), "utf-8")
    code_root = Path(sys.path[0])  # `-m app.cli` from there: the code measured
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app.cli", "--data-dir", str(folder / "data"), "run", str(folder / "workflow.json"),
        "--rows", str(folder / "rows.json"), "--concurrency", "3", "--headless", "--quiet", "--json",
        cwd=str(code_root), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    try:
        return json.loads(out)
    except ValueError:
        raise BenchError(f"browserpilot run --rows in another process: exit {process.returncode}: "
                         f"{err.decode(errors='replace')[-800:]}") from None


async def measure(shell: Any, hosts: list[str], rows: int, variant: Variant, work: Path) -> dict[str, Any]:
    spans: list[tuple[str, float, float]] = []  # (operation, began, ended) of every operation called here

    async def op(name: str, params: dict[str, Any]) -> dict[str, Any]:
        began = time.perf_counter()
        try:
            envelope = await shell.registry.call(shell.ctx, name, params)
        finally:
            spans.append((name, began, time.perf_counter()))
        if not envelope.get("ok"):
            raise BenchError(f"{name}: {envelope.get('error')}")
        return envelope

    document = workflow_document()
    await op("workflow_write", {"workflow": document})
    warm = await op("workflow_run", {"workflow": "Stall probe", "inputs": {"host": hosts[0], "who": "Warm"}})
    if warm["outputs"] != {"said": "Thanks Warm"}:
        raise BenchError(f"warm-up run: {warm['outputs']}")
    stamp = time.strftime("%H%M%S")
    # Three environments, so each of the three tabs is the front tab of its own window (as bench/replay.py).
    envs = ["env-default"] + [(await op("env_create", {"name": f"Batch {k} {stamp}"}))["env"] for k in (1, 2)]
    batch_rows = [{"host": hosts[1 + i if variant.new_sites else 1], "who": f"Person {i}"} for i in range(rows)]

    async def side() -> dict[str, float]:
        """What else happens meanwhile: an environment made, a captured page, its HAR, the environment deleted."""
        if not variant.side:
            return {"harEntries": 0.0}
        await asyncio.sleep(1.0)
        env_id = (await op("env_create", {"name": f"Side {stamp}"}))["env"]
        tab = (await op("tab_open", {"env": env_id}))["tabId"]
        await op("net_start", {"tabId": tab})
        await op("page_navigate", {"tabId": tab, "url": f"http://{hosts[0]}/gallery"})
        har = await op("net_export", {"tabId": tab})
        await op("page_type", {"tabId": tab, "locator": {"selector": "#note"}, "text": NOTE})
        typed = await op("page_script", {"tabId": tab, "source": "return document.getElementById('note').value"})
        if typed.get("value") != NOTE:
            raise BenchError(f"the note typed into the gallery page reads {str(typed.get('value'))[:80]!r}")
        await op("env_delete", {"env": env_id})
        return {"harEntries": float(har.get("entries", 0))}

    idle = Probe(asyncio.get_running_loop())  # the same probe with nothing running, for reference
    idle.start()
    await asyncio.sleep(2.0)
    idle.stop()
    probe = Probe(asyncio.get_running_loop())
    probe.start()
    began = time.perf_counter()
    cpu_began = time.thread_time()  # the main thread's own CPU time (the probe runs in another thread)
    spans.clear()
    side_task = asyncio.ensure_future(side())
    try:
        if variant.batch_here:
            tracing = {key: value for key, value in (("trace", variant.trace), ("video", variant.video)) if value}
            result = await op("workflow_batch", {"workflow": "Stall probe", "rows": batch_rows, "concurrency": 3,
                                                    "envs": envs, **tracing})
        else:
            result = await batch_elsewhere(document, batch_rows, work / "elsewhere")
        side_result = await side_task
    finally:
        elapsed = time.perf_counter() - began
        main_cpu = time.thread_time() - cpu_began
        probe.stop()
    results = result.get("results") or []
    statuses = Counter(r["status"] for r in results)
    if statuses.get("ok") != rows:
        errors = [r.get("error") for r in results if r["status"] != "ok"] or [result.get("error")]
        raise BenchError(f"batch: {dict(statuses)} of {rows} rows; errors: {errors[:3]}")
    said = {(r.get("outputs") or {}).get("said") for r in results}
    expected = {f"Thanks Person {i}" for i in range(rows)}
    if said != expected:
        raise BenchError(f"rows answered wrongly: {sorted(map(str, said ^ expected))[:5]}")
    lat = probe.latencies
    side_spans = [span for span in spans if span[0] != "workflow_batch"]
    return {"rows": rows, "seconds": elapsed, "idleP50": percentile(idle.latencies, 0.5),
            "idleWorst": max(idle.latencies), "samples": len(lat), "p50": percentile(lat, 0.5),
            "p99": percentile(lat, 0.99), "worst": max(lat), "over25": sum(1 for x in lat if x > 25),
            "over100": sum(1 for x in lat if x > 100), "harEntries": side_result["harEntries"],
            "mainCpuS": main_cpu, "storeMs": probe.store_samples * SAMPLE_EVERY * 1000,
            "lateBy": late_by_operation(probe.late, side_spans),
            "where": [[key, count * SAMPLE_EVERY * 1000] for key, count in probe.where.most_common(12)]}


def serve(count: int) -> None:
    """The sites, in a process of their own (so their threads take no GIL time from the app's main thread):
    prints one JSON line with the hosts, serves until stdin closes."""
    sites = [Site(f"127.0.0.{2 + i}") for i in range(count)]
    print(json.dumps([site.host for site in sites]), flush=True)
    sys.stdin.read()
    os._exit(0)  # daemon server threads: nothing to shut down one by one


def run_here(rows: int, windows: bool = False, variant: str = "as-specified") -> dict[str, Any]:
    """One measurement in this process, on the code at sys.path[0]; `windows`: the app as a person runs it, its
    windows shown on the X server in DISPLAY (under `xvfb-run`), instead of headless; `variant`: a key of
    VARIANTS."""
    try:  # this checkout's layout (app/startup, app/wiring)
        from app.startup.runtime import prepare_qt_environment
        layout_before_startup = False
    except ImportError:  # an older checkout (--against)
        from app.runtime import prepare_qt_environment  # type: ignore[no-redef]
        layout_before_startup = True
    prepare_qt_environment(headless=not windows)  # before anything imports Qt
    if not layout_before_startup:
        from app.startup.qt_asyncio import start_qt
        from app.ui.theme import apply_theme
        from app.wiring.shell import BrowserPilotApp

        def start(headless: bool) -> Any:
            return start_qt(headless, apply_theme)
    else:  # the same start-up by its old names, which styled the windows itself
        from app.shell import BrowserPilotApp  # type: ignore[no-redef]
        try:
            from app.qt_asyncio import start_qt as start  # type: ignore[no-redef]
        except ImportError:
            from app.application import _qt_app as start  # type: ignore[attr-defined,no-redef]
    _qt_app, loop = start(not windows)

    from plumbing.datadir import DataDir

    work = Path(tempfile.mkdtemp(prefix="bench-ui-stall-"))
    server = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve", str(rows + 1)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stdin is not None
    hosts: list[str] = json.loads(server.stdout.readline())
    try:
        fill_data_folder(work)
        shell = BrowserPilotApp(DataDir(work), headless=not windows)
        shell.start([])
        try:
            with loop:
                return loop.run_until_complete(measure(shell, hosts, rows, VARIANTS[variant], work))
        finally:
            shell.shutdown()
    finally:
        server.stdin.close()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


def spawn(code_root: Path, rows: int, windows: bool = False, variant: str = "as-specified") -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--code-root", str(code_root),
               "--rows", str(rows), "--variant", variant] + (["--windows"] if windows else [])
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=str(code_root))
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise BenchError(f"{code_root}: exit {done.returncode}: {done.stderr[-1500:]}")
    return json.loads(lines[-1])


def fmt_side(label: str, r: dict[str, Any]) -> str:
    return (f"{label:<8} p50 {r['p50']:6.1f} ms   p99 {r['p99']:6.1f} ms   worst {r['worst']:6.1f} ms   "
            f">25 ms: {r['over25']:3d}   >100 ms: {r['over100']:2d}   of {r['samples']} answers, "
            f"batch {r['seconds']:.1f} s (idle: p50 {r['idleP50']:.1f} ms)\n"
            f"{'':<8} main thread: {r['mainCpuS']:.2f} s CPU during the batch; late answers found it in the "
            f"stores' disk/JSON code for {r['storeMs']:.0f} ms (sampled)")


def verdict(r: dict[str, Any]) -> str:
    p99_ok = r["p99"] <= TARGET_P99_MS
    worst_ok = r["worst"] <= TARGET_WORST_MS
    return (f"target p99 <= {TARGET_P99_MS:.0f} ms: {'met' if p99_ok else 'MISSED'}; "
            f"worst <= {TARGET_WORST_MS:.0f} ms: {'met' if worst_ok else 'MISSED'}")


def merge(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The reps of one side (or variant) as one result: medians, the worst of all, counts summed."""
    late: Counter[str] = Counter()
    late_worst: dict[str, float] = {}
    for r in items:
        for name, count, worst in r["lateBy"]:
            late[name] += count
            late_worst[name] = max(late_worst.get(name, 0.0), worst)
    return {"p50": statistics.median(r["p50"] for r in items), "p99": statistics.median(r["p99"] for r in items),
            "worst": max(r["worst"] for r in items), "over25": sum(r["over25"] for r in items),
            "over100": sum(r["over100"] for r in items), "samples": sum(r["samples"] for r in items),
            "seconds": statistics.median(r["seconds"] for r in items),
            "idleP50": statistics.median(r["idleP50"] for r in items),
            "mainCpuS": statistics.median(r["mainCpuS"] for r in items),
            "storeMs": statistics.median(r["storeMs"] for r in items),
            "lateBy": [[name, count, late_worst[name]] for name, count in late.most_common()], "reps": items}


def fmt_late(r: dict[str, Any]) -> str:
    """Late answers put down to the side task's operation running then: "env_delete 1 (249 ms), ..."."""
    return ", ".join(f"{name} {count} ({worst:.0f} ms)" for name, count, worst in r["lateBy"]) or "none"


def breakdown(code_root: Path, rows: int, reps: int, windows: bool, as_json: bool,
              names: list[str] | None = None) -> int:
    """Every variant (or those `names`) on this checkout, `reps` times each (variants interleaved), as one table."""
    chosen = {name: VARIANTS[name] for name in (names or list(VARIANTS))}
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in chosen}
    try:
        for rep in range(reps):
            for name in chosen:
                print(f"rep {rep + 1}: {name} ...", file=sys.stderr, flush=True)
                results[name].append(spawn(code_root, rows, windows, name))
    except (BenchError, subprocess.TimeoutExpired) as exc:
        print(f"ui_stall: {exc}", file=sys.stderr)
        return 1
    merged = {name: merge(items) for name, items in results.items()}
    if as_json:
        print(json.dumps(merged, indent=1))
        return 0
    print(f"{'configuration':<56} {'p50':>6} {'p99':>6} {'worst':>6} {'>25 ms':>6}  {'main CPU':>8}  {'batch':>6}")
    for name, variant in chosen.items():
        r = merged[name]
        print(f"{variant.title:<56} {r['p50']:6.1f} {r['p99']:6.1f} {r['worst']:6.1f} {r['over25']:6d}  "
              f"{r['mainCpuS']:7.2f}s  {r['seconds']:5.1f}s")
    print(f"(ms; p50 and p99 medians of {reps} rep(s), worst and >25 ms over all; main CPU: the app's main thread "
          "during the batch)")
    print("\nlate answers (> 25 ms) by the side task's operation that was running when each was asked for "
          "(count, worst):")
    for name, variant in chosen.items():
        print(f"  {variant.title:<54} {fmt_late(merged[name])}")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--reps", type=int, default=1, help="measurements per side (sides alternate)")
    parser.add_argument("--against", type=Path, help="another checkout to measure side by side (before)")
    parser.add_argument("--code-root", type=Path, help="measure the code of this checkout")
    parser.add_argument("--where", action="store_true", help="print where the main thread was when late")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--windows", action="store_true",
                        help="the app with its windows on the X server in DISPLAY (run under xvfb-run), as a person "
                             "sees it, instead of headless")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="as-specified",
                        help="measure one part of the configuration left out or moved (default: as specified)")
    parser.add_argument("--breakdown", action="store_true",
                        help="measure every variant on this checkout and print them as one table")
    parser.add_argument("--variants", help="with --breakdown: only these variants (comma-separated), e.g. "
                                           "as-specified,traced")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return 0
    code_root = (args.code_root or ROOT).resolve()
    if args.child:
        sys.path.insert(0, str(code_root))
        try:
            print(json.dumps(run_here(args.rows, args.windows, args.variant)))
        except BenchError as exc:
            print(f"ui_stall: {exc}", file=sys.stderr)
            return 1
        return 0
    print(f"{args.rows}-row batch at concurrency 3, {'windows shown' if args.windows else 'headless'}, a probe every "
          f"{INTERVAL * 1000:.0f} ms; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs", file=sys.stderr, flush=True)
    if args.breakdown:
        if args.against:
            parser.error("--breakdown measures one checkout: leave out --against")
        names = args.variants.split(",") if args.variants else None
        unknown = [name for name in names or [] if name not in VARIANTS]
        if unknown:
            parser.error(f"unknown variants: {', '.join(unknown)}; valid: {', '.join(VARIANTS)}")
        return breakdown(code_root, args.rows, args.reps, args.windows, args.json, names)
    sides = [("after", code_root)] + ([("before", args.against.resolve())] if args.against else [])
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in sides}
    try:
        for rep in range(args.reps):
            order = sides if rep % 2 == 0 else list(reversed(sides))
            for label, root in order:
                print(f"rep {rep + 1}: {label} ({root}) ...", file=sys.stderr, flush=True)
                results[label].append(spawn(root, args.rows, args.windows, args.variant))
    except (BenchError, subprocess.TimeoutExpired) as exc:
        print(f"ui_stall: {exc}", file=sys.stderr)
        return 1
    merged = {label: merge(items) for label, items in results.items()}
    if args.json:
        print(json.dumps(merged, indent=1))
        return 0
    if args.variant != "as-specified":
        print(f"variant: {VARIANTS[args.variant].title}")
    for label, _root in sides:
        print(fmt_side(label, merged[label]))
    if "before" in merged:
        a, b = merged["after"], merged["before"]
        print(f"ratio after/before: p50 {a['p50'] / b['p50']:.2f}x   p99 {a['p99'] / b['p99']:.2f}x   "
              f"worst {a['worst'] / b['worst']:.2f}x   main-thread CPU {a['mainCpuS'] / b['mainCpuS']:.2f}x")
    print(verdict(merged["after"]))
    for label, _root in sides:  # the spread between reps says how much of a difference the machine's load makes
        reps = merged[label]["reps"]
        p99s = ", ".join(f"{r['p99']:.0f}" for r in reps)
        worsts = ", ".join(f"{r['worst']:.0f}" for r in reps)
        print(f"{label:<8} per rep: p99 {p99s} ms; worst {worsts} ms")
        print(f"{'':<8} late answers by the side task's operation running then: {fmt_late(merged[label])}")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.where:
        for label, _root in sides:
            print(f"\nwhere the main thread was while an answer was late ({label}; ms sampled, all reps):")
            where: Counter[str] = Counter()
            for r in merged[label]["reps"]:
                for key, ms in r["where"]:
                    where[key] += ms
            for key, ms in where.most_common(12):
                print(f"  {ms:7.0f} ms  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
