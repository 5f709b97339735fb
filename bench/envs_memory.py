"""Proportional memory (PSS) of N BrowserPilot environments in one app versus N headless Chromium processes.

For each N (1, 5, 10; `--quick`: 1 and 10), side by side in one run, on the same local page:

- BrowserPilot: a fresh data folder with env-default plus N-1 environments created through the CLI
  (`browserpilot --data-dir D env create NAME --json`), then ONE headless app process that opens the page
  once in each environment (`--env ID --open URL ...`: one window and one profile per environment).
- Chromium: N separate `/usr/bin/chromium --headless` processes, each with its own fresh profile folder
  (the flags that are mandatory on this closed network, see shared/BENCHMARKS.md).

Each browser gets its own URL (`/page/<side>-n<N>-<i>`), and the page's script calls back
`/beacon/<side>-n<N>-<i>`: a round is measured only once every page was served AND its script ran (timeout
60 s), then after ~2 s of settling. Memory is PSS (`memory_full_info().pss`) summed over each started
process and all its descendants (RSS would count shared pages once per process); the figure is the median
of 9 such sums taken 0.5 s apart, because the app's PSS swings by tens of MB while idle (frame buffers of
the environment windows come and go). Chromium's crashpad handlers re-parent to PID 1 and escape its tree
(a few MB), which if anything favours Chromium.

Each round also reports where the memory is, by process kind (median sample): for BrowserPilot the app
process (Python, Qt, Chromium's browser side with every window's frame buffers) and its renderers and
zygotes; for Chromium its browser, renderer, GPU and utility processes.

Viewport: an environment window is 1200x800, headless Chromium's default window 800x600. Frame buffers
grow with the viewport, so `--chromium-window 1200,800` gives Chromium the same size for a like-for-like
comparison; the default leaves Chromium at its own default (the figure the target was set on).

The target: at 10 environments, BrowserPilot at most 0.25x Chromium's PSS.

Run: `.venv/bin/python bench/envs_memory.py [--quick] [--json] [--chromium-window W,H]`. Exit status: 0 when
every round was measured (whether or not the target is met), 1 when a round failed (its numbers are then
missing).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Iterator, Sequence

import psutil

ROOT = Path(__file__).resolve().parent.parent
BROWSERPILOT = ROOT / ".venv" / "bin" / "browserpilot"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
FULL_COUNTS = (1, 5, 10)
QUICK_COUNTS = (1, 10)
LOAD_TIMEOUT_S = 60.0
SETTLE_S = 2.0
# The app's PSS at N=1 swings by up to ~80 MB from one second to the next while idle: take the median of a
# few samples after settling.
SAMPLES = 9
SAMPLE_INTERVAL_S = 0.5
STOP_TIMEOUT_S = 20.0
TARGET_N = 10
TARGET_RATIO = 0.25
MB = 1024 * 1024

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Memory bench page</title>
<style>
  body { font-family: sans-serif; margin: 2em; color: #222; background: #fafafa; }
  h1 { font-size: 1.4em; }
  p.note { color: #555; }
</style>
</head>
<body>
<h1>Memory bench page</h1>
<p class="note">A small page served once per environment; its script reports back when it ran.</p>
<p id="status">loading</p>
<script>
  document.getElementById("status").textContent = "script ran at " + new Date().toISOString();
  fetch(location.pathname.replace("/page/", "/beacon/"), {cache: "no-store"});
</script>
</body>
</html>
"""


# -- the page server ---------------------------------------------------------------------------------------
class HitCounter:
    """Thread-safe counts of page hits and script beacons, keyed by the URL's last path segment."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self.pages: dict[str, int] = {}
        self.beacons: dict[str, int] = {}

    def record(self, kind: str, key: str) -> None:
        with self._lock:
            table = self.pages if kind == "page" else self.beacons
            table[key] = table.get(key, 0) + 1
            self._lock.notify_all()

    def missing(self, keys: Sequence[str]) -> tuple[list[str], list[str]]:
        """Keys whose page was never served, and keys whose page was served but whose script never ran."""
        with self._lock:
            no_page = [k for k in keys if k not in self.pages]
            no_script = [k for k in keys if k in self.pages and k not in self.beacons]
            return no_page, no_script

    def wait_for(self, keys: Sequence[str], timeout: float, alive: Callable[[], bool]) -> bool:
        """Wait until every key was served and its script ran; stop early if `alive()` turns false."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                if all(k in self.pages and k in self.beacons for k in keys):
                    return True
                left = deadline - time.monotonic()
                if left <= 0 or not alive():
                    return False
                self._lock.wait(min(left, 0.5))


def make_handler(counter: HitCounter) -> type[BaseHTTPRequestHandler]:
    body = PAGE.encode("utf-8")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            path = self.path.split("?", 1)[0]
            kind, _, key = path.strip("/").partition("/")
            if kind == "page" and key:
                counter.record("page", key)
                self._reply(200, "text/html; charset=utf-8", body)
            elif kind == "beacon" and key:
                counter.record("beacon", key)
                self._reply(204, "text/plain", b"")
            else:
                self._reply(404, "text/plain", b"not found")

        def _reply(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if payload:
                self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
            pass

    return Handler


def start_server(counter: HitCounter) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(counter))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="page-server", daemon=True).start()
    return server


# -- processes and memory ----------------------------------------------------------------------------------
def tree(pid: int) -> list[psutil.Process]:
    """The process and all its descendants that still exist."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return []


def process_kind(proc: psutil.Process, roots: set[int]) -> str:
    """`app`/`browser` for a started process, else Chromium's `--type` (renderers forked from the zygote
    keep the zygote's command line, so QtWebEngine's renderers count as `zygote`)."""
    if proc.pid in roots:
        return "root"
    try:
        args = proc.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return "gone"
    kind = next((arg.split("=", 1)[1] for arg in args if arg.startswith("--type=")), "other")
    sub = next((arg.split("=", 1)[1].rsplit(".", 1)[-1] for arg in args if arg.startswith("--utility-sub-type=")), "")
    return f"{kind}:{sub}" if sub else kind


@dataclass
class Sample:
    pss_bytes: int
    processes: int
    by_kind: dict[str, tuple[int, int]]  # kind -> (PSS bytes, process count)


def tree_pss(pids: Sequence[int]) -> Sample:
    """Summed PSS in bytes, the number of processes counted, and both per process kind, over the trees of
    `pids`."""
    seen: set[int] = set()
    total = 0
    by_kind: dict[str, tuple[int, int]] = {}
    roots = set(pids)
    for pid in pids:
        for proc in tree(pid):
            if proc.pid in seen:
                continue
            try:
                pss = proc.memory_full_info().pss
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            seen.add(proc.pid)
            total += pss
            kind = process_kind(proc, roots)
            kind_pss, kind_count = by_kind.get(kind, (0, 0))
            by_kind[kind] = (kind_pss + pss, kind_count + 1)
    return Sample(total, len(seen), by_kind)


def stop_trees(procs: Sequence[subprocess.Popen[bytes]], sig: int) -> None:
    """Send `sig` to each started process, wait, then SIGKILL it and whatever is left of its tree."""
    descendants = [child for proc in procs for child in tree(proc.pid)[1:]]
    for proc in procs:
        if proc.poll() is None:
            try:
                proc.send_signal(sig)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for proc in procs:
        if proc.poll() is None:
            descendants.extend(tree(proc.pid)[1:])
            proc.kill()
            proc.wait()
    for child in descendants:
        try:
            child.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    psutil.wait_procs(descendants, timeout=5)


def tail(path: Path, lines: int = 8) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# -- one round ---------------------------------------------------------------------------------------------
@dataclass
class Round:
    side: str
    n: int
    pss_bytes: int | None = None
    processes: int = 0
    load_s: float | None = None
    samples_mb: list[float] = field(default_factory=list)
    by_kind_mb: dict[str, float] = field(default_factory=dict)  # of the median sample
    by_kind_count: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def pss_mb(self) -> float | None:
        return None if self.pss_bytes is None else self.pss_bytes / MB


def page_keys(side: str, n: int) -> list[str]:
    return [f"{side}-n{n}-{i}" for i in range(1, n + 1)]


def measure(result: Round, procs: Sequence[subprocess.Popen[bytes]], counter: HitCounter,
            keys: Sequence[str], started: float) -> None:
    """Wait until every page loaded (or give up), settle, and record the PSS of the started trees."""

    def alive() -> bool:
        return all(proc.poll() is None for proc in procs)

    loaded = counter.wait_for(keys, LOAD_TIMEOUT_S, alive)
    if not loaded:
        no_page, no_script = counter.missing(keys)
        dead = [str(proc.pid) for proc in procs if proc.poll() is not None]
        if dead:
            result.problems.append(f"process(es) {', '.join(dead)} exited early")
        if no_page:
            result.problems.append(f"never served: {', '.join(no_page)}")
        if no_script:
            result.problems.append(f"served but the script never ran: {', '.join(no_script)}")
        if not dead:
            result.problems.append(f"not all pages loaded within {LOAD_TIMEOUT_S:.0f} s")
        return
    result.load_s = time.monotonic() - started
    time.sleep(SETTLE_S)
    pids = [proc.pid for proc in procs]
    samples: list[Sample] = []
    for i in range(SAMPLES):
        if i:
            time.sleep(SAMPLE_INTERVAL_S)
        samples.append(tree_pss(pids))
    result.samples_mb = [round(sample.pss_bytes / MB, 1) for sample in samples]
    median = sorted(samples, key=lambda sample: sample.pss_bytes)[len(samples) // 2]
    result.pss_bytes, result.processes = median.pss_bytes, median.processes
    root_name = "app" if result.side == "browserpilot" else "browser"
    for kind, (pss, count) in sorted(median.by_kind.items()):
        name = root_name if kind == "root" else kind
        result.by_kind_mb[name] = round(pss / MB, 1)
        result.by_kind_count[name] = count


def create_envs(data_dir: Path, count: int) -> list[str]:
    """env-default plus `count - 1` environments created through the CLI; their ids."""
    ids = ["env-default"]
    for i in range(2, count + 1):
        out = subprocess.run(
            [str(BROWSERPILOT), "--data-dir", str(data_dir), "env", "create", f"bench-{i}", "--json"],
            capture_output=True, text=True, check=True, timeout=60,
        )
        ids.append(json.loads(out.stdout)["id"])
    return ids


def missing_profiles(data_dir: Path, ids: Sequence[str]) -> list[str]:
    """A problem for each environment without its own profile folder (`partitions/<id>/`)."""
    return [f"no profile folder for {env_id}" for env_id in ids if not (data_dir / "partitions" / env_id).is_dir()]


def run_browserpilot(n: int, base_url: str, counter: HitCounter) -> Round:
    result = Round("browserpilot", n)
    data_dir = Path(tempfile.mkdtemp(prefix=f"bench-bp-n{n}-"))
    procs: list[subprocess.Popen[bytes]] = []
    stderr_path = data_dir / "app-stderr.txt"
    try:
        ids = create_envs(data_dir / "data", n)
        keys = page_keys("bp", n)
        argv = [str(BROWSERPILOT), "--data-dir", str(data_dir / "data"), "--headless"]
        for env_id, key in zip(ids, keys):
            argv += ["--env", env_id, "--open", f"{base_url}/page/{key}"]
        with stderr_path.open("wb") as stderr:
            started = time.monotonic()
            procs.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=stderr, start_new_session=True))
        measure(result, procs, counter, keys, started)
        result.problems += missing_profiles(data_dir / "data", ids)
    except subprocess.CalledProcessError as exc:
        result.problems.append(f"`env create` failed ({exc.returncode}): {exc.stderr.strip()}")
    finally:
        stop_trees(procs, signal.SIGTERM)
        for proc in procs:
            if proc.returncode not in (0, None):
                result.problems.append(f"the app exited with status {proc.returncode}")
        if result.problems:
            for label, path in (("stderr", stderr_path), ("log", data_dir / "data" / "logs" / "browserpilot.log")):
                if tail(path):
                    result.problems.append(f"app {label} (last lines):\n{tail(path)}")
        shutil.rmtree(data_dir, ignore_errors=True)
    return result


def run_chromium(n: int, base_url: str, counter: HitCounter, window: str | None = None) -> Round:
    result = Round("chromium", n)
    profile_dirs: list[Path] = []
    procs: list[subprocess.Popen[bytes]] = []
    try:
        keys = page_keys("cr", n)
        started = time.monotonic()
        for key in keys:
            profile = Path(tempfile.mkdtemp(prefix=f"bench-cr-n{n}-"))
            profile_dirs.append(profile)
            sized = [f"--window-size={window}"] if window else []
            argv = [CHROMIUM, *CHROMIUM_FLAGS, *sized, f"--user-data-dir={profile}", f"{base_url}/page/{key}"]
            procs.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
        measure(result, procs, counter, keys, started)
    finally:
        stop_trees(procs, signal.SIGKILL)
        for profile in profile_dirs:
            shutil.rmtree(profile, ignore_errors=True)
    return result


# -- the report --------------------------------------------------------------------------------------------
def ratio(ours: Round, theirs: Round) -> float | None:
    if ours.pss_bytes is None or not theirs.pss_bytes:
        return None
    return ours.pss_bytes / theirs.pss_bytes


def fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def target_line(rows: Sequence[tuple[Round, Round]]) -> tuple[str, bool | None]:
    at_target = [r for r in rows if r[0].n == TARGET_N]
    value = ratio(*at_target[0]) if at_target else None
    met = None if value is None else value <= TARGET_RATIO
    verdict = {True: "MET", False: "NOT MET", None: "NOT MEASURED"}[met]
    return (f"Target: at {TARGET_N} environments BrowserPilot PSS at most {TARGET_RATIO}x Chromium's: "
            f"{fmt(value, '.3f')}x -> {verdict}"), met


def print_table(rows: Sequence[tuple[Round, Round]]) -> None:
    print(f"{'N':>3}  {'BrowserPilot PSS MB':>19}  {'Chromium PSS MB':>15}  {'ratio (ours/chromium)':>21}  "
          f"{'procs ours/chromium':>19}")
    for ours, theirs in rows:
        procs = f"{ours.processes}/{theirs.processes}"
        print(f"{ours.n:>3}  {fmt(ours.pss_mb, '.0f'):>19}  {fmt(theirs.pss_mb, '.0f'):>15}  "
              f"{fmt(ratio(ours, theirs), '.2f'):>21}  {procs:>19}")
    print("where the memory is (MB, processes; median sample):")
    for result in (r for row in rows for r in row):
        parts = [f"{kind} {mb:.0f} ({result.by_kind_count[kind]})" for kind, mb in result.by_kind_mb.items()]
        print(f"  {result.side:>12} N={result.n:<3} " + ", ".join(parts))
    print(target_line(rows)[0])


def print_problems(rows: Sequence[tuple[Round, Round]]) -> None:
    for result in (r for row in rows for r in row):
        for problem in result.problems:
            print(f"problem ({result.side}, N={result.n}): {problem}", file=sys.stderr)


def print_json(rows: Sequence[tuple[Round, Round]], chromium_window: str | None) -> None:
    line, met = target_line(rows)
    at_target = [ratio(*r) for r in rows if r[0].n == TARGET_N]
    payload = {
        "chromium_window": chromium_window or "default (800x600)",
        "rows": [
            {
                "n": ours.n,
                "browserpilot_pss_mb": ours.pss_mb,
                "chromium_pss_mb": theirs.pss_mb,
                "ratio": ratio(ours, theirs),
                "browserpilot": asdict(ours),
                "chromium": asdict(theirs),
            }
            for ours, theirs in rows
        ],
        "target": {"n": TARGET_N, "max_ratio": TARGET_RATIO, "ratio": at_target[0] if at_target else None,
                   "met": met, "summary": line},
    }
    print(json.dumps(payload, indent=2))


def rounds(counts: Sequence[int], base_url: str, counter: HitCounter,
           chromium_window: str | None) -> Iterator[tuple[Round, Round]]:
    for n in counts:
        print(f"N={n}: BrowserPilot ...", file=sys.stderr, flush=True)
        ours = run_browserpilot(n, base_url, counter)
        print(f"N={n}: Chromium ...", file=sys.stderr, flush=True)
        theirs = run_chromium(n, base_url, counter, chromium_window)
        yield ours, theirs


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only N=1 and N=10")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--chromium-window", metavar="W,H", default=None,
                        help="give headless Chromium this window size (like-for-like: 1200,800, an environment "
                             "window's size); default: Chromium's own 800x600")
    args = parser.parse_args(argv)
    if args.chromium_window is not None:
        width, _, height = args.chromium_window.partition(",")
        if not (width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
            parser.error(f"--chromium-window takes W,H in pixels (such as 1200,800), not {args.chromium_window!r}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    for binary in (str(BROWSERPILOT), CHROMIUM):
        if not os.access(binary, os.X_OK):
            print(f"envs_memory: {binary} is missing or not executable", file=sys.stderr)
            return 1
    counter = HitCounter()
    server = start_server(counter)
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        rows = list(rounds(QUICK_COUNTS if args.quick else FULL_COUNTS, base_url, counter, args.chromium_window))
    finally:
        server.shutdown()
        server.server_close()
    if args.json:
        print_json(rows, args.chromium_window)
    else:
        print_table(rows)
    print_problems(rows)
    failed = any(r.pss_bytes is None for row in rows for r in row)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
