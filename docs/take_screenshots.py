"""Take the screenshots of README.md and docs/screenshots.md from the real app, in light and dark (and a few in
Chinese).

    .venv/bin/python docs/take_screenshots.py            # everything (about 3 minutes)
    .venv/bin/python docs/take_screenshots.py light      # only some of: light dark zh_CN

Needs `Xvfb`, `xdotool` and ImageMagick's `import` (apt-get install xvfb xdotool imagemagick; `pngquant` and
`optipng`, when installed, shrink the PNGs). When there is no DISPLAY, a virtual one (Xvfb, 1280x800) is
started and stopped again.

For each theme it makes a scratch data folder (three environments, four workflows), serves the demo shop in
docs/screenshot_site/ on 127.0.0.1 (nothing leaves the machine) and a local stand-in of the Messages API
(tests/support/fake_anthropic.py, named by ANTHROPIC_BASE_URL) for the agent, starts the `browserpilot`
executable of this venv with BROWSERPILOT_THEME (and BROWSERPILOT_LANG) set, and drives it the way an agent
does: operations through its MCP endpoint (app.mcp.client.forward_operation), keys and clicks through xdotool.
Each window is captured with `import -window` into docs/screenshots/<window>-<state>-<theme>.png.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.mcp.client import forward_operation, wait_for_endpoint  # noqa: E402  (plain Python, no Qt)
from plumbing.datadir import DataDir  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic, Reply, text, tool  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SITE = ROOT / "docs" / "screenshot_site"
BIN = Path(sys.executable).with_name("browserpilot")
SIZE = (1280, 800)
WIDE = (1280, 760)


def node(id_: str, x: int, y: int, **data: Any) -> dict[str, Any]:
    return {"id": id_, "position": {"x": x, "y": y}, "data": data}


def workflow(name: str, nodes: list[dict[str, Any]], edges: list[tuple[str, str]] | None = None,
             description: str = "") -> dict[str, Any]:
    """A 0.3.0 workflow document; edges default to a chain through the nodes in order."""
    pairs = edges or [(a["id"], b["id"]) for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow", "description": description},
            "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {
                "nodes": nodes, "edges": [{"source": s, "target": t} for s, t in pairs]}}}


def demo_workflows(site: str) -> list[dict[str, Any]]:
    """The demo shop's workflows: the first waits for the slow orders table, so a run can be caught mid-way."""
    export = workflow("Export shop orders", [
        node("start", 0, 0, type="start", title="Start"),
        node("orders", 230, 0, type="goto", title="Orders page", url=f"{site}/orders.html"),
        node("table", 460, 0, type="wait", title="Wait for the table", locator={"selector": "#orders"},
             state="appear", timeout=30),
        node("rows", 700, 0, type="extract", title="Order numbers", variable_selector=["sys", "title"],
             pattern="Orders"),
        node("csv", 940, 0, type="click", title="Export CSV", locator={"selector": "#export"}),
        node("end", 1180, 0, type="end", title="End", outputs=[{"variable": "page", "value_selector": ["rows", "value"]}]),
    ], [("start", "orders"), ("orders", "table"), ("table", "rows"), ("rows", "csv"), ("csv", "end")],
        "Waits for the orders table, reads it, exports the CSV")
    sign_in = workflow("Sign in to the shop", [
        node("start", 0, 0, type="start", title="Start", variables=[{"variable": "email", "label": "Email",
                                                                      "type": "text-input"}]),
        node("open", 240, 0, type="goto", title="Sign-in page", url=f"{site}/index.html"),
        node("email", 480, 0, type="fill", title="Email", locator={"selector": "#email"}, text="{{#input.email#}}"),
        node("password", 720, 0, type="fill", title="Password", locator={"selector": "#password"}, text="secret"),
        node("end", 960, 0, type="end", title="End"),
    ], description="Fills the sign-in form of the demo shop")
    prices = workflow("Check product prices", [
        node("start", 0, 0, type="start", title="Start"),
        node("open", 240, 0, type="goto", title="Products", url=f"{site}/products.html"),
        node("price", 480, 0, type="extract", title="First price", variable_selector=["sys", "title"],
             pattern="Products"),
        node("end", 720, 0, type="end", title="End", outputs=[{"variable": "price", "value_selector": ["price", "value"]}]),
    ], description="Reads the first price on the products page")
    broken = workflow("Find the basket", [
        node("start", 0, 0, type="start", title="Start"),
        node("open", 240, 0, type="goto", title="Products", url=f"{site}/products.html"),
        node("basket", 480, 0, type="wait", title="Basket button", locator={"selector": "#basket"}, state="appear",
             timeout=2),
        node("end", 720, 0, type="end", title="End"),
    ], description="Fails on purpose: the demo shop has no basket")
    return [export, sign_in, prices, broken]


# -- X display and windows --------------------------------------------------------------------------------
def x(*args: str, check: bool = True) -> str:
    done = subprocess.run(["xdotool", *args], capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"xdotool {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def find_window(name: str, timeout: float = 30.0, required: bool = True) -> str:
    """The newest visible window whose title matches the regular expression `name` ("" when not `required`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ids = x("search", "--onlyvisible", "--name", name, check=False).split()
        if ids:
            return ids[-1]
        time.sleep(0.3)
    if not required:
        return ""
    titles = [x("getwindowname", w, check=False) for w in x("search", "--onlyvisible", "--name", ".", check=False).split()]
    raise RuntimeError(f"no window named {name!r}; visible: {titles}")


def show(window: str, size: tuple[int, int] | None = SIZE) -> None:
    """Bring the window to the top-left, at `size`, with the keyboard focus (there is no window manager)."""
    x("windowmove", window, "0", "0")
    if size:
        x("windowsize", window, str(size[0]), str(size[1]))
    x("windowraise", window)
    x("windowfocus", "--sync", window, check=False)
    time.sleep(0.5)  # let the raise and a resize settle before input arrives


def click(window: str, px: int, py: int) -> None:
    x("mousemove", "--window", window, str(px), str(py))
    x("click", "1")


def keys(window: str, *combo: str) -> None:
    x("windowfocus", "--sync", window, check=False)
    for key in combo:
        x("key", "--clearmodifiers", key)


def capture(window: str, name: str, settle: float = 1.2) -> Path:
    """Save the window (after `settle` seconds for paint and animations) as docs/screenshots/<name>.png."""
    time.sleep(settle)
    path = OUT / f"{name}.png"
    subprocess.run(["import", "-window", window, str(path)], check=True)
    print("wrote", path.relative_to(ROOT), flush=True)
    return path


def optimise(paths: list[Path]) -> None:
    if shutil.which("pngquant"):
        subprocess.run(["pngquant", "--force", "--skip-if-larger", "--ext", ".png", "--quality", "70-95",
                        *map(str, paths)], check=False)
    if shutil.which("optipng"):
        subprocess.run(["optipng", "-quiet", "-o2", *map(str, paths)], check=False)


# -- one app session --------------------------------------------------------------------------------------
class Session:
    """The real app on a scratch data folder, in one theme and language."""

    def __init__(self, theme: str, lang: str, site: str, agent_url: str) -> None:
        self.theme, self.lang, self.site = theme, lang, site
        self.suffix = theme if lang == "en" else f"{lang}-{theme}"
        self.root = Path(tempfile.mkdtemp(prefix="browserpilot-demo-"))
        self.data = DataDir(self.root / "data")
        self.env = {**os.environ, "BROWSERPILOT_THEME": theme, "BROWSERPILOT_LANG": lang,
                    "ANTHROPIC_BASE_URL": agent_url, "ANTHROPIC_API_KEY": "stand-in", "QTWEBENGINE_DISABLE_SANDBOX": "1"}
        self.env.pop("QT_QPA_PLATFORM", None)
        self.app: subprocess.Popen[bytes] | None = None
        self.shots: list[Path] = []

    def cli(self, *args: str) -> None:
        subprocess.run([str(BIN), "--data-dir", str(self.data.root), *args], check=True, capture_output=True,
                       env=self.env)

    def seed(self) -> None:
        names = ENV_NAMES[self.lang]
        self.cli("env", "rename", "env-default", names[0][0])
        for name, remark in names[1:]:
            self.cli("env", "create", name, "--remark", remark)
        for document in demo_workflows(self.site):
            path = self.root / f"{document['app']['name']}.json"
            path.write_text(json.dumps(document), "utf-8")
            self.cli("workflow", "import", str(path))

    def start(self) -> None:
        log = open(self.root / "app.log", "wb")
        self.app = subprocess.Popen([str(BIN), "--data-dir", str(self.data.root)], env=self.env, stdout=log,
                                    stderr=subprocess.STDOUT)
        wait_for_endpoint(self.data, 90)

    def stop(self) -> None:
        if self.app is not None:
            if self.app.poll() is not None:
                print(f"the app had ended by itself (exit status {self.app.returncode}); see {self.root}/app.log")
            self.app.terminate()
            try:
                self.app.wait(30)
            except subprocess.TimeoutExpired:
                self.app.kill()
                self.app.wait(10)

    def op(self, name: str, /, **params: Any) -> dict[str, Any]:
        result = forward_operation(self.data, name, params, timeout=60)
        if not result.get("ok", False) and name not in ("workflow_run", "agent_run"):
            raise RuntimeError(f"{name} failed: {result}")
        return result

    def shot(self, window: str, name: str, settle: float = 1.2) -> None:
        self.shots.append(capture(window, f"{name}-{self.suffix}", settle))

    def env_id(self, name: str) -> str:
        envs = self.op("env_list")["environments"]
        return next(e["id"] for e in envs if e["name"] == name)

    def in_background(self, name: str, /, **params: Any) -> threading.Thread:
        thread = threading.Thread(target=lambda: self.op(name, **params), daemon=True)
        thread.start()
        return thread


def wait_for(condition: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.2)


ENV_NAMES = {"en": [("Personal", ""), ("Work (Alice)", "alice@example.com — shop admin"),
                    ("Shop test account", "QA; resets nightly")],
             "zh_CN": [("个人", ""), ("工作 (Alice)", "alice@example.com — 店铺管理员"), ("商店测试账号", "QA；每晚重置")]}
PANEL_TABS = {"environments": 0, "workflows": 1, "schedules": 2, "runs": 3, "agent-runs": 4}


def main_window(s: Session) -> str:
    window = find_window("^BrowserPilot$")
    show(window)
    return window


def panel(s: Session, window: str, index: int) -> None:
    """Switch the main window's panels: a click on the panel's tab."""
    click(window, TAB_X[index], TAB_Y)
    time.sleep(0.3)


TAB_X = [70, 210, 330, 440, 550]
SETTINGS_BUTTON = (1258, 42)  # the main toolbar's gear, at its right end
TAB_Y = 78
ROW_Y = [185, 215, 245, 275]
AGENT_TASK, AGENT_URL, AGENT_START = (1000, 130), (1000, 201), (711, 236)
EDITOR_WAIT_NODE = (360, 390)
SIGN_IN_EMAIL, SIGN_IN_PASSWORD = (380, 313), (380, 391)


def scenes(s: Session, full: bool) -> None:
    s.seed()
    s.start()
    welcome = find_window("Welcome|欢迎")
    show(welcome, None)
    s.shot(welcome, "welcome")
    keys(welcome, "Escape")

    work_name = ENV_NAMES[s.lang][1][0]
    personal, work = "env-default", s.env_id(work_name)
    if not full:  # Chinese: the environment window (agent, handoff) and the main window
        tab = s.op("tab_open", env=work)["tabId"]
        s.op("page_navigate", tabId=tab, url=f"{s.site}/products.html")
        window = find_window(re.escape(work_name))
        show(window)
        s.shot(window, "env-window-agent")
        s.op("page_handoff", tabId=tab, message="请用你的安全密钥登录，然后点击完成")
        s.shot(window, "env-window-handoff")
        main = main_window(s)
        s.shot(main, "main-environments")
        # The editor's side panel in Chinese: every field's label and the undo text translated.
        s.op("editor_open", name="Export shop orders")
        editor = find_window("workflow editor|工作流编辑器")
        show(editor)
        click(editor, *EDITOR_WAIT_NODE)
        s.shot(editor, "editor-side-panel")
        return

    for name in ("Sign in to the shop", "Check product prices", "Find the basket"):
        s.op("workflow_run", name=name, inputs={"email": "alice@example.com"} if "Sign" in name else {},
             env=work if "prices" in name else personal)
    s.op("agent_run", task="Find the most expensive product", url=f"{s.site}/products.html")

    main = main_window(s)
    panel(s, main, PANEL_TABS["environments"])
    s.shot(main, "main-environments")
    panel(s, main, PANEL_TABS["runs"])
    click(main, 300, ROW_Y[0])
    s.shot(main, "main-runs")
    panel(s, main, PANEL_TABS["agent-runs"])
    s.shot(main, "main-agent-runs")

    # File → Settings and Data Folder… (the toolbar's gear): the settings, in a dialog that scrolls and fits the
    # screen.
    click(main, *SETTINGS_BUTTON)
    settings = find_window("^Settings$|^设置$")
    show(settings, None)
    s.shot(settings, "settings")
    keys(settings, "Escape")

    # The run form starts from the workflow's last inputs (the email of the run above; a secret would stay empty).
    main = main_window(s)
    panel(s, main, PANEL_TABS["workflows"])
    click(main, 80, ROW_Y[3])  # "Sign in to the shop"
    click(main, 280, 116)
    form = find_window("Run “|运行“")
    show(form, None)
    s.shot(form, "run-inputs")
    keys(form, "Escape")

    # A run started from the Workflows panel shows its progress strip there (Run… on the selected row).
    main = main_window(s)
    panel(s, main, PANEL_TABS["workflows"])
    click(main, 80, ROW_Y[1])  # "Export shop orders" (the rows are sorted by name)
    click(main, 280, 116)
    dialog = find_window("Run “|运行“", timeout=3.0, required=False)
    if dialog:
        keys(dialog, "Return")
    s.shot(main, "main-workflows", settle=3.0)
    wait_for(lambda: not any(r["status"] == "running" for r in s.op("run_list")["runs"]), 60, "the run to end")

    # An environment window: a tab under agent control, then a handoff, then shared.
    tab = s.op("tab_open", env=work)["tabId"]
    s.op("page_navigate", tabId=tab, url=f"{s.site}/products.html")
    window = find_window(re.escape(work_name))
    show(window)
    s.shot(window, "env-window-agent")
    s.op("page_handoff", tabId=tab, message="Please sign in with your security key, then press Done")
    s.shot(window, "env-window-handoff")
    s.op("page_unlock", tabId=tab)
    s.op("page_navigate", tabId=tab, url=f"{s.site}/orders.html?fast")
    s.shot(window, "env-window-shared", settle=2.0)

    # The downloads list, after a download.
    s.op("page_download", tabId=tab, locator={"selector": "#export"})
    keys(window, "ctrl+shift+y")
    s.shot(window, "env-window-downloads")
    keys(window, "ctrl+shift+y")

    # The agent panel, with a task the stand-in model answers (its steps appear as they come).
    keys(window, "ctrl+shift+a")
    time.sleep(1.0)
    click(window, *AGENT_TASK)
    x("type", "--delay", "20", "Find the most expensive product")
    click(window, *AGENT_URL)
    x("type", "--delay", "10", f"{s.site}/products.html")
    click(window, *AGENT_START)
    wait_for(lambda: len(s.op("agent_list")["runs"]) >= 2, 60, "the agent panel's run to end")
    s.shot(window, "env-window-agent-panel", settle=2.0)
    keys(window, "ctrl+shift+a")

    # The recorder's side panel with a few steps recorded from real input (xdotool clicks and keys).
    rec = s.op("tab_open", env=work)["tabId"]
    s.op("page_navigate", tabId=rec, url=f"{s.site}/index.html")
    s.op("page_unlock", tabId=rec)
    s.op("record_start", tabId=rec)
    show(window)
    for field, words in ((SIGN_IN_EMAIL, "alice@example.com"), (SIGN_IN_PASSWORD, "secret")):
        click(window, *field)
        x("type", "--delay", "30", words)
    click(window, *SIGN_IN_EMAIL)  # leaving the password field records it
    wait_for(lambda: len(s.op("record_status", tabId=rec).get("steps", [])) >= 3, 20, "three recorded steps")
    s.shot(window, "env-window-recording")
    # Closing the window while it records asks first: save the recording, discard it or keep recording.
    keys(window, "ctrl+shift+w")
    question = find_window("Close while recording|正在录制")
    show(question, None)
    s.shot(question, "env-window-close-recording")
    keys(question, "Escape")  # keep recording
    s.op("record_stop", tabId=rec, name="Sign in (recorded)", save=False)

    # The editor with a running workflow: the goto is done, the wait for the table is running.
    s.op("editor_open", name="Export shop orders")
    editor = find_window("workflow editor|工作流编辑器")
    show(editor)
    click(editor, *EDITOR_WAIT_NODE)  # its settings show on the right
    keys(editor, "F5")
    keys(find_window("Run “|运行“"), "Return")  # the run dialog: no inputs, environment Personal
    time.sleep(3.0)  # the goto is done, the wait for the slow table runs (9 s)
    show(editor)
    s.shot(editor, "editor-running")


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves docs/screenshot_site/ without a log line per request."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def main(argv: list[str]) -> None:
    for tool_name in ("xdotool", "import"):
        if shutil.which(tool_name) is None:
            sys.exit(f"{tool_name} is missing: apt-get install xvfb xdotool imagemagick")
    wanted = argv or ["light", "dark", "zh_CN"]
    OUT.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}"
    xvfb = None
    if not os.environ.get("DISPLAY"):
        if shutil.which("Xvfb") is None:
            sys.exit("Xvfb is missing: apt-get install xvfb libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1")
        os.environ["DISPLAY"] = ":97"
        xvfb = subprocess.Popen(["Xvfb", ":97", "-screen", "0", f"{SIZE[0]}x{SIZE[1]}x24", "-nolisten", "tcp"])
        time.sleep(1.0)
    script = [Reply([text("I'll look at the products first."), tool("page_snapshot")]),
              Reply([text("The rain jacket is the most expensive, at € 139.00."),
                     tool("done", success=True, answer="Rain jacket, € 139.00")])]
    shots: list[Path] = []
    try:
        for which in wanted:
            theme, lang = ("light", "zh_CN") if which == "zh_CN" else (which, "en")
            with FakeAnthropic(list(script) * 2) as fake:
                session = Session(theme, lang, site, fake.url)
                try:
                    scenes(session, full=lang == "en")
                finally:
                    session.stop()
                    shots += session.shots
                shutil.rmtree(session.root, ignore_errors=True)  # kept (with its app.log) when a scene failed
        optimise(shots)
    finally:
        server.shutdown()
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)


if __name__ == "__main__":
    main(sys.argv[1:])
