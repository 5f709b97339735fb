"""Take the README screenshots of the real app on a virtual X display (Xvfb).

    .venv/bin/python docs/take_screenshots.py

Starts Xvfb, serves a small demo page on 127.0.0.1, runs `browserpilot` (the GUI, not headless) on a
temporary data folder three times — showing the main window, an environment window open on the demo page,
and the workflow editor (opened with `browserpilot edit` on a demo workflow with an if-else and a loop) —
and grabs the X screen with Qt. Needs Debian's `xvfb` package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
DISPLAY = ":97"
DEMO = """<!doctype html><html><head><meta charset="utf-8"><title>Acme Store — Sign in</title><style>
body{font-family:sans-serif;background:#f4f6fb;margin:0}
header{background:#1e40af;color:#fff;padding:18px 32px;font-size:22px}
main{max-width:420px;margin:48px auto;background:#fff;padding:28px 32px;border-radius:12px;
box-shadow:0 4px 18px rgba(0,0,0,.08)} label{display:block;margin:14px 0 6px;color:#334}
input{width:100%;padding:10px;border:1px solid #ccd;border-radius:6px;box-sizing:border-box}
button{margin-top:20px;width:100%;padding:12px;background:#1e40af;color:#fff;border:0;border-radius:6px;font-size:16px}
</style></head><body><header>Acme Store</header><main><h2>Sign in</h2>
<label>Email</label><input value="alice@example.com"><label>Password</label><input type=password value="secret">
<button>Sign in</button></main></body></html>"""
EDITOR_DEMO = {"kind": "app", "version": "0.3.0", "app": {"name": "Export shop orders", "mode": "workflow"},
               "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {"nodes": [
                   {"id": "start", "data": {"type": "start", "title": "Start", "variables": [
                       {"variable": "email", "label": "Email", "type": "text-input"}]}},
                   {"id": "signed_in", "data": {"type": "if-else", "title": "Signed in?", "cases": [
                       {"case_id": "yes", "conditions": [{"comparison_operator": "contains",
                                                          "variable_selector": ["sys", "url"], "value": "/account"}]}]}},
                   {"id": "sign_in", "data": {"type": "fill", "title": "Sign in", "locator": {"selector": "#email"},
                                              "text": "{{#input.email#}}"}},
                   {"id": "orders", "data": {"type": "goto", "title": "Orders page", "url": "https://shop.example/orders"}},
                   {"id": "pages", "data": {"type": "loop", "title": "Every page", "mode": "until", "max": 20,
                                            "until": {"comparison_operator": "locator", "value": "a.next[disabled]"},
                                            "nodes": [{"id": "rows", "data": {"type": "extract", "title": "Rows",
                                                                             "variable_selector": ["sys", "title"],
                                                                             "pattern": ".+"}}], "edges": []}},
                   {"id": "end", "data": {"type": "end", "title": "End", "outputs": [
                       {"variable": "rows", "value_selector": ["pages", "output"]}]}}],
                   "edges": [{"source": "start", "target": "signed_in"},
                             {"source": "signed_in", "sourceHandle": "yes", "target": "orders"},
                             {"source": "signed_in", "sourceHandle": "false", "target": "sign_in"},
                             {"source": "sign_in", "target": "orders"}, {"source": "orders", "target": "pages"},
                             {"source": "pages", "target": "end"}]}}}
for _node, (_x, _y) in zip(EDITOR_DEMO["workflow"]["graph"]["nodes"],  # type: ignore[index]
                           [(0, 0), (230, 0), (460, 110), (690, 0), (920, 0), (1150, 0)]):
    _node["position"] = {"x": _x, "y": _y}  # close together, so the window shows the nodes at a readable size


def grab(path: Path, width: int, height: int) -> None:
    """Grab the top-left `width` x `height` of the X screen (windows open there: there is no window manager)."""
    code = ("import sys; from PySide6.QtWidgets import QApplication; app = QApplication([]); "
            "app.primaryScreen().grabWindow(0, 0, 0, int(sys.argv[2]), int(sys.argv[3])).save(sys.argv[1])")
    subprocess.run([sys.executable, "-c", code, str(path), str(width), str(height)], check=True,
                   env={**os.environ, "DISPLAY": DISPLAY, "QT_QPA_PLATFORM": "xcb"})


def run_app(data: Path, *args: str, settle: float = 6.0, edit: str = "") -> None:
    """The app on the virtual display; after `settle` seconds (and `browserpilot edit <edit>`, when given),
    the screen is grabbed."""
    env = {**os.environ, "DISPLAY": DISPLAY}
    env.pop("QT_QPA_PLATFORM", None)
    command = [str(Path(sys.executable).with_name("browserpilot")), "--data-dir", str(data)]
    app = subprocess.Popen([*command, *args], env=env)
    try:
        time.sleep(settle)
        if edit:
            subprocess.run([*command, "edit", edit], check=True, capture_output=True, env=env)
            time.sleep(2.0)
            path, size = OUT / "workflow-editor.png", (1260, 760)
        elif args:
            path, size = OUT / "environment-window.png", (1200, 800)
        else:
            path, size = OUT / "main-window.png", (980, 620)
        grab(path, *size)
        print("wrote", path)
    finally:
        app.terminate()
        app.wait(20)


def main() -> None:
    if shutil.which("Xvfb") is None:
        sys.exit("Xvfb is missing: apt-get install xvfb libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1")
    OUT.mkdir(parents=True, exist_ok=True)
    site = Path(tempfile.mkdtemp())
    (site / "index.html").write_text(DEMO, "utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    xvfb = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1280x860x24", "-nolisten", "tcp"])
    data = Path(tempfile.mkdtemp()) / "data"
    try:
        time.sleep(1.0)
        cli = [str(Path(sys.executable).with_name("browserpilot")), "--data-dir", str(data), "env"]
        subprocess.run([*cli, "rename", "env-default", "Personal"], check=True, capture_output=True)
        subprocess.run([*cli, "create", "Work (Alice)", "--remark", "alice@example.com — shop admin"], check=True,
                       capture_output=True)
        subprocess.run([*cli, "create", "Shop test account", "--remark", "QA; resets nightly"], check=True,
                       capture_output=True)
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        # A first visit so the environments list shows recent sites.
        run_app(data, "--env", "env-default", "--open", url, settle=5.0)
        run_app(data, settle=4.0)
        demo = Path(tempfile.mkdtemp()) / "export-shop-orders.json"
        demo.write_text(json.dumps(EDITOR_DEMO), "utf-8")
        subprocess.run([str(Path(sys.executable).with_name("browserpilot")), "--data-dir", str(data), "workflow",
                        "import", str(demo)], check=True, capture_output=True)
        run_app(data, settle=4.0, edit=str(EDITOR_DEMO["app"]["name"]))  # type: ignore[index]
    finally:
        xvfb.terminate()
        server.shutdown()


if __name__ == "__main__":
    main()
