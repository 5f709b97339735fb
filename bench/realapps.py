"""Real applications, recorded by a person's real X input, replayed across their own redesigns.

Per application of the corpus (bench/realapps/<app>/, bench/realapps/README.md): a person's flow (create a
record with several kinds of field, submit) is played with real mouse and keyboard input (Xvfb + xdotool;
tests/support/xinput.py) on the application's recorded variant, three times, once per tool:

- ours: in BrowserPilot's own environment window, recording (record_start … record_stop, what the Record
  button does); the saved workflow replayed headless as `browserpilot run FILE --headless --json`;
- Playwright codegen: the real `playwright codegen --target python` (Playwright's own recorder and locator
  generator, its inspector window included) on Debian's chromium; the script it wrote replayed by Playwright
  for Python, headless;
- Chrome Recorder: Chrome DevTools' own Recorder client (its injected recording script, built from the
  chrome-devtools-frontend package, with the Recorder panel's session logic ported step for step; see
  bench/realapps/chrome_recorder.mjs) in Debian's chromium; the recording replayed by @puppeteer/replay.

Each recording is then replayed on every variant of the application (the recorded one and its redesigns:
other major versions, other themes), each on fresh data, and judged by the application's own database:
- ok: exactly one new record, every field as the person entered it, and the tool said it succeeded;
- failed: nothing created and the tool said it failed;
- wrong: a record with a wrong value, more than one record, or a changed existing record;
- lost: the tool said it succeeded and nothing was created.
plus the healed steps (ours) and the seconds the replay took.

    .venv/bin/python bench/realapps.py [--apps a,b] [--tools ours,playwright,recorder] [--checkout DIR]
                                       [--json FILE] [--keep DIR]

Needs: the corpus installed (`python bench/realapps/corpus.py install`), Xvfb/openbox/xdotool (./dev.sh setup),
Debian's chromium, `pip install playwright` (never `playwright install`), node with bench/node_modules (npm
install in bench/, done on first use). `--checkout DIR` measures another checkout's `.venv/bin/browserpilot`.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.realapps import ours  # noqa: E402
from bench.realapps.corpus import APP_MODULES, App, Variant, load  # noqa: E402
from bench.realapps.judge import judge, rebase, settle  # noqa: E402
from tests.support.xinput import Screen, missing_tools  # noqa: E402

TOOLS = ("ours", "playwright", "recorder")
RECORD_ATTEMPTS = 2
HEADERS = {"ours": "BrowserPilot", "playwright": "Playwright codegen", "recorder": "Chrome Recorder"}
log = logging.getLogger("realapps")


@dataclass
class Outcome:
    app: str
    variant: str
    tool: str
    verdict: str          # ok | failed | wrong | lost | not recorded
    seconds: float = 0.0
    healed: int = 0
    tool_ok: bool = False
    why: str = ""
    created: list[dict[str, Any]] = field(default_factory=list)


def origins(server: Any) -> dict[str, str]:
    found = {"app": server.base}
    inner = getattr(server, "inner", None)
    if inner is not None:
        found["inner"] = inner.base
    return found


# -- one application ---------------------------------------------------------------------------------------------------
class Bench:
    def __init__(self, checkout: ours.Checkout, tools: Sequence[str], keep: Path | None) -> None:
        self.checkout = checkout
        self.tools = tools
        self.keep = keep
        self.seeds: dict[tuple[str, str], Path] = {}

    def seed(self, app: App, variant: Variant, work: Path, root: Path) -> None:
        """Fresh data in `work`: seeded once per variant, then copied (a run never sees another's writes)."""
        key = (app.name, variant.name)
        if key not in self.seeds:
            seeded = root / "seeds" / variant.name
            seeded.mkdir(parents=True)
            app.seed(variant, seeded)
            self.seeds[key] = seeded
        shutil.copytree(self.seeds[key], work, dirs_exist_ok=True)

    def say(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def run_app(self, app: App, root: Path) -> list[Outcome]:
        outcomes: list[Outcome] = []
        recordings: dict[str, Any] = {}
        recorded_origins: dict[str, dict[str, str]] = {}  # per tool: each records on fresh data of its own
        variant = app.recorded
        for tool in self.tools:
            failure: Exception | None = None
            for attempt in range(1, RECORD_ATTEMPTS + 1):  # the person's own slip (a lost focus) is not the tool's
                self.say(f"[{app.name}] {HEADERS[tool]} records on {variant.name} (attempt {attempt})")
                work = root / f"record-{tool}-{attempt}"
                work.mkdir(parents=True)
                self.seed(app, variant, work, root)
                try:
                    with app.start(variant, work) as server, Screen(work / "screen") as screen:
                        recorded_origins[tool] = origins(server)
                        recordings[tool] = self.record(tool, app, server, screen, work)
                    failure = None
                    break
                except Exception as exc:  # a recording that failed twice is a result too
                    traceback.print_exc()
                    recordings[tool], failure = None, exc
            if failure is not None:
                for v in app.variants:
                    outcomes.append(Outcome(app.name, v.name, tool, "not recorded",
                                            why=f"{type(failure).__name__}: {str(failure)[:300]}"))
        if self.keep:
            for tool, recording in recordings.items():
                if recording is not None:
                    (self.keep / f"{app.name}.{tool}.{'py' if tool == 'playwright' else 'json'}").write_text(
                        recording if isinstance(recording, str) else json.dumps(recording, indent=1))
        for replay_variant in app.variants:
            for tool in self.tools:
                if recordings.get(tool) is None:
                    continue
                folder = root / f"{replay_variant.name}-{tool}"
                folder.mkdir()
                self.seed(app, replay_variant, folder, root)
                outcome = self.replay(tool, app, replay_variant, recordings[tool], recorded_origins[tool], folder)
                self.say(f"[{app.name}] {replay_variant.name} {HEADERS[tool]}: {outcome.verdict} "
                         f"({outcome.seconds:.1f} s, {outcome.healed} healed) {outcome.why[:300]}")
                outcomes.append(outcome)
        return outcomes

    def record(self, tool: str, app: App, server: Any, screen: Screen, folder: Path) -> Any:
        steps = app.flow(server.base)
        start = app.start_url(server)
        if tool == "ours":
            return ours.record(self.checkout, screen, start, server.base, steps, folder, self.say)
        if tool == "playwright":
            from bench.realapps import codegen
            return codegen.record(screen, start, server.base, steps, folder, self.say)
        from bench.realapps import chrome_recorder
        return chrome_recorder.record(screen, start, server.base, steps, folder, self.say)

    def replay(self, tool: str, app: App, variant: Variant, recording: Any, recorded: dict[str, str],
               folder: Path) -> Outcome:
        try:
            server = app.start(variant, folder)
        except Exception as exc:
            return Outcome(app.name, variant.name, tool, "not run", why=f"the app did not start: {exc}"[:300])
        with server:
            before = app.records(variant, folder)
            now = origins(server)
            try:
                if tool == "ours":
                    text = rebase(json.dumps(recording), recorded, now)
                    path = folder / "workflow.json"
                    path.write_text(text)
                    result = ours.replay(self.checkout, path, folder, inputs=secret_inputs(app, recording))
                elif tool == "playwright":
                    from bench.realapps import codegen
                    result = codegen.replay(rebase(recording, recorded, now), folder)
                else:
                    from bench.realapps import chrome_recorder
                    result = chrome_recorder.replay(json.loads(rebase(json.dumps(recording), recorded, now)), folder)
            except Exception as exc:  # the harness's own failure, reported as such
                traceback.print_exc()
                result = {"ok": False, "error": f"harness: {type(exc).__name__}: {exc}", "seconds": 0.0}
            after = settle(app, variant, folder, before)
        verdict, why, created = judge(app, before, after, bool(result.get("ok")), str(result.get("error") or ""))
        return Outcome(app.name, variant.name, tool, verdict, round(float(result.get("seconds", 0.0)), 1),
                       int(result.get("healed") or 0), bool(result.get("ok")), why[:600], created)


def secret_inputs(app: App, document: dict[str, Any]) -> dict[str, str]:
    """What the person gives a run: the value of each secret start variable (the application's password)."""
    start = next((n for n in document["workflow"]["graph"]["nodes"] if n["data"]["type"] == "start"), None)
    secret = getattr(app, "password", None)
    variables = (start or {}).get("data", {}).get("variables") or []
    return {v["variable"]: secret for v in variables if v.get("type") == "secret" and secret}


# -- the table -------------------------------------------------------------------------------------------------------
def table(outcomes: list[Outcome], tools: Sequence[str]) -> str:
    lines = ["| application | variant | " + " | ".join(HEADERS[t] for t in tools) + " |",
             "|---|---|" + "---|" * len(tools)]
    keys: list[tuple[str, str]] = []
    for outcome in outcomes:
        if (outcome.app, outcome.variant) not in keys:
            keys.append((outcome.app, outcome.variant))
    index = {(o.app, o.variant, o.tool): o for o in outcomes}
    for app_name, variant in keys:
        recorded = load(app_name).recorded.name == variant
        cells = []
        for tool in tools:
            o = index.get((app_name, variant, tool))
            if o is None:
                cells.append("-")
                continue
            notes = [f"{o.seconds:.1f} s"] if o.verdict not in ("not recorded", "not run") else []
            if o.healed:
                notes.append(f"{o.healed} healed")
            cells.append(f"{o.verdict}" + (f" ({', '.join(notes)})" if notes else ""))
        lines.append(f"| {app_name} | {variant}{' (recorded)' if recorded else ''} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| totals | " + " | ".join(HEADERS[t] for t in tools) + " |")
    lines.append("|---|" + "---|" * len(tools))

    def count(tool: str, which: Callable[[Outcome], bool]) -> str:
        mine = [o for o in outcomes if o.tool == tool and which(o)]
        ok = sum(o.verdict == "ok" for o in mine)
        return f"{ok}/{len(mine)}" + (f" ({100 * ok / len(mine):.0f} %)" if mine else "")

    def is_recorded(o: Outcome) -> bool:
        return load(o.app).recorded.name == o.variant

    lines.append("| ok on the recorded variant | " + " | ".join(count(t, is_recorded) for t in tools) + " |")
    lines.append("| ok across redesigns | " + " | ".join(count(t, lambda o: not is_recorded(o)) for t in tools) + " |")
    lines.append("| ok in all | " + " | ".join(count(t, lambda o: True) for t in tools) + " |")
    for verdict in ("failed", "wrong", "lost", "not recorded"):
        lines.append(f"| {verdict} | " + " | ".join(str(sum(o.tool == t and o.verdict == verdict for o in outcomes))
                                                     for t in tools) + " |")
    healed = " | ".join(str(sum(o.healed for o in outcomes if o.tool == t)) for t in tools)
    lines.append(f"| healed steps | {healed} |")
    seconds = []
    for tool in tools:
        times = sorted(o.seconds for o in outcomes if o.tool == tool and o.verdict == "ok")
        seconds.append(f"{times[len(times) // 2]:.1f} s" if times else "-")
    lines.append("| median seconds of an ok replay | " + " | ".join(seconds) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", default=",".join(APP_MODULES), help="comma-separated applications (default: all)")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated: ours, playwright, recorder")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the BrowserPilot checkout to measure "
                        "(its .venv/bin/browserpilot; default: this one)")
    parser.add_argument("--json", type=Path, help="also write every outcome as JSON here")
    parser.add_argument("--keep", type=Path, help="keep the recordings (and each run's folder) here")
    parser.add_argument("--table", type=Path, nargs="+", metavar="JSON",
                        help="only print the table of earlier runs' --json files (one bench split over runs)")
    args = parser.parse_args(argv)
    if args.table:
        tools = [t for t in args.tools.split(",") if t]
        latest = {(o["app"], o["variant"], o["tool"]): Outcome(**o)  # a later file's outcome replaces an earlier
                  for path in args.table for o in json.loads(path.read_text())}
        print(table(list(latest.values()), tools))
        return 0
    logging.basicConfig(level=logging.WARNING)
    # SIGTERM unwinds like Ctrl-C: every server, screen and browser started so far is stopped by its pid
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if missing_tools():
        raise SystemExit(f"missing: {', '.join(missing_tools())} (./dev.sh setup installs them)")
    checkout = ours.Checkout(args.checkout.resolve())
    tools = [t for t in args.tools.split(",") if t]
    if "ours" in tools:
        checkout.check()
    began = time.monotonic()
    outcomes: list[Outcome] = []
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    bench = Bench(checkout, tools, args.keep)
    for name in [a for a in args.apps.split(",") if a]:
        app = load(name)
        root = Path(tempfile.mkdtemp(prefix=f"bp-realapps-{name}-", dir=args.keep))
        try:
            outcomes += bench.run_app(app, root)
        finally:
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
        if args.json:
            args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    print(table(outcomes, tools))
    print(f"\n{time.monotonic() - began:.0f} s in all; checkout {checkout.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
