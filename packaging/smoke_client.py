"""The agent's side of packaging/smoke_test.sh: drives an unpacked bundle as a user and an agent client would.

    .venv/bin/python packaging/smoke_client.py BUNDLE_DIR WORK_DIR [--display :N --shot FILE]

The bundle runs in a clean environment (only HOME, PATH=/usr/bin:/bin, LANG; `cd /`; no venv, no PYTHONPATH);
only this client (the MCP SDK's stdio client and a local page server) uses the checkout's Python. Steps:
  1. `browserpilot mcp` spawned by the client, which starts the bundle's app headless; time to the first
     successful call (env_list) is the start-up time reported;
  2. a page action that needs the injected JavaScript (tab_open, page_click on `text=Greet`, page_script);
  3. the running app's memory maps: nothing from the checkout or a venv is loaded; the programs it starts get
     the bundle's xdg-open stand-in first on PATH (packaging/rthook_launchers.py);
  4. `browserpilot run FILE --json` (the CLI forwards the workflow, a click needing the JS, to the running app);
  5. with --reference EXE: the same cold first call with another installation (the checkout's venv), for a ratio
     under the same machine load;
  6. with --display: the app with windows under that X display, an environment window opened on the page
     through MCP, and a screenshot of the whole screen (ImageMagick's `import`) written to --shot;
  7. a streamed video (DASH, audio and video apart, made here by the system's ffmpeg) saved by `page_download`
     with an empty PATH, so that only the ffmpeg shipped in the bundle can merge it (checked with ffprobe);
     skipped, and said so, when the bundle ships none.
Prints one JSON object with the measurements; exits non-zero on the first thing that does not work.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

PAGE = (b"<!doctype html><title>Smoke</title><h1>waiting</h1>"
        b"<button onclick=\"document.querySelector('h1').textContent = 'clicked ' + event.isTrusted\">Greet</button>")


class PageHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: Any) -> None:
        pass


def serve_page() -> str:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PageHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **extra}


def workflow(url: str) -> dict[str, Any]:
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "open", "data": {"type": "goto", "url": url}},
             {"id": "press", "data": {"type": "click", "locator": {"selector": "text=Greet"}}},
             {"id": "read", "data": {"type": "script", "source": "return {h: document.querySelector('h1').textContent}"}},
             {"id": "end", "data": {"type": "end", "outputs": [{"variable": "heading", "value_selector": ["read", "h"]}]}}]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Smoke", "mode": "workflow"},
            "workflow": {"graph": {"nodes": nodes, "edges": edges}}}


async def ok(client: Client, tool: str, **params: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, params)
    envelope = result.structured_content
    if not isinstance(envelope, dict) or envelope.get("ok") is not True:
        raise SystemExit(f"smoke: {tool} failed: {envelope or result}")
    return envelope


async def page_action(client: Client, url: str) -> str:
    tab = (await ok(client, "tab_open", url=url))["tabId"]
    await ok(client, "page_click", tabId=tab, locator={"selector": "text=Greet"})
    read = await ok(client, "page_script", tabId=tab, source="return document.querySelector('h1').textContent")
    return str(read.get("value"))


def app_pid(data: Path) -> int:
    """The app's pid from `mcp.json`: its bridge endpoint's (up first) or its HTTP server's."""
    state = json.loads((data / "mcp.json").read_text("utf-8"))
    return int(state.get("quickPid") or state["pid"])


def foreign_mappings(pid: int) -> list[str]:
    """Files mapped into the app that come from a checkout or a venv (there should be none)."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    paths = {line.split(None, 5)[5] for line in maps.splitlines() if len(line.split(None, 5)) == 6}
    return sorted(p for p in paths if "/.venv/" in p or "site-packages" in p or p.startswith("/work/"))


def child_path(pid: int) -> str:
    """PATH as the app hands it to the programs it starts (read from a QtWebEngineProcess child)."""
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        environ = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
        for item in environ:
            if item.startswith(b"PATH="):
                return item[5:].decode()
    raise SystemExit(f"smoke: the app (pid {pid}) has no child process to read PATH from")


def stop(pid: int) -> None:
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise SystemExit(f"smoke: the app (pid {pid}) did not stop within 30 s of SIGTERM")


async def first_call(exe: Path, data: Path, home: Path) -> float:
    """Seconds from spawning `browserpilot mcp` (no app running on `data`) to env_list answered."""
    params = StdioServerParameters(command=str(exe), args=["mcp", "--data-dir", str(data)], env=clean_env(home),
                                   cwd="/")
    started = time.monotonic()
    async with Client(params) as client:
        await ok(client, "env_list")
        return time.monotonic() - started


def reference_part(exe: Path, work: Path) -> dict[str, Any]:
    """The same cold first call with another installation (e.g. the checkout's .venv/bin/browserpilot), right
    after the bundle's, so the two are compared under the same load."""
    data, home = work / "data-reference", work / "home"
    seconds = asyncio.run(first_call(exe, data, home))
    stop(app_pid(data))
    return {"first_call_s": round(seconds, 2), "exe": str(exe)}


def headless_part(exe: Path, work: Path, url: str) -> dict[str, Any]:
    data, home = work / "data-headless", work / "home"
    home.mkdir(parents=True, exist_ok=True)
    params = StdioServerParameters(command=str(exe), args=["mcp", "--data-dir", str(data)], env=clean_env(home),
                                   cwd="/")

    async def scenario() -> tuple[float, float, str]:
        started = time.monotonic()
        async with Client(params) as client:
            await ok(client, "env_list")
            first_call = time.monotonic() - started
            heading = await page_action(client, url)
            action = time.monotonic() - started - first_call
        return first_call, action, heading

    first_call, action, heading = asyncio.run(scenario())
    if heading != "clicked true":
        raise SystemExit(f"smoke: the page action read {heading!r}, not 'clicked true'")
    pid = app_pid(data)
    foreign = foreign_mappings(pid)
    if foreign:
        raise SystemExit(f"smoke: the bundle loaded files from outside itself: {foreign[:5]}")
    if not child_path(pid).startswith(str(exe.parent / "_internal" / "launchers") + ":"):
        raise SystemExit(f"smoke: the app's children do not get the launcher stand-ins first on PATH: {child_path(pid)}")
    file = work / "smoke.json"
    file.write_text(json.dumps(workflow(url)), "utf-8")
    started = time.monotonic()
    run = subprocess.run([str(exe), "--data-dir", str(data), "run", str(file), "--json"], capture_output=True,
                         text=True, env=clean_env(home), cwd="/", timeout=120, stdin=subprocess.DEVNULL)
    run_seconds = time.monotonic() - started
    if run.returncode != 0 or json.loads(run.stdout).get("outputs") != {"heading": "clicked true"}:
        raise SystemExit(f"smoke: browserpilot run failed ({run.returncode}): {run.stdout} {run.stderr}")
    stop(pid)
    return {"first_call_s": round(first_call, 2), "page_action_s": round(action, 2),
            "run_forwarded_s": round(run_seconds, 2), "foreign_mappings": len(foreign)}


def gui_part(exe: Path, work: Path, url: str, display: str, shot: Path) -> dict[str, Any]:
    data, home = work / "data-gui", work / "home"
    env = clean_env(home, DISPLAY=display)
    started = time.monotonic()
    app = subprocess.Popen([str(exe), "--data-dir", str(data)], env=env, cwd="/", stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=open(work / "gui.log", "w"))
    try:
        found = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "BrowserPilot"],
                               env={"DISPLAY": display}, capture_output=True, text=True, timeout=60)
        if found.returncode != 0:
            raise SystemExit(f"smoke: no BrowserPilot window appeared on {display}")
        window = time.monotonic() - started
        mcp_params = StdioServerParameters(command=str(exe), args=["mcp", "--data-dir", str(data)],
                                           env=clean_env(home), cwd="/")

        async def scenario() -> str:
            async with Client(mcp_params) as client:
                return await page_action(client, url)

        heading = asyncio.run(scenario())
        if heading != "clicked true":
            raise SystemExit(f"smoke: the page action under {display} read {heading!r}")
        windows = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "."], env={"DISPLAY": display},
                                 capture_output=True, text=True).stdout.split()
        subprocess.run(["import", "-window", "root", str(shot)], env={"DISPLAY": display}, check=True, timeout=60)
        names = []
        for number, window_id in enumerate(windows):  # each window raised and taken on its own as well
            x = {"DISPLAY": display}
            names.append(subprocess.run(["xdotool", "getwindowname", window_id], env=x, capture_output=True,
                                        text=True).stdout.strip())
            subprocess.run(["xdotool", "windowraise", window_id], env=x, check=True)
            subprocess.run(["xdotool", "sync"], env=x, capture_output=True)  # harmless where the verb is unknown
            subprocess.run(["import", "-window", window_id, str(shot.with_name(f"window-{number}.png"))], env=x,
                           check=True, timeout=60)
        app.send_signal(signal.SIGTERM)
        app.wait(30)
        return {"first_window_s": round(window, 2), "windows": names, "screenshot": str(shot)}
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


class QuietFileHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def serve_folder(folder: Path) -> str:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(QuietFileHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def stream_part(exe: Path, work: Path) -> dict[str, Any]:
    """A DASH stream saved whole with nothing but the bundle: PATH is an empty folder, so the merge can only
    be done by the bundle's own ffmpeg."""
    if not (exe.parent / "ffmpeg").is_file():
        return {"skipped": "the bundle ships no ffmpeg (built with BROWSERPILOT_BUNDLE_FFMPEG=system)"}
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.support.streams import CLIP_SECONDS, ffprobe, make_streams  # the suite's own test streams

    streams = make_streams(work / "streams")
    base = serve_folder(streams.folder)
    data, home, empty = work / "data-stream", work / "home", work / "empty-path"
    empty.mkdir(parents=True, exist_ok=True)
    params = StdioServerParameters(command=str(exe), args=["mcp", "--data-dir", str(data)],
                                   env={**clean_env(home), "PATH": str(empty)}, cwd="/")

    async def scenario() -> dict[str, Any]:
        async with Client(params) as client:
            tab = (await ok(client, "tab_open", url=f"{base}/dash/"))["tabId"]
            return await ok(client, "page_download", tabId=tab, url=f"{base}/dash/manifest.mpd",
                            save_as="smoke-video", timeout_ms=120_000)

    started = time.monotonic()
    saved = asyncio.run(scenario())
    seconds = time.monotonic() - started
    stop(app_pid(data))
    probe = ffprobe(saved["path"])
    kinds = sorted(kind for kind, _codec in probe["streams"])
    duration = probe["duration"]
    if kinds != ["audio", "video"] or abs(duration - CLIP_SECONDS) > 0.5:
        raise SystemExit(f"smoke: the saved stream has {kinds}, {duration:.2f} s (want audio and video, "
                         f"{CLIP_SECONDS:g} s): {saved}")
    return {"file": Path(saved["path"]).name, "bytes": saved["bytes"], "streams": kinds,
            "duration_s": round(duration, 2), "seconds": round(seconds, 2)}


def stop_leftovers(work: Path) -> None:
    """After a failure: end the apps this smoke test started (each data folder's mcp.json names its pid)."""
    for mcp_file in work.glob("data-*/mcp.json"):
        try:
            pid = json.loads(mcp_file.read_text("utf-8")).get("pid")
            if pid:
                os.kill(int(pid), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def main() -> int:
    parser = argparse.ArgumentParser(description="drive an unpacked BrowserPilot bundle")
    parser.add_argument("bundle", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("--display")
    parser.add_argument("--shot", type=Path)
    parser.add_argument("--reference", type=Path, help="another browserpilot to time the same first call with")
    args = parser.parse_args()
    exe = args.bundle / "browserpilot"
    url = serve_page()
    try:
        report: dict[str, Any] = {"headless": headless_part(exe, args.work, url)}
        if args.reference:
            report["reference"] = reference_part(args.reference, args.work)
            report["first_call_ratio"] = round(
                report["headless"]["first_call_s"] / report["reference"]["first_call_s"], 2)
        if args.display:
            report["gui"] = gui_part(exe, args.work, url, args.display, args.shot or args.work / "screen.png")
        report["stream"] = stream_part(exe, args.work)
    except BaseException:
        stop_leftovers(args.work)
        raise
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
