"""What the network features cost: domain policy, capture, and the port-less CDP channel.

In one run, in-process (offscreen QApplication, qasync loop, `BrowserPilotApp(DataDir(tmp), headless=True)`
started as the app starts it: app/startup/qt_asyncio.py), against a stdlib HTTP server on 127.0.0.1 in a child
process (port 0, TCP_NODELAY, keep-alive, `Cache-Control: no-store`; out of process so it does not compete for the
GIL with the app, whose interceptor runs Python on the UI thread):

1. Page load with 200 sub-resources (100 images + 100 scripts, each URL unique per load so nothing is
   cached), waited for with `page_navigate` (load event), in one tab of one environment, in four modes that
   alternate load by load (the order rotates every round, so drift on these shared 2-core machines hits all
   modes alike):
   - `off`: no policy: the profile has no request interceptor at all;
   - `allow50`: `allowedDomains` with 50 patterns, the page's host matching only the last one (every
     request goes through the Python interceptor; decisions are cached per scheme/host/port);
   - `block50`: 50 `blockedDomains` patterns, none matching (the block list is checked first);
   - `capture`: no policy, network capture on (`net_start` before the load, `net_stop` after it): every
     request's events over the CDP channel plus `Network.getResponseBody` for the 100 scripts and the page.
   Verified per load: the server saw all 201 requests, and the page saw 100 loaded images and 100 scripts
   run. Reported per mode: the median wall-clock time of `page_navigate` (until the load event) and of the
   page's own Navigation Timing (start to `loadEventStart`), each with its ratio to `off`.
2. The CDP channel, over 5 attach/detach cycles (after one warm-up cycle), 2 s of settling before each
   reading: attach time; the memory of the front-end's renderer process (the one process that appears on
   attach: USS, its private memory, and PSS); the PSS of the whole process tree (psutil
   `memory_full_info().pss`, summed) attached minus before, and after detaching minus before. PSS splits
   shared pages among processes, so a new process also lowers the others' PSS: the tree total is the figure.
   Then the latency of `Runtime.evaluate` (200 times): raw on the channel (`CdpChannel.send`) and end to end
   as a `page_cdp` operation through the operations registry.
3. The interceptor's own cost: `decide()` for 100,000 request URLs against the 50-pattern allow list.

Run: `.venv/bin/python bench/network.py [--rounds N] [--raw]` (default 25 loads per mode after one warm-up
round; `--raw` prints every load time).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

T = TypeVar("T")
IMAGES = SCRIPTS = 100
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d4944415478da63606060f80f000104010018dd8db40000000049454e44ae426082")
MODES = ("off", "allow50", "block50", "capture")
CYCLES = 5


class BenchError(Exception):
    pass


def serve() -> None:
    """The HTTP server, in its own process (so it does not compete with the app for the GIL): prints its
    port, then serves until stdin closes. `/_count?run=X` answers how many requests load X made."""
    counts: dict[str, int] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            run = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("run", "")
            if path == "/_count":
                body, kind = str(counts.get(run, 0)).encode(), "text/plain"
            else:
                with lock:
                    counts[run] = counts.get(run, 0) + 1
                if path == "/page":
                    body, kind = page(run).encode(), "text/html; charset=utf-8"
                elif path.startswith("/img/"):
                    body, kind = PNG, "image/png"
                elif path.startswith("/js/"):
                    body, kind = f"window.ran = (window.ran || 0) + 1; // {path}".encode(), "text/javascript"
                else:
                    body, kind = b"", "text/plain"
            head = (f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                    f"Cache-Control: no-store\r\nConnection: keep-alive\r\n\r\n").encode()
            self.wfile.write(head + body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    print(httpd.server_address[1], flush=True)
    sys.stdin.read()


class Server:
    """`serve()` in a child process."""

    def __init__(self) -> None:
        import subprocess

        self.process = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())

    def url(self, run: str) -> str:
        return f"http://127.0.0.1:{self.port}/page?run={run}"

    def count(self, run: str) -> int:
        from urllib.request import urlopen

        with urlopen(f"http://127.0.0.1:{self.port}/_count?run={run}", timeout=10) as answer:
            return int(answer.read())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(10)


def page(run: str) -> str:
    images = "".join(f'<img src="/img/{i}.png?run={run}" width=1 height=1>' for i in range(IMAGES))
    scripts = "".join(f'<script src="/js/{i}.js?run={run}"></script>' for i in range(SCRIPTS))
    return f"<!doctype html><title>200 resources</title><body>{images}{scripts}</body>"


def tree_mb() -> dict[int, tuple[float, float]]:
    """USS and PSS (MB) of this process and each of its children (QtWebEngine's helper processes)."""
    import psutil

    me = psutil.Process()
    found: dict[int, tuple[float, float]] = {}
    for process in [me, *me.children(recursive=True)]:
        try:
            info = process.memory_full_info()
        except psutil.Error:
            continue
        found[process.pid] = (info.uss / 2**20, info.pss / 2**20)
    return found


def pss_total() -> float:
    return sum(pss for _uss, pss in tree_mb().values())


class InterceptorMeter:
    """Times the Python body of every `interceptRequest` call (wraps the class's method)."""

    def __init__(self) -> None:
        from app.browser import policy

        self.calls = 0
        self.seconds = 0.0
        self.durations: list[float] = []
        original = policy._Interceptor.interceptRequest
        meter = self

        def timed(interceptor: Any, info: Any) -> None:
            began = time.perf_counter()
            original(interceptor, info)
            took = time.perf_counter() - began
            meter.seconds += took
            meter.calls += 1
            meter.durations.append(took)

        policy._Interceptor.interceptRequest = timed  # type: ignore[method-assign]

    def reset(self) -> None:
        self.calls, self.seconds, self.durations = 0, 0.0, []


def patterns(count: int, last: str | None) -> list[str]:
    made = [f"*.site{i}.example" if i % 3 == 0 else f"https://shop{i}.example" if i % 3 == 1 else f"cdn{i}.example:8443"
            for i in range(count - (1 if last else 0))]
    return made + ([last] if last else [])


async def settle(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def main(rounds: int, raw: bool = False) -> int:
    from PySide6 import QtWebEngineCore

    from app.browser.policy import decide
    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir
    from envs.domains import DomainPolicy

    server = Server()
    work = Path(tempfile.mkdtemp(prefix="bench-network-"))
    shell = BrowserPilotApp(DataDir(work / "data"), headless=True)
    shell.start([])
    print(f"QtWebEngine {QtWebEngineCore.qWebEngineVersion()} (Chromium {QtWebEngineCore.qWebEngineChromiumVersion()}), "
          f"{IMAGES} images + {SCRIPTS} scripts per page, {rounds} loads per mode; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs", flush=True)

    async def op(name: str, params: dict[str, Any]) -> dict[str, Any]:
        envelope = await shell.registry.call(shell.ctx, name, params)
        if not envelope.get("ok"):
            raise BenchError(f"{name}: {envelope.get('error')}")
        return envelope

    try:
        tab = (await op("tab_open", {}))["tabId"]
        driver = await shell.service.tab(tab, None)
        loads: dict[str, list[float]] = {mode: [] for mode in MODES}
        timings: dict[str, list[float]] = {mode: [] for mode in MODES}
        spent: dict[str, tuple[int, float]] = {"allow50": (0, 0.0), "block50": (0, 0.0)}
        per_call: dict[str, list[float]] = {"allow50": [], "block50": []}
        meter = InterceptorMeter()
        serial = 0
        for round_index in range(-1, rounds):  # round -1: warm-up, not counted
            order = MODES[round_index % len(MODES):] + MODES[:round_index % len(MODES)]
            for mode in order:
                serial += 1
                run = f"{mode}-{serial}"
                allowed = patterns(50, "127.0.0.1") if mode == "allow50" else []
                blocked = patterns(50, None) if mode == "block50" else []
                await op("env_update", {"env": "env-default", "allowedDomains": allowed, "blockedDomains": blocked})
                if mode == "capture":
                    await op("net_start", {"tabId": tab})
                meter.reset()
                began = time.perf_counter()
                await op("page_navigate", {"tabId": tab, "url": server.url(run), "timeoutMs": 60_000})
                elapsed = (time.perf_counter() - began) * 1000
                if round_index >= 0 and mode in spent:
                    spent[mode] = (spent[mode][0] + meter.calls, spent[mode][1] + meter.seconds)
                    per_call[mode] += meter.durations
                if mode == "capture":
                    listed = (await op("net_list", {"tabId": tab}))["requests"]
                    await op("net_stop", {"tabId": tab})
                    if sum(1 for row in listed if f"run={run}" in row["url"]) != 1 + IMAGES + SCRIPTS:
                        raise BenchError(f"{run}: capture listed {len(listed)} requests")
                seen = (await op("page_script", {"tabId": tab, "source":
                                 "return [[...document.images].filter(i => i.naturalWidth === 1).length, window.ran || 0, "
                                 "performance.getEntriesByType('navigation')[0].loadEventStart]"}))
                in_page = seen["value"].pop()
                if seen["value"] != [IMAGES, SCRIPTS] or server.count(run) != 1 + IMAGES + SCRIPTS:
                    raise BenchError(f"{run}: page saw {seen['value']}, server saw {server.count(run)} requests")
                if round_index >= 0:
                    loads[mode].append(elapsed)
                    timings[mode].append(in_page)
        await op("env_update", {"env": "env-default", "allowedDomains": [], "blockedDomains": []})
        if raw:
            print({m: [round(x) for x in v] for m, v in loads.items()})

        print("\n1. Page load, 201 requests (page + 100 images + 100 scripts), "
              f"{rounds} loads per mode")
        for title, samples in (("page_navigate until the load event (wall clock, ms)", loads),
                               ("in the page: navigation start to loadEventStart (ms)", timings)):
            print(f"   {title}: median, range; median of the per-round ratios to off (same round)")
            base = statistics.median(samples["off"])
            for mode in MODES:
                median = statistics.median(samples[mode])
                ratios = [x / y for x, y in zip(samples[mode], samples["off"])]
                spread = f"{min(samples[mode]):.0f}-{max(samples[mode]):.0f}"
                print(f"     {mode:8s} {median:7.1f}  ({spread:>9s})  x{median / base:.3f} of off's median;"
                      f"  paired x{statistics.median(ratios):.3f} ({(statistics.median(ratios) - 1) * 100:+.1f}%)")
        for mode in ("allow50", "block50"):
            calls, seconds = spent[mode]
            print(f"   {mode}: Python time inside the interceptor {seconds / rounds * 1000:.2f} ms per load "
                  f"({calls // rounds} calls; per request: median {statistics.median(per_call[mode]) * 1e6:.1f} us, "
                  f"mean {seconds / max(calls, 1) * 1e6:.1f} us)")

        # 2. the CDP channel
        print("\n2. Port-less CDP channel (one tab)")
        await op("page_navigate", {"tabId": tab, "url": server.url("cdp")})
        channel = shell.service.cdp.channel(driver.page)
        channel.close("bench: start detached")
        tree_deltas: list[float] = []
        detached_deltas: list[float] = []
        frontend_uss: list[float] = []
        frontend_pss: list[float] = []
        attach_times: list[float] = []
        for cycle in range(CYCLES + 1):  # cycle 0 warms up
            await settle(2.0)
            before_pids = set(tree_mb())
            before = pss_total()
            await channel.send("Runtime.evaluate", {"expression": "1"})
            await settle(2.0)
            attached = pss_total()
            fresh = {pid: mem for pid, mem in tree_mb().items() if pid not in before_pids}
            channel.close("bench: detach")
            await settle(2.0)
            after = pss_total()
            if cycle and channel.attach_ms is not None:
                attach_times.append(channel.attach_ms)
                tree_deltas.append(attached - before)
                detached_deltas.append(after - before)
                frontend_uss.append(sum(uss for uss, _pss in fresh.values()))
                frontend_pss.append(sum(pss for _uss, pss in fresh.values()))
        print(f"   attach (front-end page loaded, bridge ready): median {statistics.median(attach_times):.0f} ms "
              f"over {CYCLES} attach/detach cycles")
        print(f"   new front-end renderer process: USS {statistics.median(frontend_uss):.1f} MB, "
              f"PSS {statistics.median(frontend_pss):.1f} MB (median)")
        print(f"   PSS of the whole process tree, attached minus before: median {statistics.median(tree_deltas):+.1f} MB "
              f"(cycles: {', '.join(f'{d:+.1f}' for d in tree_deltas)}); after detaching: median "
              f"{statistics.median(detached_deltas):+.1f} MB")
        await channel.send("Runtime.evaluate", {"expression": "1"})
        raw: list[float] = []
        for i in range(200):
            began = time.perf_counter()
            result = await channel.send("Runtime.evaluate", {"expression": f"{i} + 1", "returnByValue": True})
            raw.append((time.perf_counter() - began) * 1000)
            if result["result"]["value"] != i + 1:
                raise BenchError(f"Runtime.evaluate returned {result}")
        through_op: list[float] = []
        for i in range(200):
            began = time.perf_counter()
            result = (await op("page_cdp", {"tabId": tab, "method": "Runtime.evaluate",
                                            "params": {"expression": f"{i} * 2", "returnByValue": True}}))["result"]
            through_op.append((time.perf_counter() - began) * 1000)
            if result["result"]["value"] != i * 2:
                raise BenchError(f"page_cdp returned {result}")
        channel.close("bench: detach")
        print(f"   Runtime.evaluate x200, raw on the channel: median {statistics.median(raw):.2f} ms, "
              f"p90 {sorted(raw)[179]:.2f} ms")
        print(f"   Runtime.evaluate x200 as page_cdp (registry, envelope): median {statistics.median(through_op):.2f} ms, "
              f"p90 {sorted(through_op)[179]:.2f} ms")

        # 3. the decision itself
        from PySide6.QtCore import QUrl

        policy = DomainPolicy(patterns(50, "127.0.0.1"))
        urls = [QUrl(f"http://127.0.0.1:{server.port}/img/{i}.png") for i in range(1000)]
        began = time.perf_counter()
        for _ in range(100):
            for url in urls:
                if decide(policy, url, None) is not None:
                    raise BenchError("the allowed host was blocked")
        per = (time.perf_counter() - began) / 100_000 * 1e6
        print(f"\n3. Policy decision for one request (50 patterns, cached per host): {per:.1f} us")
        return 0
    finally:
        shell.shutdown()
        server.close()


def run_in_qt(main_coro: Callable[[], Awaitable[T]]) -> T:
    """Start Qt and asyncio as the headless app does (app/startup/qt_asyncio.py) and run."""
    from app.startup.qt_asyncio import run_in_qt as run_headless

    return run_headless(main_coro)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--raw", action="store_true", help="also print every load time")
    args = parser.parse_args()
    if args.serve:
        serve()
        sys.exit(0)
    try:
        sys.exit(run_in_qt(lambda: main(args.rounds, args.raw)))
    except BenchError as exc:
        print(f"bench/network.py: {exc}", file=sys.stderr)
        sys.exit(1)
