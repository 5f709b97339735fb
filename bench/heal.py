"""Healing locators, side by side: one order flow recorded once on an unchanged form, replayed after
each named kind of change by BrowserPilot, by the flow as Playwright's codegen writes it, and by the flow as
Chrome's Recorder records it (replayed with @puppeteer/replay). The site's server decides every replay: ok
(exactly one order, every value right), failed (no order) or wrong (a wrong value, a second order, or
anything the look-alike newsletter form sent).

The site and its kinds of change are tests/support/heal_site.py (the same as tests/integration/test_heal.py):
same, ids (regenerated ids and classes, new wrappers), labels (reworded labels, heading and button), reorder,
lookalike (a newsletter form with Full name / Email above the order form), tags (button <-> input submit,
for= labels <-> wrapping labels), late (rendered 0.8 s after load), shadow (an open shadow root), iframe (a
same-origin iframe), renamed (`name` attributes), three (ids + labels + reorder) and redesign (reworded,
reordered, renamed, swapped tags, the look-alike form and new ids together). The flow: full name and email
(text), size (select), gift wrap (checkbox), a note (textarea), a file, quantity (a slider), Place order.

The three flows (ours replayed twice: without and with a model), all made on the unchanged form:
- ours: each element's locator from our one generator (resources/js/locator_gen.js, through `page_inspect`,
  as the recorder and the editor's Pick make it: primary, ranked alternatives and the fingerprint); the
  slider is clicked at 80 % of its width, as the recorder writes a slider click. Run with `workflow_run` in
  the app (in-process, headless), no model.
- ours + model: the same, with a model configured: the local Messages API stand-in (tests/support/
  fake_anthropic.py, the real `anthropic` client pointed at it by ANTHROPIC_BASE_URL), answering `point_at` as
  a plain reader would (the snapshot line that shares most words with the fingerprint, of its role). The model
  is asked only when no locator and no fingerprint match is clear; the column says how often it was.
- Playwright codegen: what `playwright codegen` writes for this form (get_by_label(...).fill / select_option /
  check / set_input_files, get_by_role("button", name="Place order").click()), with Playwright for Python on
  Debian's chromium. Timeout 3 s per action (codegen's default is 30 s: the outcome is the same, slower).
- Chrome Recorder: the recording Chrome's Recorder makes (each step's selector list: aria/Name, #id, an
  XPath, pierce/#id, text/ for buttons; click + change for fields), replayed with @puppeteer/replay 3 on
  puppeteer-core (bench/heal.mjs), one cold node process per replay; 3 s per step. The Recorder records no
  file upload: a customStep uploads through the step's selectors.

Run: `.venv/bin/python bench/heal.py [--kinds a,b] [--json]`. Needs node (bench/node_modules from
bench/package.json, installed on first use) and `pip install playwright` with /usr/bin/chromium. Prints the
table and the totals; exit status 0 when every side ran (whatever the outcomes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))

from tests.support.heal_site import KINDS, SLIDER_AT, TARGETS, VALUES, HealSite, big_form_page, our_flow  # noqa: E402
from tests.support.server import LocalServer, Response  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]
STEP_TIMEOUT_MS = 3000
SIDES = ("ours", "model", "playwright", "recorder")
HEADERS = {"ours": "BrowserPilot (ours)", "model": "ours + model stand-in", "playwright": "Playwright codegen",
           "recorder": "Chrome Recorder + @puppeteer/replay"}
SETTLE_S = 1.5  # after a flow ends, how long the server may still receive what it sent


def verdict_after(site: HealSite) -> tuple[str, str]:
    """The server's verdict, once what the flow sent has landed (or SETTLE_S passed)."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline and not (site.orders or site.subscriptions):
        time.sleep(0.05)
    time.sleep(0.2)  # a second order, if one was sent
    return site.verdict()


# -- ours ----------------------------------------------------------------------------------------------------------
def stand_in_model(request: dict[str, Any]) -> Any:
    """The model stand-in's answer to page_heal_model: the ref of the snapshot line that shares most words with
    the recorded element's fingerprint (its role counting double), or none when no line shares a word."""
    from tests.support.fake_anthropic import Reply, tool

    asked = request["messages"][0]["content"][0]["text"]
    step_text, _, outline = asked.partition("\n\nPage now:\n")
    fingerprint = json.loads(step_text.removeprefix("Step: ")).get("fingerprint") or {}
    words: set[str] = set()

    def collect(value: Any) -> None:
        if isinstance(value, str):
            words.update(w for w in re.findall(r"[a-z0-9]+", value.lower()) if len(w) > 2)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    collect(fingerprint)
    role = str(fingerprint.get("role") or "")
    best, best_score = None, 0
    for line in outline.splitlines():
        found = re.search(r"\[ref=(e\d+)\]", line)
        if not found:
            continue
        score = len(words & set(re.findall(r"[a-z0-9]+", line.lower()))) + (2 if role and f"- {role} " in line else 0)
        if score > best_score:
            best, best_score = found.group(1), score
    return Reply([tool("point_at", ref=best, reason=f"{best_score} words in common" if best else "nothing like it")])


def run_ours(site: HealSite, kinds: Sequence[str], upload: str, work: Path,
             passes: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """Our side, in one app: pass "ours" without a model, pass "model" with the stand-in configured (by the
    environment, which the app reads each time it would ask)."""
    from tests.support.fake_anthropic import FakeAnthropic

    with FakeAnthropic([stand_in_model] * 1000) as fake:
        def configure(pass_name: str) -> Callable[[], int] | None:
            for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
                os.environ.pop(name, None)
            if pass_name != "model":
                return None
            os.environ.update({"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "bench-key"})
            return lambda: len(fake.requests)

        saved = {name: os.environ.get(name) for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}
        try:
            return _run_ours(site, kinds, upload, work, passes, configure)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _run_ours(site: HealSite, kinds: Sequence[str], upload: str, work: Path, passes: Sequence[str],
              configure: Callable[[str], Callable[[], int] | None]) -> dict[str, dict[str, dict[str, Any]]]:
    from app.startup.qt_asyncio import run_in_qt

    every: dict[str, dict[str, dict[str, Any]]] = {}

    async def main() -> None:
        from app.wiring.shell import BrowserPilotApp
        from plumbing.datadir import DataDir

        shell = BrowserPilotApp(DataDir(work / "app-data"), headless=True)
        shell.start([])
        try:
            async def op(name: str, params: dict[str, Any]) -> dict[str, Any]:
                return await asyncio.wait_for(shell.registry.call(shell.ctx, name, params), 120)

            tab = (await op("tab_open", {"url": "about:blank"}))["tabId"]
            site.reset("same")
            assert (await op("page_navigate", {"tabId": tab, "url": site.url}))["ok"]
            locators = {}
            for key, selector in TARGETS.items():
                found = await op("page_inspect", {"tabId": tab, "locator": {"selector": selector}})
                assert found["ok"], found
                locators[key] = found["locator"]
            document = our_flow("Order tea", site.url, locators, upload)
            (work / "ours.json").write_text(json.dumps(document, indent=1))
            for pass_name in passes:
                every[pass_name] = await replay_all(op, tab, document, configure(pass_name))
            await time_a_big_page(op, tab, document)
        finally:
            shell.shutdown()

    async def replay_all(op: Callable[[str, dict[str, Any]], Any], tab: str, document: dict[str, Any],
                         model_asked: Callable[[], int] | None) -> dict[str, dict[str, Any]]:
        results: dict[str, dict[str, Any]] = {}
        for kind in kinds:
            site.reset(kind)
            asked_before = model_asked() if model_asked else 0
            began = time.perf_counter()
            result = await op("workflow_run", {"workflow": document, "tabId": tab})
            ms = (time.perf_counter() - began) * 1000
            verdict, why = await asyncio.to_thread(verdict_after, site)
            trace = (result.get("run") or {}).get("trace") or []
            healed = [e for e in trace if e.get("healed")]
            error = next((e.get("error") for e in trace if e.get("error")), None) or result.get("error")
            results[kind] = {"verdict": verdict, "why": why or (error or "")[:300], "ms": ms,
                             "healed": len(healed), "runOk": bool(result.get("ok"))}
            if model_asked is not None:
                results[kind]["asked"] = model_asked() - asked_before
                results[kind]["byModel"] = sum(1 for e in healed if (e.get("healed") or {}).get("byModel"))
            print(f"ours{' + model' if model_asked else ''} {kind}: {verdict} {why} ({len(healed)} healed)",
                  file=sys.stderr, flush=True)
        return results

    async def time_a_big_page(op: Callable[[str, dict[str, Any]], Any], tab: str, document: dict[str, Any]) -> None:
        """How long one healing look takes on a page of 1500 look-alike fields (best of three)."""
        site.server.route("/big", lambda request: Response(big_form_page()))
        assert (await op("page_navigate", {"tabId": tab, "url": site.server.url("/big")}))["ok"]
        step = next(n for n in document["workflow"]["graph"]["nodes"] if n["data"].get("locator", {}).get("fingerprint"))
        took = []
        for _ in range(3):
            began = time.perf_counter()
            found = await op("page_find", {"tabId": tab, "locators": [], "fingerprint": step["data"]["locator"]["fingerprint"]})
            took.append(time.perf_counter() - began)
            assert found["ok"], found
        print(f"page_find on a page of 1500 fields: {min(took) * 1000:.0f} ms (best of 3)", flush=True)

    run_in_qt(main)
    return every


# -- Playwright codegen -----------------------------------------------------------------------------------------------
def codegen_flow(page: Any, url: str, upload: str) -> None:
    """What `playwright codegen` writes for the flow on the unchanged form."""
    page.goto(url)
    page.get_by_label("Full name").click()
    page.get_by_label("Full name").fill(VALUES["fullname"])
    page.get_by_label("Email").click()
    page.get_by_label("Email").fill(VALUES["email"])
    page.get_by_label("Size").select_option(VALUES["size"])
    page.get_by_label("Gift wrap").check()
    page.get_by_label("Note for the courier").click()
    page.get_by_label("Note for the courier").fill(VALUES["note"])
    page.get_by_label("Attachment").set_input_files(upload)
    page.get_by_label("Quantity").fill("80")
    page.get_by_role("button", name="Place order").click()


def run_playwright(site: HealSite, kinds: Sequence[str], upload: str) -> dict[str, dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    results: dict[str, dict[str, Any]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            for kind in kinds:
                site.reset(kind)
                page = browser.new_page()
                page.set_default_timeout(STEP_TIMEOUT_MS)
                began = time.perf_counter()
                error = ""
                try:
                    codegen_flow(page, site.url, upload)
                except Exception as exc:  # the flow's failure is the result
                    error = str(exc).splitlines()[0]
                ms = (time.perf_counter() - began) * 1000
                verdict, why = verdict_after(site)
                page.close()
                results[kind] = {"verdict": verdict, "why": error[:300] or why, "ms": ms}
                print(f"playwright {kind}: {verdict} {why} {error[:300]}", file=sys.stderr, flush=True)
        finally:
            browser.close()
    return results


# -- Chrome Recorder + @puppeteer/replay --------------------------------------------------------------------------
def _selectors(target: str) -> list[list[str]]:
    """The selector list Chrome's Recorder writes for each element of the unchanged form."""
    by_id = {"fullname": ("Full name", "f-fullname"), "email": ("Email", "f-email"), "size": ("Size", "f-size"),
             "note": ("Note for the courier", "f-note"), "doc": ("Attachment", "f-doc"), "qty": ("Quantity", "f-qty"),
             "place": ("Place order", "f-place")}
    if target == "gift":  # no id: the Recorder falls back to a structural CSS path
        return [["aria/Gift wrap"], ["div:nth-of-type(4) input"],
                ["xpath///*[@id=\"f-order\"]/div[4]/label/input"], ["pierce/div:nth-of-type(4) input"]]
    name, ident = by_id[target]
    out = [[f"aria/{name}"], [f"#{ident}"], [f"xpath///*[@id=\"{ident}\"]"], [f"pierce/#{ident}"]]
    if target == "place":
        out.append([f"text/{name}"])
    return out


def recorder_recording(url: str, upload: str) -> dict[str, Any]:
    """The Chrome DevTools Recorder recording of the flow on the unchanged form."""
    def click(target: str) -> dict[str, Any]:
        return {"type": "click", "target": "main", "selectors": _selectors(target), "offsetX": 10, "offsetY": 8}

    def change(target: str, value: str) -> dict[str, Any]:
        return {"type": "change", "target": "main", "selectors": _selectors(target), "value": value}

    steps: list[dict[str, Any]] = [
        {"type": "setViewport", "width": 1280, "height": 900, "deviceScaleFactor": 1, "isMobile": False,
         "hasTouch": False, "isLandscape": False},
        {"type": "navigate", "url": url, "assertedEvents": [{"type": "navigation", "url": url, "title": "Tea shop"}]},
        click("fullname"), change("fullname", VALUES["fullname"]),
        click("email"), change("email", VALUES["email"]),
        change("size", VALUES["size"]),
        click("gift"),
        click("note"), change("note", VALUES["note"]),
        {"type": "customStep", "name": "upload", "parameters": {
            "selectors": [s[0] for s in _selectors("doc")],   # raced, as the stock steps race theirs
            "paths": [upload]}},
        change("qty", "80"),
        {**click("place"), "assertedEvents": [{"type": "navigation", "url": url.replace("/form", "/order"),
                                               "title": "Thanks"}]},  # the Recorder notes the click's navigation
    ]
    return {"title": "Order tea", "timeout": STEP_TIMEOUT_MS, "steps": steps}


def ensure_node_packages() -> None:
    if (BENCH / "node_modules" / "@puppeteer" / "replay").exists() and (BENCH / "node_modules" / "puppeteer-core").exists():
        return
    print("installing @puppeteer/replay and puppeteer-core into bench/node_modules ...", file=sys.stderr, flush=True)
    subprocess.run(["npm", "install", "--no-package-lock", "--no-audit", "--no-fund"], cwd=BENCH, check=True,
                   env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"})


def run_recorder(site: HealSite, kinds: Sequence[str], upload: str, work: Path) -> dict[str, dict[str, Any]]:
    ensure_node_packages()
    results: dict[str, dict[str, Any]] = {}
    spec_path = work / "recorder-spec.json"
    spec_path.write_text(json.dumps({"chromium": CHROMIUM, "args": CHROMIUM_FLAGS, "timeoutMs": STEP_TIMEOUT_MS,
                                     "recording": recorder_recording(site.url, upload)}))
    for kind in kinds:
        site.reset(kind)
        done = subprocess.run(["node", str(BENCH / "heal.mjs"), str(spec_path)], capture_output=True, text=True,
                              timeout=180, env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})
        try:
            out = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            out = {"ok": False, "error": f"node exited {done.returncode}: {done.stderr.strip()[-300:]}", "ms": 0}
        verdict, why = verdict_after(site)
        results[kind] = {"verdict": verdict, "why": str(out.get("error") or why)[:300], "ms": out.get("ms", 0)}
        print(f"recorder {kind}: {verdict} {why} {str(out.get('error') or '')[:300]}", file=sys.stderr, flush=True)
    return results


# -- the table -------------------------------------------------------------------------------------------------------
def table(kinds: Sequence[str], results: dict[str, dict[str, dict[str, Any]]]) -> str:
    def cell(side: str, kind: str) -> str:
        r = results[side][kind]
        notes = [f"{r['healed']} healed"] if r.get("healed") else []
        if side == "model" and "asked" in r:
            notes.append(f"model asked {r['asked']}×, {r.get('byModel', 0)} by it" if r["asked"] else "model not asked")
        return r["verdict"] + (f" ({', '.join(notes)})" if notes else "")

    lines = ["| kind of change | " + " | ".join(HEADERS[side] for side in SIDES) + " |",
             "|---|" + "---|" * len(SIDES)]
    for kind in kinds:
        lines.append(f"| {kind} | " + " | ".join(cell(side, kind) for side in SIDES) + " |")
    totals = []
    for side in SIDES:
        verdicts = [results[side][k]["verdict"] for k in kinds]
        ok, wrong = verdicts.count("ok"), verdicts.count("wrong")
        ran = all(v != "-" for v in verdicts)
        totals.append(f"**{ok}/{len(kinds)} ok ({100 * ok / len(kinds):.0f}%), {wrong} wrong**" if ran else "not run")
    lines.append("| **total** | " + " | ".join(totals) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (default: all)")
    parser.add_argument("--sides", default=",".join(SIDES), help="comma-separated sides: ours, model, playwright, recorder (default: all)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON after the table")
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    sides = [s for s in args.sides.split(",") if s]
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bp-heal-") as tmp, LocalServer() as server:
        work = Path(tmp)
        upload = work / VALUES["doc_name"]
        upload.write_bytes(VALUES["doc_bytes"])
        site = HealSite(server)
        runners: dict[str, Callable[[], dict[str, dict[str, Any]]]] = {
            "playwright": lambda: run_playwright(site, kinds, str(upload)),
            "recorder": lambda: run_recorder(site, kinds, str(upload), work),
        }
        ours = [side for side in sides if side in ("ours", "model")]
        results = run_ours(site, kinds, str(upload), work, ours) if ours else {}
        results.update({side: runners[side]() for side in sides if side in runners})
    for side in SIDES:
        results.setdefault(side, {k: {"verdict": "-", "why": "not run"} for k in kinds})
    print(table(kinds, results))
    print(f"\nslider: ours clicks at {SLIDER_AT:.0%} of its width; the peers set 80; the server accepts 70-90. "
          f"{time.perf_counter() - began:.0f} s in all.")
    if args.json:
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
