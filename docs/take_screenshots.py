"""Take the README screenshots of the real app on a virtual X display (Xvfb).

    .venv/bin/python docs/take_screenshots.py

Starts Xvfb, serves a small demo page on 127.0.0.1, runs `browserpilot` (the GUI, not headless) on a
temporary data folder twice — once showing the main window, once with an environment window open on the
demo page — and grabs the X screen with Qt. Needs Debian's `xvfb` package.
"""

from __future__ import annotations

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


def grab(path: Path, width: int, height: int) -> None:
    """Grab the top-left `width` x `height` of the X screen (windows open there: there is no window manager)."""
    code = ("import sys; from PySide6.QtWidgets import QApplication; app = QApplication([]); "
            "app.primaryScreen().grabWindow(0, 0, 0, int(sys.argv[2]), int(sys.argv[3])).save(sys.argv[1])")
    subprocess.run([sys.executable, "-c", code, str(path), str(width), str(height)], check=True,
                   env={**os.environ, "DISPLAY": DISPLAY, "QT_QPA_PLATFORM": "xcb"})


def run_app(data: Path, *args: str, settle: float = 6.0) -> None:
    env = {**os.environ, "DISPLAY": DISPLAY}
    env.pop("QT_QPA_PLATFORM", None)
    app = subprocess.Popen([str(Path(sys.executable).with_name("browserpilot")), "--data-dir", str(data), *args],
                           env=env)
    try:
        time.sleep(settle)
        path, size = (OUT / "environment-window.png", (1200, 800)) if args else (OUT / "main-window.png", (980, 620))
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
    finally:
        xvfb.terminate()
        server.shutdown()


if __name__ == "__main__":
    main()
