"""What an agent reads of a page: BrowserPilot's `page_snapshot` versus Playwright MCP's `browser_snapshot`.

Side by side in one run, on the same local pages (tests/support/content_pages.py, served by the tests' HTTP
server on 127.0.0.1, port 0): a 5-row product table, a 20-item list, a 200-item list, a form, and an article
with landmarks, an image and CJK text. Both servers are driven by the Python `mcp` client, as an agent does:

- ours: `browserpilot --headless` on a temporary data folder (a subprocess), over streamable HTTP;
- Playwright MCP: `node bench/node_modules/@playwright/mcp/cli.js` over stdio with Debian's chromium and
  `--timeout-settle 0` (set up as in bench/mcp_latency.py, which installs it on first run).

Checked, for both: every string the page must show (`CONTENT`: every product name and price, every list item,
every label, every paragraph) is in the snapshot; and for ours, nothing hidden (`HIDDEN`: display none,
visibility hidden, aria-hidden) is (what the peer shows of those is reported, not failed). Our 200-item list is folded
by default: the check follows the fold lines (`page_snapshot {locator, start}`) as an agent would, and the
sizes of those extra calls are reported as well.

Sizes: the text of the tool result each server returns (what a model reads: ours is a header line and the
snapshot's own lines, app/catalog/result_text.py; theirs is markdown with a YAML block), in bytes and approximate
tokens (ASCII characters / 4 plus one per other character, a rough stand-in for a tokenizer; CJK costs about one
token a character), and
the ratio ours / theirs; for ours also what reading every item costs (the fold lines' calls, or one call with
`items: 0`). Latency: the median of `--repeat` snapshot calls per page on each side, measured at the
client. For the choice of implementation, the same run also times `page_cdp Accessibility.getFullAXTree` (the
browser's own accessibility tree through our port-less CDP channel) and reports its raw size, on these pages
and on a stress page (a 2000-row table, latency only).

Run: `.venv/bin/python bench/snapshot_size.py [--repeat N]`.
Exit status: 0 when every content check passed on both sides, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcp import Client  # noqa: E402

from app.mcp.client import wait_for_endpoint  # noqa: E402
from bench.mcp_latency import (Failed, browserpilot, check, end_app, ensure_playwright_mcp,  # noqa: E402
                               our_client, playwright_params, quiet_env)
from plumbing.datadir import DataDir  # noqa: E402
from tests.support.content_pages import CONTENT, HIDDEN, PAGES, more_calls  # noqa: E402
from tests.support.server import LocalServer  # noqa: E402

STRESS = "/stress"
STRESS_ROWS = 2000


def stress_page() -> str:
    rows = "".join(f"<tr><td>Item {i}</td><td>${i}.00</td><td>note {i}</td><td><button>Buy {i}</button></td></tr>"
                   for i in range(STRESS_ROWS))
    return f"<!doctype html><title>Stress</title><h1>{STRESS_ROWS} rows</h1><table>{rows}</table>"


def approx_tokens(text: str) -> int:
    ascii_chars = sum(1 for c in text if ord(c) < 128)
    return round(ascii_chars / 4 + (len(text) - ascii_chars))


@dataclass
class Side:
    """One server's reading of one page."""

    result_text: str = ""            # the tool result's text content (first call)
    snapshot: str = ""               # the snapshot itself
    paged_text: list[str] = field(default_factory=list)   # ours: the results of following fold lines
    unfolded_bytes: int = 0          # ours: the result of one page_snapshot {items: 0} (nothing folded)
    ms: list[float] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    leaked: list[str] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return len(self.result_text.encode("utf-8"))

    @property
    def median(self) -> float:
        return statistics.median(self.ms) if self.ms else float("nan")


async def timed(series: list[float], call: Callable[[], Awaitable[Any]]) -> Any:
    started = time.perf_counter()
    result = await call()
    series.append((time.perf_counter() - started) * 1000)
    return result


def verify(side: Side, path: str, readable: str) -> None:
    side.missing = [s for s in CONTENT.get(path, []) if s not in readable]
    side.leaked = [s for s in HIDDEN.get(path, []) if s in readable]


async def ours(client: Client, url: str, path: str, repeat: int) -> tuple[Side, list[float], int]:
    check(await client.call_tool("page_navigate", {"url": url}), "page_navigate")
    side = Side()
    for _ in range(repeat):
        result = check(await timed(side.ms, lambda: client.call_tool("page_snapshot", {})), "page_snapshot")
    side.result_text = result.content[0].text
    side.snapshot = result.structured_content["snapshot"]
    readable = side.snapshot
    pending = more_calls(side.snapshot)
    while pending:
        more = check(await client.call_tool("page_snapshot", pending.pop(0)), "page_snapshot (paging)")
        side.paged_text.append(more.content[0].text)
        readable += "\n" + more.structured_content["snapshot"]
        pending += more_calls(more.structured_content["snapshot"])
    verify(side, path, readable)
    unfolded = check(await client.call_tool("page_snapshot", {"items": 0}), "page_snapshot {items: 0}")
    side.unfolded_bytes = len(unfolded.content[0].text.encode("utf-8"))
    cdp_ms: list[float] = []
    cdp_bytes = 0
    for _ in range(max(1, repeat // 2)):
        tree = check(await timed(cdp_ms, lambda: client.call_tool(
            "page_cdp", {"method": "Accessibility.getFullAXTree", "params": {}})), "page_cdp")
        cdp_bytes = len(json.dumps(tree.structured_content["result"]).encode("utf-8"))
    return side, cdp_ms, cdp_bytes


async def theirs(client: Client, url: str, path: str, repeat: int) -> Side:
    check(await client.call_tool("browser_navigate", {"url": url}), "browser_navigate")
    side = Side()
    for _ in range(repeat):
        result = check(await timed(side.ms, lambda: client.call_tool("browser_snapshot", {})), "browser_snapshot")
    side.result_text = result.content[0].text
    side.snapshot = side.result_text.split("```yaml", 1)[-1]
    verify(side, path, side.result_text)
    return side


async def run(repeat: int) -> int:
    ensure_playwright_mcp()
    work = Path(tempfile.mkdtemp(prefix="bp-bench-snapshot-"))
    data_dir = work / "data"
    data_dir.mkdir()
    app = subprocess.Popen([*browserpilot(), "--headless", "--data-dir", str(data_dir)], env=quiet_env(),
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    mine: dict[str, tuple[Side, list[float], int]] = {}
    peer: dict[str, Side] = {}
    try:
        with LocalServer() as server:
            for path, page in PAGES.items():
                server.route(path, page())
            server.route(STRESS, stress_page())
            wait_for_endpoint(DataDir(data_dir), timeout=90)
            async with our_client(data_dir) as client:
                for path in [*PAGES, STRESS]:
                    mine[path] = await ours(client, server.url(path), path, repeat)
            async with Client(playwright_params(0, work)) as client:
                for path in [*PAGES, STRESS]:
                    peer[path] = await theirs(client, server.url(path), path, repeat)
    except Failed as exc:
        print(f"snapshot_size: a call failed: {exc}", file=sys.stderr)
        return 1
    finally:
        end_app(app)
        shutil.rmtree(work, ignore_errors=True)

    version = json.loads((ROOT / "bench/node_modules/@playwright/mcp/package.json").read_text())["version"]
    print(f"page_snapshot vs Playwright MCP {version} browser_snapshot ({repeat} calls per page, medians)\n")
    print(f"{'page':<10} {'ours B':>7} {'~tok':>6} {'theirs B':>9} {'~tok':>6} {'ratio':>6}   {'ours ms':>8} "
          f"{'theirs ms':>9}   {'paging B':>8} {'items=0 B':>9}   {'CDP AX tree':>18}   content")
    failed = False
    for path in [*PAGES, STRESS]:
        side, cdp_ms, cdp_bytes = mine[path]
        other = peer[path]
        paged = sum(len(t.encode("utf-8")) for t in side.paged_text)
        problems = [p for p in (f"ours misses {side.missing}" if side.missing else "",
                                f"theirs miss {other.missing}" if other.missing else "",
                                f"ours shows hidden {side.leaked}" if side.leaked else "") if p]
        failed = failed or bool(problems)
        content = "-" if path == STRESS else ("all found, both" if not problems else "; ".join(problems))
        if other.leaked:   # the peer's own reading, reported, not a failure of the run
            content += f" (theirs also show the aria-hidden/hidden {other.leaked})"
        print(f"{path:<10} {side.bytes:>7} {approx_tokens(side.result_text):>6} {other.bytes:>9} "
              f"{approx_tokens(other.result_text):>6} {side.bytes / other.bytes:>5.2f}x   {side.median:>8.1f} "
              f"{other.median:>9.1f}   {paged:>8} {side.unfolded_bytes:>9}   {statistics.median(cdp_ms):>7.1f} ms {cdp_bytes / 1024:>6.0f} KB"
              f"   {content}")
    pages = list(PAGES)
    total_ours = sum(mine[p][0].bytes for p in pages)
    total_theirs = sum(peer[p].bytes for p in pages)
    snap_ours = sum(len(mine[p][0].snapshot.encode("utf-8")) for p in pages)
    snap_theirs = sum(len(peer[p].snapshot.encode("utf-8")) for p in pages)
    print(f"\nfive pages, tool result text: ours {total_ours} B, theirs {total_theirs} B, "
          f"ratio {total_ours / total_theirs:.2f}x; snapshot text alone: ours {snap_ours} B, theirs {snap_theirs} B "
          f"(YAML block), ratio {snap_ours / snap_theirs:.2f}x")
    print("ours B: the first page_snapshot's result (a long run folded); paging B: the further calls its fold "
          "lines name, to read every item; items=0 B: one call with nothing folded; CDP AX tree: page_cdp "
          "Accessibility.getFullAXTree, median and raw size")
    if failed:
        print("snapshot_size: a content check failed", file=sys.stderr)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="snapshot calls per page and side (default 10)")
    args = parser.parse_args()
    return asyncio.run(run(args.repeat))


if __name__ == "__main__":
    sys.exit(main())
