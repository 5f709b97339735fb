"""MCP round trips: BrowserPilot's endpoint versus Playwright MCP, both driven by the Python `mcp` client.

Side by side in one run, on the same local page (a stdlib HTTP server on 127.0.0.1, port 0, in a thread):
a button that increments a counter on the page.

- ours: `browserpilot --headless` on a temporary data folder (a subprocess), reached over streamable HTTP at
  the URL and with the token from its `mcp.json`, like any agent client.
- Playwright MCP: `node bench/node_modules/@playwright/mcp/cli.js` over stdio, with Debian's chromium
  (`--headless --isolated --executable-path /usr/bin/chromium --no-sandbox`, the flags of
  shared/BENCHMARKS.md through `--config`). Installed on first run into bench/node_modules (git-ignored) by
  `npm install --no-package-lock` from bench/package.json, which pins it; measured twice: with its default 500 ms settle after every action, and with `--timeout-settle 0`.

Per call: 100 clicks on the button through each server (`page_click` | `browser_click`), each timed with
`time.perf_counter` around `await client.call_tool(...)`, after 5 unmeasured warm-up clicks. Both sides click
the ref their own snapshot tool gave for the button (`page_snapshot` | `browser_snapshot`), as an agent does.
Verification: every result must be a success, and the page's counter, read back afterwards through the same
server (`page_script` | `browser_evaluate`), must equal the number of clicks sent: a lost or doubled click
fails the run. One more block of 100 `page_click`s with `until` (the counter showing the next value) verifies
every single click inside the call; it is reported for information.

Connect to first call (5 repetitions each, medians):
- Playwright MCP: from spawning the process to the first successful `browser_navigate` to the page (the
  browser starts on that call);
- ours, warm: from opening a fresh client session to the already-running app to the first successful
  `page_navigate` to the page;
- ours, cold: from spawning `browserpilot mcp --data-dir <new folder>` (the stdio bridge, which starts the
  app headless because none runs there) to the first successful `page_navigate`; the app is stopped after.

Before measuring, this checkout's modules are compiled to bytecode (`compileall`), as Python itself caches
them on a user's machine at the first start: machines that run with `PYTHONDONTWRITEBYTECODE=1` (this one, CI)
would otherwise make every cold start compile each module edited since its cache was written (~50 ms of CPU
for a dozen of them). Installed wheels and the bundle are compiled at install time anyway.

Each of these starts once the browser processes of the one before have exited (Playwright MCP's Chromium
outlives its session by 1-2 s; a cold start's app and renderers are stopped and waited for likewise), so no
side is measured while another's browser is still tearing down.

Headline ratios, ours / Playwright MCP at its faster setting: per-call median (target at most 0.25x),
connect-to-first-call median (target at most 0.5x) and the cold start, `browserpilot mcp` with no app running
against Playwright MCP's spawn (target at most 1.0x). Absolute times drift 10-30% between runs on these shared
machines; the ratios are what count.

Before and after: `--against DIR` first runs DIR's own bench/mcp_latency.py with DIR's .venv (another checkout,
for example the code before a change) and prints its table, then measures this checkout: compare the ratios.

Run: `.venv/bin/python bench/mcp_latency.py [--clicks N] [--connects N] [--against DIR]`.
Exit status: 0 when every click was verified (whether or not the targets are met), 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, AsyncIterator, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from app.mcp.client import wait_for_endpoint  # noqa: E402
from plumbing.datadir import DataDir  # noqa: E402

BENCH = Path(__file__).resolve().parent
PLAYWRIGHT_MCP_VERSION = "0.0.83"
PLAYWRIGHT_CLI = BENCH / "node_modules" / "@playwright" / "mcp" / "cli.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]
WARM_UP = 5

PAGE = b"""<!doctype html><title>Counter</title><body>
<button id=inc onclick="n.textContent = +n.textContent + 1; n.dataset.v = n.textContent">Add one</button>
<span id=n data-v=0>0</span></body>"""


class Failed(Exception):
    """A call failed or the page did not count what was sent."""


# -- the page ------------------------------------------------------------------------------------------------
class Page:
    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(PAGE)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(PAGE)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/counter"


# -- statistics ----------------------------------------------------------------------------------------------
@dataclass
class Series:
    label: str
    ms: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.ms)

    @property
    def p90(self) -> float:
        ordered = sorted(self.ms)
        return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]

    def row(self) -> str:
        return (f"  {self.label:<44} n={len(self.ms):<4} median {self.median:9.1f} ms   p90 {self.p90:9.1f} ms   "
                f"min {min(self.ms):8.1f} ms")


async def timed(series: Series, call: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = await call()
    series.ms.append((time.perf_counter() - started) * 1000)
    return result


def check(result: Any, what: str) -> Any:
    if getattr(result, "is_error", False):
        text = " ".join(getattr(block, "text", "") for block in result.content)
        raise Failed(f"{what} failed: {text[:300]}")
    return result


# -- ours ----------------------------------------------------------------------------------------------------
def browserpilot() -> list[str]:
    script = Path(sys.executable).with_name("browserpilot")
    return [str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]


def quiet_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("BROWSERPILOT_HOME", "QT_QPA_PLATFORM")}


@asynccontextmanager
async def our_client(data_dir: Path, tools: str = "core,devtools") -> AsyncIterator[Client]:
    """A client of our endpoint, shown the core tools and page_script/page_cdp (devtools) the benches read with."""
    found = wait_for_endpoint(DataDir(data_dir), timeout=90)
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {found.token}"}, trust_env=False,
                                  verify=False, timeout=httpx2.Timeout(30, read=120)) as http:
        async with Client(streamable_http_client(f"{found.url}?tools={tools}", http_client=http)) as client:
            yield client


def snapshot_ref(text: str, role_and_name: str) -> str:
    for line in text.splitlines():
        if role_and_name in line:
            found = re.search(r"\[ref=(e\d+)\]", line)
            if found:
                return found.group(1)
    raise Failed(f"no ref for {role_and_name} in the snapshot:\n{text[:500]}")


async def ours_clicks(client: Client, url: str, clicks: int, with_until: bool) -> Series:
    label = "ours page_click" + (" + until (verified per click)" if with_until else "")
    series = Series(label)
    check(await client.call_tool("page_navigate", {"url": url}), "page_navigate")
    snapshot = check(await client.call_tool("page_snapshot", {}), "page_snapshot").structured_content["snapshot"]
    ref = snapshot_ref(snapshot, 'button "Add one"')
    for index in range(WARM_UP + clicks):
        params: dict[str, Any] = {"locator": {"ref": ref}}
        if with_until:
            params["until"] = {"selector": f"#n[data-v='{index + 1}']"}
        if index < WARM_UP:
            check(await client.call_tool("page_click", params), "page_click")
        else:
            check(await timed(series, lambda: client.call_tool("page_click", params)), "page_click")
    counted = check(await client.call_tool("page_script", {"source": "return +document.querySelector('#n').textContent"}),
                    "page_script").structured_content["value"]
    if counted != WARM_UP + clicks:
        raise Failed(f"ours: the page counted {counted} clicks, {WARM_UP + clicks} were sent")
    return series


async def ours_connect(data_dir: Path, url: str) -> float:
    started = time.perf_counter()
    async with our_client(data_dir) as client:
        check(await client.call_tool("page_navigate", {"url": url}), "page_navigate")
        return (time.perf_counter() - started) * 1000


async def ours_cold_bridge(url: str, warm_app: int | None = None) -> float:
    folder = Path(tempfile.mkdtemp(prefix="bp-bench-cold-"))
    spawned_after = time.time()
    try:
        command = browserpilot()
        params = StdioServerParameters(command=command[0], args=[*command[1:], "mcp", "--data-dir", str(folder)],
                                       env=quiet_env())
        started = time.perf_counter()
        async with Client(params) as client:
            check(await client.call_tool("page_navigate", {"url": url}), "page_navigate (cold bridge)")
            elapsed = (time.perf_counter() - started) * 1000
        stop_app(folder)
        await asyncio.to_thread(wait_for_browsers_exit, spawned_after, warm_app)
        return elapsed
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def end_app(app: subprocess.Popen[bytes]) -> None:
    """Stop the app this bench started: SIGTERM, and SIGKILL if it is still there after 30 s."""
    app.send_signal(signal.SIGTERM)
    try:
        app.wait(30)
    except subprocess.TimeoutExpired:
        app.kill()


def stop_app(folder: Path) -> None:
    try:
        pid = int((folder / "browserpilot.lock").read_text().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


# -- Playwright MCP ------------------------------------------------------------------------------------------
def ensure_playwright_mcp() -> None:
    if PLAYWRIGHT_CLI.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("mcp_latency: npm is needed to install @playwright/mcp (apt-get install nodejs npm)")
    # bench/package.json lists every bench's peers (npm removes unlisted packages on install): install from it
    # when it names Playwright MCP, otherwise just this package.
    manifest = BENCH / "package.json"
    listed = manifest.exists() and "@playwright/mcp" in manifest.read_text("utf-8")
    packages = [] if listed else ["--no-save", f"@playwright/mcp@{PLAYWRIGHT_MCP_VERSION}"]
    print(f"installing @playwright/mcp into {BENCH / 'node_modules'} …", flush=True)
    subprocess.run([npm, "install", "--no-package-lock", "--no-audit", "--no-fund", *packages], cwd=BENCH,
                   check=True, env={**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
                                    "PUPPETEER_SKIP_DOWNLOAD": "1"})


def playwright_params(settle: int | None, work: Path) -> StdioServerParameters:
    config = work / "playwright-mcp.json"
    config.write_text(json.dumps({"browser": {"launchOptions": {"args": CHROMIUM_FLAGS}}}))
    args = [str(PLAYWRIGHT_CLI), "--headless", "--isolated", "--executable-path", CHROMIUM, "--no-sandbox",
            "--config", str(config), "--output-dir", str(work / "output")]
    if settle is not None:
        args += ["--timeout-settle", str(settle)]
    return StdioServerParameters(command="node", args=args, cwd=str(work))


def playwright_label(settle: int | None) -> str:
    return "Playwright MCP browser_click" + (" (default settle)" if settle is None else f" (--timeout-settle {settle})")


async def playwright_clicks(settle: int | None, url: str, clicks: int, work: Path) -> Series:
    series = Series(playwright_label(settle))
    async with Client(playwright_params(settle, work)) as client:
        check(await client.call_tool("browser_navigate", {"url": url}), "browser_navigate")
        snapshot = check(await client.call_tool("browser_snapshot", {}), "browser_snapshot").content[0].text
        ref = snapshot_ref(snapshot, 'button "Add one"')
        params = {"target": ref, "element": "Add one button"}
        for index in range(WARM_UP + clicks):
            if index < WARM_UP:
                check(await client.call_tool("browser_click", params), "browser_click")
            else:
                check(await timed(series, lambda: client.call_tool("browser_click", params)), "browser_click")
        result = check(await client.call_tool("browser_evaluate", {
            "function": "() => +document.querySelector('#n').textContent"}), "browser_evaluate").content[0].text
    found = re.search(r"### Result\s*\n\s*(\d+)", result)
    counted = int(found.group(1)) if found else None
    if counted != WARM_UP + clicks:
        raise Failed(f"Playwright MCP: the page counted {counted} clicks, {WARM_UP + clicks} were sent")
    return series


async def playwright_connect(settle: int | None, url: str, work: Path, warm_app: int | None = None) -> float:
    started = time.perf_counter()
    spawned_after = time.time()
    try:
        async with Client(playwright_params(settle, work)) as client:
            check(await client.call_tool("browser_navigate", {"url": url}), "browser_navigate")
            return (time.perf_counter() - started) * 1000
    finally:
        await asyncio.to_thread(wait_for_browsers_exit, spawned_after, warm_app)


BROWSER_PROCESSES = ("chromium", "chrome", "QtWebEngineProcess")


def wait_for_browsers_exit(spawned_after: float, warm_app: int | None, timeout: float = 15.0) -> None:
    """Wait until the browser processes (Chromium's, or QtWebEngine's renderers and zygotes) that a session
    started have exited. Playwright MCP's Chromium outlives its session by 1-2 s (measured here), and a
    measurement started meanwhile would share the machine with its teardown; every side gets this wait. The
    renderers of `warm_app` (the app this bench keeps running for the per-call and warm measurements) are not
    waited for: they stay."""
    import psutil

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = []
        for proc in psutil.process_iter(["name", "create_time"]):
            try:
                if proc.info["name"] not in BROWSER_PROCESSES or proc.info["create_time"] < spawned_after - 0.05:
                    continue
                if warm_app is not None and any(parent.pid == warm_app for parent in proc.parents()):
                    continue
                alive.append(proc)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        if not alive:
            return
        psutil.wait_procs(alive, timeout=0.2)


# -- the run -------------------------------------------------------------------------------------------------
def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.3f}x"


def cache_bytecode() -> None:
    """Compile this checkout's packages to `__pycache__`, as a first start writes it (see the module's notes)."""
    for package in ("app", "envs", "workflows"):
        compileall.compile_dir(ROOT / package, quiet=1)


async def run(clicks: int, connects: int) -> int:
    ensure_playwright_mcp()
    cache_bytecode()
    page = Page()
    work = Path(tempfile.mkdtemp(prefix="bp-bench-mcp-"))
    data_dir = work / "data"
    data_dir.mkdir()
    app = subprocess.Popen([*browserpilot(), "--headless", "--data-dir", str(data_dir)], env=quiet_env(),
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_endpoint(DataDir(data_dir), timeout=90)
        version = json.loads((PLAYWRIGHT_CLI.parent / "package.json").read_text())["version"]
        print(f"BrowserPilot MCP latency vs Playwright MCP {version} ({clicks} clicks each, "
              f"{connects} connects each; page {page.url})", flush=True)

        per_call: dict[str, Series] = {}
        async with our_client(data_dir) as client:
            per_call["ours"] = await ours_clicks(client, page.url, clicks, with_until=False)
            per_call["ours+until"] = await ours_clicks(client, page.url, clicks, with_until=True)
        per_call["pw0"] = await playwright_clicks(0, page.url, clicks, work)
        per_call["pw"] = await playwright_clicks(None, page.url, clicks, work)

        connect = {key: Series(label) for key, label in (
            ("ours", "ours: fresh HTTP session to the running app"),
            ("cold", "ours: cold `browserpilot mcp` (starts the app)"),
            ("pw0", "Playwright MCP spawn (--timeout-settle 0)"),
            ("pw", "Playwright MCP spawn (default settle)"))}
        # Interleaved, so drift hits every side alike; each starts once the previous one's processes are gone.
        for _ in range(connects):
            connect["ours"].ms.append(await ours_connect(data_dir, page.url))
            connect["pw0"].ms.append(await playwright_connect(0, page.url, work, app.pid))
            connect["pw"].ms.append(await playwright_connect(None, page.url, work, app.pid))
            connect["cold"].ms.append(await ours_cold_bridge(page.url, app.pid))
    except Failed as exc:
        print(f"mcp_latency: verification failed: {exc}", file=sys.stderr)
        return 1
    finally:
        end_app(app)
        page.httpd.shutdown()
        shutil.rmtree(work, ignore_errors=True)

    print("\nPer call (every click verified by the page's counter at the end):")
    for series in per_call.values():
        print(series.row())
    print("\nConnect to first successful call (page_navigate | browser_navigate):")
    for series in connect.values():
        print(series.row())

    fastest = min(per_call["pw0"], per_call["pw"], key=lambda s: s.median)
    fastest_connect = min(connect["pw0"], connect["pw"], key=lambda s: s.median)
    click_ratio = per_call["ours"].median / fastest.median
    connect_ratio = connect["ours"].median / fastest_connect.median
    print("\nRatios (ours / Playwright MCP at its faster setting):")
    print(f"  per-call median      {ratio(per_call['ours'].median, fastest.median)}  (p90 "
          f"{ratio(per_call['ours'].p90, fastest.p90)}; vs default settle "
          f"{ratio(per_call['ours'].median, per_call['pw'].median)}; with until "
          f"{ratio(per_call['ours+until'].median, fastest.median)})   target <= 0.25x: "
          f"{'met' if click_ratio <= 0.25 else 'NOT met'}")
    cold_ratio = connect["cold"].median / fastest_connect.median
    print(f"  connect-to-first-call {ratio(connect['ours'].median, fastest_connect.median)}  (to the running app)"
          f"   target <= 0.5x: {'met' if connect_ratio <= 0.5 else 'NOT met'}")
    print(f"  cold start           {ratio(connect['cold'].median, fastest_connect.median)}  (`browserpilot mcp` "
          f"starting the app, vs Playwright MCP's spawn)   target <= 1.0x: {'met' if cold_ratio <= 1.0 else 'NOT met'}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=100, help="measured clicks per server (default 100)")
    parser.add_argument("--connects", type=int, default=5, help="connect-to-first-call repetitions (default 5)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="another checkout (with its .venv), measured first with its own bench/mcp_latency.py")
    args = parser.parse_args()
    if args.against:
        print(f"== before: {args.against}", flush=True)
        before = subprocess.run([str(args.against / ".venv" / "bin" / "python"),
                                 str(args.against / "bench" / "mcp_latency.py"), "--clicks", str(args.clicks),
                                 "--connects", str(args.connects)], cwd=args.against)
        if before.returncode != 0:
            return 1
        print("== after: this checkout", flush=True)
    return asyncio.run(run(args.clicks, args.connects))


if __name__ == "__main__":
    sys.exit(main())
