"""The hand-written Playwright for Python script that bench/replay.py measures BrowserPilot's workflows against.

The 20 steps of the order-form flow (bench/step_latency.py's form), one Playwright call (or two) per step,
exactly as the BrowserPilot workflow in bench/replay.py does them:

   1 goto /form (load)           6 fill Notes             11 press ArrowRight     16 click "New order"
   2 fill First name             7 fill Nickname          12 set_input_files      17 wait for "#f button"
   3 fill Last name              8 select Size by label   13 evaluate: the form   18 evaluate: order counter
   4 fill Email                  9 click Gift wrap        14 click Place order,   19 fill First name again
   5 fill City                  10 mouse.click on the         wait for #done      20 input_value First name
                                   range at its 80% point 15 inner_text #done

Used three ways:
- `python bench/replay_playwright.py SPEC.json` is the cold process of replay.py's (b): start Playwright,
  launch Debian's chromium (the flags of shared/BENCHMARKS.md), run every case of SPEC on one page, print
  `{"version", "runs": [{"step_ms", "readings"}]}` as JSON on stdout, close the browser and exit.
- `run_flow(page, case)` (sync API): replay.py's in-process (c), timed per step.
- `run_batch(cases, ...)` (async API): rows through N browser contexts of one browser, for the batch.

A case: `{"base", "values": {first, last, email, city, notes, nick}, "size_text", "file", "again",
"point": [x, y]}` (the range's 80% point in viewport CSS pixels, measured once in this engine).
Only the standard library and playwright are imported, like any small hand-written script.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from playwright.async_api import Browser as AsyncBrowser
    from playwright.async_api import Page as AsyncPage
    from playwright.sync_api import Page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT_MS = 60_000
TEXT_FIELDS = ("first", "last", "email", "city", "notes", "nick")
READ_FORM = """() => {
const e = document.getElementById('f').elements;
const file = e.doc.files.length ? e.doc.files[0] : null;
return {first: e.first.value, last: e.last.value, email: e.email.value, city: e.city.value,
        notes: e.notes.value, nick: e.nick.value, size: e.size.value, gift: e.gift.checked,
        qty: Number(e.qty.value), dragged: window.draggedTo ?? null, keyed: window.keyedOnRange ?? null,
        file: file ? file.name : null, fileBytes: file ? file.size : null};
}"""
READ_COUNTER = "() => document.getElementById('orders').textContent"

T = TypeVar("T")


def run_flow(page: "Page", case: dict[str, Any]) -> tuple[list[float], dict[str, Any]]:
    """The 20 steps on an open page; returns each step's milliseconds and what the page said."""
    times: list[float] = []
    readings: dict[str, Any] = {}

    def step(action: Callable[[], T]) -> T:
        started = time.perf_counter()
        value = action()
        times.append((time.perf_counter() - started) * 1000)
        return value

    def submit() -> None:
        page.click("text=Place order")
        page.wait_for_selector("#done", state="visible")

    values = case["values"]
    x, y = case["point"]
    step(lambda: page.goto(f"{case['base']}/form", wait_until="load"))                  # 1
    for name in TEXT_FIELDS:                                                              # 2-7
        step(partial(page.fill, f"[name={name}]", values[name]))
    step(lambda: page.select_option("select[name=size]", label=case["size_text"]))      # 8
    step(lambda: page.click("[name=gift]"))                                              # 9
    step(lambda: page.mouse.click(x, y))                                                 # 10
    step(lambda: page.keyboard.press("ArrowRight"))                                      # 11
    step(lambda: page.set_input_files("input[type=file]", case["file"]))                # 12
    readings["form"] = step(lambda: page.evaluate(READ_FORM))                            # 13
    step(submit)                                                                          # 14
    readings["result"] = step(lambda: page.inner_text("#done"))                          # 15
    step(lambda: page.click("text=New order"))                                           # 16
    step(lambda: page.wait_for_selector("#f button", state="visible"))                  # 17
    readings["counter"] = step(lambda: page.evaluate(READ_COUNTER))                      # 18
    step(lambda: page.fill("[name=first]", case["again"]))                              # 19
    readings["again"] = step(lambda: page.input_value("[name=first]"))                 # 20
    return times, readings


async def run_flow_async(page: "AsyncPage", case: dict[str, Any]) -> dict[str, Any]:
    """The same 20 steps with the async API (for the batch); returns what the page said."""
    values = case["values"]
    x, y = case["point"]
    readings: dict[str, Any] = {}
    await page.goto(f"{case['base']}/form", wait_until="load")
    for name in TEXT_FIELDS:
        await page.fill(f"[name={name}]", values[name])
    await page.select_option("select[name=size]", label=case["size_text"])
    await page.click("[name=gift]")
    await page.mouse.click(x, y)
    await page.keyboard.press("ArrowRight")
    await page.set_input_files("input[type=file]", case["file"])
    readings["form"] = await page.evaluate(READ_FORM)
    await page.click("text=Place order")
    await page.wait_for_selector("#done", state="visible")
    readings["result"] = await page.inner_text("#done")
    await page.click("text=New order")
    await page.wait_for_selector("#f button", state="visible")
    readings["counter"] = await page.evaluate(READ_COUNTER)
    await page.fill("[name=first]", case["again"])
    readings["again"] = await page.input_value("[name=first]")
    return readings


async def batch_on(browser: "AsyncBrowser", cases: list[dict[str, Any]],
                   concurrency: int) -> tuple[float, list[dict[str, Any] | None], list[str]]:
    """Every case through `concurrency` browser contexts (one page each) taking cases from one queue.
    Returns the seconds from the first context's creation until the last context closed, each case's
    readings (None when it failed) and the errors."""
    results: list[dict[str, Any] | None] = [None] * len(cases)
    errors: list[str] = []
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(cases)):
        queue.put_nowait(index)

    async def worker() -> None:
        context = await browser.new_context()
        context.set_default_timeout(TIMEOUT_MS)
        page = await context.new_page()
        try:
            while not queue.empty():
                index = queue.get_nowait()
                try:
                    results[index] = await run_flow_async(page, cases[index])
                except Exception as exc:  # a failed row does not stop the others (as in workflow_batch)
                    errors.append(f"row {index}: {exc}")
        finally:
            await context.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started, results, errors


def run_batch(cases: list[dict[str, Any]], concurrency: int,
              chromium: str = CHROMIUM) -> tuple[float, list[dict[str, Any] | None], list[str]]:
    """Start Playwright and one chromium (not timed), then `batch_on` (timed); call from a thread that has
    no running event loop."""
    from playwright.async_api import async_playwright

    async def main() -> tuple[float, list[dict[str, Any] | None], list[str]]:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
            try:
                return await batch_on(browser, cases, concurrency)
            finally:
                await browser.close()

    return asyncio.run(main())


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: replay_playwright.py SPEC.json", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=spec.get("chromium", CHROMIUM), headless=True,
                                     args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        runs = []
        for case in spec["cases"]:
            step_ms, readings = run_flow(page, case)
            runs.append({"step_ms": step_ms, "readings": readings})
        version = browser.version
        browser.close()
    json.dump({"version": version, "runs": runs}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
